/* sim_whatif_nodes.c - the what-if replay on nodes (sim_whatif_nodes.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/sim_whatif_nodes.h"
#include "common/schedparams.h"
#include "sched/backfill.h"
#include "sched/bf_run.h"
#include "sched/pass.h"
#include "sched/policy.h"

/* A running job: where it runs and until when. */
struct wn_run {
	size_t job;
	int64_t start, end, est; /* real end; what the passes plan with */
	uint32_t nnodes;
	uint32_t *node; /* [nnodes] */
	uint32_t *cpus; /* [nnodes] */
	uint64_t *mem;  /* [nnodes] */
};

struct wn {
	const struct wn_cluster *c;
	const struct wn_opts *o;
	struct wn_job *jobs;
	size_t *queue, nqueue; /* pending, in priority order for a pass */
	uint8_t *started;      /* [nqueue], this pass */
	struct wn_run *run;
	size_t nrun;
	uint8_t *member;      /* [nparts * nnodes] */
	struct predict *pred; /* bf_estimate=predict or learned; NULL: the limits */
	double *key;          /* [njobs] sched_order=saf_aged's keys */
	int64_t now;
	int failed;
};

static int wn_admit(void *ctx, size_t i, uint32_t *ret_part)
{
	struct wn *w = ctx;

	*ret_part = w->jobs[w->queue[i]].part;
	return SCHED_TRY;
}

/* What the passes plan with: the limit, or a prediction capped by it. */
static int64_t wn_estimate(const struct wn *w, const struct wn_job *j)
{
	if (j->limit <= 0)
		return BF_FOREVER;
	if (!w->pred)
		return j->limit;
	return predict_estimate_job(w->pred, &(struct predict_job){.user = j->user,
	                                                           .requested = j->limit,
	                                                           .procs = j->cpus});
}

static int wn_next(void *ctx, size_t i, struct sched_job *job)
{
	struct wn *w = ctx;
	const struct wn_job *j = &w->jobs[w->queue[i]];

	if (w->started[i])
		return SCHED_SKIP;
	*job = (struct sched_job){.part = j->part,
	                          .req = {.min_nodes = j->nodes ? j->nodes : 1,
	                                  .max_nodes = j->nodes ? j->nodes : SCHED_UNSET,
	                                  .num_tasks = j->cpus,
	                                  .ntasks_per_node = SCHED_UNSET,
	                                  .cpus_per_task = 1,
	                                  .mem_per_node = j->mem_per_node,
	                                  .mem_per_cpu = j->mem_per_cpu,
	                                  .exclusive = j->exclusive},
	                          .dur = wn_estimate(w, j),
	                          .nalts = 1};
	return SCHED_TRY;
}

static void wn_mark(void *ctx, size_t i, size_t alt, struct sched_node *nodes)
{
	struct wn *w = ctx;
	const struct wn_job *j = &w->jobs[w->queue[i]];
	const uint8_t *m = &w->member[j->part * w->c->nnodes];

	(void)alt;
	for (size_t k = 0; k < w->c->nnodes; k++) {
		nodes[k].usable = m[k] && (!j->mask || j->mask[k]);
		nodes[k].required = 0;
	}
}

static int wn_start(void *ctx, size_t i, const struct sched_alloc *a)
{
	struct wn *w = ctx;
	struct wn_job *j = &w->jobs[w->queue[i]];
	struct wn_run *r = &w->run[w->nrun];

	r->node = malloc((a->nnodes ? a->nnodes : 1) * sizeof(*r->node));
	r->cpus = malloc((a->nnodes ? a->nnodes : 1) * sizeof(*r->cpus));
	r->mem = calloc(a->nnodes ? a->nnodes : 1, sizeof(*r->mem));
	if (!r->node || !r->cpus || !r->mem) {
		free(r->node);
		free(r->cpus);
		free(r->mem);
		w->failed = 1;
		return -ENOMEM;
	}
	memcpy(r->node, a->node_idx, a->nnodes * sizeof(*r->node));
	memcpy(r->cpus, a->cpus, a->nnodes * sizeof(*r->cpus));
	if (w->c->mem_consumable && a->mem)
		memcpy(r->mem, a->mem, a->nnodes * sizeof(*r->mem));
	r->nnodes = a->nnodes;
	r->job = w->queue[i];
	r->end = w->now + j->run;
	r->start = w->now;
	r->est = j->limit > 0 ? w->now + wn_estimate(w, j) : BF_FOREVER;
	w->nrun++;
	j->start = w->now;
	w->started[i] = 1;
	return SCHED_STARTED;
}

static void wn_wait(void *ctx, size_t i, enum sched_wait why, const struct sched_job *job)
{
	(void)ctx;
	(void)i;
	(void)why;
	(void)job;
}

static void wn_plan(void *ctx, size_t i, int64_t start, const struct sched_alloc *a)
{
	(void)ctx;
	(void)i;
	(void)start;
	(void)a;
}

static void wn_unplan(void *ctx, size_t i)
{
	(void)ctx;
	(void)i;
}

static const struct sched_ops wn_ops = {
    .admit = wn_admit,
    .next = wn_next,
    .mark = wn_mark,
    .start = wn_start,
    .wait = wn_wait,
    .plan = wn_plan,
    .unplan = wn_unplan,
};

/* queue_cmp's context: the replay and each queued job's priority at now */
struct queue_sort_ctx {
	const struct wn *w;
	const uint32_t *prio; /* [njobs] */
	const double *key;    /* [njobs] sched_order=saf_aged; NULL: priority */
};

/* Queue order: PriorityTier, priority at now, submit, order. */
static int queue_cmp(const void *a, const void *b, void *ctx)
{
	const struct queue_sort_ctx *qc = ctx;
	const struct wn *w = qc->w;
	const uint32_t *prio = qc->prio;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct wn_job *jx = &w->jobs[x], *jy = &w->jobs[y];
	uint32_t tx = w->c->part_tier[jx->part], ty = w->c->part_tier[jy->part];

	if (tx != ty)
		return tx > ty ? -1 : 1;
	if (qc->key && qc->key[x] != qc->key[y])
		return qc->key[x] < qc->key[y] ? -1 : 1;
	if (qc->key)
		return jx->id < jy->id ? -1 : jx->id > jy->id; /* rotactld's tie */
	if (prio[x] != prio[y])
		return prio[x] > prio[y] ? -1 : 1;
	if (jx->submit != jy->submit)
		return jx->submit < jy->submit ? -1 : 1;
	return jx->order < jy->order ? -1 : jx->order > jy->order;
}

static void queue_sort(struct wn *w, uint32_t *prio, double *key)
{
	if (w->o->saf_aged) {
		for (size_t q = 0; q < w->nqueue; q++) {
			const struct wn_job *j = &w->jobs[w->queue[q]];
			key[w->queue[q]] = policy_saf_aged_key(wn_estimate(w, j), j->cpus,
			                                       j->submit, w->now);
		}
		qsort_r(w->queue, w->nqueue, sizeof(*w->queue), queue_cmp,
		        &(struct queue_sort_ctx){.w = w, .key = key});
		return;
	}
	for (size_t q = 0; q < w->nqueue; q++) {
		const struct wn_job *j = &w->jobs[w->queue[q]];
		struct priority_job pj = {
		    .job_id = j->id,
		    .eligible_time = (time_t)j->submit,
		    .cpus = j->cpus,
		    .nodes = j->nodes ? j->nodes : 1,
		    .part_job_factor = w->c->part_factor[j->part],
		};
		prio[w->queue[q]] = w->o->prio.type == PRIORITY_MULTIFACTOR
		                        ? priority_of(&w->o->prio, &pj, (time_t)w->now)
		                        : 0; /* FIFO: by submit, then order */
	}
	qsort_r(w->queue, w->nqueue, sizeof(*w->queue), queue_cmp,
	        &(struct queue_sort_ctx){.w = w, .prio = prio});
}

/* The snapshot's allocation and the holds of what runs now. */
static size_t snap_fill(struct wn *w, struct sched_snap *s, struct sched_hold *holds)
{
	size_t nh = 0;

	for (size_t k = 0; k < w->c->nnodes; k++) {
		s->nodes[k] = w->c->nodes[k];
		s->nodes[k].alloc_cpus = 0;
		s->nodes[k].alloc_mem = 0;
	}
	for (size_t r = 0; r < w->nrun; r++) {
		const struct wn_run *run = &w->run[r];
		int64_t est = run->est > w->now ? run->est : w->now + 1;

		for (uint32_t k = 0; k < run->nnodes; k++) {
			s->nodes[run->node[k]].alloc_cpus += run->cpus[k];
			s->nodes[run->node[k]].alloc_mem += run->mem[k];
			if (holds)
				holds[nh++] = (struct sched_hold){.node = run->node[k],
				                                  .end = est,
				                                  .cpus = run->cpus[k],
				                                  .mem = run->mem[k]};
		}
	}
	return nh;
}

static size_t run_nodes(const struct wn *w)
{
	size_t n = 0;

	for (size_t r = 0; r < w->nrun; r++)
		n += w->run[r].nnodes;
	return n;
}

/* Drop the started jobs from the queue. */
static void queue_compact(struct wn *w)
{
	size_t m = 0;

	for (size_t q = 0; q < w->nqueue; q++)
		if (!w->started[q])
			w->queue[m++] = w->queue[q];
	w->nqueue = m;
	memset(w->started, 0, w->nqueue);
}

/* The main pass, then the backfill run when bf is set.  0 or -ENOMEM. */
static int wn_pass(struct wn *w, struct sched_snap *s, int bf, uint32_t *prio)
{
	struct sched_hold *holds = NULL;
	struct bf_run *run = NULL;
	struct bf_run_params p = {.window = w->o->bf_window,
	                          .resolution = w->o->bf_resolution,
	                          .max_job_test = w->o->bf_max_job_test,
	                          .part_reserve = w->o->part_reserve,
	                          .shortest_first = w->o->saf_aged};
	int rc = -ENOMEM;

	queue_sort(w, prio, w->key);
	memset(w->started, 0, w->nqueue);
	snap_fill(w, s, NULL);
	sched_main_pass(s, &wn_ops, w, w->nqueue,
	                &(struct sched_pass_opts){.depth = w->nqueue});
	if (w->failed)
		goto out;
	if (bf && w->nqueue) {
		size_t nh;

		holds = calloc(run_nodes(w) + 1, sizeof(*holds));
		if (!holds)
			goto out;
		nh = snap_fill(w, s, holds);
		if (!(run = bf_run_create(&p, &wn_ops, w, w->nqueue)) ||
		    bf_run_rebuild(run, s, holds, nh, w->now) < 0)
			goto out;
		while (bf_run_step(run) && !w->failed)
			;
		if (w->failed)
			goto out;
	}
	queue_compact(w);
	rc = 0;
out:
	bf_run_destroy(run);
	free(holds);
	return rc;
}

static int submit_cmp(const void *a, const void *b)
{
	const struct wn_job *x = *(struct wn_job *const *)a;
	const struct wn_job *y = *(struct wn_job *const *)b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Completions at or before now free their nodes. */
static int runs_end(struct wn *w)
{
	size_t m = 0;
	int ended = 0;

	for (size_t r = 0; r < w->nrun; r++) {
		struct wn_run *run = &w->run[r];
		const struct wn_job *j = &w->jobs[run->job];

		/* a prediction outlived: corrected as the controller does */
		while (w->pred && run->est != BF_FOREVER && run->est <= w->now &&
		       run->end > w->now)
			run->est =
			    run->start +
			    predict_correct(w->pred, run->est - run->start, j->limit);
		if (run->end <= w->now && w->pred && j->user >= 0 &&
		    predict_record_job(w->pred,
		                       &(struct predict_job){.user = j->user,
		                                             .requested = j->limit,
		                                             .actual = j->run,
		                                             .procs = j->cpus}) < 0)
			w->failed = 1;
		if (run->end <= w->now) {
			free(w->run[r].node);
			free(w->run[r].cpus);
			free(w->run[r].mem);
			ended = 1;
			continue;
		}
		w->run[m++] = w->run[r];
	}
	w->nrun = m;
	return w->failed ? -ENOMEM : ended;
}

static int64_t next_end(const struct wn *w)
{
	int64_t t = INT64_MAX;

	for (size_t r = 0; r < w->nrun; r++)
		if (w->run[r].end < t)
			t = w->run[r].end;
	return t;
}

static int wn_loop(struct wn *w, struct wn_job **arr, size_t n, uint32_t *prio,
                   struct sched_snap *s, struct wn_stats *st)
{
	size_t next = 0;
	int64_t last_bf = INT64_MIN / 2;
	int dirty = 0; /* something changed since the last backfill run */

	while (next < n || w->nrun) {
		int64_t t = next_end(w), bf_t = last_bf + w->o->bf_interval;
		int bf, ended;

		if (next < n && arr[next]->submit < t)
			t = arr[next]->submit;
		if (w->o->backfill && dirty && w->nqueue && bf_t < t)
			t = bf_t > w->now ? bf_t : w->now;
		w->now = t;
		ended = runs_end(w);
		if (ended < 0)
			return -ENOMEM;
		dirty |= ended;
		for (; next < n && arr[next]->submit <= t; next++) {
			w->queue[w->nqueue++] = (size_t)(arr[next] - w->jobs);
			dirty = 1;
		}
		bf = w->o->backfill && dirty && t >= bf_t;
		if (wn_pass(w, s, bf, prio) < 0)
			return -ENOMEM;
		st->passes++;
		if (bf) {
			st->bf_runs++;
			last_bf = t;
			dirty = 0;
		}
	}
	return 0;
}

int wn_replay(const struct wn_cluster *c, const struct wn_opts *o, struct wn_job *jobs,
              size_t n, struct wn_stats *ret_stats)
{
	struct wn w = {.c = c, .o = o, .jobs = jobs};
	struct wn_job **arr = calloc(n + 1, sizeof(*arr));
	uint32_t *prio = calloc(n + 1, sizeof(*prio));
	struct sched_snap s = {0};
	struct wn_stats st = {0};
	int rc = -ENOMEM;

	w.queue = calloc(n + 1, sizeof(*w.queue));
	w.started = calloc(n + 1, 1);
	w.run = calloc(n + 1, sizeof(*w.run));
	w.member = calloc(c->nparts * c->nnodes + 1, 1);
	if (o->bf_predict == BF_ESTIMATE_PREDICT &&
	    !(w.pred = predict_create(PREDICT_USER_MEAN2)))
		goto out;
	if (o->bf_predict == BF_ESTIMATE_LEARNED) {
		if (!(w.pred = predict_create(PREDICT_LEARNED)))
			goto out;
		predict_set_correction(w.pred, PREDICT_CORRECT_REQUESTED);
	}
	w.key = calloc(n + 1, sizeof(*w.key));
	if (!arr || !prio || !w.key || !w.queue || !w.started || !w.run || !w.member ||
	    sched_snap_init(&s, c->nnodes, c->nparts) < 0)
		goto out;
	for (size_t p = 0; p < c->nparts; p++)
		for (size_t k = 0; k < c->parts[p].count; k++)
			w.member[p * c->nnodes + c->parts[p].members[k]] = 1;
	s.parts = c->parts;
	s.mem_consumable = c->mem_consumable;
	for (size_t i = 0; i < n; i++) {
		jobs[i].start = -1;
		arr[i] = &jobs[i];
	}
	qsort(arr, n, sizeof(*arr), submit_cmp);
	rc = wn_loop(&w, arr, n, prio, &s, &st);
	if (rc == 0 && ret_stats)
		*ret_stats = st;
out:
	for (size_t r = 0; r < w.nrun; r++) {
		free(w.run[r].node);
		free(w.run[r].cpus);
		free(w.run[r].mem);
	}
	sched_snap_release(&s);
	predict_destroy(w.pred);
	free(arr);
	free(prio);
	free(w.key);
	free(w.queue);
	free(w.started);
	free(w.run);
	free(w.member);
	return rc;
}
