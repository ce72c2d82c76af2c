/* backfill.h - node-level planning for backfill: when and where can a pending
 * job start without delaying any job planned before it.
 *
 * A bf_plan holds, for every node, the resources (CPUs, memory) in use over
 * time: running jobs until their expected end, and reservations of pending
 * jobs planned by this pass.  The driver walks pending jobs in priority order;
 * for each one bf_plan_earliest() finds the earliest start within the horizon
 * at which sched_select() can place it on resources free during all of its
 * estimated runtime.  A start at `now` is started by the driver; a later one
 * becomes a reservation (bf_plan_hold_alloc) so that lower-priority jobs can
 * only use what it does not need.  This is Slurm's sched/backfill model
 * (conservative backfill over the jobs it tests), with select/cons_tres
 * placement.
 *
 * DESIGN: per node a short array of (start, end, cpus, mem, GRES) holds; per
 * partition-like node group two aggregate profiles (plan.h), CPUs in use and
 * nodes with anything in use, that prove quickly that no start before some
 * time is possible (the second for jobs that need whole nodes), so the
 * node-level test runs at a few candidate times only.  Candidate times are `now` and the
 * ends of holds; ends are rounded up to `resolution` (bf_resolution) so that nearby ends
 * share one candidate.  Memory peaks and CPU peaks within a window are taken separately
 * (conservative).
 *
 * Pure: no I/O, no clock; times are seconds, now is an argument.
 */
#ifndef ROTA_SCHED_BACKFILL_H
#define ROTA_SCHED_BACKFILL_H

#include <stddef.h>
#include <stdint.h>
#include "sched/select.h"

#define BF_FOREVER INT64_MAX

struct bf_plan;

/* A plan over n nodes whose capacity (cpus, mem) is taken from nodes[]; the
 * alloc_* fields are ignored: describe what is in use with bf_plan_hold().
 * resolution >= 1.  NULL on -ENOMEM.  Caller frees with bf_plan_destroy(). */
struct bf_plan *bf_plan_create(const struct sched_node *nodes, size_t n, int64_t now,
                               int64_t resolution);
void bf_plan_destroy(struct bf_plan *bp); /* NULL is fine */

/* A node group (a partition): the aggregate profile of its nodes' CPUs, used to
 * skip impossible start times.  members[0..count) are node indexes.  Returns
 * the group id (>= 0) or -ENOMEM. */
int bf_plan_add_group(struct bf_plan *bp, const uint32_t *members, size_t count);

/* cpus and mem of node `node` are in use over [start, end) (end may be
 * BF_FOREVER; start < now is taken as now).  0, -EINVAL or -ENOMEM. */
int bf_plan_hold(struct bf_plan *bp, uint32_t node, int64_t start, int64_t end,
                 uint32_t cpus, uint64_t mem);

/* The same with GRES: gres[SCHED_GRES_KINDS] of each kind (NULL: none). */
int bf_plan_hold_gres(struct bf_plan *bp, uint32_t node, int64_t start, int64_t end,
                      uint32_t cpus, uint64_t mem, const uint32_t *gres);

/* The same for every node of an allocation (with a->gres when set). */
int bf_plan_hold_alloc(struct bf_plan *bp, const struct sched_alloc *a, int64_t start,
                       int64_t end);

/* How many holds node has; bf_plan_unhold() drops those made after it had
 * count (the latest first): a tentative placement undone.  Their ends stay
 * candidate start times.  0, -EINVAL or -ENOMEM. */
uint32_t bf_plan_node_holds(const struct bf_plan *bp, uint32_t node);
int bf_plan_unhold(struct bf_plan *bp, uint32_t node, uint32_t count);

/* Earliest start s in [now, horizon] such that req can be placed by
 * sched_select() on resources free during [s, s + dur) (dur >= 1, or
 * BF_FOREVER).  mask[0..n) gives usable/required (and any other per-node
 * selection fields) for this job; its capacity and alloc fields are ignored.
 * group is the id of a group holding every usable node, or -1.
 * Returns 0 with *ret_start and out filled (out's arrays hold n entries),
 * -EAGAIN (no such start by the horizon) or -EINVAL (it never fits). */
int bf_plan_earliest(struct bf_plan *bp, const struct sched_node *mask, int group,
                     const struct sched_req *req, int64_t dur, int64_t horizon,
                     struct sched_alloc *out, int64_t *ret_start);

/* The same, as a query, starting the search at `from` (>= now; a caller that
 * knows no earlier start can work, e.g. for a job shaped like one already
 * planned in this pass, saves the tests before it). */
struct bf_query {
	const struct sched_node *mask;
	int group;
	const struct sched_req *req;
	int64_t dur;
	int64_t from;
	int64_t horizon;
};
int bf_plan_earliest_q(struct bf_plan *bp, const struct bf_query *q,
                       struct sched_alloc *out, int64_t *ret_start);

/* Place jobs under topology t (borrowed; NULL: none, the default). */
struct sched_topo;
void bf_plan_set_topo(struct bf_plan *bp, const struct sched_topo *t);

/* Node-level tests made so far (for benchmarks and tests). */
uint64_t bf_plan_probes(const struct bf_plan *bp);

#endif
