/* sim_whatif.h - `rota sim --from-journal`: replay this cluster's own
 * history (sim_history.h) under a slurm.conf and say what would have
 * changed: per partition and per account the jobs, mean wait, mean bounded
 * slowdown and utilization, real and replayed, and the jobs that would have
 * started earlier or later than they did.
 *
 * DESIGN: the scheduler is rotactld's own main pass and backfill run
 * (sched/pass.h, sched/bf_run.h) on the configured nodes, each with its CPUs
 * and weight, the partitions as their node lists, so partitions that share
 * nodes compete for them (sim_whatif_nodes.h: the engine).  The queue is in
 * the configuration's priority order: PriorityTier, then priority/basic
 * (eligible time, job id; an array's tasks in task order) or
 * priority/multifactor's age, job size and partition factors (no fairshare,
 * no QOS: the history does not carry them).  The backfill run comes every
 * bf_interval seconds (SchedulerParameters; bf_window, bf_resolution and
 * bf_max_job_test too), the main pass at every submission and completion.
 * A job asks for as many CPUs on as many nodes as it really got, runs for
 * as long as it really ran, and the passes plan with its time limit.
 * Where the journal gives them, the job's --constraint (on the nodes'
 * Features=), memory (where SelectTypeParameters counts it) and
 * --exclusive are honoured; accounting carries the constraint only.
 * bf_estimate=predict plans with the user's last runtimes in the replay
 * (predict.h).  GRES and --nodelist are not modelled.  Jobs of a partition
 * the configuration lacks, or that no node set of their partition can hold,
 * are left out and counted.
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
