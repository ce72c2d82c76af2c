/* prio_info.c - the controller's side of job priority: the parameters from
 * slurm.conf and the cluster, each pending job's factors, and sprio's RPC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/conf.h"
#include "ctld/mcs_label.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"
#include "ctld/assoc.h"
#include "ctld/ctld.h"
#include "ctld/fairshare.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "proto/codec.h"
#include "sched/priority.h"
#include "common/common.h"

void job_priority_params(struct ctld *ctld, struct priority_params *ret)
{
	const struct conf *cf = ctld->conf;
	struct priority_params pp = {0};
	int type = priority_type_parse(cf->priority_type);

	pp.type = type < 0 ? PRIORITY_BASIC : (enum priority_type)type;
	pp.weight_age = cf->prio_weight_age;
	pp.weight_fairshare = cf->prio_weight_fairshare;
	pp.weight_job_size = cf->prio_weight_job_size;
	pp.weight_partition = cf->prio_weight_partition;
	pp.weight_qos = cf->prio_weight_qos;
	pp.weight_assoc = cf->prio_weight_assoc;
	/* checked when slurm.conf is read (prio_tres_check): 0 if bad */
	(void)priority_tres_weights_parse(cf->prio_weight_tres, pp.weight_tres, NULL, 0);
	pp.max_age = cf->prio_max_age == INFINITE32 ? 0 : cf->prio_max_age * 60;
	pp.favor_small = cf->prio_favor_small;
	pp.cluster_nodes = (uint32_t)node_mgr_count(ctld->nodes);
	for (size_t i = 0; i < pp.cluster_nodes; i++)
		pp.cluster_cpus += node_mgr_get(ctld->nodes, i)->cpus;
	for (size_t i = 0; i < node_mgr_part_count(ctld->nodes); i++) {
		const struct conf_part *cp = node_mgr_part(ctld->nodes, i)->cfg;
		if (cp->priority_job_factor > pp.max_part_job_factor)
			pp.max_part_job_factor = cp->priority_job_factor;
	}
	pp.max_qos_priority = assoc_max_qos_priority(ctld->assoc);
	pp.max_assoc_priority = pp.weight_assoc ? assoc_max_priority(ctld->assoc) : 0;
	*ret = pp;
}

int prio_tres_check(const struct conf *cf, struct rota_error *err)
{
	double w[PRIO_TRES_N];
	char bad[64];

	if (priority_tres_weights_parse(cf->prio_weight_tres, w, bad, sizeof(bad)) < 0)
		return errprintf(err,
		                 "PriorityWeightTRES: \"%s\" is an invalid TRES weight "
		                 "entry",
		                 bad);
	return 0;
}

/* What the job asks of each TRES, and what its partition p has. */
static void job_tres(const struct job *job, const struct part *p, struct priority_job *pj)
{
	const struct job_desc *d = &job->desc;

	pj->tres[PRIO_TRES_CPU] = pj->cpus;
	pj->tres[PRIO_TRES_NODE] = pj->nodes;
	pj->tres[PRIO_TRES_MEM] = d->mem_per_node != NO_VAL64
	                              ? d->mem_per_node * pj->nodes
	                          : d->mem_per_cpu != NO_VAL64 ? d->mem_per_cpu * pj->cpus
	                                                       : 0;
	if (!p)
		return;
	pj->part_tres[PRIO_TRES_NODE] = p->nnodes;
	pj->part_tres[PRIO_TRES_CPU] = p->total_cpus;
	pj->part_tres[PRIO_TRES_MEM] = (double)p->total_mem;
}

static int any_tres_weight(const struct priority_params *pp)
{
	for (int t = 0; t < PRIO_TRES_N; t++)
		if (pp->weight_tres[t] > 0.0)
			return 1;
	return 0;
}

void job_priority_factors(struct ctld *ctld, const struct priority_params *pp,
                          const struct job *job, const struct part *part, time_t now,
                          struct priority_factors *ret)
{
	const struct job_desc *d = &job->desc;
	const struct part *in = part ? part : job->part;
	uint32_t cpt =
	    d->cpus_per_task == NO_VAL || !d->cpus_per_task ? 1 : d->cpus_per_task;
	uint32_t tpn = d->ntasks_per_node == NO_VAL ? 1 : d->ntasks_per_node;
	struct priority_job pj = {
	    .job_id = job->job_id,
	    .eligible_time = job->eligible_time,
	    .nodes = job_min_nodes(job) ? job_min_nodes(job) : 1,
	    .part_job_factor = part        ? part->cfg->priority_job_factor
	                       : job->part ? job->part->cfg->priority_job_factor
	                                   : 0,
	    .nice = job_nice(job),
	    .site_factor = job_x(job)->site_factor,
	    .qos_priority =
	        pp->max_qos_priority
	            ? assoc_qos_priority(ctld->assoc, d->qos ? d->qos : "normal")
	            : 0,
	    .fairshare = pp->weight_fairshare ? fairshare_factor(ctld, job, now) : 0.0,
	};

	if (d->num_tasks != NO_VAL && d->num_tasks)
		pj.cpus = d->num_tasks * cpt;
	else
		pj.cpus = pj.nodes * tpn * cpt;
	if (pp->max_assoc_priority)
		pj.assoc_priority = assoc_priority(
		    ctld->assoc, assoc_of_job(ctld->assoc, d->account,
		                              job->owner ? job->owner->user : NULL,
		                              in ? in->cfg->name : NULL));
	if (any_tres_weight(pp))
		job_tres(job, in, &pj);
	priority_compute(pp, &pj, now, ret);
}

static uint32_t norm(double f)
{
	return (uint32_t)(f * PRIO_NORM_SCALE + 0.5);
}

/* The weighted TRES ("cpu=2000"), or the normalized ("cpu=0.50"), as sprio
 * lists them: those the job has a value for; NULL if none. */
static char *tres_cells(const struct priority_factors *f, int normalized)
{
	char buf[256];
	size_t at = 0;

	for (int t = 0; t < PRIO_TRES_N && at < sizeof(buf); t++) {
		if (f->w_tres[t] == 0.0)
			continue;
		if (normalized)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s=%.2f",
			                       at ? "," : "", priority_tres_name(t),
			                       f->tres[t]);
		else
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s=%.0f",
			                       at ? "," : "", priority_tres_name(t),
			                       f->w_tres[t]);
	}
	return at ? xstrdup(buf) : NULL;
}

/* The job's row, as in partition part (NULL: the job's own). */
static void fill(struct ctld *ctld, const struct priority_params *pp,
                 const struct job *job, const struct part *part, time_t now,
                 struct prio_info *o)
{
	struct priority_factors f;

	job_priority_factors(ctld, pp, job, part, now, &f);
	o->job_id = job->job_id;
	o->partition = xstrdup(part                  ? part->cfg->name
	                       : job->desc.partition ? job->desc.partition
	                       : job->part           ? job->part->cfg->name
	                                             : "");
	o->user = xstrdup(job->owner->user ? job->owner->user : "");
	/* a priority an admin set stands alone, its factors 0 (as Slurm's) */
	if (job->prio_set && pp->type == PRIORITY_MULTIFACTOR) {
		o->priority = job->priority;
		o->direct = 1;
		return;
	}
	/* a job of several partitions: its priority in each, as Slurm's */
	o->priority =
	    part && !job->prio_set && job->priority && pp->type == PRIORITY_MULTIFACTOR
	        ? f.priority
	        : job->priority;
	o->site = (uint32_t)f.site; /* signed, as nice */
	o->age = (uint32_t)(f.w_age + 0.5);
	o->fairshare = (uint32_t)(f.w_fairshare + 0.5);
	o->jobsize = (uint32_t)(f.w_job_size + 0.5);
	o->partition_factor = (uint32_t)(f.w_partition + 0.5);
	o->qos = (uint32_t)(f.w_qos + 0.5);
	o->nice = (uint32_t)f.nice;
	o->n_age = norm(f.age);
	o->n_fairshare = norm(f.fairshare);
	o->n_jobsize = norm(f.job_size);
	o->n_partition = norm(f.partition);
	o->n_qos = norm(f.qos);
	o->assoc = (uint32_t)(f.w_assoc + 0.5);
	o->n_assoc = norm(f.assoc);
	o->tres = tres_cells(&f, 0);
	o->n_tres = tres_cells(&f, 1);
}

static int wanted(const struct job *job, const struct job_info_req *req)
{
	if (!job_is_pending(job) || job->hold || !job->part)
		return 0;
	if (!req->job_ids.n)
		return 1;
	for (uint32_t i = 0; i < req->job_ids.n; i++)
		if (req->job_ids.v[i] == job->job_id ||
		    (job->array_job_id && req->job_ids.v[i] == job->array_job_id))
			return 1;
	return 0;
}

void job_priority_refresh(struct ctld *ctld, struct job *job, time_t now)
{
	struct priority_params pp;
	struct priority_factors f;

	/* the type first: the parameters walk every node */
	if (job->prio_set || !job->priority || !job->part ||
	    priority_type_parse(ctld->conf->priority_type) != PRIORITY_MULTIFACTOR)
		return;
	job_priority_params(ctld, &pp);
	job_priority_factors(ctld, &pp, job, NULL, now, &f);
	job->priority = f.priority;
}

void prio_info(struct ctld *ctld, struct caller *who, const struct job_info_req *req,
               struct chan *ch)
{
	struct priority_params pp;
	struct prio_info_resp r = {0};
	time_t now = time(NULL);
	size_t n = 0, cap = 0;

	job_priority_params(ctld, &pp);
	r.multifactor = pp.type == PRIORITY_MULTIFACTOR;
	r.weight_age = pp.weight_age;
	r.weight_fairshare = pp.weight_fairshare;
	r.weight_jobsize = pp.weight_job_size;
	r.weight_partition = pp.weight_partition;
	r.weight_qos = pp.weight_qos;
	r.weight_assoc = pp.weight_assoc;
	r.weight_tres =
	    ctld->conf->prio_weight_tres ? xstrdup(ctld->conf->prio_weight_tres) : NULL;
	cap = job_count(ctld->jobs) + 1;
	r.jobs = xcalloc(cap, sizeof(*r.jobs));
	for (struct job *job = job_first(ctld->jobs); job; job = job->next) {
		struct part *parts[JOB_PARTS_MAX];
		size_t np = 1;

		if (!wanted(job, req) || mcs_job_hidden(ctld, who, job))
			continue; /* (MCS privatedata hides it: mcs_label.h) */
		/* -p a,b: a row per partition, as Slurm's sprio */
		if (job_multi_part(job))
			np = job_parts_of(ctld->nodes, job->desc.partition, parts,
			                  JOB_PARTS_MAX);
		if (n + np > cap) {
			cap = (n + np) * 2 + 16;
			r.jobs = xrealloc(r.jobs, cap * sizeof(*r.jobs));
			memset(r.jobs + n, 0, (cap - n) * sizeof(*r.jobs));
		}
		for (size_t k = 0; k < np; k++)
			fill(ctld, &pp, job, job_multi_part(job) ? parts[k] : NULL, now,
			     &r.jobs[n++]);
	}
	r.jobs_count = n;
	chan_send(ch, MSG_PRIO_INFO_RESP, &r);
	codec_release(&prio_info_resp_type, &r);
}
