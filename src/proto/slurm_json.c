/* slurm_json.c - Slurm's v0.0.38 documents from the controller's answers
 * (slurm_json.h).  Field names and kinds are the OpenAPI schema's; a value
 * Rota does not keep is given as Slurm gives an unset one ("", 0, false). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/states.h"
#include "proto/jsonw.h"
#include "proto/slurm_json.h"
#include "common/common.h"

/* x, which is NULL only when jansson could not allocate it. */
static json_t *or_fail(json_t *x)
{
	if (!x)
		fatal("out of memory");
	return x;
}

/* A string value; one that is not UTF-8 (a job name, a reason) has its
 * stray bytes made '?' rather than refused. */
static json_t *str(const char *s)
{
	struct jsonw w = {0};
	json_t *v = json_string(s ? s : "");

	if (v)
		return v;
	jsonw_quoted(&w, s, strlen(s));
	v = json_loadb(w.p, w.len, JSON_DECODE_ANY, NULL);
	jsonw_free(&w);
	return or_fail(v);
}

static json_t *num(json_int_t v)
{
	return or_fail(json_integer(v));
}

static void set(json_t *o, const char *key, json_t *v)
{
	if (json_object_set_new(o, key, v) < 0)
		fatal("out of memory");
}

/* "a,b,c" as ["a", "b", "c"] (NULL or "": []). */
static json_t *str_list(const char *s)
{
	json_t *a = or_fail(json_array());

	while (s && *s) {
		size_t n = strcspn(s, ",");
		if (n)
			json_array_append_new(a, or_fail(json_stringn(s, n)));
		s += n;
		s += *s == ',';
	}
	return a;
}

json_t *sj_plugin_response(const char *type, const char *name)
{
	int major = 0, minor = 0, micro = 0;

	sscanf(ROTA_SLURM_VERSION, "%d.%d.%d", &major, &minor, &micro);
	return or_fail(json_pack("{s:{s:{s:s, s:s}, s:{s:{s:i, s:i, s:i}, s:s}}, s:[]}",
	                         "meta", "plugin", "type", type, "name", name, "Slurm",
	                         "version", "major", major, "micro", micro, "minor",
	                         minor, "release", ROTA_SLURM_VERSION, "errors"));
}

json_t *sj_response(void)
{
	return sj_plugin_response("openapi/v0.0.38", "Slurm OpenAPI v0.0.38");
}

void sj_add_error(json_t *response, const char *msg, int errnum)
{
	json_t *errors = json_object_get(response, "errors");

	json_array_append_new(errors,
	                      or_fail(json_pack("{s:s, s:i}", "error", msg ? msg : "",
	                                        "error_number", errnum)));
}

void sj_job_write(struct jsonw *w, const struct job_info *j, const char *cluster)
{
	uint32_t base = j->state & JOB_STATE_BASE;

	jsonw_obj_begin(w);
	jsonw_str(w, "account", (j->account));
	jsonw_int(w, "accrue_time", (j->eligible_time));
	jsonw_str(w, "admin_comment", (NULL));
	jsonw_int(w, "array_job_id", (j->array_job_id));
	if (j->array_job_id && j->array_task_id != NO_VAL)
		jsonw_int(w, "array_task_id", (j->array_task_id));
	jsonw_int(w, "array_max_tasks", (j->array_max_tasks));
	jsonw_str(w, "array_task_string", (j->array_task_str));
	jsonw_bool(w, "batch_flag", (j->batch_flag));
	jsonw_str(w, "batch_host", (j->batch_host));
	jsonw_str(w, "cluster", (cluster));
	jsonw_str(w, "command", (j->command));
	jsonw_str(w, "comment", (j->comment));
	jsonw_int(
	    w, "cpus_per_task",
	    (j->cpus_per_task && j->cpus_per_task != NO_VAL ? j->cpus_per_task : 1));
	jsonw_str(w, "dependency", (j->dependency));
	jsonw_int(w, "derived_exit_code", (j->derived_exit_code));
	jsonw_int(w, "eligible_time", (j->eligible_time));
	jsonw_int(w, "end_time", (j->end_time));
	jsonw_str(w, "excluded_nodes", (j->exc_nodes));
	jsonw_int(w, "exit_code", (j->exit_code));
	jsonw_str(w, "features", (j->features));
	jsonw_int(w, "group_id", (j->gid));
	jsonw_int(w, "job_id", (j->job_id));
	jsonw_str(w, "job_state", (job_state_name(j->state)));
	jsonw_str(w, "name", (j->name));
	jsonw_str(w, "nodes", (base == JOB_PENDING ? NULL : j->nodes));
	jsonw_int(w, "nice", ((int32_t)j->nice));
	jsonw_int(w, "cpus", (j->num_cpus));
	jsonw_int(w, "node_count", (j->num_nodes));
	jsonw_int(w, "tasks", (j->num_tasks));
	jsonw_str(w, "partition", (j->partition));
	jsonw_int(w, "memory_per_node", ((json_int_t)j->mem_per_node));
	jsonw_int(w, "memory_per_cpu", ((json_int_t)j->mem_per_cpu));
	jsonw_int(w, "minimum_cpus_per_node",
	          (j->pn_min_cpus == NO_VAL ? 0 : j->pn_min_cpus));
	jsonw_int(w, "priority", (j->priority));
	jsonw_str(w, "qos", (j->qos));
	jsonw_str(w, "required_nodes", (j->req_nodes));
	jsonw_int(w, "restart_cnt", (j->restart_cnt));
	jsonw_str(w, "standard_error", (j->std_err));
	jsonw_str(w, "standard_input", (j->std_in));
	jsonw_str(w, "standard_output", (j->std_out));
	jsonw_int(w, "start_time", (j->start_time));
	jsonw_str(w, "state_description", (j->reason_detail));
	jsonw_str(w, "state_reason", (job_reason_name(j->reason)));
	jsonw_int(w, "submit_time", (j->submit_time));
	jsonw_int(w, "time_limit", (j->time_limit));
	jsonw_str(w, "tres_per_job", (j->tres_per_job));
	jsonw_str(w, "tres_per_node", (j->tres_per_node));
	jsonw_str(w, "tres_per_socket", (j->tres_per_socket));
	jsonw_str(w, "tres_per_task", (j->tres_per_task));
	jsonw_str(w, "cpus_per_tres", (j->cpus_per_tres));
	jsonw_str(w, "memory_per_tres", (j->mem_per_tres));
	jsonw_int(w, "user_id", (j->uid));
	jsonw_str(w, "user_name", (j->user));
	jsonw_str(w, "current_working_directory", (j->work_dir));
	jsonw_obj_end(w);
}

json_t *sj_job(const struct job_info *j, const char *cluster)
{
	struct jsonw w = {0};
	json_t *o;

	sj_job_write(&w, j, cluster);
	o = json_loadb(w.p, w.len, 0, NULL);
	jsonw_free(&w);
	return or_fail(o);
}

json_t *sj_node(const struct node_info *n)
{
	json_t *o = or_fail(json_object()), *flags;
	char st[128], *plus, tres[128];

	/* "IDLE+DRAIN": state "idle", state_flags ["DRAIN"] */
	node_state_upper(n->state, st, sizeof(st));
	plus = strchr(st, '+');
	flags = str_list(plus ? plus + 1 : NULL);
	if (plus)
		*plus = '\0';
	for (char *p = st; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	snprintf(tres, sizeof(tres), "cpu=%u,mem=%lluM,billing=%u", n->cpus,
	         (unsigned long long)n->real_memory, n->cpus);
	set(o, "architecture", str(n->arch));
	set(o, "boards", num(n->boards));
	set(o, "boot_time", num(n->boot_time));
	set(o, "cores", num(n->cores));
	set(o, "cpu_load", num(n->cpu_load));
	set(o, "free_memory", num((json_int_t)n->free_memory));
	set(o, "cpus", num(n->cpus));
	set(o, "features", str(n->features));
	set(o, "active_features", str(n->features_act));
	set(o, "gres", str(n->gres));
	set(o, "gres_drained", str("N/A"));
	set(o, "gres_used", str(n->gres_used));
	set(o, "name", str(n->name));
	set(o, "address", str(n->addr));
	set(o, "hostname", str(n->hostname));
	set(o, "state", str(st));
	set(o, "state_flags", flags);
	set(o, "operating_system", str(n->os));
	set(o, "partitions", str_list(n->partitions));
	set(o, "port", num(n->port));
	set(o, "real_memory", num((json_int_t)n->real_memory));
	set(o, "reason", str(n->reason));
	set(o, "reason_changed_at", num(n->reason_time));
	set(o, "slurmd_start_time", num(n->slurmd_start_time));
	set(o, "sockets", num(n->sockets));
	set(o, "threads", num(n->threads));
	set(o, "temporary_disk", num((json_int_t)n->tmp_disk));
	set(o, "weight", num(n->weight));
	set(o, "tres", str(tres));
	set(o, "slurmd_version", str(n->version));
	set(o, "alloc_cpus", num(n->alloc_cpus));
	set(o, "idle_cpus", num(n->cpus > n->alloc_cpus ? n->cpus - n->alloc_cpus : 0));
	set(o, "alloc_memory", num((json_int_t)n->alloc_memory));
	return o;
}

json_t *sj_partition(const struct part_info *p)
{
	static const char *const states[] = {"UP", "DOWN", "DRAIN", "INACTIVE"};
	json_t *o = or_fail(json_object()), *flags = or_fail(json_array());
	char tres[64];

	if (p->is_default)
		json_array_append_new(flags, str("default"));
	if (p->flags & PART_INFO_F_HIDDEN)
		json_array_append_new(flags, str("hidden"));
	if (p->flags & PART_INFO_F_DISABLE_ROOT_JOBS)
		json_array_append_new(flags, str("no_root"));
	if (p->flags & PART_INFO_F_ROOT_ONLY)
		json_array_append_new(flags, str("root_only"));
	if (p->flags & PART_INFO_F_REQ_RESV)
		json_array_append_new(flags, str("reservation_required"));
	if (p->flags & PART_INFO_F_EXCLUSIVE_USER)
		json_array_append_new(flags, str("exclusive_user"));
	if (p->flags & PART_INFO_F_LLN)
		json_array_append_new(flags, str("least_loaded_nodes"));
	snprintf(tres, sizeof(tres), "cpu=%u,node=%u,billing=%u", p->total_cpus,
	         p->total_nodes, p->total_cpus);
	set(o, "flags", flags);
	set(o, "preemption_mode", json_pack("[s]", "disabled"));
	set(o, "allowed_allocation_nodes", str(p->alloc_nodes));
	set(o, "allowed_accounts", str(p->allow_accounts));
	set(o, "allowed_groups", str(p->allow_groups));
	set(o, "allowed_qos", str(p->allow_qos));
	set(o, "alternative", str(p->alternate));
	set(o, "billing_weights", str(p->tres_billing_weights));
	set(o, "default_memory_per_cpu", num(p->def_mem_per_cpu));
	set(o, "default_time_limit", num(p->default_time));
	set(o, "denied_accounts", str(p->deny_accounts));
	set(o, "denied_qos", str(p->deny_qos));
	set(o, "preemption_grace_time", num(p->grace_time));
	set(o, "maximum_cpus_per_node", num(p->max_cpus_per_node));
	set(o, "maximum_memory_per_node", num(p->max_mem_per_node));
	set(o, "maximum_nodes_per_job", num(p->max_nodes));
	set(o, "max_time_limit", num(p->max_time));
	set(o, "min_nodes_per_job", num(p->min_nodes));
	set(o, "name", str(p->name));
	set(o, "nodes", str(p->nodes));
	set(o, "over_time_limit", num(0));
	set(o, "priority_job_factor", num(p->priority_job_factor));
	set(o, "priority_tier", num(p->priority_tier));
	set(o, "qos", str(p->qos));
	set(o, "state", str(p->state < 4 ? states[p->state] : "UNKNOWN"));
	set(o, "total_cpus", num(p->total_cpus));
	set(o, "total_nodes", num(p->total_nodes));
	set(o, "tres", str(tres));
	return o;
}

json_t *sj_ping(const struct ping_resp *p, const char *mode)
{
	return or_fail(json_pack("{s:s, s:s, s:s, s:i}", "hostname",
	                         p->host ? p->host : "", "ping", "UP", "mode", mode,
	                         "status", 0));
}

json_t *sj_diag(const struct stats_resp *s)
{
	json_t *o = or_fail(json_object());
	uint64_t cycles = s->sched_cycles, bf = s->bf_cycles;
	double minutes = s->now > s->since ? (double)(s->now - s->since) / 60 : 0;

	set(o, "parts_packed", num(1));
	set(o, "req_time", num(s->now));
	set(o, "req_time_start", num(s->since));
	set(o, "server_thread_count", num(s->threads));
	set(o, "agent_queue_size", num(s->agent_queue));
	set(o, "agent_count", num(0));
	set(o, "agent_thread_count", num(0));
	set(o, "dbd_agent_queue_size", num(0));
	set(o, "gettimeofday_latency", num(0));
	set(o, "schedule_cycle_max", num(s->sched_max_us));
	set(o, "schedule_cycle_last", num(s->sched_last_us));
	set(o, "schedule_cycle_total", num(s->sched_cycles));
	set(o, "schedule_cycle_mean",
	    num(cycles ? (json_int_t)(s->sched_sum_us / cycles) : 0));
	set(o, "schedule_cycle_mean_depth",
	    num(cycles ? (json_int_t)(s->sched_depth_sum / cycles) : 0));
	set(o, "schedule_cycle_per_minute",
	    num(minutes > 0 ? (json_int_t)(s->sched_cycles / minutes) : 0));
	set(o, "schedule_queue_length", num(s->sched_last_queue));
	set(o, "jobs_submitted", num(s->jobs_submitted));
	set(o, "jobs_started", num(s->jobs_started));
	set(o, "jobs_completed", num(s->jobs_completed));
	set(o, "jobs_canceled", num(s->jobs_canceled));
	set(o, "jobs_failed", num(s->jobs_failed));
	set(o, "jobs_pending", num(s->jobs_pending));
	set(o, "jobs_running", num(s->jobs_running));
	set(o, "job_states_ts", num(s->now));
	set(o, "bf_backfilled_jobs", num(s->bf_backfilled));
	set(o, "bf_last_backfilled_jobs", num(s->bf_backfilled_stats));
	set(o, "bf_backfilled_het_jobs", num(0));
	set(o, "bf_cycle_counter", num(s->bf_cycles));
	set(o, "bf_cycle_mean", num(bf ? (json_int_t)(s->bf_sum_us / bf) : 0));
	set(o, "bf_cycle_max", num(s->bf_max_us));
	set(o, "bf_last_depth", num(s->bf_last_depth));
	set(o, "bf_last_depth_try", num(s->bf_last_depth_try));
	set(o, "bf_depth_mean", num(bf ? (json_int_t)(s->bf_depth_sum / bf) : 0));
	set(o, "bf_depth_mean_try", num(bf ? (json_int_t)(s->bf_depth_try_sum / bf) : 0));
	set(o, "bf_cycle_last", num(s->bf_last_us));
	set(o, "bf_queue_len", num(s->bf_last_queue));
	set(o, "bf_queue_len_mean", num(bf ? (json_int_t)(s->bf_queue_sum / bf) : 0));
	set(o, "bf_when_last_cycle", num(s->bf_last_when));
	set(o, "bf_active", json_false());
	return o;
}
