/* jobopt.h - the options sbatch, srun and salloc share, parsed into a job_desc.
 *
 * DESIGN: every option lives in one table in jobopt.c (long name, short letter,
 * argument kind, which commands take it) and every input environment variable
 * (SBATCH_PARTITION, SLURM_NTASKS, SALLOC_TIMELIMIT...) in a second one that
 * names the option it stands for.  Parsing is two steps so that sources can be
 * layered in Slurm's order (script directives < environment < command line):
 * jobopt_collect() runs getopt over one argument vector and only records
 * (option, value) pairs; jobopt_apply*() then applies sources in order, later
 * ones overriding.  Invalid values are reported as Slurm words them, even when
 * a later source would override them (as Slurm does).
 *
 * CLI code: on an error these functions print "PROG: error: ..." (Slurm's words)
 * and exit 1; --help, --usage and --version print and exit 0.
 */
#ifndef ROTA_CLI_JOBOPT_H
#define ROTA_CLI_JOBOPT_H

#include <stddef.h>
#include <stdint.h>
#include "proto/messages.h"

enum jobopt_cmd { JOBOPT_SBATCH = 1, JOBOPT_SRUN = 2, JOBOPT_SALLOC = 4 };

/* Exit statuses of parse errors.  Slurm 22.05 exits 255 where its code calls
 * exit(-1) (unknown options, malformed --time/--mem/-N...) and 1 elsewhere;
 * Rota exits 1 for both (callers test 0 < status < 128).  The two names keep
 * the distinction should it ever be wanted. */
#define JOBOPT_EXIT_FATAL cli_exit_error()
#define JOBOPT_EXIT_ERROR cli_exit_error()

/* job_desc.nice carries the --nice adjustment as a two's complement int32
 * ((uint32_t)-5 for --nice=-5), and 0 (no adjustment) when not given: unlike the
 * other numbers there is no NO_VAL, since NO_VAL would read as -2.  The range is
 * +/- JOBOPT_NICE_MAX, as in Slurm. */
#define JOBOPT_NICE_MAX 2147483645L

/* srun -i/-o/-e given as "all", "none" or a task number (not a file). */
#define JOBOPT_IO_ALL  (-1L)
#define JOBOPT_IO_NONE (-2L)

/* Where a value came from; a later source overrides an earlier one. */
enum jobopt_src {
	JOBOPT_SRC_NONE = 0,
	JOBOPT_SRC_SCRIPT,
	JOBOPT_SRC_ENV,
	JOBOPT_SRC_ARGV
};

struct jobopt {
	enum jobopt_cmd cmd;
	struct job_desc desc; /* what the controller gets; members owned */

	char *export_spec; /* --export as given; NULL: default (ALL) */
	char *acctg_freq;  /* --acctg-freq as given (checked), NULL: none */
	char *wrap;        /* sbatch --wrap */
	int verbose;       /* -v count */
	int quiet;         /* -Q */
	int parsable;      /* sbatch --parsable */
	int wait;          /* sbatch -W */
	int get_user_env;  /* sbatch --get-user-env given */
	char *export_file; /* sbatch --export-file as given */
	int test_only;     /* sbatch, srun --test-only: ask when, submit nothing */

	/* srun */
	uint32_t jobid;      /* --jobid or SLURM_JOB_ID; NO_VAL: none */
	uint32_t step_flags; /* STEP_F_* */
	char *cpu_bind;      /* --cpu-bind as given (checked) */
	char *mem_bind;      /* --mem-bind as given (checked; common/membind.h) */
	char *cpu_freq;      /* --cpu-freq as given (checked) */
	char *mpi; /* --mpi or SLURM_MPI_TYPE (none, pmi2, pmix); NULL: MpiDefault */
	/* -m (common/taskdist.h): the word, 0 when not given, and the spec as
	 * given (sbatch and salloc pass it to their steps as SLURM_DISTRIBUTION) */
	uint32_t task_dist;
	char *dist_spec;
	char *task_hosts; /* -m arbitrary: each task's node, "a,b,a" (srun sends it) */
	long in_task, out_task, err_task; /* JOBOPT_IO_ALL, _NONE or a task; default:
	                                     ALL for -o/-e, task 0 for -i */
	int disable_status;               /* -X */
	int quit_on_interrupt;            /* --quit-on-interrupt */
	uint32_t wait_secs;               /* -W N; NO_VAL unset (0: wait forever) */
	uint32_t immediate; /* -I[N]: give up an allocation not granted in N s; 0 off */
	int kill_bad_exit;  /* -K: 1, -K0: 0, not given: -1 */
	uint32_t relative;  /* -r N; NO_VAL unset */
	char *prolog, *epilog;           /* --prolog, --epilog: srun runs them */
	char *task_prolog, *task_epilog; /* --task-prolog, --task-epilog */
	uint32_t slurmd_debug; /* --slurmd-debug: Slurm's level number; 0 quiet */
	uint32_t resv_ports;   /* --resv-ports[=N]; NO_VAL: not given */
	/* --bcast: srun copies the command to the job's nodes first */
	int bcast;           /* --bcast (or SLURM_BCAST) given */
	char *bcast_dest;    /* its dest_path; NULL: the default name */
	char *bcast_exclude; /* --bcast-exclude; NULL: BcastExclude */
	int compress;        /* --compress: 1 lz4 (sent uncompressed), 0 none;
	                        -1 not given: BcastParameters Compression= */
	int send_libs;       /* --send-libs: 1, 0; -1: BcastParameters send_libs */
	int debugger_test;   /* --debugger-test: tasks stopped, their table printed */

	/* salloc */
	int kill_signal; /* -K[signal]: sent to the command when the job is revoked */
	int bell;        /* --bell 1, --no-bell -1; 0: after a wait of over 10 s */
	uint32_t ntasks_per_gpu;  /* --ntasks-per-gpu; 0 unset */
	enum jobopt_src ntpn_src; /* where --ntasks-per-node came from */
	int crontab; /* scrontab's entry: nothing from this shell's environment */

	enum jobopt_src nodes_src, tasks_src; /* where -N and -n came from */
	enum jobopt_src cur_src;              /* the source being applied */
	enum jobopt_src mem_src, mem_cpu_src; /* where --mem, --mem-per-cpu came from */
	enum jobopt_src core_spec_src, thread_spec_src; /* -S, --thread-spec */
	char *bbf; /* sbatch --bbf: the file whose text goes atop the script */
	/* --hint as given (NULL: none) and where it came from; where the
	 * options it may not go with came from (cli/jobopt_layout.h) */
	char *hint;
	enum jobopt_src hint_src;
	unsigned layout_srcs; /* 1 << each source */
	/* --propagate: given, and the limits it names (common/rlimits.h) */
	int propagate;
	unsigned propagate_kinds;
	/* each option applied, in order (-v prints them as Slurm does) */
	struct jobopt_item *seen;
	size_t nseen;
};

/* One recorded option: id (see jobopt.c) and its value (owned, may be NULL). */
struct jobopt_item {
	int id;
	char *arg;
	int src; /* in jobopt.seen: where it came from (enum jobopt_src) */
};

struct jobopt_list {
	struct jobopt_item *v;
	size_t n;
};

/* "prog: error: ..." on stderr, then exit(status). */
void jobopt_die(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* A positive count given to --name, or jobopt_die with Slurm's words. */
uint32_t jobopt_count(const char *arg, const char *name);

/* -m arbitrary (or, as Slurm, SLURM_HOSTFILE without -w): the tasks' nodes
 * from the hostfile, or -w in its order; the first -n of them (all when -n
 * came from nowhere or the environment) give task_hosts, the node list and
 * the counts.  Called by jobopt_finish (cli/jobopt_hostfile.c). */
void jobopt_hostfile_finish(struct jobopt *o);
/* --ntasks-per-gpu: refused beside --gpus-per-task, --gpus-per-socket,
 * --ntasks-per-node or a node range (Slurm's words); with GPUs asked and no
 * -n, the tasks are the GPUs times n; with -n (a multiple of n) and no GPUs,
 * the GPUs are the tasks over n; -N alone gives n tasks a node; --gpu-bind
 * defaults to single:n (cli/jobopt_gpu.c). */
void jobopt_gpu_finish(struct jobopt *o);
/* -F FILE, -w PATH/: the names the hostfile lists, in order ("a,b,a");
 * jobopt_die(why) when it cannot be read. */
char *jobopt_nodefile(const char *path, const char *why);

/* Set every field to "not given" (NO_VAL / NO_VAL64 / NULL). */
void jobopt_init(struct jobopt *o, enum jobopt_cmd cmd);
void jobopt_release(struct jobopt *o);

/* Run getopt over argv (argv[0] is replaced by the program name in messages),
 * stopping at the first non-option.  Records options into *ret (caller releases
 * with jobopt_list_release) and the index of the first non-option argument into
 * *ret_optind.  Prints and exits on unknown options; --help/--usage/--version
 * print and exit 0. */
void jobopt_collect(enum jobopt_cmd cmd, int argc, char **argv, struct jobopt_list *ret,
                    int *ret_optind);
void jobopt_list_release(struct jobopt_list *l);

/* The last value of option id in l (--wrap...), or NULL.  Borrowed. */
const char *jobopt_list_last(const struct jobopt_list *l, int id, int *ret_found);

/* Apply recorded options (src: where they came from). */
void jobopt_apply_list(struct jobopt *o, const struct jobopt_list *l,
                       enum jobopt_src src);

/* A heterogeneous job's next component starts from the one before: apply
 * to `to` (as src) what was given to `from` on its command line or in its
 * script, but for the options Slurm resets for each component (the counts,
 * the layout, partition, GRES, memory per CPU...: its reset_each_pass). */
void jobopt_carry(struct jobopt *to, const struct jobopt *from, enum jobopt_src src);

/* Apply the command's input environment variables (SBATCH_*, SLURM_*, SALLOC_*)
 * found in env (borrowed). */
void jobopt_apply_env(struct jobopt *o, char *const *env);

/* Check the combination and fill defaults every command needs: work_dir
 * (absolute; -D relative to the current directory), submit_host, umask.
 * Prints and exits on errors. */
void jobopt_finish(struct jobopt *o);

/* The environment to send for o->export_spec, built from env (borrowed), with
 * SLURM_UMASK added (from o->desc.umask) unless env has one; caller frees with
 * strv_free.  Prints and exits on errors. */
char **jobopt_export_env(const struct jobopt *o, char *const *env);

/* -m given: SLURM_DISTRIBUTION (the spec as given) and, for plane,
 * SLURM_DIST_PLANESIZE set in env, for the steps of the job (Slurm's batch
 * and salloc environment).  Returns env. */
char **jobopt_dist_env(const struct jobopt *o, char **env);

/* Option ids used by callers. */
enum { JOBOPT_ID_WRAP = 1000 };

/* Basename of a path (borrowed: points into path). */
const char *jobopt_basename(const char *path);
/* Does an input variable's value set a flag option (SBATCH_IGNORE_PBS=...)?
 * As in Slurm: empty, "yes" or a non-zero number do; anything else leaves
 * the option unset. */
int jobopt_env_flag(const char *v);

#endif
