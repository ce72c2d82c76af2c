/* slurmdb_json.c - accounts, users, associations and QOS as Slurm's
 * dbv0.0.38 documents (slurmdb_json.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/slurm_json.h"
#include "proto/slurmdb_json.h"
#include "common/common.h"

json_t *sdb_or_fail(json_t *v)
{
	if (!v)
		fatal("out of memory");
	return v;
}

json_t *sdb_str(const char *s)
{
	return sdb_or_fail(json_string(s ? s : ""));
}

#define or_fail sdb_or_fail
#define str     sdb_str

/* NO_VAL and INFINITE: not set, null. */
static json_t *num(uint32_t v)
{
	return v == NO_VAL || v == INFINITE32 ? json_null() : json_integer(v);
}

json_t *sdb_response(void)
{
	return sj_plugin_response("openapi/dbv0.0.38", "Slurm OpenAPI DB v0.0.38");
}

/* Slurm's TRES ids: its own, then GRES from 1001. */
static int tres_id(const char *type)
{
	static const char *const ids[] = {"cpu",     "mem",     "energy", "node",
	                                  "billing", "fs/disk", "vmem",   "pages"};

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (!strcasecmp(type, ids[i]))
			return (int)i + 1;
	return 0;
}

json_t *sdb_tres_list(const char *tres)
{
	json_t *a = or_fail(json_array());
	char **items = strv_split(tres ? tres : "", ",");
	int gres_id = 1001;

	for (size_t i = 0; items[i]; i++) {
		char *eq = strchr(items[i], '='), *end, *slash;
		unsigned long long v;
		int id;
		if (!eq || eq == items[i])
			continue;
		*eq = '\0';
		v = strtoull(eq + 1, &end, 10);
		if (!strcasecmp(items[i], "mem") && *end) /* MB */
			v <<= *end == 'T' || *end == 't'   ? 20
			      : *end == 'G' || *end == 'g' ? 10
			                                   : 0;
		slash = strchr(items[i], '/');
		id = tres_id(items[i]);
		if (!id && slash)
			*slash = '\0';
		json_array_append_new(
		    a, or_fail(json_pack("{s:s, s:s, s:i, s:I}", "type", items[i], "name",
		                         !id && slash ? slash + 1 : "", "id",
		                         id ? id : gres_id++, "count", (json_int_t)v)));
	}
	strv_free(items);
	return a;
}

static json_t *short_assoc(const struct assoc_list_resp *l, const struct assoc_rec *r)
{
	return or_fail(json_pack("{s:o, s:o, s:o, s:o}", "account", str(r->account),
	                         "cluster", str(l->cluster), "partition",
	                         str(r->partition), "user", str(r->user)));
}

static json_t *coordinator(const char *name)
{
	return or_fail(json_pack("{s:o, s:i}", "name", str(name), "direct", 1));
}

json_t *sdb_account(const struct assoc_list_resp *l, const struct assoc_account *a)
{
	json_t *assocs = or_fail(json_array()), *coords = or_fail(json_array());

	for (uint32_t i = 0; i < l->assocs_count; i++)
		if (l->assocs[i].account && !strcmp(l->assocs[i].account, a->name))
			json_array_append_new(assocs, short_assoc(l, &l->assocs[i]));
	for (char **c = a->coordinators; c && *c; c++)
		json_array_append_new(coords, coordinator(*c));
	return or_fail(json_pack("{s:o, s:o, s:o, s:o, s:o, s:[]}", "associations",
	                         assocs, "coordinators", coords, "description",
	                         str(a->description), "name", str(a->name),
	                         "organization", str(a->organization), "flags"));
}

static const char *admin_level(uint32_t level)
{
	switch (level) {
	case ADMIN_OPERATOR:
		return "Operator";
	case ADMIN_ADMINISTRATOR:
		return "Administrator";
	default:
		return "None";
	}
}

json_t *sdb_user(const struct assoc_list_resp *l, const struct assoc_user *u)
{
	json_t *assocs = or_fail(json_array()), *coords = or_fail(json_array());

	for (uint32_t i = 0; i < l->assocs_count; i++)
		if (l->assocs[i].user && !strcmp(l->assocs[i].user, u->name))
			json_array_append_new(assocs, short_assoc(l, &l->assocs[i]));
	for (uint32_t i = 0; i < l->accounts_count; i++)
		if (strv_has(l->accounts[i].coordinators, u->name, 0))
			json_array_append_new(coords, coordinator(l->accounts[i].name));
	return or_fail(json_pack("{s:s, s:o, s:o, s:{s:o, s:s}, s:[], s:o}",
	                         "administrator_level", admin_level(u->admin_level),
	                         "associations", assocs, "coordinators", coords,
	                         "default", "account", str(u->default_account), "wckey",
	                         "", "flags", "name", str(u->name)));
}

json_t *sdb_names(char *const *v)
{
	json_t *a = or_fail(json_array());

	for (; v && *v; v++)
		json_array_append_new(a, str(*v));
	return a;
}

json_t *sdb_assoc(const struct assoc_list_resp *l, const struct assoc_rec *r)
{
	json_t *max = or_fail(json_pack(
	    "{s:{s:{s:o}}, s:{s:{s:o}}, s:{s:{s:o, s:o}, s:o, s:{s:{s:o}, s:o}}}", "jobs",
	    "per", "wall_clock", num(r->max_wall), "per", "account", "wall_clock",
	    num(r->grp_wall), "tres", "per", "job", sdb_tres_list(r->max_tres), "node",
	    sdb_tres_list(r->max_tres_per_node), "total", sdb_tres_list(r->grp_tres),
	    "minutes", "per", "job", sdb_tres_list(r->max_tres_mins), "total",
	    sdb_tres_list(r->grp_tres_mins)));
	/* what the controller's fairshare and usage are is sshare's (not kept
	 * with the association): zeros, as for an association with no jobs */
	json_t *usage = or_fail(json_pack(
	    "{s:i, s:f, s:f, s:i, s:i, s:f, s:f, s:i, s:i, s:f}", "accrue_job_count", 0,
	    "group_used_wallclock", 0.0, "fairshare_factor", 0.0, "fairshare_shares",
	    r->shares == NO_VAL ? 1 : (int)r->shares, "normalized_priority", 0,
	    "normalized_shares", 0.0, "effective_normalized_usage", 0.0, "raw_usage", 0,
	    "job_count", 0, "fairshare_level", 0.0));

	return or_fail(json_pack(
	    "{s:o, s:o, s:{s:o}, s:[], s:o, s:{s:n}, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
	    "account", str(r->account), "cluster", str(l->cluster), "default", "qos",
	    str(r->def_qos), "flags", "max", max, "min", "priority_threshold",
	    "parent_account", str(r->user ? NULL : r->parent), "partition",
	    str(r->partition), "priority", num(r->priority), "shares_raw", num(r->shares),
	    "usage", usage, "user", str(r->user), "QOS", sdb_names(r->qos)));
}

json_t *sdb_words(const char *s, const char *none)
{
	json_t *a = or_fail(json_array());
	char **items = strv_split(s && *s ? s : none, ",");

	for (size_t i = 0; items[i]; i++) {
		for (char *p = items[i]; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		if (*items[i])
			json_array_append_new(a, str(items[i]));
	}
	strv_free(items);
	return a;
}

json_t *sdb_qos(const struct assoc_list_resp *l, uint32_t i)
{
	const struct assoc_qos *q = &l->qos[i];
	char id[16];
	json_t *limits = or_fail(json_pack(
	    "{s:f, s:{s:{s:{s:o, s:o}}, s:{s:{s:{s:o, s:o}}}, s:{s:{s:n, s:n}}, "
	    "s:{s:{s:{s:o, s:o, s:o, s:o}}, s:{s:o, s:o, s:o, s:o}}}, s:{s:n, "
	    "s:{s:{s:o}}}}",
	    "factor", 1.0, "max", "wall_clock", "per", "qos", num(q->grp_wall), "job",
	    num(q->max_wall), "jobs", "active_jobs", "per", "account",
	    num(q->max_jobs_pa), "user", num(q->max_jobs_pu), "accruing", "per",
	    "account", "user", "tres", "minutes", "per", "job",
	    sdb_tres_list(q->max_tres_mins), "account", sdb_tres_list(NULL), "user",
	    sdb_tres_list(NULL), "qos", sdb_tres_list(q->grp_tres_mins), "per", "account",
	    sdb_tres_list(q->max_tres_pa), "job", sdb_tres_list(q->max_tres), "node",
	    sdb_tres_list(q->max_tres_per_node), "user", sdb_tres_list(q->max_tres_pu),
	    "min", "priority_threshold", "tres", "per", "job",
	    sdb_tres_list(q->min_tres)));

	snprintf(id, sizeof(id), "%u", i + 1);
	return or_fail(json_pack(
	    "{s:o, s:o, s:s, s:o, s:{s:o, s:o, s:o}, s:o, s:f, s:o, s:o}", "description",
	    str(q->description), "flags", sdb_words(q->flags, ""), "id", id, "limits",
	    limits, "preempt", "list", sdb_names(q->preempt), "mode",
	    sdb_words(q->preempt_mode, "cluster"), "exempt_time",
	    num(q->preempt_exempt_time), "priority", num(q->priority), "usage_factor",
	    q->usage_factor ? strtod(q->usage_factor, NULL) : 1.0, "usage_threshold",
	    q->usage_thres && *q->usage_thres ? json_real(strtod(q->usage_thres, NULL))
	                                      : json_null(),
	    "name", str(q->name)));
}

json_t *sdb_cluster(const struct conf *cf)
{
	const char *name = cf->cluster_name ? cf->cluster_name : "";
	char **names = xcalloc(cf->node_count + 1, sizeof(char *)), *nodes, *tres;
	uint64_t cpus = 0, mem = 0;
	json_t *c;

	for (size_t i = 0; i < cf->node_count; i++) {
		names[i] = cf->nodes[i].name;
		cpus += cf->nodes[i].cpus;
		mem += cf->nodes[i].real_memory;
	}
	nodes = hostlist_compress(names, cf->node_count);
	tres =
	    xasprintf("cpu=%llu,mem=%llu,node=%zu,billing=%llu", (unsigned long long)cpus,
	              (unsigned long long)mem, cf->node_count, (unsigned long long)cpus);
	/* rpc_version: Slurm 22.05's protocol (38 << 8) */
	c = or_fail(json_pack(
	    "{s:{s:s, s:i}, s:[], s:s, s:s, s:s, s:{s:{s:s, s:s, s:s, s:s}}, s:i, s:o}",
	    "controller", "host", cf->slurmctld_host ? cf->slurmctld_host : "", "port",
	    cf->slurmctld_port, "flags", "name", name, "nodes", nodes ? nodes : "",
	    "select_plugin", cf->select_type ? cf->select_type : "", "associations",
	    "root", "account", "root", "cluster", name, "partition", "", "user", "",
	    "rpc_version", 38 << 8, "tres", sdb_tres_list(tres)));
	free(nodes);
	free(tres);
	free(names);
	return c;
}

json_t *sdb_rpc_rows(const struct rpc_stat *rows, uint32_t n, const char *key)
{
	json_t *a = or_fail(json_array());

	for (uint32_t i = 0; i < n; i++) {
		const struct rpc_stat *r = &rows[i];
		json_array_append_new(
		    a,
		    or_fail(json_pack("{s:o, s:I, s:{s:I, s:I}}", key, str(r->name),
		                      "count", (json_int_t)r->count, "time", "average",
		                      (json_int_t)(r->count ? r->total_us / r->count : 0),
		                      "total", (json_int_t)r->total_us)));
	}
	return a;
}

json_t *sdb_stats(const struct dbd_diag *d, json_t *rollups)
{
	return or_fail(json_pack("{s:I, s:o, s:o, s:o}", "time_start",
	                         (json_int_t)d->time_start, "rollups", rollups, "RPCs",
	                         sdb_rpc_rows(d->rpcs, d->rpcs_count, "rpc"), "users",
	                         sdb_rpc_rows(d->users, d->users_count, "user")));
}

/* Rollups: rotadbd keeps none (sreport reads the runs themselves). */
json_t *sdb_diag(const struct dbd_diag *d)
{
	json_t *rollups = or_fail(json_array());

	for (size_t i = 0; i < 3; i++)
		json_array_append_new(
		    rollups, or_fail(json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "type",
		                               sdb_rollup_kinds[i], "last_run", 0,
		                               "last_cycle", 0, "max_cycle", 0,
		                               "total_time", 0, "mean_cycles", 0)));
	return sdb_stats(d, rollups);
}

const char *const sdb_rollup_kinds[3] = {"hourly", "daily", "monthly"};
