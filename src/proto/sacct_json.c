/* sacct_json.c - sacct --json: the records as Slurm 22.05 prints them
 * ({"meta", "errors", "jobs"}, its data_parser v0.0.38 shape, the
 * dbv0.0.38_job schema of slurmrestd).  Values come from the same records
 * and field texts as the columns (sacct_fields.c). */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proto/sacct.h"
#include "proto/slurmdb_json.h"
#include "common/conf.h"
#include "common/gres_req.h"
#include "common/states.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "common/common.h"

#define JSON_OR_FAIL(x) ((x) ? (x) : (fatal("out of memory"), (json_t *)NULL))

static json_t *str(const char *s)
{
	return json_string(s ? s : "");
}

/* A field's text as sacct prints it, as a number. */
static json_int_t field_num(const char *name, const struct acct_job *j,
                            const struct acct_step *st, const struct sacct_ctx *x)
{
	char buf[128];

	return strtoll(
	    sacct_value(x, sacct_field_find(name)->id, j, st, buf, sizeof(buf)), NULL,
	    10);
}

static json_t *field_str(const char *name, const struct acct_job *j,
                         const struct acct_step *st, const struct sacct_ctx *x)
{
	char buf[512];

	return str(sacct_value(x, sacct_field_find(name)->id, j, st, buf, sizeof(buf)));
}

/* A wait status: {"status", "return_code"[, "signal"]}. */
static json_t *exit_code(uint32_t status)
{
	uint32_t sig = status & 0x7f, rc = (status >> 8) & 0xff;
	json_t *o = json_pack("{s:s, s:I}", "status",
	                      sig  ? "SIGNALED"
	                      : rc ? "FAILED"
	                           : "SUCCESS",
	                      "return_code", (json_int_t)rc);

	if (sig) {
		char name[32];
		const char *abbrev = sigabbrev_np((int)sig);
		snprintf(name, sizeof(name), "SIG%s", abbrev ? abbrev : "UNKNOWN");
		json_object_set_new(
		    o, "signal",
		    json_pack("{s:I, s:s}", "signal_id", (json_int_t)sig, "name", name));
	}
	return JSON_OR_FAIL(o);
}

json_t *sacct_json_cpu_time(uint64_t usec)
{
	return json_pack("{s:I, s:I}", "seconds", (json_int_t)(usec / 1000000),
	                 "microseconds", (json_int_t)(usec % 1000000));
}

/* {"elapsed", ["eligible",] "end", "start", ["submission",] "suspended",
 * "system", "total", "user"[, "limit"]}: a step has no eligible, submission
 * or limit; CPU times in seconds and microseconds. */
static json_t *times(const struct acct_job *j, const struct acct_step *st,
                     const struct sacct_ctx *x, uint64_t user_usec, uint64_t sys_usec)
{
	json_t *t = json_object();

	json_object_set_new(t, "elapsed",
	                    json_integer(field_num("ElapsedRaw", j, st, x)));
	if (!st)
		json_object_set_new(t, "eligible", json_integer(j->eligible));
	json_object_set_new(t, "end", json_integer(st ? st->end : j->end));
	json_object_set_new(t, "start", json_integer(st ? st->start : j->start));
	if (!st)
		json_object_set_new(t, "submission", json_integer(j->submit));
	json_object_set_new(t, "suspended", json_integer(0));
	json_object_set_new(t, "system", sacct_json_cpu_time(sys_usec));
	json_object_set_new(t, "total", sacct_json_cpu_time(user_usec + sys_usec));
	json_object_set_new(t, "user", sacct_json_cpu_time(user_usec));
	if (!st)
		json_object_set_new(t, "limit", json_integer(j->time_limit));
	return JSON_OR_FAIL(t);
}

json_t *sacct_json_tres(uint64_t cpus, uint64_t mem, uint64_t nodes)
{
	json_t *a = json_array();

	if (cpus)
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I}", "type", "cpu",
		                                   "name", "", "id", 1, "count",
		                                   (json_int_t)cpus));
	if (mem)
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I}", "type", "mem",
		                                   "name", "", "id", 2, "count",
		                                   (json_int_t)mem));
	if (nodes)
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I}", "type", "node",
		                                   "name", "", "id", 4, "count",
		                                   (json_int_t)nodes));
	return a;
}

json_t *sacct_json_tres_gres(const struct sacct_ctx *x, json_t *a, const char *all)
{
	char gres[512];
	int id = 1001;

	gres_tres_tracked(all, x->conf->accounting_storage_tres, gres, sizeof(gres));
	for (const char *s = gres; *s; id++) {
		size_t len = strcspn(s, ","), name_len;
		const char *eq = memchr(s, '=', len);
		if (eq && len > 5 && !strncmp(s, "gres/", 5)) {
			name_len = (size_t)(eq - s) - 5;
			json_array_append_new(
			    a, json_pack("{s:s, s:s%, s:i, s:I}", "type", "gres", "name",
			                 s + 5, name_len, "id", id, "count",
			                 (json_int_t)strtoull(eq + 1, NULL, 10)));
		}
		s += len + (s[len] == ',');
	}
	return a;
}

/* A step's GPU usage added to a TRES list: gres/gpumem (bytes) and
 * gres/gpuutil (percent), numbered after the job's own GRES. */
static void tres_gpu_use(json_t *a, const struct acct_job *j, uint64_t mem, uint32_t util)
{
	int id = 1001;

	for (const char *s = j->gres_tres; s && (s = strstr(s, "gres/")); s += 5)
		id++;
	json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I}", "type", "gres", "name",
	                                   "gpumem", "id", id, "count", (json_int_t)mem));
	json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I}", "type", "gres", "name",
	                                   "gpuutil", "id", id + 1, "count",
	                                   (json_int_t)util));
}

json_t *sacct_json_step_usage(const struct acct_job *j, const struct acct_step *st)
{
	json_t *usage =
	    json_pack("{s:o, s:o, s:o, s:o}", "max",
	              json_pack("[{s:s, s:i, s:I, s:s}]", "type", "mem", "id", 2, "count",
	                        (json_int_t)st->max_rss * 1024, "node",
	                        st->max_rss_node ? st->max_rss_node : ""),
	              "average",
	              json_pack("[{s:s, s:i, s:I}]", "type", "mem", "id", 2, "count",
	                        (json_int_t)st->ave_rss * 1024),
	              "min", json_array(), "total", json_array());

	if (usage && st->gpus) {
		tres_gpu_use(json_object_get(usage, "max"), j, st->max_gpu_mem,
		             st->max_gpu_util);
		tres_gpu_use(json_object_get(usage, "average"), j, st->ave_gpu_mem,
		             st->ave_gpu_util);
	}
	return JSON_OR_FAIL(usage);
}

uint64_t sacct_json_req_mem(const struct acct_job *j)
{
	uint64_t mem = j->req_mem & ~ACCT_MEM_PER_CPU;

	if (j->req_mem & ACCT_MEM_PER_CPU)
		mem *= j->req_cpus ? j->req_cpus : 1;
	return mem;
}

static json_t *step(const struct acct_job *j, const struct acct_step *st,
                    const struct sacct_ctx *x)
{
	char buf[64];
	const char *id =
	    sacct_value(x, sacct_field_find("JobIDRaw")->id, j, st, buf, sizeof(buf));
	json_t *usage = sacct_json_step_usage(j, st);
	json_t *o = json_object();

	json_object_set_new(o, "time", times(j, st, x, st->user_usec, st->sys_usec));
	json_object_set_new(o, "exit_code", exit_code(st->exit_code));
	json_object_set_new(o, "nodes",
	                    json_pack("{s:I, s:s}", "count", (json_int_t)st->nnodes,
	                              "range", st->nodes ? st->nodes : ""));
	json_object_set_new(o, "tasks",
	                    json_pack("{s:I}", "count", (json_int_t)st->ntasks));
	json_object_set_new(o, "pid", str(""));
	json_object_set_new(o, "CPU",
	                    json_pack("{s:{s:i, s:i}, s:[]}", "requested_frequency",
	                              "min", 0, "max", 0, "governor"));
	json_object_set_new(o, "kill_request_user", json_null());
	json_object_set_new(o, "state", field_str("State", j, st, x));
	json_object_set_new(o, "statistics",
	                    json_pack("{s:{s:i}, s:{s:i}}", "CPU", "actual_frequency", 0,
	                              "energy", "consumed", 0));
	json_object_set_new(o, "step",
	                    json_pack("{s:I, s:{s:I}, s:s, s:s}", "job_id",
	                              (json_int_t)j->job_id, "het", "component",
	                              (json_int_t)NO_VAL, "id", id, "name",
	                              st->name ? st->name : ""));
	json_object_set_new(o, "tres",
	                    json_pack("{s:O, s:o, s:o}", "requested", usage, "consumed",
	                              usage, "allocated",
	                              sacct_json_tres(st->ncpus, 0, st->nnodes)));
	return JSON_OR_FAIL(o);
}

static json_t *job(const struct acct_job *j, const char *cluster,
                   const struct sacct_ctx *x, int with_steps)
{
	uint64_t user_usec = 0, sys_usec = 0, mem = sacct_json_req_mem(j);
	char who[256] = "";
	json_t *o = json_object(), *steps = json_array();

	for (uint32_t i = 0; i < j->steps_count; i++) {
		user_usec += j->steps[i].user_usec;
		sys_usec += j->steps[i].sys_usec;
		if (with_steps)
			json_array_append_new(steps, step(j, &j->steps[i], x));
	}
	if (j->cancel_by && uid_to_name(j->cancel_by - 1, who, sizeof(who)) < 0)
		snprintf(who, sizeof(who), "%u", j->cancel_by - 1);
	json_object_set_new(o, "account", str(j->account));
	json_object_set_new(o, "comment",
	                    json_pack("{s:s, s:o, s:s}", "administrator", "", "job",
	                              str(j->comment), "system", ""));
	json_object_set_new(o, "allocation_nodes", json_integer(j->nnodes));
	json_object_set_new(o, "array",
	                    json_pack("{s:I, s:{s:{s:{s:i}}}, s:o, s:I}", "job_id",
	                              (json_int_t)j->array_job_id, "limits", "max",
	                              "running", "tasks", 0, "task",
	                              str(j->array_pending), "task_id",
	                              (json_int_t)j->array_task_id));
	json_object_set_new(o, "time", times(j, NULL, x, user_usec, sys_usec));
	json_object_set_new(o, "association",
	                    json_pack("{s:o, s:o, s:o, s:o}", "account", str(j->account),
	                              "cluster", str(cluster), "partition",
	                              str(j->partition), "user", str(j->user)));
	json_object_set_new(o, "cluster", str(cluster));
	json_object_set_new(o, "constraints", str(j->constraints));
	json_object_set_new(o, "derived_exit_code", exit_code(j->derived_exit));
	json_object_set_new(o, "exit_code", exit_code(j->exit_code));
	json_object_set_new(o, "flags", json_array());
	json_object_set_new(o, "group", str(j->group));
	json_object_set_new(
	    o, "het",
	    json_pack("{s:i, s:I}", "job_id", 0, "job_offset", (json_int_t)NO_VAL));
	json_object_set_new(o, "job_id", json_integer(j->job_id));
	json_object_set_new(o, "name", str(j->name));
	json_object_set_new(
	    o, "mcs", json_pack("{s:s}", "label", j->mcs_label ? j->mcs_label : ""));
	json_object_set_new(o, "nodes", field_str("NodeList", j, NULL, x));
	json_object_set_new(o, "partition", str(j->partition));
	json_object_set_new(o, "priority", json_integer(j->priority));
	json_object_set_new(o, "qos", str(j->qos));
	json_object_set_new(o, "required",
	                    json_pack("{s:I, s:I}", "CPUs", (json_int_t)j->req_cpus,
	                              "memory", (json_int_t)mem));
	json_object_set_new(o, "kill_request_user",
	                    j->cancel_by ? str(who) : json_null());
	json_object_set_new(
	    o, "reservation",
	    json_pack("{s:i, s:o}", "id", 0, "name", str(j->reservation)));
	json_object_set_new(o, "state",
	                    json_pack("{s:s, s:s}", "current",
	                              j->superseded
	                                  ? "REQUEUED"
	                                  : job_state_name(j->state & JOB_STATE_BASE),
	                              "reason", job_reason_name(j->reason)));
	json_object_set_new(o, "steps", steps);
	json_object_set_new(
	    o, "tres",
	    json_pack("{s:o, s:o}", "allocated",
	              sacct_json_tres_gres(
	                  x, sacct_json_tres(j->ncpus, j->ncpus ? mem : 0, j->nnodes),
	                  j->gres_tres),
	              "requested", sacct_json_tres(j->req_cpus, mem, j->req_nodes)));
	json_object_set_new(o, "user", str(j->user));
	json_object_set_new(o, "wckey", json_pack("{s:s, s:[]}", "wckey", "", "flags"));
	json_object_set_new(o, "working_directory", str(j->work_dir));
	json_object_set_new(o, "container", str(""));
	return o;
}

void sacct_json_add(const struct sacct_ctx *x, json_t *jobs, const struct acct_job *j,
                    int with_steps)
{
	json_array_append_new(jobs, job(j, x->conf->cluster_name, x, with_steps));
}

json_t *sacct_json_doc(json_t *jobs)
{
	json_t *doc = sdb_response();

	json_object_set_new(doc, "jobs", jobs);
	return doc;
}
