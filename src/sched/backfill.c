#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sched/backfill.h"
#include "sched/topo.h"
#include "sched/plan.h"
#include "common/common.h"

/* A node-level test is not cheap on a large cluster: give up on a job after
 * this many candidate times that the aggregate profile could not rule out. */
#define BF_MAX_PROBES 256

/* A change of a node's usage at time t. */
struct bf_event {
	int64_t t;
	int64_t dc, dm;
	int32_t dg[SCHED_GRES_KINDS];
};

struct bf_hold {
	int64_t start, end;
	uint32_t cpus;
	uint64_t mem;
	uint32_t gres[SCHED_GRES_KINDS];
};

static int gres_any(const uint32_t *g)
{
	for (unsigned k = 0; g && k < SCHED_GRES_KINDS; k++)
		if (g[k])
			return 1;
	return 0;
}

struct bf_node {
	struct bf_hold *h;
	uint32_t n, cap;
	struct bf_event *ev; /* the holds as usage changes in time order */
	uint32_t nev, ev_cap;
	int gres; /* some hold has GRES (else their counts are all 0) */
};

struct bf_group {
	struct plan *cpu;  /* CPUs in use */
	struct plan *busy; /* nodes with anything in use */
	uint8_t *member;   /* [n] */
	int64_t total;     /* CPUs */
	int64_t nodes;
	uint32_t max_cpus; /* of one node */
};

struct bf_plan {
	int64_t now, res;
	size_t n;
	struct sched_node *cap;     /* [n] capacity */
	uint8_t *cap_gres;          /* [n] the node has GRES */
	struct sched_node *scratch; /* [n] a probe's view */
	int64_t *fit_at;            /* [n] a query's earliest start on each node */
	int64_t *fit_finite;        /* [n] the finite ones, for a selection */
	uint32_t *few;              /* [n] the nodes a probe looks at */
	struct bf_node *nodes;      /* [n] */
	struct bf_group *groups;
	size_t ngroups;
	int64_t *ends; /* distinct hold ends after now, ascending */
	size_t nends, ends_cap;
	uint64_t probes;
	const struct sched_topo *topo; /* borrowed, NULL: none */
};

struct bf_plan *bf_plan_create(const struct sched_node *nodes, size_t n, int64_t now,
                               int64_t resolution)
{
	struct bf_plan *bp = calloc(1, sizeof(*bp));

	if (!bp)
		return NULL;
	bp->now = now;
	bp->res = resolution < 1 ? 1 : resolution;
	bp->n = n;
	bp->cap = calloc(n + 1, sizeof(*bp->cap));
	bp->cap_gres = calloc(n + 1, 1);
	bp->scratch = calloc(n + 1, sizeof(*bp->scratch));
	bp->nodes = calloc(n + 1, sizeof(*bp->nodes));
	bp->fit_at = calloc(n + 1, sizeof(*bp->fit_at));
	bp->fit_finite = calloc(n + 1, sizeof(*bp->fit_finite));
	bp->few = calloc(n + 1, sizeof(*bp->few));
	if (!bp->cap || !bp->cap_gres || !bp->scratch || !bp->nodes || !bp->fit_at ||
	    !bp->fit_finite || !bp->few) {
		bf_plan_destroy(bp);
		return NULL;
	}
	if (n)
		memcpy(bp->cap, nodes, n * sizeof(*nodes));
	for (size_t i = 0; i < n; i++)
		bp->cap_gres[i] = gres_any(nodes[i].gres);
	return bp;
}

void bf_plan_destroy(struct bf_plan *bp)
{
	if (!bp)
		return;
	for (size_t i = 0; bp->nodes && i < bp->n; i++) {
		free(bp->nodes[i].h);
		free(bp->nodes[i].ev);
	}
	for (size_t g = 0; g < bp->ngroups; g++) {
		plan_destroy(bp->groups[g].cpu);
		plan_destroy(bp->groups[g].busy);
		free(bp->groups[g].member);
	}
	free(bp->groups);
	free(bp->ends);
	free(bp->nodes);
	free(bp->scratch);
	free(bp->fit_at);
	free(bp->fit_finite);
	free(bp->few);
	free(bp->cap_gres);
	free(bp->cap);
	free(bp);
}

uint64_t bf_plan_probes(const struct bf_plan *bp)
{
	return bp->probes;
}

static void group_free(struct bf_group *g)
{
	plan_destroy(g->cpu);
	plan_destroy(g->busy);
	free(g->member);
}

/* The parts of [start, end) where node nd holds nothing yet: where adding a
 * hold makes the node busy.  Each such piece is added to busy. */
static int node_idle_pieces(const struct bf_node *nd, int64_t start, int64_t end,
                            struct plan *busy, int64_t delta)
{
	int64_t at = start;

	while (at < end) {
		int64_t next = end, cover = at;
		int covered = 0;
		/* the hold covering `at` that reaches furthest, else the next start */
		for (uint32_t k = 0; k < nd->n; k++) {
			const struct bf_hold *h = &nd->h[k];
			if (h->start <= at && h->end > at) {
				covered = 1;
				if (h->end > cover)
					cover = h->end;
			} else if (h->start > at && h->start < next) {
				next = h->start;
			}
		}
		if (covered) {
			at = cover;
			continue;
		}
		if (plan_add(busy, at, next, delta) < 0)
			return -ENOMEM;
		at = next;
	}
	return 0;
}

static int group_add_holds(struct bf_plan *bp, struct bf_group *g)
{
	for (size_t i = 0; i < bp->n; i++) {
		struct bf_node tmp = {0};
		const struct bf_node *nd = &bp->nodes[i];
		if (!g->member[i])
			continue;
		/* replay the node's holds one by one to build its busy profile */
		tmp.h = nd->h;
		for (uint32_t k = 0; k < nd->n; k++) {
			const struct bf_hold *h = &nd->h[k];
			if (plan_add(g->cpu, h->start, h->end, h->cpus) < 0 ||
			    node_idle_pieces(&tmp, h->start, h->end, g->busy, 1) < 0)
				return -ENOMEM;
			tmp.n = k + 1;
		}
	}
	return 0;
}

int bf_plan_add_group(struct bf_plan *bp, const uint32_t *members, size_t count)
{
	struct bf_group *gs = realloc(bp->groups, (bp->ngroups + 1) * sizeof(*gs));
	struct bf_group *g;

	if (!gs)
		return -ENOMEM;
	bp->groups = gs;
	g = &gs[bp->ngroups];
	memset(g, 0, sizeof(*g));
	g->member = calloc(bp->n + 1, 1);
	if (!g->member)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++) {
		uint32_t c;
		if (members[i] >= bp->n || g->member[members[i]])
			continue;
		g->member[members[i]] = 1;
		c = bp->cap[members[i]].cpus;
		g->total += c;
		g->nodes++;
		if (c > g->max_cpus)
			g->max_cpus = c;
	}
	g->cpu = plan_create(g->total);
	g->busy = plan_create(g->nodes);
	if (!g->cpu || !g->busy || group_add_holds(bp, g) < 0) {
		group_free(g);
		return -ENOMEM;
	}
	return (int)bp->ngroups++;
}

/* Ends are rounded up to the resolution so that nearby ends share a candidate
 * start time. */
static int64_t round_end(const struct bf_plan *bp, int64_t end)
{
	int64_t d;

	if (end == BF_FOREVER || end <= bp->now)
		return end;
	d = end - bp->now;
	if (d > (BF_FOREVER - bp->now) / 2)
		return BF_FOREVER;
	return bp->now + (d + bp->res - 1) / bp->res * bp->res;
}

/* Index of the first end > t (nends when none). */
static size_t ends_after(const struct bf_plan *bp, int64_t t)
{
	size_t lo = 0, hi = bp->nends;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bp->ends[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int ends_insert(struct bf_plan *bp, int64_t end)
{
	size_t i;

	if (end == BF_FOREVER || end <= bp->now)
		return 0;
	i = ends_after(bp, end - 1);
	if (i < bp->nends && bp->ends[i] == end)
		return 0;
	if (bp->nends == bp->ends_cap) {
		size_t cap = bp->ends_cap ? 2 * bp->ends_cap : 64;
		int64_t *e = realloc(bp->ends, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		bp->ends = e;
		bp->ends_cap = cap;
	}
	memmove(bp->ends + i + 1, bp->ends + i, (bp->nends - i) * sizeof(*bp->ends));
	bp->ends[i] = end;
	bp->nends++;
	return 0;
}

/* Room for a hold's two usage changes in nd->ev. */
static int node_event_room(struct bf_node *nd)
{
	struct bf_event *e;
	uint32_t cap;

	if (nd->nev + 2 <= nd->ev_cap)
		return 0;
	cap = nd->ev_cap ? 2 * nd->ev_cap : 8;
	e = realloc(nd->ev, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	nd->ev = e;
	nd->ev_cap = cap;
	return 0;
}

/* Insert the usage change of hold h at t (sign +1: it starts, -1: it ends),
 * keeping nd->ev in time order (the order among equal times does not matter:
 * node_fit() applies them together).  Room was made by node_event_room(). */
static void node_event_insert(struct bf_node *nd, const struct bf_hold *h, int64_t t,
                              int sign)
{
	uint32_t lo = 0, hi = nd->nev;
	struct bf_event *e;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (nd->ev[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(nd->ev + lo + 1, nd->ev + lo, (nd->nev - lo) * sizeof(*nd->ev));
	nd->nev++;
	e = &nd->ev[lo];
	e->t = t;
	e->dc = sign * (int64_t)h->cpus;
	e->dm = sign * (int64_t)h->mem;
	for (unsigned q = 0; q < SCHED_GRES_KINDS; q++)
		e->dg[q] = sign * (int32_t)h->gres[q];
}

int bf_plan_hold(struct bf_plan *bp, uint32_t node, int64_t start, int64_t end,
                 uint32_t cpus, uint64_t mem)
{
	return bf_plan_hold_gres(bp, node, start, end, cpus, mem, NULL);
}

int bf_plan_hold_gres(struct bf_plan *bp, uint32_t node, int64_t start, int64_t end,
                      uint32_t cpus, uint64_t mem, const uint32_t *gres)
{
	struct bf_node *nd;
	struct bf_hold h = {.cpus = cpus, .mem = mem};

	if (node >= bp->n)
		return -EINVAL;
	if (start < bp->now)
		start = bp->now;
	end = round_end(bp, end);
	if (end <= start || (!cpus && !mem && !gres_any(gres)))
		return 0;
	h.start = start;
	h.end = end;
	if (gres)
		memcpy(h.gres, gres, sizeof(h.gres));
	nd = &bp->nodes[node];
	for (size_t g = 0; g < bp->ngroups; g++)
		if (bp->groups[g].member[node] &&
		    (plan_add(bp->groups[g].cpu, start, end, cpus) < 0 ||
		     node_idle_pieces(nd, start, end, bp->groups[g].busy, 1) < 0))
			return -ENOMEM;
	if (nd->n == nd->cap) {
		uint32_t cap = nd->cap ? 2 * nd->cap : 4;
		struct bf_hold *more = realloc(nd->h, cap * sizeof(*more));
		if (!more)
			return -ENOMEM;
		nd->h = more;
		nd->cap = cap;
	}
	if (node_event_room(nd) < 0)
		return -ENOMEM;
	nd->h[nd->n++] = h;
	node_event_insert(nd, &h, start, 1);
	if (end != BF_FOREVER)
		node_event_insert(nd, &h, end, -1);
	if (gres_any(h.gres))
		nd->gres = 1;
	return ends_insert(bp, end);
}

uint32_t bf_plan_node_holds(const struct bf_plan *bp, uint32_t node)
{
	return node < bp->n ? bp->nodes[node].n : 0;
}

/* Remove one usage change equal to hold h's at t (sign as inserted). */
static void node_event_remove(struct bf_node *nd, const struct bf_hold *h, int64_t t,
                              int sign)
{
	for (uint32_t k = 0; k < nd->nev; k++) {
		const struct bf_event *e = &nd->ev[k];
		int same = e->t == t && e->dc == sign * (int64_t)h->cpus &&
		           e->dm == sign * (int64_t)h->mem;
		for (unsigned q = 0; same && q < SCHED_GRES_KINDS; q++)
			same = e->dg[q] == sign * (int32_t)h->gres[q];
		if (!same)
			continue;
		memmove(nd->ev + k, nd->ev + k + 1, (nd->nev - k - 1) * sizeof(*nd->ev));
		nd->nev--;
		return;
	}
}

int bf_plan_unhold(struct bf_plan *bp, uint32_t node, uint32_t count)
{
	struct bf_node *nd;

	if (node >= bp->n)
		return -EINVAL;
	nd = &bp->nodes[node];
	while (nd->n > count) {
		const struct bf_hold h = nd->h[--nd->n];
		node_event_remove(nd, &h, h.start, 1);
		if (h.end != BF_FOREVER)
			node_event_remove(nd, &h, h.end, -1);
		/* the node was made busy where the holds left have nothing */
		for (size_t g = 0; g < bp->ngroups; g++)
			if (bp->groups[g].member[node] &&
			    (plan_add(bp->groups[g].cpu, h.start, h.end,
			              -(int64_t)h.cpus) < 0 ||
			     node_idle_pieces(nd, h.start, h.end, bp->groups[g].busy,
			                      -1) < 0))
				return -ENOMEM;
	}
	return 0;
}

int bf_plan_hold_alloc(struct bf_plan *bp, const struct sched_alloc *a, int64_t start,
                       int64_t end)
{
	for (uint32_t i = 0; i < a->nnodes; i++) {
		int rc = bf_plan_hold_gres(
		    bp, a->node_idx[i], start, end, a->cpus[i], a->mem[i],
		    a->gres ? a->gres + (size_t)i * SCHED_GRES_KINDS : NULL);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Peak CPUs, memory and GRES of each kind in use on a node during [a, b),
 * into s's alloc fields.  Usage only rises at a hold's start, so the peak is at
 * a or at some start inside the window; each is taken separately
 * (conservative). */
static void node_peak(const struct bf_node *nd, int64_t a, int64_t b,
                      struct sched_node *s)
{
	uint32_t pc = 0, pg[SCHED_GRES_KINDS] = {0};
	uint64_t pm = 0;

	if (!nd->gres) { /* CPUs and memory only: the common case, kept lean */
		for (uint32_t k = 0; k < nd->n; k++) {
			const struct bf_hold *h = &nd->h[k];
			int64_t p;
			uint32_t c = 0;
			uint64_t m = 0;
			if (h->start >= b || h->end <= a)
				continue;
			p = h->start > a ? h->start : a;
			for (uint32_t j = 0; j < nd->n; j++)
				if (nd->h[j].start <= p && p < nd->h[j].end) {
					c += nd->h[j].cpus;
					m += nd->h[j].mem;
				}
			if (c > pc)
				pc = c;
			if (m > pm)
				pm = m;
		}
		s->alloc_cpus = pc;
		s->alloc_mem = pm;
		return;
	}

	for (uint32_t k = 0; k < nd->n; k++) {
		const struct bf_hold *h = &nd->h[k];
		int64_t p;
		uint32_t c = 0, g[SCHED_GRES_KINDS] = {0};
		uint64_t m = 0;

		if (h->start >= b || h->end <= a)
			continue;
		p = h->start > a ? h->start : a;
		for (uint32_t j = 0; j < nd->n; j++) {
			if (nd->h[j].start <= p && p < nd->h[j].end) {
				c += nd->h[j].cpus;
				m += nd->h[j].mem;
				for (unsigned q = 0; q < SCHED_GRES_KINDS; q++)
					g[q] += nd->h[j].gres[q];
			}
		}
		if (c > pc)
			pc = c;
		if (m > pm)
			pm = m;
		for (unsigned q = 0; q < SCHED_GRES_KINDS; q++)
			if (g[q] > pg[q])
				pg[q] = g[q];
	}
	s->alloc_cpus = pc;
	s->alloc_mem = pm;
	memcpy(s->gres_alloc, pg, sizeof(pg));
}

/* A probe's view of node i: its capacity, with the mask's selection fields. */
static void node_view(const struct bf_plan *bp, size_t i, const struct sched_node *mask,
                      struct sched_node *s)
{
	*s = *mask;
	s->cpus = bp->cap[i].cpus;
	s->mem = bp->cap[i].mem;
	if (bp->cap_gres[i] || gres_any(s->gres) || gres_any(s->gres_alloc)) {
		memcpy(s->gres, bp->cap[i].gres, sizeof(s->gres));
		memset(s->gres_alloc, 0, sizeof(s->gres_alloc));
	}
	s->alloc_cpus = 0;
	s->alloc_mem = 0;
	s->shared_cpus = 0; /* the plan does not model shared cores */
}

static int probe(struct bf_plan *bp, const struct sched_node *mask,
                 const struct sched_req *req, int64_t t, int64_t dur,
                 struct sched_alloc *out)
{
	int64_t end = dur == BF_FOREVER || t > BF_FOREVER - dur ? BF_FOREVER : t + dur;

	bp->probes++;
	for (size_t i = 0; i < bp->n; i++) {
		struct sched_node *s = &bp->scratch[i];

		node_view(bp, i, &mask[i], s);
		if (s->usable)
			node_peak(&bp->nodes[i], t, end, s);
	}
	return sched_select_topo(bp->scratch, bp->n, req, bp->topo, out);
}

/* Fewest CPUs the job can run on: what the aggregate profile must offer. */
static int64_t cpus_needed(const struct sched_req *req)
{
	int64_t tasks;

	if (req->num_tasks != SCHED_UNSET)
		tasks = req->num_tasks;
	else if (req->ntasks_per_node != SCHED_UNSET)
		tasks = (int64_t)req->ntasks_per_node * req->min_nodes;
	else
		tasks = req->min_nodes;
	return tasks * req->cpus_per_task;
}

/* Does the job need nodes with nothing else on them (of this group)? */
static int needs_idle_nodes(const struct bf_group *g, const struct sched_req *req)
{
	uint64_t per_node = 0;

	if (req->exclusive)
		return 1;
	if (req->ntasks_per_node != SCHED_UNSET)
		per_node = (uint64_t)req->ntasks_per_node * req->cpus_per_task;
	if (req->min_cpus > per_node)
		per_node = req->min_cpus;
	return per_node && per_node >= g->max_cpus;
}

/* Earliest t >= from when the group's aggregate profiles allow the job, or
 * -EAGAIN / -EINVAL. */
static int group_earliest(const struct bf_group *g, const struct sched_req *req,
                          int64_t from, int64_t dur, int64_t *ret)
{
	int64_t need = cpus_needed(req), t = from, d, s;

	if (need > g->total || req->min_nodes > g->nodes)
		return -EINVAL;
	for (int i = 0; i < 64; i++) {
		d = dur == BF_FOREVER ? BF_FOREVER - t : dur;
		if (plan_earliest(g->cpu, t, need, d, &s) < 0)
			return -EAGAIN; /* held forever */
		t = s;
		if (!needs_idle_nodes(g, req)) {
			*ret = t;
			return 0;
		}
		d = dur == BF_FOREVER ? BF_FOREVER - t : dur;
		if (plan_earliest(g->busy, t, req->min_nodes, d, &s) < 0)
			return -EAGAIN;
		if (s == t) {
			*ret = t;
			return 0;
		}
		t = s;
	}
	*ret = t;
	return 0;
}

/* Does node i with ug[] of each GRES kind in use have the one-node job's
 * GRES (g[w]: of want w) free? */
static int gres_fits(const struct bf_plan *bp, size_t i, const struct sched_req *r,
                     const uint64_t *g, const int64_t *ug)
{
	for (uint32_t w = 0; w < r->ngres; w++) {
		int64_t f = 0;
		for (unsigned q = 0; q < SCHED_GRES_KINDS; q++)
			if (r->gres[w].kinds & (1u << q))
				f += (int64_t)bp->cap[i].gres[q] - ug[q];
		if (f < (int64_t)g[w])
			return 0;
	}
	return 1;
}

static void event_add(const struct bf_event *e, int64_t *uc, int64_t *um, int64_t *ug)
{
	*uc += e->dc;
	*um += e->dm;
	for (unsigned q = 0; ug && q < SCHED_GRES_KINDS; q++)
		ug[q] += e->dg[q];
}

/* Earliest t >= from at which node i has c CPUs, m MB and the job's GRES (g,
 * per want of r) free during all of [t, t + dur); BF_FOREVER when never.  One
 * sweep over the node's usage changes, kept sorted between holds: O(k) for k
 * holds. */
static int64_t node_fit(struct bf_plan *bp, size_t i, uint64_t c, uint64_t m,
                        const struct sched_req *r, const uint64_t *g, int64_t from,
                        int64_t dur)
{
	struct bf_node *nd = &bp->nodes[i];
	uint64_t cap_c = bp->cap[i].cpus, cap_m = bp->cap[i].mem;
	int64_t uc = 0, um = 0, ugv[SCHED_GRES_KINDS] = {0}, cand = from;
	/* GRES are followed only where the job wants some and holds have them */
	int64_t *ug = r->ngres && nd->gres ? ugv : NULL;
	uint32_t k = 0;

	if (c > cap_c || m > cap_m || (r->ngres && !gres_fits(bp, i, r, g, ugv)))
		return BF_FOREVER;
	for (; k < nd->nev && nd->ev[k].t <= from; k++)
		event_add(&nd->ev[k], &uc, &um, ug);
	for (;;) {
		int64_t next = k < nd->nev ? nd->ev[k].t : BF_FOREVER;
		int fits = (uint64_t)uc + c <= cap_c && (uint64_t)um + m <= cap_m &&
		           (!r->ngres || gres_fits(bp, i, r, g, ugv));

		if (!fits)
			cand = next;
		else if (next == BF_FOREVER || (dur != BF_FOREVER && next - cand >= dur))
			return cand;
		if (next == BF_FOREVER)
			return BF_FOREVER;
		for (; k < nd->nev && nd->ev[k].t == next; k++)
			event_add(&nd->ev[k], &uc, &um, ug);
	}
}

/* node_fit() for c CPUs and m MB the job's tasks need there, or for the
 * whole node when exclusive (which must still be able to hold them). */
static int64_t node_fit_job(struct bf_plan *bp, size_t i, uint64_t c, uint64_t m,
                            int whole, const struct sched_req *r, const uint64_t *g,
                            int64_t from, int64_t dur)
{
	if (!whole)
		return node_fit(bp, i, c, m, r, g, from, dur);
	if (c > bp->cap[i].cpus || m > bp->cap[i].mem)
		return BF_FOREVER;
	return node_fit(bp, i, bp->cap[i].cpus, bp->cap[i].mem, r, g, from, dur);
}

/* A job whose tasks may all go on one node: the earliest time one usable node
 * can take them all (BF_FOREVER: none can).  Exact for jobs that need one
 * node; an upper bound for jobs that may spread. */
static int64_t one_node_earliest(struct bf_plan *bp, const struct bf_query *q,
                                 int64_t from, size_t *ret_node)
{
	const struct sched_req *r = q->req;
	uint64_t tasks, c, m, g[SCHED_GRES_WANTS] = {0};
	int64_t best = BF_FOREVER;
	size_t best_i = 0;
	uint32_t need = 0;

	if (r->min_nodes != 1)
		return BF_FOREVER;
	/* node counts (--constraint): one node must hold them all */
	for (uint32_t k = 0, own = 0; k < r->nfeat; k++) {
		if (r->feat[k].nodes > 1 || (r->feat[k].own && own++))
			return BF_FOREVER;
		need |= UINT32_C(1) << k;
	}
	tasks = r->num_tasks != SCHED_UNSET         ? r->num_tasks
	        : r->ntasks_per_node != SCHED_UNSET ? r->ntasks_per_node
	                                            : 1;
	if (r->ntasks_per_node != SCHED_UNSET && tasks > r->ntasks_per_node)
		return BF_FOREVER;
	for (uint32_t w = 0; w < r->ngres; w++)
		g[w] = r->gres[w].per_node + r->gres[w].per_task * tasks +
		       r->gres[w].per_job;
	for (size_t i = 0; i < bp->n; i++) {
		int64_t t;
		if (q->mask[i].required)
			return BF_FOREVER; /* -w: leave it to the general search */
		if (!q->mask[i].usable || (q->mask[i].feat & need) != need)
			continue;
		/* a task's CPUs depend on the node's threads a core */
		c = tasks * sched_task_cpus(r, &q->mask[i]);
		if (r->min_cpus > c)
			c = r->min_cpus;
		m = r->mem_per_node ? r->mem_per_node : r->mem_per_cpu * c;
		t = node_fit_job(bp, i, c, m, r->exclusive, r, g, from, q->dur);
		/* earliest, then the lightest node (Weight=), then the first */
		if (t < best || (t == best && t != BF_FOREVER &&
		                 q->mask[i].weight < q->mask[best_i].weight)) {
			best = t;
			best_i = i;
		}
	}
	*ret_node = best_i;
	return best;
}

/* Place a one-node job on node i at t, as sched_select() would there. */
static int probe_one(struct bf_plan *bp, const struct bf_query *q, size_t i, int64_t t,
                     struct sched_alloc *out)
{
	int64_t end =
	    q->dur == BF_FOREVER || t > BF_FOREVER - q->dur ? BF_FOREVER : t + q->dur;
	struct sched_node s;

	bp->probes++;
	node_view(bp, i, &q->mask[i], &s);
	s.required = 0;
	node_peak(&bp->nodes[i], t, end, &s);
	if (sched_select(&s, 1, q->req, out) < 0)
		return -EAGAIN;
	out->node_idx[0] = (uint32_t)i;
	return 0;
}

/* Does the job go on one node whatever happens (so that one_node_earliest()
 * is exact)? */
static int one_node_only(const struct sched_req *r)
{
	return r->min_nodes == 1 &&
	       (r->max_nodes == 1 || r->num_tasks == 1 ||
	        (r->num_tasks == SCHED_UNSET && r->max_nodes == SCHED_UNSET));
}

/* The least a node given to the job must have free: one task's CPUs (all of
 * --ntasks-per-node's, at least --mincpus), their memory, and the GRES the job
 * wants on every node or per task (a per-job count may come from other
 * nodes).  Exclusive jobs take the whole node (*whole). */
static void node_least(const struct sched_req *r, uint64_t *c, uint64_t *m, uint64_t *g,
                       int *whole)
{
	uint64_t tasks = r->ntasks_per_node != SCHED_UNSET ? r->ntasks_per_node : 1;

	*c = tasks * r->cpus_per_task;
	if (r->min_cpus > *c)
		*c = r->min_cpus;
	*m = r->mem_per_node ? r->mem_per_node : r->mem_per_cpu * *c;
	for (uint32_t w = 0; w < r->ngres; w++)
		g[w] = r->gres[w].per_node + r->gres[w].per_task * tasks;
	*whole = r->exclusive;
}

/* The k-th smallest (0-based) of v[0..n), k < n; v is reordered.  Hoare's
 * selection: linear on average, where a sort would be n log n per query. */
static int64_t kth_smallest(int64_t *v, size_t n, size_t k)
{
	long lo = 0, hi = (long)n - 1, want = (long)k;

	while (lo < hi) {
		int64_t pivot = v[lo + (hi - lo) / 2];
		long i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t x = v[i];
				v[i++] = v[j];
				v[j--] = x;
			}
		}
		/* v[lo..j] <= pivot, v[i..hi] >= pivot, between them == pivot */
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			return v[want];
	}
	return v[want];
}

/* fit_at[i] = the earliest t >= from at which node i can hold node_least()
 * during the job's whole run (BF_FOREVER: never, or not usable).  No start
 * before the min_nodes-th smallest is possible (at any earlier time fewer
 * nodes could take even one task): that time is returned, BF_FOREVER when
 * fewer nodes ever can. */
static int64_t nodes_earliest(struct bf_plan *bp, const struct bf_query *q, int64_t from)
{
	const struct sched_req *r = q->req;
	uint64_t c, m, g[SCHED_GRES_WANTS] = {0};
	size_t nf = 0;
	int whole;

	node_least(r, &c, &m, g, &whole);
	for (size_t i = 0; i < bp->n; i++) {
		int64_t t = BF_FOREVER;
		if (q->mask[i].usable)
			t = node_fit_job(bp, i, c, m, whole, r, g, from, q->dur);
		bp->fit_at[i] = t;
		if (t != BF_FOREVER)
			bp->fit_finite[nf++] = t;
	}
	if (nf < r->min_nodes)
		return BF_FOREVER;
	return kth_smallest(bp->fit_finite, nf, r->min_nodes - 1);
}

/* probe() over the nodes that could take one of the job's tasks at t
 * (fit_at[i] <= t) only: the others would not be chosen there.  Under a
 * topology the placement needs every node's index, so the others are only
 * marked unusable.  -EINVAL says nothing here (the job may need more nodes
 * than this subset has); the caller asks probe_idle(). */
static int probe_few(struct bf_plan *bp, const struct sched_node *mask,
                     const struct sched_req *req, int64_t t, int64_t dur,
                     struct sched_alloc *out)
{
	int64_t end = dur == BF_FOREVER || t > BF_FOREVER - dur ? BF_FOREVER : t + dur;
	size_t m = 0;
	int rc;

	bp->probes++;
	if (bp->topo) {
		for (size_t i = 0; i < bp->n; i++) {
			struct sched_node *s = &bp->scratch[i];
			node_view(bp, i, &mask[i], s);
			if (bp->fit_at[i] > t)
				s->usable = 0;
			else if (s->usable)
				node_peak(&bp->nodes[i], t, end, s);
		}
		return sched_select_topo(bp->scratch, bp->n, req, bp->topo, out);
	}
	for (size_t i = 0; i < bp->n; i++) {
		struct sched_node *s;
		if (bp->fit_at[i] > t)
			continue;
		s = &bp->scratch[m];
		node_view(bp, i, &mask[i], s);
		node_peak(&bp->nodes[i], t, end, s);
		bp->few[m++] = (uint32_t)i;
	}
	if (m < req->min_nodes)
		return -EAGAIN;
	rc = sched_select(bp->scratch, m, req, out);
	if (rc == 0) /* back to node indexes: the map is ascending */
		for (uint32_t j = 0; j < out->nnodes; j++)
			out->node_idx[j] = bp->few[out->node_idx[j]];
	return rc;
}

/* Could the job run on the usable nodes were they all idle?  0 or -EINVAL. */
static int probe_idle(struct bf_plan *bp, const struct sched_node *mask,
                      const struct sched_req *req, struct sched_alloc *out)
{
	for (size_t i = 0; i < bp->n; i++)
		node_view(bp, i, &mask[i], &bp->scratch[i]);
	if (bp->topo)
		return sched_select_topo(bp->scratch, bp->n, req, bp->topo, out) ==
		               -EINVAL
		           ? -EINVAL
		           : 0;
	return sched_select(bp->scratch, bp->n, req, out) == -EINVAL ? -EINVAL : 0;
}

/* Is any node named (-w)?  Then every probe looks at every node. */
static int mask_required(const struct bf_plan *bp, const struct sched_node *mask)
{
	for (size_t i = 0; i < bp->n; i++)
		if (mask[i].required)
			return 1;
	return 0;
}

int bf_plan_earliest_q(struct bf_plan *bp, const struct bf_query *q,
                       struct sched_alloc *out, int64_t *ret_start)
{
	const struct bf_group *g = q->group >= 0 && (size_t)q->group < bp->ngroups
	                               ? &bp->groups[q->group]
	                               : NULL;
	int64_t t = q->from > bp->now ? q->from : bp->now, one;
	size_t node = 0;
	int few, idle_checked = 0;

	if (q->dur < 1)
		return -EINVAL;
	/* where one node can take the whole job, its earliest start bounds the
	 * search (and is the answer, on that node, when the job cannot spread) */
	one = one_node_earliest(bp, q, t, &node);
	if (one_node_only(q->req) && one != BF_FOREVER) {
		if (one > q->horizon)
			return -EAGAIN;
		if (probe_one(bp, q, node, one, out) == 0) {
			*ret_start = one;
			return 0;
		}
		t = one;
	}
	/* each node's earliest start for one task bounds the job's and leaves
	 * out, at each probe, the nodes that could not take part */
	few = !mask_required(bp, q->mask);
	if (few) {
		int64_t least = nodes_earliest(bp, q, t);
		if (least == BF_FOREVER)
			few = 0; /* let the full probe tell never from not yet */
		else if (least > t)
			t = least;
	}
	for (int tries = 0; tries < BF_MAX_PROBES; tries++) {
		size_t k;
		int rc;

		if (g) {
			rc = group_earliest(g, q->req, t, q->dur, &t);
			if (rc < 0)
				return rc;
		}
		if (t > one)
			t = one;
		if (t > q->horizon)
			return -EAGAIN;
		rc = few ? probe_few(bp, q->mask, q->req, t, q->dur, out)
		         : probe(bp, q->mask, q->req, t, q->dur, out);
		if (rc == 0) {
			*ret_start = t;
			return 0;
		}
		if (rc == -EINVAL && few) {
			if (!idle_checked && probe_idle(bp, q->mask, q->req, out) < 0)
				return -EINVAL;
			idle_checked = 1;
			rc = -EAGAIN;
		}
		if (rc == -EINVAL || t == one)
			return rc == -EINVAL ? -EINVAL : -EAGAIN;
		k = ends_after(bp, t);
		if (k == bp->nends)
			return -EAGAIN;
		t = bp->ends[k];
	}
	return -EAGAIN;
}

int bf_plan_earliest(struct bf_plan *bp, const struct sched_node *mask, int group,
                     const struct sched_req *req, int64_t dur, int64_t horizon,
                     struct sched_alloc *out, int64_t *ret_start)
{
	struct bf_query q = {.mask = mask,
	                     .group = group,
	                     .req = req,
	                     .dur = dur,
	                     .from = bp->now,
	                     .horizon = horizon};

	return bf_plan_earliest_q(bp, &q, out, ret_start);
}

void bf_plan_set_topo(struct bf_plan *bp, const struct sched_topo *t)
{
	bp->topo = t;
}
