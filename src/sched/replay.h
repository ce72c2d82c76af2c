/* replay.h - replay a workload through a scheduling policy in virtual time.
 *
 * The engine behind `rota sim`: jobs arrive at their submit times, run for their
 * actual runtimes once started, and the policy (policy.h) plans with the
 * estimates of a predictor (predict.h).  Events are submissions, completions and
 * corrections (a running job reached its estimate and still runs).  The
 * scheduler runs after every event, one at a time: at one instant, corrections
 * first, then the submissions in (submit time, id) order, then completions in
 * the order the jobs started (start time, then the order in which the pass
 * started them).  This is the reference simulator's (pyss) event order, and
 * what reproduces its EASY and EASY-SJBF figures for KTH-SP2 and CTC-SP2 (see
 * doc/sim-results.md): a pass between two completions may backfill a job onto
 * processors the head could have used after the second, so which completes
 * first matters; and a job whose estimate ends at an instant has left the plan
 * before the submissions' passes of that instant.  Deterministic.
 *
 * Pure: no I/O, no clock.
 */
#ifndef ROTA_SCHED_REPLAY_H
#define ROTA_SCHED_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include "sched/policy.h"
#include "sched/predict.h"

struct sched_topo;

struct rota_error;

struct replay_job {
	int64_t id;     /* unique; breaks ties between equal submit times */
	int64_t submit; /* >= 0 */
	int64_t run;    /* actual runtime, >= 1 */
	int64_t req;    /* requested time, >= 1 (may be < run: see predict_correct) */
	int64_t user;   /* for predictors; < 0 unknown */
	uint32_t procs; /* 1..replay_opts.procs */
	int64_t start;  /* out: simulated start time */
};

struct replay_opts {
	int64_t procs; /* machine size, >= 1 */
	enum policy_kind policy;
	enum predict_kind estimates;
	enum predict_correction correction;
	/* controller policy on nodes of node_cpus CPUs (procs / node_cpus of
	 * them) under topo (topo.h, borrowed); NULL: the pool as processors */
	const struct sched_topo *topo;
	uint32_t node_cpus;
	int topo_blind; /* place by index anyway (leaves still counted) */
	/* controller policy: SchedulerParameters bf_job_part_count_reserve and
	 * sched_order=saf_aged (0, 0: Slurm's) */
	uint32_t part_reserve;
	int saf_aged;
};

struct replay_stats {
	size_t jobs;
	double utilization; /* processor-seconds used / (procs * makespan) */
	double avg_wait;
	double avg_response; /* wait + run */
	double avg_bsld;     /* bounded slowdown, max(1, (wait + run) / max(run, 10)) */
	double max_wait;
	int64_t makespan;   /* last end - first submit */
	size_t corrections; /* estimates corrected upward */
	size_t passes;      /* scheduling passes */
	/* with a topology: jobs placed on more than one node, and the leaf
	 * switches they spanned in all */
	uint64_t multi_jobs, multi_leaves;
};

#define REPLAY_BSLD_BOUND 10

/* Replay jobs[0..n) (borrowed; each job's start is filled in).  Returns 0 and
 * *ret_stats, -EINVAL (with err: a job that breaks the rules above) or
 * -ENOMEM. */
int replay_run(const struct replay_opts *opts, struct replay_job *jobs, size_t n,
               struct replay_stats *ret_stats, struct rota_error *err);

#endif
