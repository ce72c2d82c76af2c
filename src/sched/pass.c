/* pass.c - the main scheduling pass, and the node snapshot it works on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sched/pass.h"
#include "sched/topo.h"

int sched_snap_init(struct sched_snap *s, size_t nnodes, size_t nparts)
{
	uint32_t *u32;

	memset(s, 0, sizeof(*s));
	s->nnodes = nnodes;
	s->nparts = nparts;
	s->nodes = calloc(nnodes + 1, sizeof(*s->nodes));
	u32 = calloc(3 * (nnodes + 1), sizeof(uint32_t));
	s->out.mem = calloc(nnodes + 1, sizeof(uint64_t));
	s->out.gres = calloc((nnodes + 1) * SCHED_GRES_KINDS, sizeof(uint32_t));
	s->blocked = calloc(nparts + 1, 1);
	s->withheld = calloc(nnodes + 1, 1);
	s->withheld_was = calloc(nnodes + 1, 1);
	s->withheld_list = calloc(nnodes + 1, sizeof(uint32_t));
	s->out.node_idx = u32;
	if (!s->nodes || !u32 || !s->out.mem || !s->out.gres || !s->blocked ||
	    !s->withheld || !s->withheld_was || !s->withheld_list) {
		sched_snap_release(s);
		return -ENOMEM;
	}
	s->out.cpus = u32 + nnodes + 1;
	s->out.tasks = u32 + 2 * (nnodes + 1);
	return 0;
}

void sched_snap_release(struct sched_snap *s)
{
	free(s->nodes);
	free(s->out.node_idx);
	free(s->out.mem);
	free(s->out.gres);
	free(s->blocked);
	free(s->withheld);
	free(s->withheld_was);
	free(s->withheld_list);
	memset(s, 0, sizeof(*s));
}

void sched_snap_take(struct sched_snap *s, const struct sched_alloc *a, uint32_t share)
{
	for (uint32_t i = 0; i < a->nnodes; i++) {
		struct sched_node *n = &s->nodes[a->node_idx[i]];
		n->alloc_cpus += a->cpus[i];
		if (share > 1)
			n->shared_cpus += a->cpus[i];
		if (s->mem_consumable)
			n->alloc_mem += a->mem[i];
		for (unsigned k = 0; a->gres && k < SCHED_GRES_KINDS; k++)
			n->gres_alloc[k] += a->gres[(size_t)i * SCHED_GRES_KINDS + k];
	}
}

void sched_snap_give(struct sched_snap *s, const struct sched_alloc *a, uint32_t share)
{
	for (uint32_t i = 0; i < a->nnodes; i++) {
		struct sched_node *n = &s->nodes[a->node_idx[i]];
		n->alloc_cpus -= a->cpus[i];
		if (share > 1)
			n->shared_cpus -= a->cpus[i];
		if (s->mem_consumable)
			n->alloc_mem -= a->mem[i];
		for (unsigned k = 0; a->gres && k < SCHED_GRES_KINDS; k++)
			n->gres_alloc[k] -= a->gres[(size_t)i * SCHED_GRES_KINDS + k];
	}
}

void sched_snap_mask(struct sched_snap *s)
{
	for (size_t k = 0; k < s->nwithheld; k++) {
		struct sched_node *n = &s->nodes[s->withheld_list[k]];
		s->withheld_was[k] = (uint8_t)(n->usable != 0);
		n->usable = 0;
	}
}

void sched_snap_unmask(struct sched_snap *s)
{
	for (size_t k = 0; k < s->nwithheld; k++)
		s->nodes[s->withheld_list[k]].usable = s->withheld_was[k];
}

/* Try job i's alternatives in turn on s now (mask: on the nodes not
 * withheld only): 0 with s->out holding where, -EAGAIN (not now) or -EINVAL
 * (never, on these nodes). */
static int try_place(struct sched_snap *s, const struct sched_ops *ops, void *ctx,
                     size_t i, const struct sched_job *job, int mask)
{
	int rc = -EINVAL;

	for (size_t alt = 0; alt < job->nalts; alt++) {
		int k;
		ops->mark(ctx, i, alt, s->nodes);
		if (mask)
			sched_snap_mask(s);
		k = sched_select_topo(s->nodes, s->nnodes, &job->req, s->topo, &s->out);
		if (mask)
			sched_snap_unmask(s);
		if (k == 0)
			return 0;
		if (k == -EAGAIN)
			rc = k;
	}
	return rc;
}

static void withhold(struct sched_snap *s, size_t n)
{
	if (n < s->nnodes && !s->withheld[n]) {
		s->withheld[n] = 1;
		s->withheld_list[s->nwithheld++] = (uint32_t)n;
	}
}

void sched_snap_block(struct sched_snap *s, uint32_t part)
{
	if (part >= s->nparts)
		return;
	s->blocked[part] = 1;
	for (size_t k = 0; k < s->parts[part].count; k++)
		withhold(s, s->parts[part].members[k]);
}

static void unwithhold_all(struct sched_snap *s)
{
	for (size_t k = 0; k < s->nwithheld; k++)
		s->withheld[s->withheld_list[k]] = 0;
	s->nwithheld = 0;
}

/* Job i could not start now (rc: -EAGAIN, its nodes are busy; else it does
 * not fit even on idle ones, some down, drained or withheld), its last
 * attempt's marks still in s->nodes: what it waits for is kept from the
 * jobs after it in this pass, as Slurm's main scheduler does.  A job that
 * names as many nodes as it needs (--nodelist) keeps those it may use alone
 * and its partition goes on; any other, when busy nodes hold it, blocks its
 * partition (part, its admit's: nparts for a job that blocks nobody). */
static void hold_for(struct sched_snap *s, uint32_t part, const struct sched_job *job,
                     int rc)
{
	uint32_t named = 0;

	for (size_t n = 0; n < s->nnodes; n++)
		named += s->nodes[n].required != 0;
	if (named && named >= job->req.min_nodes) {
		for (size_t n = 0; n < s->nnodes; n++)
			if (s->nodes[n].required && s->nodes[n].usable)
				withhold(s, n);
		return;
	}
	if (rc == -EAGAIN)
		sched_snap_block(s, part);
}

/* Has every partition a job waiting for resources (nothing more can start
 * in this pass but by backfill)? */
static int all_blocked(const struct sched_snap *s)
{
	return s->nparts && !memchr(s->blocked, 0, s->nparts);
}

/* Job i: start it (or its array's tasks) while it fits. */
static void consider(struct sched_snap *s, const struct sched_ops *ops, void *ctx,
                     size_t i)
{
	struct sched_job job = {0};
	uint32_t part = 0;

	if (ops->admit(ctx, i, &part) != SCHED_TRY)
		return;
	if (part < s->nparts && s->blocked[part]) {
		ops->wait(ctx, i, SCHED_WAIT_PRIORITY, NULL);
		return;
	}
	for (;;) {
		int rc;

		memset(&job, 0, sizeof(job));
		job.part = part;
		if (ops->next(ctx, i, &job) != SCHED_TRY)
			return;
		/* a job of a reservation runs on what is set aside for it: on
		 * nodes withheld for others too (they cannot use that) */
		if ((rc = try_place(s, ops, ctx, i, &job, part < s->nparts)) != 0) {
			ops->wait(ctx, i, SCHED_WAIT_RESOURCES, &job);
			hold_for(s, part, &job, rc);
			return;
		}
		rc = ops->start(ctx, i, &s->out);
		if (rc < 0)
			return;
		sched_snap_take(s, &s->out, job.req.share);
		if (rc != SCHED_MORE)
			return;
	}
}

size_t sched_main_pass(struct sched_snap *s, const struct sched_ops *ops, void *ctx,
                       size_t n, const struct sched_pass_opts *o)
{
	size_t considered = 0;

	memset(s->blocked, 0, s->nparts);
	unwithhold_all(s);
	for (; considered < n && considered < o->depth; considered++) {
		if (!o->full && all_blocked(s))
			break;
		consider(s, ops, ctx, considered);
	}
	/* the backfill run plans the waiting jobs on all the nodes */
	unwithhold_all(s);
	return considered;
}
