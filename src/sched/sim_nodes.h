/* sim_nodes.h - `rota sim --topology`: which nodes each running job holds.
 *
 * Without a topology the simulated controller sees the pool as processors
 * and any free ones will do (policy_controller.c).  With one, placement
 * matters, so the nodes a job got stay its own until it ends: this table
 * keeps them (per job: nodes, CPUs, estimated end) and gives each pass its
 * snapshot and holds.  It also counts the leaf switches of every multi-node
 * job it places: the fragmentation figure.  Pure.
 */
#ifndef ROTA_SCHED_SIM_NODES_H
#define ROTA_SCHED_SIM_NODES_H

#include <stddef.h>
#include <stdint.h>
#include "sched/bf_run.h"
#include "sched/select.h"

struct sched_topo;
struct sim_nodes;

enum sim_place {
	SIM_PLACE_SWITCH, /* by switch (topo.h) */
	SIM_PLACE_INDEX,  /* weight then index, as without a topology (the
	                   * leaves are still counted) */
};

/* nnodes nodes of cpus CPUs, jobs referred to as 0..njobs), under t
 * (borrowed).  NULL on -ENOMEM. */
struct sim_nodes *sim_nodes_create(size_t nnodes, uint32_t cpus, size_t njobs,
                                   const struct sched_topo *t, enum sim_place place);
void sim_nodes_destroy(struct sim_nodes *sn); /* NULL allowed */

size_t sim_nodes_count(const struct sim_nodes *sn);
uint32_t sim_nodes_cpus(const struct sim_nodes *sn);
/* The topology placement follows (NULL for SIM_PLACE_INDEX). */
const struct sched_topo *sim_nodes_topo(const struct sim_nodes *sn);

/* Job ref runs on a (copied) until end (estimated).  0 or -ENOMEM. */
int sim_nodes_take(struct sim_nodes *sn, uint64_t ref, const struct sched_alloc *a,
                   int64_t end);
void sim_nodes_end(struct sim_nodes *sn, uint64_t ref);
void sim_nodes_extend(struct sim_nodes *sn, uint64_t ref, int64_t end);

/* What runs: nodes[] (nnodes) get cpus and alloc_cpus; holds[] (room for
 * nnodes * cpus) one per node of each running job.  Returns the holds. */
size_t sim_nodes_snapshot(const struct sim_nodes *sn, struct sched_node *nodes,
                          struct sched_hold *holds);

/* Multi-node jobs placed so far and the leaf switches they spanned. */
void sim_nodes_stats(const struct sim_nodes *sn, uint64_t *ret_jobs,
                     uint64_t *ret_leaves);

#endif
