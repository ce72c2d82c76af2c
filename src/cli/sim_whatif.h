/* sim_whatif.h - `rota sim --from-journal`: replay this cluster's own
 * history (sim_history.h) under a slurm.conf and say what would have
 * changed: per partition and per account the jobs, mean wait, mean bounded
 * slowdown and utilization, real and replayed, and the jobs that would have
 * started earlier or later than they did.
 *
 * DESIGN: the scheduler is rotactld's own pass and backfill
 * (POLICY_CONTROLLER, sched/replay.h) planning with the jobs' time limits, in
 * (eligible time, job id) order, an array's tasks in task order.
 * Partitions that share nodes form one pool (the CPUs of all their nodes); a
 * pool is replayed on its own, so disjoint partitions are modelled exactly
 * and overlapping ones as their union.  A
 * job runs for as long as it really ran, on as many CPUs as it really got.
 * Jobs of a partition the configuration lacks, or larger than its pool, are
 * left out and counted.
 */
#ifndef ROTA_CLI_SIM_WHATIF_H
#define ROTA_CLI_SIM_WHATIF_H

#include <stddef.h>
#include <stdint.h>

struct conf;
struct sim_history;

struct sim_whatif_opts {
	const char *source;    /* for the report: "journal DIR" */
	const char *conf_path; /* for the report */
	int json;
	size_t top;        /* moved jobs listed, largest moves first */
	int64_t tolerance; /* a move of at most this many seconds is none */
};

/* Replay h (its partitions resolved: none NULL) on conf (borrowed) and print
 * the report on stdout.  0, or 1 after an error was printed. */
int sim_whatif_run(const struct sim_whatif_opts *o, const struct sim_history *h,
                   const struct conf *conf);

#endif
