/* jobfmt.h - Slurm's job formats that the node side prints: compressed counts
 * ("2(x3),1"), block task layout, and output filename patterns ("slurm-%j.out").
 * Pure functions: no I/O, no logging. */
#ifndef ROTA_JOBFMT_H
#define ROTA_JOBFMT_H

#include <stddef.h>
#include <stdint.h>

/* Longest pattern / filename we expand (bytes). */
#define JOBFMT_NAME_MAX 4096

/* Compress counts as Slurm prints SLURM_TASKS_PER_NODE / SLURM_JOB_CPUS_PER_NODE:
 * {2,2,2,1} -> "2(x3),1", {4} -> "4", {} -> "".  Caller frees; NULL on ENOMEM. */
char *jobfmt_counts(const uint32_t *v, size_t n);

/* Slurm's block layout: how many of ntasks go to each of n nodes when node i can
 * hold cap[i] tasks (its cpus / cpus-per-task).  Every node gets one task first
 * when ntasks >= n; counts then grow round by round up to each node's capacity,
 * and past it evenly once all nodes are full.  out[0..n) is overwritten.
 * Returns 0, or -EINVAL when n is 0. */
int jobfmt_spread_tasks(uint32_t ntasks, const uint32_t *cap, size_t n, uint32_t *out);

/* Fill out[0..n) with each node's cpus from a per-node vector v[0..vn): v[i]
 * where given, v[0] for every node when vn is 1, else 1. */
void jobfmt_node_cpus(const uint32_t *v, size_t vn, uint32_t *out, size_t n);

/* A job's task request; each field 0 or NO_VAL (0xfffffffe) when not given. */
struct jobfmt_tasks {
	uint32_t num_tasks;       /* -n */
	uint32_t ntasks_per_node; /* --ntasks-per-node */
	uint32_t cpus_per_task;   /* -c */
};

/* SLURM_TASKS_PER_NODE as Slurm computes it for a job: -n tasks (or
 * ntasks-per-node * nodes, or one task per cpus-per-task of each node's cpus,
 * at least one a node) in block layout over cpus[0..n), compressed as
 * jobfmt_counts() does.  Caller frees; NULL on ENOMEM or when n is 0. */
char *jobfmt_tasks_per_node(const struct jobfmt_tasks *t, const uint32_t *cpus, size_t n);

/* What a filename pattern may refer to.  Strings borrowed; NULL prints "". */
struct jobfmt_ids {
	uint32_t job_id;
	uint32_t step_id;       /* STEP_BATCH prints "batch" for %s */
	uint32_t array_job_id;  /* 0: not an array, %A prints job_id */
	uint32_t array_task_id; /* NO_VAL when not an array (%a prints 4294967294) */
	uint32_t node_index;    /* %n: node index in the step (0 for batch) */
	uint32_t task_id;       /* %t: global task id */
	const char *job_name;   /* %x */
	const char *user;       /* %u */
	const char *node_name;  /* %N */
};

/* Expand a Slurm output pattern: %j %J %s %A %a %n %t %u %x %N %%, with an
 * optional width between % and the letter that zero-pads numbers ("%5j";
 * capped at 10).  A pattern holding a backslash is taken literally, minus the
 * backslashes, as in Slurm.  Unknown %X are copied as they are.
 * Returns 0 and sets *ret (caller frees), -ENAMETOOLONG past JOBFMT_NAME_MAX,
 * or -ENOMEM. */
int jobfmt_filename(const char *pattern, const struct jobfmt_ids *ids, char **ret);

#endif
