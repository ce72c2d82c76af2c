/* sim_history.h - `rota sim --from-journal` / `--from-accounting`: this
 * cluster's own finished jobs, read offline from a controller's state
 * directory or asked of rotadbd, as a workload to replay.
 *
 * DESIGN: the journal (STATE_DIR/journal) is read as rotadbd reads it:
 * recframe records decoded by the events' codec (ctld/job_event_codec.c), no
 * controller started, nothing written.  A job is kept when its SUBMIT, a
 * START and an END are all there; a requeued job keeps its last run, eligible
 * from the requeue; a job submitted or put on hold is eligible from its
 * release; an update of a pending job's time limit, partition or account is
 * applied.  Dependencies are not looked at (no event says when one is met).  A
 * compaction replaces the events of finished jobs with a snapshot of the
 * live ones, so the history reaches back to the last compaction only.
 */
#ifndef ROTA_CLI_SIM_HISTORY_H
#define ROTA_CLI_SIM_HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rota_error;

#define SIM_HISTORY_MAX_JOBS 10000000 /* a longer history is refused */

/* Job `id`, or task `task` of array `id` */
#define SIM_HISTORY_ORDER(id, task) ((int64_t)(id) << 32 | (int64_t)(task))

struct sim_hjob {
	uint32_t id;
	/* the queue order among jobs of one submit time: an array's tasks in
	 * task order after the array's id (the last task keeps the array's
	 * own id, the others get new ones); SIM_HISTORY_ORDER() */
	int64_t order;
	int64_t submit; /* the submit time, or the eligible time when later */
	int64_t start, end;
	uint32_t cpus;   /* allocated in all */
	uint32_t nodes;  /* allocated */
	int64_t limit;   /* time limit, seconds; 0: none (unlimited or unset) */
	char *user;      /* owned; never NULL ("?" when unknown) */
	char *account;   /* owned; never NULL ("" when none) */
	char *partition; /* owned; NULL: the cluster's default partition */
	/* the request, from the journal's submit event; accounting gives the
	 * features only (its ReqMem is what the job got, not what it asked) */
	char *features;        /* -C as given; owned; NULL: none */
	uint64_t mem_per_node; /* --mem, MB; 0: not given */
	uint64_t mem_per_cpu;  /* --mem-per-cpu, MB; 0: not given */
	int exclusive;         /* --exclusive */
};

struct sim_history {
	struct sim_hjob *jobs; /* in id order */
	size_t n, cap;
	size_t unfinished; /* submitted but not started or not ended: left out */
};

/* Read STATE_DIR/journal into *h (zeroed by the caller; released with
 * sim_history_release also on failure).  0, or -1 with err filled. */
int sim_history_from_journal(const char *state_dir, struct sim_history *h,
                             struct rota_error *err);

/* The same from rotadbd (sim_history_acct.c): the jobs sacct -X -S start
 * -E end lists (0: no bound), the cluster's own accounting (its slurm.conf,
 * as the commands find it).  Earlier runs of a requeued job are left out.
 * 0, or 1 after an error was printed. */
int sim_history_from_accounting(int64_t start, int64_t end, struct sim_history *h);

void sim_history_release(struct sim_history *h);

/* Write h as a Standard Workload Format trace.  Jobs are numbered 1, 2, ...
 * in queue order (their job ids in "; JobIds:" header lines); field 3 is the
 * real wait, 4 the real runtime, 5 and 8 the CPUs, 9 the time limit (-1
 * none), 12 the user, 13 the account, 16 the partition, these three numbered
 * 1, 2, ... in order of first appearance with header comments mapping the
 * numbers back to names.  Submit times count from the first submission
 * (UnixStartTime header); max_procs (the cluster's CPUs; 0: unknown, no
 * header) is MaxProcs.  0, or -EIO when writing failed. */
int sim_history_write_swf(const struct sim_history *h, int64_t max_procs, FILE *f);

#endif
