/* schedparams.h - SchedulerParameters=, parsed once into a struct.
 *
 * The keys Rota acts on, with Slurm's defaults; every other key is accepted
 * and ignored (Slurm has dozens; a slurm.conf written for Slurm must load).
 *
 *   bf_interval=S         seconds between backfill passes (30)
 *   bf_max_job_test=N     pending jobs a backfill pass tests (500)
 *   bf_resolution=S       time resolution of the backfill plan (60)
 *   bf_window=M           minutes ahead the plan looks (1440)
 *   bf_continue           accepted: a pass that yields always goes on
 *   default_queue_depth=N pending jobs a pass started by an event (submission,
 *                         completion) considers at most (100); the pass each
 *                         second considers them all
 *   bf_yield_interval=US  microseconds a backfill pass runs before it lets the
 *                         controller answer requests (Rota: 50000; Slurm's
 *                         default is 2 s, with a sleep Rota has no need of)
 *   kill_invalid_depend   cancel jobs whose dependency can never be satisfied
 *   whole_hetjob          scancel of a heterogeneous job's component (its
 *                         own id) cancels every component; without it, only
 *                         that one (a pending component: refused)
 *   enable_user_top       owners may `scontrol top` their jobs
 *   bf_job_part_count_reserve=N
 *                         only the first N jobs of each partition that cannot
 *                         start now get a reservation; later ones start now
 *                         where they delay none of those (0: all; 1: EASY)
 *   bf_estimate=requested|predict|learned|best
 *                         Rota's own: what backfill plans with, the requested
 *                         time (Slurm) or the mean of the user's last two
 *                         runtimes, or the learned model's estimate, capped by
 *                         the time limit and corrected when a job outlives it
 *                         (src/sched/predict.h).  best: the policy `rota sim
 *                         --policy best` replays, learned estimates with
 *                         sched_order=saf_aged and bf_job_part_count_reserve=1
 *                         unless those are given
 *   sched_order=priority|saf_aged
 *                         Rota's own: the order the passes start jobs in,
 *                         within a PriorityTier: by priority (Slurm), or
 *                         smallest estimated area (CPUs x estimate) first, a
 *                         job that has waited 5 days or whose slowdown so far
 *                         passes 500 before all others (src/sched/policy.h),
 *                         the backfill trying jobs past their partition's
 *                         reservations shortest estimate first.  squeue and
 *                         sprio still show the priority
 *   replicate_sync        Rota's own: with a backup controller following,
 *                         a submission or update is answered only once the
 *                         backup's journal holds it too (src/ctld/repl.h)
 *   journal_compact_mb=N  Rota's own: the journal is compacted once it is
 *                         larger than N MB and twice what it held after the
 *                         last compaction (64; 1 to 65536)
 */
#ifndef ROTA_COMMON_SCHEDPARAMS_H
#define ROTA_COMMON_SCHEDPARAMS_H

#include <stddef.h>
#include <stdint.h>

struct sched_params {
	uint32_t bf_interval;         /* seconds */
	uint32_t bf_max_job_test;     /* jobs */
	uint32_t bf_resolution;       /* seconds */
	uint32_t bf_window;           /* minutes */
	uint32_t bf_yield_interval;   /* microseconds */
	uint32_t default_queue_depth; /* jobs */
	uint32_t journal_compact_mb;
	uint32_t max_switch_wait; /* seconds a job waits for its --switches */
	int bf_continue;
	int bf_predict;           /* enum bf_estimate: bf_estimate=predict or learned */
	uint32_t bf_part_reserve; /* bf_job_part_count_reserve; 0: every job */
	int sched_order;          /* enum sched_order */
	int kill_invalid_depend;
	int enable_user_top;
	int replicate_sync;
	int whole_hetjob; /* cancel/hold/release of a component: the whole job */
	/* a batch job whose Prolog failed is requeued, not held as well */
	int nohold_on_prolog_fail;
};

/* SchedulerParameters bf_estimate: what the backfill plan takes for a job's
 * runtime.  "predict" (or "user-mean2"): the mean of the user's last two
 * runtimes; "learned" (or "best": the estimates `rota sim --policy best`
 * plans with): the on-line learned predictor with the requested-time correction
 * (src/sched/predict.h).  Anything else: the time limit. */
enum bf_estimate {
	BF_ESTIMATE_LIMIT,
	BF_ESTIMATE_PREDICT,
	BF_ESTIMATE_LEARNED,
};

enum sched_order {
	SCHED_ORDER_PRIORITY,
	SCHED_ORDER_SAF_AGED,
};

/* Fill *sp from a SchedulerParameters value (NULL = all defaults).  Values out
 * of range are clamped to Slurm's limits; a malformed number keeps the default.
 * Never fails. */
void sched_params_parse(const char *text, struct sched_params *sp);

/* The keys sched_params_parse acts on, its own list (slurm.conf's man page is
 * generated from it, common/conf_doc.h).  Borrowed, static; *ret_n is their
 * number. */
const char *const *sched_params_keys(size_t *ret_n);

#endif
