/* scontrol_show.c - `scontrol show job|node|partition|config|hostnames|hostlist`.
 *
 * Records are printed as Slurm 22.05 prints them: "Key=Value" pairs, a new
 * line indented three spaces for each group (one space between groups with -o),
 * and a blank line after each record (none with -o).  Values Rota does not
 * track print Slurm's placeholder for "unset" ((null), N/A, *, 0).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "proto/joblist.h"
#include "common/ranksort.h"
#include "cli/scontrol.h"
#include "common/billing.h"
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/gres_req.h"
#include "common/hostlist.h"
#include "common/jobfmt.h"
#include "common/mailtype.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/messages.h"
#include "proto/slurm_json.h"
#include "proto/net.h"
#include "common/common.h"

#define HOSTLIST_FILE_MAX (16u << 20) /* bytes read from a `show hostlist /file` */

int scontrol_abbrev(const char *s, const char *word, size_t min)
{
	size_t n = strlen(s);

	return n >= min && n <= strlen(word) && !strncasecmp(s, word, n);
}

static const char *nul(const char *s)
{
	return s && *s ? s : "(null)";
}

static const char *limit_str(uint32_t minutes, const char *unset, char *buf, size_t len)
{
	if (minutes == INFINITE32)
		return "UNLIMITED";
	if (minutes == NO_VAL)
		return unset;
	return timefmt_duration((long)minutes * 60, buf, len);
}

/* Times: 0 (and nonsense) is "Unknown". */
static const char *time_str(int64_t t, char *buf, size_t len)
{
	if (t <= 0 || t > 32503680000LL) /* past year 3000: "never" */
		return "Unknown";
	return timefmt_iso((time_t)t, buf, len);
}

/* -v: the time of the data and how many records it holds, before them */
static void print_last_update(const struct scontrol_opts *o, time_t t, uint32_t n)
{
	char buf[64];

	if (o->verbose && !o->json)
		printf("last_update_time=%s, records=%u\n",
		       time_str(t > 0 ? t : time(NULL), buf, sizeof(buf)), n);
}

static void end_record(FILE *f, const struct scontrol_opts *o)
{
	fputs(o->oneliner ? "\n" : "\n\n", f);
}

/* ---- show job ---- */

static const char *user_name(uint32_t uid, const char *given, char *buf, size_t len)
{
	if (given && *given)
		return given;
	if (uid_to_name(uid, buf, len) < 0)
		snprintf(buf, len, "%u", uid);
	return buf;
}

static const char *group_name(uint32_t gid, const char *given, char *buf, size_t len)
{
	if (given && *given)
		return given;
	if (gid_to_name(gid, buf, len) < 0)
		snprintf(buf, len, "%u", gid);
	return buf;
}

/* StdOut/StdErr/StdIn with the filename pattern expanded and made absolute
 * against the work directory.  Caller frees. */
static char *job_path(const struct job_info *j, const char *pattern, const char *user)
{
	struct jobfmt_ids ids = {
	    .job_id = j->job_id,
	    .step_id = STEP_BATCH,
	    .array_job_id = j->array_job_id,
	    .array_task_id = j->array_job_id ? j->array_task_id : NO_VAL,
	    .job_name = j->name,
	    .user = user,
	    .node_name = j->batch_host,
	};
	char *path = NULL, *abs;

	if (jobfmt_filename(pattern, &ids, &path) < 0)
		path = xstrdup(pattern);
	if (path[0] == '/' || !j->work_dir || !*j->work_dir)
		return path;
	abs = xasprintf("%s/%s", j->work_dir, path);
	free(path);
	return abs;
}

static long job_run_time(const struct job_info *j, time_t now)
{
	uint32_t base = j->state & JOB_STATE_BASE;

	if (j->start_time <= 0 || (base == JOB_PENDING && !(j->state & JOB_COMPLETING)))
		return 0;
	/* the time it spent suspended does not count */
	if (base == JOB_RUNNING || base == JOB_SUSPENDED || j->end_time <= 0)
		return (long)(now - (time_t)j->start_time) - (long)j->sus_secs;
	return (long)((time_t)j->end_time - (time_t)j->start_time) - (long)j->sus_secs;
}

static void job_tres(const struct job_info *j, char *buf, size_t len)
{
	uint32_t nodes = j->num_nodes ? j->num_nodes : j->min_nodes;
	char mem[48] = "", unit[32], g[512];
	uint64_t mb = 0;

	gres_tres_tracked(j->tres_gres, cli_conf()->accounting_storage_tres, g,
	                  sizeof(g));
	if (j->mem_per_node && j->mem_per_node != NO_VAL64)
		mb = j->mem_per_node * (nodes ? nodes : 1);
	else if (j->mem_per_cpu && j->mem_per_cpu != NO_VAL64)
		mb = j->mem_per_cpu * (j->num_cpus ? j->num_cpus : 1);
	if (mb)
		snprintf(mem, sizeof(mem), "mem=%s,",
		         timefmt_mem_unit(mb, unit, sizeof(unit)));
	snprintf(buf, len, "cpu=%u,%snode=%u,billing=%u%s%s", j->num_cpus, mem, nodes,
	         cli_billing(j->partition, j->num_cpus, mb, nodes), *g ? "," : "", g);
}

static void print_job_paths(FILE *f, const struct job_info *j, const char *le,
                            const char *user)
{
	char dflt[32], *out, *err, *in;

	snprintf(dflt, sizeof(dflt), "slurm-%u.out", j->job_id);
	out = job_path(j, j->std_out && *j->std_out ? j->std_out : dflt, user);
	err = j->std_err && *j->std_err ? job_path(j, j->std_err, user) : xstrdup(out);
	in = job_path(j, j->std_in && *j->std_in ? j->std_in : "/dev/null", user);
	fprintf(f, "StdErr=%s%sStdIn=%s%sStdOut=%s%s", err, le, in, le, out, le);
	free(out);
	free(err);
	free(in);
}

/* -d: JOB_GRES= and what the job holds on each node. */
static void print_job_nodes(FILE *f, const struct job_info *j, const char *le)
{
	const char *s = j->tres_gres;

	if (s && *s) { /* "gres/gpu=2,gres/gpu:h100=2": the typed items, else all */
		int typed = strchr(s, ':') != NULL, first = 1;
		fputs("JOB_GRES=", f);
		for (; *s;) {
			size_t len = strcspn(s, ",");
			const char *eq = memchr(s, '=', len);
			int is_typed = memchr(s, ':', len) != NULL;
			if (eq && !strncmp(s, "gres/", 5) && is_typed == typed)
				fprintf(f, "%s%.*s:%.*s", first ? "" : ",",
				        (int)(eq - s - 5), s + 5, (int)(s + len - eq - 1),
				        eq + 1),
				    first = 0;
			s += len + (s[len] == ',');
		}
		fputs(le, f);
	}
	for (const char *l = j->node_detail; l && *l;) {
		size_t len = strcspn(l, "\n");
		fprintf(f, "  %.*s%s", (int)len, l, le);
		l += len + (l[len] == '\n');
	}
}

/* The GRES a job asked for, after Power= as Slurm 22.05 prints them. */
static void print_job_tres(FILE *f, const struct job_info *j, const char *le)
{
	const struct {
		const char *key, *val;
	} t[] = {
	    {"CpusPerTres", j->cpus_per_tres},     {"MemPerTres", j->mem_per_tres},
	    {"TresPerJob", j->tres_per_job},       {"TresPerNode", j->tres_per_node},
	    {"TresPerSocket", j->tres_per_socket}, {"TresPerTask", j->tres_per_task}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].val && *t[i].val)
			fprintf(f, "%s%s=%s", le, t[i].key, t[i].val);
}

/* v in buf (64 bytes), or "*" when 0 (not given). */
static const char *star_or(uint32_t v, char *buf)
{
	if (!v)
		return "*";
	snprintf(buf, 64, "%u", v);
	return buf;
}

static void print_job(FILE *f, const struct scontrol_opts *o, const struct job_info *j,
                      time_t now)
{
	const char *le = o->oneliner ? " " : "\n   ";
	uint32_t base = j->state & JOB_STATE_BASE;
	int pending = base == JOB_PENDING && !(j->state & JOB_COMPLETING);
	char user[128], group[128], b1[64], b2[64], b3[64], tres[768], reason[512],
	    word[512], tmpb[32];
	const char *tmp;
	uint32_t cpt =
	    (j->cpus_per_task && j->cpus_per_task != NO_VAL) ? j->cpus_per_task : 1;
	uint32_t mincpus =
	    j->pn_min_cpus && j->pn_min_cpus != NO_VAL && j->pn_min_cpus > cpt
	        ? j->pn_min_cpus
	        : cpt;
	const char *u = user_name(j->uid, j->user, user, sizeof(user));

	fprintf(f, "JobId=%u ", j->job_id);
	if (j->array_job_id && j->array_task_str)
		fprintf(f, "ArrayJobId=%u ArrayTaskId=%s ", j->array_job_id,
		        j->array_task_str);
	else if (j->array_job_id)
		fprintf(f, "ArrayJobId=%u ArrayTaskId=%u ", j->array_job_id,
		        j->array_task_id);
	if (j->array_max_tasks)
		fprintf(f, "ArrayTaskThrottle=%u ", j->array_max_tasks);
	if (j->het_job_id && !j->array_job_id)
		fprintf(f, "HetJobId=%u HetJobOffset=%u ", j->het_job_id,
		        HET_OFFSET(j->het_offset));
	fprintf(f, "JobName=%s%s", nul(j->name), le);
	if (j->het_job_id) /* on every component, as Slurm */
		fprintf(f, "HetJobIdSet=%u-%u%s", j->het_job_id,
		        j->het_job_id + HET_SIZE(j->het_offset) - 1, le);
	fprintf(f, "UserId=%s(%u) GroupId=%s(%u) MCS_label=%s%s", u, j->uid,
	        group_name(j->gid, j->group, group, sizeof(group)), j->gid,
	        j->mcs_label && *j->mcs_label ? j->mcs_label : "N/A", le);
	fprintf(f, "Priority=%u Nice=%d Account=%s QOS=%s%s", j->priority,
	        (int32_t)j->nice, nul(j->account), j->qos ? j->qos : "normal", le);
	/* one word, as Slurm writes a reason of several */
	snprintf(word, sizeof(word), "%s",
	         joblist_reason(j, ",_", reason, sizeof(reason)));
	for (char *c = word; *c; c++)
		if (*c == ' ')
			*c = '_';
	fprintf(f, "JobState=%s Reason=%s Dependency=%s%s", job_state_name(j->state),
	        word, nul(j->dependency), le);
	if (pending && j->reason_detail && *j->reason_detail)
		fprintf(f, "Why=%s%s", j->reason_detail, le); /* Rota: plain words */
	fprintf(f, "Requeue=%d Restarts=%u BatchFlag=%u Reboot=%d ExitCode=%s%s",
	        (j->flags & JOB_F_NO_REQUEUE) ? 0 : 1, j->restart_cnt, j->batch_flag,
	        (j->flags & JOB_F_REBOOT) ? 1 : 0,
	        joblist_exit_code(j->exit_code, b1, sizeof(b1)), le);
	if (o->details)
		fprintf(f, "DerivedExitCode=%s%s",
		        joblist_exit_code(j->derived_exit_code, b1, sizeof(b1)), le);
	fprintf(f, "RunTime=%s TimeLimit=%s TimeMin=%s%s",
	        timefmt_duration(job_run_time(j, now), b1, sizeof(b1)),
	        limit_str(j->time_limit, "Partition_Limit", b2, sizeof(b2)),
	        j->time_min ? limit_str(j->time_min, "N/A", b3, sizeof(b3)) : "N/A", le);
	fprintf(f, "SubmitTime=%s EligibleTime=%s%s",
	        time_str(j->submit_time, b1, sizeof(b1)),
	        time_str(j->eligible_time, b2, sizeof(b2)), le);
	fprintf(f, "AccrueTime=%s%s", time_str(j->eligible_time, b1, sizeof(b1)), le);
	fprintf(f, "StartTime=%s EndTime=%s Deadline=%s%s",
	        time_str(j->start_time, b1, sizeof(b1)),
	        time_str(pending ? 0 : j->end_time, b2, sizeof(b2)),
	        j->deadline ? time_str(j->deadline, b3, sizeof(b3)) : "N/A", le);
	if (j->cron_spec)
		fprintf(f, "%sCrontabSpec=\"%s\"%s", j->cron_job ? "CronJob=Yes " : "",
		        j->cron_spec, le);
	fprintf(
	    f, "SuspendTime=%s SecsPreSuspend=%u LastSchedEval=%s Scheduler=Main%s",
	    j->suspend_time ? time_str(j->suspend_time, b1, sizeof(b1)) : "None",
	    j->pre_sus_secs,
	    time_str(j->start_time > 0 ? j->start_time : j->submit_time, b3, sizeof(b3)),
	    le);
	fprintf(f, "Partition=%s AllocNode:Sid=%s:0%s", nul(j->partition),
	        nul(j->submit_host), le);
	fprintf(f, "ReqNodeList=%s ExcNodeList=%s%s", nul(j->req_nodes),
	        nul(j->exc_nodes), le);
	if (pending && j->sched_nodes && *j->sched_nodes)
		fprintf(f, "NodeList=%s SchedNodeList=%s%s", nul(j->nodes),
		        j->sched_nodes, le);
	else
		fprintf(f, "NodeList=%s%s", nul(j->nodes), le);
	/* one line, as Slurm's: "BatchFeatures=f BatchHost=n" */
	if (j->batch_features)
		fprintf(f, "BatchFeatures=%s", j->batch_features);
	if (j->batch_host && *j->batch_host && !pending)
		fprintf(f, "%sBatchHost=%s", j->batch_features ? " " : "", j->batch_host);
	if (j->batch_features || (j->batch_host && *j->batch_host && !pending))
		fputs(le, f);
	fprintf(f,
	        "NumNodes=%u NumCPUs=%u NumTasks=%u CPUs/Task=%u ReqB:S:C:T=0:%u:%s:%s%s",
	        pending || !j->num_nodes ? j->min_nodes : j->num_nodes, j->num_cpus,
	        (j->num_tasks && j->num_tasks != NO_VAL) ? j->num_tasks : 1, cpt,
	        j->sockets_per_node, star_or(j->cores_per_socket, b1),
	        star_or(j->threads_per_core, b2), le);
	job_tres(j, tres, sizeof(tres));
	fprintf(f, "TRES=%s%s", tres, le);
	fprintf(f, "Socks/Node=%s NtasksPerN:B:S:C=%u:0:%s:%s CoreSpec=*%s",
	        star_or(j->sockets_per_node, b1),
	        j->ntasks_per_node == NO_VAL ? 0 : j->ntasks_per_node,
	        star_or(j->ntasks_per_socket, b2), star_or(j->ntasks_per_core, b3), le);
	if (o->details)
		print_job_nodes(f, j, le);
	tmp = j->pn_min_tmp ? timefmt_mem_unit(j->pn_min_tmp, tmpb, sizeof(tmpb)) : "0";
	if (j->mem_per_cpu && j->mem_per_cpu != NO_VAL64)
		fprintf(f, "MinCPUsNode=%u MinMemoryCPU=%s MinTmpDiskNode=%s%s", mincpus,
		        timefmt_mem_unit(j->mem_per_cpu, b1, sizeof(b1)), tmp, le);
	else if (j->mem_per_node && j->mem_per_node != NO_VAL64)
		fprintf(f, "MinCPUsNode=%u MinMemoryNode=%s MinTmpDiskNode=%s%s", mincpus,
		        timefmt_mem_unit(j->mem_per_node, b1, sizeof(b1)), tmp, le);
	else
		fprintf(f, "MinCPUsNode=%u MinMemoryNode=0 MinTmpDiskNode=%s%s", mincpus,
		        tmp, le);
	fprintf(f, "Features=%s DelayBoot=00:00:00%s", nul(j->features), le);
	if (j->prefer)
		fprintf(f, "Prefer=%s%s", j->prefer, le);
	if (j->reservation)
		fprintf(f, "Reservation=%s%s", j->reservation, le);
	fprintf(f, "OverSubscribe=%s Contiguous=%d Licenses=%s Network=(null)%s",
	        (j->flags & JOB_F_EXCLUSIVE)        ? "NO"
	        : (j->flags & JOB_F_EXCLUSIVE_USER) ? "USER"
	        : (j->flags & JOB_F_EXCLUSIVE_MCS)  ? "MCS"
	        : (j->flags & JOB_F_OVERSUBSCRIBE)  ? "YES"
	                                            : "OK",
	        !!(j->flags & JOB_F_CONTIGUOUS), nul(j->licenses), le);
	fprintf(f, "Command=%s%s", nul(j->command), le);
	fprintf(f, "WorkDir=%s%s", nul(j->work_dir), le);
	if (j->comment && *j->comment)
		fprintf(f, "Comment=%s %s", j->comment, le);
	if (j->batch_flag)
		print_job_paths(f, j, le, u);
	if (j->req_switch)
		fprintf(f, "Switches=%u@%s%s", j->req_switch,
		        timefmt_duration((long)j->wait4switch, b1, sizeof(b1)), le);
	fputs("Power=", f);
	print_job_tres(f, j, le);
	if (j->mail_type && j->mail_user) {
		char mt[256];
		fprintf(f, "%sMailUser=%s MailType=%s", le, j->mail_user,
		        mail_type_str(j->mail_type, mt, sizeof(mt)));
	}
	end_record(f, o);
}

static int load(uint16_t req_type, const void *req, uint16_t resp_type, const char *what,
                uint16_t *ret_type, void **ret_body)
{
	char *msg = NULL;
	void *body = NULL;

	if (call_ctld(req_type, req, resp_type, &body, &msg)) {
		fprintf(stderr, "%s error: %s\n", what, msg);
		free(msg);
		return -1;
	}
	*ret_type = resp_type;
	*ret_body = body;
	return 0;
}

/* "ID", or "ARRAYID_TASK" (*task: NO_VAL for a plain id).  0 or -1. */
static int parse_job_task(const char *s, uint32_t *job, uint32_t *task)
{
	const char *us = s ? strchr(s, '_') : NULL;
	char head[16];

	*task = NO_VAL;
	if (!us)
		return fmt_parse_job_id(s, job);
	if ((size_t)(us - s) >= sizeof(head) || !isdigit((unsigned char)us[1]) ||
	    strspn(us + 1, "0123456789") != strlen(us + 1) || strlen(us + 1) > 9)
		return -1;
	memcpy(head, s, (size_t)(us - s));
	head[us - s] = '\0';
	if (fmt_parse_job_id(head, job) < 0)
		return -1;
	*task = (uint32_t)strtoul(us + 1, NULL, 10);
	return *task < ARRAYSPEC_LIMIT ? 0 : -1;
}

/* "N+K": job N, component K (*het; NO_VAL without "+"); -1 when bad. */
static int parse_job_het(const char *s, uint32_t *job, uint32_t *het)
{
	const char *plus = s ? strchr(s, '+') : NULL;
	char head[16];

	*het = NO_VAL;
	if (!plus)
		return 0;
	if ((size_t)(plus - s) >= sizeof(head) || !isdigit((unsigned char)plus[1]) ||
	    strspn(plus + 1, "0123456789") != strlen(plus + 1) || strlen(plus + 1) > 5)
		return -1;
	memcpy(head, s, (size_t)(plus - s));
	head[plus - s] = '\0';
	if (fmt_parse_job_id(head, job) < 0)
		return -1;
	*het = (uint32_t)strtoul(plus + 1, NULL, 10);
	return *het < HET_MAX ? 0 : -1;
}

/* Is record j the one of task `task` of its array: its own, or the pending
 * remainder that still holds it? */
static int holds_task(const struct job_info *j, uint32_t task)
{
	struct arrayspec a;
	int in;

	if (j->array_task_str) {
		if (arrayspec_parse(j->array_task_str, ARRAYSPEC_LIMIT, &a, NULL) < 0)
			return 0;
		in = arrayspec_test(&a, task);
		arrayspec_release(&a);
		return in;
	}
	return j->array_task_id == task;
}

/* --json: the records shown go into one document of Slurm's v0.0.38 shape
 * (proto/slurm_json.h), the one rotarestd answers, printed at the end. */
static json_t *json_doc;

static json_t *json_list(const struct scontrol_opts *o, const char *key)
{
	json_t *a;

	if (!json_doc)
		json_doc = sj_response();
	if (!(a = json_object_get(json_doc, key))) {
		a = json_array();
		json_object_set_new(json_doc, key, a);
	}
	return a;
}

static void json_print(const struct scontrol_opts *o, const char *key)
{
	json_list(o, key); /* an empty list when nothing matched */
	cli_print_doc(json_doc, o->json);
	json_decref(json_doc);
	json_doc = NULL;
}

/* "0", "0_T", "0+K": job id 0 stands for every job (Slurm's scontrol loads
 * them all and keeps those of task T, or component K). */
static int any_job_id(const char *s)
{
	size_t n = strspn(s, "0");

	return n && (!s[n] || s[n] == '_' || s[n] == '+');
}

/* "0_T" / "0+K": *task or *het set, -1 when malformed. */
static int parse_any_job(const char *s, uint32_t *task, uint32_t *het)
{
	const char *p = s + strspn(s, "0");
	char *end;
	unsigned long v;

	*task = *het = NO_VAL;
	if (!*p)
		return 0;
	if (!isdigit((unsigned char)p[1]))
		return -1;
	v = strtoul(p + 1, &end, 10);
	if (*end)
		return -1;
	if (*p == '_' && v < ARRAYSPEC_LIMIT)
		*task = (uint32_t)v;
	else if (*p == '+' && v < HET_MAX)
		*het = (uint32_t)v;
	else
		return -1;
	return 0;
}

/* Is record j shown for the id asked (any: job id 0)? */
static int job_wanted(const struct job_info *j, int any, uint32_t id, uint32_t task,
                      uint32_t het)
{
	if (!any && j->job_id != id && j->array_job_id != id && j->het_job_id != id)
		return 0;
	/* N+K: component K of heterogeneous job N */
	if (het != NO_VAL && ((!any && j->het_job_id != id) || !j->het_job_id ||
	                      HET_OFFSET(j->het_offset) != het))
		return 0;
	/* ARRAYID_TASK: that task's record alone */
	if (task != NO_VAL &&
	    ((!any && j->array_job_id != id) || !j->array_job_id || !holds_task(j, task)))
		return 0;
	return 1;
}

static int show_jobs(const struct scontrol_opts *o, const char *id_str)
{
	struct job_info_req req = {0};
	struct job_info_resp *resp;
	uint16_t type;
	void *body;
	uint32_t id = 0, task = NO_VAL, het = NO_VAL;
	time_t now;
	size_t shown = 0;
	int any = id_str && any_job_id(id_str);

	if (any) {
		if (parse_any_job(id_str, &task, &het) < 0) {
			fprintf(stderr, "slurm_load_jobs error: %s\n",
			        slurm_strerror(ESLURM_INVALID_JOB_ID));
			return 1;
		}
	} else if (id_str) {
		if (parse_job_het(id_str, &id, &het) < 0 ||
		    (het == NO_VAL && parse_job_task(id_str, &id, &task) < 0)) {
			fprintf(stderr, "slurm_load_jobs error: %s\n",
			        slurm_strerror(ESLURM_INVALID_JOB_ID));
			return 1;
		}
		req.job_ids.v = &id;
		req.job_ids.n = 1;
	}
	if (load(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, "slurm_load_jobs", &type,
	         &body))
		return 1;
	resp = body;
	now = resp->now > 0 ? (time_t)resp->now : time(NULL);
	print_last_update(o, now, resp->jobs_count);
	for (uint32_t i = 0; i < resp->jobs_count; i++) {
		struct job_info shown_job;

		if (id_str && !job_wanted(&resp->jobs[i], any, id, task, het))
			continue;
		/* ARRAYID_TASK on the pending remainder: shown as that one
		 * task (ArrayTaskId=T), as Slurm's scontrol does */
		shown_job = resp->jobs[i];
		if (task != NO_VAL && shown_job.array_task_str) {
			shown_job.array_task_str = NULL;
			shown_job.array_task_id = task;
		}
		if (o->json)
			json_array_append_new(
			    json_list(o, "jobs"),
			    sj_job(&shown_job, cli_conf()->cluster_name));
		else
			print_job(stdout, o, &shown_job, now);
		shown++;
	}
	msg_body_free(type, body);
	if (!shown && any) { /* all of them loaded, none kept */
		if (task != NO_VAL)
			printf("Job 0_%u not found\n", task);
		else if (het != NO_VAL)
			printf("Job 0+%u not found\n", het);
		else
			printf("Job 0 not found\n");
		return 1;
	}
	if (!shown && id_str) {
		fprintf(stderr, "slurm_load_jobs error: %s\n",
		        slurm_strerror(ESLURM_INVALID_JOB_ID));
		return 1;
	}
	if (o->json)
		json_print(o, "jobs");
	else if (!shown)
		printf("No jobs in the system\n");
	return 0;
}

/* ---- show node ---- */

/* CfgTRES= and AllocTRES=, GRES after cpu, mem and billing as Slurm 22.05
 * orders them: "gres/gpu=4" (typed ones AccountingStorageTRES names after:
 * gres/gpu:h100=4; common/gres_req.h). */
static void print_node_tres(FILE *f, const struct node_info *n, const char *le)
{
	const char *tracked = cli_conf()->accounting_storage_tres;
	char *cfg_all = gres_spec_tres(n->gres), *used_all = gres_spec_tres(n->gres_used);
	char b1[64], cfg[512], used[512];
	const char *sep = "";

	gres_tres_tracked(cfg_all, tracked, cfg, sizeof(cfg));
	gres_tres_tracked(used_all, tracked, used, sizeof(used));

	fprintf(f, "CfgTRES=cpu=%u,mem=%s,billing=%u%s%s%s", n->cpus,
	        timefmt_mem_unit(n->real_memory, b1, sizeof(b1)), n->cpus,
	        *cfg ? "," : "", cfg, le);
	fputs("AllocTRES=", f);
	if (n->alloc_cpus) {
		fprintf(f, "cpu=%u", n->alloc_cpus);
		sep = ",";
	}
	if (n->alloc_cpus && n->alloc_memory) {
		fprintf(f, ",mem=%s", timefmt_mem_unit(n->alloc_memory, b1, sizeof(b1)));
	}
	if (*used)
		fprintf(f, "%s%s", sep, used);
	fputs(le, f);
	free(cfg_all);
	free(used_all);
}

static void print_node(FILE *f, const struct scontrol_opts *o, const struct node_info *n)
{
	const char *le = o->oneliner ? " " : "\n   ";
	struct conf *conf = cli_conf();
	char b1[64], b2[64], st[192];

	fprintf(f, "NodeName=%s ", n->name);
	if (n->arch && *n->arch)
		fprintf(f, "Arch=%s ", n->arch);
	fprintf(f, "CoresPerSocket=%u %s", n->cores, le);
	fprintf(f, "CPUAlloc=%u CPUEfctv=%u CPUTot=%u ", n->alloc_cpus, n->cpus, n->cpus);
	if (n->cpu_load == NO_VAL)
		fprintf(f, "CPULoad=N/A%s", le);
	else
		fprintf(f, "CPULoad=%.2f%s", n->cpu_load / 100.0, le);
	fprintf(f, "AvailableFeatures=%s%s", nul(n->features), le);
	fprintf(f, "ActiveFeatures=%s%s", nul(n->features_act), le);
	fprintf(f, "Gres=%s%s", nul(n->gres), le);
	/* -d: what jobs hold of them, as Slurm shows it with details */
	if (o->details && n->gres_used)
		fprintf(f, "GresDrain=N/A%sGresUsed=%s%s", le, n->gres_used, le);
	fprintf(f, "NodeAddr=%s NodeHostName=%s ",
	        n->addr && *n->addr ? n->addr : n->name,
	        n->hostname && *n->hostname ? n->hostname : n->name);
	if (n->port && n->port != conf->slurmd_port)
		fprintf(f, "Port=%u ", n->port);
	fprintf(f, "Version=%s%s",
	        n->version && *n->version ? n->version : ROTA_SLURM_VERSION, le);
	if (n->os && *n->os)
		fprintf(f, "OS=%s %s", n->os, le);
	fprintf(f, "RealMemory=%llu AllocMem=%llu ", (unsigned long long)n->real_memory,
	        (unsigned long long)n->alloc_memory);
	if (n->free_memory == NO_VAL64)
		fputs("FreeMem=N/A ", f);
	else
		fprintf(f, "FreeMem=%llu ", (unsigned long long)n->free_memory);
	fprintf(f, "Sockets=%u Boards=%u%s", n->sockets, n->boards ? n->boards : 1, le);
	fprintf(
	    f,
	    "State=%s ThreadsPerCore=%u TmpDisk=%llu Weight=%u Owner=N/A MCS_label=%s%s",
	    node_state_upper(n->state, st, sizeof(st)), n->threads,
	    (unsigned long long)n->tmp_disk, n->weight,
	    n->mcs_label && *n->mcs_label ? n->mcs_label : "N/A", le);
	if (n->next_state && (n->state & (NODE_REBOOT_REQUESTED | NODE_REBOOT_ISSUED)))
		fprintf(f, "NextState=%s%s", n->next_state, le);
	if (n->partitions && *n->partitions)
		fprintf(f, "Partitions=%s %s", n->partitions, le);
	fprintf(f, "BootTime=%s ",
	        n->boot_time > 0 ? timefmt_iso((time_t)n->boot_time, b1, sizeof(b1))
	                         : "None");
	fprintf(f, "SlurmdStartTime=%s%s",
	        n->slurmd_start_time > 0
	            ? timefmt_iso((time_t)n->slurmd_start_time, b1, sizeof(b1))
	            : "None",
	        le);
	fprintf(f, "LastBusyTime=%s%s", time_str(n->last_busy, b1, sizeof(b1)), le);
	print_node_tres(f, n, le);
	fprintf(f, "CapWatts=n/a%s", le);
	fprintf(f, "CurrentWatts=0 AveWatts=0%s", le);
	fputs("ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s", f);
	if (n->reason && *n->reason) {
		char who[128];

		if (n->reason_uid == NO_VAL ||
		    uid_to_name(n->reason_uid, who, sizeof(who)) < 0)
			snprintf(who, sizeof(who),
			         n->reason_uid == NO_VAL ? "Unknown" : "%u",
			         n->reason_uid);
		fprintf(f, "%sReason=%s [%s@%s]", le, n->reason, who,
		        time_str(n->reason_time, b2, sizeof(b2)));
	}
	end_record(f, o);
}

static void show_node(const struct scontrol_opts *o, const struct node_info *n)
{
	if (o->json)
		json_array_append_new(json_list(o, "nodes"), sj_node(n));
	else
		print_node(stdout, o, n);
}

static int show_nodes(const struct scontrol_opts *o, const char *names_expr)
{
	struct empty_msg req = {0};
	struct node_info_resp *resp;
	char **names = NULL;
	size_t nnames = 0;
	uint16_t type;
	void *body;
	int rc = 0;

	if (names_expr && hostlist_expand(names_expr, &names, &nnames, NULL) < 0) {
		fprintf(stderr, "Node %s not found\n", names_expr);
		return 1;
	}
	if (load(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO_RESP, "slurm_load_node", &type,
	         &body)) {
		hostlist_free(names);
		return 1;
	}
	resp = body;
	print_last_update(o, 0, resp->nodes_count);
	if (!names_expr) {
		for (uint32_t i = 0; i < resp->nodes_count; i++)
			show_node(o, &resp->nodes[i]);
		if (!resp->nodes_count && !o->json)
			printf("No nodes in the system\n");
	}
	for (size_t k = 0; k < nnames; k++) {
		uint32_t i;

		for (i = 0;
		     i < resp->nodes_count && strcmp(resp->nodes[i].name, names[k]); i++)
			;
		if (i < resp->nodes_count) {
			show_node(o, &resp->nodes[i]);
		} else {
			fprintf(stderr, "Node %s not found\n", names[k]);
			rc = 1;
		}
	}
	hostlist_free(names);
	msg_body_free(type, body);
	if (o->json)
		json_print(o, "nodes");
	return rc;
}

/* ---- show partition ---- */

static const char *oversubscribe(const char *os, char *buf, size_t len)
{
	size_t i;

	if (!os || !*os)
		return "NO";
	for (i = 0; os[i] && i + 1 < len; i++)
		buf[i] = (char)toupper((unsigned char)os[i]);
	buf[i] = '\0';
	if ((!strcmp(buf, "YES") || !strcmp(buf, "FORCE")) && i + 3 < len)
		memcpy(buf + i, ":4", 3);
	return buf;
}

/* Total memory (MB) of the partition's nodes, from the node list. */
static uint64_t part_memory(const struct part_info *p, const struct node_info_resp *nodes)
{
	char **names = NULL;
	size_t n = 0;
	uint64_t mb = 0;

	if (!nodes || !p->nodes || hostlist_expand(p->nodes, &names, &n, NULL) < 0)
		return 0;
	for (size_t k = 0; k < n; k++)
		for (uint32_t i = 0; i < nodes->nodes_count; i++)
			if (!strcmp(nodes->nodes[i].name, names[k]))
				mb += nodes->nodes[i].real_memory;
	hostlist_free(names);
	return mb;
}

/* "DefMemPerCPU=N", else "DefMemPerNode=N|UNLIMITED" (prefix Def or Max). */
static void mem_limit(FILE *f, const char *prefix, uint64_t per_cpu, uint64_t per_node)
{
	if (per_cpu)
		fprintf(f, "%sMemPerCPU=%llu", prefix, (unsigned long long)per_cpu);
	else if (per_node)
		fprintf(f, "%sMemPerNode=%llu", prefix, (unsigned long long)per_node);
	else
		fprintf(f, "%sMemPerNode=UNLIMITED", prefix);
}

static const char *yes_no(uint32_t flags, uint32_t flag)
{
	return flags & flag ? "YES" : "NO";
}

/* As Slurm's: AllowAccounts=LIST|ALL, or DenyAccounts=LIST when only that
 * is set (the same for Qos). */
static void allow_deny(FILE *f, const char *what, const char *allow, const char *deny)
{
	if (allow || !deny)
		fprintf(f, " Allow%s=%s", what, allow && *allow ? allow : "ALL");
	else
		fprintf(f, " Deny%s=%s", what, deny);
}

static void print_part(FILE *f, const struct scontrol_opts *o, const struct part_info *p,
                       const struct node_info_resp *nodes)
{
	const char *le = o->oneliner ? " " : "\n   ";
	char b1[64], b2[64], os[64];
	uint64_t mem = part_memory(p, nodes);
	uint32_t billing;

	fprintf(f, "PartitionName=%s%s", p->name, le);
	fprintf(f, "AllowGroups=%s",
	        p->allow_groups && *p->allow_groups ? p->allow_groups : "ALL");
	allow_deny(f, "Accounts", p->allow_accounts, p->deny_accounts);
	allow_deny(f, "Qos", p->allow_qos, p->deny_qos);
	fprintf(f, "%s", le);
	fprintf(f, "AllocNodes=%s", p->alloc_nodes ? p->alloc_nodes : "ALL");
	if (p->alternate)
		fprintf(f, " Alternate=%s", p->alternate);
	fprintf(f, " Default=%s QoS=%s%s", p->is_default ? "YES" : "NO",
	        p->qos ? p->qos : "N/A", le);
	fprintf(
	    f,
	    "DefaultTime=%s DisableRootJobs=%s ExclusiveUser=%s GraceTime=%u Hidden=%s%s",
	    p->default_time == INFINITE32
	        ? "NONE"
	        : limit_str(p->default_time, "NONE", b1, sizeof(b1)),
	    yes_no(p->flags, PART_INFO_F_DISABLE_ROOT_JOBS),
	    yes_no(p->flags, PART_INFO_F_EXCLUSIVE_USER), p->grace_time,
	    yes_no(p->flags, PART_INFO_F_HIDDEN), le);
	if (p->max_nodes == INFINITE32 || p->max_nodes == NO_VAL)
		snprintf(b2, sizeof(b2), "UNLIMITED");
	else
		snprintf(b2, sizeof(b2), "%u", p->max_nodes);
	fprintf(f, "MaxNodes=%s MaxTime=%s MinNodes=%u LLN=%s ", b2,
	        limit_str(p->max_time, "UNLIMITED", b1, sizeof(b1)), p->min_nodes,
	        yes_no(p->flags, PART_INFO_F_LLN));
	if (p->max_cpus_per_node == INFINITE32)
		fprintf(f, "MaxCPUsPerNode=UNLIMITED%s", le);
	else
		fprintf(f, "MaxCPUsPerNode=%u%s", p->max_cpus_per_node, le);
	fprintf(f, "Nodes=%s%s", p->nodes && *p->nodes ? p->nodes : "(null)", le);
	fprintf(f,
	        "PriorityJobFactor=%u PriorityTier=%u RootOnly=%s ReqResv=%s "
	        "OverSubscribe=%s%s",
	        p->priority_job_factor, p->priority_tier,
	        yes_no(p->flags, PART_INFO_F_ROOT_ONLY),
	        yes_no(p->flags, PART_INFO_F_REQ_RESV),
	        oversubscribe(p->oversubscribe, os, sizeof(os)), le);
	if (p->over_time_limit == NO_VAL)
		fputs("OverTimeLimit=NONE", f);
	else if (p->over_time_limit == INFINITE32)
		fputs("OverTimeLimit=UNLIMITED", f);
	else
		fprintf(f, "OverTimeLimit=%u", p->over_time_limit);
	fprintf(f, " PreemptMode=%s%s", p->preempt_mode ? p->preempt_mode : "OFF", le);
	fprintf(f, "State=%s TotalCPUs=%u TotalNodes=%u SelectTypeParameters=NONE%s",
	        conf_part_state_str(p->state), p->total_cpus, p->total_nodes, le);
	fprintf(f, "JobDefaults=(null)%s", le);
	mem_limit(f, "Def", p->def_mem_per_cpu, p->def_mem_per_node);
	fputc(' ', f);
	mem_limit(f, "Max", p->max_mem_per_cpu, p->max_mem_per_node);
	fprintf(f, "%s", le);
	billing = (uint32_t)billing_of(p->tres_billing_weights,
	                               billing_flag(cli_conf()->prio_flags, "MAX_TRES"),
	                               p->total_cpus, (double)mem, p->total_nodes);
	if (mem)
		fprintf(f, "TRES=cpu=%u,mem=%s,node=%u,billing=%u", p->total_cpus,
		        timefmt_mem_unit(mem, b1, sizeof(b1)), p->total_nodes, billing);
	else
		fprintf(f, "TRES=cpu=%u,node=%u,billing=%u", p->total_cpus,
		        p->total_nodes, billing);
	if (p->tres_billing_weights)
		fprintf(f, "%sTRESBillingWeights=%s", le, p->tres_billing_weights);
	end_record(f, o);
}

static int show_parts(const struct scontrol_opts *o, const char *name)
{
	struct empty_msg req = {0};
	struct part_info_resp *resp;
	uint16_t type, ntype = 0;
	void *body, *nbody = NULL;
	char *nmsg = NULL;
	int shown = 0;

	if (load(MSG_PART_INFO_REQ, &req, MSG_PART_INFO_RESP, "slurm_load_partitions",
	         &type, &body))
		return 1;
	resp = body;
	/* node sizes only feed the TRES line: do without them on failure */
	if (resp->parts_count &&
	    !call_ctld(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO_RESP, &nbody, &nmsg))
		ntype = MSG_NODE_INFO_RESP;
	free(nmsg);
	print_last_update(o, 0, resp->parts_count);
	for (uint32_t i = 0; i < resp->parts_count; i++) {
		if (name && strcmp(resp->parts[i].name, name))
			continue;
		/* as Slurm: a hidden one is shown with -a (all) alone */
		if ((resp->parts[i].flags & PART_INFO_F_HIDDEN) && !o->all)
			continue;
		if (o->json)
			json_array_append_new(json_list(o, "partitions"),
			                      sj_partition(&resp->parts[i]));
		else
			print_part(stdout, o, &resp->parts[i],
			           ntype == MSG_NODE_INFO_RESP
			               ? (struct node_info_resp *)nbody
			               : NULL);
		shown++;
	}
	msg_body_free(type, body);
	if (nbody)
		msg_body_free(ntype, nbody);
	if (!shown && name) {
		fprintf(stderr, "Partition %s not found\n", name);
		return 1;
	}
	if (o->json)
		json_print(o, "partitions");
	else if (!shown)
		printf("No partitions in the system\n");
	return 0;
}

/* ---- show config ---- */

/* Keys Slurm prints in seconds; a bare number from the controller gets " sec". */
static const char *const sec_keys[] = {
    "BatchStartTimeout",
    "CompleteWait",
    "EioTimeout",
    "GetEnvTimeout",
    "HealthCheckInterval",
    "InactiveLimit",
    "KillWait",
    "MessageTimeout",
    "MinJobAge",
    "ResumeTimeout",
    "SchedulerTimeSlice",
    "SlurmctldTimeout",
    "SlurmdTimeout",
    "SuspendTimeout",
    "TCPTimeout",
    "UnkillableStepTimeout",
    "WaitTime",
    NULL,
};

static int all_digits(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int cmp_kv(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;

	return strcasecmp(x->key ? x->key : "", y->key ? y->key : "");
}

static int show_config(const struct scontrol_opts *o)
{
	struct empty_msg req = {0};
	struct config_resp *resp;
	uint16_t type;
	void *body;
	char now[64];

	if (load(MSG_CONFIG_REQ, &req, MSG_CONFIG_RESP, "slurm_load_ctl_conf", &type,
	         &body))
		return 1;
	resp = body;
	qsort(resp->items, resp->items_count, sizeof(*resp->items), cmp_kv);
	printf("Configuration data as of %s\n",
	       timefmt_iso(time(NULL), now, sizeof(now)));
	for (uint32_t i = 0; i < resp->items_count; i++) {
		const struct kv *kv = &resp->items[i];
		const char *sfx = "";

		if (!kv->key)
			continue;
		for (size_t k = 0; sec_keys[k]; k++)
			if (!strcasecmp(kv->key, sec_keys[k]) && all_digits(kv->value))
				sfx = " sec";
		printf("%-23s = %s%s\n", kv->key, kv->value ? kv->value : "(null)", sfx);
	}
	msg_body_free(type, body);
	putchar('\n');
	scontrol_ping(stdout);
	return 0;
}

/* scontrol show topology [NAME]: the controller formats the lines. */
static int lic_cmp(const void *a, const void *b)
{
	return strcmp(((const struct lic_info *)a)->name,
	              ((const struct lic_info *)b)->name);
}

/* scontrol show licenses [NAME]: Slurm's two lines a license (one with -o),
 * sorted by name; a name not configured prints nothing. */
static int show_licenses(const struct scontrol_opts *o, const char *name)
{
	struct empty_msg req = {0};
	struct lic_info_resp *r;
	uint16_t type;
	void *body;

	if (load(MSG_LIC_INFO_REQ, &req, MSG_LIC_INFO_RESP, "slurm_load_licenses", &type,
	         &body))
		return 1;
	r = body;
	if (!r->lics_count)
		printf("No licenses configured in Slurm.\n");
	qsort(r->lics, r->lics_count, sizeof(*r->lics), lic_cmp);
	for (uint32_t i = 0; i < r->lics_count; i++) {
		const struct lic_info *l = &r->lics[i];
		if (name && strcmp(l->name, name))
			continue;
		printf("LicenseName=%s%sTotal=%u Used=%u Free=%u Reserved=%u Remote=%s\n",
		       l->name, o->oneliner ? " " : "\n    ", l->total, l->used,
		       l->used < l->total ? l->total - l->used : 0, l->reserved,
		       l->remote ? "yes" : "no");
	}
	msg_body_free(type, body);
	return 0;
}

static int show_topology(const char *name)
{
	struct empty_msg req = {0};
	struct config_resp *resp;
	uint16_t type;
	void *body;
	int shown = 0, none;

	if (load(MSG_TOPO_INFO_REQ, &req, MSG_TOPO_INFO_RESP, "slurm_load_topo", &type,
	         &body))
		return 1;
	resp = body;
	for (uint32_t i = 0; i < resp->items_count; i++) {
		const struct kv *kv = &resp->items[i];
		if (name && (!kv->key || strcmp(kv->key, name)))
			continue;
		printf("%s\n", kv->value ? kv->value : "");
		shown++;
	}
	none = !resp->items_count;
	msg_body_free(type, body);
	if (none && !name) {
		printf("No topology information available\n");
		return 0;
	}
	if (!shown) {
		fprintf(stderr, "scontrol: error: Switch %s not found\n", name);
		return 1;
	}
	return 0;
}

/* ---- ping ---- */

/* Ping on fd; the answer's host names the controller that answered. */
static int ping_fd(const struct conf *conf, int fd, char *host, size_t hlen)
{
	struct rota_error err = {""};
	struct empty_msg req = {0};
	struct ping_resp *resp = NULL;
	uint16_t type = 0;
	int ms = (int)(conf->message_timeout ? conf->message_timeout : 10) * 1000, up;

	up = net_rpc(fd, MSG_PING_REQ, &req, &type, (void **)&resp, ms, &err) == 0 &&
	     type == MSG_PING_RESP;
	if (up)
		snprintf(host, hlen, "%s", resp->host ? resp->host : "");
	else
		log_debug("ping: %s", err.text);
	msg_body_free(type, resp);
	close(fd);
	return up;
}

/* Each controller, primary then backups: UP when it answers.  The one that
 * serves answers on the local socket too (a user without the key reaches it
 * there); the others are asked over TCP. */
int scontrol_ping(FILE *f)
{
	struct conf *conf = cli_conf();
	struct rota_error err = {""};
	struct auth *auth = NULL;
	size_t n = conf_ctld_count(conf);
	char serving[256] = "";
	int any = 0, fd;

	auth_create(conf, 0, &auth, NULL);
	fd = client_connect(conf, auth, NULL, 0, &err);
	if (fd >= 0)
		any = ping_fd(conf, fd, serving, sizeof(serving));
	for (size_t i = 0; i < n; i++) {
		const char *host = conf_ctld_host(conf, i);
		char who[256], role[32];
		int up = any && host && !strcmp(serving, host);

		if (!up && n > 1 &&
		    (fd = client_connect_to(conf, auth, NULL, i, &err)) >= 0)
			up = ping_fd(conf, fd, who, sizeof(who));
		if (i == 0)
			snprintf(role, sizeof(role), "primary");
		else if (n == 2)
			snprintf(role, sizeof(role), "backup");
		else
			snprintf(role, sizeof(role), "backup%zu", i);
		fprintf(f, "Slurmctld(%s) at %s is %s\n", role, host ? host : "localhost",
		        up ? "UP" : "DOWN");
		any |= up;
	}
	auth_destroy(auth);
	return any ? 0 : 1;
}

/* ---- hostnames / hostlist ---- */

/* Read a `show hostlist /path` file: names separated by spaces, commas or
 * newlines.  Caller frees. */
static char *read_host_file(const char *path)
{
	FILE *fp = fopen(path, "re");
	char *buf;
	size_t n;

	if (!fp) {
		cli_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = xmalloc(HOSTLIST_FILE_MAX + 1);
	n = fread(buf, 1, HOSTLIST_FILE_MAX + 1, fp);
	fclose(fp);
	if (n > HOSTLIST_FILE_MAX) {
		cli_error("%s: larger than %u bytes", path, HOSTLIST_FILE_MAX);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (isspace((unsigned char)buf[i]))
			buf[i] = ',';
	return buf;
}

/* Expand every word of argv (hostlist expressions or /files) into one list. */
static char **expand_words(int argc, char **argv, size_t *ret_n)
{
	char **all = NULL;
	size_t n = 0;

	for (int i = 0; i < argc; i++) {
		char *text =
		    argv[i][0] == '/' ? read_host_file(argv[i]) : xstrdup(argv[i]);
		struct rota_error err = {""};
		char **names = NULL;
		size_t cnt = 0;

		if (!text)
			goto fail;
		/* strip trailing separators a file leaves */
		for (size_t len = strlen(text); len && text[len - 1] == ','; len--)
			text[len - 1] = '\0';
		if (*text && hostlist_expand(text, &names, &cnt, &err) < 0) {
			cli_error("Invalid hostlist: %s", argv[i]);
			free(text);
			goto fail;
		}
		free(text);
		if (n + cnt > HOSTLIST_MAX) {
			cli_error("host list has more than %d names", HOSTLIST_MAX);
			hostlist_free(names);
			goto fail;
		}
		all = xrealloc(all, (n + cnt + 1) * sizeof(*all));
		for (size_t k = 0; k < cnt; k++)
			all[n++] = xstrdup(names[k]);
		all[n] = NULL;
		hostlist_free(names);
	}
	*ret_n = n;
	return all ? all : xcalloc(1, sizeof(*all));
fail:
	for (size_t k = 0; k < n; k++)
		free(all[k]);
	free(all);
	return NULL;
}

static void free_names(char **v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(v[k]);
	free(v);
}

static int show_hostnames(int argc, char **argv)
{
	char *env = getenv("SLURM_JOB_NODELIST");
	char **names;
	size_t n;

	if (!argc) {
		if (!env || !*env) {
			cli_error(
			    "No hostlist specified and SLURM_JOB_NODELIST is not set");
			return 1;
		}
		argc = 1;
		argv = &env;
	}
	if (!(names = expand_words(argc, argv, &n)))
		return 1;
	for (size_t k = 0; k < n; k++)
		printf("%s\n", names[k]);
	free_names(names, n);
	return 0;
}

static int cmp_natural(const void *a, const void *b)
{
	return rank_natural_cmp(*(char *const *)a, *(char *const *)b);
}

static int show_hostlist(int argc, char **argv, int sorted)
{
	char **names, *s;
	size_t n;

	if (!argc) {
		cli_error("No hostlist specified");
		return 1;
	}
	if (!(names = expand_words(argc, argv, &n)))
		return 1;
	if (sorted)
		qsort(names, n, sizeof(*names), cmp_natural);
	if (!(s = hostlist_compress(names, n)))
		fatal("out of memory");
	printf("%s\n", s);
	free(s);
	free_names(names, n);
	return 0;
}

/* ---- dispatch ---- */

/* "N", "N.S" or "N.batch" -> job and step (NO_VAL: all steps). -1 if malformed. */
static int parse_step_id(const char *id, uint32_t *job, uint32_t *step)
{
	if (fmt_parse_step_id(id, job, step) < 0 || *step == STEP_EXTERN)
		return -1;
	return 0;
}

static void print_step(const struct scontrol_opts *o, const struct step_info *s)
{
	const char *sep = o->oneliner ? " " : "\n   ";
	char start[64], limit[64], id[64];

	if (s->step_id == STEP_BATCH)
		snprintf(id, sizeof(id), "%u.batch", s->job_id);
	else
		snprintf(id, sizeof(id), "%u.%u", s->job_id, s->step_id);
	timefmt_iso((time_t)s->start_time, start, sizeof(start));
	if (s->time_limit == INFINITE32)
		snprintf(limit, sizeof(limit), "UNLIMITED");
	else
		timefmt_duration((long)s->time_limit * 60, limit, sizeof(limit));
	printf("StepId=%s UserId=%u StartTime=%s TimeLimit=%s", id, s->uid, start, limit);
	printf("%sState=%s Partition=%s NodeList=%s", sep, job_state_name(s->state),
	       s->partition ? s->partition : "(null)", s->nodes ? s->nodes : "(null)");
	printf("%sNodes=%u CPUs=%u Tasks=%u Name=%s Network=(null)", sep, s->num_nodes,
	       s->num_cpus, s->num_tasks, s->name ? s->name : "(null)");
	if (s->mem) {
		char mb[32];
		printf("%sTRES=cpu=%u,mem=%s,node=%u", sep, s->num_cpus,
		       timefmt_mem_unit(s->mem, mb, sizeof(mb)), s->num_nodes);
	} else {
		printf("%sTRES=cpu=%u,node=%u", sep, s->num_cpus, s->num_nodes);
	}
	printf("%sResvPorts=%s", sep, s->resv_ports ? s->resv_ports : "(null)");
	printf("%sCPUFreqReq=Default Dist=Block", sep);
	printf("%sSrunHost:Pid=%s:0\n\n", sep, s->srun_host ? s->srun_host : "(null)");
}

/* scontrol show step [N[.S]] */
static int show_steps(const struct scontrol_opts *o, const char *id)
{
	struct job_info_req req = {0};
	struct step_info_resp *resp;
	uint32_t job = 0, step = NO_VAL;
	void *body = NULL;
	char *msg = NULL;
	int shown = 0;

	if (id && parse_step_id(id, &job, &step) < 0) {
		fprintf(stderr, "Invalid job step id: %s\n", id);
		return 1;
	}
	if (id) {
		req.job_ids.v = &job;
		req.job_ids.n = 1;
	}
	if (call_ctld(MSG_STEP_INFO_REQ, &req, MSG_STEP_INFO_RESP, &body, &msg)) {
		fprintf(stderr, "slurm_get_job_steps error: %s\n", msg);
		return 1;
	}
	resp = body;
	for (uint32_t i = 0; i < resp->steps_count; i++) {
		if (step != NO_VAL && resp->steps[i].step_id != step)
			continue;
		print_step(o, &resp->steps[i]);
		shown++;
	}
	if (!shown) {
		if (id)
			printf("Job step %s not found\n", id);
		else
			printf("No job steps in the system\n");
	}
	msg_body_free(MSG_STEP_INFO_RESP, body);
	return !shown && id;
}

int scontrol_show(const struct scontrol_opts *o, int argc, char **argv)
{
	char *entity, *eq, *id = NULL;
	int rc;

	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:show\n");
		return 1;
	}
	entity = xstrdup(argv[0]);
	if ((eq = strchr(entity, '='))) {
		*eq = '\0';
		id = eq + 1;
	} else if (argc > 1) {
		id = argv[1];
	}
	if (o->json &&
	    !(!strcasecmp(entity, "jobid") || scontrol_abbrev(entity, "jobs", 1) ||
	      scontrol_abbrev(entity, "nodes", 1) || !strcasecmp(entity, "nodename") ||
	      scontrol_abbrev(entity, "partitions", 1) ||
	      !strcasecmp(entity, "partitionname"))) {
		fprintf(stderr, "--json: only show job, node and partition print JSON\n");
		rc = 1;
	} else if (!strcasecmp(entity, "jobid") || scontrol_abbrev(entity, "jobs", 1)) {
		rc = show_jobs(o, id);
	} else if (scontrol_abbrev(entity, "nodes", 1) ||
	           !strcasecmp(entity, "nodename")) {
		rc = show_nodes(o, id);
	} else if (scontrol_abbrev(entity, "partitions", 1) ||
	           !strcasecmp(entity, "partitionname")) {
		rc = show_parts(o, id);
	} else if (scontrol_abbrev(entity, "config", 1)) {
		rc = show_config(o);
	} else if (scontrol_abbrev(entity, "topology", 1)) {
		rc = show_topology(id);
	} else if (scontrol_abbrev(entity, "hostnames", 5)) {
		rc = show_hostnames(argc - 1, argv + 1);
	} else if (!strcasecmp(entity, "hostlistsorted")) {
		rc = show_hostlist(argc - 1, argv + 1, 1);
	} else if (scontrol_abbrev(entity, "hostlist", 5)) {
		rc = show_hostlist(argc - 1, argv + 1, 0);
	} else if (scontrol_abbrev(entity, "steps", 2)) {
		rc = show_steps(o, id);
	} else if (scontrol_abbrev(entity, "reservations", 3) ||
	           !strcasecmp(entity, "reservationname")) {
		rc = scontrol_resv_show(o, id);
	} else if (scontrol_abbrev(entity, "assoc_mgr", 2) ||
	           scontrol_abbrev(entity, "cache", 2)) {
		rc = scontrol_assoc_mgr(o, argc - 1, argv + 1);
	} else if (scontrol_abbrev(entity, "licenses", 2)) {
		rc = show_licenses(o, id);
	} else if (scontrol_abbrev(entity, "daemons", 1)) {
		rc = id ? (fprintf(stderr, "too many arguments for keyword:show\n"), 1)
		        : scontrol_show_daemons();
	} else if (scontrol_abbrev(entity, "aliases", 1)) {
		rc = scontrol_show_aliases(id);
	} else if (scontrol_abbrev(entity, "federations", 1) ||
	           scontrol_abbrev(entity, "frontendname", 1) ||
	           scontrol_abbrev(entity, "burstbuffer", 2)) {
		rc = 0; /* not in a federation, no front ends, no burst buffers */
	} else if (!strcasecmp(entity, "bbstat") || !strcasecmp(entity, "dwstat")) {
		/* Cray DataWarp's status tool, run by the burst_buffer/datawarp plugin */
		cli_error("show %s: the status of burst buffers needs a burst buffer "
		          "plugin (BurstBufferType), which Rota does not have",
		          entity);
		rc = 1;
	} else {
		fprintf(stderr, "invalid entity:%s for keyword:show\n", entity);
		rc = 1;
	}
	free(entity);
	return rc;
}
