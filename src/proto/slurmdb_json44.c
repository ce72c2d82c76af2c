/* slurmdb_json44.c - accounting records as Slurm's v0.0.44 documents
 * (slurmdb_json44.h).  Where v0.0.44 keeps dbv0.0.38's shape (TRES lists,
 * a step's usage, the cluster) the v0.0.38 encoders make the piece and it
 * is changed here only where the versions differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/uid.h"
#include "proto/sacct.h"
#include "proto/slurm_json44.h"
#include "proto/slurmdb_json.h"
#include "proto/slurmdb_json44.h"
#include "common/common.h"

/* Slurm 25.11's protocol version (44 << 8), which a cluster record names */
#define PROTOCOL_V44 (44 << 8)

#define or_fail sdb_or_fail
#define str     sdb_str

/* {"set", "infinite", "number"}: number only counts when set. */
static json_t *nv(int set, int infinite, json_int_t n)
{
	return or_fail(json_pack("{s:b, s:b, s:I}", "set", set, "infinite", infinite,
	                         "number", set ? n : 0));
}

/* A u32 limit: NO_VAL unset, INFINITE32 infinite. */
static json_t *nv32(uint32_t v)
{
	return nv(v < NO_VAL, v == INFINITE32, v);
}

/* A time (Slurm's 0 included: it is set). */
static json_t *nv_time(int64_t t)
{
	return nv(1, 0, t);
}

/* A factor: {"set", "infinite", "number"} of a double. */
static json_t *nv_real(const char *text)
{
	int set = text && *text;

	return or_fail(json_pack("{s:b, s:b, s:f}", "set", set, "infinite", 0, "number",
	                         set ? strtod(text, NULL) : 0.0));
}

static json_t *one(const char *word)
{
	return or_fail(json_pack("[s]", word));
}

static const char *field(const struct sacct_ctx *x, const char *name,
                         const struct acct_job *j, const struct acct_step *st, char *buf,
                         size_t len)
{
	return sacct_value(x, sacct_field_find(name)->id, j, st, buf, len);
}

static json_int_t elapsed(const struct sacct_ctx *x, const struct acct_job *j,
                          const struct acct_step *st)
{
	char buf[32];

	return strtoll(field(x, "ElapsedRaw", j, st, buf, sizeof(buf)), NULL, 10);
}

/* user, system and total CPU time set into t. */
static void cpu_times(json_t *t, uint64_t user_usec, uint64_t sys_usec)
{
	json_object_set_new(t, "system", sacct_json_cpu_time(sys_usec));
	json_object_set_new(t, "total", sacct_json_cpu_time(user_usec + sys_usec));
	json_object_set_new(t, "user", sacct_json_cpu_time(user_usec));
}

/* ---- job records ---- */

static json_t *step_nodes(const struct acct_step *st)
{
	json_t *list = or_fail(json_array());
	char **names = NULL;
	size_t n = 0;

	if (st->nodes && *st->nodes && hostlist_expand(st->nodes, &names, &n, NULL) == 0)
		for (size_t i = 0; i < n; i++)
			json_array_append_new(list, str(names[i]));
	hostlist_free(names);
	return or_fail(json_pack("{s:I, s:o, s:o}", "count", (json_int_t)st->nnodes,
	                         "range", str(st->nodes), "list", list));
}

static json_t *step(const struct sacct_ctx *x, const struct acct_job *j,
                    const struct acct_step *st)
{
	char buf[64];
	const char *id = field(x, "JobIDRaw", j, st, buf, sizeof(buf));
	json_t *usage = sacct_json_step_usage(j, st);
	json_t *t =
	    or_fail(json_pack("{s:I, s:o, s:o, s:i, s:o}", "elapsed", elapsed(x, j, st),
	                      "end", nv_time(st->end), "start", nv_time(st->start),
	                      "suspended", 0, "limit", nv32(NO_VAL)));

	cpu_times(t, st->user_usec, st->sys_usec);
	return or_fail(json_pack(
	    "{s:o, s:o, s:o, s:{s:I}, s:s, s:{s:{s:o, s:o}, s:s}, s:s, s:o, "
	    "s:{s:{s:i}, s:{s:o}}, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}, "
	    "s:{s:s}, s:{s:o, s:o, s:o}}",
	    "time", t, "exit_code", sj44_exit_code(st->exit_code), "nodes",
	    step_nodes(st), "tasks", "count", (json_int_t)st->ntasks, "pid", "", "CPU",
	    "requested_frequency", "min", nv32(NO_VAL), "max", nv32(NO_VAL), "governor",
	    "", "kill_request_user", "", "state",
	    one(job_state_name(st->state & JOB_STATE_BASE)), "statistics", "CPU",
	    "actual_frequency", 0, "energy", "consumed", nv(0, 0, 0), "step", "id", id,
	    "name", st->name ? st->name : "", "stderr", "", "stdin", "", "stdout", "",
	    "stderr_expanded", "", "stdin_expanded", "", "stdout_expanded", "", "task",
	    "distribution", "", "tres", "requested", json_incref(usage), "consumed",
	    usage, "allocated", sacct_json_tres(st->ncpus, 0, st->nnodes)));
}

/* Seconds from eligible to start (to now while it waits); unset before it
 * is eligible. */
static json_t *planned(const struct sacct_ctx *x, const struct acct_job *j)
{
	if (!j->eligible)
		return nv(0, 0, 0);
	if (j->start)
		return nv(1, 0, j->start > j->eligible ? j->start - j->eligible : 0);
	return nv(1, 0, x->now > j->eligible ? x->now - j->eligible : 0);
}

static json_t *job_time(const struct sacct_ctx *x, const struct acct_job *j)
{
	uint64_t user_usec = 0, sys_usec = 0;
	json_t *t;

	for (uint32_t i = 0; i < j->steps_count; i++) {
		user_usec += j->steps[i].user_usec;
		sys_usec += j->steps[i].sys_usec;
	}
	t = or_fail(json_pack(
	    "{s:I, s:I, s:I, s:o, s:I, s:I, s:i, s:o}", "elapsed", elapsed(x, j, NULL),
	    "eligible", (json_int_t)j->eligible, "end", (json_int_t)j->end, "planned",
	    planned(x, j), "start", (json_int_t)j->start, "submission",
	    (json_int_t)j->submit, "suspended", 0, "limit", nv32(j->time_limit)));
	cpu_times(t, user_usec, sys_usec);
	return t;
}

/* What a job asked for: its CPUs, and memory per CPU or per node. */
static json_t *required(const struct acct_job *j)
{
	uint64_t mem = j->req_mem & ~ACCT_MEM_PER_CPU;
	int per_cpu = (j->req_mem & ACCT_MEM_PER_CPU) != 0;

	return or_fail(json_pack("{s:I, s:o, s:o}", "CPUs", (json_int_t)j->req_cpus,
	                         "memory_per_cpu", nv(per_cpu, 0, (json_int_t)mem),
	                         "memory_per_node", nv(!per_cpu, 0, (json_int_t)mem)));
}

static json_t *job(const struct sacct_ctx *x, const struct acct_job *j, int with_steps)
{
	const char *cluster = x->conf->cluster_name;
	uint64_t mem = sacct_json_req_mem(j);
	char buf[4096], who[256] = "";
	const char *nodes = field(x, "NodeList", j, NULL, buf, sizeof(buf));
	json_t *steps = or_fail(json_array()), *o;

	for (uint32_t i = 0; with_steps && i < j->steps_count; i++)
		json_array_append_new(steps, step(x, j, &j->steps[i]));
	if (j->cancel_by && uid_to_name(j->cancel_by - 1, who, sizeof(who)) < 0)
		snprintf(who, sizeof(who), "%u", j->cancel_by - 1);
	o = or_fail(json_pack(
	    "{s:o, s:{s:s, s:o, s:s}, s:I, s:{s:I, s:{s:{s:{s:i}}}, s:o, s:o}, s:s, s:o, "
	    "s:o, s:s, s:o, s:o, s:o, s:s, s:s, s:[], s:o, s:{s:i, s:o}, s:I, s:o, s:s, "
	    "s:{s:s}, s:s, s:o, s:b, s:o, s:o, s:s, s:o, s:o, s:I}",
	    "account", str(j->account), "comment", "administrator", "", "job",
	    str(j->comment), "system", "", "allocation_nodes", (json_int_t)j->nnodes,
	    "array", "job_id", (json_int_t)j->array_job_id, "limits", "max", "running",
	    "tasks", 0, "task_id", nv32(j->array_task_id), "task", str(j->array_pending),
	    "block", "", "cluster", str(cluster), "constraints", str(j->constraints),
	    "container", "", "derived_exit_code", sj44_exit_code(j->derived_exit), "time",
	    job_time(x, j), "exit_code", sj44_exit_code(j->exit_code), "extra", "",
	    "failed_node", "", "flags", "group", str(j->group), "het", "job_id", 0,
	    "job_offset", nv32(NO_VAL), "job_id", (json_int_t)j->job_id, "name",
	    str(j->name), "licenses", "", "mcs", "label",
	    j->mcs_label ? j->mcs_label : "", "nodes", nodes, "partition",
	    str(j->partition), "hold",
	    j->reason == WAIT_HELD || j->reason == WAIT_HELD_USER, "priority",
	    nv32(j->priority), "qos", str(j->qos), "qosreq", "", "required", required(j),
	    "kill_request_user", str(who), "restart_cnt", (json_int_t)j->restarts));
	json_object_update_new(
	    o, or_fail(json_pack(
	           "{s:{s:i, s:o, s:s}, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, "
	           "s:{s:o, s:s}, s:o, s:s, s:{s:o, s:o}, s:s, s:o, s:{s:s, s:[]}, s:o, "
	           "s:{s:o, s:o, s:o, s:o, s:i}}",
	           "reservation", "id", 0, "name", str(j->reservation), "requested", "",
	           "script", "", "segment_size", 0, "stdin_expanded", "",
	           "stdout_expanded", "", "stderr_expanded", "", "stdout", "", "stderr",
	           "", "stdin", "", "state", "current",
	           one(j->superseded ? "REQUEUED"
	                             : job_state_name(j->state & JOB_STATE_BASE)),
	           "reason", job_reason_name(j->reason), "steps", steps, "submit_line",
	           "", "tres", "allocated",
	           sacct_json_tres_gres(
	               x, sacct_json_tres(j->ncpus, j->ncpus ? mem : 0, j->nnodes),
	               j->gres_tres),
	           "requested", sacct_json_tres(j->req_cpus, mem, j->req_nodes),
	           "used_gres", "", "user", str(j->user), "wckey", "wckey", "", "flags",
	           "working_directory", str(j->work_dir), "association", "account",
	           str(j->account), "cluster", str(cluster), "partition",
	           str(j->partition), "user", str(j->user), "id", 0)));
	return o;
}

void sdb44_job_add(const struct sacct_ctx *x, json_t *jobs, const struct acct_job *j,
                   int with_steps)
{
	json_array_append_new(jobs, job(x, j, with_steps));
}

/* ---- accounts, users, associations, QOS, the cluster ---- */

/* v0.0.38's short associations as v0.0.44's: with an id (not kept: 0). */
static void assoc_ids(json_t *assocs)
{
	size_t i;
	json_t *a;

	json_array_foreach(assocs, i, a) json_object_set_new(a, "id", json_integer(0));
}

/* v0.0.38's coordinators: direct is a boolean now. */
static void coords_direct(json_t *coords)
{
	size_t i;
	json_t *c;

	json_array_foreach(coords, i, c) json_object_set_new(c, "direct", json_true());
}

json_t *sdb44_account(const struct assoc_list_resp *l, const struct assoc_account *a)
{
	json_t *o = sdb_account(l, a);

	assoc_ids(json_object_get(o, "associations"));
	coords_direct(json_object_get(o, "coordinators"));
	return o;
}

json_t *sdb44_user(const struct assoc_list_resp *l, const struct assoc_user *u)
{
	json_t *o = sdb_user(l, u);
	json_t *level = json_object_get(o, "administrator_level");

	json_object_set_new(o, "administrator_level", one(json_string_value(level)));
	assoc_ids(json_object_get(o, "associations"));
	coords_direct(json_object_get(o, "coordinators"));
	json_object_set_new(json_object_get(o, "default"), "qos", json_integer(0));
	json_object_set_new(o, "old_name", str(""));
	json_object_set_new(o, "wckeys", or_fail(json_array()));
	return o;
}

/* The user's association in their default account. */
static int is_default(const struct assoc_list_resp *l, const struct assoc_rec *r)
{
	for (uint32_t i = 0; r->user && i < l->users_count; i++)
		if (!strcmp(l->users[i].name, r->user))
			return l->users[i].default_account && r->account &&
			       !strcmp(l->users[i].default_account, r->account);
	return 0;
}

json_t *sdb44_assoc(const struct assoc_list_resp *l, const struct assoc_rec *r)
{
	json_t *max = or_fail(json_pack(
	    "{s:{s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o}}, "
	    "s:{s:o, s:{s:o, s:o}, s:{s:o, s:{s:o}}, s:{s:o, s:o}}, "
	    "s:{s:{s:o}}}",
	    "jobs", "active", nv32(r->max_jobs), "accruing", nv32(NO_VAL), "total",
	    nv32(r->max_submit), "per", "count", nv32(r->grp_jobs), "accruing",
	    nv32(NO_VAL), "submitted", nv32(r->grp_submit), "wall_clock",
	    nv32(r->max_wall), "tres", "total", sdb_tres_list(r->grp_tres), "group",
	    "minutes", sdb_tres_list(r->grp_tres_mins), "active",
	    sdb_tres_list(r->grp_tres_run_mins), "minutes", "total", sdb_tres_list(NULL),
	    "per", "job", sdb_tres_list(r->max_tres_mins), "per", "job",
	    sdb_tres_list(r->max_tres), "node", sdb_tres_list(r->max_tres_per_node),
	    "per", "account", "wall_clock", nv32(r->grp_wall)));

	return or_fail(json_pack(
	    "{s:[], s:o, s:o, s:s, s:{s:o}, s:[], s:i, s:b, s:s, s:o, s:{s:o}, s:o, "
	    "s:o, s:o, s:o, s:I, s:o}",
	    "accounting", "account", str(r->account), "cluster", str(l->cluster),
	    "comment", "", "default", "qos", str(r->def_qos), "flags", "id", 0,
	    "is_default", is_default(l, r), "lineage", "", "max", max, "min",
	    "priority_threshold", nv32(NO_VAL), "parent_account",
	    str(r->user ? NULL : r->parent), "partition", str(r->partition), "priority",
	    nv32(r->priority), "qos", sdb_names(r->qos), "shares_raw",
	    (json_int_t)(r->shares == NO_VAL ? 1 : r->shares), "user", str(r->user)));
}

static json_t *qos_limits(const struct assoc_qos *q)
{
	json_t *max = or_fail(json_pack(
	    "{s:{s:o, s:o}, s:{s:o, s:{s:{s:o, s:o}}, s:{s:o, s:o}}, "
	    "s:{s:{s:o, s:o}}, "
	    "s:{s:o, s:{s:o, s:{s:o, s:o, s:o, s:o}}, s:{s:o, s:o, s:o, s:o}}, "
	    "s:{s:{s:o, s:o}}}",
	    "active_jobs", "accruing", nv32(NO_VAL), "count", nv32(q->grp_jobs), "jobs",
	    "count", nv32(q->grp_submit), "active_jobs", "per", "account",
	    nv32(q->max_jobs_pa), "user", nv32(q->max_jobs_pu), "per", "account",
	    nv32(q->max_submit_pa), "user", nv32(q->max_submit_pu), "accruing", "per",
	    "account", nv32(NO_VAL), "user", nv32(NO_VAL), "tres", "total",
	    sdb_tres_list(q->grp_tres), "minutes", "total",
	    sdb_tres_list(q->grp_tres_mins), "per", "qos",
	    sdb_tres_list(q->grp_tres_run_mins), "job", sdb_tres_list(q->max_tres_mins),
	    "account", sdb_tres_list(NULL), "user", sdb_tres_list(NULL), "per", "account",
	    sdb_tres_list(q->max_tres_pa), "job", sdb_tres_list(q->max_tres), "node",
	    sdb_tres_list(q->max_tres_per_node), "user", sdb_tres_list(q->max_tres_pu),
	    "wall_clock", "per", "qos", nv32(q->grp_wall), "job", nv32(q->max_wall)));

	return or_fail(json_pack("{s:I, s:o, s:o, s:{s:o, s:{s:{s:o}}}}", "grace_time",
	                         (json_int_t)q->grace_time, "max", max, "factor",
	                         nv_real(NULL), "min", "priority_threshold", nv32(NO_VAL),
	                         "tres", "per", "job", sdb_tres_list(q->min_tres)));
}

json_t *sdb44_qos(const struct assoc_list_resp *l, uint32_t i)
{
	const struct assoc_qos *q = &l->qos[i];

	return or_fail(json_pack(
	    "{s:o, s:o, s:I, s:o, s:o, s:{s:o, s:o, s:o}, s:o, s:o, s:o}", "description",
	    str(q->description), "flags", sdb_words(q->flags, ""), "id",
	    (json_int_t)i + 1, "limits", qos_limits(q), "name", str(q->name), "preempt",
	    "list", sdb_names(q->preempt), "mode", sdb_words(q->preempt_mode, "cluster"),
	    "exempt_time", nv32(q->preempt_exempt_time), "priority", nv32(q->priority),
	    "usage_factor", nv_real(q->usage_factor ? q->usage_factor : "1"),
	    "usage_threshold", nv_real(q->usage_thres)));
}

json_t *sdb44_cluster(const struct conf *cf)
{
	json_t *o = sdb_cluster(cf);

	json_object_set_new(json_object_get(json_object_get(o, "associations"), "root"),
	                    "id", json_integer(0));
	json_object_set_new(o, "rpc_version", json_integer(PROTOCOL_V44));
	return o;
}

/* ---- rotadbd's statistics ---- */

json_t *sdb44_diag(const struct dbd_diag *d)
{
	json_t *rollups = or_fail(json_object());

	for (size_t i = 0; i < 3; i++)
		json_object_set_new(
		    rollups, sdb_rollup_kinds[i],
		    or_fail(json_pack("{s:i, s:i, s:{s:i, s:i, s:i}}", "count", 0,
		                      "last_run", 0, "duration", "last", 0, "max", 0,
		                      "time", 0)));
	return sdb_stats(d, rollups);
}
