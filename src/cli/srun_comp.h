/* srun_comp.h - srun's command line as components of one step.
 *
 * `srun [options] cmd` is one component.  In a heterogeneous job a step may
 * span several of its components (one MPI_COMM_WORLD): `srun optsA cmdA :
 * optsB cmdB` (component k of the line runs in component k of the job, or
 * the one its --het-group names) or `srun --het-group=0,2-3 cmd` (the same
 * options and command in each).  Each component's options are read over
 * that component's environment: SLURM_*_HET_GROUP_k in place of the
 * allocation's unsuffixed variables (srun --het-group=k, as Slurm).  A
 * component without a command takes the next one's (Slurm: `srun -n2 :
 * -n1 hostname`).  Outside an allocation, components make a heterogeneous
 * allocation first (as salloc's), then the step over all of it.
 */
#ifndef ROTA_CLI_SRUN_COMP_H
#define ROTA_CLI_SRUN_COMP_H

#include <stddef.h>
#include <stdint.h>
#include "cli/jobopt.h"

struct srun_comp {
	struct jobopt o; /* [0]'s I/O and signal options serve the whole step */
	char **cmd;      /* the command and its arguments (owned) */
	char **env;      /* the environment its options were read over (owned) */
	uint32_t group;  /* its component of the heterogeneous job */
};

struct srun_line {
	struct srun_comp *comp;
	size_t n;
	int het;         /* over several components (even one named by --het-group=k) */
	int one_job;     /* ... or parts of one job that is not heterogeneous, each
	                  * on nodes of its own (Slurm's heterogeneous steps) */
	uint32_t leader; /* the allocation's SLURM_JOB_ID as srun found it (a
	                  * heterogeneous job's leader), or NO_VAL */
};

/* Parse argv into line (jobopt_die / exit with Slurm's words on a bad
 * request).  environ becomes component 0's environment. */
void srun_line_parse(int argc, char **argv, struct srun_line *line);
void srun_line_release(struct srun_line *line);

/* Outside an allocation, after the heterogeneous one was granted: component
 * k's environment gains the allocation's (het_env: SLURM_*_HET_GROUP_n,
 * SLURM_HET_SIZE) and the leader's SLURM_JOB_ID. */
void srun_line_granted(struct srun_line *line, uint32_t leader, char *const *het_env);

/* Component k's job id in a heterogeneous allocation (its
 * SLURM_JOB_ID_HET_GROUP_n), or NO_VAL. */
uint32_t srun_comp_job_id(const struct srun_comp *c);

#endif
