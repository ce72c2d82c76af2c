/* view.h - what a scheduling pass sees of a cluster, and what it hands back.
 *
 * The main pass (pass.h) and the backfill run (bf_run.h) are pure: they hold
 * no job records, read no clock and do no I/O.  A driver - rotactld
 * (src/ctld/sched_pass.c, backfill.c) or `rota sim` (policy.c) - gives them
 *
 *   - a snapshot of the nodes (struct sched_snap: capacity and what is
 *     allocated now) and the partitions as lists of node indexes;
 *   - the queue as indexes 0..n-1 in scheduling order, each job seen through
 *     the callbacks below: whether it may be considered, its request
 *     (struct sched_job) and which nodes it may use;
 *
 * and the passes answer through the same callbacks: start this job on these
 * nodes now, it waits (and why, in the pass's words), or it is planned to
 * start then on these nodes.  Everything a site's policy adds around a
 * pass - holds, dependencies, association and QOS limits, array throttles,
 * reasons in Slurm's words - is the driver's; what is placed where, in which
 * order, and what blocks what is the pass's, so the controller and the
 * simulator run the same decisions.
 */
#ifndef ROTA_SCHED_VIEW_H
#define ROTA_SCHED_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include "sched/select.h"

struct sched_topo;

/* A partition: the nodes it holds (indexes into the snapshot). */
struct sched_group {
	const uint32_t *members; /* borrowed */
	size_t count;
};

/* The nodes as the passes see them (driver fills nodes[] and parts[]). */
struct sched_snap {
	struct sched_node *nodes; /* [nnodes]: capacity, allocation, a job's mask */
	size_t nnodes;
	const struct sched_group *parts; /* [nparts], borrowed */
	size_t nparts;
	int mem_consumable;     /* allocations count memory */
	struct sched_alloc out; /* room for one allocation (nnodes entries) */
	uint8_t *blocked;       /* [nparts]: a higher-priority job waits there */
	/* main pass: the nodes a higher-priority job waits for, kept from the
	 * jobs after it: withheld[node] set for those in withheld_list[0..n) */
	uint8_t *withheld;
	uint32_t *withheld_list;
	uint8_t *withheld_was; /* [k]: withheld_list[k]'s usable, while masked */
	size_t nwithheld;
	const struct sched_topo *topo; /* switches (topo.h), borrowed; NULL none */
};

/* One attempt to place a job (or the next task of an array). */
struct sched_job {
	uint32_t part; /* index into parts */
	struct sched_req req;
	int64_t dur;  /* expected run time in seconds, or BF_FOREVER (backfill) */
	size_t nalts; /* >= 1: node masks the job may take (--constraint [a|b]) */
};

/* What admit/next callbacks answer. */
enum sched_verdict {
	SCHED_TRY = 0,  /* place it now */
	SCHED_SKIP = 1, /* not in this pass; the driver has said why */
	SCHED_HELD = 2, /* backfill: tested, but a limit holds it (counts as tested) */
};

/* Why the main pass leaves a job waiting. */
enum sched_wait {
	SCHED_WAIT_PRIORITY,  /* a job before it waits in its partition */
	SCHED_WAIT_RESOURCES, /* it does not fit now */
};

/* start() answers: SCHED_STARTED, SCHED_MORE (started, and the job has more
 * to start: an array's next task), or a negative error (it did not start). */
#define SCHED_STARTED 0
#define SCHED_MORE    1

/* The driver's side.  i is the job's index in the queue the pass was given;
 * ctx is the driver's.  A callback a pass does not use may be NULL. */
struct sched_ops {
	/* Main pass: may job i be considered at all (holds, begin time,
	 * dependencies, partition state, limits)?  Asked once per pass, before
	 * the partition block: SCHED_SKIP jobs block nobody.  Sets *ret_part
	 * to the job's partition (index into parts) on SCHED_TRY, or to
	 * nparts for a job that blocks nobody and may use nodes withheld
	 * for others (it runs in a reservation). */
	int (*admit)(void *ctx, size_t i, uint32_t *ret_part);
	/* Before each attempt to place job i (an array has several): fill *job
	 * and answer SCHED_TRY, or SCHED_SKIP (or SCHED_HELD in a backfill run)
	 * with the job's reason set. */
	int (*next)(void *ctx, size_t i, struct sched_job *job);
	/* Set usable and required in nodes[] for job i's alternative alt. */
	void (*mark)(void *ctx, size_t i, size_t alt, struct sched_node *nodes);
	/* Start job i now on a (borrowed); the pass then counts a's resources
	 * as allocated in its snapshot. */
	int (*start)(void *ctx, size_t i, const struct sched_alloc *a);
	/* Main pass: job i waits (job: its request; NULL for
	 * SCHED_WAIT_PRIORITY). */
	void (*wait)(void *ctx, size_t i, enum sched_wait why,
	             const struct sched_job *job);
	/* Backfill: job i is planned to start at `start` on a (borrowed). */
	void (*plan)(void *ctx, size_t i, int64_t start, const struct sched_alloc *a);
	/* Backfill: job i has no planned start. */
	void (*unplan)(void *ctx, size_t i);
	/* Backfill, at a rebuild: does job i still wait for its reservation
	 * (not started, cancelled or held since)? */
	int (*keep)(void *ctx, size_t i);
	/* Backfill, a job of components that start together (a heterogeneous
	 * job; next() gave the first): fill *job for component k of job i and
	 * answer SCHED_TRY, mark() and plan() then being about it; SCHED_SKIP
	 * when there is no component k.  NULL: no job has components. */
	int (*part)(void *ctx, size_t i, size_t k, struct sched_job *job);
	/* Backfill: start job i's n components now, component k on a[k], all
	 * or none: SCHED_STARTED or a negative error. */
	int (*start_parts)(void *ctx, size_t i, const struct sched_alloc *a, size_t n);
};

/* A snapshot of nnodes nodes and nparts partitions, all zero: the driver
 * fills nodes[] (capacity and allocation) and sets parts.  0 or -ENOMEM. */
int sched_snap_init(struct sched_snap *s, size_t nnodes, size_t nparts);
void sched_snap_release(struct sched_snap *s);

/* Count allocation a as taken in the snapshot (share > 1: by a job that
 * shares its cores). */
void sched_snap_take(struct sched_snap *s, const struct sched_alloc *a, uint32_t share);
/* Give back what sched_snap_take took (a tentative placement undone). */
void sched_snap_give(struct sched_snap *s, const struct sched_alloc *a, uint32_t share);

/* A job of partition part waits in the main pass: the jobs after it in that
 * partition wait for it, and no job after it (of any partition) takes the
 * partition's nodes in this pass, as in Slurm's main scheduler. */
void sched_snap_block(struct sched_snap *s, uint32_t part);
/* Make the withheld nodes unusable in s->nodes (after a mark callback), and
 * give them back their marks (before the next). */
void sched_snap_mask(struct sched_snap *s);
void sched_snap_unmask(struct sched_snap *s);

#endif
