/* backfill.c - the controller's backfill pass (SchedulerType=sched/backfill).
 *
 * After the main pass, every bf_interval seconds: build a plan of the nodes
 * over time (src/sched/backfill.h) from the running jobs and their expected
 * ends, then walk up to bf_max_job_test pending jobs in priority order.  Each
 * gets the earliest start within bf_window at which it delays no job tested
 * before it: if that is now it starts (a backfilled job), otherwise the
 * resources are reserved for it then, and its expected start and nodes are
 * what squeue --start, StartTime= and SchedNodeList= show.
 *
 * A pass does not hold the event loop: after bf_yield_interval it lets the
 * controller answer requests and goes on at the next turn (a backfill "run",
 * ctld->bf_run).  If anything that frees or takes resources happened in
 * between (ctld->res_gen), the plan is rebuilt from the nodes as they are now
 * plus the reservations the run has made so far; the jobs not yet tested are
 * taken as they are then (gone, started or held ones are skipped).
 *
 * Expected ends are start + time limit, or with SchedulerParameters
 * bf_estimate=predict the user's recent runtimes (src/sched/predict.h), or with
 * bf_estimate=learned the learned model's estimate (the estimates `rota sim
 * --policy best` plans with), capped by the limit: better plans, while jobs are still
 * killed only at their limit.
 *
 * bf_job_part_count_reserve=N (Slurm's) gives a reservation to the first N
 * jobs of each partition only; under sched_order=saf_aged the pending jobs
 * come in that order (sched_pass.c) and the jobs past the reservations are
 * tried shortest estimate first (src/sched/bf_run.h).  bf_estimate=best is
 * all three with the learned estimates: `rota sim --policy best`, live.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/schedparams.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "ctld/assoc_limits.h"
#include "ctld/licenses.h"
#include "ctld/resv.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/hetjob.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/sched_pass.h"
#include "ctld/stats.h"
#include "ctld/suspend.h"
#include "proto/messages.h"
#include "sched/backfill.h"
#include "sched/bf_run.h"
#include "sched/predict.h"
#include "sched/queue.h"
#include "common/common.h"

/* A backfill pass in progress (ctld->bf_run). */
struct bf_ctld {
	struct sched_pass ps; /* its own snapshot of the nodes, and the job it is at */
	struct sched_params sp;
	struct bf_run *run;
	uint32_t *ids; /* pending jobs in priority order, by id */
	/* [n] of a job that names several partitions (-p a,b), the place in
	 * its list of the partition entry i is about (sched/queue.h); NULL
	 * when no job does */
	uint32_t *at;
	size_t n;
	time_t started;    /* when the run began: a plan made in it (multi) */
	struct job *moved; /* pointed at one of its partitions in this step */
	struct job *job;   /* ids[ps.cur], looked up at each of its tests */
	/* a heterogeneous job's components (job first), and the one mark()
	 * and plan() are about (job, or one of them) */
	struct job *comps[HET_MAX];
	size_t ncomps;
	struct job *comp;
	uint64_t gen; /* ctld->res_gen the plan reflects */
	unsigned slices;
	uint64_t busy_us; /* time in its slices (sdiag) */
};

/* The predictor bf_estimate names, or NULL (the time limit). */
static const struct predict *predictor(const struct ctld *ctld,
                                       const struct sched_params *sp)
{
	switch (sp->bf_predict) {
	case BF_ESTIMATE_PREDICT:
		return ctld->predict;
	case BF_ESTIMATE_LEARNED:
		return ctld->learned;
	}
	return NULL;
}

/* A job as the predictors see it: limited to lim seconds. */
static struct predict_job job_predict_input(const struct job *job, int64_t lim)
{
	uint32_t t = job->desc.num_tasks, c = job->desc.cpus_per_task;
	int64_t procs = (t && t != NO_VAL ? t : 1) * (int64_t)(c && c != NO_VAL ? c : 1);

	return (struct predict_job){
	    .user = job->owner->uid, .requested = lim, .procs = procs};
}

void backfill_job_ended(struct ctld *ctld, const struct job *job, int64_t runtime)
{
	struct predict_job q = job_predict_input(job, 0);

	q.actual = runtime;
	if (job->time_limit && job->time_limit != INFINITE32 && job->time_limit != NO_VAL)
		q.requested = (int64_t)job->time_limit * 60;
	if (ctld->predict)
		predict_record_job(ctld->predict, &q);
	if (ctld->learned)
		predict_record_job(ctld->learned, &q);
}

int64_t backfill_job_estimate(struct ctld *ctld, const struct sched_params *sp,
                              const struct job *job)
{
	const struct predict *p = predictor(ctld, sp);
	uint32_t tl = job_limit_in_part(job); /* -p a,b: the one it is planned in */
	int64_t lim;

	if (tl == INFINITE32 || tl == NO_VAL)
		return BF_FOREVER;
	lim = tl ? (int64_t)tl * 60 : 60;
	if (p) {
		struct predict_job q = job_predict_input(job, lim);

		return predict_estimate_job(p, &q);
	}
	return lim;
}

/* What the plan assumes a job of this limit runs for. */
static int64_t job_duration(struct bf_ctld *r, const struct job *job)
{
	return backfill_job_estimate(r->ps.ctld, &r->sp, job);
}

/* When a job that holds resources is expected to give them back. */
static int64_t job_expected_end(struct ctld *ctld, const struct sched_params *sp,
                                const struct job *job, int64_t now)
{
	const struct predict *p = predictor(ctld, sp);
	int64_t dur, lim, end;

	if (!job_is_running(job))
		return now + 1; /* COMPLETING: about to be released */
	dur = backfill_job_estimate(ctld, sp, job);
	if (dur == BF_FOREVER)
		return BF_FOREVER;
	lim = (int64_t)job->time_limit * 60;
	/* outlived its prediction: correct it, as rota sim does */
	for (unsigned n = 0; (int64_t)job->run->start_time + dur <= now && dur < lim; n++)
		dur = predict_correct_nth(p ? p : ctld->predict, dur, lim, n);
	end = (int64_t)job->run->start_time + dur;
	return end > now ? end : now + 1; /* past its limit: being killed */
}

/* Jobs the main pass left waiting only for resources or for higher-priority
 * jobs; held, dependent, begin-time and limit-bound jobs are not planned. */
static int plannable(const struct job *job)
{
	/* a job in a reservation starts there when its nodes free up (main
	 * pass): the plan holds the reservations' nodes for the others */
	return job_is_pending(job) && job->part && !job_x(job)->reservation &&
	       (job->reason == WAIT_RESOURCES || job->reason == WAIT_PRIORITY ||
	        job->reason == WAIT_NODE_NOT_AVAIL || job->reason == WAIT_NODES_DOWN ||
	        job->reason == WAIT_RESV_MAINT || job->reason == WAIT_RESV_OTHER);
}

/* A job of several partitions got its planned start from another of its
 * entries in this run: the earliest of them stands (Slurm's backfill keeps
 * the earliest start of a job's partitions). */
static int planned_this_run(const struct bf_ctld *r, const struct job *job)
{
	return r->at && job_multi_part(job) && job->sched && job->sched->est_start &&
	       job->sched->plan_run == r->started;
}

/* Forget a job's planned start, and its components'. */
static void clear_plans(struct bf_ctld *r, struct job *job)
{
	if (planned_this_run(r, job))
		return;
	job_clear_plan(job);
	for (size_t k = 1; k < r->ncomps; k++)
		if (job_is_pending(r->comps[k]))
			job_clear_plan(r->comps[k]);
}

/* A heterogeneous job is planned when every component is there, pending. */
static int comps_plannable(const struct bf_ctld *r, const struct job *job)
{
	if (!job_x(job)->het_job_id)
		return 1;
	if (r->ncomps != HET_SIZE(job_x(job)->het_offset) || r->comps[0] != job)
		return 0;
	for (size_t k = 1; k < r->ncomps; k++)
		if (!job_is_pending(r->comps[k]) || !r->comps[k]->part)
			return 0;
	return 1;
}

/* The backfill run's questions (src/sched/view.h), for the job ids[i]. */
static int bf_next(void *ctx, size_t i, struct sched_job *ret)
{
	struct bf_ctld *r = ctx;
	struct ctld *ctld = r->ps.ctld;
	struct job *job = job_find(ctld->jobs, r->ids[i]);
	uint32_t why;

	if (!job)
		return SCHED_SKIP;
	/* a heterogeneous job's other components are planned with its leader */
	if (hetjob_follower(job))
		return SCHED_SKIP;
	/* one entry of a job of several partitions: tried in that one */
	if (r->at && job_is_pending(job) && job_multi_part(job)) {
		r->moved = job;
		if (sched_pass_use_part(ctld, job, r->at[i]) < 0)
			return SCHED_SKIP;
	}
	if (r->ps.cur != i) { /* its first test in this run */
		r->ps.cur = i;
		r->ncomps =
		    job_x(job)->het_job_id ? hetjob_components(ctld, job, r->comps) : 0;
		if (!plannable(job) || !comps_plannable(r, job)) {
			if (job_is_pending(job))
				clear_plans(r, job);
			return SCHED_SKIP;
		}
		r->ps.running = NO_VAL; /* counted when first needed */
	} else if (!job_is_pending(job) || !job->array_rem) {
		return SCHED_SKIP; /* its last task started */
	}
	/* past bf_max_job_test the run tests nothing more: spare the rest (an
	 * array's running tasks are counted over every job) */
	if (!bf_run_may_test(r->run))
		return SCHED_SKIP;
	if (job->array_rem && r->ps.running == NO_VAL)
		r->ps.running = job_array_running(ctld->jobs, job->array_job_id);
	if (job->array_rem) {
		uint32_t throttle = job->array_rem->throttle;
		int64_t t = arrayspec_first(job->array_rem);
		if ((throttle && r->ps.running >= throttle) || t < 0 ||
		    depend_test(ctld, job, (uint32_t)t, r->ps.now) != DEPEND_OK)
			return SCHED_SKIP;
	}
	r->job = r->comp = job;
	/* held by an association's limit: no start, and no reservation (each
	 * component's limits hold the whole heterogeneous job) */
	for (size_t k = 0; k < (r->ncomps ? r->ncomps : 1); k++) {
		struct job *c = r->ncomps ? r->comps[k] : job;
		if ((why = assoc_limits_check(r->ps.limits, c)) ||
		    (why = lic_pool_check(r->ps.lics, c))) {
			sched_pass_set_reason(job, why, NULL);
			clear_plans(r, job);
			return SCHED_HELD;
		}
	}
	sched_pass_job(&r->ps, job, ret);
	ret->dur = job_duration(r, job);
	return SCHED_TRY;
}

static void bf_mark(void *ctx, size_t i, size_t alt, struct sched_node *nodes)
{
	struct bf_ctld *r = ctx;

	(void)i;
	(void)nodes; /* r->ps.snap.nodes */
	sched_pass_mark_nodes(&r->ps, r->comp, alt);
}

/* Component k of the heterogeneous job ids[i] (bf_next made it current). */
static int bf_part(void *ctx, size_t i, size_t k, struct sched_job *ret)
{
	struct bf_ctld *r = ctx;

	(void)i;
	if (k >= r->ncomps)
		return SCHED_SKIP;
	r->comp = r->comps[k];
	sched_pass_job(&r->ps, r->comp, ret);
	ret->dur = job_duration(r, r->comp);
	return SCHED_TRY;
}

static int bf_start_parts(void *ctx, size_t i, const struct sched_alloc *a, size_t n)
{
	struct bf_ctld *r = ctx;

	(void)i;
	if (n != r->ncomps)
		return -EINVAL;
	return hetjob_start_placed(&r->ps, r->comps, a, n);
}

static int bf_start(void *ctx, size_t i, const struct sched_alloc *a)
{
	struct bf_ctld *r = ctx;

	(void)i;
	return sched_pass_start_job(&r->ps, r->job, a);
}

/* Remember the plan for a job that must wait: start t on a's nodes. */
static void bf_plan(void *ctx, size_t i, int64_t t, const struct sched_alloc *a)
{
	struct bf_ctld *r = ctx;

	(void)i;
	if (planned_this_run(r, r->comp) && r->comp->sched->est_start <= (time_t)t)
		return; /* another of its partitions lets it start sooner */
	job_clear_plan(r->comp);
	job_sched_mut(r->comp)->est_start = (time_t)t;
	r->comp->sched->plan_run = r->started;
	r->comp->sched->sched_nodes =
	    node_mgr_hostlist(r->ps.ctld->nodes, a->node_idx, a->nnodes);
}

static void bf_unplan(void *ctx, size_t i)
{
	struct bf_ctld *r = ctx;

	(void)i;
	clear_plans(r, r->job);
}

static int bf_keep(void *ctx, size_t i)
{
	struct bf_ctld *r = ctx;
	const struct job *job = job_find(r->ps.ctld->jobs, r->ids[i]);

	return job && job_is_pending(job) && !job->hold;
}

static const struct sched_ops bf_ops = {
    .next = bf_next,
    .mark = bf_mark,
    .start = bf_start,
    .plan = bf_plan,
    .unplan = bf_unplan,
    .keep = bf_keep,
    .part = bf_part,
    .start_parts = bf_start_parts,
};

void backfill_holds(struct ctld *ctld, const struct sched_params *sp, time_t now,
                    struct sched_hold **holds, size_t *n, size_t *cap)
{
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext) {
		int64_t end;
		if (!j->run->nnodes || !j->run->held)
			continue;
		end = job_expected_end(ctld, sp, j, now);
		for (uint32_t k = 0; k < j->run->nnodes; k++) {
			struct sched_hold *h;
			if (!j->run->held[k])
				continue;
			if (*n == *cap) {
				*cap = *cap ? 2 * *cap : 256;
				*holds = xrealloc(*holds, *cap * sizeof(**holds));
			}
			/* a suspended job holds its memory alone (one
			 * time-sliced its CPUs too) */
			h = &(*holds)[(*n)++];
			*h = (struct sched_hold){
			    j->run->node_idx[k], end,
			    suspend_cpus_given_up(j) ? 0 : j->run->cpus[k],
			    j->run->mem[k]};
			if (j->run->gres)
				gres_use_counts(node_mgr_gres_kinds(ctld->nodes),
				                j->run->gres[k], h->gres);
		}
	}
}

/* The plan from the nodes and jobs as they are at now, plus the run's
 * reservations so far. */
static int plan_rebuild(struct bf_ctld *r, time_t now)
{
	struct ctld *ctld = r->ps.ctld;
	struct sched_hold *holds = NULL;
	size_t n = 0, cap = 0, cur = r->ps.cur;
	uint32_t running = r->ps.running;
	int rc;

	sched_pass_release(&r->ps);
	sched_pass_init(&r->ps, ctld);
	r->ps.backfill = 1;
	r->ps.now = now;
	r->ps.cur = cur;
	r->ps.running = running;
	backfill_holds(ctld, &r->sp, now, &holds, &n, &cap);
	resv_holds(ctld, now, &holds, &n, &cap);
	rc = bf_run_rebuild(r->run, &r->ps.snap, holds, n, now);
	free(holds);
	r->gen = ctld->res_gen;
	return rc;
}

static void run_free(struct bf_ctld *r)
{
	bf_run_destroy(r->run);
	sched_pass_release(&r->ps);
	free(r->ids);
	free(r->at);
	free(r);
}

int backfill_due(struct ctld *ctld, const struct sched_params *sp, time_t now)
{
	const char *type = ctld->conf->scheduler_type;

	if (type && strcasecmp(type, "sched/backfill"))
		return 0;
	if (ctld->bf_run) /* one at a time; it takes later changes in */
		return 0;
	return !ctld->bf_last || now < ctld->bf_last ||
	       now - ctld->bf_last >= (time_t)sp->bf_interval;
}

void backfill_pass(struct ctld *ctld, const struct sched_params *sp, struct job **pending,
                   size_t n, time_t now)
{
	struct bf_ctld *r;
	struct sched_qrec *recs;
	size_t nrecs = 0;
	struct bf_run_params p = {.window = (int64_t)sp->bf_window * 60,
	                          .resolution = sp->bf_resolution,
	                          .max_job_test = sp->bf_max_job_test,
	                          .part_reserve = sp->bf_part_reserve,
	                          .shortest_first =
	                              sp->sched_order == SCHED_ORDER_SAF_AGED};

	if (!backfill_due(ctld, sp, now))
		return;
	ctld->bf_last = now;
	r = xcalloc(1, sizeof(*r)); /* r->ps is made by plan_rebuild */
	r->ps.ctld = ctld;
	r->ps.cur = SIZE_MAX;
	r->sp = *sp;
	r->started = now;
	if ((recs = sched_pass_queue(ctld, pending, n, &nrecs))) {
		r->ids = xcalloc(nrecs + 1, sizeof(uint32_t));
		r->at = xcalloc(nrecs + 1, sizeof(uint32_t));
		for (size_t k = 0; k < nrecs; k++) {
			if (!job_is_pending(pending[recs[k].job]))
				continue;
			r->at[r->n] = recs[k].at;
			r->ids[r->n++] = pending[recs[k].job]->job_id;
		}
		free(recs);
	} else {
		r->ids = xcalloc(n + 1, sizeof(uint32_t));
		for (size_t i = 0; i < n; i++)
			if (job_is_pending(pending[i]))
				r->ids[r->n++] = pending[i]->job_id;
	}
	r->run = bf_run_create(&p, &bf_ops, r, r->n);
	if (!r->run || plan_rebuild(r, now) < 0) {
		log_err("backfill: out of memory building the plan");
		run_free(r);
		return;
	}
	ctld->bf_run = r;
	ctld_backfill_kick(ctld);
}

int backfill_continue(struct ctld *ctld, time_t now, double budget_s)
{
	struct bf_ctld *r = ctld->bf_run;
	struct timespec t0;
	double until;
	int more;

	if (!r)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	until = time_mono() + (budget_s > 0 ? budget_s : r->sp.bf_yield_interval / 1e6);
	r->slices++;
	if (r->gen != ctld->res_gen && plan_rebuild(r, now) < 0)
		log_err("backfill: out of memory building the plan");
	/* at least one job per slice, so that a busy controller still gets on */
	do {
		more = bf_run_step(r->run);
		if (r->moved) { /* a waiting job shows the first of its list */
			sched_pass_part_reset(ctld, r->moved);
			r->moved = NULL;
		}
	} while (more && time_mono() < until);
	r->gen = ctld->res_gen; /* its own starts are in the plan already */
	r->busy_us += stats_usec_since(&t0);
	if (more)
		return 0;
	if (ctld->stats)
		stats_backfill(ctld->stats, now, r->busy_us, bf_run_tested(r->run),
		               (uint32_t)r->n, bf_run_started(r->run));
	log_debug("backfill: tested %u jobs in %u slice(s), %llu node-level probes",
	          bf_run_tested(r->run), r->slices,
	          (unsigned long long)bf_run_probes(r->run));
	run_free(r);
	ctld->bf_run = NULL;
	return 1;
}

void backfill_abandon(struct ctld *ctld)
{
	if (ctld->bf_run)
		run_free(ctld->bf_run);
	ctld->bf_run = NULL;
}
