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
	struct tres max_pn;   /* MaxTRESPerNode */
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
	uint32_t *qos_jobs;      /* [m->nqos]: every user's */
	struct tres *qos_pu;     /* [m->nqos]: MaxTRESPerUser */
	struct tres *qos_grp;    /* [m->nqos]: GrpTRES */
	struct tres *qos_max;    /* [m->nqos]: MaxTRES (per job) */
	struct tres *qos_max_pn; /* [m->nqos]: MaxTRESPerNode */
	struct tres *qos_min;    /* [m->nqos]: MinTRES (per job) */
	struct tres *qos_run;    /* [m->nqos]: what runs in it (cpu, node, mem) */
	int begun;               /* the jobs running before the pass are counted */
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

/* Does Flags= of q (comma-separated, any case) name flag? */
static int qos_has_flag(const struct assoc_qos *q, const char *flag)
{
	char **words;
	int has;

	if (!q || !q->flags || !*q->flags)
		return 0;
	words = strv_split(q->flags, ",");
	has = strv_has(words, flag, 1);
	strv_free(words);
	return has;
}

/* The QOS whose limits hold job, first the one whose limits win: the
 * partition's QOS (of the partition it runs or is considered in), then the
 * job's own; the job's first when it has Flags=OverPartQOS.  One when they
 * are the same or the partition has none.  Returns how many are in out. */
static size_t job_qos_order(const struct assoc_limits *l, const struct job *job, int ai,
                            int out[2])
{
	int jq = job_qos(l, job, ai), pq = -1, over_part;
	const struct assoc_qos *p = job->part && job->part->cfg->qos
	                                ? assoc_find_qos(l->m, job->part->cfg->qos)
	                                : NULL;
	size_t n = 0;

	if (p)
		pq = (int)(p - l->m->qos);
	if (pq < 0 || pq == jq) {
		if (jq >= 0)
			out[n++] = jq;
		return n;
	}
	over_part = jq >= 0 && qos_has_flag(&l->m->qos[jq], "OverPartQOS");
	out[n++] = over_part ? jq : pq;
	if (jq >= 0)
		out[n++] = over_part ? pq : jq;
	return n;
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
	int ai = l ? job_assoc(l->m, job) : -1, order[2];
	size_t nq;
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
	nq = job_qos_order(l, job, ai, order);
	for (size_t k = 0; k < nq; k++) {
		int qi = order[k];
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
		    r->grp_tres_mins || r->max_tres_per_node)
			return 1;
	}
	for (size_t i = 0; i < m->nqos; i++) {
		const struct assoc_qos *q = &m->qos[i];
		if (q->max_jobs_pu != NO_VAL || q->grp_jobs != NO_VAL ||
		    q->max_wall != NO_VAL || q->max_tres_pu || q->grp_tres ||
		    q->max_tres || q->max_tres_per_node || q->min_tres)
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
	l->qos_max_pn = xcalloc(m->nqos ? m->nqos : 1, sizeof(*l->qos_max_pn));
	l->qos_min = xcalloc(m->nqos ? m->nqos : 1, sizeof(*l->qos_min));
	for (size_t i = 0; i < m->nqos; i++) {
		l->qos_pu[i] = tres_parse(m->qos[i].max_tres_pu);
		l->qos_grp[i] = tres_parse(m->qos[i].grp_tres);
		l->qos_max[i] = tres_parse(m->qos[i].max_tres);
		l->qos_max_pn[i] = tres_parse(m->qos[i].max_tres_per_node);
		l->qos_min[i] = tres_parse(m->qos[i].min_tres);
	}
	for (size_t i = 0; i < m->nassocs; i++) {
		const struct assoc_rec *r = &m->assocs[i];
		l->use[i].parent =
		    !r->user && r->parent
		        ? rec_index(m, assoc_find(m, r->parent, NULL, NULL))
		        : -1;
		l->use[i].grp = tres_parse(r->grp_tres);
		l->use[i].max = tres_parse(r->max_tres);
		l->use[i].max_pn = tres_parse(r->max_tres_per_node);
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
	free(l->qos_max_pn);
	free(l->qos_min);
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

/* What a job holds or asks for, as job_size counts it, and on its busiest
 * node (per_node). */
struct ask {
	uint32_t cpus, nodes;
	uint64_t mem;
	uint32_t node_cpus;
	uint64_t node_mem;
};

/* The CPUs and memory (MB) a pending job asks on a node: its CPUs spread
 * over its nodes, the most on one. */
static void ask_per_node(const struct job *job, struct ask *a)
{
	const struct job_desc *d = &job->desc;
	uint32_t nodes = a->nodes ? a->nodes : 1;

	a->node_cpus = (a->cpus + nodes - 1) / nodes;
	a->node_mem = d->mem_per_node != NO_VAL64  ? d->mem_per_node
	              : d->mem_per_cpu != NO_VAL64 ? d->mem_per_cpu * a->node_cpus
	                                           : 0;
}

/* A QOS's limits, one bit each: those a QOS of higher precedence sets are
 * not checked again in the next (Slurm's: the first QOS's limit wins). */
enum qos_lim {
	QL_WALL = 1u << 0,
	QL_JOBS_PU = 1u << 1,
	QL_CPU_PU = 1u << 2,
	QL_GRP_JOBS = 1u << 3,
	QL_MAX_CPU = 1u << 4,
	QL_MAX_NODE = 1u << 5,
	QL_GRP_CPU = 1u << 6,
	QL_GRP_NODE = 1u << 7,
	QL_GRP_MEM = 1u << 8,
	QL_MAX_CPU_PN = 1u << 9,
	QL_MAX_MEM_PN = 1u << 10,
	QL_MIN_CPU = 1u << 11,
	QL_MIN_NODE = 1u << 12,
	QL_MIN_MEM = 1u << 13,
};

/* Is the limit bit set here and by no QOS before?  Then it is this one's. */
static int applies(unsigned *taken, unsigned bit, int set)
{
	if (!set || (*taken & bit))
		return 0;
	*taken |= bit;
	return 1;
}

/* The WAIT_QOS_* reason QOS qi's limits (those not taken by a QOS before
 * it) hold job for, or 0. */
static uint32_t qos_check(struct assoc_limits *l, const struct job *job, int qi,
                          const struct ask *a, unsigned *taken)
{
	const struct assoc_qos *q = &l->m->qos[qi];
	const struct quse *qu = quse_of(l, (uint32_t)qi, job->owner->uid);
	const struct tres *pu = &l->qos_pu[qi], *max = &l->qos_max[qi],
	                  *grp = &l->qos_grp[qi], *run = &l->qos_run[qi],
	                  *pn = &l->qos_max_pn[qi], *min = &l->qos_min[qi];

	if (applies(taken, QL_WALL, q->max_wall != NO_VAL) &&
	    (job->time_limit == INFINITE32 || job->time_limit > q->max_wall))
		return WAIT_QOS_MAX_WALL;
	if (applies(taken, QL_JOBS_PU, q->max_jobs_pu != NO_VAL) &&
	    over(q->max_jobs_pu, (uint64_t)qu->jobs + 1))
		return WAIT_QOS_MAX_JOBS_PER_USER;
	if (applies(taken, QL_CPU_PU, pu->cpu != NO_VAL) &&
	    over(pu->cpu, (uint64_t)qu->cpus + a->cpus))
		return WAIT_QOS_MAX_CPU_PER_USER;
	if (applies(taken, QL_GRP_JOBS, q->grp_jobs != NO_VAL) &&
	    over(q->grp_jobs, (uint64_t)l->qos_jobs[qi] + 1))
		return WAIT_QOS_GRP_JOBS;
	if (applies(taken, QL_MAX_CPU, max->cpu != NO_VAL) && over(max->cpu, a->cpus))
		return WAIT_QOS_MAX_CPU_PER_JOB;
	if (applies(taken, QL_MAX_NODE, max->node != NO_VAL) && over(max->node, a->nodes))
		return WAIT_QOS_MAX_NODE_PER_JOB;
	if (applies(taken, QL_MAX_CPU_PN, pn->cpu != NO_VAL) &&
	    over(pn->cpu, a->node_cpus))
		return WAIT_QOS_MAX_CPU_PER_NODE;
	if (applies(taken, QL_MAX_MEM_PN, pn->mem != NO_VAL64) && a->node_mem > pn->mem)
		return WAIT_QOS_MAX_MEM_PER_NODE;
	if (applies(taken, QL_MIN_CPU, min->cpu != NO_VAL) && a->cpus < min->cpu)
		return WAIT_QOS_MIN_CPU;
	if (applies(taken, QL_MIN_NODE, min->node != NO_VAL) && a->nodes < min->node)
		return WAIT_QOS_MIN_NODE;
	if (applies(taken, QL_MIN_MEM, min->mem != NO_VAL64) && a->mem < min->mem)
		return WAIT_QOS_MIN_MEM;
	if (applies(taken, QL_GRP_CPU, grp->cpu != NO_VAL) &&
	    over(grp->cpu, (uint64_t)run->cpu + a->cpus))
		return WAIT_QOS_GRP_CPU;
	if (applies(taken, QL_GRP_NODE, grp->node != NO_VAL) &&
	    over(grp->node, (uint64_t)run->node + a->nodes))
		return WAIT_QOS_GRP_NODE;
	if (applies(taken, QL_GRP_MEM, grp->mem != NO_VAL64) &&
	    run->mem + a->mem > grp->mem)
		return WAIT_QOS_GRP_MEM;
	return 0;
}

uint32_t assoc_limits_check(struct assoc_limits *l, const struct job *job)
{
	int ai = l ? job_assoc(l->m, job) : -1, order[2];
	unsigned taken = 0;
	size_t nq;
	struct ask ask;
	uint32_t cpus, nodes, why;
	uint64_t mem;

	if (ai < 0)
		return 0;
	job_size(l->ctld, job, &cpus, &nodes, &mem);
	ask = (struct ask){.cpus = cpus, .nodes = nodes, .mem = mem};
	ask_per_node(job, &ask);
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
		if (over(u->max_pn.cpu, ask.node_cpus))
			return WAIT_ASSOC_MAX_CPU_PER_NODE;
		if (u->max_pn.mem != NO_VAL64 && ask.node_mem > u->max_pn.mem)
			return WAIT_ASSOC_MAX_MEM_PER_NODE;
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
	nq = job_qos_order(l, job, ai, order);
	for (size_t k = 0; k < nq; k++)
		if ((why = qos_check(l, job, order[k], &ask, &taken)))
			return why;
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

/* Does job j use QOS q, as its own or its partition's? */
static int job_uses_qos(const struct job *j, const struct assoc_qos *q)
{
	return (j->desc.qos && !strcasecmp(j->desc.qos, q->name)) ||
	       (j->part && j->part->cfg->qos && !strcasecmp(j->part->cfg->qos, q->name));
}

/* Which pending and running jobs a QOS submit limit counts. */
enum qos_submit_kind { QS_PER_USER, QS_PER_ACCOUNT, QS_GROUP };

static uint32_t qos_submit_limit(const struct assoc_qos *q, enum qos_submit_kind k)
{
	return k == QS_PER_USER      ? q->max_submit_pu
	       : k == QS_PER_ACCOUNT ? q->max_submit_pa
	                             : q->grp_submit;
}

/* MaxSubmitJobsPerUser, MaxSubmitJobsPerAccount and GrpSubmitJobs of the
 * submission's QOS jq and its partition's pq (either NULL): each limit is
 * the first QOS's that sets it, in the order whose limits win
 * (job_qos_order).  Would the jobs it counts, with adding more, pass it? */
static int qos_submit_over(struct ctld *ctld, uid_t uid, const char *account,
                           const struct assoc_qos *jq, const struct assoc_qos *pq,
                           uint32_t adding)
{
	const struct assoc_qos *order[2] = {pq, jq};

	if (jq && pq && qos_has_flag(jq, "OverPartQOS")) {
		order[0] = jq;
		order[1] = pq;
	}
	for (int kind = QS_PER_USER; kind <= QS_GROUP; kind++) {
		for (size_t k = 0; k < 2; k++) {
			const struct assoc_qos *q = order[k];
			uint32_t limit, n = 0;
			if (!q || (limit = qos_submit_limit(q, kind)) == NO_VAL)
				continue;
			for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
				if (job_is_finished(j) || !job_uses_qos(j, q))
					continue;
				if (kind == QS_PER_USER &&
				    !(j->owner && j->owner->uid == uid))
					continue;
				if (kind == QS_PER_ACCOUNT &&
				    !(account && j->desc.account &&
				      !strcasecmp(j->desc.account, account)))
					continue;
				n += assoc_limits_job_weight(j);
			}
			if (over(limit, (uint64_t)n + adding))
				return 1;
			break; /* the first QOS's limit is the one that holds */
		}
	}
	return 0;
}

/* Flags=DenyOnLimit: a submission past the per-job limits of its QOS
 * (MaxWall, MaxTRESPerJob's cpu and node, MaxTRESPerNode's cpu, MinTRES's cpu
 * and node) is refused rather than left to wait.  Each limit is the first
 * QOS's that sets it, as in the pass. */
static int qos_denies(const struct assoc_qos *jq, const struct assoc_qos *pq,
                      const struct job_desc *d)
{
	const struct assoc_qos *order[2] = {pq, jq};
	uint32_t tasks = d->num_tasks == NO_VAL ? 1 : d->num_tasks;
	uint32_t cpt =
	    d->cpus_per_task == NO_VAL || !d->cpus_per_task ? 1 : d->cpus_per_task;
	uint64_t cpus = (uint64_t)tasks * cpt;
	uint32_t nodes = d->min_nodes == NO_VAL || !d->min_nodes ? 1 : d->min_nodes;
	uint64_t node_cpus = (cpus + nodes - 1) / nodes;
	int wall = 0, cpu = 0, node = 0, pn_cpu = 0, min_cpu = 0, min_node = 0;

	if (jq && pq && qos_has_flag(jq, "OverPartQOS")) {
		order[0] = jq;
		order[1] = pq;
	}
	for (size_t k = 0; k < 2; k++) {
		const struct assoc_qos *q = order[k];
		struct tres max, pn, min;
		int deny;
		if (!q)
			continue;
		deny = qos_has_flag(q, "DenyOnLimit");
		max = tres_parse(q->max_tres);
		pn = tres_parse(q->max_tres_per_node);
		min = tres_parse(q->min_tres);
		if (!pn_cpu && pn.cpu != NO_VAL) {
			pn_cpu = 1;
			if (deny && node_cpus > pn.cpu)
				return 1;
		}
		if (!min_cpu && min.cpu != NO_VAL) {
			min_cpu = 1;
			if (deny && cpus < min.cpu)
				return 1;
		}
		if (!min_node && min.node != NO_VAL) {
			min_node = 1;
			if (deny && nodes < min.node)
				return 1;
		}
		if (!wall && q->max_wall != NO_VAL) {
			wall = 1;
			if (deny && d->time_limit != NO_VAL &&
			    (d->time_limit == INFINITE32 || d->time_limit > q->max_wall))
				return 1;
		}
		if (!cpu && max.cpu != NO_VAL) {
			cpu = 1;
			if (deny && cpus > max.cpu)
				return 1;
		}
		if (!node && max.node != NO_VAL) {
			node = 1;
			if (deny && nodes > max.node)
				return 1;
		}
	}
	return 0;
}

int assoc_limits_submit(struct ctld *ctld, uid_t uid, const char *user,
                        const struct job_desc *d, const char *partition)
{
	const struct assoc_mgr *m = ctld->assoc;
	const struct assoc_rec *r;
	const struct assoc_qos *q, *pq = NULL;
	const struct part *p;
	uint32_t mine = 0, adding;

	if (!m || !(assoc_enforce(ctld->conf) & ENFORCE_LIMITS))
		return 0;
	adding = desc_weight(d) + ctld->submit_extra;
	if (!(r = assoc_of_job(m, d->account, user, partition)))
		return 0;
	q = assoc_find_qos(m, d->qos ? d->qos : assoc_def_qos(m, r));
	if (partition && (p = node_mgr_part_find(ctld->nodes, partition)) && p->cfg->qos)
		pq = assoc_find_qos(m, p->cfg->qos);
	if (pq == q)
		pq = NULL;
	if (qos_denies(q, pq, d) || qos_submit_over(ctld, uid, r->account, q, pq, adding))
		return -ESLURM_ACCOUNTING_POLICY;
	if (r->max_submit != NO_VAL || r->grp_submit != NO_VAL) {
		for (struct job *j = job_first(ctld->jobs); j; j = j->next)
			if (!job_is_finished(j) && j->owner && j->owner->uid == uid &&
			    j->desc.account && !strcasecmp(j->desc.account, d->account))
				mine += assoc_limits_job_weight(j);
		if (over(r->max_submit, (uint64_t)mine + adding) ||
		    over(r->grp_submit, (uint64_t)mine + adding))
			return -ESLURM_ACCOUNTING_POLICY;
	}
	return group_submit_over(ctld, d->account, adding) ? -ESLURM_ACCOUNTING_POLICY
	                                                   : 0;
}
