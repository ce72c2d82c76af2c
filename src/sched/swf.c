#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched/swf.h"
#include "common/common.h"

static const char *const drop_names[SWF_DROP_COUNT] = {
    [SWF_KEEP] = "kept",
    [SWF_DROP_PROCS] = "no processor count",
    [SWF_DROP_TOO_WIDE] = "more processors than the machine",
    [SWF_DROP_RUN] = "run time <= 0",
    [SWF_DROP_REQ_TIME] = "requested time <= 0",
    [SWF_DROP_SUBMIT] = "submit time < 0",
};

const char *swf_drop_name(enum swf_drop why)
{
	return why < SWF_DROP_COUNT ? drop_names[why] : "?";
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == '\v' ||
	       *s == '\f')
		s++;
	return s;
}

/* Integer fields: some archive logs write them as "12.00"; round those. */
static int64_t to_int(double v)
{
	if (v >= 9.2e18)
		return INT64_MAX;
	if (v <= -9.2e18)
		return INT64_MIN;
	/* half away from zero, as llround(), without libm */
	return (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
}

int swf_parse_line(const char *line, struct swf_job *ret_job, struct rota_error *err)
{
	double f[SWF_FIELDS];
	const char *s = skip_space(line);

	if (!*s || *s == ';')
		return 0;
	for (int i = 0; i < SWF_FIELDS; i++) {
		char *end;

		s = skip_space(s);
		if (!*s) {
			errprintf(err, "only %d of %d fields", i, SWF_FIELDS);
			return -EINVAL;
		}
		f[i] = strtod(s, &end);
		if (end == s || !isfinite(f[i]) ||
		    (*end && !strchr(" \t\r\n\v\f", *end))) {
			errprintf(err, "field %d is not a number", i + 1);
			return -EINVAL;
		}
		s = end;
	}
	*ret_job = (struct swf_job){
	    .id = to_int(f[0]),
	    .submit = to_int(f[1]),
	    .wait = to_int(f[2]),
	    .run = to_int(f[3]),
	    .alloc_procs = to_int(f[4]),
	    .avg_cpu = f[5],
	    .used_mem = to_int(f[6]),
	    .req_procs = to_int(f[7]),
	    .req_time = to_int(f[8]),
	    .req_mem = to_int(f[9]),
	    .status = to_int(f[10]),
	    .user = to_int(f[11]),
	    .group = to_int(f[12]),
	    .exe = to_int(f[13]),
	    .queue = to_int(f[14]),
	    .partition = to_int(f[15]),
	    .prev_job = to_int(f[16]),
	    .think = to_int(f[17]),
	};
	return 1;
}

int swf_header_int(const char *line, const char *key, int64_t *ret_value)
{
	const char *s = skip_space(line);
	size_t klen = strlen(key);
	char *end;
	long long v;

	if (*s != ';')
		return 0;
	s = skip_space(s + 1);
	if (strncmp(s, key, klen) || s[klen] != ':')
		return 0;
	s = skip_space(s + klen + 1);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || errno)
		return 0;
	*ret_value = v;
	return 1;
}

int64_t swf_procs(const struct swf_job *job)
{
	return job->req_procs > 0 ? job->req_procs : job->alloc_procs;
}

enum swf_drop swf_clean(struct swf_job *job, int64_t max_procs)
{
	int64_t procs = swf_procs(job);

	if (procs <= 0)
		return SWF_DROP_PROCS;
	if (procs > max_procs)
		return SWF_DROP_TOO_WIDE;
	if (job->run <= 0)
		return SWF_DROP_RUN;
	if (job->req_time <= 0)
		return SWF_DROP_REQ_TIME;
	if (job->submit < 0)
		return SWF_DROP_SUBMIT;
	if (job->req_procs <= 0)
		job->req_procs = job->alloc_procs;
	if (job->alloc_procs <= 0)
		job->alloc_procs = job->req_procs;
	if (job->run > job->req_time)
		job->run = job->req_time;
	return SWF_KEEP;
}

int swf_format_line(const struct swf_job *job, char *buf, size_t len)
{
	char cpu[64];

	if (job->avg_cpu == floor(job->avg_cpu) && fabs(job->avg_cpu) < 1e15)
		snprintf(cpu, sizeof(cpu), "%.0f", job->avg_cpu);
	else
		snprintf(cpu, sizeof(cpu), "%.2f", job->avg_cpu);
	return snprintf(buf, len,
	                "%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
	                " %s %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
	                " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
	                " %" PRId64 " %" PRId64,
	                job->id, job->submit, job->wait, job->run, job->alloc_procs, cpu,
	                job->used_mem, job->req_procs, job->req_time, job->req_mem,
	                job->status, job->user, job->group, job->exe, job->queue,
	                job->partition, job->prev_job, job->think);
}
