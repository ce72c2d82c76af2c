#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sched/select.h"
#include "common/common.h"

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

uint32_t sched_task_cpus(const struct sched_req *req, const struct sched_node *nd)
{
	uint64_t tpc = nd->threads ? nd->threads : 1, cpt = req->cpus_per_task;
	uint64_t n = req->ntasks_per_core, use = req->threads_per_core, per;

	if (tpc == 1)
		return (uint32_t)cpt;
	if (use && use < tpc) /* `use` threads of each of its cores */
		return clamp32((cpt + use - 1) / use * tpc);
	if (!n || n >= tpc) /* as many tasks to a core as it has threads */
		return (uint32_t)cpt;
	if (n * cpt <= tpc) { /* n tasks to a core at most */
		per = (tpc + n - 1) / n;
		return clamp32(per > cpt ? per : cpt);
	}
	return clamp32((cpt + tpc - 1) / tpc * tpc); /* cores of its own */
}

/* How many tasks of req fit on node nd with the given free CPUs and memory. */
static uint32_t tasks_fit(const struct sched_req *req, const struct sched_node *nd,
                          uint32_t free_cpus, uint64_t free_mem)
{
	uint32_t per = sched_task_cpus(req, nd);
	uint32_t t = free_cpus / per;

	if (free_cpus < req->min_cpus ||
	    (req->mem_per_cpu && free_mem < req->mem_per_cpu * req->min_cpus))
		return 0;

	if (req->mem_per_cpu) {
		uint64_t per_task = req->mem_per_cpu * per;
		uint64_t by_mem = free_mem / per_task;
		if (by_mem < t)
			t = (uint32_t)by_mem;
	}
	if (req->mem_per_node && free_mem < req->mem_per_node)
		t = 0;
	if (req->ntasks_per_node != SCHED_UNSET && t > req->ntasks_per_node)
		t = req->ntasks_per_node;
	if (req->ntasks_per_socket && nd->sockets &&
	    t > (uint64_t)req->ntasks_per_socket * nd->sockets)
		t = req->ntasks_per_socket * nd->sockets;
	if (req->ntasks_per_core && nd->sockets && nd->cores &&
	    t > (uint64_t)req->ntasks_per_core * nd->sockets * nd->cores)
		t = req->ntasks_per_core * nd->sockets * nd->cores;
	return t;
}

/* Free GRES of kind k on a node (all of them when idle). */
static uint32_t gres_free(const struct sched_node *nd, int idle, unsigned k)
{
	if (idle)
		return nd->gres[k];
	return nd->gres[k] > nd->gres_alloc[k] ? nd->gres[k] - nd->gres_alloc[k] : 0;
}

/* Free GRES on a node of the kinds that satisfy w. */
static uint64_t want_free(const struct sched_node *nd, int idle,
                          const struct sched_gres_want *w)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < SCHED_GRES_KINDS; k++)
		if (w->kinds & (1u << k))
			n += gres_free(nd, idle, k);
	return n;
}

/* How many tasks a node's free GRES allow (UINT32_MAX: no limit; 0: a
 * per-node need is not met). */
static uint32_t gres_tasks_fit(const struct sched_node *nd, int idle,
                               const struct sched_req *req)
{
	uint32_t t = UINT32_MAX;

	for (uint32_t w = 0; w < req->ngres; w++) {
		const struct sched_gres_want *g = &req->gres[w];
		uint64_t f;
		if (!g->per_node && !g->per_task)
			continue;
		f = want_free(nd, idle, g);
		if (f < g->per_node)
			return 0;
		if (g->per_task && (f - g->per_node) / g->per_task < t)
			t = (uint32_t)((f - g->per_node) / g->per_task);
	}
	return t;
}

/* GRES of a per-job want still missing once node nd is taken; *ret_gives
 * says whether nd adds any. */
static uint64_t per_job_left(const struct sched_node *nd, int idle,
                             const struct sched_req *req, const uint64_t *got,
                             int *ret_gives)
{
	uint64_t left = 0;

	*ret_gives = 0;
	for (uint32_t w = 0; w < req->ngres; w++) {
		const struct sched_gres_want *g = &req->gres[w];
		uint64_t f;
		if (!g->per_job || got[w] >= g->per_job)
			continue;
		f = want_free(nd, idle, g);
		if (f)
			*ret_gives = 1;
		if (got[w] + f < g->per_job)
			left += g->per_job - got[w] - f;
	}
	return left;
}

/* Take n GRES of want g on node nd from its lowest free kinds into
 * take[SCHED_GRES_KINDS] (added to what earlier wants took).  0 or -EAGAIN. */
static int gres_take(const struct sched_node *nd, int idle,
                     const struct sched_gres_want *g, uint64_t n, uint32_t *take)
{
	for (unsigned k = 0; k < SCHED_GRES_KINDS && n; k++) {
		uint32_t f;
		if (!(g->kinds & (1u << k)))
			continue;
		f = gres_free(nd, idle, k);
		f = f > take[k] ? f - take[k] : 0;
		if (f > n)
			f = (uint32_t)n;
		take[k] += f;
		n -= f;
	}
	return n ? -EAGAIN : 0;
}

/* Which GRES each chosen node gives: per node and per task first, then the
 * per-job totals from the first nodes on.  out->gres when the caller wants
 * it; -EAGAIN when the nodes cannot give it after all (items that share
 * kinds). */
static int gres_assign(const struct sched_node *nodes, const struct sched_req *req,
                       int idle, struct sched_alloc *out)
{
	uint64_t got[SCHED_GRES_WANTS] = {0};

	for (uint32_t j = 0; j < out->nnodes; j++) {
		const struct sched_node *nd = &nodes[out->node_idx[j]];
		uint32_t take[SCHED_GRES_KINDS] = {0};

		for (uint32_t w = 0; w < req->ngres; w++) {
			const struct sched_gres_want *g = &req->gres[w];
			uint64_t n = g->per_node + (uint64_t)g->per_task * out->tasks[j];
			if (g->per_job) {
				uint64_t f = want_free(nd, idle, g);
				n = g->per_job - got[w];
				for (unsigned k = 0; k < SCHED_GRES_KINDS; k++)
					if (g->kinds & (1u << k))
						f -= f >= take[k] ? take[k] : f;
				if (n > f)
					n = f;
				got[w] += n;
			}
			if (gres_take(nd, idle, g, n, take) < 0)
				return -EAGAIN;
		}
		if (out->gres)
			memcpy(out->gres + (size_t)j * SCHED_GRES_KINDS, take,
			       sizeof(take));
	}
	for (uint32_t w = 0; w < req->ngres; w++)
		if (got[w] < req->gres[w].per_job)
			return -EAGAIN;
	return 0;
}

/* The CPUs the partition's MaxCPUsPerNode leaves the job on nd (UINT32_MAX:
 * no limit), as select/cons_tres counts it: those its partition's jobs do not
 * hold already; none for a whole-node job on a node of more CPUs. */
static uint32_t part_cap(const struct sched_node *nd, const struct sched_req *req,
                         int idle)
{
	uint32_t cap = req->max_cpus_per_node, used = idle ? 0 : nd->part_cpus;

	if (!cap)
		return UINT32_MAX;
	if (req->exclusive && nd->cpus > cap)
		return 0;
	return cap > used ? cap - used : 0;
}

static void node_free(const struct sched_node *nd, const struct sched_req *req, int idle,
                      uint32_t *cpus, uint64_t *mem)
{
	uint32_t cap = part_cap(nd, req, idle);

	if (idle) {
		*cpus = nd->cpus;
		*mem = nd->mem;
	} else if (req->exclusive && (nd->alloc_cpus || nd->alloc_mem)) {
		*cpus = 0;
		*mem = 0;
	} else if (req->share > 1) {
		uint32_t shared =
		    nd->shared_cpus < nd->alloc_cpus ? nd->shared_cpus : nd->alloc_cpus;
		uint32_t excl = nd->alloc_cpus - shared;
		uint32_t base = nd->cpus > excl ? nd->cpus - excl : 0;
		uint64_t pool = (uint64_t)base * req->share;
		pool = pool > shared ? pool - shared : 0;
		*cpus = pool < base ? (uint32_t)pool : base;
		*mem = nd->mem > nd->alloc_mem ? nd->mem - nd->alloc_mem : 0;
	} else {
		*cpus = nd->cpus > nd->alloc_cpus ? nd->cpus - nd->alloc_cpus : 0;
		*mem = nd->mem > nd->alloc_mem ? nd->mem - nd->alloc_mem : 0;
	}
	if (*cpus > cap)
		*cpus = cap;
}

static uint32_t wanted_tasks(const struct sched_req *req, uint32_t nnodes)
{
	if (req->num_tasks != SCHED_UNSET)
		return req->num_tasks;
	if (req->ntasks_per_node != SCHED_UNSET)
		return req->ntasks_per_node * nnodes;
	return nnodes;
}

/* Is node a less loaded than b: more of its CPUs free (idle: all)?  By
 * cross-multiplying, as Slurm's LLN compares free to total CPUs. */
static int less_loaded(const struct sched_node *a, const struct sched_node *b, int idle)
{
	uint64_t fa = idle                      ? a->cpus
	              : a->cpus > a->alloc_cpus ? a->cpus - a->alloc_cpus
	                                        : 0;
	uint64_t fb = idle                      ? b->cpus
	              : b->cpus > b->alloc_cpus ? b->cpus - b->alloc_cpus
	                                        : 0;

	return fa * b->cpus > fb * a->cpus;
}

/* Should node a come after b: a higher weight, or (LLN) the same weight and
 * b less loaded? */
static int comes_after(const struct sched_node *a, const struct sched_node *b,
                       const struct sched_req *req, int idle)
{
	if (a->weight != b->weight)
		return a->weight > b->weight;
	return req->lln && less_loaded(b, a, idle);
}

/* order[] = node indexes by weight (LLN: then least loaded first), then
 * index (a stable insertion sort). */
static void weight_order(const struct sched_node *nodes, size_t n,
                         const struct sched_req *req, int idle, size_t *order)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		for (; j > 0 && comes_after(&nodes[order[j - 1]], &nodes[i], req, idle);
		     j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

/* Can node i take tasks of req (its count in *ret_t), and does the
 * allocation take it?  fit: 1 take, 0 skip it, -1 give up (a required node
 * that cannot). */
struct pick {
	uint32_t cap, k, max_nodes;
	uint64_t got[SCHED_GRES_WANTS], short_by;
};

static int pick_node(const struct sched_node *nodes, size_t i,
                     const struct sched_req *req, int idle, struct pick *p,
                     struct sched_alloc *out, uint32_t *fit)
{
	uint32_t fc, t, tg;
	uint64_t fm, gleft = 0;
	int gives = 1;

	node_free(&nodes[i], req, idle, &fc, &fm);
	t = tasks_fit(req, &nodes[i], fc, fm);
	if (req->ngres && (tg = gres_tasks_fit(&nodes[i], idle, req)) < t)
		t = tg;
	if (req->ntasks_per_node != SCHED_UNSET && t < req->ntasks_per_node)
		t = 0;
	if (!t)
		return nodes[i].required ? -1 : 0;
	if (req->ngres)
		gleft = per_job_left(&nodes[i], idle, req, p->got, &gives);
	/* a node that adds none of the GPUs still missing (--gpus) waits for
	 * them to be found */
	if (gleft && !gives && !nodes[i].required)
		return 0;
	/* the last node the job may get must hold all that is left: -N1 -n8
	 * skips nodes with fewer free CPUs */
	if (p->k + 1 == p->max_nodes && !nodes[i].required &&
	    ((req->num_tasks != SCHED_UNSET && p->cap + t < req->num_tasks) || gleft))
		return 0;
	out->node_idx[p->k] = (uint32_t)i;
	fit[p->k++] = t;
	p->cap += t;
	for (uint32_t w = 0; w < req->ngres; w++)
		if (req->gres[w].per_job)
			p->got[w] += want_free(&nodes[i], idle, &req->gres[w]);
	p->short_by = gleft;
	return 1;
}

/* Have the nodes picked so far enough for req?  With --spread-job, only
 * when no more may be taken. */
static int picked_enough(const struct sched_req *req, const struct pick *p)
{
	if (p->short_by || p->k < req->min_nodes)
		return 0;
	if (req->num_tasks != SCHED_UNSET && p->cap < wanted_tasks(req, p->k))
		return 0;
	return !(req->spread || req->most_nodes) || p->k >= p->max_nodes;
}

/* How many of the p->k nodes picked so far count toward node count k of
 * req (at most what it asks); an own count claims those it takes (claim[j]:
 * out's j-th node is taken by one), so that no other own count has them. */
static uint32_t feat_claim(const struct sched_node *nodes, const struct sched_req *req,
                           uint32_t k, const struct sched_alloc *out,
                           const struct pick *p, uint8_t *claim)
{
	const struct sched_feat *f = &req->feat[k];
	uint32_t have = 0;

	for (uint32_t j = 0; j < p->k && have < f->nodes; j++) {
		if (!(nodes[out->node_idx[j]].feat >> k & 1) || (f->own && claim[j]))
			continue;
		claim[j] = (uint8_t)(claim[j] || f->own);
		have++;
	}
	return have;
}

/* Do the nodes picked so far hold every node count of req? */
static int feat_met(const struct sched_node *nodes, const struct sched_req *req,
                    const struct sched_alloc *out, const struct pick *p, uint8_t *claim)
{
	if (!req->nfeat)
		return 1;
	memset(claim, 0, p->k);
	for (uint32_t k = 0; k < req->nfeat; k++)
		if (feat_claim(nodes, req, k, out, p, claim) < req->feat[k].nodes)
			return 0;
	return 1;
}

/* After the required nodes: for each node count of req, take nodes that have
 * its feature, in order (lightest first), until it has its count; for a
 * count that others may share, first those that also have the features of
 * the shared counts after it ("a*1&b*1" of one node: a node with both).
 * taken[i]: node i is picked. */
static int feat_pass(const struct sched_node *nodes, size_t n,
                     const struct sched_req *req, int idle, struct sched_alloc *out,
                     uint32_t *fit, const size_t *order, uint8_t *taken, uint8_t *claim,
                     struct pick *p)
{
	memset(claim, 0, p->k);
	for (uint32_t k = 0; k < req->nfeat; k++) {
		const struct sched_feat *f = &req->feat[k];
		uint32_t have = feat_claim(nodes, req, k, out, p, claim), also = 0;
		for (uint32_t l = k + 1; !f->own && l < req->nfeat; l++)
			also |= req->feat[l].own ? 0 : UINT32_C(1) << l;
		for (int pass = also ? 0 : 1; pass < 2; pass++)
			for (size_t o = 0;
			     o < n && have < f->nodes && p->k < p->max_nodes; o++) {
				size_t i = order[o];
				if (!nodes[i].usable || taken[i] ||
				    !(nodes[i].feat >> k & 1) ||
				    (!pass && (nodes[i].feat & also) != also))
					continue;
				if (pick_node(nodes, i, req, idle, p, out, fit) != 1)
					continue;
				taken[i] = 1;
				claim[p->k - 1] = (uint8_t)(f->own != 0);
				have++;
			}
		if (have < f->nodes)
			return -EAGAIN;
	}
	return 0;
}

/* --contiguous: the first run of consecutive usable nodes (by index) that
 * holds the job. */
static int contiguous_pass(const struct sched_node *nodes, size_t n,
                           const struct sched_req *req, int idle, struct sched_alloc *out,
                           uint32_t *fit, uint8_t *claim, struct pick *p,
                           uint32_t max_nodes)
{
	for (size_t s = 0; s < n; s++) {
		*p = (struct pick){.max_nodes = max_nodes};
		for (size_t i = s; i < n && p->k < max_nodes; i++) {
			if (!nodes[i].usable ||
			    pick_node(nodes, i, req, idle, p, out, fit) != 1)
				break;
			if (picked_enough(req, p) && feat_met(nodes, req, out, p, claim))
				return 0;
		}
		if (req->spread && p->k >= req->min_nodes && !p->short_by &&
		    (req->num_tasks == SCHED_UNSET ||
		     p->cap >= wanted_tasks(req, p->k)) &&
		    feat_met(nodes, req, out, p, claim))
			return 0;
	}
	return -EAGAIN;
}

/* One pass: idle != 0 pretends every usable node is empty (the "could it ever
 * run" check). */
static int select_pass_in(const struct sched_node *nodes, size_t n,
                          const struct sched_req *req, int idle, struct sched_alloc *out,
                          uint32_t *fit, size_t *order, uint8_t *taken, uint8_t *claim)
{
	uint32_t max_nodes = req->max_nodes == SCHED_UNSET ? (uint32_t)n : req->max_nodes;
	uint32_t k, need, left;
	struct pick p;

	if (req->ntasks_per_node == SCHED_UNSET && req->num_tasks == SCHED_UNSET &&
	    !req->most_nodes)
		max_nodes = req->min_nodes > max_nodes ? max_nodes : req->min_nodes;
	/* a node holds one task at least: no more nodes than tasks */
	if ((req->spread || req->most_nodes) && req->num_tasks != SCHED_UNSET &&
	    req->num_tasks < max_nodes)
		max_nodes = req->num_tasks;
	p = (struct pick){.max_nodes = max_nodes};
	if (req->contiguous) {
		if (contiguous_pass(nodes, n, req, idle, out, fit, claim, &p, max_nodes) <
		    0)
			return -EAGAIN;
		goto placed;
	}
	weight_order(nodes, n, req, idle, order);
	/* required nodes first, then those of the node counts, then the rest
	 * by weight */
	memset(taken, 0, n);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && req->nfeat &&
		    feat_pass(nodes, n, req, idle, out, fit, order, taken, claim, &p) < 0)
			return -EAGAIN;
		if (pass == 1 && req->nfeat && picked_enough(req, &p))
			goto placed;
		for (size_t o = 0; o < n && p.k < max_nodes; o++) {
			size_t i = order[o];
			int r;
			if (!nodes[i].usable || taken[i] ||
			    (pass == 0) != !!nodes[i].required)
				continue;
			if ((r = pick_node(nodes, i, req, idle, &p, out, fit)) < 0)
				return -EAGAIN;
			taken[i] = (uint8_t)r;
			if (r && picked_enough(req, &p) && (pass == 1 || !req->nfeat))
				goto placed;
		}
	}
	/* --spread-job, a node range: fewer nodes than it may take can do */
	if ((req->spread || req->most_nodes) && p.k >= req->min_nodes && !p.short_by &&
	    (req->num_tasks == SCHED_UNSET || p.cap >= wanted_tasks(req, p.k)))
		goto placed;
	return -EAGAIN;
placed:
	k = p.k;
	need = wanted_tasks(req, k);
	if (need < k)
		return -EINVAL; /* fewer tasks than nodes */
	/* one task per node first, then fill block-wise (--spread-job: one
	 * more on each node in turn) */
	left = need;
	for (uint32_t j = 0; j < k; j++) {
		out->tasks[j] = 1;
		left--;
	}
	while (req->spread && left) {
		uint32_t added = 0;
		for (uint32_t j = 0; j < k && left; j++)
			if (out->tasks[j] < fit[j]) {
				out->tasks[j]++;
				left--;
				added++;
			}
		if (!added)
			break;
	}
	for (uint32_t j = 0; j < k && left; j++) {
		uint32_t more =
		    fit[j] - out->tasks[j] < left ? fit[j] - out->tasks[j] : left;
		out->tasks[j] += more;
		left -= more;
	}
	out->nnodes = k;
	out->ntasks = need;
	for (uint32_t j = 0; j < k; j++) {
		const struct sched_node *nd = &nodes[out->node_idx[j]];
		out->cpus[j] =
		    req->exclusive
		        ? nd->cpus
		        : clamp32((uint64_t)out->tasks[j] * sched_task_cpus(req, nd));
		if (out->cpus[j] < req->min_cpus)
			out->cpus[j] = req->min_cpus;
		if (req->mem_per_node)
			out->mem[j] = req->mem_per_node;
		else
			out->mem[j] = req->mem_per_cpu * out->cpus[j];
	}
	if ((req->ngres || out->gres) && gres_assign(nodes, req, idle, out) < 0)
		return -EAGAIN;
	/* sort by node index (required nodes may have come first) */
	sched_alloc_sort(out);
	return 0;
}

void sched_alloc_sort(struct sched_alloc *out)
{
	for (uint32_t a = 1; a < out->nnodes; a++)
		for (uint32_t b = a; b > 0 && out->node_idx[b - 1] > out->node_idx[b];
		     b--) {
			uint32_t ti = out->node_idx[b];
			uint32_t tc = out->cpus[b], tt = out->tasks[b];
			uint64_t tm = out->mem[b];
			out->node_idx[b] = out->node_idx[b - 1];
			out->cpus[b] = out->cpus[b - 1];
			out->tasks[b] = out->tasks[b - 1];
			out->mem[b] = out->mem[b - 1];
			out->node_idx[b - 1] = ti;
			out->cpus[b - 1] = tc;
			out->tasks[b - 1] = tt;
			out->mem[b - 1] = tm;
			if (out->gres) {
				uint32_t tg[SCHED_GRES_KINDS];
				uint32_t *x = out->gres + (size_t)b * SCHED_GRES_KINDS;
				memcpy(tg, x, sizeof(tg));
				memcpy(x, x - SCHED_GRES_KINDS, sizeof(tg));
				memcpy(x - SCHED_GRES_KINDS, tg, sizeof(tg));
			}
		}
}

/* select_pass_in with its scratch arrays (n entries each). */
static int select_pass(const struct sched_node *nodes, size_t n,
                       const struct sched_req *req, int idle, struct sched_alloc *out)
{
	uint32_t *fit = xcalloc(n ? n : 1, sizeof(*fit));
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	uint8_t *taken = xcalloc(2 * (n ? n : 1), 1); /* and claim */
	int rc = select_pass_in(nodes, n, req, idle, out, fit, order, taken, taken + n);

	free(fit);
	free(order);
	free(taken);
	return rc;
}

int sched_select(const struct sched_node *nodes, size_t n, const struct sched_req *req,
                 struct sched_alloc *out)
{
	if (!req->min_nodes || !req->cpus_per_task || req->min_nodes > n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (nodes[i].required && !nodes[i].usable)
			return -EAGAIN; /* a named node is down or drained: it may return
			                 */
	if (select_pass(nodes, n, req, 0, out) == 0)
		return 0;
	if (select_pass(nodes, n, req, 1, out) == 0)
		return -EAGAIN;
	return -EINVAL;
}

int sched_select_in(const struct sched_node *nodes, size_t n, const struct sched_req *req,
                    struct sched_alloc *out)
{
	return select_pass(nodes, n, req, 0, out);
}

void sched_alloc_free(struct sched_alloc *a)
{
	free(a->node_idx);
	free(a->cpus);
	free(a->tasks);
	free(a->mem);
	free(a->gres);
	memset(a, 0, sizeof(*a));
}

void sched_alloc_avoid(struct sched_node *nodes, size_t n, const struct sched_alloc *a)
{
	for (uint32_t k = 0; k < a->nnodes; k++)
		if (a->node_idx[k] < n)
			nodes[a->node_idx[k]].usable = 0;
}

int sched_alloc_dup(struct sched_alloc *to, const struct sched_alloc *from)
{
	size_t n = from->nnodes, ng = n * SCHED_GRES_KINDS;

	sched_alloc_free(to);
	to->nnodes = from->nnodes;
	to->ntasks = from->ntasks;
	to->node_idx = malloc((n + 1) * sizeof(uint32_t));
	to->cpus = malloc((n + 1) * sizeof(uint32_t));
	to->tasks = malloc((n + 1) * sizeof(uint32_t));
	to->mem = malloc((n + 1) * sizeof(uint64_t));
	to->gres = from->gres ? malloc((ng + 1) * sizeof(uint32_t)) : NULL;
	if (!to->node_idx || !to->cpus || !to->tasks || !to->mem ||
	    (from->gres && !to->gres)) {
		sched_alloc_free(to);
		return -ENOMEM;
	}
	memcpy(to->node_idx, from->node_idx, n * sizeof(uint32_t));
	memcpy(to->cpus, from->cpus, n * sizeof(uint32_t));
	memcpy(to->tasks, from->tasks, n * sizeof(uint32_t));
	memcpy(to->mem, from->mem, n * sizeof(uint64_t));
	if (from->gres)
		memcpy(to->gres, from->gres, ng * sizeof(uint32_t));
	return 0;
}
