/* slurm_json44.c - Slurm's v0.0.44 documents from the controller's answers
 * (slurm_json44.h).  Every document is written as text (proto/jsonw.h), the
 * jobs' because a listing may hold 100,000 of them, the others so that one
 * set of helpers (the no_val struct, string lists) serves them all; the
 * jansson forms are read back from that text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "common/hostlist.h"
#include "common/jobfmt.h"
#include "common/states.h"
#include "proto/jsonw.h"
#include "proto/slurm_json44.h"
#include "common/common.h"

#define NO_VAL16     0xfffeu
#define INFINITE16   0xffffu
#define INFINITE64   0xffffffffffffffffull
#define STD_PATH_MAX 4096

/* ---- the version's helpers ---- */

/* {"set", "infinite", "number"}: number only counts when set. */
static void nv(struct jsonw *w, const char *key, int set, int infinite, long long n)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_bool(w, "set", set);
	jsonw_bool(w, "infinite", infinite);
	jsonw_int(w, "number", set ? n : 0);
	jsonw_obj_end(w);
}

static void nv32(struct jsonw *w, const char *key, uint32_t v)
{
	nv(w, key, v < NO_VAL, v == INFINITE32, v);
}

/* A count the job may not give: 0 is unset. */
static void nv_given(struct jsonw *w, const char *key, uint32_t v)
{
	nv(w, key, v != 0, 0, v);
}

/* A Slurm u16 field, which Rota's records hold in a u32: both widths'
 * NO_VAL and INFINITE count. */
static void nv16(struct jsonw *w, const char *key, uint32_t v)
{
	nv(w, key, v < NO_VAL16, v == INFINITE16 || v == INFINITE32, v);
}

static void nv64(struct jsonw *w, const char *key, uint64_t v)
{
	nv(w, key, v < NO_VAL64, v == INFINITE64, (long long)v);
}

/* A time: Slurm's 0 is set, with number 0. */
static void nv_time(struct jsonw *w, const char *key, long long t)
{
	nv(w, key, 1, 0, t);
}

static void unset(struct jsonw *w, const char *key)
{
	nv(w, key, 0, 0, 0);
}

/* {"set", "infinite", "number"} of a double, with digits decimals. */
static void nv_real(struct jsonw *w, const char *key, int set, int infinite, double v,
                    int digits)
{
	char num[40];
	int n = snprintf(num, sizeof(num), "%.*f", digits, set ? v : 0.0);

	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_bool(w, "set", set);
	jsonw_bool(w, "infinite", infinite);
	jsonw_key(w, "number");
	jsonw_raw(w, num, (size_t)n);
	jsonw_obj_end(w);
}

static void empty_list(struct jsonw *w, const char *key)
{
	jsonw_key(w, key);
	jsonw_lit(w, "[]");
}

static void empty_obj(struct jsonw *w, const char *key)
{
	jsonw_key(w, key);
	jsonw_lit(w, "{}");
}

/* "a<sep>b<sep>c" as ["a", "b", "c"] (NULL or "": []). */
static void split_list(struct jsonw *w, const char *key, const char *s, char sep)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	while (s && *s) {
		size_t n = strcspn(s, (char[]){sep, '\0'});
		if (n) {
			jsonw_elem(w);
			jsonw_quoted(w, s, n);
		}
		s += n;
		s += *s == sep;
	}
	jsonw_arr_end(w);
}

static void one_str_list(struct jsonw *w, const char *key, const char *v)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	jsonw_elem_str(w, v);
	jsonw_arr_end(w);
}

/* What was written, read back as a jansson value (w is freed). */
static json_t *loaded(struct jsonw *w)
{
	json_t *o = json_loadb(w->p, w->len, 0, NULL);

	jsonw_free(w);
	if (!o)
		fatal("out of memory");
	return o;
}

/* ---- the response head ---- */

json_t *sj44_response(const struct sj44_meta *m)
{
	char major[16] = "", minor[16] = "", micro[16] = "";
	const char *plugin = m->plugin ? m->plugin : "slurmctld";
	char type[32], name[48];
	json_t *o;

#define S(x) ((x) ? (x) : "")
	sscanf(ROTA_SLURM_VERSION, "%15[0-9].%15[0-9].%15[0-9]", major, minor, micro);
	snprintf(type, sizeof(type), "openapi/%s", plugin);
	snprintf(name, sizeof(name), "Slurm OpenAPI %s", plugin);
	o = json_pack("{s:{s:{s:s, s:s, s:s, s:s}, s:{s:s, s:s, s:s}, s:[], "
	              "s:{s:{s:s, s:s, s:s}, s:s, s:s}}, s:[], s:[]}",
	              "meta", "plugin", "type", type, "name", name, "data_parser",
	              "data_parser/v0.0.44", "accounting_storage",
	              S(m->accounting_storage), "client", "source", S(m->source), "user",
	              S(m->user), "group", S(m->group), "command", "slurm", "version",
	              "major", major, "micro", micro, "minor", minor, "release",
	              ROTA_SLURM_VERSION, "cluster", S(m->cluster), "errors", "warnings");
#undef S
	if (!o)
		fatal("out of memory");
	return o;
}

void sj44_add_error(json_t *response, const char *msg, int errnum, const char *source)
{
	json_t *e = json_pack("{s:s, s:i, s:s, s:s}", "description", msg ? msg : "",
	                      "error_number", errnum, "error", slurm_strerror(errnum),
	                      "source", source ? source : "");

	if (!e || json_array_append_new(json_object_get(response, "errors"), e) < 0)
		fatal("out of memory");
}

/* The one member "v" of the object begun in w, read back (w is freed). */
static json_t *member_v(struct jsonw *w)
{
	jsonw_obj_end(w);
	json_t *o = loaded(w), *v = json_incref(json_object_get(o, "v"));

	json_decref(o);
	return v;
}

json_t *sj44_no_val(uint32_t v)
{
	struct jsonw w = {0};

	jsonw_obj_begin(&w);
	nv32(&w, "v", v);
	return member_v(&w);
}

/* ---- jobs ---- */

/* A wait status as v0.0.44_process_exit_code_verbose (NO_VAL: PENDING). */
static void exit_code(struct jsonw *w, const char *key, uint32_t st)
{
	const char *status = "INVALID", *signame = NULL;
	uint32_t rc = NO_VAL, sig = NO_VAL16;

	if (st == NO_VAL) {
		status = "PENDING";
	} else if (WIFEXITED(st)) {
		rc = WEXITSTATUS(st);
		status = rc ? "ERROR" : "SUCCESS";
	} else if (WIFSIGNALED(st)) {
		status = "SIGNALED";
		sig = (uint32_t)WTERMSIG(st);
		signame = sigabbrev_np((int)sig);
	} else {
		rc = st;
	}
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	one_str_list(w, "status", status);
	nv32(w, "return_code", rc);
	jsonw_key(w, "signal");
	jsonw_obj_begin(w);
	nv16(w, "id", sig);
	jsonw_str(w, "name", signame);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

json_t *sj44_exit_code(uint32_t status)
{
	struct jsonw w = {0};

	jsonw_obj_begin(&w);
	exit_code(&w, "v", status);
	return member_v(&w);
}

/* ["PENDING"], ["RUNNING", "COMPLETING"]: the base state, then its flags. */
static void job_state(struct jsonw *w, const char *key, uint32_t state)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	jsonw_elem_str(w, job_state_name(state & JOB_STATE_BASE));
	if (state & JOB_REQUEUE_FLAG)
		jsonw_elem_str(w, "REQUEUED");
	if (state & JOB_SPECIAL_EXIT)
		jsonw_elem_str(w, "SPECIAL_EXIT");
	if (state & JOB_CONFIGURING)
		jsonw_elem_str(w, "CONFIGURING");
	if (state & JOB_COMPLETING)
		jsonw_elem_str(w, "COMPLETING");
	jsonw_arr_end(w);
}

/* The memory a job asked for on one node, in MB (0: none given). */
static uint64_t job_node_mem(const struct job_info *j, uint32_t cpus)
{
	if (j->mem_per_cpu && j->mem_per_cpu < NO_VAL64)
		return j->mem_per_cpu * cpus;
	return j->mem_per_node < NO_VAL64 ? j->mem_per_node : 0;
}

/* job_resources: what a started job holds, node by node ({} before). */
static void job_resources(struct jsonw *w, const struct job_info *j)
{
	char **names = NULL;
	size_t n = 0;
	uint32_t *cpus;

	if (!j->nodes || !*j->nodes || hostlist_expand(j->nodes, &names, &n, NULL) < 0) {
		empty_obj(w, "job_resources");
		return;
	}
	cpus = xcalloc(n ? n : 1, sizeof(*cpus));
	jobfmt_node_cpus(j->cpus_per_node.v, j->cpus_per_node.n, cpus, n);
	jsonw_key(w, "job_resources");
	jsonw_obj_begin(w);
	empty_list(w, "select_type");
	jsonw_key(w, "nodes");
	jsonw_obj_begin(w);
	jsonw_int(w, "count", (long long)n);
	empty_list(w, "select_type");
	jsonw_str(w, "list", j->nodes);
	jsonw_bool(w, "whole", (j->flags & JOB_F_EXCLUSIVE) != 0);
	jsonw_key(w, "allocation");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_elem(w);
		jsonw_obj_begin(w);
		jsonw_int(w, "index", (long long)i);
		jsonw_str(w, "name", names[i]);
		jsonw_key(w, "cpus");
		jsonw_obj_begin(w);
		jsonw_int(w, "count", cpus[i]);
		jsonw_int(w, "used", cpus[i]);
		jsonw_obj_end(w);
		jsonw_key(w, "memory");
		jsonw_obj_begin(w);
		jsonw_int(w, "used", (long long)job_node_mem(j, cpus[i]));
		jsonw_int(w, "allocated", (long long)job_node_mem(j, cpus[i]));
		jsonw_obj_end(w);
		empty_list(w, "sockets");
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	jsonw_int(w, "cpus", j->num_cpus);
	unset(w, "threads_per_core");
	jsonw_obj_end(w);
	free(cpus);
	hostlist_free(names);
}

/* stdout_expanded and the like: the pattern with %j, %u, %x ... filled in,
 * under the working directory when relative (NULL pattern: ""). */
static void std_expanded(struct jsonw *w, const char *key, const char *pattern,
                         const struct job_info *j)
{
	struct jobfmt_ids ids = {.job_id = j->job_id,
	                         .step_id = STEP_BATCH,
	                         .array_job_id = j->array_job_id,
	                         .array_task_id =
	                             j->array_job_id ? j->array_task_id : NO_VAL,
	                         .job_name = j->name,
	                         .user = j->user,
	                         .node_name = j->batch_host};
	char *path = NULL, *full = NULL;

	if (pattern && *pattern && !jobfmt_filename(pattern, &ids, &path) &&
	    *path != '/' && j->work_dir && strlen(path) < STD_PATH_MAX)
		full = xasprintf("%s/%s", j->work_dir, path);
	jsonw_str(w, key, full ? full : path);
	free(full);
	free(path);
}

/* "cpu=4,mem=2048M,node=1,billing=4[,gres/gpu=2]" (tres_gres: allocated). */
static void job_tres(struct jsonw *w, const char *key, const struct job_info *j,
                     const char *gres)
{
	uint32_t nodes = j->num_nodes ? j->num_nodes : 1;
	uint64_t mem = j->mem_per_cpu && j->mem_per_cpu < NO_VAL64
	                   ? j->mem_per_cpu * j->num_cpus
	                   : job_node_mem(j, 0) * nodes;
	char *s =
	    mem ? xasprintf("cpu=%u,mem=%lluM,node=%u,billing=%u", j->num_cpus,
	                    (unsigned long long)mem, nodes, j->num_cpus)
	        : xasprintf("cpu=%u,node=%u,billing=%u", j->num_cpus, nodes, j->num_cpus);
	char *all = gres && *gres ? xasprintf("%s,%s", s, gres) : NULL;

	jsonw_str(w, key, all ? all : s);
	free(all);
	free(s);
}

/* gres_detail: each node's "GRES=..." of scontrol -d's node detail. */
static void gres_detail(struct jsonw *w, const char *detail)
{
	jsonw_key(w, "gres_detail");
	jsonw_arr_begin(w);
	for (const char *p = detail; p && (p = strstr(p, "GRES=")); p += 5) {
		size_t n = strcspn(p + 5, " \n");
		if (n) {
			jsonw_elem(w);
			jsonw_quoted(w, p + 5, n);
		}
	}
	jsonw_arr_end(w);
}

/* The job's fields before "job_id", in the model's order. */
static void job_head(struct jsonw *w, const struct job_info *j, const char *cluster)
{
	uint32_t base = j->state & JOB_STATE_BASE;

	jsonw_str(w, "account", j->account);
	nv_time(w, "accrue_time", j->eligible_time);
	jsonw_str(w, "admin_comment", NULL);
	jsonw_str(w, "allocating_node", j->submit_host);
	nv32(w, "array_job_id", j->array_job_id);
	nv32(w, "array_task_id", j->array_job_id ? j->array_task_id : NO_VAL);
	nv32(w, "array_max_tasks", j->array_max_tasks);
	jsonw_str(w, "array_task_string", j->array_task_str);
	jsonw_int(w, "association_id", 0);
	jsonw_str(w, "batch_features", j->batch_features);
	jsonw_bool(w, "batch_flag", j->batch_flag);
	jsonw_str(w, "batch_host", j->batch_host);
	empty_list(w, "flags");
	jsonw_str(w, "burst_buffer", NULL);
	jsonw_str(w, "burst_buffer_state", NULL);
	jsonw_str(w, "cluster", cluster);
	jsonw_str(w, "cluster_features", NULL);
	jsonw_str(w, "command", j->command);
	jsonw_str(w, "comment", j->comment);
	jsonw_str(w, "container", NULL);
	jsonw_str(w, "container_id", NULL);
	jsonw_bool(w, "contiguous", 0);
	jsonw_int(w, "core_spec", 0);
	jsonw_int(w, "thread_spec", 0);
	nv_given(w, "cores_per_socket", j->cores_per_socket);
	nv_real(w, "billable_tres", base != JOB_PENDING, 0, j->num_cpus, 3);
	nv16(w, "cpus_per_task",
	     j->cpus_per_task && j->cpus_per_task != NO_VAL ? j->cpus_per_task : 1);
	unset(w, "cpu_frequency_minimum");
	unset(w, "cpu_frequency_maximum");
	unset(w, "cpu_frequency_governor");
	jsonw_str(w, "cpus_per_tres", j->cpus_per_tres);
	jsonw_str(w, "cron", NULL);
	nv_time(w, "deadline", 0);
	nv32(w, "delay_boot", 0);
	jsonw_str(w, "dependency", j->dependency);
	exit_code(w, "derived_exit_code",
	          base == JOB_PENDING ? NO_VAL : j->derived_exit_code);
	nv_time(w, "eligible_time", j->eligible_time);
	nv_time(w, "end_time", j->end_time);
	jsonw_str(w, "excluded_nodes", j->exc_nodes);
	exit_code(w, "exit_code", base == JOB_PENDING ? NO_VAL : j->exit_code);
	jsonw_str(w, "extra", NULL);
	jsonw_str(w, "failed_node", NULL);
	jsonw_str(w, "features", j->features);
	jsonw_str(w, "federation_origin", NULL);
	jsonw_str(w, "federation_siblings_active", NULL);
	jsonw_str(w, "federation_siblings_viable", NULL);
	gres_detail(w, j->node_detail);
	jsonw_int(w, "group_id", j->gid);
	jsonw_str(w, "group_name", j->group);
	nv32(w, "het_job_id", 0);
	jsonw_str(w, "het_job_id_set", NULL);
	nv32(w, "het_job_offset", 0);
}

/* The memory asked for: per CPU when given so, else per node. */
static void job_memory(struct jsonw *w, const struct job_info *j)
{
	int per_cpu = j->mem_per_cpu && j->mem_per_cpu < NO_VAL64;

	nv64(w, "memory_per_cpu", per_cpu ? j->mem_per_cpu : NO_VAL64);
	nv64(w, "memory_per_node", per_cpu ? NO_VAL64 : j->mem_per_node);
}

void sj44_job_write(struct jsonw *w, const struct job_info *j, const char *cluster)
{
	uint32_t base = j->state & JOB_STATE_BASE;

	jsonw_obj_begin(w);
	job_head(w, j, cluster);
	jsonw_int(w, "job_id", j->job_id);
	job_resources(w, j);
	empty_list(w, "job_size_str");
	job_state(w, "job_state", j->state);
	nv_time(w, "last_sched_evaluation", 0);
	jsonw_str(w, "licenses", j->licenses);
	jsonw_str(w, "licenses_allocated", NULL);
	empty_list(w, "mail_type");
	jsonw_str(w, "mail_user", NULL);
	nv32(w, "max_cpus", 0);
	nv32(w, "max_nodes", 0);
	jsonw_str(w, "mcs_label", j->mcs_label);
	jsonw_str(w, "memory_per_tres", j->mem_per_tres);
	jsonw_str(w, "name", j->name);
	jsonw_str(w, "network", NULL);
	jsonw_str(w, "nodes", base == JOB_PENDING ? NULL : j->nodes);
	jsonw_int(w, "nice", (int32_t)j->nice);
	nv_given(w, "tasks_per_core", j->ntasks_per_core);
	unset(w, "tasks_per_tres");
	nv16(w, "tasks_per_node", j->ntasks_per_node ? j->ntasks_per_node : NO_VAL);
	nv_given(w, "tasks_per_socket", j->ntasks_per_socket);
	unset(w, "tasks_per_board");
	nv32(w, "cpus", j->num_cpus);
	nv32(w, "node_count", j->num_nodes);
	nv32(w, "tasks", j->num_tasks);
	jsonw_str(w, "partition", j->partition);
	jsonw_str(w, "prefer", j->prefer);
	job_memory(w, j);
	nv16(w, "minimum_cpus_per_node", j->pn_min_cpus);
	nv32(w, "minimum_tmp_disk_per_node", 0);
	jsonw_key(w, "power");
	jsonw_obj_begin(w);
	empty_list(w, "flags");
	jsonw_obj_end(w);
	nv_time(w, "preempt_time", 0);
	nv_time(w, "preemptable_time", 0);
	nv_time(w, "pre_sus_time", 0);
	jsonw_bool(w, "hold", j->hold != 0);
	nv32(w, "priority", j->priority);
	empty_list(w, "priority_by_partition");
	one_str_list(w, "profile", "NOT_SET");
	jsonw_str(w, "qos", j->qos);
	jsonw_bool(w, "reboot", 0);
	jsonw_str(w, "required_nodes", j->req_nodes);
	jsonw_int(w, "required_switches", j->req_switch);
	jsonw_bool(w, "requeue", !(j->flags & JOB_F_NO_REQUEUE));
	nv_time(w, "resize_time", 0);
	jsonw_int(w, "restart_cnt", j->restart_cnt);
	jsonw_str(w, "resv_name", NULL);
	jsonw_str(w, "scheduled_nodes", j->sched_nodes);
	jsonw_int(w, "segment_size", 0);
	jsonw_str(w, "selinux_context", NULL);
	if (j->flags & (JOB_F_EXCLUSIVE | JOB_F_OVERSUBSCRIBE | JOB_F_EXCLUSIVE_USER |
	                JOB_F_EXCLUSIVE_MCS))
		one_str_list(w, "shared",
		             j->flags & JOB_F_EXCLUSIVE        ? "none"
		             : j->flags & JOB_F_EXCLUSIVE_USER ? "user"
		             : j->flags & JOB_F_EXCLUSIVE_MCS  ? "mcs"
		                                               : "oversubscribe");
	else
		empty_list(w, "shared");
	jsonw_key(w, "step_id");
	jsonw_obj_begin(w);
	jsonw_str(w, "sluid", NULL);
	nv32(w, "job_id", j->job_id);
	unset(w, "step_het_component");
	jsonw_str(w, "step_id", "entire");
	jsonw_obj_end(w);
	jsonw_int(w, "sockets_per_board", 0);
	nv_given(w, "sockets_per_node", j->sockets_per_node);
	nv_time(w, "start_time", j->start_time);
	jsonw_str(w, "state_description", j->reason_detail);
	jsonw_str(w, "state_reason", job_reason_name(j->reason));
	jsonw_str(w, "standard_input", j->std_in);
	jsonw_str(w, "standard_output", j->std_out);
	jsonw_str(w, "standard_error", j->std_err);
	std_expanded(w, "stdin_expanded", j->std_in, j);
	std_expanded(w, "stdout_expanded", j->std_out, j);
	std_expanded(w, "stderr_expanded", j->std_err, j);
	nv_time(w, "submit_time", j->submit_time);
	jsonw_str(w, "submit_line", NULL);
	nv_time(w, "suspend_time", 0);
	jsonw_str(w, "system_comment", NULL);
	nv32(w, "time_limit", j->time_limit);
	nv32(w, "time_minimum", 0);
	nv_given(w, "threads_per_core", j->threads_per_core);
	jsonw_str(w, "tres_bind", NULL);
	jsonw_str(w, "tres_freq", NULL);
	jsonw_str(w, "tres_per_job", j->tres_per_job);
	jsonw_str(w, "tres_per_node", j->tres_per_node);
	jsonw_str(w, "tres_per_socket", j->tres_per_socket);
	jsonw_str(w, "tres_per_task", j->tres_per_task);
	job_tres(w, "tres_req_str", j, NULL);
	if (base == JOB_PENDING)
		jsonw_str(w, "tres_alloc_str", NULL);
	else
		job_tres(w, "tres_alloc_str", j, j->tres_gres);
	jsonw_int(w, "user_id", j->uid);
	jsonw_str(w, "user_name", j->user);
	jsonw_int(w, "maximum_switch_wait_time", j->wait4switch);
	jsonw_str(w, "wckey", NULL);
	jsonw_str(w, "current_working_directory", j->work_dir);
	jsonw_obj_end(w);
}

json_t *sj44_job(const struct job_info *j, const char *cluster)
{
	struct jsonw w = {0};

	sj44_job_write(&w, j, cluster);
	return loaded(&w);
}

json_t *sj44_job_states(const struct job_info_resp *r)
{
	struct jsonw w = {0};
	char id[48];

	jsonw_arr_begin(&w);
	for (uint32_t i = 0; i < r->jobs_count; i++) {
		const struct job_info *j = &r->jobs[i];

		if (!j->array_job_id)
			snprintf(id, sizeof(id), "%u", j->job_id);
		else if (j->array_task_str && *j->array_task_str)
			snprintf(id, sizeof(id), "%u_[%.32s]", j->array_job_id,
			         j->array_task_str);
		else
			snprintf(id, sizeof(id), "%u_%u", j->array_job_id,
			         j->array_task_id);
		jsonw_elem(&w);
		jsonw_obj_begin(&w);
		jsonw_str(&w, "job_id", id);
		job_state(&w, "state", j->state);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	return loaded(&w);
}

/* ---- shares ---- */

/* A fraction in millionths as a float64 no_val struct (FS_INF infinite,
 * FS_NONE unset). */
static void nv_frac(struct jsonw *w, const char *key, uint64_t v)
{
	nv_real(w, key, v < FS_NONE, v == FS_INF, (double)v / 1e6, 6);
}

/* [{"name", "value"}] of "cpu=10,mem=20" (TRES-minutes limits). */
static void tres_values(struct jsonw *w, const char *key, const char *kv)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	while (kv && *kv) {
		size_t n = strcspn(kv, ","), k = strcspn(kv, "=,");
		if (k < n) {
			char name[64];
			snprintf(name, sizeof(name), "%.*s", (int)k, kv);
			jsonw_elem(w);
			jsonw_obj_begin(w);
			jsonw_str(w, "name", name);
			nv64(w, "value", strtoull(kv + k + 1, NULL, 10));
			jsonw_obj_end(w);
		}
		kv += n;
		kv += *kv == ',';
	}
	jsonw_arr_end(w);
}

/* The account above row k: the nearest account line one level up. */
static const char *share_parent(const struct share_resp *r, uint32_t k)
{
	const struct share_row *s = &r->rows[k];

	if (s->user && *s->user)
		return s->account;
	for (uint32_t i = k; i-- > 0;)
		if (r->rows[i].depth + 1 == s->depth &&
		    !(r->rows[i].user && *r->rows[i].user))
			return r->rows[i].account;
	return "";
}

static void share_write(struct jsonw *w, const struct share_resp *r, uint32_t k)
{
	const struct share_row *s = &r->rows[k];
	int user = s->user && *s->user;
	char run[96];

	jsonw_obj_begin(w);
	jsonw_int(w, "id", 0);
	jsonw_str(w, "cluster", r->cluster);
	jsonw_str(w, "name", user ? s->user : s->account);
	jsonw_str(w, "parent", share_parent(r, k));
	jsonw_str(w, "partition", s->partition);
	nv_frac(w, "shares_normalized", s->norm_shares);
	nv32(w, "shares", s->raw_shares);
	jsonw_key(w, "tres");
	jsonw_obj_begin(w);
	snprintf(run, sizeof(run), "cpu=%llu,billing=%llu",
	         (unsigned long long)s->run_cpu_mins * 60,
	         (unsigned long long)s->run_billing_mins * 60);
	tres_values(w, "run_seconds", run);
	tres_values(w, "group_minutes", s->grp_tres_mins);
	jsonw_key(w, "usage");
	jsonw_arr_begin(w);
	jsonw_elem(w);
	jsonw_obj_begin(w);
	jsonw_str(w, "name", "billing");
	jsonw_int(w, "value", (long long)s->raw_usage);
	jsonw_obj_end(w);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	nv_frac(w, "effective_usage", s->eff_usage);
	nv_frac(w, "usage_normalized", s->norm_usage);
	jsonw_int(w, "usage", (long long)s->raw_usage);
	jsonw_key(w, "fairshare");
	jsonw_obj_begin(w);
	nv_frac(w, "factor", s->fairshare);
	nv_frac(w, "level", s->level_fs);
	jsonw_obj_end(w);
	one_str_list(w, "type", user ? "USER" : "ASSOCIATION");
	jsonw_obj_end(w);
}

json_t *sj44_shares(const struct share_resp *r)
{
	struct jsonw w = {0};
	uint64_t total = 0;

	jsonw_obj_begin(&w);
	jsonw_key(&w, "shares");
	jsonw_arr_begin(&w);
	for (uint32_t k = 0; k < r->rows_count; k++) {
		if (r->rows[k].depth == 1 && r->rows[k].raw_shares < NO_VAL)
			total += r->rows[k].raw_shares;
		jsonw_elem(&w);
		share_write(&w, r, k);
	}
	jsonw_arr_end(&w);
	jsonw_int(&w, "total_shares", (long long)total);
	jsonw_obj_end(&w);
	return loaded(&w);
}

/* ---- nodes, partitions, ping, diag ---- */

static void node_energy(struct jsonw *w)
{
	jsonw_key(w, "energy");
	jsonw_obj_begin(w);
	jsonw_int(w, "average_watts", 0);
	jsonw_int(w, "base_consumed_energy", 0);
	jsonw_int(w, "consumed_energy", 0);
	unset(w, "current_watts");
	jsonw_int(w, "previous_consumed_energy", 0);
	jsonw_int(w, "last_collected", 0);
	jsonw_obj_end(w);
}

json_t *sj44_node(const struct node_info *n)
{
	struct jsonw w = {0};
	char st[128], tres[128], used[128];

	node_state_upper(n->state, st, sizeof(st)); /* "IDLE+DRAIN" */
	snprintf(tres, sizeof(tres), "cpu=%u,mem=%lluM,billing=%u", n->cpus,
	         (unsigned long long)n->real_memory, n->cpus);
	snprintf(used, sizeof(used), "cpu=%u,mem=%lluM", n->alloc_cpus,
	         (unsigned long long)n->alloc_memory);
	jsonw_obj_begin(&w);
	jsonw_str(&w, "architecture", n->arch);
	jsonw_str(&w, "burstbuffer_network_address", NULL);
	jsonw_int(&w, "boards", n->boards);
	nv_time(&w, "boot_time", n->boot_time);
	nv_time(&w, "tls_cert_last_renewal", 0);
	empty_list(&w, "cert_flags");
	jsonw_str(&w, "cluster_name", NULL);
	jsonw_int(&w, "cores", n->cores);
	jsonw_int(&w, "specialized_cores", 0);
	jsonw_int(&w, "cpu_binding", 0);
	jsonw_int(&w, "cpu_load", n->cpu_load);
	nv64(&w, "free_mem", n->free_memory);
	jsonw_int(&w, "cpus", n->cpus);
	jsonw_int(&w, "effective_cpus", n->cpus);
	jsonw_str(&w, "specialized_cpus", NULL);
	node_energy(&w);
	empty_obj(&w, "external_sensors");
	jsonw_str(&w, "extra", NULL);
	empty_obj(&w, "power");
	split_list(&w, "features", n->features, ',');
	split_list(&w, "active_features", n->features_act, ',');
	jsonw_str(&w, "gpu_spec", NULL);
	jsonw_str(&w, "gres", n->gres);
	jsonw_str(&w, "gres_drained", "N/A");
	jsonw_str(&w, "gres_used", n->gres_used);
	jsonw_str(&w, "instance_id", NULL);
	jsonw_str(&w, "instance_type", NULL);
	nv_time(&w, "last_busy", n->last_busy);
	jsonw_str(&w, "mcs_label", n->mcs_label);
	jsonw_int(&w, "specialized_memory", 0);
	jsonw_str(&w, "name", n->name);
	split_list(&w, "next_state_after_reboot", n->next_state, ',');
	jsonw_str(&w, "address", n->addr);
	jsonw_str(&w, "hostname", n->hostname);
	split_list(&w, "state", st, '+');
	jsonw_str(&w, "operating_system", n->os);
	jsonw_str(&w, "owner", NULL);
	split_list(&w, "partitions", n->partitions, ',');
	jsonw_int(&w, "port", n->port);
	jsonw_int(&w, "real_memory", (long long)n->real_memory);
	jsonw_int(&w, "res_cores_per_gpu", 0);
	jsonw_str(&w, "comment", NULL);
	jsonw_str(&w, "reason", n->reason);
	nv_time(&w, "reason_changed_at", n->reason_time);
	jsonw_str(&w, "reason_set_by_user", NULL);
	nv_time(&w, "resume_after", 0);
	jsonw_str(&w, "reservation", NULL);
	jsonw_int(&w, "alloc_memory", (long long)n->alloc_memory);
	jsonw_int(&w, "alloc_cpus", n->alloc_cpus);
	jsonw_int(&w, "alloc_idle_cpus",
	          n->cpus > n->alloc_cpus ? n->cpus - n->alloc_cpus : 0);
	jsonw_str(&w, "tres_used", used);
	jsonw_key(&w, "tres_weighted");
	jsonw_lit(&w, "0.0");
	nv_time(&w, "slurmd_start_time", n->slurmd_start_time);
	jsonw_int(&w, "sockets", n->sockets);
	jsonw_int(&w, "threads", n->threads);
	jsonw_int(&w, "temporary_disk", (long long)n->tmp_disk);
	jsonw_int(&w, "weight", n->weight);
	jsonw_str(&w, "topology", NULL);
	jsonw_str(&w, "tres", tres);
	jsonw_str(&w, "version", n->version);
	jsonw_obj_end(&w);
	return loaded(&w);
}

/* key: {k1: v1, k2: v2, ...}, strings, for the partition's small groups. */
static void str_group(struct jsonw *w, const char *key, const char *const *kv)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	for (; kv[0]; kv += 2)
		jsonw_str(w, kv[0], kv[1]);
	jsonw_obj_end(w);
}

static void part_limits(struct jsonw *w, const struct part_info *p)
{
	jsonw_key(w, "defaults");
	jsonw_obj_begin(w);
	jsonw_int(w, "memory_per_cpu", 0);
	unset(w, "partition_memory_per_cpu");
	unset(w, "partition_memory_per_node");
	nv32(w, "time", p->default_time);
	jsonw_str(w, "job", NULL);
	jsonw_obj_end(w);
	jsonw_int(w, "grace_time", 0);
	jsonw_key(w, "maximums");
	jsonw_obj_begin(w);
	nv32(w, "cpus_per_node", INFINITE32);
	nv32(w, "cpus_per_socket", INFINITE32);
	jsonw_int(w, "memory_per_cpu", 0);
	unset(w, "partition_memory_per_cpu");
	unset(w, "partition_memory_per_node");
	nv32(w, "nodes", p->max_nodes);
	jsonw_int(w, "shares", 1);
	jsonw_key(w, "oversubscribe");
	jsonw_obj_begin(w);
	jsonw_int(w, "jobs", 1);
	if (p->oversubscribe && !strncmp(p->oversubscribe, "FORCE", 5))
		one_str_list(w, "flags", "force");
	else
		empty_list(w, "flags");
	jsonw_obj_end(w);
	nv32(w, "time", p->max_time);
	unset(w, "over_time_limit");
	jsonw_obj_end(w);
	jsonw_key(w, "minimums");
	jsonw_obj_begin(w);
	jsonw_int(w, "nodes", p->min_nodes);
	jsonw_obj_end(w);
}

json_t *sj44_partition(const struct part_info *p)
{
	static const char *const states[] = {"UP", "DOWN", "DRAIN", "INACTIVE"};
	struct jsonw w = {0};
	char tres[96], total[16];

	snprintf(tres, sizeof(tres), "cpu=%u,node=%u,billing=%u", p->total_cpus,
	         p->total_nodes, p->total_cpus);
	snprintf(total, sizeof(total), "%u", p->total_nodes);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "nodes");
	jsonw_obj_begin(&w);
	jsonw_str(&w, "allowed_allocation", NULL);
	jsonw_str(&w, "configured", p->nodes);
	jsonw_int(&w, "total", p->total_nodes);
	jsonw_obj_end(&w);
	str_group(&w, "accounts", (const char *[]){"allowed", "", "deny", "", NULL});
	str_group(&w, "groups", (const char *[]){"allowed", p->allow_groups, NULL});
	str_group(&w, "qos",
	          (const char *[]){"allowed", "", "deny", "", "assigned", "", NULL});
	jsonw_str(&w, "alternate", NULL);
	str_group(&w, "tres",
	          (const char *[]){"billing_weights", "", "configured", tres, NULL});
	jsonw_str(&w, "cluster", NULL);
	empty_list(&w, "select_type");
	jsonw_key(&w, "cpus");
	jsonw_obj_begin(&w);
	jsonw_int(&w, "task_binding", 0);
	jsonw_int(&w, "total", p->total_cpus);
	jsonw_obj_end(&w);
	part_limits(&w, p);
	jsonw_str(&w, "name", p->name);
	jsonw_str(&w, "node_sets", NULL);
	jsonw_key(&w, "priority");
	jsonw_obj_begin(&w);
	jsonw_int(&w, "job_factor", p->priority_job_factor);
	jsonw_int(&w, "tier", p->priority_tier);
	jsonw_obj_end(&w);
	jsonw_key(&w, "timeouts");
	jsonw_obj_begin(&w);
	unset(&w, "resume");
	unset(&w, "suspend");
	jsonw_obj_end(&w);
	jsonw_str(&w, "topology", NULL);
	jsonw_key(&w, "partition");
	jsonw_obj_begin(&w);
	one_str_list(&w, "state", p->state < 4 ? states[p->state] : "UNKNOWN");
	jsonw_obj_end(&w);
	unset(&w, "suspend_time");
	jsonw_obj_end(&w);
	return loaded(&w);
}

json_t *sj44_ping(const struct ping_resp *p, const char *mode, long long latency_us)
{
	struct jsonw w = {0};

	jsonw_obj_begin(&w);
	jsonw_str(&w, "hostname", p->host);
	jsonw_str(&w, "pinged", "UP");
	jsonw_bool(&w, "responding", 1);
	jsonw_int(&w, "latency", latency_us);
	jsonw_str(&w, "mode", mode);
	jsonw_bool(&w, "primary", !strcmp(mode, "primary"));
	jsonw_obj_end(&w);
	return loaded(&w);
}

/* rpcs_by_message_type (users 0) or rpcs_by_user (1). */
static void rpc_list(struct jsonw *w, const char *key, const struct rpc_stat *r,
                     uint32_t n, int users)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (uint32_t i = 0; i < n; i++) {
		jsonw_elem(w);
		jsonw_obj_begin(w);
		jsonw_int(w, users ? "user_id" : "type_id", r[i].id);
		jsonw_str(w, users ? "user" : "message_type", r[i].name);
		jsonw_int(w, "count", r[i].count);
		if (!users) {
			jsonw_int(w, "queued", 0);
			jsonw_int(w, "dropped", 0);
			jsonw_int(w, "cycle_last", 0);
			jsonw_int(w, "cycle_max", 0);
		}
		jsonw_int(w, "total_time", (long long)r[i].total_us);
		nv64(w, "average_time", r[i].count ? r[i].total_us / r[i].count : 0);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* key: {name: 0, ...}: exit reasons Rota does not count. */
static void zero_group(struct jsonw *w, const char *key, const char *const *names)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	for (; *names; names++)
		jsonw_int(w, *names, 0);
	jsonw_obj_end(w);
}

static long long mean(uint64_t sum, uint64_t n)
{
	return n ? (long long)(sum / n) : 0;
}

static void diag_schedule(struct jsonw *w, const struct stats_resp *s)
{
	double minutes = s->now > s->since ? (double)(s->now - s->since) / 60 : 0;

	jsonw_int(w, "schedule_cycle_max", s->sched_max_us);
	jsonw_int(w, "schedule_cycle_last", s->sched_last_us);
	jsonw_int(w, "schedule_cycle_sum", (long long)s->sched_sum_us);
	jsonw_int(w, "schedule_cycle_total", s->sched_cycles);
	jsonw_int(w, "schedule_cycle_mean", mean(s->sched_sum_us, s->sched_cycles));
	jsonw_int(w, "schedule_cycle_mean_depth",
	          mean(s->sched_depth_sum, s->sched_cycles));
	jsonw_int(w, "schedule_cycle_per_minute",
	          minutes > 0 ? (long long)(s->sched_cycles / minutes) : 0);
	jsonw_int(w, "schedule_cycle_depth", (long long)s->sched_depth_sum);
	zero_group(w, "schedule_exit",
	           (const char *[]){"end_job_queue", "default_queue_depth",
	                            "max_job_start", "max_rpc_cnt", "max_sched_time",
	                            "licenses", NULL});
	jsonw_int(w, "schedule_queue_length", s->sched_last_queue);
	jsonw_int(w, "jobs_submitted", s->jobs_submitted);
	jsonw_int(w, "jobs_started", s->jobs_started);
	jsonw_int(w, "jobs_completed", s->jobs_completed);
	jsonw_int(w, "jobs_canceled", s->jobs_canceled);
	jsonw_int(w, "jobs_failed", s->jobs_failed);
	jsonw_int(w, "jobs_pending", s->jobs_pending);
	jsonw_int(w, "jobs_running", s->jobs_running);
	nv_time(w, "job_states_ts", s->now);
}

static void diag_backfill(struct jsonw *w, const struct stats_resp *s)
{
	uint64_t bf = s->bf_cycles;

	jsonw_int(w, "bf_backfilled_jobs", s->bf_backfilled);
	jsonw_int(w, "bf_last_backfilled_jobs", s->bf_backfilled_stats);
	jsonw_int(w, "bf_backfilled_het_jobs", 0);
	jsonw_int(w, "bf_cycle_counter", s->bf_cycles);
	jsonw_int(w, "bf_cycle_mean", mean(s->bf_sum_us, bf));
	jsonw_int(w, "bf_depth_mean", mean(s->bf_depth_sum, bf));
	jsonw_int(w, "bf_depth_mean_try", mean(s->bf_depth_try_sum, bf));
	jsonw_int(w, "bf_cycle_sum", (long long)s->bf_sum_us);
	jsonw_int(w, "bf_cycle_last", s->bf_last_us);
	jsonw_int(w, "bf_cycle_max", s->bf_max_us);
	zero_group(w, "bf_exit",
	           (const char *[]){"end_job_queue", "bf_max_job_start",
	                            "bf_max_job_test", "bf_max_time",
	                            "bf_node_space_size", "state_changed", NULL});
	jsonw_int(w, "bf_last_depth", s->bf_last_depth);
	jsonw_int(w, "bf_last_depth_try", s->bf_last_depth_try);
	jsonw_int(w, "bf_depth_sum", (long long)s->bf_depth_sum);
	jsonw_int(w, "bf_depth_try_sum", (long long)s->bf_depth_try_sum);
	jsonw_int(w, "bf_queue_len", s->bf_last_queue);
	jsonw_int(w, "bf_queue_len_mean", mean(s->bf_queue_sum, bf));
	jsonw_int(w, "bf_queue_len_sum", (long long)s->bf_queue_sum);
	jsonw_int(w, "bf_table_size", 0);
	jsonw_int(w, "bf_table_size_sum", 0);
	jsonw_int(w, "bf_table_size_mean", 0);
	nv_time(w, "bf_when_last_cycle", s->bf_last_when);
	jsonw_bool(w, "bf_active", 0);
}

json_t *sj44_diag(const struct stats_resp *s)
{
	struct jsonw w = {0};

	jsonw_obj_begin(&w);
	jsonw_int(&w, "parts_packed", 1);
	nv_time(&w, "req_time", s->now);
	nv_time(&w, "req_time_start", s->since);
	jsonw_int(&w, "server_thread_count", s->threads);
	jsonw_int(&w, "agent_queue_size", s->agent_queue);
	jsonw_int(&w, "agent_count", 0);
	jsonw_int(&w, "agent_thread_count", 0);
	jsonw_int(&w, "dbd_agent_queue_size", 0);
	jsonw_int(&w, "gettimeofday_latency", 0);
	diag_schedule(&w, s);
	diag_backfill(&w, s);
	rpc_list(&w, "rpcs_by_message_type", s->rpc_types, s->rpc_types_count, 0);
	rpc_list(&w, "rpcs_by_user", s->rpc_users, s->rpc_users_count, 1);
	empty_list(&w, "pending_rpcs");
	empty_list(&w, "pending_rpcs_by_hostlist");
	jsonw_obj_end(&w);
	return loaded(&w);
}
