/* sim_whatif_nodes.h - the what-if replay's engine (sim_whatif.h): a
 * history's jobs through rotactld's main pass (sched/pass.h) and backfill
 * run (sched/bf_run.h) on the configured nodes, in virtual time.
 *
 * DESIGN: the cluster is one snapshot of real nodes (CPUs, memory, weight)
 * and its partitions are lists of those nodes, so partitions that share
 * nodes compete for them as they do in rotactld.  Events are submissions
 * and completions; at each instant the completions free their nodes, the
 * submissions join the queue, and the main pass runs over the whole queue
 * in priority order (priority.h at that instant; partition PriorityTier
 * first).  The backfill run follows when bf_interval seconds have passed
 * since the last one and something changed since (a submission or a
 * completion: otherwise it would find what the last one found), also at an
 * instant with no event, as rotactld's one-second timer does.  A job asks
 * for its CPUs as one-CPU tasks on exactly its node count (any count when
 * 0), on the nodes of its partition its features allow, with its memory and
 * exclusivity, and runs for its real runtime; the passes plan with its time
 * limit (or bf_estimate's estimate).  Under sched_order=saf_aged the queue is
 * in PriorityTier then policy_saf_aged_key order, as rotactld's.  Fairshare
 * and QOS are not modelled.  Pure: no I/O, no clock.
 */
#ifndef ROTA_CLI_SIM_WHATIF_NODES_H
#define ROTA_CLI_SIM_WHATIF_NODES_H

#include <stddef.h>
#include <stdint.h>
#include "sched/predict.h"
#include "sched/priority.h"
#include "sched/view.h"

struct wn_job {
	uint32_t id;           /* the priority's job id (priority/basic: FIFO) */
	int64_t order;         /* ties of equal priority and submit time */
	int64_t submit;        /* eligible from */
	int64_t run;           /* real runtime, >= 1 */
	int64_t limit;         /* what the passes plan with; 0: none */
	uint32_t part;         /* index into wn_cluster.parts */
	uint32_t cpus;         /* >= 1 */
	uint32_t nodes;        /* 0: as many as the CPUs need */
	const uint8_t *mask;   /* [nnodes]: nodes its features allow (borrowed);
	                        * NULL: all */
	uint64_t mem_per_node; /* MB; 0: none */
	uint64_t mem_per_cpu;  /* MB; 0: none */
	int exclusive;
	int64_t user;  /* for bf_estimate=predict; < 0: unknown */
	int64_t start; /* out: replayed start, or -1: never started */
};

struct wn_cluster {
	const struct sched_node *nodes; /* [nnodes] capacity (borrowed) */
	size_t nnodes;
	const struct sched_group *parts; /* [nparts] (borrowed) */
	size_t nparts;
	const uint32_t *part_factor; /* [nparts] PriorityJobFactor */
	const uint32_t *part_tier;   /* [nparts] PriorityTier */
	int mem_consumable;          /* jobs' memory is counted */
};

struct wn_opts {
	struct priority_params prio; /* type, weights, cluster size */
	int backfill;                /* SchedulerType=sched/backfill */
	uint32_t bf_interval;        /* seconds, >= 1 */
	uint32_t bf_max_job_test;
	int64_t bf_window;     /* seconds */
	int64_t bf_resolution; /* seconds */
	/* bf_estimate (enum bf_estimate, schedparams.h): predict plans with
	 * predict.h's PREDICT_USER_MEAN2 (the user's last two runtimes, capped
	 * by the limit, corrected by doubling when a job outlives it), learned
	 * with PREDICT_LEARNED (corrected to the limit), instead of the limit */
	int bf_predict;
	uint32_t part_reserve; /* bf_job_part_count_reserve; 0: every job */
	int saf_aged;          /* sched_order=saf_aged */
};

struct wn_stats {
	size_t passes, bf_runs;
};

/* Replay jobs[0..n) (borrowed; start filled in) on c.  0 or -ENOMEM. */
int wn_replay(const struct wn_cluster *c, const struct wn_opts *o, struct wn_job *jobs,
              size_t n, struct wn_stats *ret_stats);

#endif
