/* jobopt_table.h - the table of sbatch, srun and salloc options, internal to
 * jobopt*.c and tools/job_doc.c.
 *
 * DESIGN: one row per option and command set: what getopt needs (name,
 * argument kind, id), which commands take it, and what --help and
 * doc/compat.md say about it (section, argument name, one line of text,
 * status).  jobopt.c parses from it, jobopt_help.c prints --help and the
 * Markdown table from it; nothing else lists the options.
 */
#ifndef ROTA_CLI_JOBOPT_TABLE_H
#define ROTA_CLI_JOBOPT_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include "cli/jobopt.h"

/* Option ids: the short letter when there is one, else one of these. */
enum {
	O_WRAP = JOBOPT_ID_WRAP,
	O_COMMENT,
	O_EXCLUSIVE,
	O_EXPORT,
	O_MEM,
	O_MEM_PER_CPU,
	O_NICE,
	O_NTASKS_PER_NODE,
	O_OPEN_MODE,
	O_PARSABLE,
	O_REQUEUE,
	O_NO_REQUEUE,
	O_USAGE,
	O_OVERLAP,
	O_EXACT,
	O_MULTI_PROG,
	O_MPI,
	O_CPU_BIND,
	O_PTY,
	O_JOBID,
	O_QUIT_ON_INTR,
	O_NO_SHELL,
	O_TIME_MIN,
	O_DEADLINE,
	O_SPREAD_JOB,
	O_REBOOT,
	O_CONTIGUOUS,
	O_SIGNAL,
	O_GET_USER_ENV,
	O_MINCPUS,
	O_TMP,
	O_GRES,
	O_GRES_FLAGS,
	O_SWITCHES,
	O_SOCKETS_PER_NODE,
	O_CORES_PER_SOCKET,
	O_THREADS_PER_CORE,
	O_NTASKS_PER_CORE,
	O_NTASKS_PER_SOCKET,
	O_HINT,
	O_PROPAGATE,
	O_USE_MIN_NODES,
	O_PREFER,
	O_BATCH, /* sbatch --batch: features of the batch host */
	O_BELL,
	O_NO_BELL,
	O_NTASKS_PER_GPU,
	O_IGNORE_PBS,
	O_MEM_BIND,
	O_CPU_FREQ,
	O_GPUS_PER_NODE,
	O_GPUS_PER_TASK,
	O_GPUS_PER_SOCKET,
	O_CPUS_PER_GPU,
	O_MEM_PER_GPU,
	O_GPU_BIND,
	O_ACCTG_FREQ,
	O_CTR_IMAGE,
	O_CTR_BUNDLE,
	O_CTR_MOUNTS,
	O_CTR_WORKDIR,
	O_CTR_ENV,
	O_CTR_NAME,
	O_CTR_REMAP_ROOT,
	O_CTR_NO_REMAP_ROOT,
	O_CTR_MOUNT_HOME,
	O_CTR_NO_MOUNT_HOME,
	O_RESERVATION,
	O_KILL_INV_DEP,
	O_MAIL_TYPE,
	O_MAIL_USER,
	O_PRIORITY,
	O_HET_GROUP,
	O_EXPORT_FILE,
	O_UID,
	O_GID,
	O_ACCEL_BIND,
	O_PROLOG,
	O_EPILOG,
	O_TASK_PROLOG,
	O_TASK_EPILOG,
	O_SLURMD_DEBUG,
	O_RESV_PORTS,
	O_BCAST,
	O_BCAST_EXCLUDE,
	O_COMPRESS,
	O_SEND_LIBS,
	O_BB, /* refused: a plugin Rota has not (jobopt.c says which) */
	O_BBF,
	O_MCS_LABEL,
	O_POWER,
	O_X11,
	O_TEST_ONLY,
	O_DEBUGGER_TEST,
	O_WAIT4SWITCH, /* SBATCH_WAIT4SWITCH etc.: --switches' @time alone */
	O_THREAD_SPEC, /* no effect, but not with -S (jobopt.c) */
	O_IGNORE,      /* accepted and ignored */
};

/* --help's sections, in Slurm's order (Rota's containers after GPU). */
enum jobopt_section {
	SEC_RUN,
	SEC_CONSTRAINT,
	SEC_CONSUMABLE,
	SEC_AFFINITY,
	SEC_GPU,
	SEC_CONTAINER,
	SEC_HELP,
	SEC_OTHER,
	SEC_COUNT
};

enum jobopt_status {
	ST_OK,      /* honoured */
	ST_NOEFF,   /* accepted, no effect (getopt's id is replaced by O_IGNORE) */
	ST_REFUSED, /* accepted by getopt, then refused with an error */
};

struct opt_def {
	const char *name;
	int has_arg; /* no_argument, required_argument, optional_argument */
	int id;
	unsigned cmds; /* enum jobopt_cmd bits */
	enum jobopt_section section;
	const char *arg;  /* what --help shows after '=' (NULL: no argument) */
	const char *help; /* one line */
	enum jobopt_status status;
};

extern const struct opt_def jobopt_table[];
extern const size_t jobopt_table_len;

/* --usage of cmd (Slurm's brief "Usage: sbatch [-N nnodes] ..." block). */
void jobopt_usage_print(enum jobopt_cmd cmd, FILE *out);

/* --help of cmd, grouped by section, to out. */
void jobopt_help_print(enum jobopt_cmd cmd, FILE *out);

/* The option table as a Markdown section (heading, table) to out. */
void jobopt_help_markdown(FILE *out);

#endif
