/* pass.h - the main scheduling pass: pending jobs in priority order, each
 * started where it fits now; the first that does not fit blocks its
 * partition (the jobs after it there wait for priority) and keeps its nodes
 * from the jobs of other partitions, which go on; one that names all the
 * nodes it needs keeps only those.  What Slurm's main scheduler does; with
 * backfill, the jobs still waiting are then planned over time (bf_run.h).
 *
 * Pure (view.h): the driver answers for the jobs; the pass decides.
 */
#ifndef ROTA_SCHED_PASS_H
#define ROTA_SCHED_PASS_H

#include <stddef.h>
#include "sched/view.h"

struct sched_pass_opts {
	size_t depth; /* consider at most this many jobs */
	int full;     /* go on when every partition is blocked (to set reasons) */
};

/* Place jobs 0..n-1 in order in s (whose blocked[] is cleared first).  Returns
 * the number of jobs considered. */
size_t sched_main_pass(struct sched_snap *s, const struct sched_ops *ops, void *ctx,
                       size_t n, const struct sched_pass_opts *o);

#endif
