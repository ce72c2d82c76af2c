#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sched/sim_nodes.h"
#include "sched/topo.h"

struct sim_run {
	uint32_t n;
	uint32_t *idx; /* [n] nodes, then [n] CPUs on each */
	int64_t end;
	size_t pos; /* in running[] */
};

struct sim_nodes {
	size_t nnodes;
	uint32_t cpus;
	const struct sched_topo *topo;
	enum sim_place place;
	struct sim_run *jobs; /* [njobs] */
	size_t njobs;
	uint64_t *running; /* refs of jobs that hold nodes */
	size_t nrunning;
	uint64_t multi_jobs, multi_leaves;
};

struct sim_nodes *sim_nodes_create(size_t nnodes, uint32_t cpus, size_t njobs,
                                   const struct sched_topo *t, enum sim_place place)
{
	struct sim_nodes *sn = calloc(1, sizeof(*sn));

	if (!sn)
		return NULL;
	sn->nnodes = nnodes;
	sn->cpus = cpus;
	sn->topo = t;
	sn->place = place;
	sn->njobs = njobs;
	sn->jobs = calloc(njobs + 1, sizeof(*sn->jobs));
	sn->running = calloc(njobs + 1, sizeof(*sn->running));
	if (!sn->jobs || !sn->running) {
		sim_nodes_destroy(sn);
		return NULL;
	}
	return sn;
}

void sim_nodes_destroy(struct sim_nodes *sn)
{
	if (!sn)
		return;
	for (size_t j = 0; sn->jobs && j < sn->njobs; j++)
		free(sn->jobs[j].idx);
	free(sn->jobs);
	free(sn->running);
	free(sn);
}

size_t sim_nodes_count(const struct sim_nodes *sn)
{
	return sn->nnodes;
}

uint32_t sim_nodes_cpus(const struct sim_nodes *sn)
{
	return sn->cpus;
}

const struct sched_topo *sim_nodes_topo(const struct sim_nodes *sn)
{
	return sn->place == SIM_PLACE_SWITCH ? sn->topo : NULL;
}

int sim_nodes_take(struct sim_nodes *sn, uint64_t ref, const struct sched_alloc *a,
                   int64_t end)
{
	struct sim_run *r;

	if (ref >= sn->njobs)
		return -EINVAL;
	r = &sn->jobs[ref];
	free(r->idx);
	r->idx = malloc(2 * (size_t)(a->nnodes + 1) * sizeof(*r->idx));
	if (!r->idx)
		return -ENOMEM;
	r->n = a->nnodes;
	memcpy(r->idx, a->node_idx, a->nnodes * sizeof(*r->idx));
	memcpy(r->idx + a->nnodes, a->cpus, a->nnodes * sizeof(*r->idx));
	r->end = end;
	r->pos = sn->nrunning;
	sn->running[sn->nrunning++] = ref;
	if (a->nnodes > 1) {
		sn->multi_jobs++;
		sn->multi_leaves += sched_topo_leaves(sn->topo, a);
	}
	return 0;
}

void sim_nodes_end(struct sim_nodes *sn, uint64_t ref)
{
	struct sim_run *r = ref < sn->njobs ? &sn->jobs[ref] : NULL;
	uint64_t last;

	if (!r || !r->idx)
		return;
	last = sn->running[--sn->nrunning];
	sn->running[r->pos] = last;
	sn->jobs[last].pos = r->pos;
	free(r->idx);
	r->idx = NULL;
	r->n = 0;
}

void sim_nodes_extend(struct sim_nodes *sn, uint64_t ref, int64_t end)
{
	if (ref < sn->njobs && sn->jobs[ref].idx)
		sn->jobs[ref].end = end;
}

size_t sim_nodes_snapshot(const struct sim_nodes *sn, struct sched_node *nodes,
                          struct sched_hold *holds)
{
	size_t nh = 0;

	for (size_t i = 0; i < sn->nnodes; i++)
		nodes[i] = (struct sched_node){.cpus = sn->cpus, .usable = 1};
	for (size_t k = 0; k < sn->nrunning; k++) {
		const struct sim_run *r = &sn->jobs[sn->running[k]];
		for (uint32_t j = 0; j < r->n; j++) {
			nodes[r->idx[j]].alloc_cpus += r->idx[r->n + j];
			holds[nh++] = (struct sched_hold){
			    .node = r->idx[j], .end = r->end, .cpus = r->idx[r->n + j]};
		}
	}
	return nh;
}

void sim_nodes_stats(const struct sim_nodes *sn, uint64_t *ret_jobs, uint64_t *ret_leaves)
{
	*ret_jobs = sn->multi_jobs;
	*ret_leaves = sn->multi_leaves;
}
