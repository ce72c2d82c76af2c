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
 * bf_estimate=predict the user's recent runtimes (src/sched/predict.h), capped
 * by the limit: better plans, while jobs are still killed only at their limit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/schedparams.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "ctld/assoc_limits.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/sched_pass.h"
#include "ctld/stats.h"
#include "proto/messages.h"
#include "sched/backfill.h"
#include "sched/predict.h"
#include "common/common.h"

/* One reservation's hold on one node, kept to rebuild the plan. */
struct bf_hold {
	uint32_t job_id; /* dropped at a rebuild once the job is not pending */
	uint32_t node;
	int64_t start, end;
	uint32_t cpus;
	uint64_t mem;
};

struct bf_ctx {
	struct sched_pass *ps;
	struct sched_params sp;
	struct bf_plan *bp;
	int *group; /* per partition */
	int64_t now, horizon;
	uint32_t tested;
	struct bf_hold *holds; /* the run's reservations so far */
	size_t nholds, cap;
	uint32_t started; /* jobs it started (sdiag) */
};

/* A backfill pass in progress (ctld->bf_run). */
struct bf_run {
	struct sched_pass ps; /* its own snapshot of the nodes */
	struct bf_ctx bc;
	uint32_t *ids; /* pending jobs in priority order, by id */
	size_t n, next;
	uint64_t gen; /* ctld->res_gen the plan reflects */
	unsigned slices;
	uint64_t busy_us; /* time in its slices (sdiag) */
};

/* What the plan assumes a job of this limit runs for. */
static int64_t job_duration(struct bf_ctx *bc, const struct job *job)
{
	int64_t lim;

	if (job->time_limit == INFINITE32 || job->time_limit == NO_VAL)
		return BF_FOREVER;
	lim = job->time_limit ? (int64_t)job->time_limit * 60 : 60;
	if (bc->sp.bf_predict && bc->ps->ctld->predict)
		return predict_estimate(bc->ps->ctld->predict, job->owner->uid, lim, 0);
	return lim;
}

/* When a job that holds resources is expected to give them back. */
static int64_t job_expected_end(struct bf_ctx *bc, const struct job *job)
{
	int64_t dur, lim, end;

	if (!job_is_running(job))
		return bc->now + 1; /* COMPLETING: about to be released */
	dur = job_duration(bc, job);
	if (dur == BF_FOREVER)
		return BF_FOREVER;
	lim = (int64_t)job->time_limit * 60;
	/* outlived its prediction: correct it, as rota sim does */
	while ((int64_t)job->run->start_time + dur <= bc->now && dur < lim)
		dur = predict_correct(bc->ps->ctld->predict, dur, lim);
	end = (int64_t)job->run->start_time + dur;
	return end > bc->now ? end : bc->now + 1; /* past its limit: being killed */
}

static int plan_build(struct bf_ctx *bc)
{
	struct ctld *ctld = bc->ps->ctld;
	size_t nparts = node_mgr_part_count(ctld->nodes);

	bc->bp =
	    bf_plan_create(bc->ps->nodes, bc->ps->nnodes, bc->now, bc->sp.bf_resolution);
	bc->group = xcalloc(nparts + 1, sizeof(*bc->group));
	if (!bc->bp)
		return -ENOMEM;
	for (size_t i = 0; i < nparts; i++) {
		const struct part *p = node_mgr_part(ctld->nodes, i);
		bc->group[i] = bf_plan_add_group(bc->bp, p->node_idx, p->nnodes);
		if (bc->group[i] < 0)
			return bc->group[i];
	}
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext) {
		int64_t end;
		if (!j->run->nnodes || !j->run->held)
			continue;
		end = job_expected_end(bc, j);
		for (uint32_t k = 0; k < j->run->nnodes; k++) {
			if (!j->run->held[k])
				continue;
			if (bf_plan_hold(bc->bp, j->run->node_idx[k], bc->now, end,
			                 j->run->cpus[k],
			                 bc->ps->mem_consumable ? j->run->mem[k] : 0) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static int64_t end_of(int64_t start, int64_t dur)
{
	return dur == BF_FOREVER || start > BF_FOREVER - dur ? BF_FOREVER : start + dur;
}

/* Hold ps->out's resources over [start, end) in the plan (memory only where
 * SelectTypeParameters makes it consumable). */
static int hold_alloc(struct bf_ctx *bc, const struct job *job, int64_t start,
                      int64_t end)
{
	const struct sched_alloc *a = &bc->ps->out;
	int record = start > bc->now; /* a reservation, not a job started now */
	size_t first = bc->nholds;

	for (uint32_t i = 0; i < a->nnodes; i++) {
		struct bf_hold h = {job->job_id, a->node_idx[i],
		                    start,       end,
		                    a->cpus[i],  bc->ps->mem_consumable ? a->mem[i] : 0};
		int rc = bf_plan_hold(bc->bp, h.node, h.start, h.end, h.cpus, h.mem);
		if (rc < 0) {
			bc->nholds = first; /* no half reservation to rebuild */
			return rc;
		}
		if (!record)
			continue;
		if (bc->nholds == bc->cap) {
			bc->cap = bc->cap ? 2 * bc->cap : 64;
			bc->holds = xrealloc(bc->holds, bc->cap * sizeof(*bc->holds));
		}
		bc->holds[bc->nholds++] = h;
	}
	return 0;
}

/* Remember the plan for a job that must wait: start t on ps->out's nodes. */
static void job_plan_set(struct bf_ctx *bc, struct job *job, int64_t t)
{
	struct sched_alloc *a = &bc->ps->out;
	char **names = xcalloc(a->nnodes + 1, sizeof(char *));

	for (uint32_t i = 0; i < a->nnodes; i++)
		names[i] = node_mgr_get(bc->ps->ctld->nodes, a->node_idx[i])->cfg->name;
	job_clear_plan(job);
	job_sched_mut(job)->est_start = (time_t)t;
	job->sched->sched_nodes = hostlist_compress(names, a->nnodes);
	free(names);
}

/* The earliest start over the alternatives of a matching-OR constraint;
 * ps->out holds where. */
static int earliest(struct bf_ctx *bc, struct job *job, const struct sched_req *r,
                    int64_t dur, int group, int64_t *ret_start)
{
	struct sched_pass *ps = bc->ps;
	size_t alts = sched_pass_alternatives(job), best = 0, last = 0;
	int64_t t = 0, best_t = 0;
	int rc = -EAGAIN;

	for (size_t alt = 0; alt < alts; alt++) {
		sched_pass_mark_nodes(ps, job, alt);
		last = alt;
		if (bf_plan_earliest(bc->bp, ps->nodes, group, r, dur, bc->horizon,
		                     &ps->out, &t) < 0)
			continue;
		if (rc == 0 && t >= best_t)
			continue;
		rc = 0;
		best = alt;
		best_t = t;
		if (t == bc->now)
			break;
	}
	if (rc == 0 && best != last) {
		sched_pass_mark_nodes(ps, job, best);
		rc = bf_plan_earliest(bc->bp, ps->nodes, group, r, dur, bc->horizon,
		                      &ps->out, &best_t);
	}
	if (rc == 0)
		*ret_start = best_t;
	return rc;
}

/* Plan one job (or the next task of an array).  Returns 1 when it started. */
static int plan_job(struct bf_ctx *bc, struct job *job, struct job *meta)
{
	struct sched_pass *ps = bc->ps;
	size_t pi = sched_pass_part_index(ps->ctld, meta->part);
	int64_t dur = job_duration(bc, meta), t = 0;
	struct sched_req r;
	uint32_t why;
	int rc;

	/* held by an association's limit: no start, and no reservation */
	if ((why = assoc_limits_check(ps->limits, meta))) {
		sched_pass_set_reason(meta, why, NULL);
		job_clear_plan(meta);
		return 0;
	}
	sched_pass_req(meta, &r);
	rc = earliest(bc, meta, &r, dur, bc->group[pi], &t);
	if (rc < 0) {
		job_clear_plan(meta);
		return 0;
	}
	if (hold_alloc(bc, meta, t, end_of(t, dur)) < 0) {
		job_clear_plan(meta);
		return 0;
	}
	if (t > bc->now) {
		job_plan_set(bc, meta, t);
		return 0;
	}
	if (!job) { /* an array: split its next task off to start it */
		int64_t task = arrayspec_first(meta->array_rem);
		job = task < 0 ? NULL : job_array_split(ps->ctld, meta, (uint32_t)task);
		if (!job)
			return 0;
	}
	log_info("backfill: starting JobId=%u", job->job_id);
	sched_pass_start(ps, job, (time_t)bc->now);
	bc->started++;
	return 1;
}

static void plan_array(struct bf_ctx *bc, struct job *meta)
{
	struct ctld *ctld = bc->ps->ctld;
	uint32_t running = job_array_running(ctld->jobs, meta->array_job_id);

	while (job_is_pending(meta) && meta->array_rem &&
	       bc->tested < bc->sp.bf_max_job_test) {
		uint32_t throttle = meta->array_rem->throttle;
		int64_t t = arrayspec_first(meta->array_rem);

		if (throttle && running >= throttle)
			return;
		if (t >= 0 &&
		    depend_test(ctld, meta, (uint32_t)t, (time_t)bc->now) != DEPEND_OK)
			return;
		bc->tested++;
		if (!plan_job(bc, NULL, meta))
			return;
		running++;
	}
}

/* Jobs the main pass left waiting only for resources or for higher-priority
 * jobs; held, dependent, begin-time and limit-bound jobs are not planned. */
static int plannable(const struct job *job)
{
	return job_is_pending(job) && job->part &&
	       (job->reason == WAIT_RESOURCES || job->reason == WAIT_PRIORITY ||
	        job->reason == WAIT_NODE_NOT_AVAIL);
}

static void plan_free(struct bf_ctx *bc)
{
	bf_plan_destroy(bc->bp);
	free(bc->group);
	bc->bp = NULL;
	bc->group = NULL;
}

/* The plan from the nodes and jobs as they are at now, plus the run's
 * reservations so far. */
static int plan_rebuild(struct bf_run *r, time_t now)
{
	struct bf_ctx *bc = &r->bc;
	size_t keep;

	plan_free(bc);
	sched_pass_release(&r->ps);
	sched_pass_init(&r->ps, r->ps.ctld);
	bc->now = now;
	bc->horizon = (int64_t)now + (int64_t)bc->sp.bf_window * 60;
	if (plan_build(bc) < 0)
		return -ENOMEM;
	/* the reservations made so far, of jobs still waiting (one started since
	 * holds its real allocation now; a cancelled or held one nothing) */
	keep = 0;
	for (size_t i = 0; i < bc->nholds; i++) {
		const struct bf_hold h = bc->holds[i];
		const struct job *job = job_find(r->ps.ctld->jobs, h.job_id);
		if (!job || !job_is_pending(job) || job->hold)
			continue;
		bc->holds[keep++] = h;
		if (bf_plan_hold(bc->bp, h.node, h.start, h.end, h.cpus, h.mem) < 0)
			return -ENOMEM;
	}
	bc->nholds = keep;
	r->gen = r->ps.ctld->res_gen;
	return 0;
}

static void run_free(struct bf_run *r)
{
	plan_free(&r->bc);
	sched_pass_release(&r->ps);
	free(r->bc.holds);
	free(r->ids);
	free(r);
}

/* Test the run's next job. */
static void run_one(struct bf_run *r)
{
	struct job *job = job_find(r->ps.ctld->jobs, r->ids[r->next++]);

	if (!job)
		return;
	if (!plannable(job)) {
		if (job_is_pending(job))
			job_clear_plan(job);
		return;
	}
	if (r->bc.tested >= r->bc.sp.bf_max_job_test)
		return; /* keeps the plan of its last test */
	if (job->array_rem) {
		plan_array(&r->bc, job);
		return;
	}
	r->bc.tested++;
	plan_job(&r->bc, job, job);
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

void backfill_pass(struct sched_pass *ps, const struct sched_params *sp,
                   struct job **pending, size_t n, time_t now)
{
	struct ctld *ctld = ps->ctld;
	struct bf_run *r;

	if (!backfill_due(ctld, sp, now))
		return;
	ctld->bf_last = now;
	r = xcalloc(1, sizeof(*r));
	r->ps.ctld = ctld;
	r->bc.ps = &r->ps;
	r->bc.sp = *sp;
	r->ids = xcalloc(n + 1, sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		if (job_is_pending(pending[i]))
			r->ids[r->n++] = pending[i]->job_id;
	if (plan_rebuild(r, now) < 0) {
		log_err("backfill: out of memory building the plan");
		run_free(r);
		return;
	}
	ctld->bf_run = r;
	ctld_backfill_kick(ctld);
}

int backfill_continue(struct ctld *ctld, time_t now, double budget_s)
{
	struct bf_run *r = ctld->bf_run;
	struct timespec t0;
	double until;

	if (!r)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	until =
	    time_mono() + (budget_s > 0 ? budget_s : r->bc.sp.bf_yield_interval / 1e6);
	r->slices++;
	if (r->gen != ctld->res_gen && plan_rebuild(r, now) < 0) {
		log_err("backfill: out of memory building the plan");
		r->next = r->n;
	}
	/* at least one job per slice, so that a busy controller still gets on */
	do
		run_one(r);
	while (r->next < r->n && time_mono() < until);
	r->gen = ctld->res_gen; /* its own starts are in the plan already */
	r->busy_us += stats_usec_since(&t0);
	if (r->next < r->n)
		return 0;
	if (ctld->stats)
		stats_backfill(ctld->stats, now, r->busy_us, r->bc.tested, (uint32_t)r->n,
		               r->bc.started);
	if (r->bc.bp)
		log_debug("backfill: tested %u jobs in %u slice(s), %llu node-level "
		          "probes",
		          r->bc.tested, r->slices,
		          (unsigned long long)bf_plan_probes(r->bc.bp));
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
