/* bf_run.c - a backfill run over the jobs the main pass left waiting. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sched/backfill.h"
#include "sched/bf_run.h"
#include "sched/pass.h"

/* One reservation's hold on one node, kept to rebuild the plan. */
struct bf_resv {
	size_t job; /* queue index; dropped at a rebuild once ops->keep says no */
	uint32_t node;
	int64_t start, end;
	uint32_t cpus;
	uint64_t mem;
	uint32_t gres[SCHED_GRES_KINDS];
};

/* A job past its partition's reservations, to try once the others are done. */
struct bf_later {
	size_t job;
	int64_t dur;
};

struct bf_run {
	struct bf_run_params p;
	const struct sched_ops *ops;
	void *ctx;
	size_t n, next;
	struct sched_snap *snap; /* borrowed, from the last rebuild */
	struct bf_plan *bp;
	int *group; /* per partition */
	size_t ngroups;
	int64_t now, horizon;
	struct bf_resv *resv; /* the run's reservations so far */
	size_t nresv, cap;
	uint32_t tested, started;
	int failed;         /* out of memory: test nothing more */
	uint32_t *reserved; /* [nreserved]: reservations made, per partition */
	size_t nreserved;
	struct bf_later *later; /* p.shortest_first: jobs tried at the end */
	size_t nlater, later_cap, later_next;
	int draining; /* trying the kept jobs */
};

struct bf_run *bf_run_create(const struct bf_run_params *p, const struct sched_ops *ops,
                             void *ctx, size_t n)
{
	struct bf_run *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->p = *p;
	if (r->p.window < 1)
		r->p.window = 1;
	if (r->p.resolution < 1)
		r->p.resolution = 1;
	r->ops = ops;
	r->ctx = ctx;
	r->n = n;
	return r;
}

static void plan_free(struct bf_run *r)
{
	bf_plan_destroy(r->bp);
	free(r->group);
	r->bp = NULL;
	r->group = NULL;
	r->ngroups = 0;
}

void bf_run_destroy(struct bf_run *r)
{
	if (!r)
		return;
	plan_free(r);
	free(r->resv);
	free(r->reserved);
	free(r->later);
	free(r);
}

static int64_t end_of(int64_t start, int64_t dur)
{
	return dur == BF_FOREVER || start > BF_FOREVER - dur ? BF_FOREVER : start + dur;
}

static int plan_build(struct bf_run *r, const struct sched_hold *holds, size_t nholds)
{
	const struct sched_snap *s = r->snap;

	r->bp = bf_plan_create(s->nodes, s->nnodes, r->now, r->p.resolution);
	r->group = calloc(s->nparts + 1, sizeof(*r->group));
	if (!r->bp || !r->group)
		return -ENOMEM;
	bf_plan_set_topo(r->bp, s->topo);
	r->ngroups = s->nparts;
	for (size_t i = 0; i < s->nparts; i++) {
		r->group[i] =
		    bf_plan_add_group(r->bp, s->parts[i].members, s->parts[i].count);
		if (r->group[i] < 0)
			return r->group[i];
	}
	for (size_t i = 0; i < nholds; i++)
		if (bf_plan_hold_gres(r->bp, holds[i].node,
		                      holds[i].start > r->now ? holds[i].start : r->now,
		                      holds[i].end, holds[i].cpus,
		                      s->mem_consumable ? holds[i].mem : 0,
		                      holds[i].gres) < 0)
			return -ENOMEM;
	return 0;
}

int bf_run_rebuild(struct bf_run *r, struct sched_snap *s, const struct sched_hold *holds,
                   size_t nholds, int64_t now)
{
	size_t keep = 0;

	plan_free(r);
	r->snap = s;
	r->now = now;
	if (!r->reserved) { /* kept over rebuilds: counts for the whole run */
		r->nreserved = s->nparts;
		if (!(r->reserved = calloc(s->nparts + 1, sizeof(*r->reserved))))
			goto fail;
	}
	r->horizon =
	    r->p.window >= BF_FOREVER - 1 - now ? BF_FOREVER - 1 : now + r->p.window;
	if (plan_build(r, holds, nholds) < 0)
		goto fail;
	/* the reservations made so far, of jobs still waiting (one started since
	 * holds its real allocation now; a cancelled or held one nothing) */
	for (size_t i = 0; i < r->nresv; i++) {
		const struct bf_resv h = r->resv[i];
		if (r->ops->keep && !r->ops->keep(r->ctx, h.job))
			continue;
		r->resv[keep++] = h;
		if (bf_plan_hold_gres(r->bp, h.node, h.start, h.end, h.cpus, h.mem,
		                      h.gres) < 0)
			goto fail;
	}
	r->nresv = keep;
	return 0;
fail:
	r->failed = 1;
	return -ENOMEM;
}

/* Hold a's resources over [start, end) in the plan; a reservation (start >
 * now) is remembered for rebuilds. */
static int hold_alloc(struct bf_run *r, const struct sched_alloc *a, size_t job,
                      int64_t start, int64_t end)
{
	int record = start > r->now;
	size_t first = r->nresv;

	for (uint32_t i = 0; i < a->nnodes; i++) {
		struct bf_resv h = {job,        a->node_idx[i],
		                    start,      end,
		                    a->cpus[i], r->snap->mem_consumable ? a->mem[i] : 0};
		if (a->gres)
			memcpy(h.gres, a->gres + (size_t)i * SCHED_GRES_KINDS,
			       sizeof(h.gres));
		if (bf_plan_hold_gres(r->bp, h.node, h.start, h.end, h.cpus, h.mem,
		                      h.gres) < 0)
			goto fail;
		if (!record)
			continue;
		if (r->nresv == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 64;
			struct bf_resv *p = realloc(r->resv, cap * sizeof(*p));
			if (!p)
				goto fail;
			r->resv = p;
			r->cap = cap;
		}
		r->resv[r->nresv++] = h;
	}
	return 0;
fail:
	r->nresv = first; /* no half reservation to rebuild */
	return -ENOMEM;
}

/* A component of a job of several: its request, and where it goes. */
struct bf_part {
	struct sched_job job;
	struct sched_alloc a;
};

/* The earliest start in [from, horizon] over the job's alternatives, on none
 * of the nodes of the components before it (before[nbefore]); snap->out
 * holds where. */
static int earliest(struct bf_run *r, size_t i, const struct sched_job *job,
                    const struct bf_part *before, size_t nbefore, int64_t from,
                    int64_t horizon, int64_t *ret_start)
{
	struct sched_snap *s = r->snap;
	struct bf_query q = {.mask = s->nodes,
	                     .group = job->part < r->ngroups ? r->group[job->part] : -1,
	                     .req = &job->req,
	                     .dur = job->dur,
	                     .from = from,
	                     .horizon = horizon};
	size_t best = 0, last = 0;
	int64_t t = 0, best_t = 0;
	int rc = -EAGAIN;

	for (size_t alt = 0; alt < job->nalts; alt++) {
		r->ops->mark(r->ctx, i, alt, s->nodes);
		for (size_t k = 0; k < nbefore; k++)
			sched_alloc_avoid(s->nodes, s->nnodes, &before[k].a);
		last = alt;
		if (bf_plan_earliest_q(r->bp, &q, &s->out, &t) < 0)
			continue;
		if (rc == 0 && t >= best_t)
			continue;
		rc = 0;
		best = alt;
		best_t = t;
		if (t <= from)
			break;
	}
	if (rc == 0 && best != last) {
		r->ops->mark(r->ctx, i, best, s->nodes);
		for (size_t k = 0; k < nbefore; k++)
			sched_alloc_avoid(s->nodes, s->nnodes, &before[k].a);
		rc = bf_plan_earliest_q(r->bp, &q, &s->out, &best_t);
	}
	if (rc == 0)
		*ret_start = best_t;
	return rc;
}

/* May a job of partition part still get a reservation in this run? */
static int may_reserve(const struct bf_run *r, uint32_t part)
{
	return !r->p.part_reserve || part >= r->nreserved ||
	       r->reserved[part] < r->p.part_reserve;
}

/* Keep job i for the end of the run.  0, or -ENOMEM. */
static int defer(struct bf_run *r, size_t i, int64_t dur)
{
	if (r->nlater == r->later_cap) {
		size_t cap = r->later_cap ? 2 * r->later_cap : 64;
		struct bf_later *p = realloc(r->later, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		r->later = p;
		r->later_cap = cap;
	}
	r->later[r->nlater++] = (struct bf_later){i, dur};
	return 0;
}

/* ---- jobs of components that start together ---- */

/* A tentative hold to undo: node had count holds before it. */
struct bf_undo {
	uint32_t node, count;
};

/* Common start times tried for one job before it is given up (each is
 * later than the one before: a component could not start then). */
#define BF_PART_ROUNDS 32

static int has_parts(struct bf_run *r, size_t i)
{
	struct sched_job j = {.nalts = 1};

	return r->ops->part && r->ops->part(r->ctx, i, 1, &j) == SCHED_TRY;
}

/* A component's tentative holds, with what undoes them. */
struct bf_tent {
	struct bf_undo *u;
	size_t n, cap;
	size_t nresv; /* the run's reservations before them */
};

static int tent_hold(struct bf_run *r, struct bf_tent *tt, const struct sched_alloc *a,
                     size_t i, int64_t start, int64_t end)
{
	if (tt->n + a->nnodes > tt->cap) {
		size_t cap = tt->cap ? tt->cap : 16;
		struct bf_undo *u;
		while (cap < tt->n + a->nnodes)
			cap *= 2;
		if (!(u = realloc(tt->u, cap * sizeof(*u))))
			return -ENOMEM;
		tt->u = u;
		tt->cap = cap;
	}
	for (uint32_t k = 0; k < a->nnodes; k++)
		tt->u[tt->n++] = (struct bf_undo){
		    a->node_idx[k], bf_plan_node_holds(r->bp, a->node_idx[k])};
	return hold_alloc(r, a, i, start, end);
}

/* Undo the tentative holds, the latest first. */
static int tent_undo(struct bf_run *r, struct bf_tent *tt)
{
	int rc = 0;

	while (tt->n) {
		const struct bf_undo u = tt->u[--tt->n];
		if (bf_plan_unhold(r->bp, u.node, u.count) < 0)
			rc = -ENOMEM;
	}
	r->nresv = tt->nresv;
	return rc;
}

/* Place job i's components, from t0 on, each beside those before it: 0 when
 * all fit at t0 (held there, p[k].a where), or the later time one of them
 * could start (nothing held); -EAGAIN: one never fits by the horizon. */
static int parts_at(struct bf_run *r, size_t i, struct bf_part *p, size_t n, int64_t t0,
                    int64_t horizon, struct bf_tent *tt, int64_t *later)
{
	for (size_t k = 0; k < n; k++) {
		struct sched_job j = {.nalts = 1};
		int64_t t;
		if (r->ops->part(r->ctx, i, k, &j) != SCHED_TRY ||
		    earliest(r, i, &p[k].job, p, k, t0, horizon, &t) < 0)
			return tent_undo(r, tt) < 0 ? -ENOMEM : -EAGAIN;
		if (t > t0) {
			*later = t;
			return tent_undo(r, tt) < 0 ? -ENOMEM : 1;
		}
		if (sched_alloc_dup(&p[k].a, &r->snap->out) < 0 ||
		    tent_hold(r, tt, &p[k].a, i, t0, end_of(t0, p[k].job.dur)) < 0) {
			tent_undo(r, tt);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Start job i's components now, on p[k].a. */
static void parts_start(struct bf_run *r, size_t i, struct bf_part *p, size_t n,
                        struct bf_tent *tt)
{
	struct sched_alloc *a = malloc((n + 1) * sizeof(*a));

	for (size_t k = 0; a && k < n; k++)
		a[k] = p[k].a;
	if (!a || r->ops->start_parts(r->ctx, i, a, n) < 0) {
		if (tent_undo(r, tt) < 0 || !a)
			r->failed = 1;
		free(a);
		return;
	}
	free(a);
	r->started++;
	for (size_t k = 0; k < n; k++)
		sched_snap_take(r->snap, &p[k].a, p[k].job.req.share);
}

/* Job i of components (first: its first, as next() gave it): started now
 * when all fit now, else each planned at the earliest time all fit
 * together, as Slurm's backfill plans a heterogeneous job. */
static void test_parts(struct bf_run *r, size_t i, const struct sched_job *first,
                       int resv)
{
	const struct sched_ops *ops = r->ops;
	struct bf_part *p = NULL;
	struct bf_tent tt = {.nresv = r->nresv};
	size_t n = 0, cap = 0;
	int64_t t0 = r->now, later = r->now;
	int rc = -EAGAIN;

	for (size_t k = 0;; k++) {
		struct sched_job j = {.nalts = 1};
		if (k && ops->part(r->ctx, i, k, &j) != SCHED_TRY)
			break;
		if (k == cap) {
			size_t ncap = cap ? 2 * cap : 4;
			struct bf_part *np = realloc(p, ncap * sizeof(*np));
			if (!np) {
				r->failed = 1;
				goto out;
			}
			memset(np + cap, 0, (ncap - cap) * sizeof(*np));
			p = np;
			cap = ncap;
		}
		p[k].job = k ? j : *first;
		n = k + 1;
	}
	for (int round = 0; round < BF_PART_ROUNDS; round++) {
		rc = parts_at(r, i, p, n, t0, resv ? r->horizon : r->now, &tt, &later);
		if (rc <= 0)
			break;
		t0 = later;
		rc = -EAGAIN;
	}
	if (rc == -ENOMEM)
		r->failed = 1;
	if (rc < 0) {
		ops->unplan(r->ctx, i);
	} else if (t0 > r->now) {
		if (p[0].job.part < r->nreserved)
			r->reserved[p[0].job.part]++;
		for (size_t k = 0; k < n; k++) {
			struct sched_job j = {.nalts = 1};
			if (ops->part(r->ctx, i, k, &j) == SCHED_TRY)
				ops->plan(r->ctx, i, t0, &p[k].a);
		}
	} else {
		parts_start(r, i, p, n, &tt);
	}
out:
	for (size_t k = 0; k < n; k++)
		sched_alloc_free(&p[k].a);
	free(p);
	free(tt.u);
}

/* Plan job i (every task of an array that starts now, then the next one's
 * reservation).  A job past its partition's reservations may start now only;
 * with shortest_first it is kept for the end of the run.  again: a kept job,
 * counted as tested when it was kept. */
static void test_job(struct bf_run *r, size_t i, int again)
{
	const struct sched_ops *ops = r->ops;

	for (;;) {
		struct sched_job job = {.nalts = 1};
		int64_t t = 0;
		int v = ops->next(r->ctx, i, &job), rc, resv;

		if (v == SCHED_SKIP)
			return;
		if (!again) {
			if (r->tested >= r->p.max_job_test)
				return;
			r->tested++;
		}
		again = 0; /* an array's next tasks count */
		if (v != SCHED_TRY)
			return;
		resv = may_reserve(r, job.part);
		if (!resv && r->p.shortest_first && !r->draining) {
			if (defer(r, i, job.dur) < 0)
				r->failed = 1;
			return;
		}
		if (has_parts(r, i)) {
			test_parts(r, i, &job, resv);
			return;
		}
		if (earliest(r, i, &job, NULL, 0, r->now, resv ? r->horizon : r->now,
		             &t) < 0 ||
		    hold_alloc(r, &r->snap->out, i, t, end_of(t, job.dur)) < 0) {
			ops->unplan(r->ctx, i);
			return;
		}
		if (t > r->now) {
			if (job.part < r->nreserved)
				r->reserved[job.part]++;
			ops->plan(r->ctx, i, t, &r->snap->out);
			return;
		}
		rc = ops->start(r->ctx, i, &r->snap->out);
		if (rc < 0)
			return;
		r->started++;
		sched_snap_take(r->snap, &r->snap->out, job.req.share);
		if (rc != SCHED_MORE)
			return;
	}
}

static int later_cmp(const void *a, const void *b)
{
	const struct bf_later *x = a, *y = b;

	if (x->dur != y->dur)
		return x->dur < y->dur ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

int bf_run_step(struct bf_run *r)
{
	if (r->failed || !r->bp) {
		r->next = r->n;
		r->later_next = r->nlater;
	}
	if (r->next < r->n) {
		test_job(r, r->next++, 0);
		if (r->next == r->n && r->nlater) {
			r->draining = 1;
			qsort(r->later, r->nlater, sizeof(*r->later), later_cmp);
		}
	} else if (r->later_next < r->nlater) {
		test_job(r, r->later[r->later_next++].job, 1);
	}
	return r->next < r->n || r->later_next < r->nlater;
}

int bf_run_may_test(const struct bf_run *r)
{
	return r->draining || r->tested < r->p.max_job_test;
}

uint32_t bf_run_tested(const struct bf_run *r)
{
	return r->tested;
}

uint32_t bf_run_started(const struct bf_run *r)
{
	return r->started;
}

uint64_t bf_run_probes(const struct bf_run *r)
{
	return r->bp ? bf_plan_probes(r->bp) : 0;
}
