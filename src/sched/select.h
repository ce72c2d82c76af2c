/* select.h - resource selection: which nodes, how many CPUs and tasks on each.
 *
 * A pure function over a snapshot of node capacity (no I/O, no clock), so the
 * controller and `rota sim` run the same code.  Semantics follow select/cons_tres
 * with CR_Core_Memory: CPUs and memory are consumable, several jobs share a node,
 * an exclusive job needs an idle node.  Nodes are taken lowest weight first,
 * then in index order.  A job that may oversubscribe (share > 1) sees the CPUs
 * not held by non-sharing jobs, share times over, but never more than the node
 * has on one node; memory is never oversubscribed.
 */
#ifndef ROTA_SCHED_SELECT_H
#define ROTA_SCHED_SELECT_H

#include <stddef.h>
#include <stdint.h>

struct sched_node {
	uint32_t cpus;       /* usable CPUs */
	uint32_t alloc_cpus; /* already allocated */
	uint64_t mem;        /* MB */
	uint64_t alloc_mem;
	int usable;           /* up, not drained, in the partition, not excluded */
	int required;         /* named in --nodelist */
	uint32_t weight;      /* Weight=: lower is allocated first, ties by index */
	uint32_t shared_cpus; /* part of alloc_cpus held by jobs that share cores */
};

#define SCHED_UNSET 0xfffffffeu

struct sched_req {
	uint32_t min_nodes;       /* >= 1 */
	uint32_t max_nodes;       /* SCHED_UNSET = min_nodes or as many as needed */
	uint32_t num_tasks;       /* SCHED_UNSET: one per node (or per ntasks_per_node) */
	uint32_t ntasks_per_node; /* SCHED_UNSET if not given */
	uint32_t cpus_per_task;   /* >= 1 */
	uint64_t mem_per_node;    /* MB, 0 = not tracked */
	uint64_t mem_per_cpu;     /* MB, 0 = not tracked */
	int exclusive;
	uint32_t min_cpus; /* --mincpus: CPUs per node at least; 0 none */
	uint32_t share;    /* OverSubscribe: >1 may share cores with other sharing
	                    * jobs, up to share jobs per core; 0 or 1: no sharing */
};

/* Result for one node; caller provides arrays of n entries. */
struct sched_alloc {
	uint32_t nnodes;
	uint32_t ntasks;
	uint32_t *node_idx; /* [nnodes] indexes into the node array, ascending */
	uint32_t *cpus;     /* [nnodes] CPUs allocated on each */
	uint32_t *tasks;    /* [nnodes] tasks placed on each */
	uint64_t *mem;      /* [nnodes] MB allocated on each */
};

/* Try to place req on nodes[0..n).  out's arrays must hold n entries.
 * Returns 0 (placed), -EAGAIN (not now: resources busy) or -EINVAL (never, even
 * on idle nodes). */
int sched_select(const struct sched_node *nodes, size_t n, const struct sched_req *req,
                 struct sched_alloc *out);

#endif
