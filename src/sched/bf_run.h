/* bf_run.h - a backfill run: the jobs the main pass left waiting, planned
 * over time in priority order on the nodes (backfill.h), each at the earliest
 * start that delays no job tested before it.  A start now is started (a
 * backfilled job); a later one is a reservation, reported to the driver as
 * the job's planned start and nodes (squeue --start, StartTime=) and held so
 * that the jobs after it can only use what it does not need.  Slurm's
 * sched/backfill with select/cons_tres placement.
 *
 * A run may be driven in slices: bf_run_step() tests one job, and between
 * steps the driver may do other work and, when resources were freed or taken
 * meanwhile, bf_run_rebuild() the plan from the nodes and running jobs as they
 * are then plus the reservations this run has made so far (of the jobs that
 * still wait, ops->keep).  Pure (view.h): no clock, no I/O.
 */
#ifndef ROTA_SCHED_BF_RUN_H
#define ROTA_SCHED_BF_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "sched/view.h"

struct bf_run_params {
	int64_t window;        /* seconds after now searched for a start (>= 1) */
	int64_t resolution;    /* seconds: expected ends rounded up to it (>= 1) */
	uint32_t max_job_test; /* jobs (array tasks) tested at most */
	/* Slurm's bf_job_part_count_reserve: only the first part_reserve jobs
	 * of each partition that cannot start now get a reservation; the
	 * others start now where they delay none of those, or wait without a
	 * planned start.  0: every job tested gets one (the default).  1 is
	 * EASY backfilling. */
	uint32_t part_reserve;
	/* with part_reserve: the jobs past their partition's reservations are
	 * tried after all the others, shortest dur first (EASY-SJBF) */
	int shortest_first;
};

/* A running job's resources on one node, in use from now until end
 * (BF_FOREVER: no expected end). */
struct sched_hold {
	uint32_t node;
	int64_t end;
	uint32_t cpus;
	uint64_t mem;
	uint32_t gres[SCHED_GRES_KINDS];
	int64_t start; /* 0, or before now: held from now */
};

struct bf_run;

/* A run over queue entries 0..n-1 (the driver's indexes, priority order).
 * ops and ctx are borrowed for its life.  NULL on -ENOMEM. */
struct bf_run *bf_run_create(const struct bf_run_params *p, const struct sched_ops *ops,
                             void *ctx, size_t n);
void bf_run_destroy(struct bf_run *r); /* NULL is fine */

/* The plan at now: s's nodes (capacity) and partitions, running jobs'
 * holds[0..nholds), and the run's reservations of jobs still waiting.  s is
 * borrowed until the next rebuild or the run's end; the jobs the run starts
 * are counted in it.  0 or -ENOMEM (the run then tests nothing more). */
int bf_run_rebuild(struct bf_run *r, struct sched_snap *s, const struct sched_hold *holds,
                   size_t nholds, int64_t now);

/* Test the next job.  Returns 1 while jobs remain, 0 when the run is over. */
int bf_run_step(struct bf_run *r);

/* Whether the run tests another job (bf_max_job_test not yet reached, or
 * it is trying the jobs it kept for its end, already counted). */
int bf_run_may_test(const struct bf_run *r);

/* Jobs tested and started so far; node-level probes of the current plan. */
uint32_t bf_run_tested(const struct bf_run *r);
uint32_t bf_run_started(const struct bf_run *r);
uint64_t bf_run_probes(const struct bf_run *r);

#endif
