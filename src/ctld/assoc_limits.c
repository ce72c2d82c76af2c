/* assoc_limits.c - association and QOS limits at scheduling and submission
 * (assoc_limits.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "ctld/assoc.h"
#include "ctld/assoc_impl.h"
#include "ctld/assoc_limits.h"
#include "ctld/ctld.h"
#include "ctld/fairshare.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "sched/select.h"
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/common.h"

/* A TRES limit's parts that are counted here (NO_VAL: none). */
struct tres {
	uint32_t cpu, node;
	uint64_t mem; /* MB */
};

/* What runs under one association (and, for an account's, below it). */
struct use {
	uint32_t jobs, cpus, nodes;
	uint64_t mem;
	int parent; /* an account's association: the one above; -1 none */
	struct tres grp, max;
	struct tres grp_mins; /* GrpTRESMins (cpu: CPU-minutes) */
	double pass_mins;     /* CPU-minutes to their limits of jobs this pass started */
};

/* Jobs and CPUs of one user under one QOS. */
struct quse {
	uint32_t qos, uid, jobs, cpus;
};

struct assoc_limits {
	struct ctld *ctld;
	const struct assoc_mgr *m;
	struct use *use; /* [m->nassocs] */
	struct quse *quse;
	size_t nquse;
	uint32_t *qos_jobs;   /* [m->nqos]: every user's */
	struct tres *qos_pu;  /* [m->nqos]: MaxTRESPerUser */
	struct tres *qos_grp; /* [m->nqos]: GrpTRES */
	struct tres *qos_max; /* [m->nqos]: MaxTRES (per job) */
	struct tres *qos_run; /* [m->nqos]: what runs in it (cpu, node, mem) */
	int begun;            /* the jobs running before the pass are counted */
};

/* "cpu=8,mem=10G,node=2": the parts counted here. */
static struct tres tres_parse(const char *s)
{
	struct tres t = {NO_VAL, NO_VAL, NO_VAL64};
	char **items = strv_split(s, ",");

	for (size_t i = 0; items[i]; i++) {
		char *eq = strchr(items[i], '='), *end;
		unsigned long long v;
		if (!eq)
			continue;
		*eq = '\0';
		v = strtoull(eq + 1, &end, 10);
		if (!strcasecmp(items[i], "cpu"))
			t.cpu = v >= NO_VAL ? NO_VAL - 1 : (uint32_t)v;
		else if (!strcasecmp(items[i], "node"))
			t.node = v >= NO_VAL ? NO_VAL - 1 : (uint32_t)v;
		else if (!strcasecmp(items[i], "mem"))
			t.mem = v * (*end == 'G' || *end == 'g'   ? 1024
			             : *end == 'T' || *end == 't' ? 1024 * 1024
			                                          : 1);
	}
	strv_free(items);
	return t;
}

static int rec_index(const struct assoc_mgr *m, const struct assoc_rec *r)
{
	return r ? (int)(r - m->assocs) : -1;
}

/* The user's association a job runs under, or -1. */
static int job_assoc(const struct assoc_mgr *m, const struct job *job)
{
	return rec_index(m, assoc_of_job(m, job->desc.account,
	                                 job->owner ? job->owner->user : NULL,
	                                 job->part ? job->part->cfg->name : NULL));
}

/* The account association above index i (its account's, for a user's). */
static int up(const struct assoc_limits *l, int i)
{
	const struct assoc_rec *r = &l->m->assocs[i];

	if (r->user)
		return rec_index(l->m, assoc_find(l->m, r->account, NULL, NULL));
	return l->use[i].parent;
}

/* The job's QOS (set at submit; a job from before QOS were kept: its
 * association's default). */
static int job_qos(const struct assoc_limits *l, const struct job *job, int ai)
{
	const char *name = job->desc.qos && *job->desc.qos ? job->desc.qos
	                   : ai >= 0 ? assoc_def_qos(l->m, &l->m->assocs[ai])
	                             : "normal";
	const struct assoc_qos *q = assoc_find_qos(l->m, name);

	return q ? (int)(q - l->m->qos) : -1;
}

/* The CPUs a task of the pending job is charged: its --cpus-per-task, or
 * in whole cores (sched_task_cpus) on the most threaded node of its
 * partition, so that a limit is never passed by the cores it will get. */
static uint32_t task_cpus(struct ctld *ctld, const struct job *job)
{
	const struct job_desc_ext *x = job_x(job);
	struct sched_req r = {.cpus_per_task = job->desc.cpus_per_task == NO_VAL
	                                           ? 1
	                                           : job->desc.cpus_per_task,
	                      .threads_per_core = x->threads_per_core,
	                      .ntasks_per_core = x->ntasks_per_core};
	uint32_t most = r.cpus_per_task;

	if ((!r.threads_per_core && !r.ntasks_per_core) || !job->part)
		return most;
	for (size_t i = 0; i < job->part->nnodes; i++) {
		const struct node *n = node_mgr_get(ctld->nodes, job->part->node_idx[i]);
		struct sched_node s = {.threads = node_cpu_threads(n)};
		uint32_t c = sched_task_cpus(&r, &s);

		if (c > most)
			most = c;
	}
	return most;
}

/* CPUs and nodes a job holds (running) or asks for (pending, at least). */
static void job_size(struct ctld *ctld, const struct job *job, uint32_t *cpus,
                     uint32_t *nodes, uint64_t *mem)
{
	const struct job_desc *d = &job->desc;
	uint32_t cpt = job_is_running(job) ? 0 : task_cpus(ctld, job);
	uint32_t tasks;

	*nodes = job_is_running(job) ? job->run->nnodes : job_min_nodes(job);
	if (job_is_running(job)) {
		*cpus = 0;
		for (uint32_t i = 0; i < job->run->nnodes; i++)
			*cpus += job->run->cpus[i];
	} else {
		tasks = d->flags & JOB_F_OVERCOMMIT    ? *nodes
		        : d->num_tasks != NO_VAL       ? d->num_tasks
		        : d->ntasks_per_node != NO_VAL ? d->ntasks_per_node * *nodes
		                                       : *nodes;
		*cpus = tasks * cpt;
	}
	*mem = d->mem_per_node != NO_VAL64  ? d->mem_per_node * *nodes
	       : d->mem_per_cpu != NO_VAL64 ? d->mem_per_cpu * *cpus
	                                    : 0;
}

static struct quse *quse_of(struct assoc_limits *l, uint32_t qos, uint32_t uid)
{
	for (size_t i = 0; i < l->nquse; i++)
		if (l->quse[i].qos == qos && l->quse[i].uid == uid)
			return &l->quse[i];
	l->quse = xrealloc(l->quse, (l->nquse + 1) * sizeof(*l->quse));
	l->quse[l->nquse] = (struct quse){.qos = qos, .uid = uid};
	return &l->quse[l->nquse++];
}

void assoc_limits_started(struct assoc_limits *l, const struct job *job)
{
	int ai = l ? job_assoc(l->m, job) : -1, qi;
	uint32_t cpus, nodes;
	uint64_t mem;

	if (ai < 0)
		return;
	job_size(l->ctld, job, &cpus, &nodes, &mem);
	for (int i = ai, depth = 0; i >= 0 && depth < 1000; i = up(l, i), depth++) {
		l->use[i].jobs++;
		l->use[i].cpus += cpus;
		l->use[i].nodes += nodes;
		l->use[i].mem += mem;
		/* started now: fairshare's figures (once a second) may not
		 * have it yet */
		if (l->begun && job->time_limit != INFINITE32 &&
		    job->time_limit != NO_VAL)
			l->use[i].pass_mins += (double)cpus * job->time_limit;
	}
	if ((qi = job_qos(l, job, ai)) >= 0) {
		struct quse *q = quse_of(l, (uint32_t)qi, job->owner->uid);
		q->jobs++;
		q->cpus += cpus;
		l->qos_jobs[qi]++;
		l->qos_run[qi].cpu += cpus;
		l->qos_run[qi].node += nodes;
		l->qos_run[qi].mem += mem;
	}
}

static int any_limit(const struct assoc_mgr *m)
{
	for (size_t i = 0; i < m->nassocs; i++) {
		const struct assoc_rec *r = &m->assocs[i];
		if (r->max_jobs != NO_VAL || r->grp_jobs != NO_VAL ||
		    r->max_wall != NO_VAL || r->grp_tres || r->max_tres ||
		    r->grp_tres_mins)
			return 1;
	}
	for (size_t i = 0; i < m->nqos; i++) {
		const struct assoc_qos *q = &m->qos[i];
		if (q->max_jobs_pu != NO_VAL || q->grp_jobs != NO_VAL ||
		    q->max_wall != NO_VAL || q->max_tres_pu || q->grp_tres || q->max_tres)
			return 1;
	}
	return 0;
}

struct assoc_limits *assoc_limits_begin(struct ctld *ctld)
{
	const struct assoc_mgr *m = ctld->assoc;
	struct assoc_limits *l;

	if (!m || !(assoc_enforce(ctld->conf) & ENFORCE_LIMITS) || !any_limit(m))
		return NULL;
	l = xcalloc(1, sizeof(*l));
	l->ctld = ctld;
	l->m = m;
	l->use = xcalloc(m->nassocs ? m->nassocs : 1, sizeof(*l->use));
	l->qos_jobs = xcalloc(m->nqos ? m->nqos : 1, sizeof(*l->qos_jobs));
	l->qos_pu = xcalloc(m->nqos ? m->nqos : 1, sizeof(*l->qos_pu));
	l->qos_grp = xcalloc(m->nqos ? m->nqos : 1, sizeof(*l->qos_grp));
	l->qos_max = xcalloc(m->nqos ? m->nqos : 1, sizeof(*l->qos_max));
	l->qos_run = xcalloc(m->nqos ? m->nqos : 1, sizeof(*l->qos_run));
	for (size_t i = 0; i < m->nqos; i++) {
		l->qos_pu[i] = tres_parse(m->qos[i].max_tres_pu);
		l->qos_grp[i] = tres_parse(m->qos[i].grp_tres);
		l->qos_max[i] = tres_parse(m->qos[i].max_tres);
	}
	for (size_t i = 0; i < m->nassocs; i++) {
		const struct assoc_rec *r = &m->assocs[i];
		l->use[i].parent =
		    !r->user && r->parent
		        ? rec_index(m, assoc_find(m, r->parent, NULL, NULL))
		        : -1;
		l->use[i].grp = tres_parse(r->grp_tres);
		l->use[i].max = tres_parse(r->max_tres);
		l->use[i].grp_mins = tres_parse(r->grp_tres_mins);
	}
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext)
		if (job_is_running(j))
			assoc_limits_started(l, j);
	l->begun = 1;
	return l;
}

void assoc_limits_end(struct assoc_limits *l)
{
	if (!l)
		return;
	free(l->use);
	free(l->quse);
	free(l->qos_jobs);
	free(l->qos_pu);
	free(l->qos_grp);
	free(l->qos_max);
	free(l->qos_run);
	free(l);
}

static int over(uint32_t limit, uint64_t would)
{
	return limit != NO_VAL && would > limit;
}

/* GrpTRESMins=cpu=limit: used up (with safe: or it would be, with what
 * running jobs and this one may use to their time limits)? */
static int cpu_mins_over(struct assoc_limits *l, const struct job *job,
                         const struct assoc_rec *r, uint32_t cpus, uint32_t limit)
{
	double left, used = fairshare_cpu_mins(l->ctld, r, time(NULL), &left);

	left += l->use[rec_index(l->m, r)].pass_mins;

	if (!(assoc_enforce(l->ctld->conf) & ENFORCE_SAFE))
		return used >= (double)limit;
	if (job->time_limit == INFINITE32 || job->time_limit == NO_VAL)
		return 1; /* no end: it cannot be known to fit */
	return used + left + (double)cpus * job->time_limit > (double)limit;
}

uint32_t assoc_limits_check(struct assoc_limits *l, const struct job *job)
{
	int ai = l ? job_assoc(l->m, job) : -1, qi;
	uint32_t cpus, nodes;
	uint64_t mem;

	if (ai < 0)
		return 0;
	job_size(l->ctld, job, &cpus, &nodes, &mem);
	{ /* the user's own association: per job and per user */
		const struct assoc_rec *r = &l->m->assocs[ai];
		const struct use *u = &l->use[ai];
		if (r->max_wall != NO_VAL &&
		    (job->time_limit == INFINITE32 || job->time_limit > r->max_wall))
			return WAIT_ASSOC_MAX_WALL;
		if (over(u->max.cpu, cpus))
			return WAIT_ASSOC_MAX_CPU_PER_JOB;
		if (over(u->max.node, nodes))
			return WAIT_ASSOC_MAX_NODE_PER_JOB;
		if (over(r->max_jobs, (uint64_t)u->jobs + 1))
			return WAIT_ASSOC_MAX_JOBS;
	}
	/* it and every account above it: the group's */
	for (int i = ai, depth = 0; i >= 0 && depth < 1000; i = up(l, i), depth++) {
		const struct assoc_rec *r = &l->m->assocs[i];
		const struct use *u = &l->use[i];
		if (over(r->grp_jobs, (uint64_t)u->jobs + 1))
			return WAIT_ASSOC_GRP_JOBS;
		if (over(u->grp.cpu, (uint64_t)u->cpus + cpus))
			return WAIT_ASSOC_GRP_CPU;
		if (over(u->grp.node, (uint64_t)u->nodes + nodes))
			return WAIT_ASSOC_GRP_NODE;
		if (u->grp.mem != NO_VAL64 && u->mem + mem > u->grp.mem)
			return WAIT_ASSOC_GRP_MEM;
		if (u->grp_mins.cpu != NO_VAL &&
		    cpu_mins_over(l, job, r, cpus, u->grp_mins.cpu))
			return WAIT_ASSOC_GRP_CPU_MIN;
	}
	if ((qi = job_qos(l, job, ai)) >= 0) {
		const struct assoc_qos *q = &l->m->qos[qi];
		const struct quse *qu = quse_of(l, (uint32_t)qi, job->owner->uid);
		const struct tres *pu = &l->qos_pu[qi];
		if (q->max_wall != NO_VAL &&
		    (job->time_limit == INFINITE32 || job->time_limit > q->max_wall))
			return WAIT_QOS_MAX_WALL;
		if (over(q->max_jobs_pu, (uint64_t)qu->jobs + 1))
			return WAIT_QOS_MAX_JOBS_PER_USER;
		if (over(pu->cpu, (uint64_t)qu->cpus + cpus))
			return WAIT_QOS_MAX_CPU_PER_USER;
		if (over(q->grp_jobs, (uint64_t)l->qos_jobs[qi] + 1))
			return WAIT_QOS_GRP_JOBS;
		if (over(l->qos_max[qi].cpu, cpus))
			return WAIT_QOS_MAX_CPU_PER_JOB;
		if (over(l->qos_max[qi].node, nodes))
			return WAIT_QOS_MAX_NODE_PER_JOB;
		if (over(l->qos_grp[qi].cpu, (uint64_t)l->qos_run[qi].cpu + cpus))
			return WAIT_QOS_GRP_CPU;
		if (over(l->qos_grp[qi].node, (uint64_t)l->qos_run[qi].node + nodes))
			return WAIT_QOS_GRP_NODE;
		if (l->qos_grp[qi].mem != NO_VAL64 &&
		    l->qos_run[qi].mem + mem > l->qos_grp[qi].mem)
			return WAIT_QOS_GRP_MEM;
	}
	return 0;
}

uint32_t assoc_limits_job_weight(const struct job *j)
{
	return j->array_rem && j->array_rem->count ? j->array_rem->count : 1;
}

/* The tasks a submission asks for (1 unless an array). */
static uint32_t desc_weight(const struct job_desc *d)
{
	struct arrayspec a;
	uint32_t n = 1;

	if (d->array_inx &&
	    arrayspec_parse(d->array_inx, ARRAYSPEC_LIMIT, &a, NULL) == 0) {
		n = a.count ? a.count : 1;
		arrayspec_release(&a);
	}
	return n;
}

/* GrpSubmitJobs of account's association or one above it: would one more
 * job (of anyone's, in it or below it) pass it? */
static int group_submit_over(struct ctld *ctld, const char *account, uint32_t adding)
{
	const struct assoc_mgr *m = ctld->assoc;
	const struct assoc_rec *a = assoc_find(m, account, NULL, NULL);

	for (int depth = 0; a && depth < 1000; depth++) {
		uint32_t n = 0;
		if (a->grp_submit != NO_VAL) {
			for (struct job *j = job_first(ctld->jobs); j; j = j->next)
				if (!job_is_finished(j) && j->desc.account &&
				    assoc_below(m, j->desc.account, a->account))
					n += assoc_limits_job_weight(j);
			if (over(a->grp_submit, (uint64_t)n + adding))
				return 1;
		}
		a = a->parent ? assoc_find(m, a->parent, NULL, NULL) : NULL;
	}
	return 0;
}

int assoc_limits_submit(struct ctld *ctld, uid_t uid, const char *user,
                        const struct job_desc *d, const char *partition)
{
	const struct assoc_mgr *m = ctld->assoc;
	const struct assoc_rec *r;
	const struct assoc_qos *q;
	uint32_t mine = 0, in_qos = 0, adding;

	if (!m || !(assoc_enforce(ctld->conf) & ENFORCE_LIMITS))
		return 0;
	adding = desc_weight(d) + ctld->submit_extra;
	if (!(r = assoc_of_job(m, d->account, user, partition)))
		return 0;
	q = assoc_find_qos(m, d->qos ? d->qos : assoc_def_qos(m, r));
	if (r->max_submit == NO_VAL && r->grp_submit == NO_VAL &&
	    (!q || q->max_submit_pu == NO_VAL))
		return group_submit_over(ctld, d->account, adding)
		           ? -ESLURM_ACCOUNTING_POLICY
		           : 0;
	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		if (job_is_finished(j) || !j->owner || j->owner->uid != uid)
			continue;
		if (q && j->desc.qos && !strcasecmp(j->desc.qos, q->name))
			in_qos += assoc_limits_job_weight(j);
		if (j->desc.account && !strcasecmp(j->desc.account, d->account))
			mine += assoc_limits_job_weight(j);
	}
	if (over(r->max_submit, (uint64_t)mine + adding) ||
	    over(r->grp_submit, (uint64_t)mine + adding) ||
	    (q && over(q->max_submit_pu, (uint64_t)in_qos + adding)))
		return -ESLURM_ACCOUNTING_POLICY;
	return group_submit_over(ctld, d->account, adding) ? -ESLURM_ACCOUNTING_POLICY
	                                                   : 0;
}
