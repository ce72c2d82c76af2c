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
	s->out.node_idx = u32;
	if (!s->nodes || !u32 || !s->out.mem || !s->out.gres || !s->blocked) {
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

int sched_try_place(struct sched_snap *s, const struct sched_ops *ops, void *ctx,
                    size_t i, const struct sched_job *job)
{
	int rc = -EINVAL;

	for (size_t alt = 0; alt < job->nalts; alt++) {
		int k;
		ops->mark(ctx, i, alt, s->nodes);
		k = sched_select_topo(s->nodes, s->nnodes, &job->req, s->topo, &s->out);
		if (k == 0)
			return 0;
		if (k == -EAGAIN)
			rc = k;
	}
	return rc;
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
		if (sched_try_place(s, ops, ctx, i, &job) != 0) {
			if (part < s->nparts)
				s->blocked[part] = 1;
			ops->wait(ctx, i, SCHED_WAIT_RESOURCES, &job);
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
	for (; considered < n && considered < o->depth; considered++) {
		if (!o->full && all_blocked(s))
			break;
		consider(s, ops, ctx, considered);
	}
	return considered;
}
