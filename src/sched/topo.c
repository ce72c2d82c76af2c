#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sched/topo.h"
#include "common/topo_conf.h"
#include "common/common.h"

void sched_topo_destroy(struct sched_topo *t)
{
	if (!t)
		return;
	free(t->parent);
	free(t->level);
	free(t->leaf);
	free(t->order);
	free(t->lo);
	free(t->hi);
	free(t->leaves);
	free(t);
}

/* Blocks: aggregates of sizes[k] / sizes[0] consecutive blocks become
 * switches of level k (block b lies in group b / per), and one switch above
 * spans all blocks when the largest aggregate does not. */
static void block_groups(const struct topo_conf *tc, struct sched_topo *t)
{
	size_t nb = tc->nsw, below_first = 0, below_per = 1, below_count = nb;
	uint32_t lv = 0;

	for (size_t k = 1; k <= tc->nsizes && below_count > 1; k++) {
		size_t per = k < tc->nsizes ? tc->sizes[k] / tc->sizes[0] : nb;
		size_t groups, base = t->nsw;
		if (per <= below_per)
			continue;
		groups = (nb + per - 1) / per;
		t->parent = xrealloc(t->parent, (base + groups) * sizeof(*t->parent));
		t->level = xrealloc(t->level, (base + groups) * sizeof(*t->level));
		lv++;
		for (size_t g = 0; g < groups; g++) {
			t->parent[base + g] = -1;
			t->level[base + g] = lv;
		}
		for (size_t i = 0; i < below_count; i++)
			t->parent[below_first + i] =
			    (int32_t)(base + i * below_per / per);
		t->nsw = base + groups;
		below_first = base;
		below_per = per;
		below_count = groups;
	}
}

/* Leaf a before leaf b in tree order: compare their chains of switches from
 * the top down. */
static int leaf_before(const struct sched_topo *t, uint32_t a, uint32_t b)
{
	int32_t ca[32], cb[32];
	int na = 0, nb = 0;

	for (int32_t x = (int32_t)a; x >= 0 && na < 32; x = t->parent[x])
		ca[na++] = x;
	for (int32_t x = (int32_t)b; x >= 0 && nb < 32; x = t->parent[x])
		cb[nb++] = x;
	while (na && nb) {
		if (ca[na - 1] != cb[nb - 1])
			return ca[na - 1] < cb[nb - 1];
		na--, nb--;
	}
	return na < nb;
}

/* order, lo, hi and leaves (see topo.h). */
static void ranges_build(struct sched_topo *t)
{
	uint32_t *first = xcalloc(t->nsw + 1, sizeof(*first));
	uint32_t *count = xcalloc(t->nsw + 1, sizeof(*count));
	size_t pos = 0;

	t->leaves = xcalloc(t->nsw + 1, sizeof(*t->leaves));
	for (size_t s = 0; s < t->nsw; s++)
		if (!t->level[s]) {
			size_t j = t->nleaves++;
			for (; j > 0 && leaf_before(t, (uint32_t)s, t->leaves[j - 1]);
			     j--)
				t->leaves[j] = t->leaves[j - 1];
			t->leaves[j] = (uint32_t)s;
		}
	for (size_t i = 0; i < t->nnodes; i++)
		if (t->leaf[i] >= 0)
			count[t->leaf[i]]++, t->nin++;
	for (size_t k = 0; k < t->nleaves; k++) {
		first[t->leaves[k]] = (uint32_t)pos;
		pos += count[t->leaves[k]];
	}
	t->order = xcalloc(t->nin + 1, sizeof(*t->order));
	t->lo = xcalloc(t->nsw + 1, sizeof(*t->lo));
	t->hi = xcalloc(t->nsw + 1, sizeof(*t->hi));
	for (size_t s = 0; s < t->nsw; s++)
		t->lo[s] = UINT32_MAX;
	for (size_t i = 0; i < t->nnodes; i++) {
		int32_t lf = t->leaf[i];
		uint32_t p;
		if (lf < 0)
			continue;
		p = first[lf]++;
		t->order[p] = (uint32_t)i;
		for (int32_t x = lf; x >= 0; x = t->parent[x]) {
			if (p < t->lo[x])
				t->lo[x] = p;
			if (p + 1 > t->hi[x])
				t->hi[x] = p + 1;
		}
	}
	for (size_t s = 0; s < t->nsw; s++)
		if (t->lo[s] == UINT32_MAX)
			t->lo[s] = t->hi[s] = 0;
	free(first);
	free(count);
}

struct sched_topo *sched_topo_create(const struct topo_conf *tc, size_t nnodes,
                                     int (*find)(const char *name, void *arg), void *arg,
                                     size_t *ret_unknown)
{
	struct sched_topo *t = xcalloc(1, sizeof(*t));
	size_t unknown = 0;

	t->nsw = t->nconf = tc->nsw;
	t->parent = xcalloc(tc->nsw + 1, sizeof(*t->parent));
	t->level = xcalloc(tc->nsw + 1, sizeof(*t->level));
	t->nnodes = nnodes;
	t->leaf = xcalloc(nnodes + 1, sizeof(*t->leaf));
	for (size_t i = 0; i < nnodes; i++)
		t->leaf[i] = -1;
	for (size_t s = 0; s < tc->nsw; s++) {
		t->parent[s] = tc->sw[s].parent;
		t->level[s] = tc->kind == TOPO_BLOCK ? 0 : tc->sw[s].level;
		for (size_t k = 0; k < tc->sw[s].nnodes; k++) {
			int i = find(tc->sw[s].nodes[k], arg);
			if (i < 0 || (size_t)i >= nnodes)
				unknown++;
			else
				t->leaf[i] = (int32_t)s;
		}
	}
	if (tc->kind == TOPO_BLOCK)
		block_groups(tc, t);
	ranges_build(t);
	if (ret_unknown)
		*ret_unknown = unknown;
	return t;
}

/* Can the node take a task of req now (a cheap first look; selection
 * decides)? */
static int node_open(const struct sched_node *nd, const struct sched_req *req)
{
	if (!nd->usable)
		return 0;
	if (req->exclusive)
		return !nd->alloc_cpus && !nd->alloc_mem;
	return req->share > 1 || nd->cpus >= nd->alloc_cpus + req->cpus_per_task;
}

static int under(const struct sched_topo *t, int32_t leaf, size_t s)
{
	for (int32_t x = leaf; x >= 0; x = t->parent[x])
		if ((size_t)x == s)
			return 1;
	return 0;
}

struct topo_scratch {
	uint32_t *open;         /* [nsw] open nodes under each switch */
	uint32_t *req;          /* [nsw] required nodes under each switch */
	uint32_t *cand;         /* [nsw] switches to try, best first */
	uint8_t *chosen;        /* [nsw] leaves taken */
	struct sched_node *sub; /* [n] the nodes tried */
	uint32_t *map;          /* [n] their indexes */
	const struct sched_topo *t;
};

/* Switch x before y: lower level, then fewer open nodes (best fit). */
static int cand_before(const struct topo_scratch *sc, uint32_t x, uint32_t y)
{
	const struct sched_topo *t = sc->t;

	if (t->level[x] != t->level[y])
		return t->level[x] < t->level[y];
	return sc->open[x] < sc->open[y];
}

/* Try req on the nodes under switch s, or (leaves) in the chosen leaves. */
static int try_under(const struct sched_node *nodes, const struct sched_req *req,
                     struct topo_scratch *sc, size_t s, int leaves,
                     struct sched_alloc *out)
{
	const struct sched_topo *t = sc->t;
	size_t m = 0;

	for (size_t k = 0; k < (leaves ? t->nleaves : 1); k++) {
		size_t w = leaves ? t->leaves[k] : s;
		if (leaves && !sc->chosen[w])
			continue;
		for (uint32_t p = t->lo[w]; p < t->hi[w]; p++) {
			sc->sub[m] = nodes[t->order[p]];
			sc->map[m++] = t->order[p];
		}
	}
	if (!m || sched_select_in(sc->sub, m, req, out) < 0)
		return -EAGAIN;
	for (uint32_t j = 0; j < out->nnodes; j++)
		out->node_idx[j] = sc->map[out->node_idx[j]];
	sched_alloc_sort(out);
	return 0;
}

/* Under switch s (out holds a placement there): the fewest leaves, best
 * fit first.  0 with out filled, or -EAGAIN when req->switches cannot be
 * met. */
static int leaves_pick(const struct sched_node *nodes, size_t n,
                       const struct sched_req *req, struct topo_scratch *sc, size_t s,
                       struct sched_alloc *out)
{
	const struct sched_topo *t = sc->t;
	uint32_t need = out->nnodes, got = 0;

	memset(sc->chosen, 0, t->nsw);
	for (size_t l = 0; l < t->nsw; l++) /* leaves with required nodes first */
		if (!t->level[l] && sc->req[l] && under(t, (int32_t)l, s)) {
			sc->chosen[l] = 1;
			got += sc->open[l];
		}
	for (;;) {
		int64_t best = -1;
		if (got >= need && try_under(nodes, req, sc, s, 1, out) == 0)
			break;
		for (size_t l = 0; l < t->nsw; l++) {
			if (t->level[l] || sc->chosen[l] || !sc->open[l] ||
			    !under(t, (int32_t)l, s))
				continue;
			if (best < 0) {
				best = (int64_t)l;
				continue;
			}
			uint32_t ol = sc->open[l], ob = sc->open[best], left = need - got;
			if (got >= need)
				left = 1;
			/* a leaf that holds the rest, the smallest such; else the
			 * largest */
			if ((ol >= left && (ob < left || ol < ob)) ||
			    (ob < left && ol > ob))
				best = (int64_t)l;
		}
		if (best < 0) {
			if (try_under(nodes, req, sc, s, 0, out) < 0)
				return -EAGAIN;
			break;
		}
		sc->chosen[best] = 1;
		got += sc->open[best];
	}
	if (req->switches && sched_topo_leaves(t, out) > req->switches)
		return -EAGAIN;
	return 0;
}

static int place(const struct sched_node *nodes, size_t n, const struct sched_req *req,
                 struct topo_scratch *sc, struct sched_alloc *out)
{
	const struct sched_topo *t = sc->t;
	uint32_t nreq = 0, ncand = 0;

	for (size_t i = 0; i < n; i++) {
		int open = node_open(&nodes[i], req);
		nreq += !!nodes[i].required;
		for (int32_t x = t->leaf[i]; x >= 0; x = t->parent[x]) {
			sc->open[x] += open;
			sc->req[x] += !!nodes[i].required;
		}
	}
	for (size_t s = 0; s < t->nsw; s++)
		if (sc->open[s] >= req->min_nodes && sc->req[s] == nreq)
			sc->cand[ncand++] = (uint32_t)s;
	/* best first, picked one at a time: the first try mostly places it */
	while (ncand) {
		uint32_t b = 0, s;
		for (uint32_t c = 1; c < ncand; c++)
			if (cand_before(sc, sc->cand[c], sc->cand[b]) ||
			    (!cand_before(sc, sc->cand[b], sc->cand[c]) &&
			     sc->cand[c] < sc->cand[b]))
				b = c;
		s = sc->cand[b];
		sc->cand[b] = sc->cand[--ncand];
		if (try_under(nodes, req, sc, s, 0, out) < 0)
			continue;
		if (out->nnodes <= 1 || !t->level[s])
			return 0;
		return leaves_pick(nodes, n, req, sc, s, out);
	}
	return -EAGAIN;
}

int sched_select_topo(const struct sched_node *nodes, size_t n,
                      const struct sched_req *req, const struct sched_topo *t,
                      struct sched_alloc *out)
{
	struct topo_scratch sc = {.t = t};
	int rc = sched_select(nodes, n, req, out);

	if (!t || rc < 0 || out->nnodes <= 1)
		return rc;
	sc.open = xcalloc(t->nsw + 1, sizeof(*sc.open));
	sc.req = xcalloc(t->nsw + 1, sizeof(*sc.req));
	sc.cand = xcalloc(t->nsw + 1, sizeof(*sc.cand));
	sc.chosen = xcalloc(t->nsw + 1, 1);
	/* only what try_under() writes is read: no need to clear them */
	sc.sub = xmalloc((n + 1) * sizeof(*sc.sub));
	sc.map = xmalloc((n + 1) * sizeof(*sc.map));
	rc = place(nodes, n, req, &sc, out);
	free(sc.open);
	free(sc.req);
	free(sc.cand);
	free(sc.chosen);
	free(sc.sub);
	free(sc.map);
	return rc;
}

uint32_t sched_topo_leaves(const struct sched_topo *t, const struct sched_alloc *a)
{
	uint32_t count = 0;

	for (uint32_t j = 0; j < a->nnodes; j++) {
		int32_t lf = t ? t->leaf[a->node_idx[j]] : -1;
		int seen = 0;
		for (uint32_t k = 0; lf >= 0 && k < j && !seen; k++)
			seen = t->leaf[a->node_idx[k]] == lf;
		count += !seen;
	}
	return count;
}
