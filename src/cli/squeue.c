/* squeue.c - list jobs as Slurm's squeue does.
 *
 * One MSG_JOB_INFO_REQ (for just that job when a single -j id is given), then
 * filter, sort and print here.  Without -t or -j only jobs that are not finished
 * are shown.  The default sort is Slurm's "P,t,-p": partition, state code (so
 * "CG" < "PD" < "R"), then priority high to low; job id breaks ties.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/ranksort.h"
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/fmtspec.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "common/common.h"

#define SQUEUE_DEFAULT_FMT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define SQUEUE_LONG_FMT    "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
#define SQUEUE_STEPS_FMT   "%.15i %.8j %.9P %.8u %.9M %N"
#define SQUEUE_START_FMT   "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"
#define SQUEUE_SORT        "P,t,-p"
#define SQUEUE_MAX_SORT    16

/* Field ids beyond the -o letters (-O only). */
enum {
	F_NUM_TASKS = 256,
	F_EXIT_CODE,
	F_DERIVED_EC,
	F_STDOUT,
	F_STDERR,
	F_STDIN,
	F_BATCH_FLAG,
	F_RESTART_CNT,
	F_CPUS_PER_TASK,
	F_CLUSTER,
	F_PENDING_TIME,
	F_REQUEUE,
	F_TRES_ALLOC,
	F_ELIGIBLE_TIME,
	F_ACCRUE_TIME,
	F_MAX_NODES,
	F_NTPERNODE,
	F_ARRAY_TASK,
	F_REBOOT,
	F_SUBMIT_HOST,
	F_STEP_ID,
	F_STEP_NAME,
};

#define NOCUT FMTSPEC_NOCUT
static const struct fmt_field job_fields[] = {
    {'a', 'a', "Account", "ACCOUNT", 0},
    {'A', 'A', NULL, "JOBID", 0},
    {'b', 'b', "tres-per-node", "TRES_PER_NODE", 0},
    {'B', 'B', "BatchHost", "EXEC_HOST", 0},
    {'c', 'c', "MinCpus", "MIN_CPUS", 0},
    {'C', 'C', "NumCPUs", "CPUS", 0},
    {'d', 'd', "MinTmpDisk", "MIN_TMP_DISK", 0},
    {'D', 'D', "NumNodes", "NODES", 0},
    {'e', 'e', "EndTime", "END_TIME", 0},
    {'E', 'E', "Dependency", "DEPENDENCY", 0},
    {'f', 'f', "Feature", "FEATURES", 0},
    {'F', 'F', "ArrayJobID", "ARRAY_JOB_ID", 0},
    {'F', 0, "JobArrayID", "ARRAY_JOB_ID", 0},
    {'g', 'g', "GroupName", "GROUP", 0},
    {'G', 'G', "GroupID", "GROUP", 0},
    {'h', 'h', "OverSubscribe", "OVER_SUBSCRIBE", 0},
    {'H', 'H', "Sockets", "SOCKETS_PER_NODE", 0},
    {'i', 'i', "JobID", "JOBID", 0},
    {'I', 'I', "Cores", "CORES_PER_SOCKET", 0},
    {'j', 'j', "Name", "NAME", 0},
    {'J', 'J', "Threads", "THREADS_PER_CORE", 0},
    {'k', 'k', "Comment", "COMMENT", 0},
    {'K', 'K', "ArrayTaskID", "ARRAY_TASK_ID", 0},
    {'l', 'l', "TimeLimit", "TIME_LIMIT", 0},
    {'L', 'L', "TimeLeft", "TIME_LEFT", 0},
    {'m', 'm', "MinMemory", "MIN_MEMORY", 0},
    {'M', 'M', "TimeUsed", "TIME", 0},
    {'n', 'n', "ReqNodes", "REQ_NODES", 0},
    {'N', 'N', "NodeList", "NODELIST", NOCUT},
    {'o', 'o', "Command", "COMMAND", 0},
    {'O', 'O', "Contiguous", "CONTIGUOUS", 0},
    {'p', 'p', "Priority", "PRIORITY", 0},
    {'P', 'P', "Partition", "PARTITION", 0},
    {'q', 'q', "QOS", "QOS", 0},
    {'Q', 'Q', "PriorityLong", "PRIORITY", 0},
    {'r', 'r', "Reason", "REASON", 0},
    {'R', 'R', "ReasonList", "NODELIST(REASON)", 0},
    {'S', 'S', "StartTime", "START_TIME", 0},
    {'t', 't', "StateCompact", "ST", 0},
    {'T', 'T', "State", "STATE", 0},
    {'u', 'u', "UserName", "USER", 0},
    {'U', 'U', "UserID", "UID", 0},
    {'v', 'v', "Reservation", "RESERVATION", 0},
    {'V', 'V', "SubmitTime", "SUBMIT_TIME", 0},
    {'w', 'w', "WCKey", "WCKEY", 0},
    {'W', 'W', "Licenses", "LICENSES", 0},
    {'x', 'x', "ExcNodes", "EXC_NODES", 0},
    {'y', 'y', "Nice", "NICE", 0},
    {'Y', 'Y', "SchedNodes", "SCHEDNODES", 0},
    {'z', 'z', "SCT", "S:C:T", 0},
    {'Z', 'Z', "WorkDir", "WORK_DIR", 0},
    {F_NUM_TASKS, 0, "NumTasks", "TASKS", 0},
    {F_EXIT_CODE, 0, "exit_code", "EXIT_CODE", 0},
    {F_DERIVED_EC, 0, "DerivedEC", "DERIVED_EC", 0},
    {F_STDOUT, 0, "STDOUT", "STDOUT", 0},
    {F_STDERR, 0, "STDERR", "STDERR", 0},
    {F_STDIN, 0, "STDIN", "STDIN", 0},
    {F_BATCH_FLAG, 0, "BatchFlag", "BATCH_FLAG", 0},
    {F_RESTART_CNT, 0, "RestartCnt", "RESTART_CNT", 0},
    {F_CPUS_PER_TASK, 0, "cpus-per-task", "CPUS_PER_TASK", 0},
    {F_CLUSTER, 0, "Cluster", "CLUSTER", 0},
    {F_PENDING_TIME, 0, "PendingTime", "PENDING_TIME", 0},
    {F_REQUEUE, 0, "Requeue", "REQUEUE", 0},
    {F_TRES_ALLOC, 0, "tres-alloc", "TRES_ALLOC", 0},
    {F_ELIGIBLE_TIME, 0, "EligibleTime", "ELIGIBLE_TIME", 0},
    {F_ACCRUE_TIME, 0, "AccrueTime", "ACCRUE_TIME", 0},
    {F_MAX_NODES, 0, "MaxNodes", "MAX_NODES", 0},
    {F_NTPERNODE, 0, "NTPerNode", "TASKS_PER_NODE", 0},
    {F_REBOOT, 0, "Reboot", "REBOOT", 0},
    {F_SUBMIT_HOST, 0, "AllocNodes", "ALLOC_NODES", 0},
    {F_STEP_ID, 0, "StepID", "STEPID", 0},
    {F_STEP_NAME, 0, "StepName", "STEP_NAME", 0},
    {'N', 0, "Nodes", "NODELIST", NOCUT},
};
#undef NOCUT

/* The -i step format needs "STEPID" under %i. */
static const struct fmt_field step_fields[] = {
    {'i', 'i', NULL, "STEPID", 0},     {'j', 'j', NULL, "NAME", 0},
    {'P', 'P', NULL, "PARTITION", 0},  {'u', 'u', NULL, "USER", 0},
    {'M', 'M', NULL, "TIME", 0},       {'N', 'N', NULL, "NODELIST", FMTSPEC_NOCUT},
    {'l', 'l', NULL, "TIME_LIMIT", 0}, {'A', 'A', NULL, "NTASKS", 0},
    {'U', 'U', NULL, "UID", 0},        {'S', 'S', NULL, "START_TIME", 0},
};

struct sort_key {
	char key;
	int desc;
};

struct squeue_opts {
	int noheader, long_list, start, steps, json, verbose, all_states;
	int array_expand; /* -r: one line per pending array task */
	unsigned iterate;
	const char *format, *long_format, *sort;
	int job_flag;
	char *jobs_arg;
	uint32_t *job_ids;
	size_t njob_ids;
	uid_t *uids;
	size_t nuids;
	char **names, **parts, **accounts, **qos, **nodes;
	int *states;
	size_t nstates;
	int none_match; /* -R/-L: no job has a reservation or licenses */
	struct sort_key sort_keys[SQUEUE_MAX_SORT];
	size_t nsort;
};

struct squeue_ctx {
	time_t now;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
	    "              [-n name] [-o format] [-O fields] [-p partitions]\n"
	    "              [--qos qos] [-R reservation] [--sort fields] [--start]\n"
	    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
	    "              [-L licenses] [-w nodes] [--json] [-ahjlrsv]\n");
}

static void __attribute__((noreturn)) help(void)
{
	usage(stdout);
	printf("\n"
	       "  -A, --account=accounts   only jobs charged to these accounts\n"
	       "  -h, --noheader           no header line\n"
	       "  -i, --iterate=seconds    repeat every so many seconds\n"
	       "  -j, --jobs=job_ids       only these jobs (comma-separated)\n"
	       "      --json               the whole answer as JSON\n"
	       "  -l, --long               more columns\n"
	       "      --me                 only my jobs\n"
	       "  -n, --name=names         only jobs with these names\n"
	       "  -o, --format=format      columns as %%[.][size]type[suffix]\n"
	       "  -O, --Format=fields      columns as Field[:[.][size][suffix]],...\n"
	       "  -p, --partition=parts    only jobs in these partitions\n"
	       "  -q, --qos=qos            only jobs with these QOS\n"
	       "  -r, --array              one array task per line\n"
	       "  -s, --steps              job steps instead of jobs\n"
	       "  -S, --sort=fields        sort order, e.g. \"P,t,-p\"\n"
	       "      --start              expected start times of pending jobs\n"
	       "  -t, --states=states      only jobs in these states, or \"all\"\n"
	       "  -u, --user=users         only jobs of these users (names or uids)\n"
	       "  -w, --nodelist=hosts     only jobs on these nodes\n"
	       "  -v, --verbose            say more\n"
	       "  -V, --version            print the version\n");
	exit(0);
}

/* ---- values ---- */

static const char *str_or_null(const char *s)
{
	return s ? s : "(null)";
}

static int job_is_pending(const struct job_info *j)
{
	return (j->state & JOB_STATE_BASE) == JOB_PENDING && !(j->state & JOB_COMPLETING);
}

static long job_time_used(const struct job_info *j, time_t now)
{
	uint32_t base = j->state & JOB_STATE_BASE;
	time_t end;

	if (job_is_pending(j) || j->start_time <= 0)
		return 0;
	if (base == JOB_RUNNING || base == JOB_SUSPENDED || j->end_time <= 0)
		end = now;
	else
		end = (time_t)j->end_time;
	return (long)(end - (time_t)j->start_time);
}

static const char *fmt_time_used(long secs, char *buf, size_t len)
{
	if (secs < 0)
		return "INVALID";
	return timefmt_elapsed(secs, buf, len);
}

static const char *fmt_time(int64_t t, char *buf, size_t len)
{
	if (t == 0)
		return "N/A";
	return timefmt_iso((time_t)t, buf, len);
}

static const char *job_user(const struct job_info *j, char *buf, size_t len)
{
	if (j->user && *j->user)
		return j->user;
	if (uid_to_name(j->uid, buf, len) < 0)
		snprintf(buf, len, "%u", j->uid);
	return buf;
}

static const char *job_group(const struct job_info *j, char *buf, size_t len)
{
	if (j->group && *j->group)
		return j->group;
	if (gid_to_name(j->gid, buf, len) < 0)
		snprintf(buf, len, "%u", j->gid);
	return buf;
}

static const char *job_reason_list(const struct job_info *j, char *buf, size_t len)
{
	uint32_t base = j->state & JOB_STATE_BASE;

	if (!(j->state & JOB_COMPLETING) &&
	    (base == JOB_PENDING || base == JOB_TIMEOUT || base == JOB_FAILED)) {
		char reason[512];
		snprintf(buf, len, "(%s)",
		         fmt_job_reason(j, ", ", reason, sizeof(reason)));
		return buf;
	}
	return j->nodes ? j->nodes : "";
}

static const char *job_min_memory(const struct job_info *j, char *buf, size_t len)
{
	if (j->mem_per_cpu && j->mem_per_cpu != NO_VAL64)
		return timefmt_mem_unit(j->mem_per_cpu, buf, len);
	if (j->mem_per_node && j->mem_per_node != NO_VAL64)
		return timefmt_mem_unit(j->mem_per_node, buf, len);
	return "0";
}

static const char *job_tres(const struct job_info *j, char *buf, size_t len)
{
	char mem[32] = "";
	uint64_t mb = 0;

	if (j->mem_per_node && j->mem_per_node != NO_VAL64)
		mb = j->mem_per_node * (j->num_nodes ? j->num_nodes : 1);
	else if (j->mem_per_cpu && j->mem_per_cpu != NO_VAL64)
		mb = j->mem_per_cpu * (j->num_cpus ? j->num_cpus : 1);
	if (mb)
		snprintf(mem, sizeof(mem), "mem=%s,", timefmt_mem_unit(mb, buf, len));
	snprintf(buf, len, "cpu=%u,%snode=%u,billing=%u", j->num_cpus, mem, j->num_nodes,
	         j->num_cpus);
	return buf;
}

static const char *u32_or(uint32_t v, uint32_t dflt, char *buf, size_t len)
{
	snprintf(buf, len, "%u", (v == NO_VAL || v == 0) ? dflt : v);
	return buf;
}

/* v in decimal into buf (at least 11 bytes), without a printf per job. */
static const char *u32_str(uint32_t v, char *buf)
{
	char tmp[10];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return buf;
}

static const char *job_value(const struct fmt_col *col, const void *rec, void *vctx,
                             char *buf, size_t len)
{
	const struct job_info *j = rec;
	const struct squeue_ctx *ctx = vctx;

	switch (col->field->id) {
	case 'a':
		return str_or_null(j->account);
	case 'A':
		return u32_str(j->job_id, buf);
	case 'F':
		snprintf(buf, len, "%u", j->array_job_id ? j->array_job_id : j->job_id);
		return buf;
	case 'i':
		if (j->array_job_id && j->array_task_str)
			snprintf(buf, len, "%u_[%s]", j->array_job_id, j->array_task_str);
		else if (j->array_job_id && j->array_task_id != NO_VAL)
			snprintf(buf, len, "%u_%u", j->array_job_id, j->array_task_id);
		else
			u32_str(j->job_id, buf);
		return buf;
	case 'b':
	case 'v':
	case 'w':
	case 'W':
	case 'Y':
		return j->sched_nodes && *j->sched_nodes ? j->sched_nodes : "(null)";
	case 'B':
		return j->batch_host && *j->batch_host ? j->batch_host : "n/a";
	case 'c':
		return u32_or(j->cpus_per_task, 1, buf, len);
	case 'C':
		snprintf(buf, len, "%u", j->num_cpus);
		return buf;
	case 'd':
	case 'O':
		return "0";
	case 'D':
		return u32_str(j->num_nodes ? j->num_nodes : j->min_nodes, buf);
	case 'e':
		return job_is_pending(j) ? "N/A" : fmt_time(j->end_time, buf, len);
	case 'E':
		return j->dependency && *j->dependency ? j->dependency : "(null)";
	case 'f':
		return str_or_null(j->features);
	case 'g':
		return job_group(j, buf, len);
	case 'G':
		snprintf(buf, len, "%u", j->gid);
		return buf;
	case 'h':
		return (j->flags & JOB_F_EXCLUSIVE) ? "NO" : "OK";
	case 'H':
	case 'I':
	case 'J':
		return "*";
	case 'j':
		return str_or_null(j->name);
	case 'k':
		return str_or_null(j->comment);
	case 'K':
		if (j->array_job_id && j->array_task_str)
			return j->array_task_str;
		if (j->array_job_id && j->array_task_id != NO_VAL) {
			snprintf(buf, len, "%u", j->array_task_id);
			return buf;
		}
		return "N/A";
	case 'X':
		return "N/A";
	case 'l':
		if (j->time_limit == NO_VAL)
			return "Partition_Limit";
		return timefmt_limit(j->time_limit, buf, len);
	case 'L': {
		long left;

		if (j->time_limit == INFINITE32)
			return "UNLIMITED";
		if (j->time_limit == NO_VAL)
			return "NOT_SET";
		left = (long)j->time_limit * 60 - job_time_used(j, ctx->now);
		return fmt_time_used(left, buf, len);
	}
	case 'm':
		return job_min_memory(j, buf, len);
	case 'M':
		return fmt_time_used(job_time_used(j, ctx->now), buf, len);
	case 'n':
		return str_or_null(j->req_nodes);
	case 'N':
		return j->nodes ? j->nodes : "";
	case 'o':
		return str_or_null(j->command);
	case 'p':
		snprintf(buf, len, "%.8f", (double)j->priority / (double)UINT32_MAX);
		return buf;
	case 'P':
		return str_or_null(j->partition);
	case 'q':
		return "normal";
	case 'Q':
		snprintf(buf, len, "%u", j->priority);
		return buf;
	case 'r':
		return fmt_job_reason(j, ", ", buf, len);
	case 'R':
		return job_reason_list(j, buf, len);
	case 'S':
		return fmt_time(j->start_time, buf, len);
	case 't':
		return job_state_code(j->state);
	case 'T':
		return job_state_name(j->state);
	case 'u':
		return job_user(j, buf, len);
	case 'U':
		snprintf(buf, len, "%u", j->uid);
		return buf;
	case 'V':
		return fmt_time(j->submit_time, buf, len);
	case 'x':
		return str_or_null(j->exc_nodes);
	case 'y':
		snprintf(buf, len, "%d", (int32_t)j->nice);
		return buf;
	case 'z':
		return "*:*:*";
	case 'Z':
		return str_or_null(j->work_dir);
	case F_NUM_TASKS:
		return u32_or(j->num_tasks, 1, buf, len);
	case F_EXIT_CODE:
		return fmt_exit_code(j->exit_code, buf, len);
	case F_DERIVED_EC:
		return fmt_exit_code(j->derived_exit_code, buf, len);
	case F_STDOUT:
		return str_or_null(j->std_out);
	case F_STDERR:
		return str_or_null(j->std_err);
	case F_STDIN:
		return str_or_null(j->std_in);
	case F_BATCH_FLAG:
		snprintf(buf, len, "%u", j->batch_flag);
		return buf;
	case F_RESTART_CNT:
		snprintf(buf, len, "%u", j->restart_cnt);
		return buf;
	case F_CPUS_PER_TASK:
		return u32_or(j->cpus_per_task, 1, buf, len);
	case F_CLUSTER: {
		struct conf *conf = cli_conf();

		return conf->cluster_name ? conf->cluster_name : "N/A";
	}
	case F_PENDING_TIME: {
		time_t end = j->start_time > 0 ? (time_t)j->start_time : ctx->now;

		snprintf(buf, len, "%ld",
		         j->submit_time > 0 ? (long)(end - (time_t)j->submit_time) : 0L);
		return buf;
	}
	case F_REQUEUE:
		return (j->flags & JOB_F_NO_REQUEUE) ? "0" : "1";
	case F_TRES_ALLOC:
		return job_tres(j, buf, len);
	case F_ELIGIBLE_TIME:
		return fmt_time(j->eligible_time, buf, len);
	case F_ACCRUE_TIME:
		return fmt_time(j->eligible_time, buf, len);
	case F_MAX_NODES:
		return u32_or(j->num_nodes, j->min_nodes, buf, len);
	case F_NTPERNODE:
		return u32_or(j->ntasks_per_node, 0, buf, len);
	case F_REBOOT:
		return "0";
	case F_SUBMIT_HOST:
		return str_or_null(j->submit_host);
	case F_STEP_ID:
	case F_STEP_NAME:
		return "N/A";
	}
	return "";
}

/* ---- filters ---- */

static int job_state_matches(const struct job_info *j, int want)
{
	uint32_t flags = JOB_COMPLETING | JOB_CONFIGURING | JOB_REQUEUE_FLAG;

	if ((uint32_t)want & flags)
		return !!(j->state & (uint32_t)want);
	return (j->state & JOB_STATE_BASE) == (uint32_t)want && !(j->state & flags);
}

static int list_has_any(char **want, const char *csv)
{
	char **have;
	int hit = 0;

	if (!csv)
		return 0;
	have = fmt_split(csv, ",");
	for (size_t i = 0; have[i] && !hit; i++)
		hit = fmt_strv_has(want, have[i], 0);
	fmt_strv_free(have);
	return hit;
}

static int job_selected(const struct squeue_opts *o, const struct job_info *j)
{
	if (o->none_match)
		return 0;
	if (o->njob_ids) {
		size_t i;

		for (i = 0; i < o->njob_ids && o->job_ids[i] != j->job_id &&
		            o->job_ids[i] != j->array_job_id;
		     i++)
			;
		if (i == o->njob_ids)
			return 0;
	}
	if (o->nstates) {
		size_t i;

		for (i = 0; i < o->nstates && !job_state_matches(j, o->states[i]); i++)
			;
		if (i == o->nstates)
			return 0;
	} else if (!o->all_states && !o->njob_ids && job_state_is_finished(j->state)) {
		return 0;
	}
	if (o->nuids) {
		size_t i;

		for (i = 0; i < o->nuids && o->uids[i] != j->uid; i++)
			;
		if (i == o->nuids)
			return 0;
	}
	if (o->names && !fmt_strv_has(o->names, j->name, 0))
		return 0;
	if (o->parts && !list_has_any(o->parts, j->partition))
		return 0;
	if (o->accounts && !fmt_strv_has(o->accounts, j->account, 1))
		return 0;
	if (o->qos && !fmt_strv_has(o->qos, "normal", 1))
		return 0;
	if (o->nodes && !fmt_hosts_overlap(j->nodes, o->nodes))
		return 0;
	return 1;
}

/* ---- sorting ---- */

struct sort_ctx {
	const struct squeue_opts *o;
	time_t now;
};

/* Sort key k of a job (ranksort.h): its string, or NULL and its number. */
static const char *sort_value(const void *row, size_t k, char *buf, size_t len,
                              uint64_t *num, void *arg)
{
	const struct job_info *j = row;
	const struct sort_ctx *sc = arg;

	switch (sc->o->sort_keys[k].key) {
	case 'P':
		return j->partition;
	case 't':
		return job_state_code(j->state);
	case 'T':
		return job_state_name(j->state);
	case 'u':
		return job_user(j, buf, len);
	case 'j':
		return j->name;
	case 'N':
		return j->nodes;
	case 'r':
		return job_reason_name(j->reason);
	case 'a':
		return j->account;
	case 'p':
	case 'Q':
		*num = j->priority;
		break;
	case 'U':
		*num = j->uid;
		break;
	case 'S':
		*num = (uint64_t)j->start_time;
		break;
	case 'V':
		*num = (uint64_t)j->submit_time;
		break;
	case 'e':
		*num = (uint64_t)j->end_time;
		break;
	case 'M':
		*num = (uint64_t)job_time_used(j, sc->now);
		break;
	case 'l':
		*num = j->time_limit;
		break;
	case 'D':
		*num = j->num_nodes;
		break;
	case 'C':
		*num = j->num_cpus;
		break;
	case 'y': /* signed */
		*num = (uint64_t)((int64_t)(int32_t)j->nice + INT32_MAX + 1);
		break;
	default: /* i, A, F */
		*num = j->job_id;
		break;
	}
	return NULL;
}

static int is_string_key(char key)
{
	return strchr("PtTujNra", key) != NULL;
}

static uint64_t sort_tiebreak(const void *row)
{
	return ((const struct job_info *)row)->job_id;
}

/* sel[0..n) in the order of o's sort keys, then by job id. */
static void sort_jobs(const struct squeue_opts *o, const struct job_info **sel, size_t n,
                      time_t now)
{
	struct rank_key keys[SQUEUE_MAX_SORT];

	for (size_t i = 0; i < o->nsort; i++)
		keys[i] = (struct rank_key){
		    .str_cmp = !is_string_key(o->sort_keys[i].key) ? NULL
		               : o->sort_keys[i].key == 'N'        ? fmt_natural_cmp
		                                                   : strcmp,
		    .desc = o->sort_keys[i].desc};
	if (rank_sort((const void **)sel, n, keys, o->nsort, sort_value, sort_tiebreak,
	              &(struct sort_ctx){o, now}) < 0)
		fatal("out of memory");
}

static void parse_sort(struct squeue_opts *o, const char *spec)
{
	static const char known[] = "iAFPtTpQuUjSVeMlDCNray";
	char **keys = fmt_split(spec, ",");

	o->nsort = 0;
	for (size_t i = 0; keys[i]; i++) {
		const char *k = keys[i];
		int desc = 0;

		if (*k == '+' || *k == '-')
			desc = *k++ == '-';
		if (strlen(k) != 1 || !strchr(known, *k)) {
			cli_error("Invalid sort specification: %s", keys[i]);
			exit(1);
		}
		if (o->nsort < SQUEUE_MAX_SORT)
			o->sort_keys[o->nsort++] = (struct sort_key){*k, desc};
	}
	fmt_strv_free(keys);
}

/* ---- options ---- */

static void parse_jobs(struct squeue_opts *o, const char *arg)
{
	char **ids = fmt_split(arg, ", ");
	size_t n = fmt_strv_len(ids);

	o->job_ids = xrealloc(o->job_ids, (o->njob_ids + n + 1) * sizeof(*o->job_ids));
	for (size_t i = 0; i < n; i++) {
		if (fmt_parse_job_id(ids[i], &o->job_ids[o->njob_ids]) < 0) {
			cli_error("Invalid job id: %s", ids[i]);
			exit(1);
		}
		o->njob_ids++;
	}
	fmt_strv_free(ids);
}

static void parse_users(struct squeue_opts *o, const char *arg)
{
	char **users = fmt_split(arg, ",");
	size_t n = fmt_strv_len(users);

	o->uids = xrealloc(o->uids, (o->nuids + n + 1) * sizeof(*o->uids));
	for (size_t i = 0; i < n; i++) {
		if (name_to_uid(users[i], &o->uids[o->nuids]) < 0) {
			cli_error("Invalid user: %s", users[i]);
			exit(1);
		}
		o->nuids++;
	}
	fmt_strv_free(users);
}

static void parse_states(struct squeue_opts *o, const char *arg)
{
	char **states = fmt_split(arg, ",");
	size_t n = fmt_strv_len(states);

	o->states = xrealloc(o->states, (o->nstates + n + 1) * sizeof(*o->states));
	for (size_t i = 0; i < n; i++) {
		int st;

		if (!strcasecmp(states[i], "all")) {
			o->all_states = 1;
			continue;
		}
		if ((st = job_state_parse(states[i])) < 0) {
			cli_error("Invalid job state specified: %s", states[i]);
			exit(1);
		}
		o->states[o->nstates++] = st;
	}
	if (o->all_states)
		o->nstates = 0;
	fmt_strv_free(states);
}

static char **replace_list(char **old, const char *arg)
{
	fmt_strv_free(old);
	return fmt_split(arg, ",");
}

enum {
	OPT_JSON = 1000,
	OPT_START,
	OPT_ME,
	OPT_USAGE,
	OPT_HELP,
	OPT_IGNORE,
	OPT_IGNORE_ARG,
	OPT_YAML,
};

static void parse_args(struct squeue_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"account", required_argument, 0, 'A'},
	    {"all", no_argument, 0, 'a'},
	    {"array", no_argument, 0, 'r'},
	    {"array-unique", no_argument, 0, OPT_IGNORE},
	    {"clusters", required_argument, 0, 'M'},
	    {"federation", no_argument, 0, OPT_IGNORE},
	    {"format", required_argument, 0, 'o'},
	    {"Format", required_argument, 0, 'O'},
	    {"help", no_argument, 0, OPT_HELP},
	    {"hide", no_argument, 0, OPT_IGNORE},
	    {"iterate", required_argument, 0, 'i'},
	    {"jobs", optional_argument, 0, 'j'},
	    {"json", no_argument, 0, OPT_JSON},
	    {"licenses", required_argument, 0, 'L'},
	    {"local", no_argument, 0, OPT_IGNORE},
	    {"long", no_argument, 0, 'l'},
	    {"me", no_argument, 0, OPT_ME},
	    {"name", required_argument, 0, 'n'},
	    {"noconvert", no_argument, 0, OPT_IGNORE},
	    {"nodelist", required_argument, 0, 'w'},
	    {"noheader", no_argument, 0, 'h'},
	    {"only-job-state", no_argument, 0, OPT_IGNORE},
	    {"partition", required_argument, 0, 'p'},
	    {"priority", no_argument, 0, 'P'},
	    {"qos", required_argument, 0, 'q'},
	    {"reservation", required_argument, 0, 'R'},
	    {"sibling", no_argument, 0, OPT_IGNORE},
	    {"sort", required_argument, 0, 'S'},
	    {"start", no_argument, 0, OPT_START},
	    {"steps", optional_argument, 0, 's'},
	    {"states", required_argument, 0, 't'},
	    {"usage", no_argument, 0, OPT_USAGE},
	    {"user", required_argument, 0, 'u'},
	    {"users", required_argument, 0, 'u'},
	    {"verbose", no_argument, 0, 'v'},
	    {"version", no_argument, 0, 'V'},
	    {"yaml", no_argument, 0, OPT_YAML},
	    {0, 0, 0, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "A:ahi:j::lL:M:n:o:O:p:Pq:rR:s::S:t:u:vVw:",
	                        longopts, NULL)) != -1) {
		switch (c) {
		case 'A':
			o->accounts = replace_list(o->accounts, optarg);
			break;
		case 'h':
			o->noheader = 1;
			break;
		case 'i':
			o->iterate = fmt_parse_iterate(optarg);
			break;
		case 'j':
			o->job_flag = 1;
			if (optarg)
				parse_jobs(o, optarg);
			break;
		case 'l':
			o->long_list = 1;
			break;
		case 'L':
		case 'R':
			o->none_match = 1;
			break;
		case 'n':
			o->names = replace_list(o->names, optarg);
			break;
		case 'o':
			o->format = optarg;
			break;
		case 'O':
			o->long_format = optarg;
			break;
		case 'p':
			o->parts = replace_list(o->parts, optarg);
			break;
		case 'q':
			o->qos = replace_list(o->qos, optarg);
			break;
		case 's':
			o->steps = 1;
			break;
		case 'S':
			o->sort = optarg;
			break;
		case 't':
			parse_states(o, optarg);
			break;
		case 'u':
			parse_users(o, optarg);
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			fmt_print_version();
		case 'w':
			fmt_parse_nodes(&o->nodes, optarg);
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_YAML:
			cli_error("--yaml is not supported, use --json");
			exit(1);
		case OPT_START:
			o->start = 1;
			break;
		case OPT_ME: {
			char uid[32];

			snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
			parse_users(o, uid);
			break;
		}
		case OPT_USAGE:
			usage(stdout);
			exit(0);
		case OPT_HELP:
			help();
		case 'a':
		case 'r':
			o->array_expand = 1;
			break;
		case 'M':
		case 'P':
		case OPT_IGNORE:
			break;
		default:
			fmt_bad_option();
		}
	}
	/* "-j 123" and "-s 123.0": Slurm takes the next word as the list */
	if (optind < argc && (o->job_flag || o->steps)) {
		if (o->job_flag)
			parse_jobs(o, argv[optind]);
		optind++;
	}
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		usage(stderr);
		exit(1);
	}
}

static const char *pick_format(const struct squeue_opts *o, enum fmt_syntax *syntax)
{
	const char *env;

	*syntax = FMT_SHORT;
	if (o->format)
		return o->format;
	if (o->long_format) {
		*syntax = FMT_LONG;
		return o->long_format;
	}
	if (o->steps)
		return SQUEUE_STEPS_FMT;
	if ((env = getenv("SQUEUE_FORMAT")) && *env)
		return env;
	if ((env = getenv("SQUEUE_FORMAT2")) && *env) {
		*syntax = FMT_LONG;
		return env;
	}
	if (o->start)
		return SQUEUE_START_FMT;
	return o->long_list ? SQUEUE_LONG_FMT : SQUEUE_DEFAULT_FMT;
}

/* The job_info fields column or sort key id reads (job_value, cmp_key). */
static uint64_t field_needs(int id)
{
	switch (id) {
	case 'a':
		return JI(account);
	case 'b':
	case 'v':
	case 'w':
	case 'W':
	case 'Y':
		return JI(sched_nodes);
	case 'B':
		return JI(batch_host);
	case 'c':
	case F_CPUS_PER_TASK:
		return JI(cpus_per_task);
	case 'C':
		return JI(num_cpus);
	case 'D':
	case F_MAX_NODES:
		return JI(num_nodes) | JI(min_nodes);
	case 'e':
		return JI(end_time);
	case 'E':
		return JI(dependency);
	case 'f':
		return JI(features);
	case 'g':
		return JI(group) | JI(gid);
	case 'G':
		return JI(gid);
	case 'h':
	case F_REQUEUE:
		return JI(flags);
	case 'j':
		return JI(name);
	case 'k':
		return JI(comment);
	case 'l':
		return JI(time_limit);
	case 'L':
		return JI(time_limit) | JI(start_time) | JI(end_time);
	case 'm':
		return JI(mem_per_cpu) | JI(mem_per_node);
	case 'M':
		return JI(start_time) | JI(end_time);
	case 'n':
		return JI(req_nodes);
	case 'N':
		return JI(nodes);
	case 'o':
		return JI(command);
	case 'p':
	case 'Q':
		return JI(priority);
	case 'P':
		return JI(partition);
	case 'r':
	case 'R':
		return JI(reason) | JI(unavail_nodes) | JI(nodes);
	case 'S':
		return JI(start_time);
	case 'u':
		return JI(user) | JI(uid);
	case 'U':
		return JI(uid);
	case 'V':
		return JI(submit_time);
	case 'x':
		return JI(exc_nodes);
	case 'y':
		return JI(nice);
	case 'Z':
		return JI(work_dir);
	case F_NUM_TASKS:
		return JI(num_tasks);
	case F_EXIT_CODE:
		return JI(exit_code);
	case F_DERIVED_EC:
		return JI(derived_exit_code);
	case F_STDOUT:
		return JI(std_out);
	case F_STDERR:
		return JI(std_err);
	case F_STDIN:
		return JI(std_in);
	case F_BATCH_FLAG:
		return JI(batch_flag);
	case F_RESTART_CNT:
		return JI(restart_cnt);
	case F_PENDING_TIME:
		return JI(start_time) | JI(submit_time);
	case F_TRES_ALLOC:
		return JI(mem_per_node) | JI(mem_per_cpu) | JI(num_nodes) | JI(num_cpus);
	case F_ELIGIBLE_TIME:
	case F_ACCRUE_TIME:
		return JI(eligible_time);
	case F_NTPERNODE:
		return JI(ntasks_per_node);
	case F_SUBMIT_HOST:
		return JI(submit_host);
	}
	return 0;
}

/* What the controller must send for this listing: the columns, the sort keys
 * and the filters (--json prints every field). */
static uint64_t fields_wanted(const struct squeue_opts *o,
                              const struct fmt_layout *layout)
{
	uint64_t m = JI(job_id) | JI(array_job_id) | JI(array_task_id) |
	             JI(array_task_str) | JI(state);

	if (o->json)
		return 0;
	for (size_t i = 0; i < layout->ncols; i++)
		if (layout->cols[i].field)
			m |= field_needs(layout->cols[i].field->id);
	for (size_t i = 0; i < o->nsort; i++)
		m |= field_needs(o->sort_keys[i].key);
	if (o->nuids)
		m |= JI(uid);
	if (o->names)
		m |= JI(name);
	if (o->parts)
		m |= JI(partition);
	if (o->accounts)
		m |= JI(account);
	if (o->nodes)
		m |= JI(nodes);
	return m;
}

/* Ask for the jobs.  A single -j id is asked for by id; an unknown one is
 * Slurm's "slurm_load_jobs error" (exit 1). */
static struct job_info_resp *load_jobs(const struct squeue_opts *o,
                                       const struct fmt_layout *layout,
                                       uint16_t *ret_type)
{
	struct job_info_req req = {.fields = fields_wanted(o, layout)};
	char *msg = NULL;
	void *body = NULL;
	uint32_t id;

	if (o->njob_ids == 1) {
		id = o->job_ids[0];
		req.job_ids.v = &id;
		req.job_ids.n = 1;
	}
	if (call_ctld(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, &body, &msg)) {
		fprintf(stderr, "slurm_load_jobs error: %s\n", msg);
		exit(1);
	}
	*ret_type = MSG_JOB_INFO_RESP;
	return body;
}

static int single_job_missing(const struct squeue_opts *o,
                              const struct job_info_resp *resp)
{
	if (o->njob_ids != 1)
		return 0;
	for (uint32_t i = 0; i < resp->jobs_count; i++)
		if (resp->jobs[i].job_id == o->job_ids[0] ||
		    resp->jobs[i].array_job_id == o->job_ids[0])
			return 0;
	return 1;
}

/* -r: the pending remainder as one line per task. */
static void print_array_tasks(const struct fmt_layout *layout, const struct job_info *j,
                              void *ctx)
{
	struct arrayspec a;
	struct job_info t = *j;

	if (arrayspec_parse(j->array_task_str, ARRAYSPEC_LIMIT, &a, NULL) < 0) {
		fmt_print_row(stdout, layout, job_value, j, ctx);
		return;
	}
	t.array_task_str = NULL;
	for (int64_t k = arrayspec_first(&a); k >= 0; k = arrayspec_next(&a, k)) {
		t.array_task_id = (uint32_t)k;
		fmt_print_row(stdout, layout, job_value, &t, ctx);
	}
	arrayspec_release(&a);
}

static const char *step_value(const struct fmt_col *col, const void *rec, void *vctx,
                              char *buf, size_t len)
{
	const struct step_info *s = rec;
	const struct squeue_ctx *ctx = vctx;

	switch (col->field->id) {
	case 'i':
		if (s->step_id == STEP_BATCH)
			snprintf(buf, len, "%u.batch", s->job_id);
		else
			snprintf(buf, len, "%u.%u", s->job_id, s->step_id);
		return buf;
	case 'j':
		return str_or_null(s->name);
	case 'P':
		return str_or_null(s->partition);
	case 'u':
		return str_or_null(s->user);
	case 'U':
		snprintf(buf, len, "%u", s->uid);
		return buf;
	case 'M':
		return timefmt_elapsed(
		    ctx->now > s->start_time ? (long)(ctx->now - s->start_time) : 0, buf,
		    len);
	case 'N':
		return str_or_null(s->nodes);
	case 'l':
		return timefmt_limit(s->time_limit, buf, len);
	case 'A':
		snprintf(buf, len, "%u", s->num_tasks);
		return buf;
	case 'S':
		return timefmt_iso((time_t)s->start_time, buf, len);
	default:
		return "";
	}
}

/* squeue -s: one line per running step (N.batch for batch scripts). */
static int print_steps(struct squeue_opts *o, const struct fmt_layout *layout)
{
	struct squeue_ctx ctx = {.now = time(NULL)};
	struct job_info_req req = {0};
	struct step_info_resp *resp;
	void *body = NULL;
	char *msg = NULL;

	if (o->njob_ids) {
		req.job_ids.v = o->job_ids;
		req.job_ids.n = (uint32_t)o->njob_ids;
	}
	if (call_ctld(MSG_STEP_INFO_REQ, &req, MSG_STEP_INFO_RESP, &body, &msg)) {
		fprintf(stderr, "slurm_get_job_steps error: %s\n", msg);
		return 1;
	}
	resp = body;
	if (resp->now > 0)
		ctx.now = (time_t)resp->now;
	if (!o->noheader)
		fmt_print_header(stdout, layout);
	for (uint32_t i = 0; i < resp->steps_count; i++) {
		const struct step_info *s = &resp->steps[i];
		int keep = !o->nuids;
		for (size_t k = 0; k < o->nuids; k++)
			keep |= o->uids[k] == s->uid;
		if (keep)
			fmt_print_row(stdout, layout, step_value, s, &ctx);
	}
	msg_body_free(MSG_STEP_INFO_RESP, body);
	return 0;
}

/* volatile: a store the compiler may not drop, so that a leak checker finds
 * the listing still reachable at exit */
static struct job_info_resp *volatile kept_until_exit;

static int print_once(struct squeue_opts *o, const struct fmt_layout *layout)
{
	struct squeue_ctx ctx = {.now = time(NULL)};
	struct job_info_resp *resp;
	const struct job_info **sel;
	uint16_t type;
	size_t n = 0;

	resp = load_jobs(o, layout, &type);
	if (single_job_missing(o, resp)) {
		fprintf(stderr, "slurm_load_jobs error: %s\n",
		        slurm_strerror(ESLURM_INVALID_JOB_ID));
		msg_body_free(type, resp);
		return 1;
	}
	if (resp->now > 0)
		ctx.now = (time_t)resp->now;
	if (o->json) {
		char *json = codec_to_json(&job_info_resp_type, resp, 2);

		if (!json)
			fatal("out of memory");
		printf("%s\n", json);
		free(json);
		msg_body_free(type, resp);
		return 0;
	}
	if (!o->noheader && (o->iterate || o->verbose || o->long_list))
		fmt_print_date(stdout, ctx.now);
	if (!o->noheader)
		fmt_print_header(stdout, layout);
	if (o->steps) {
		/* no step records in this version: the header only */
		msg_body_free(type, resp);
		return 0;
	}
	sel = xcalloc(resp->jobs_count + 1, sizeof(*sel));
	for (uint32_t i = 0; i < resp->jobs_count; i++)
		if (job_selected(o, &resp->jobs[i]))
			sel[n++] = &resp->jobs[i];
	sort_jobs(o, sel, n, ctx.now);
	for (size_t i = 0; i < n; i++) {
		if (o->array_expand && sel[i]->array_task_str)
			print_array_tasks(layout, sel[i], &ctx);
		else
			fmt_print_row(stdout, layout, job_value, sel[i], &ctx);
	}
	free(sel);
	if (o->iterate) {
		msg_body_free(type, resp);
	} else {
		/* the process exits next: freeing every decoded job of a long
		 * listing would cost more than printing it (kept reachable, so a
		 * leak checker does not count it) */
		kept_until_exit = resp;
	}
	return 0;
}

int cmd_squeue(int argc, char **argv)
{
	struct squeue_opts o = {0};
	struct fmt_layout *layout;
	enum fmt_syntax syntax;
	const char *fmt, *env;
	int rc;

	if ((env = getenv("SQUEUE_SORT")) && *env)
		o.sort = env;
	parse_args(&o, argc, argv);
	if (o.start && !o.nstates && !o.all_states) {
		o.states = xrealloc(o.states, sizeof(*o.states));
		o.states[o.nstates++] = JOB_PENDING;
	}
	parse_sort(&o, o.sort ? o.sort : o.start ? "S" : SQUEUE_SORT);
	fmt = pick_format(&o, &syntax);
	if (o.steps && !o.format && !o.long_format)
		layout = fmt_layout_create(fmt, syntax, step_fields,
		                           sizeof(step_fields) / sizeof(step_fields[0]),
		                           "job");
	else
		layout =
		    fmt_layout_create(fmt, syntax, job_fields,
		                      sizeof(job_fields) / sizeof(job_fields[0]), "job");
	for (;;) {
		rc = o.steps ? print_steps(&o, layout) : print_once(&o, layout);
		if (!o.iterate || rc)
			break;
		fflush(stdout);
		sleep(o.iterate);
		putchar('\n');
	}
	fmt_layout_destroy(layout);
	fmt_strv_free(o.names);
	fmt_strv_free(o.parts);
	fmt_strv_free(o.accounts);
	fmt_strv_free(o.qos);
	hostlist_free(o.nodes);
	free(o.job_ids);
	free(o.uids);
	free(o.states);
	return rc;
}
