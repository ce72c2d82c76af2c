/* joblist.c - squeue's columns, filters and order over job_info records
 * (see joblist.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include "common/arrayspec.h"
#include "common/fmtspec.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "proto/joblist.h"
#include "common/common.h"

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
	F_HET_JOB_ID,
	F_HET_JOB_OFFSET,
	F_HET_JOB_ID_SET,
	F_MCS_LABEL,
};

#define NOCUT FMTSPEC_NOCUT
const struct fmt_field joblist_fields[] = {
    {'a', 'a', "Account", "ACCOUNT", 0},
    {'A', 'A', "JobID", "JOBID", 0}, /* -O JobID: the record's own id */
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
    {'i', 0, "JobArrayID", "JOBID", 0}, /* %i's: N_T, N+K */
    {'g', 'g', "GroupName", "GROUP", 0},
    {'G', 'G', "GroupID", "GROUP", 0},
    {'h', 'h', "OverSubscribe", "OVER_SUBSCRIBE", 0},
    {'H', 'H', "Sockets", "SOCKETS_PER_NODE", 0},
    {'i', 'i', NULL, "JOBID", 0},
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
    {F_HET_JOB_ID, 0, "HetJobID", "HET_JOB_ID", 0},
    {F_HET_JOB_ID, 0, "PackJobID", "HET_JOB_ID", 0},
    {F_HET_JOB_OFFSET, 0, "HetJobOffset", "HET_JOB_OFFSET", 0},
    {F_HET_JOB_OFFSET, 0, "PackJobOffset", "HET_JOB_OFFSET", 0},
    {F_HET_JOB_ID_SET, 0, "HetJobIDSet", "HET_JOB_ID_SET", 0},
    {F_HET_JOB_ID_SET, 0, "PackJobIDSet", "HET_JOB_ID_SET", 0},
    {'N', 0, "Nodes", "NODELIST", NOCUT},
    {F_MCS_LABEL, 0, "MCSLabel", "MCSLABEL", 0},
};
#undef NOCUT
const size_t joblist_nfields = sizeof(joblist_fields) / sizeof(joblist_fields[0]);

char *joblist_exit_code(uint32_t status, char *buf, size_t len)
{
	int st = (int)status;
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;

	snprintf(buf, len, "%d:%d", code, sig);
	return buf;
}

const char *joblist_reason(const struct job_info *j, const char *sep, char *buf,
                           size_t len)
{
	if (j->hold == JOB_INFO_HOLD_LAUNCH_FAILED && j->reason == WAIT_HELD_USER)
		return "launch failed requeued held";
	if (j->reason != WAIT_NODE_NOT_AVAIL || !j->unavail_nodes || !*j->unavail_nodes)
		return job_reason_name(j->reason);
	snprintf(buf, len, "%s%sUnavailableNodes:%s", job_reason_name(j->reason), sep,
	         j->unavail_nodes);
	return buf;
}

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
	/* the time it spent suspended does not count */
	end -= (time_t)j->sus_secs;
	return end > (time_t)j->start_time ? (long)(end - (time_t)j->start_time) : 0;
}

static const char *fmt_time_used(long secs, char *buf, size_t len)
{
	if (secs < 0)
		return "INVALID";
	return timefmt_elapsed(secs, buf, len);
}

static const char *fmt_time(const struct joblist_ctx *c, int64_t t, char *buf, size_t len)
{
	if (t == 0)
		return "N/A";
	return timefmt_show((time_t)t, c->time_format, c->now, buf, len);
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

static const char *job_reason_list(const struct job_info *j, const char *reasons,
                                   char *buf, size_t len)
{
	uint32_t base = j->state & JOB_STATE_BASE;

	if (!(j->state & JOB_COMPLETING) &&
	    (base == JOB_PENDING || base == JOB_TIMEOUT || base == JOB_FAILED)) {
		char reason[512];
		const char *r =
		    reasons ? reasons : joblist_reason(j, ", ", reason, sizeof(reason));
		size_t n = strlen(r);

		/* "(%s)" without a printf per job; buf holds 64 bytes at least */
		if (n > len - 3)
			n = len - 3;
		buf[0] = '(';
		memcpy(buf + 1, r, n);
		buf[n + 1] = ')';
		buf[n + 2] = '\0';
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

const char *joblist_value(const struct fmt_col *col, const void *rec, void *vctx,
                          char *buf, size_t len)
{
	const struct job_info *j = rec;
	const struct joblist_ctx *ctx = vctx;

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
		else if (j->het_job_id) /* a heterogeneous job's component */
			snprintf(buf, len, "%u+%u", j->het_job_id,
			         HET_OFFSET(j->het_offset));
		else
			u32_str(j->job_id, buf);
		return buf;
	case 'b':
		return j->tres_per_node && *j->tres_per_node ? j->tres_per_node : "N/A";
	case 'W':
		return j->licenses && *j->licenses ? j->licenses : "(null)";
	case 'v':
		return j->reservation && *j->reservation ? j->reservation : "(null)";
	case 'w':
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
		return job_is_pending(j) ? "N/A" : fmt_time(ctx, j->end_time, buf, len);
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
		return (j->flags & JOB_F_EXCLUSIVE)        ? "NO"
		       : (j->flags & JOB_F_EXCLUSIVE_USER) ? "USER"
		       : (j->flags & JOB_F_EXCLUSIVE_MCS)  ? "MCS"
		                                           : "OK";
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
		return j->qos ? j->qos : "normal";
	case 'Q':
		snprintf(buf, len, "%u", j->priority);
		return buf;
	case 'r':
		return ctx->reasons ? ctx->reasons : joblist_reason(j, ", ", buf, len);
	case 'R':
		return job_reason_list(j, ctx->reasons, buf, len);
	case 'S':
		return fmt_time(ctx, j->start_time, buf, len);
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
		return fmt_time(ctx, j->submit_time, buf, len);
	case 'x':
		return str_or_null(j->exc_nodes);
	case 'y':
		snprintf(buf, len, "%d", (int32_t)j->nice);
		return buf;
	case 'z': { /* S:C:T, '*' where not given */
		char v[3][12];
		const uint32_t sct[3] = {j->sockets_per_node, j->cores_per_socket,
		                         j->threads_per_core};

		for (int i = 0; i < 3; i++) {
			if (sct[i])
				snprintf(v[i], sizeof(v[i]), "%u", sct[i]);
			else
				snprintf(v[i], sizeof(v[i]), "*");
		}
		snprintf(buf, len, "%s:%s:%s", v[0], v[1], v[2]);
		return buf;
	}
	case 'Z':
		return str_or_null(j->work_dir);
	case F_NUM_TASKS:
		return u32_or(j->num_tasks, 1, buf, len);
	case F_EXIT_CODE:
		return joblist_exit_code(j->exit_code, buf, len);
	case F_DERIVED_EC:
		return joblist_exit_code(j->derived_exit_code, buf, len);
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
	case F_CLUSTER:
		return ctx->cluster ? ctx->cluster : "N/A";
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
		return fmt_time(ctx, j->eligible_time, buf, len);
	case F_ACCRUE_TIME:
		return fmt_time(ctx, j->eligible_time, buf, len);
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
	case F_HET_JOB_ID:
		return j->het_job_id ? u32_str(j->het_job_id, buf) : "N/A";
	case F_HET_JOB_OFFSET:
		return j->het_job_id ? u32_str(HET_OFFSET(j->het_offset), buf) : "N/A";
	case F_HET_JOB_ID_SET: /* the components' ids follow the leader's */
		if (!j->het_job_id)
			return "N/A";
		snprintf(buf, len, "%u-%u", j->het_job_id,
		         j->het_job_id + HET_SIZE(j->het_offset) - 1);
		return buf;
	case F_MCS_LABEL: /* always sent */
		return str_or_null(j->mcs_label);
	}
	return "";
}

size_t joblist_line_width(const struct fmt_layout *layout)
{
	size_t w = layout->prefix_len + 1;

	for (size_t i = 0; i < layout->ncols; i++)
		w += (size_t)layout->cols[i].width + layout->cols[i].suffix_len;
	return w;
}

/* ---- filters ---- */

static int job_state_matches(const struct job_info *j, uint32_t want)
{
	uint32_t flags =
	    JOB_COMPLETING | JOB_CONFIGURING | JOB_REQUEUE_FLAG | JOB_SPECIAL_EXIT;

	if (want & flags)
		return !!(j->state & want);
	return (j->state & JOB_STATE_BASE) == want && !(j->state & flags);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_strcase(const void *a, const void *b)
{
	return strcasecmp(*(char *const *)a, *(char *const *)b);
}

static uint32_t *sorted_ids(const struct rota_u32v *v, size_t *n)
{
	uint32_t *s;

	if (!(*n = v->n))
		return NULL;
	s = xmalloc(v->n * sizeof(*s));
	memcpy(s, v->v, v->n * sizeof(*s));
	qsort(s, v->n, sizeof(*s), cmp_u32);
	return s;
}

/* A sorted copy of list v's pointers; NULL for an absent or empty list (the
 * codec sends an absent list as an empty one). */
static char **sorted_strs(char **v, int (*cmp)(const void *, const void *), size_t *n)
{
	char **s;

	if (!(*n = strv_len(v)))
		return NULL;
	s = xmalloc(*n * sizeof(*s));
	memcpy(s, v, *n * sizeof(*s));
	qsort(s, *n, sizeof(*s), cmp);
	return s;
}

static int has_id(const uint32_t *s, size_t n, uint32_t x)
{
	return bsearch(&x, s, n, sizeof(*s), cmp_u32) != NULL;
}

static int has_str(char **s, size_t n, const char *x,
                   int (*cmp)(const void *, const void *))
{
	return x && bsearch(&x, s, n, sizeof(*s), cmp) != NULL;
}

/* 1 if the comma-separated csv names one of the sorted s[0..n). */
static int has_any(char **s, size_t n, const char *csv)
{
	char one[256];
	const char *p = csv;

	if (!csv)
		return 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len && len < sizeof(one)) {
			memcpy(one, p, len);
			one[len] = '\0';
			if (has_str(s, n, one, cmp_str))
				return 1;
		}
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

/* 1 if name is one of the listing's sorted -w nodes. */
static int node_listed(const char *name, void *arg)
{
	const struct joblist_query *q = arg;

	return has_str(q->nodes, q->nnodes, name, cmp_str);
}

/* Does "a:1,b:2" name one of names? */
static int lic_listed(char *const *names, const char *lics)
{
	for (const char *s = lics; s && *s;) {
		size_t len = strcspn(s, ","), name = strcspn(s, ":*,");
		for (size_t i = 0; names[i]; i++)
			if (strlen(names[i]) == (name < len ? name : len) &&
			    !strncmp(names[i], s, strlen(names[i])))
				return 1;
		s += len;
		s += *s == ',';
	}
	return 0;
}

int joblist_query_init(struct joblist_query *q, const struct job_list_req *req,
                       struct rota_error *err)
{
	*q = (struct joblist_query){.req = req};
	if (req->states.n > JOBLIST_MAX_STATES) {
		errprintf(err, "more than %u job states", JOBLIST_MAX_STATES);
		return -EINVAL;
	}
	q->ids = sorted_ids(&req->job_ids, &q->nids);
	q->uids = sorted_ids(&req->uids, &q->nuids);
	q->names = sorted_strs(req->names, cmp_str, &q->nnames);
	q->parts = sorted_strs(req->partitions, cmp_str, &q->nparts);
	q->accounts = sorted_strs(req->accounts, cmp_strcase, &q->naccounts);
	q->qos = sorted_strs(req->qos, cmp_strcase, &q->nqos);
	q->nodes = sorted_strs(req->nodes, cmp_str, &q->nnodes);
	q->none = (req->flags & JOB_LIST_F_NONE) != 0;
	return 0;
}

void joblist_query_release(struct joblist_query *q)
{
	free(q->ids);
	free(q->uids);
	free(q->names);
	free(q->parts);
	free(q->accounts);
	free(q->qos);
	free(q->nodes);
	*q = (struct joblist_query){0};
}

int joblist_query_id(const struct joblist_query *q, uint32_t job_id,
                     uint32_t array_job_id, uint32_t het_job_id)
{
	return !q->nids || has_id(q->ids, q->nids, job_id) ||
	       (array_job_id && has_id(q->ids, q->nids, array_job_id)) ||
	       (het_job_id && has_id(q->ids, q->nids, het_job_id));
}

int joblist_query_uid(const struct joblist_query *q, uint32_t uid)
{
	return !q->nuids || has_id(q->uids, q->nuids, uid);
}

int joblist_selected(const struct joblist_query *q, const struct job_info *j)
{
	const struct job_list_req *req = q->req;

	if (q->none || !joblist_query_id(q, j->job_id, j->array_job_id, j->het_job_id) ||
	    !joblist_query_uid(q, j->uid))
		return 0;
	if (req->states.n) {
		uint32_t i;

		for (i = 0; i < req->states.n && !job_state_matches(j, req->states.v[i]);
		     i++)
			;
		if (i == req->states.n)
			return 0;
	} else if (!(req->flags & JOB_LIST_F_ALL_STATES) && !q->nids &&
	           job_state_is_finished(j->state)) {
		return 0;
	}
	if (q->names && !has_str(q->names, q->nnames, j->name, cmp_str))
		return 0;
	if (q->parts && !has_any(q->parts, q->nparts, j->partition))
		return 0;
	if (q->accounts && !has_str(q->accounts, q->naccounts, j->account, cmp_strcase))
		return 0;
	if (q->qos && !has_str(q->qos, q->nqos, j->qos ? j->qos : "normal", cmp_strcase))
		return 0;
	if (q->nodes && !hostlist_overlaps(j->nodes, node_listed, (void *)q))
		return 0;
	if (strv_len(req->licenses) && !lic_listed(req->licenses, j->licenses))
		return 0;
	if (req->reservation &&
	    strcmp(req->reservation, j->reservation ? j->reservation : ""))
		return 0;
	return 1;
}

/* -P: a row per partition that -p lets through ("a,b": a, then b). */
static int rows_per_part(const struct joblist_query *q, const struct job_info *j,
                         joblist_row_f row, void *arg)
{
	struct job_info one = *j;
	char name[256];
	int n = 0, rc;

	for (const char *p = j->partition; *p;) {
		size_t len = strcspn(p, ",");

		if (len && len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = '\0';
			one.partition = name;
			if (joblist_selected(q, &one)) {
				if ((rc = row(&one, arg)) < 0)
					return rc;
				n++;
			}
		}
		p += len;
		p += *p == ',';
	}
	return n;
}

int joblist_rows(const struct joblist_query *q, const struct job_info *j,
                 joblist_row_f row, void *arg)
{
	int rc;

	if (!joblist_selected(q, j))
		return 0;
	/* a job that runs is in one partition, the one it runs in */
	if ((q->req->flags & JOB_LIST_F_PART_PRIO) && job_is_pending(j) && j->partition &&
	    strchr(j->partition, ','))
		return rows_per_part(q, j, row, arg);
	return (rc = row(j, arg)) < 0 ? rc : 1;
}

/* ---- folded array rows ---- */

static int same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int joblist_folds(const struct job_info *m, const struct job_info *t)
{
	return m->array_task_str && job_is_pending(m) && job_is_pending(t) && t != m &&
	       !t->array_task_str && t->array_task_id != NO_VAL &&
	       t->array_job_id == m->array_job_id && same_str(t->name, m->name) &&
	       same_str(t->partition, m->partition);
}

/* Slurm's way: the remainder's reason, then each task's that differs from
 * it and is not in the text yet ("Priority,JobHeldUser"). */
static void fold_reason(struct joblist_fold *f, const struct job_info *m,
                        const struct job_info *t)
{
	const char *name = job_reason_name(t->reason);
	char buf[512];

	if (t->reason == m->reason)
		return;
	if (!f->reasons)
		f->reasons = xstrdup(joblist_reason(m, ", ", buf, sizeof(buf)));
	if (!strstr(f->reasons, name)) {
		char *more = xasprintf("%s,%s", f->reasons, name);

		free(f->reasons);
		f->reasons = more;
	}
}

int joblist_fold_add(struct joblist_fold *f, const struct job_info *m,
                     const struct job_info *t)
{
	if (!f->ids.bits &&
	    arrayspec_parse(m->array_task_str, ARRAYSPEC_LIMIT, &f->ids, NULL) < 0)
		return -EINVAL;
	if (arrayspec_set(&f->ids, t->array_task_id) < 0)
		return -EINVAL;
	fold_reason(f, m, t);
	f->n++;
	return 0;
}

char *joblist_fold_ids(const struct joblist_fold *f)
{
	return arrayspec_format(&f->ids, 0);
}

void joblist_fold_release(struct joblist_fold *f)
{
	arrayspec_release(&f->ids);
	free(f->reasons);
	*f = (struct joblist_fold){0};
}

/* ---- sorting ---- */

const char *joblist_sort_value(const void *row, size_t k, char *buf, size_t len,
                               uint64_t *num, void *arg)
{
	const struct job_info *j = row;
	const struct joblist_sort_arg *sa = arg;

	switch (sa->sort->key[k]) {
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
		if (sa->part_tier) /* -P: the tier first (at most 65533) */
			*num |= (uint64_t)sa->part_tier(j->partition, sa->tier_arg) << 32;
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
		*num = (uint64_t)job_time_used(j, sa->now);
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

int joblist_sort_parse(const char *spec, struct joblist_sort *ret, struct rota_error *err)
{
	static const char known[] = "iAFPtTpQuUjSVeMlDCNray";
	const char *p = spec ? spec : "";

	ret->n = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		const char *k = p;
		int desc = 0;

		if (n && (*k == '+' || *k == '-'))
			desc = *k++ == '-';
		if (n) {
			if (p + n - k != 1 || !strchr(known, *k) || !*k) {
				errprintf(err, "%.*s", (int)(n > 64 ? 64 : n), p);
				return -EINVAL;
			}
			if (ret->n < JOBLIST_MAX_SORT) {
				ret->key[ret->n] = *k;
				ret->rank[ret->n] = (struct rank_key){
				    .str_cmp = !strchr("PtTujNra", *k) ? NULL
				               : *k == 'N'             ? rank_natural_cmp
				                                       : strcmp,
				    .desc = desc};
				ret->n++;
			}
		}
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

static uint64_t field_needs(int id)
{
	switch (id) {
	case 'a':
		return JI(account);
	case 'q':
		return JI(qos);
	case 'b':
		return JI(tres_per_node);
	case 'W': /* licenses, reservation: always sent */
	case 'v':
		return 0;
	case 'w':
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
		return JI(reason) | JI(unavail_nodes) | JI(nodes) | JI(hold);
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

uint64_t joblist_fields_wanted(const struct job_list_req *req,
                               const struct fmt_layout *layout,
                               const struct joblist_sort *sort)
{
	uint64_t m = JI(job_id) | JI(array_job_id) | JI(array_task_id) |
	             JI(array_task_str) | JI(state);

	for (size_t i = 0; i < layout->ncols; i++)
		if (layout->cols[i].field)
			m |= field_needs(layout->cols[i].field->id);
	for (size_t i = 0; i < sort->n; i++)
		m |= field_needs(sort->key[i]);
	if (req->uids.n)
		m |= JI(uid);
	if (strv_len(req->names))
		m |= JI(name);
	/* -p, -P's rows and tiers, and folding a task into its array's row
	 * read the partition; folding reads the name too */
	if (strv_len(req->partitions) || (req->flags & JOB_LIST_F_PART_PRIO))
		m |= JI(partition);
	if (joblist_folding(req->flags))
		m |= JI(name) | JI(partition);
	if (strv_len(req->accounts))
		m |= JI(account);
	if (strv_len(req->qos))
		m |= JI(qos);
	if (strv_len(req->nodes))
		m |= JI(nodes);
	return m;
}

static void line(struct joblist_sink *s, const struct fmt_layout *layout,
                 const struct job_info *j, struct joblist_ctx *ctx)
{
	fmt_row_append(&s->buf, layout, joblist_value, j, ctx);
	if (s->flush_at && s->buf.len >= s->flush_at)
		s->flush(s);
}

void joblist_append(struct joblist_sink *s, const struct fmt_layout *layout,
                    const struct job_info *j, uint32_t flags, struct joblist_ctx *ctx)
{
	struct arrayspec a;
	struct job_info t;

	if (!(flags & JOB_LIST_F_ARRAY_TASKS) || !j->array_task_str ||
	    arrayspec_parse(j->array_task_str, ARRAYSPEC_LIMIT, &a, NULL) < 0) {
		line(s, layout, j, ctx);
		return;
	}
	t = *j;
	t.array_task_str = NULL;
	for (int64_t k = arrayspec_first(&a); k >= 0; k = arrayspec_next(&a, k)) {
		t.array_task_id = (uint32_t)k;
		line(s, layout, &t, ctx);
	}
	arrayspec_release(&a);
}
