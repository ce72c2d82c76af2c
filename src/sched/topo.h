/* topo.h - switch-aware placement: the network as the passes see it, and
 * selection under it (topology/tree and topology/block).
 *
 * A driver describes the network as a tree of switches: per node its leaf
 * (a leaf switch, or a block), per switch its parent and level.  Blocks are
 * leaves too; their aggregates (BlockSizes) become the switches above them,
 * aligned groups of consecutive blocks, with one more over all of them.
 *
 * sched_select_topo() places a job as sched_select() does, then, when the
 * job needs more than one node, keeps it under one switch: the lowest-level
 * switch that can hold it (ties: the one with the fewest free nodes), and
 * under it the fewest leaves, best fit first - a leaf that holds all that is
 * still needed, the smallest such; else the largest - as Slurm's tree
 * plugin does.  Nodes in no leaf take single-node jobs only, and a job never
 * spans switches without a common switch above them.  Single-node jobs are
 * placed as without a topology.
 */
#ifndef ROTA_SCHED_TOPO_H
#define ROTA_SCHED_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include "sched/select.h"

struct topo_conf;

struct sched_topo {
	size_t nsw;
	int32_t *parent; /* [nsw]: switch above, -1 none */
	uint32_t *level; /* [nsw]: 0 for a leaf */
	size_t nnodes;
	int32_t *leaf; /* [nnodes]: the node's leaf switch, -1 none */
	size_t nconf;  /* switches 0..nconf) are topology.conf's, in its order */
	/* nodes in leaves, leaf by leaf in tree order (a switch's nodes are
	 * order[lo[s]..hi[s])), each leaf's by index */
	uint32_t *order; /* [nin] */
	size_t nin;
	uint32_t *lo, *hi; /* [nsw] */
	uint32_t *leaves;  /* [nleaves] leaf switches in tree order */
	size_t nleaves;
};

/* Build the view of tc over nodes 0..nnodes); find(name, arg) gives a node's
 * index or -1 (such names are counted in *ret_unknown, may be NULL).  Blocks
 * get their aggregates as switches above them.  Caller destroys. */
struct sched_topo *sched_topo_create(const struct topo_conf *tc, size_t nnodes,
                                     int (*find)(const char *name, void *arg), void *arg,
                                     size_t *ret_unknown);
void sched_topo_destroy(struct sched_topo *t); /* NULL allowed */

/* sched_select() under topology t (NULL: sched_select() itself).  With
 * req->switches > 0 a multi-node job takes at most that many leaves
 * (-EAGAIN when it cannot now).  Same returns as sched_select(). */
int sched_select_topo(const struct sched_node *nodes, size_t n,
                      const struct sched_req *req, const struct sched_topo *t,
                      struct sched_alloc *out);

/* How many leaves allocation a spans (nodes in none count one each). */
uint32_t sched_topo_leaves(const struct sched_topo *t, const struct sched_alloc *a);

#endif
