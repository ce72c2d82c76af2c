/* priority.c - priority/basic and priority/multifactor, pure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sched/priority.h"

int priority_type_parse(const char *name)
{
	if (!name || !strcasecmp(name, "priority/basic"))
		return PRIORITY_BASIC;
	if (!strcasecmp(name, "priority/multifactor"))
		return PRIORITY_MULTIFACTOR;
	return -EINVAL;
}

static const char *const tres_names[PRIO_TRES_N] = {"cpu", "mem", "node"};

const char *priority_tres_name(enum priority_tres t)
{
	return t < PRIO_TRES_N ? tres_names[t] : "";
}

/* A mem weight's unit: how many MB it stands for (0: not a unit). */
static double mem_unit(char c)
{
	switch (c) {
	case 'k':
	case 'K':
		return 1.0 / 1024;
	case 'm':
	case 'M':
		return 1.0;
	case 'g':
	case 'G':
		return 1024.0;
	case 't':
	case 'T':
		return 1024.0 * 1024;
	default:
		return 0.0;
	}
}

/* One "name=weight" item of n bytes. */
static int tres_item(const char *item, size_t n, double weights[PRIO_TRES_N])
{
	const char *eq = memchr(item, '=', n);
	char num[64], *end;
	size_t nlen, vlen;
	double w, unit = 1.0;
	int t;

	if (!eq || eq == item || (vlen = n - (size_t)(eq + 1 - item)) == 0 ||
	    vlen >= sizeof(num))
		return -EINVAL;
	nlen = (size_t)(eq - item);
	for (t = 0; t < PRIO_TRES_N; t++)
		if (strlen(tres_names[t]) == nlen &&
		    !strncasecmp(item, tres_names[t], nlen))
			break;
	memcpy(num, eq + 1, vlen);
	num[vlen] = '\0';
	w = strtod(num, &end);
	if (end == num || !isfinite(w) || w < 0.0)
		return -EINVAL;
	if (t == PRIO_TRES_N) /* a TRES Rota does not weigh (GRES/gpu, ...): 0 */
		return 0;
	if (*end) {
		unit = t == PRIO_TRES_MEM && !end[1] ? mem_unit(*end) : 0.0;
		if (unit == 0.0)
			return -EINVAL;
	}
	weights[t] = w / unit;
	return 0;
}

int priority_tres_weights_parse(const char *s, double weights[PRIO_TRES_N], char *bad,
                                size_t bad_len)
{
	memset(weights, 0, PRIO_TRES_N * sizeof(*weights));
	while (s && *s) {
		size_t n = strcspn(s, ",");
		if (n && tres_item(s, n, weights) < 0) {
			if (bad && bad_len)
				snprintf(bad, bad_len, "%.*s", (int)n, s);
			memset(weights, 0, PRIO_TRES_N * sizeof(*weights));
			return -EINVAL;
		}
		s += n;
		if (*s)
			s++;
	}
	return 0;
}

static double clamp01(double x)
{
	return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

static double age_factor(const struct priority_params *pp, time_t eligible, time_t now)
{
	double age;

	if (now <= eligible)
		return 0.0;
	if (!pp->max_age)
		return 1.0;
	age = (double)(now - eligible);
	if (age > pp->max_age)
		age = pp->max_age;
	return age / pp->max_age;
}

/* Requested size relative to the cluster: CPUs where the cluster's CPU count is
 * known, else nodes. */
static double size_factor(const struct priority_params *pp, const struct priority_job *j)
{
	double f = 0.0;

	if (pp->cluster_cpus)
		f = (double)j->cpus / pp->cluster_cpus;
	else if (pp->cluster_nodes)
		f = (double)j->nodes / pp->cluster_nodes;
	f = clamp01(f);
	return pp->favor_small ? 1.0 - f : f;
}

uint32_t priority_basic(uint32_t job_id, int32_t nice)
{
	int64_t p = (int64_t)0xffff0000u - job_id - nice;

	return p < 1 ? 1 : p > 0xfffffffdLL ? 0xfffffffdu : (uint32_t)p;
}

void priority_compute(const struct priority_params *pp, const struct priority_job *job,
                      time_t now, struct priority_factors *ret)
{
	struct priority_factors f;
	double sum;

	memset(&f, 0, sizeof(f));
	f.nice = (int32_t)job->nice;
	if (pp->type != PRIORITY_MULTIFACTOR) {
		f.priority = priority_basic(job->job_id, f.nice);
		*ret = f;
		return;
	}
	/* a factor whose weight is zero is not computed (sprio -n shows 0) */
	f.age = pp->weight_age ? age_factor(pp, job->eligible_time, now) : 0.0;
	f.fairshare = pp->weight_fairshare ? clamp01(job->fairshare) : 0.0;
	f.job_size = size_factor(pp, job);
	f.partition =
	    pp->max_part_job_factor
	        ? clamp01((double)job->part_job_factor / pp->max_part_job_factor)
	        : 0.0;
	f.qos = pp->max_qos_priority
	            ? clamp01((double)job->qos_priority / pp->max_qos_priority)
	            : 0.0;
	f.assoc = pp->weight_assoc && pp->max_assoc_priority
	              ? (double)job->assoc_priority / pp->max_assoc_priority
	              : 0.0;
	f.w_assoc = pp->weight_assoc * f.assoc;
	/* each weighted TRES: what the job asks over what its partition has */
	for (int t = 0; t < PRIO_TRES_N; t++) {
		if (pp->weight_tres[t] <= 0.0 || !job->tres[t] || !job->part_tres[t])
			continue;
		f.tres[t] = (double)job->tres[t] / (double)job->part_tres[t];
		f.w_tres[t] = f.tres[t] * pp->weight_tres[t];
	}
	f.w_age = pp->weight_age * f.age;
	f.w_fairshare = pp->weight_fairshare * f.fairshare;
	f.w_job_size = pp->weight_job_size * f.job_size;
	f.w_partition = pp->weight_partition * f.partition;
	f.w_qos = pp->weight_qos * f.qos;
	f.site = (int32_t)job->site_factor;
	sum = (double)f.site + f.w_age + f.w_fairshare + f.w_job_size + f.w_partition +
	      f.w_qos + f.w_assoc - (double)f.nice;
	for (int t = 0; t < PRIO_TRES_N; t++)
		sum += f.w_tres[t];
	if (sum < 1.0)
		f.priority = 1;
	else if (sum > (double)0xfffffffdu)
		f.priority = 0xfffffffdu;
	else
		f.priority = (uint32_t)sum;
	*ret = f;
}

uint32_t priority_of(const struct priority_params *pp, const struct priority_job *job,
                     time_t now)
{
	struct priority_factors f;

	priority_compute(pp, job, now, &f);
	return f.priority;
}
