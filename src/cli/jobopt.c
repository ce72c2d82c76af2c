/* jobopt.c - the options of sbatch, srun and salloc (see jobopt.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli/bcast_send.h"
#include "cli/cli.h"
#include "cli/jobopt.h"
#include "cli/jobopt_table.h"
#include "common/acctg.h"
#include "common/conf.h"
#include "common/taskdist.h"
#include "common/mailtype.h"
#include "common/signame.h"
#include "cli/fmt.h"
#include "cli/jobopt_layout.h"
#include "common/rlimits.h"
#include "common/gres.h"
#include "common/gres_req.h"
#include "common/hostlist.h"
#include "common/jobscript.h"
#include "common/time_parse.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "common/cpubind.h"
#include "common/membind.h"
#include "common/gpubind.h"
#include "common/ctrspec.h"
#include "common/common.h"

#define S JOBOPT_SBATCH
#define R JOBOPT_SRUN
#define A JOBOPT_SALLOC

/* Input environment variables, applied in this order (later ones win). */
static const struct {
	unsigned cmds;
	const char *name;
	int id;
} env_table[] = {
    {S, "SBATCH_ACCOUNT", 'A'},
    {S, "SBATCH_MEM_BIND", O_MEM_BIND},
    {S, "SBATCH_CPU_FREQ_REQ", O_CPU_FREQ},
    {S, "SBATCH_CLUSTERS", 'M'},
    {S, "SBATCH_ACCTG_FREQ", O_ACCTG_FREQ},
    {S, "SBATCH_ARRAY_INX", 'a'},
    {S, "SBATCH_BATCH", O_BATCH},
    {S, "SBATCH_CONSTRAINT", 'C'},
    {S, "SBATCH_DISTRIBUTION", 'm'},
    {S, "SBATCH_ERROR", 'e'},
    {S, "SBATCH_EXCLUSIVE", O_EXCLUSIVE},
    {S, "SBATCH_EXPORT", O_EXPORT},
    {S, "SBATCH_GET_USER_ENV", O_GET_USER_ENV},
    {S, "SBATCH_CPUS_PER_GPU", O_CPUS_PER_GPU},
    {S, "SBATCH_GPU_BIND", O_GPU_BIND},
    {S, "SBATCH_GPUS", 'G'},
    {S, "SBATCH_GPUS_PER_NODE", O_GPUS_PER_NODE},
    {S, "SBATCH_GPUS_PER_SOCKET", O_GPUS_PER_SOCKET},
    {S, "SBATCH_GPUS_PER_TASK", O_GPUS_PER_TASK},
    {S, "SBATCH_GRES", O_GRES},
    {S, "SBATCH_GRES_FLAGS", O_GRES_FLAGS},
    {S | R | A, "SLURM_HINT", O_HINT},
    {S, "SBATCH_HINT", O_HINT},
    {S, "SBATCH_THREADS_PER_CORE", O_THREADS_PER_CORE},
    {S, "SBATCH_MEM_PER_GPU", O_MEM_PER_GPU},
    {S, "SBATCH_INPUT", 'i'},
    {S, "SBATCH_JOB_NAME", 'J'},
    {S, "SBATCH_MEM_PER_CPU", O_MEM_PER_CPU},
    {S, "SBATCH_MEM_PER_NODE", O_MEM},
    {S, "SBATCH_NO_REQUEUE", O_NO_REQUEUE},
    {S, "SBATCH_NO_KILL", 'k'},
    /* the rest of Slurm's input variables: options of no effect, refused
     * ones (said by name), and what only tunes Slurm's own daemons */
    {S, "SBATCH_CONTAINER", O_CTR_BUNDLE},
    {S, "SBATCH_CORE_SPEC", 'S'},
    {S, "SBATCH_DEBUG", 'v'},
    {S, "SBATCH_DELAY_BOOT", O_IGNORE},
    {S, "SBATCH_GPU_FREQ", O_IGNORE},
    {S, "SBATCH_NETWORK", O_IGNORE},
    {S, "SBATCH_OVERCOMMIT", 'O'},
    {S, "SBATCH_POWER", O_POWER},
    {S, "SBATCH_PROFILE", O_IGNORE},
    {S, "SBATCH_REQ_SWITCH", O_SWITCHES},
    {S, "SBATCH_WAIT4SWITCH", O_WAIT4SWITCH},
    {S, "SBATCH_SPREAD_JOB", O_SPREAD_JOB},
    {S, "SBATCH_THREAD_SPEC", O_THREAD_SPEC},
    {S, "SBATCH_WAIT_ALL_NODES", O_IGNORE},
    {S, "SBATCH_WCKEY", O_IGNORE},
    {A, "SALLOC_ACCTG_FREQ", O_ACCTG_FREQ},
    {A, "SALLOC_BURST_BUFFER", O_BB},
    {A, "SALLOC_CONTAINER", O_CTR_BUNDLE},
    {A, "SALLOC_CORE_SPEC", 'S'},
    {A, "SALLOC_DEBUG", 'v'},
    {A, "SALLOC_DELAY_BOOT", O_IGNORE},
    {A, "SALLOC_GPU_FREQ", O_IGNORE},
    {A, "SALLOC_IMMEDIATE", 'I'},
    {A, "SALLOC_NETWORK", O_IGNORE},
    {A, "SALLOC_OVERCOMMIT", 'O'},
    {A, "SALLOC_POWER", O_POWER},
    {A, "SALLOC_PROFILE", O_IGNORE},
    {A, "SALLOC_REQ_SWITCH", O_SWITCHES},
    {A, "SALLOC_WAIT4SWITCH", O_WAIT4SWITCH},
    {A, "SALLOC_SIGNAL", O_SIGNAL},
    {A, "SALLOC_SPREAD_JOB", O_SPREAD_JOB},
    {A, "SALLOC_THREAD_SPEC", O_THREAD_SPEC},
    {A, "SALLOC_WAIT_ALL_NODES", O_IGNORE},
    {A, "SALLOC_WCKEY", O_IGNORE},
    {R, "SLURM_BURST_BUFFER", O_BB},
    {R, "SLURM_CORE_SPEC", 'S'},
    {R, "SLURM_CPUS_PER_GPU", O_CPUS_PER_GPU},
    {R, "SLURM_DEBUG", 'v'},
    {R, "SLURMD_DEBUG", O_SLURMD_DEBUG},
    {R, "SLURM_DELAY_BOOT", O_IGNORE},
    {R, "SLURM_DISABLE_STATUS", 'X'},
    {R, "SLURM_EPILOG", O_EPILOG},
    {R, "SLURM_GPUS", 'G'},
    {R, "SLURM_GPUS_PER_NODE", O_GPUS_PER_NODE},
    {R, "SLURM_GPUS_PER_TASK", O_GPUS_PER_TASK},
    {R, "SLURM_GPU_FREQ", O_IGNORE},
    {R, "SLURM_GRES", O_GRES},
    {R, "SLURM_STEP_GRES", O_GRES},
    {R, "SLURM_GRES_FLAGS", O_GRES_FLAGS},
    {R, "SLURM_IMMEDIATE", 'I'},
    {R, "SLURM_MEM_PER_GPU", O_MEM_PER_GPU},
    {R, "SLURM_NETWORK", O_IGNORE},
    {R, "SLURM_POWER", O_POWER},
    {R, "SLURM_PROFILE", O_IGNORE},
    {R, "SLURM_PROLOG", O_PROLOG},
    {R, "SLURM_REQ_SWITCH", O_SWITCHES},
    {R, "SLURM_WAIT4SWITCH", O_WAIT4SWITCH},
    {R, "SLURM_RESV_PORTS", O_RESV_PORTS},
    {R, "SLURM_SIGNAL", O_SIGNAL},
    {R, "SLURM_SPREAD_JOB", O_SPREAD_JOB},
    {R, "SLURM_TASK_EPILOG", O_TASK_EPILOG},
    {R, "SLURM_TASK_PROLOG", O_TASK_PROLOG},
    {R, "SLURM_THREADS", O_IGNORE},
    {R, "SLURM_THREAD_SPEC", O_THREAD_SPEC},
    {R, "SLURM_WCKEY", O_IGNORE},
    {R, "SRUN_CONTAINER", O_CTR_BUNDLE},
    {A, "SALLOC_NO_KILL", 'k'},
    {R, "SLURM_NO_KILL", 'k'},
    {S, "SBATCH_OPEN_MODE", O_OPEN_MODE},
    {S, "SBATCH_OUTPUT", 'o'},
    {S, "SBATCH_PARTITION", 'p'},
    {S, "SBATCH_QOS", 'q'},
    {S, "SBATCH_RESERVATION", O_RESERVATION},
    {S, "SBATCH_REQUEUE", O_REQUEUE},
    {S, "SBATCH_SIGNAL", O_SIGNAL},
    {S, "SBATCH_TIMELIMIT", 't'},
    {S, "SBATCH_USE_MIN_NODES", O_USE_MIN_NODES},
    {S, "SBATCH_WAIT", 'W'},
    {R, "SLURM_ACCOUNT", 'A'},
    {R, "SLURM_BCAST", O_BCAST},
    {R, "SLURM_BCAST_EXCLUDE", O_BCAST_EXCLUDE},
    {R, "SLURM_COMPRESS", O_COMPRESS},
    {R, "SLURM_CONSTRAINT", 'C'},
    {R, "SLURM_CPU_BIND", O_CPU_BIND},
    {R, "SRUN_CPUS_PER_TASK", 'c'},
    {R, "SLURM_DEPENDENCY", 'd'},
    {R, "SLURM_DISTRIBUTION", 'm'},
    {R, "SLURM_EXACT", O_EXACT},
    {R, "SLURM_EXCLUSIVE", O_EXCLUSIVE},
    {R, "SLURM_EXPORT_ENV", O_EXPORT},
    {R, "SLURM_RESERVATION", O_RESERVATION},
    {R, "SLURM_SEND_LIBS", O_SEND_LIBS},
    {R, "SLURM_GPU_BIND", O_GPU_BIND},
    {R, "SRUN_EXPORT_ENV", O_EXPORT},
    {R, "SLURM_JOBID", O_JOBID},
    {R, "SLURM_JOB_ID", O_JOBID},
    {R, "SLURM_JOB_NAME", 'J'}, /* not inside an allocation, see apply_env */
    {R, "SLURM_NNODES", 'N'},
    {R, "SLURM_JOB_NUM_NODES", 'N'},
    {R, "SLURM_KILL_BAD_EXIT", 'K'},
    {R, "SLURM_LABELIO", 'l'},
    {R, "SLURM_MEM_PER_CPU", O_MEM_PER_CPU},
    {R, "SLURM_MEM_PER_NODE", O_MEM},
    {R, "SLURM_MPI_TYPE", O_MPI},
    {R, "SLURM_NPROCS", 'n'},
    {R, "SLURM_NTASKS", 'n'},
    {R, "SLURM_NTASKS_PER_NODE", O_NTASKS_PER_NODE},
    {R, "SLURM_NTASKS_PER_GPU", O_NTASKS_PER_GPU},
    {R, "SLURM_MEM_BIND", O_MEM_BIND},
    {R, "SLURM_CPU_FREQ_REQ", O_CPU_FREQ},
    {R, "SLURM_NTASKS_PER_CORE", O_NTASKS_PER_CORE},
    {R, "SLURM_NTASKS_PER_SOCKET", O_NTASKS_PER_SOCKET},
    {R, "SLURM_THREADS_PER_CORE", O_THREADS_PER_CORE},
    {R, "SLURM_OPEN_MODE", O_OPEN_MODE},
    {R, "SLURM_OVERCOMMIT", 'O'},
    {R, "SLURM_OVERLAP", O_OVERLAP},
    {R, "SLURM_PARTITION", 'p'},
    {R, "SLURM_QOS", 'q'},
    {R, "SLURM_WORKING_DIR", 'D'},
    {R, "SLURM_REMOTE_CWD", 'D'},
    {R, "SLURM_STDERRMODE", 'e'},
    {R, "SLURM_STDINMODE", 'i'},
    {R, "SLURM_STDOUTMODE", 'o'},
    {R, "SLURM_TIMELIMIT", 't'},
    {R, "SLURM_UNBUFFEREDIO", 'u'},
    {R, "SLURM_USE_MIN_NODES", O_USE_MIN_NODES},
    {R, "SLURM_WAIT", 'W'},
    {A, "SALLOC_ACCOUNT", 'A'},
    {A, "SALLOC_MEM_BIND", O_MEM_BIND},
    {A, "SALLOC_CPU_FREQ_REQ", O_CPU_FREQ},
    {A, "SALLOC_CLUSTERS", 'M'},
    {A, "SALLOC_BELL", O_BELL},
    {A, "SALLOC_NO_BELL", O_NO_BELL},
    {A, "SALLOC_DISTRIBUTION", 'm'},
    {A, "SALLOC_CPUS_PER_GPU", O_CPUS_PER_GPU},
    {A, "SALLOC_GPU_BIND", O_GPU_BIND},
    {A, "SALLOC_GPUS", 'G'},
    {A, "SALLOC_GPUS_PER_NODE", O_GPUS_PER_NODE},
    {A, "SALLOC_GPUS_PER_SOCKET", O_GPUS_PER_SOCKET},
    {A, "SALLOC_GPUS_PER_TASK", O_GPUS_PER_TASK},
    {A, "SALLOC_GRES", O_GRES},
    {A, "SALLOC_GRES_FLAGS", O_GRES_FLAGS},
    {A, "SALLOC_HINT", O_HINT},
    {A, "SALLOC_THREADS_PER_CORE", O_THREADS_PER_CORE},
    {A, "SALLOC_MEM_PER_GPU", O_MEM_PER_GPU},
    {A, "SALLOC_CONSTRAINT", 'C'},
    {A, "SALLOC_EXCLUSIVE", O_EXCLUSIVE},
    {A, "SALLOC_KILL_CMD", 'K'},
    {A, "SALLOC_MEM_PER_CPU", O_MEM_PER_CPU},
    {A, "SALLOC_MEM_PER_NODE", O_MEM},
    {A, "SALLOC_PARTITION", 'p'},
    {A, "SALLOC_QOS", 'q'},
    {A, "SALLOC_RESERVATION", O_RESERVATION},
    {A, "SALLOC_TIMELIMIT", 't'},
    {A, "SALLOC_USE_MIN_NODES", O_USE_MIN_NODES},
};

/* ---- errors ---- */

void jobopt_die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static const struct opt_def *opt_find(enum jobopt_cmd cmd, int id)
{
	for (size_t i = 0; i < jobopt_table_len; i++)
		if (jobopt_table[i].id == id && (jobopt_table[i].cmds & cmd))
			return &jobopt_table[i];
	return NULL;
}

/* ---- value parsers ---- */

/* A positive count for -n, -c, --ntasks-per-node and the like. */
uint32_t jobopt_count(const char *arg, const char *name)
{
	char *end;
	long v;

	errno = 0;
	v = arg ? strtol(arg, &end, 10) : 0;
	if (!arg || !*arg || errno || *end || v <= 0 || v > INT32_MAX)
		jobopt_die(JOBOPT_EXIT_ERROR, "Invalid numeric value \"%s\" for --%s.",
		           arg ? arg : "", name);
	return (uint32_t)v;
}

/* --slurmd-debug: a level's name (Slurm's) or its number. */
static uint32_t slurmd_debug_parse(const char *arg)
{
	int n = log_slurm_level_parse(arg);

	if (n < 0)
		jobopt_die(JOBOPT_EXIT_ERROR, "Invalid --slurmd-debug level: %s", arg);
	return (uint32_t)n;
}

/* --resv-ports=N: 0 (none) up to the most ports there are. */
static uint32_t resv_ports_parse(const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (*arg < '0' || *arg > '9' || *end || n > 65535)
		jobopt_die(JOBOPT_EXIT_ERROR,
		           "Invalid numeric value \"%s\" for --resv-ports.", arg);
	return (uint32_t)n;
}

static int parse_u32(const char *s, const char **ret_end, uint32_t *ret)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || v > INT32_MAX)
		return -1;
	*ret = (uint32_t)v;
	*ret_end = end;
	return 0;
}

/* -N "min", "min-max" or "-max" (from one node). */
static void parse_nodes(struct jobopt *o, const char *arg)
{
	uint32_t min = 1, max = NO_VAL;
	const char *p = arg;

	int bad = *p == '-' ? parse_u32(p + 1, &p, &max) < 0
	                    : parse_u32(p, &p, &min) < 0 ||
	                          (*p && (*p != '-' || parse_u32(p + 1, &p, &max) < 0));

	if (bad || *p)
		jobopt_die(JOBOPT_EXIT_FATAL, "\"%s\" is not a valid node count", arg);
	if (min == 0)
		jobopt_die(JOBOPT_EXIT_ERROR, "invalid number of nodes (-N %s)", arg);
	if (max != NO_VAL && max < min)
		jobopt_die(JOBOPT_EXIT_FATAL,
		           "Maximum node count %u is less than minimum node count %u",
		           max, min);
	o->desc.min_nodes = min;
	o->desc.max_nodes = max == NO_VAL ? min : max; /* -N 2 is -N 2-2 */
	o->nodes_src = o->cur_src;
}

static uint64_t parse_mem(const char *arg, const char *name)
{
	uint64_t mb;

	if (!arg || timefmt_parse_mem(arg, &mb) < 0 || mb >= NO_VAL64)
		jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --%s specification", name);
	return mb;
}

static uint32_t parse_time(const char *arg, const char *name)
{
	uint32_t min;

	if (!arg || timefmt_parse_limit(arg, &min) < 0)
		jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --%s specification", name);
	return min;
}

/* --begin, --deadline: a point in time (common/time_parse.h); where the text
 * stops making sense is reported first, as Slurm's parse_time does. */
static int64_t parse_when(const char *arg, const char *name)
{
	time_t t;
	int pos = -1;

	if (arg && time_parse(arg, time(NULL), 0, &t, &pos) == 0)
		return (int64_t)t;
	if (arg && pos >= 0)
		fprintf(stderr, "Invalid time specification (pos=%d): %s\n", pos, arg);
	jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --%s specification", name);
}

/* --signal=[{R|B}:]<sig>[@time]: Slurm's default time is 60 s. */
static void check_signal_spec(const char *arg, struct job_desc *d)
{
	struct job_desc_ext *x = job_desc_x_mut(d);
	char buf[64];
	const char *p = arg, *at;
	size_t n;

	x->warn_flags = 0;
	if (!strncasecmp(p, "RB:", 3) || !strncasecmp(p, "BR:", 3)) {
		x->warn_flags = WARN_F_BATCH_ONLY | WARN_F_REQUEUE;
		p += 3;
	} else if ((*p == 'R' || *p == 'B' || *p == 'r' || *p == 'b') && p[1] == ':') {
		x->warn_flags =
		    (*p == 'B' || *p == 'b') ? WARN_F_BATCH_ONLY : WARN_F_REQUEUE;
		p += 2;
	}
	at = strchr(p, '@');
	n = at ? (size_t)(at - p) : strlen(p);
	if (n == 0 || n >= sizeof(buf))
		goto bad;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (signal_parse(buf) < 0 ||
	    (at && (cli_parse_long(at + 1) < 0 || cli_parse_long(at + 1) > 0xffff)))
		goto bad;
	x->warn_signal = (uint32_t)signal_parse(buf);
	x->warn_time = at ? (uint32_t)cli_parse_long(at + 1) : 60;
	return;
bad:
	jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --signal specification");
}

/* srun -i/-o/-e: "all", "none", a task number, or a file pattern (-1 returned). */
static long io_mode(const char *arg)
{
	long v;

	if (!strcasecmp(arg, "all"))
		return JOBOPT_IO_ALL;
	if (!strcasecmp(arg, "none"))
		return JOBOPT_IO_NONE;
	v = cli_parse_long(arg);
	return v >= 0 && v < INT32_MAX ? v : -3;
}

static void set_str(char **dst, const char *arg)
{
	free(*dst);
	*dst = xstrdup(arg);
}

/* -w/-x: a host list that parses and stays within HOSTLIST_MAX names (the
 * controller checks the names themselves). */
static void set_nodes(char **dst, const char *arg)
{
	struct rota_error err = {""};
	char **names = NULL;
	size_t n = 0;

	if (hostlist_expand(arg, &names, &n, &err) < 0)
		jobopt_die(JOBOPT_EXIT_FATAL, "Invalid node name specified: %s",
		           err.text);
	hostlist_free(names);
	set_str(dst, arg);
}

/* srun's -i/-o/-e: a task filter handled by srun, or a file for the node. */
static void set_stdio(struct jobopt *o, int id, const char *arg)
{
	long mode = o->cmd == JOBOPT_SRUN ? io_mode(arg) : -3;
	long *task = id == 'i' ? &o->in_task : id == 'o' ? &o->out_task : &o->err_task;
	char **file = id == 'i'   ? &job_desc_x_mut(&o->desc)->std_in
	              : id == 'o' ? &o->desc.std_out
	                          : &o->desc.std_err;

	if (mode == -3) {
		set_str(file, arg);
		*task = JOBOPT_IO_ALL;
	} else {
		set_str(file, NULL);
		*task = mode;
	}
}

static void set_nice(struct jobopt *o, const char *arg)
{
	char *end;
	long v = 100;

	if (arg) {
		errno = 0;
		v = strtol(arg, &end, 10);
		if (!*arg || *end || errno)
			jobopt_die(JOBOPT_EXIT_ERROR, "Invalid --nice value: %s", arg);
	}
	if (v > JOBOPT_NICE_MAX || v < -JOBOPT_NICE_MAX)
		jobopt_die(JOBOPT_EXIT_ERROR,
		           "Invalid --nice value, out of range (+/- %ld)",
		           JOBOPT_NICE_MAX);
	o->desc.nice = (uint32_t)(int32_t)v;
}

static void set_flag(struct jobopt *o, uint32_t set, uint32_t clear)
{
	o->desc.flags = (o->desc.flags & ~clear) | set;
}

/* --mpi: the step's MPI support (stepd/pmi.h), kept in lower case; srun
 * hands it to the step as SLURM_MPI_TYPE. */
static void set_mpi(struct jobopt *o, const char *arg)
{
	static const char *const known[] = {"none", "pmi2", "pmix", "pmix_v4"};

	if (!strcasecmp(arg, "list")) {
		printf("MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\n"
		       "specific pmix plugin versions available: pmix_v4\n");
		exit(0);
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcasecmp(arg, known[i])) {
			free(o->mpi);
			o->mpi = xstrdup(i == 3 ? "pmix" : known[i]);
			return;
		}
	jobopt_die(JOBOPT_EXIT_ERROR,
	           "Invalid MPI type '%s', --mpi=list for acceptable types", arg);
}

/* --get-user-env[=timeout][mode]: seconds, then S (su) or L (su -).  Checked
 * only: the node reads the login environment as slurmd does (see
 * stepd/userenv.c), with its own deadline, as `su -`. */
static void check_get_user_env(const char *arg)
{
	const char *p = arg;

	if (!arg)
		return;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p - arg > 9 ||
	    (*p && ((*p != 'S' && *p != 's' && *p != 'L' && *p != 'l') || p[1])))
		jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --get-user-env specification");
}

static uint32_t parse_job_id(const char *arg)
{
	uint32_t id;

	if (!arg || fmt_parse_job_id(arg, &id) < 0)
		jobopt_die(JOBOPT_EXIT_FATAL, "Invalid job id %s", arg ? arg : "");
	return id;
}

/* ---- applying one option ---- */

/* --gpus, --gpus-per-node, -task, -socket: "[type:]count", checked here. */
static void set_gpus(struct jobopt *o, int id, const char *arg)
{
	struct job_desc *d = &o->desc;
	char type[GRES_NAME_MAX];
	uint32_t n;
	const char *name = id == 'G'               ? "gpus"
	                   : id == O_GPUS_PER_NODE ? "gpus-per-node"
	                   : id == O_GPUS_PER_TASK ? "gpus-per-task"
	                                           : "gpus-per-socket";
	char **field = id == 'G'               ? &job_desc_x_mut(d)->gpus
	               : id == O_GPUS_PER_NODE ? &job_desc_x_mut(d)->gpus_per_node
	               : id == O_GPUS_PER_TASK ? &job_desc_x_mut(d)->gpus_per_task
	                                       : &job_desc_x_mut(d)->gpus_per_socket;

	if (gres_gpu_parse(arg, type, &n, NULL) < 0)
		jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --%s specification", name);
	set_str(field, arg);
}

/* --gres-flags=enforce-binding|disable-binding */
static void set_gres_flags(struct job_desc *d, const char *arg)
{
	if (!strcasecmp(arg, "enforce-binding"))
		job_desc_x_mut(d)->gres_flags = GRES_F_ENFORCE_BINDING;
	else if (!strcasecmp(arg, "disable-binding"))
		job_desc_x_mut(d)->gres_flags = GRES_F_DISABLE_BINDING;
	else
		jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --gres-flags specification");
}

/* One of --cpu-freq's values: 0 when it is none, else its rank (a
 * frequency in kHz: the frequency; low, medium, highm1 (him1), high: 1 to
 * 4); governor: a governor's name or the start of one (2 letters or more). */
static unsigned long freq_word(const char *p, size_t n, int governor)
{
	static const char *const freqs[] = {"low", "medium", "highm1", "high"};
	static const char *const govs[] = {"conservative", "ondemand",  "performance",
	                                   "powersave",    "userspace", "schedutil"};
	unsigned long v = 0;
	size_t d = 0;

	if (governor) {
		for (size_t i = 0; n >= 2 && i < sizeof(govs) / sizeof(govs[0]); i++)
			if (n <= strlen(govs[i]) && !strncasecmp(p, govs[i], n))
				return 1;
		return 0;
	}
	while (d < n && p[d] >= '0' && p[d] <= '9' && v < 1000000000000ul)
		v = v * 10 + (unsigned long)(p[d++] - '0');
	if (n && d == n)
		return v; /* 0: not a frequency */
	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++)
		if (strlen(freqs[i]) == n && !strncasecmp(p, freqs[i], n))
			return i + 1;
	return n == 4 && !strncasecmp(p, "him1", 4) ? 3 : 0;
}

/* --cpu-freq=p1[-p2[:p3]] or a governor alone (Slurm's forms); a minimum
 * above its maximum is none. */
static int cpu_freq_ok(const char *arg)
{
	const char *colon, *dash;
	unsigned long lo, hi;
	size_t end;

	if (!arg || !*arg)
		return 0;
	if (freq_word(arg, strlen(arg), 1))
		return 1;
	colon = strchr(arg, ':');
	dash = strchr(arg, '-');
	if (colon &&
	    (!freq_word(colon + 1, strlen(colon + 1), 1) || !dash || dash > colon))
		return 0;
	if (!dash)
		return freq_word(arg, strlen(arg), 0) != 0;
	end = colon ? (size_t)(colon - dash - 1) : strlen(dash + 1);
	lo = freq_word(arg, (size_t)(dash - arg), 0);
	hi = freq_word(dash + 1, end, 0);
	/* both keywords (ranks) or both frequencies: in order */
	return lo && hi && ((lo > 4) != (hi > 4) || lo <= hi);
}

/* --mem-bind=[quiet|verbose,][prefer,]TYPE (common/membind.h): checked
 * here, carried as given to the nodes (sbatch and salloc: to their steps,
 * as SLURM_MEM_BIND). */
static void set_mem_bind(struct jobopt *o, const char *arg)
{
	struct rota_error err = {""};
	struct membind b;
	int rc = membind_parse(arg, &b, &err);

	if (rc < 0)
		jobopt_die(JOBOPT_EXIT_FATAL, "%s", err.text);
	if (rc == 1) {
		printf(
		    "Memory bind options:\n"
		    "    --mem-bind=         Bind memory to locality domains (ldom)\n"
		    "        nosort          avoid sorting pages at startup\n"
		    "        sort            sort pages at startup\n"
		    "        q[uiet]         quietly bind before task runs (default)\n"
		    "        v[erbose]       verbosely report binding before task runs\n"
		    "        no[ne]          don't bind tasks to memory (default)\n"
		    "        rank            bind by task rank\n"
		    "        local           bind to memory local to processor\n"
		    "        map_mem:<list>  specify a memory binding for each task\n"
		    "                        where <list> is <numa_id1>,<numa_id2>,...\n"
		    "        mask_mem:<list> specify a memory binding mask for each "
		    "tasks\n"
		    "                        where <list> is <mask1>,<mask2>,...\n"
		    "        prefer          use the first of a task's nodes, others "
		    "when it is full\n"
		    "        help            show this help message\n");
		exit(0);
	}
	membind_release(&b);
	set_str(&o->mem_bind, arg);
}

/* --switches=N[@max-time]: max-time in the time limit's format */
static void set_switches(struct job_desc *d, const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (end == arg || (*end && *end != '@') || n > 100000)
		jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --switches specification");
	job_desc_x_mut(d)->req_switch = (uint32_t)n;
	d->wait4switch = NO_VAL;
	if (*end == '@') {
		uint32_t min = parse_time(end + 1, "switches");
		d->wait4switch = min > NO_VAL / 60 ? NO_VAL - 1 : min * 60;
	}
}

static void apply_common(struct jobopt *o, int id, const char *arg)
{
	struct job_desc *d = &o->desc;

	switch (id) {
	case 'A':
		set_str(&d->account, arg);
		break;
	case 'a':
		set_str(&d->array_inx, arg);
		break;
	case 'q':
		set_str(&d->qos, arg);
		break;
	case 'b':
		d->begin_time = parse_when(arg, "begin");
		break;
	case 'D':
		set_str(&d->work_dir, arg);
		break;
	case O_COMMENT:
		set_str(&job_desc_x_mut(d)->comment, arg);
		break;
	case 'L':
		set_str(&job_desc_x_mut(d)->licenses, arg);
		break;
	case O_RESERVATION:
		set_str(&job_desc_x_mut(d)->reservation, arg);
		break;
	case 'C':
		set_str(&d->features, arg);
		break;
	case O_PREFER:
		set_str(&job_desc_x_mut(d)->prefer, arg);
		break;
	case O_BATCH:
		set_str(&job_desc_x_mut(d)->batch_features, arg);
		break;
	case 'c':
		d->cpus_per_task = jobopt_count(arg, "cpus-per-task");
		break;
	case O_TMP: /* "MB" or with a unit, as --mem */
		job_desc_x_mut(&o->desc)->pn_min_tmp = parse_mem(arg, "tmp");
		return;
	case O_MINCPUS:
		d->pn_min_cpus = jobopt_count(arg, "mincpus");
		break;
	case 's': /* the later of --oversubscribe and --exclusive wins */
		set_flag(o, JOB_F_OVERSUBSCRIBE,
		         JOB_F_EXCLUSIVE | JOB_F_EXCLUSIVE_USER | JOB_F_EXCLUSIVE_MCS);
		break;
	case 'd':
		set_str(&d->dependency, arg);
		break;
	case 'e':
	case 'i':
	case 'o':
		set_stdio(o, id, arg);
		break;
	case 'x':
		set_nodes(&d->exc_nodes, arg);
		break;
	case O_EXCLUSIVE:
		if (arg && *arg && strcasecmp(arg, "user") && strcasecmp(arg, "mcs") &&
		    strcasecmp(arg, "exclusive"))
			jobopt_die(JOBOPT_EXIT_FATAL,
			           "Invalid --exclusive specification");
		if (!arg || !*arg || !strcasecmp(arg, "exclusive"))
			set_flag(o, JOB_F_EXCLUSIVE,
			         JOB_F_OVERSUBSCRIBE | JOB_F_EXCLUSIVE_USER |
			             JOB_F_EXCLUSIVE_MCS);
		else if (!strcasecmp(arg, "user"))
			set_flag(o, JOB_F_EXCLUSIVE_USER,
			         JOB_F_OVERSUBSCRIBE | JOB_F_EXCLUSIVE |
			             JOB_F_EXCLUSIVE_MCS);
		else /* mcs: nodes shared by jobs of its MCS label alone */
			set_flag(o, JOB_F_EXCLUSIVE_MCS,
			         JOB_F_OVERSUBSCRIBE | JOB_F_EXCLUSIVE |
			             JOB_F_EXCLUSIVE_USER);
		o->step_flags |= STEP_F_EXACT;
		break;
	case O_MAIL_TYPE: {
		long mt = mail_type_parse(arg);
		if (mt < 0)
			jobopt_die(JOBOPT_EXIT_FATAL, "--mail-type=%s invalid",
			           arg ? arg : "");
		job_desc_x_mut(d)->mail_type = (uint32_t)mt;
		break;
	}
	case O_MAIL_USER:
		if (!arg || !*arg || *arg == '-')
			jobopt_die(JOBOPT_EXIT_FATAL, "--mail-user=%s invalid",
			           arg ? arg : "");
		set_str(&job_desc_x_mut(d)->mail_user, arg);
		break;
	case O_UID:
	case O_GID: { /* root's: the job is another user's (Slurm's words) */
		const char *what = id == O_UID ? "--uid" : "--gid";
		uid_t u = 0;
		gid_t g = 0;
		if (getuid() != 0)
			jobopt_die(JOBOPT_EXIT_ERROR, "%s only permitted by root user",
			           what);
		if (id == O_UID ? name_to_uid(arg, &u) < 0 : name_to_gid(arg, &g) < 0)
			jobopt_die(JOBOPT_EXIT_ERROR, "Invalid %s specification", what);
		if (id == O_UID)
			job_desc_x_mut(d)->as_uid = (uint32_t)u + 1;
		else
			job_desc_x_mut(d)->as_gid = (uint32_t)g + 1;
		break;
	}
	case O_EXPORT_FILE:
		set_str(&o->export_file, arg);
		break;
	case O_BBF:
		if (o->cmd == JOBOPT_SBATCH) { /* sbatch splices it into the script */
			set_str(&o->bbf, arg);
			break;
		}
		/* srun's and salloc's is a burst buffer spec */
		__attribute__((fallthrough));
	case O_BB:
		jobopt_die(
		    JOBOPT_EXIT_ERROR,
		    "--%s: burst buffers need a burst buffer plugin (BurstBufferType), "
		    "which Rota does not have",
		    id == O_BB ? "bb" : "bbf");
	case O_MCS_LABEL: /* the controller checks it against MCSPlugin */
		set_str(&job_desc_x_mut(d)->mcs_label, arg);
		break;
	case O_POWER:
		jobopt_die(
		    JOBOPT_EXIT_ERROR,
		    "--power: power options need a power plugin (PowerPlugin), which "
		    "Rota does not have");
	case O_X11: /* Slurm's answer without PrologFlags=X11 */
		jobopt_die(JOBOPT_EXIT_ERROR, "--x11: X11 forwarding not available");
	case 'k': /* Slurm's words, and its "set", "off" and "no" */
		if (!arg || !strcasecmp(arg, "set"))
			set_flag(o, JOB_F_NO_KILL, 0);
		else if (!strcasecmp(arg, "off") || !strcasecmp(arg, "no"))
			set_flag(o, 0, JOB_F_NO_KILL);
		else
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --no-kill specification");
		break;
	case O_KILL_INV_DEP:
		if (arg && !strcasecmp(arg, "yes"))
			set_flag(o, JOB_F_KILL_INV_DEP, JOB_F_NO_KILL_INV_DEP);
		else if (arg && !strcasecmp(arg, "no"))
			set_flag(o, JOB_F_NO_KILL_INV_DEP, JOB_F_KILL_INV_DEP);
		else
			jobopt_die(JOBOPT_EXIT_FATAL,
			           "Invalid --kill-on-invalid-dep specification");
		break;
	case O_EXPORT:
		if (!arg || !*arg)
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --export specification");
		set_str(&o->export_spec, arg);
		break;
	case 'H':
		d->hold = 1;
		break;
	case 'J':
		set_str(&d->name, arg);
		break;
	case O_MEM:
		d->mem_per_node = parse_mem(arg, "mem");
		o->mem_src = o->cur_src;
		if (o->mem_cpu_src == JOBOPT_SRC_ENV && o->cur_src > JOBOPT_SRC_ENV) {
			d->mem_per_cpu = NO_VAL64; /* an allocation's, overridden */
			o->mem_cpu_src = JOBOPT_SRC_NONE;
		}
		break;
	case O_MEM_PER_CPU:
		d->mem_per_cpu = parse_mem(arg, "mem-per-cpu");
		o->mem_cpu_src = o->cur_src;
		if (o->mem_src == JOBOPT_SRC_ENV && o->cur_src > JOBOPT_SRC_ENV) {
			d->mem_per_node = NO_VAL64;
			o->mem_src = JOBOPT_SRC_NONE;
		}
		break;
	case O_NICE:
		set_nice(o, arg);
		break;
	case 'F': /* the nodes a hostfile lists, in order (-m arbitrary) */
		free(d->req_nodes);
		d->req_nodes = jobopt_nodefile(arg, "Invalid --nodefile node file");
		break;
	case 'w':
		if (arg && strchr(arg, '/')) { /* a file, as Slurm reads it */
			free(d->req_nodes);
			d->req_nodes =
			    jobopt_nodefile(arg, "Invalid node name specified");
			break;
		}
		set_nodes(&d->req_nodes, arg);
		break;
	case O_GRES:
		if (d->ext) {
			free(d->ext->gres);
			d->ext->gres = NULL;
		}
		if (strcasecmp(arg, "none")) {
			struct gres_item items[GRES_MAX_ITEMS];
			char *want = gres_drop_zero(arg); /* ":0" asks for none */
			size_t n;

			if (want && gres_parse(want, items, &n, NULL) < 0)
				jobopt_die(JOBOPT_EXIT_FATAL,
				           "Invalid --gres specification");
			job_desc_x_mut(d)->gres = want;
		}
		break;
	case 'G':
	case O_GPUS_PER_NODE:
	case O_GPUS_PER_TASK:
	case O_GPUS_PER_SOCKET:
		set_gpus(o, id, arg);
		break;
	case O_CPUS_PER_GPU:
		job_desc_x_mut(d)->cpus_per_gpu = jobopt_count(arg, "cpus-per-gpu");
		break;
	case O_MEM_PER_GPU: {
		uint64_t mb = parse_mem(arg, "mem-per-gpu");
		job_desc_x_mut(d)->mem_per_gpu =
		    mb ? mb : NO_VAL64; /* 0: as unset, like --mem=0 */
		break;
	}
	case O_GPU_BIND: {
		struct rota_error err = {""};
		struct gpubind b;
		if (!*arg || strlen(arg) > 256)
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --gpu-bind specification");
		if (gpubind_parse(arg, &b, &err) < 0)
			jobopt_die(JOBOPT_EXIT_FATAL, "%s", err.text);
		gpubind_release(&b);
		set_str(&job_desc_x_mut(d)->gpu_bind, arg);
		break;
	}
	case O_GRES_FLAGS:
		set_gres_flags(d, arg);
		break;
	case O_SWITCHES:
		set_switches(d, arg);
		break;
	case O_WAIT4SWITCH: {
		uint32_t min = parse_time(arg, "switches");
		d->wait4switch = min > NO_VAL / 60 ? NO_VAL - 1 : min * 60;
		break;
	}
	case 'N':
		parse_nodes(o, arg);
		break;
	case 'n':
		d->num_tasks = jobopt_count(arg, "ntasks");
		o->tasks_src = o->cur_src;
		break;
	case O_NTASKS_PER_NODE:
		d->ntasks_per_node = jobopt_count(arg, "ntasks-per-node");
		o->ntpn_src = o->cur_src;
		break;
	case O_ACCTG_FREQ: {
		uint32_t secs;
		/* the step daemons sample at this period (SLURM_ACCTG_FREQ) */
		if (!arg || acctg_freq_parse(arg, &secs) < 0)
			jobopt_die(JOBOPT_EXIT_FATAL,
			           "Invalid --acctg-freq specification: %s",
			           arg ? arg : "");
		set_str(&o->acctg_freq, arg);
		break;
	}
	case O_OPEN_MODE:
		if (arg && (*arg == 'a' || *arg == 'A'))
			set_flag(o, JOB_F_OPEN_APPEND, 0);
		else if (arg && (*arg == 't' || *arg == 'T'))
			set_flag(o, 0, JOB_F_OPEN_APPEND);
		else
			jobopt_die(JOBOPT_EXIT_FATAL,
			           "Invalid --open-mode specification");
		break;
	case 'p':
		set_str(&d->partition, arg);
		break;
	case 'Q':
		o->quiet = 1;
		break;
	case O_SIGNAL:
		check_signal_spec(arg ? arg : "", d);
		break;
	case 't':
		d->time_limit = parse_time(arg, "time");
		break;
	case O_TIME_MIN:
		job_desc_x_mut(d)->time_min = parse_time(arg, "time-min");
		if (d->ext->time_min == INFINITE32)
			d->ext->time_min = 0;
		break;
	case O_REBOOT:
		d->flags |= JOB_F_REBOOT;
		break;
	case O_SPREAD_JOB:
		d->flags |= JOB_F_SPREAD;
		break;
	case O_USE_MIN_NODES:
		d->flags |= JOB_F_USE_MIN_NODES;
		break;
	case O_BELL:
		o->bell = 1;
		break;
	case O_MEM_BIND:
		set_mem_bind(o, arg ? arg : "");
		break;
	case O_CPU_FREQ:
		if (!cpu_freq_ok(arg))
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --cpu-freq argument");
		set_str(&o->cpu_freq, arg);
		break;
	case 'M':                           /* one cluster: this one */
		cli_clusters_check(arg, 0); /* Slurm's words name --cluster */
		break;
	case 'E': /* srun -E (common/messages.h STEP_F_PRESERVE_ENV) */
		o->step_flags |= STEP_F_PRESERVE_ENV;
		break;
	case O_NTASKS_PER_GPU:
		o->ntasks_per_gpu = jobopt_count(arg, "ntasks-per-gpu");
		break;
	case O_NO_BELL:
		o->bell = -1;
		break;
	case O_CONTIGUOUS:
		d->flags |= JOB_F_CONTIGUOUS;
		break;
	case O_PRIORITY: {
		/* a number, or TOP (operators only: the controller ignores
		 * it for others, as Slurm) */
		char *end;
		unsigned long long v;
		if (arg && !strcasecmp(arg, "TOP")) {
			job_desc_x_mut(d)->priority = JOB_PRIO_TOP;
			break;
		}
		v = arg ? strtoull(arg, &end, 10) : 0;
		if (!arg || !*arg || *end || arg[0] == '-' || v > JOB_PRIO_TOP)
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --priority specification");
		job_desc_x_mut(d)->priority = (uint32_t)v; /* 0: as not given (Slurm) */
		break;
	}
	case O_DEADLINE:
		job_desc_x_mut(d)->deadline = parse_when(arg, "deadline");
		break;
	case 'S':
		o->core_spec_src = o->cur_src;
		break;
	case O_THREAD_SPEC:
		o->thread_spec_src = o->cur_src;
		break;
	case 'v':
		if (arg) /* a count, from SBATCH_DEBUG and the like */
			o->verbose = (int)strtol(arg, NULL, 10);
		else
			o->verbose++;
		break;
	case 'm': {
		struct rota_error err = {""};
		const char *ps = getenv("SLURM_DIST_PLANESIZE");
		uint32_t dist;
		if (taskdist_parse(arg ? arg : "",
		                   ps ? (uint32_t)strtoul(ps, NULL, 10) : 0, &dist,
		                   &err) < 0)
			jobopt_die(JOBOPT_EXIT_FATAL, "%s", err.text);
		o->task_dist = dist;
		set_str(&o->dist_spec, arg);
		break;
	}
	default:
		break; /* accepted, ignored */
	}
}

/* --cpu-bind=[quiet|verbose,]TYPE (common/cpubind.h): checked here, carried
 * as given to the nodes, which bind each task. */
static void set_cpu_bind(struct jobopt *o, const char *arg)
{
	struct rota_error err = {""};
	struct cpubind b;

	int rc = cpubind_parse(arg, &b, &err);

	if (rc < 0)
		jobopt_die(JOBOPT_EXIT_FATAL, "%s", err.text);
	if (rc == 1) {
		printf(
		    "CPU bind options:\n"
		    "    --cpu-bind=         Bind tasks to CPUs\n"
		    "        q[uiet]         quietly bind before task runs (default)\n"
		    "        v[erbose]       verbosely report binding before task runs\n"
		    "        no[ne]          don't bind tasks to CPUs\n"
		    "        rank            bind by task rank\n"
		    "        map_cpu:<list>  specify a CPU ID binding for each task\n"
		    "        mask_cpu:<list> specify a CPU ID binding mask for each "
		    "task\n"
		    "        sockets, cores, threads, ldoms, boards\n"
		    "                        bind each task to its own share of them\n"
		    "        help            show this help message\n");
		exit(0);
	}
	o->step_flags &= ~(uint32_t)(STEP_F_CPU_BIND | STEP_F_CPU_BIND_NONE);
	if (b.type != CPUBIND_DEFAULT) /* not --hint's to say then */
		o->layout_srcs |= 1u << o->cur_src;
	if (b.type == CPUBIND_NONE)
		o->step_flags |= STEP_F_CPU_BIND_NONE;
	else if (b.type != CPUBIND_DEFAULT)
		o->step_flags |= STEP_F_CPU_BIND;
	cpubind_release(&b);
	set_str(&o->cpu_bind, arg);
}

/* The --container-* options: checked here (common/ctrspec.h), carried as
 * given in the job_desc member at off, or a CTR_F_* flag set or cleared. */
static const struct {
	int id;
	size_t off; /* char * member of struct job_desc_ext; 0: a flag */
	int (*check)(const char *arg, struct rota_error *err);
	uint32_t set, clear;
} ctr_opts[] = {
    {O_CTR_IMAGE, offsetof(struct job_desc_ext, container_image), ctrspec_check_image},
    {O_CTR_BUNDLE, offsetof(struct job_desc_ext, container), ctrspec_check_bundle},
    {O_CTR_MOUNTS, offsetof(struct job_desc_ext, container_mounts), ctrspec_check_mounts},
    {O_CTR_WORKDIR, offsetof(struct job_desc_ext, container_workdir),
     ctrspec_check_workdir},
    {O_CTR_ENV, offsetof(struct job_desc_ext, container_env), ctrspec_check_env},
    {O_CTR_NAME, offsetof(struct job_desc_ext, container_name), ctrspec_check_name},
    {O_CTR_REMAP_ROOT, 0, NULL, CTR_F_REMAP_ROOT, 0},
    {O_CTR_NO_REMAP_ROOT, 0, NULL, 0, CTR_F_REMAP_ROOT},
    {O_CTR_MOUNT_HOME, 0, NULL, 0, CTR_F_NO_MOUNT_HOME},
    {O_CTR_NO_MOUNT_HOME, 0, NULL, CTR_F_NO_MOUNT_HOME, 0},
};

/* Returns 0 when id is not a container option. */
static int apply_container(struct jobopt *o, int id, const char *arg)
{
	struct rota_error err = {""};

	for (size_t i = 0; i < sizeof(ctr_opts) / sizeof(ctr_opts[0]); i++) {
		if (ctr_opts[i].id != id)
			continue;
		if (!ctr_opts[i].off) {
			struct job_desc_ext *x = job_desc_x_mut(&o->desc);
			x->container_flags |= ctr_opts[i].set;
			x->container_flags &= ~ctr_opts[i].clear;
			return 1;
		}
		if (ctr_opts[i].check(arg, &err) < 0)
			jobopt_die(JOBOPT_EXIT_FATAL, "%s", err.text);
		set_str((char **)((char *)job_desc_x_mut(&o->desc) + ctr_opts[i].off),
		        arg);
		return 1;
	}
	return 0;
}

/* Remember what was applied, for the -v listing. */
static void seen_push(struct jobopt *o, int id, const char *arg)
{
	if (id == O_IGNORE || o->nseen >= 256)
		return;
	o->seen = xrealloc(o->seen, (o->nseen + 1) * sizeof(*o->seen));
	o->seen[o->nseen].id = id;
	o->seen[o->nseen].src = (int)o->cur_src;
	o->seen[o->nseen++].arg = arg ? xstrdup(arg) : NULL;
}

/* The options Slurm 22.05 resets for each component of a heterogeneous
 * job (slurm_opt.c's reset_each_pass); sorted, for bsearch. */
static const char *const per_component[] = {
    "accel-bind",
    "bb",
    "bcast",
    "bcast-exclude",
    "compress",
    "constraint",
    "contiguous",
    "core-spec",
    "cores-per-socket",
    "cpu-bind",
    "cpu-freq",
    "cpus-per-gpu",
    "cpus-per-task",
    "distribution",
    "exclusive",
    "extra-node-info",
    "gpu-bind",
    "gpu-freq",
    "gpus",
    "gpus-per-node",
    "gpus-per-socket",
    "gpus-per-task",
    "gres",
    "gres-flags",
    "hint",
    "licenses",
    "mail-type",
    "mail-user",
    "mem-bind",
    "mem-per-cpu",
    "mem-per-gpu",
    "mincpus",
    "network",
    "nodefile",
    "nodelist",
    "nodes",
    "ntasks",
    "ntasks-per-core",
    "ntasks-per-gpu",
    "ntasks-per-node",
    "ntasks-per-socket",
    "ntasks-per-tres",
    "overcommit",
    "oversubscribe",
    "partition",
    "power",
    "relative",
    "resv-ports",
    "send-libs",
    "sockets-per-node",
    "spread-job",
    "switches",
    "tasks-per-node",
    "thread-spec",
    "threads-per-core",
    "tmp",
    "use-min-nodes",
};

static void list_push(struct jobopt_list *l, int id, const char *arg);

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void jobopt_carry(struct jobopt *to, const struct jobopt *from, enum jobopt_src src)
{
	struct jobopt_list l = {0};

	for (size_t i = 0; i < from->nseen; i++) {
		const struct jobopt_item *it = &from->seen[i];
		const struct opt_def *d = opt_find(from->cmd, it->id);
		size_t later = i + 1;
		/* the last value only: components add up to the record's cap */
		while (later < from->nseen && from->seen[later].id != it->id)
			later++;
		if (later < from->nseen)
			continue;
		/* what is said once for all: not again for each component */
		if (!d || it->src == JOBOPT_SRC_ENV || it->id == O_HET_GROUP ||
		    it->id == O_WRAP || it->id == 'v' ||
		    bsearch(&d->name, per_component,
		            sizeof(per_component) / sizeof(per_component[0]),
		            sizeof(per_component[0]), by_str))
			continue;
		list_push(&l, it->id, it->arg);
	}
	jobopt_apply_list(to, &l, src);
	jobopt_list_release(&l);
}

/* -v: the options given, each once (the last value), as Slurm's commands
 * list them before anything else. */
/* An option's value as Slurm's "defined options" list shows it: times as
 * [D-]HH:MM:SS, sizes in their largest whole unit (1G, 1000); others as
 * given. */
static const char *shown_value(int id, const char *v, char *buf, size_t len)
{
	static const char units[] = "MGTP";
	uint32_t min;
	uint64_t mb;
	size_t u = 0;

	if (id == 't' || id == O_TIME_MIN) {
		if (timefmt_parse_limit(v, &min) < 0)
			return v;
		return min == TIME_INFINITE ? "UNLIMITED"
		                            : timefmt_duration((long)min * 60, buf, len);
	}
	if (id != O_MEM && id != O_MEM_PER_CPU && id != O_MEM_PER_GPU)
		return v;
	if (timefmt_parse_mem(v, &mb) < 0)
		return v;
	while (mb && mb % 1024 == 0 && u + 1 < sizeof(units) - 1)
		mb /= 1024, u++;
	if (u)
		snprintf(buf, len, "%llu%c", (unsigned long long)mb, units[u]);
	else
		snprintf(buf, len, "%llu", (unsigned long long)mb);
	return buf;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -v: the options given, each once with its last value, by name as Slurm
 * lists them. */
static void print_set_options(const struct jobopt *o)
{
	char **lines = xcalloc(o->nseen + 1, sizeof(*lines));
	size_t n = 0;

	for (size_t i = 0; i < o->nseen; i++) {
		const struct opt_def *d = NULL;
		const char *v = o->seen[i].arg;
		char count[32];
		size_t k;

		for (k = i + 1; k < o->nseen && o->seen[k].id != o->seen[i].id; k++)
			;
		if (k < o->nseen)
			continue; /* given again later */
		for (size_t t = 0; t < jobopt_table_len && !d; t++)
			if (jobopt_table[t].id == o->seen[i].id &&
			    (jobopt_table[t].cmds & o->cmd))
				d = &jobopt_table[t];
		if (!d)
			continue;
		if (o->seen[i].id == 'v') {
			snprintf(count, sizeof(count), "%d", o->verbose);
			v = count;
		} else if (v) {
			v = shown_value(o->seen[i].id, v, count, sizeof(count));
		}
		lines[n++] = xasprintf("%-20s: %s", d->name, v ? v : "set");
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	fprintf(stderr, "%s: defined options\n", cli_prog);
	fprintf(stderr, "%s: -------------------- --------------------\n", cli_prog);
	for (size_t i = 0; i < n; i++) {
		fprintf(stderr, "%s: %s\n", cli_prog, lines[i]);
		free(lines[i]);
	}
	fprintf(stderr, "%s: -------------------- --------------------\n", cli_prog);
	fprintf(stderr, "%s: end of defined options\n", cli_prog);
	free(lines);
}

static void apply_one(struct jobopt *o, int id, const char *arg)
{
	long v;

	seen_push(o, id, arg);
	switch (id) {
	case O_REQUEUE:
		set_flag(o, JOB_F_REQUEUE, JOB_F_NO_REQUEUE);
		return;
	case O_NO_REQUEUE:
		set_flag(o, JOB_F_NO_REQUEUE, JOB_F_REQUEUE);
		return;
	case O_PARSABLE:
		o->parsable = 1;
		return;
	case O_TEST_ONLY:
		o->test_only = 1;
		return;
	case O_WRAP:
		set_str(&o->wrap, arg);
		return;
	case O_GET_USER_ENV:
		check_get_user_env(arg);
		o->get_user_env = 1;
		return;
	case 'I':
		if (!arg) {
			o->immediate = 1;
		} else if ((v = cli_parse_long(arg)) < 1 || v > INT32_MAX) {
			jobopt_die(JOBOPT_EXIT_FATAL,
			           "Invalid --immediate specification");
		} else {
			o->immediate = (uint32_t)v;
		}
		return;
	case 'W':
		if (o->cmd == JOBOPT_SBATCH) {
			o->wait = 1;
		} else if ((v = cli_parse_long(arg)) < 0 || v > INT32_MAX) {
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --wait specification");
		} else {
			o->wait_secs = (uint32_t)v;
		}
		return;
	case O_CPU_BIND:
		set_cpu_bind(o, arg ? arg : "");
		return;
	case 'X':
		o->disable_status = 1;
		return;
	case O_EXACT:
		o->step_flags |= STEP_F_EXACT;
		return;
	case O_JOBID:
		o->jobid = parse_job_id(arg);
		return;
	case 'K':
		if (o->cmd == JOBOPT_SALLOC) {
			o->kill_signal = arg && *arg ? signal_parse(arg) : SIGTERM;
			if (o->kill_signal < 0)
				jobopt_die(JOBOPT_EXIT_FATAL, "Invalid signal name %s",
				           arg);
		} else if (arg && *arg && !strcmp(arg, "0")) {
			o->step_flags &= ~(uint32_t)STEP_F_KILL_ON_BAD_EXIT;
			o->kill_bad_exit = 0;
		} else {
			o->step_flags |= STEP_F_KILL_ON_BAD_EXIT;
			o->kill_bad_exit = 1;
		}
		return;
	case 'l':
		o->step_flags |= STEP_F_LABEL;
		return;
	case O_MPI:
		set_mpi(o, arg ? arg : "");
		return;
	case O_MULTI_PROG:
		o->step_flags |= STEP_F_MULTI_PROG;
		return;
	case O_OVERLAP:
		o->step_flags |= STEP_F_OVERLAP;
		return;
	case O_QUIT_ON_INTR:
		o->quit_on_interrupt = 1;
		return;
	case 'r':
		errno = 0;
		v = arg && *arg ? cli_parse_long(arg) : -1;
		if (v < 0 || v > INT32_MAX)
			jobopt_die(JOBOPT_EXIT_ERROR,
			           "Invalid numeric value \"%s\" for --relative.",
			           arg ? arg : "");
		o->relative = (uint32_t)v;
		return;
	case 'O':
		/* the allocation as if one task a node; its steps may then run
		 * more tasks than CPUs */
		o->desc.flags |= JOB_F_OVERCOMMIT;
		if (o->cmd == JOBOPT_SRUN)
			o->step_flags |= STEP_F_OVERCOMMIT;
		return;
	case 'u':
		o->step_flags |= STEP_F_UNBUFFERED;
		return;
	case O_DEBUGGER_TEST: /* as a debugger setting MPIR_being_debugged */
		o->debugger_test = 1;
		return;
	case O_PTY: /* implies -u */
		o->step_flags |= STEP_F_PTY | STEP_F_UNBUFFERED;
		return;
	case O_PROPAGATE: {
		struct rota_error err = {""};

		if (rlimits_parse(arg, &o->propagate_kinds, &err) < 0)
			jobopt_die(JOBOPT_EXIT_ERROR,
			           "Invalid --propagate specification: %s", err.text);
		o->propagate = 1;
		return;
	}
	case O_NO_SHELL:
		o->desc.flags |= JOB_F_NO_SHELL;
		return;
	case 'Z':
		jobopt_die(
		    JOBOPT_EXIT_ERROR,
		    "--no-allocate: every step runs in a job in Rota (srun --jobid, "
		    "or an allocation)");
	case O_PROLOG:
		set_str(&o->prolog, arg);
		return;
	case O_EPILOG:
		set_str(&o->epilog, arg);
		return;
	case O_TASK_PROLOG:
		set_str(&o->task_prolog, arg);
		return;
	case O_TASK_EPILOG:
		set_str(&o->task_epilog, arg);
		return;
	case O_RESV_PORTS: /* no count: none (as Slurm's) */
		o->resv_ports = arg && *arg ? resv_ports_parse(arg) : 0;
		return;
	case O_SLURMD_DEBUG:
		o->slurmd_debug = slurmd_debug_parse(arg);
		return;
	case O_BCAST: /* "" (SLURM_BCAST=): the default name */
		o->bcast = 1;
		free(o->bcast_dest);
		o->bcast_dest = arg && *arg ? xstrdup(arg) : NULL;
		return;
	case O_BCAST_EXCLUDE:
		set_str(&o->bcast_exclude, arg);
		return;
	case O_COMPRESS:
		if ((o->compress = bcast_send_compress(arg)) < 0)
			exit(JOBOPT_EXIT_ERROR);
		return;
	case O_SEND_LIBS:
		if (!arg || !strcasecmp(arg, "yes") || !strcasecmp(arg, "y"))
			o->send_libs = 1;
		else if (!strcasecmp(arg, "no") || !strcasecmp(arg, "n"))
			o->send_libs = 0;
		else
			jobopt_die(JOBOPT_EXIT_ERROR,
			           "Invalid --send-libs specification");
		return;
	case O_ACCEL_BIND: { /* g: the GPUs nearest, as --gpu-bind=closest */
		const char *bad = arg + strspn(arg, "gnv");
		if (!*arg || *bad)
			jobopt_die(JOBOPT_EXIT_FATAL,
			           "Invalid --accel-bind specification");
		if (strchr(arg, 'g') && !job_desc_X(&o->desc)->gpu_bind)
			set_str(&job_desc_x_mut(&o->desc)->gpu_bind,
			        strchr(arg, 'v') ? "verbose,closest" : "closest");
		return;
	}
	default:
		if (!apply_container(o, id, arg) && !jobopt_layout_apply(o, id, arg))
			apply_common(o, id, arg);
	}
}

/* -m as SLURM_DISTRIBUTION says it: each "*" the level's default, as Slurm
 * writes them (nodes: block; sockets: cyclic; cores: what sockets have):
 * "*:*:*" is "block:cyclic:cyclic", "*,pack" is "block,pack". */
static char *dist_text(const char *spec)
{
	const char *comma = strchr(spec, ',');
	size_t len = comma ? (size_t)(comma - spec) : strlen(spec);
	char *out = xstrdup(""), *levels = xstrndup(spec, len), *save = NULL;
	char *prev = NULL;
	int i = 0;

	for (char *w = strtok_r(levels, ":", &save); w;
	     w = strtok_r(NULL, ":", &save), i++) {
		/* a copy: a third "*" is the level before's, prev itself */
		char *val = xstrdup(strcmp(w, "*")    ? w
		                    : i == 0          ? "block"
		                    : i == 1 || !prev ? "cyclic"
		                                      : prev);
		char *next = xasprintf("%s%s%s", out, i ? ":" : "", val);

		free(out);
		out = next;
		free(prev);
		prev = val;
	}
	free(prev);
	free(levels);
	if (comma) {
		char *next = xasprintf("%s%s", out, comma);
		free(out);
		out = next;
	}
	return out;
}

char **jobopt_dist_env(const struct jobopt *o, char **env)
{
	char *text;

	if (!o->dist_spec)
		return env;
	if (TASKDIST_TYPE(o->task_dist) == TASKDIST_PLANE) {
		/* "plane" and the size apart, as Slurm sets them */
		const char *eq = strchr(o->dist_spec, '=');
		size_t n = eq ? (size_t)(eq - o->dist_spec) : strlen(o->dist_spec);
		char *s = xasprintf("%.*s%s", (int)n, o->dist_spec,
		                    eq ? eq + 1 + strspn(eq + 1, "0123456789") : "");
		env = strv_setenv(env, "SLURM_DISTRIBUTION", s);
		free(s);
		return strv_setenvf(env, "SLURM_DIST_PLANESIZE", "%u",
		                    TASKDIST_PLANE_SIZE(o->task_dist));
	}
	text = dist_text(o->dist_spec);
	env = strv_setenv(env, "SLURM_DISTRIBUTION", text);
	free(text);
	return env;
}

/* ---- init / release ---- */

void jobopt_init(struct jobopt *o, enum jobopt_cmd cmd)
{
	struct job_desc *d = &o->desc;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	job_desc_init(d); /* nice 0: the neutral adjustment; see jobopt.h */
	/* who we are in our own eyes: the controller refuses a mismatch */
	job_desc_x_mut(d)->self_uid = (uint32_t)getuid() + 1;
	o->jobid = NO_VAL;
	o->wait_secs = NO_VAL;
	o->relative = NO_VAL;
	o->resv_ports = NO_VAL;
	o->out_task = o->err_task = JOBOPT_IO_ALL;
	/* srun's stdin goes to every task unless -i says otherwise (Slurm's
	 * default; --pty gives it to task 0, srun.c) */
	o->in_task = JOBOPT_IO_ALL;
	o->kill_bad_exit = -1;
	o->compress = -1;
	o->send_libs = -1;
}

void jobopt_release(struct jobopt *o)
{
	codec_release(&job_desc_type, &o->desc);
	free(o->export_spec);
	free(o->acctg_freq);
	free(o->wrap);
	free(o->cpu_bind);
	free(o->mem_bind);
	free(o->cpu_freq);
	free(o->hint);
	free(o->dist_spec);
	free(o->task_hosts);
	free(o->mpi);
	free(o->export_file);
	free(o->bbf);
	free(o->prolog);
	free(o->epilog);
	free(o->task_prolog);
	free(o->task_epilog);
	free(o->bcast_dest);
	free(o->bcast_exclude);
	for (size_t i = 0; i < o->nseen; i++)
		free(o->seen[i].arg);
	free(o->seen);
	memset(o, 0, sizeof(*o));
}

/* ---- collecting ---- */

/* getopt tables for cmd: longopts (caller frees) and the short option string. */
static struct option *build_getopt(enum jobopt_cmd cmd, char *shortopts, size_t len)
{
	struct option *lo = xcalloc(jobopt_table_len + 1, sizeof(*lo));
	size_t n = 0, k = 0;

	shortopts[k++] = '+';
	for (size_t i = 0; i < jobopt_table_len; i++) {
		const struct opt_def *d = &jobopt_table[i];

		if (!(d->cmds & cmd))
			continue;
		lo[n++] = (struct option){d->name, d->has_arg, NULL, d->id};
		if (d->id < 128 && k + 4 < len) {
			shortopts[k++] = (char)d->id;
			if (d->has_arg != no_argument)
				shortopts[k++] = ':';
			if (d->has_arg == optional_argument)
				shortopts[k++] = ':';
		}
	}
	shortopts[k] = '\0';
	return lo;
}

static void list_push(struct jobopt_list *l, int id, const char *arg)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n].id = id;
	l->v[l->n].arg = arg ? xstrdup(arg) : NULL;
	l->v[l->n].src = 0;
	l->n++;
}

void jobopt_collect(enum jobopt_cmd cmd, int argc, char **argv, struct jobopt_list *ret,
                    int *ret_optind)
{
	char shortopts[256];
	struct option *lo = build_getopt(cmd, shortopts, sizeof(shortopts));
	char **av = xcalloc((size_t)argc + 1, sizeof(*av));
	int c;

	memcpy(av, argv, (size_t)argc * sizeof(*av));
	av[0] = (char *)cli_prog; /* getopt's messages name the command, as Slurm's */
	memset(ret, 0, sizeof(*ret));
	optind = 0; /* full re-initialisation (GNU) */
	opterr = 1;
	while ((c = getopt_long(argc, av, shortopts, lo, NULL)) != -1) {
		switch (c) {
		case '?':
		case ':':
			fprintf(stderr, "Try \"%s --help\" for more information\n",
			        cli_prog);
			exit(JOBOPT_EXIT_FATAL);
		case 'h':
			jobopt_help_print(cmd, stdout);
			exit(0);
		case O_USAGE:
			jobopt_usage_print(cmd, stdout);
			exit(0);
		case 'V':
			fmt_print_version();
		case O_HINT: /* =help answers before any script is read */
			jobopt_layout_hint_help(optarg);
			list_push(ret, c, optarg);
			break;
		default: {
			const struct opt_def *d = opt_find(cmd, c);

			/* -S and --thread-spec: no effect, but seen (spec_check) */
			if (d && d->status == ST_NOEFF && c != 'S' && c != O_THREAD_SPEC)
				c = O_IGNORE;
			list_push(ret, c, optarg);
		}
		}
	}
	*ret_optind = optind;
	free(av);
	free(lo);
}

void jobopt_list_release(struct jobopt_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].arg);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const char *jobopt_list_last(const struct jobopt_list *l, int id, int *ret_found)
{
	const char *v = NULL;
	int found = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].id == id) {
			v = l->v[i].arg;
			found = 1;
		}
	}
	if (ret_found)
		*ret_found = found;
	return v;
}

/* ---- applying ---- */

void jobopt_apply_list(struct jobopt *o, const struct jobopt_list *l, enum jobopt_src src)
{
	o->cur_src = src;
	for (size_t i = 0; i < l->n; i++)
		apply_one(o, l->v[i].id, l->v[i].arg);
}

void jobopt_apply_env(struct jobopt *o, char *const *env)
{
	int in_alloc = o->cmd == JOBOPT_SRUN && (strv_getenv(env, "SLURM_JOB_ID") ||
	                                         strv_getenv(env, "SLURM_JOBID"));

	o->cur_src = JOBOPT_SRC_ENV;
	for (size_t i = 0; i < sizeof(env_table) / sizeof(env_table[0]); i++) {
		const struct opt_def *d;
		const char *v;

		if (!(env_table[i].cmds & o->cmd) ||
		    !(v = strv_getenv(env, env_table[i].name)))
			continue;
		/* inside an allocation the job's name is not each step's */
		if (in_alloc && env_table[i].id == 'J')
			continue;
		d = opt_find(o->cmd, env_table[i].id);
		if (d && d->has_arg == no_argument) {
			if (!jobopt_env_flag(v))
				continue;
			/* SBATCH_DEBUG=4 is -vvvv; other flags take no value */
			if (env_table[i].id != 'v' || !*v || !strcasecmp(v, "yes"))
				v = NULL;
		} else if (d && d->has_arg == optional_argument && !*v) {
			v = NULL;
		}
		apply_one(o, env_table[i].id, v);
	}
}

/* ---- finishing ---- */

int jobopt_env_flag(const char *v)
{
	char *end;

	if (!v)
		return 0;
	if (!*v || !strcasecmp(v, "yes"))
		return 1;
	return strtol(v, &end, 10) != 0 && !*end;
}

const char *jobopt_basename(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : path;
}

static char *current_dir(void)
{
	char *cwd = getcwd(NULL, 0);

	if (!cwd)
		jobopt_die(JOBOPT_EXIT_ERROR, "getcwd failed: %s", strerror(errno));
	return cwd;
}

/* An octal umask ("0022"); -1 if s is not one. */
static int env_umask(const char *s, mode_t *ret)
{
	char *end;
	unsigned long v;

	if (!s || !*s || strspn(s, "01234567") != strlen(s))
		return -1;
	v = strtoul(s, &end, 8);
	if (*end || v > 0777)
		return -1;
	*ret = (mode_t)v;
	return 0;
}

/* --acctg-freq with a memory limit: sampling less often than the cluster
 * (JobAcctGatherFrequency) would let memory go unwatched, so Slurm refuses
 * it. */
static void acctg_freq_check(const struct jobopt *o)
{
	uint32_t want, have;

	if (!o->acctg_freq ||
	    (o->desc.mem_per_node == NO_VAL64 && o->desc.mem_per_cpu == NO_VAL64) ||
	    acctg_freq_parse(o->acctg_freq, &want) < 0 ||
	    acctg_freq_parse(cli_conf()->acctg_freq, &have) < 0 || !want || !have ||
	    want <= have)
		return;
	cli_error("%sInvalid accounting frequency requested",
	          o->cmd == JOBOPT_SBATCH   ? "Batch job submission failed: "
	          : o->cmd == JOBOPT_SALLOC ? "Job submit/allocate failed: "
	                                    : "Unable to allocate resources: ");
	exit(JOBOPT_EXIT_ERROR);
}

/* -S and --thread-spec exclude each other, as in Slurm; both are ignored
 * where slurm.conf does not set AllowSpecResourcesUsage (Rota keeps no cores
 * for the system either way). */
static void spec_check(const struct jobopt *o)
{
	/* the command line and #SBATCH lines are the user's, as Slurm counts */
	int cli = (o->core_spec_src == JOBOPT_SRC_ARGV ||
	           o->core_spec_src == JOBOPT_SRC_SCRIPT) +
	          (o->thread_spec_src == JOBOPT_SRC_ARGV ||
	           o->thread_spec_src == JOBOPT_SRC_SCRIPT);

	if (!o->core_spec_src && !o->thread_spec_src)
		return;
	if (cli > 1) {
		fprintf(stderr,
		        "%s: fatal: -S/--core-spec and --thred-spec options are mutually "
		        "exclusive\n",
		        cli_prog);
		exit(JOBOPT_EXIT_FATAL);
	}
	if (!cli && o->core_spec_src == JOBOPT_SRC_ENV &&
	    o->thread_spec_src == JOBOPT_SRC_ENV) {
		fprintf(stderr,
		        "%s: fatal: Both --core-spec and --thread-spec set using "
		        "environment variables. Those options are mutually exclusive.\n",
		        cli_prog);
		exit(JOBOPT_EXIT_FATAL);
	}
	if (!cli_conf()->allow_spec_resources)
		fprintf(stderr,
		        "%s: error: Ignoring %s since it's not allowed by configuration "
		        "(AllowSpecResourcesUsage = No)\n",
		        cli_prog,
		        o->thread_spec_src > o->core_spec_src ? "--thread-spec" : "-S");
}

void jobopt_finish(struct jobopt *o)
{
	struct job_desc *d = &o->desc;
	const struct job_desc_ext *x;
	char host[256] = "";
	mode_t mask;

	jobopt_layout_finish(o); /* may give the request its out-of-line part */
	x = job_desc_X(d);
	if (d->mem_per_node != NO_VAL64 && d->mem_per_cpu != NO_VAL64) {
		fprintf(stderr,
		        "%s: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are "
		        "mutually exclusive.\n",
		        cli_prog);
		exit(JOBOPT_EXIT_FATAL);
	}
	if (o->verbose && !o->quiet)
		print_set_options(o);
	if (o->verbose >= 2 && !o->quiet) /* -vv: Slurm's debug level */
		fprintf(stderr, "%s: debug:  configuration read from %s\n", cli_prog,
		        cli_conf()->path ? cli_conf()->path : "(built-in)");
	spec_check(o);
	if (x->deadline && d->begin_time && x->deadline < d->begin_time) {
		fprintf(stderr,
		        "%s: error: Incompatible begin and deadline time specification\n",
		        cli_prog);
		exit(JOBOPT_EXIT_ERROR);
	}
	acctg_freq_check(o);
	if (x->gpus_per_socket && !x->sockets_per_node) {
		fprintf(stderr,
		        "%s: fatal: --gpus-per-socket option requires --sockets-per-node "
		        "specification\n",
		        cli_prog);
		exit(JOBOPT_EXIT_FATAL);
	}
	if (!d->work_dir) {
		d->work_dir = current_dir();
	} else if (d->work_dir[0] != '/') {
		char *cwd = current_dir();
		char *abs = xasprintf("%s/%s", cwd, d->work_dir);
		free(cwd);
		free(d->work_dir);
		d->work_dir = abs;
	}
	gethostname(host, sizeof(host) - 1);
	if (!d->submit_host)
		d->submit_host = xstrdup(host);
	/* SLURM_UMASK, when set (inside a job), is the umask, as in Slurm */
	mask = umask(0);
	umask(mask);
	d->umask = (uint32_t)mask;
	if (env_umask(getenv("SLURM_UMASK"), &mask) == 0)
		d->umask = (uint32_t)mask;

	jobopt_hostfile_finish(o);
	jobopt_gpu_finish(o);
	/* Tasks can't outnumber nodes: with -n smaller than a node count that came
	 * from the environment (an allocation's SLURM_NNODES) use fewer nodes. */
	if (d->num_tasks != NO_VAL && d->min_nodes != NO_VAL &&
	    d->num_tasks < d->min_nodes) {
		if (o->nodes_src == JOBOPT_SRC_ARGV && o->tasks_src == JOBOPT_SRC_ARGV)
			fprintf(
			    stderr,
			    "%s: warning: can't run %u processes on %u nodes, setting "
			    "nnodes to %u\n",
			    cli_prog, d->num_tasks, d->min_nodes, d->num_tasks);
		d->min_nodes = d->num_tasks;
		if (d->max_nodes != NO_VAL && d->max_nodes > d->min_nodes)
			d->max_nodes = d->min_nodes;
	}
	if (d->max_nodes != NO_VAL && d->max_nodes < d->min_nodes)
		d->max_nodes = d->min_nodes;
}

/* The export file's bytes (a file, or a descriptor 3.. given by number),
 * at most JOBOPT_EXPORT_FILE_MAX. */
#define JOBOPT_EXPORT_FILE_MAX (4u << 20)
static char *export_file_read(const char *spec, size_t *ret_len)
{
	char *end, *buf = xmalloc(JOBOPT_EXPORT_FILE_MAX + 1);
	long n = strtol(spec, &end, 10);
	int fd = -1, own = 0;
	size_t len = 0;
	ssize_t got;

	if (*spec && !*end && n >= 3 && n <= sysconf(_SC_OPEN_MAX) &&
	    fcntl((int)n, F_GETFL) >= 0)
		fd = (int)n;
	else if ((fd = open(spec, O_RDONLY | O_CLOEXEC)) >= 0)
		own = 1;
	else
		jobopt_die(JOBOPT_EXIT_ERROR, "Could not open user environment file %s",
		           spec);
	while ((got = read(fd, buf + len, JOBOPT_EXPORT_FILE_MAX + 1 - len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			jobopt_die(JOBOPT_EXIT_ERROR, "read(environment_file): %s",
			           strerror(errno));
		if ((len += (size_t)got) > JOBOPT_EXPORT_FILE_MAX)
			jobopt_die(JOBOPT_EXIT_ERROR,
			           "--export-file %s: more than %u bytes", spec,
			           JOBOPT_EXPORT_FILE_MAX);
	}
	if (own)
		close(fd);
	*ret_len = len;
	return buf;
}

/* --export-file's NAME=value entries, each ended by a NUL (a last one
 * without is not taken, as Slurm's), over env's. */
static char **export_file_env(const char *spec, char **env)
{
	size_t len, n = 0;
	char *buf = export_file_read(spec, &len);

	for (char *p = buf, *nul;
	     p < buf + len && (nul = memchr(p, '\0', buf + len - p)) && nul > p;
	     p = nul + 1) {
		char *eq = strchr(p, '=');
		if (!eq || eq == p)
			continue;
		if (++n > JOBSCRIPT_ENV_MAX)
			jobopt_die(JOBOPT_EXIT_ERROR,
			           "--export-file %s: more than %u variables", spec,
			           JOBSCRIPT_ENV_MAX);
		*eq = '\0';
		env = strv_setenv(env, p, eq + 1);
	}
	free(buf);
	return env;
}

/* -vv: Slurm's debug lines for the limits and umask the tasks will get. */
static void debug_propagated(char *const *env)
{
	const char *v;

	for (size_t i = 0; env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		if (strncmp(env[i], "SLURM_RLIMIT_", 13) || !eq)
			continue;
		fprintf(stderr, "%s: debug:  propagating RLIMIT_%.*s=%s\n", cli_prog,
		        (int)(eq - env[i] - 13), env[i] + 13,
		        eq[1] == 'U' ? eq + 2 : eq + 1);
	}
	if ((v = strv_getenv(env, "SLURM_UMASK")))
		fprintf(stderr, "%s: debug:  propagating UMASK=%s\n", cli_prog, v);
}

char **jobopt_export_env(const struct jobopt *o, char *const *env)
{
	struct rota_error err = {""};
	char **out = NULL;
	int rc = jobscript_export_env(o->export_spec, env, &out, &err);

	if (rc == -EINVAL)
		jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --export specification: %s",
		           err.text);
	if (rc < 0)
		jobopt_die(JOBOPT_EXIT_ERROR, "%s",
		           rc == -E2BIG ? err.text : strerror(-rc));
	/* the stepd sets the tasks' umask from SLURM_UMASK; like any SLURM_*
	 * variable it goes whatever --export says */
	if (!strv_getenv(out, "SLURM_UMASK") && o->desc.umask != NO_VAL) {
		char mask[8];
		snprintf(mask, sizeof(mask), "%04o", o->desc.umask & 0777);
		out = strv_setenv(out, "SLURM_UMASK", mask);
	}
	if (o->export_file)
		out = export_file_env(o->export_file, out);
	if (o->acctg_freq)
		out = strv_setenv(out, "SLURM_ACCTG_FREQ", o->acctg_freq);
	if (o->cpu_freq) /* the tasks and steps see what was asked */
		out = strv_setenv(out, "SLURM_CPU_FREQ_REQ", o->cpu_freq);
	if (o->mem_bind && o->cmd != JOBOPT_SRUN) /* the allocation's steps bind so */
		out = strv_setenv(out, "SLURM_MEM_BIND", o->mem_bind);
	if (o->ntasks_per_gpu) /* for the job's steps, as Slurm sets it */
		out = strv_setenvf(out, "SLURM_NTASKS_PER_GPU", "%u", o->ntasks_per_gpu);
	/* this process's limits, for the tasks (PropagateResourceLimits) */
	if (o->cmd & (JOBOPT_SBATCH | JOBOPT_SRUN)) {
		out = rlimits_to_env(
		    out, o->propagate ? o->propagate_kinds : rlimits_conf(cli_conf()),
		    o->propagate);
		if (o->verbose >= 2 && !o->quiet)
			debug_propagated(out);
	}
	return out;
}
