/* openapi.c - GET /openapi/v3 (and /openapi, /openapi.json): the OpenAPI 3
 * document of what rotarestd serves.  The schemas are not written by hand:
 * each is derived from a document the encoders (proto/slurm_json.h,
 * slurmdb_json.h, sacct.h) make from an empty record, so they list exactly
 * the fields served, with their kinds.  The paths are the table below; test_rest.py
 * requests every one of them and checks that a path outside it is not served. */
#include <event2/http.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "common/states.h"
#include "proto/messages.h"
#include "proto/sacct.h"
#include "proto/slurm_json.h"
#include "proto/slurm_json44.h"
#include "proto/slurmdb_json.h"
#include "proto/slurmdb_json44.h"
#include "restd/restd.h"
#include "common/common.h"

#define V38 "/slurm/v0.0.38"
#define V44 "/slurm/v0.0.44"
#define DB  "/slurmdb/v0.0.38"
#define DB4 "/slurmdb/v0.0.44"

static const struct {
	const char *path, *method, *summary, *schema; /* schema: of a 200 answer */
} paths[] = {
    {V38 "/ping", "get", "ping test", "v0.0.38_pings"},
    {V38 "/diag", "get", "get diagnostics", "v0.0.38_diag"},
    {V38 "/jobs", "get", "get list of jobs", "v0.0.38_jobs_response"},
    {V38 "/job/{job_id}", "get", "get job info", "v0.0.38_jobs_response"},
    {V38 "/job/{job_id}", "post", "update job", "v0.0.38_errors"},
    {V38 "/job/{job_id}", "delete", "cancel or signal job", "v0.0.38_errors"},
    {V38 "/job/submit", "post", "submit new job", "v0.0.38_job_submission_response"},
    {V38 "/nodes", "get", "get all node info", "v0.0.38_nodes_response"},
    {V38 "/node/{node_name}", "get", "get node info", "v0.0.38_nodes_response"},
    {V38 "/node/{node_name}", "post", "update node (admins)", "v0.0.38_errors"},
    {V38 "/partitions", "get", "get all partition info", "v0.0.38_partitions_response"},
    {V38 "/partition/{partition_name}", "get", "get partition info",
     "v0.0.38_partitions_response"},
    {V44 "/ping", "get", "ping test", "v0.0.44_openapi_ping_array_resp"},
    {V44 "/diag", "get", "get diagnostics", "v0.0.44_openapi_diag_resp"},
    {V44 "/jobs", "get", "get list of jobs", "v0.0.44_openapi_job_info_resp"},
    {V44 "/job/{job_id}", "get", "get job info", "v0.0.44_openapi_job_info_resp"},
    {V44 "/job/{job_id}", "post", "update job", "v0.0.44_openapi_job_post_response"},
    {V44 "/job/{job_id}", "delete", "cancel or signal job",
     "v0.0.44_openapi_kill_job_resp"},
    {V44 "/job/submit", "post", "submit new job", "v0.0.44_openapi_job_submit_response"},
    {V44 "/nodes", "get", "get node(s) info", "v0.0.44_openapi_nodes_resp"},
    {V44 "/node/{node_name}", "get", "get node info", "v0.0.44_openapi_nodes_resp"},
    {V44 "/node/{node_name}", "post", "update node (admins)", "v0.0.44_openapi_resp"},
    {V44 "/partitions", "get", "get all partition info",
     "v0.0.44_openapi_partition_resp"},
    {V44 "/partition/{partition_name}", "get", "get partition info",
     "v0.0.44_openapi_partition_resp"},
    {V44 "/jobs/state", "get", "get list of job states",
     "v0.0.44_openapi_job_state_resp"},
    {V44 "/nodes", "post", "update nodes (admins)", "v0.0.44_openapi_resp"},
    {V44 "/shares", "get", "get fairshare info", "v0.0.44_openapi_shares_resp"},
    {V44 "/reconfigure", "get", "request slurmctld reconfigure (admins)",
     "v0.0.44_openapi_resp"},
    {V44 "/licenses", "get", "get all licenses", "v0.0.44_openapi_licenses_resp"},
    {V44 "/reservations", "get", "get all reservations",
     "v0.0.44_openapi_reservation_resp"},
    {V44 "/reservation/{reservation_name}", "get", "get a reservation",
     "v0.0.44_openapi_reservation_resp"},
    {DB "/jobs", "get", "get list of job records", "dbv0.0.38_job_info"},
    {DB "/job/{job_id}", "get", "get a job's records", "dbv0.0.38_job_info"},
    {DB "/accounts", "get", "get all accounts", "dbv0.0.38_account_info"},
    {DB "/accounts", "post", "add or update accounts", "v0.0.38_errors"},
    {DB "/account/{account_name}", "delete", "delete an account", "v0.0.38_errors"},
    {DB "/users", "post", "add or update users", "v0.0.38_errors"},
    {DB "/user/{user_name}", "delete", "delete a user", "v0.0.38_errors"},
    {DB "/qos", "post", "add or update QOS", "v0.0.38_errors"},
    {DB "/qos/{qos_name}", "delete", "delete a QOS", "v0.0.38_errors"},
    {DB "/associations", "post", "add or update associations", "v0.0.38_errors"},
    {DB "/association", "delete", "delete an association", "v0.0.38_errors"},
    {DB "/account/{account_name}", "get", "get an account", "dbv0.0.38_account_info"},
    {DB "/users", "get", "get all users", "dbv0.0.38_user_info"},
    {DB "/user/{user_name}", "get", "get a user", "dbv0.0.38_user_info"},
    {DB "/qos", "get", "get all QOS", "dbv0.0.38_qos_info"},
    {DB "/qos/{qos_name}", "get", "get a QOS", "dbv0.0.38_qos_info"},
    {DB "/associations", "get", "get associations", "dbv0.0.38_associations_info"},
    {DB "/association", "get", "get an association", "dbv0.0.38_associations_info"},
    {DB "/tres", "get", "get the TRES", "dbv0.0.38_tres_info"},
    {DB "/clusters", "get", "get the cluster", "dbv0.0.38_cluster_info"},
    {DB "/cluster/{cluster_name}", "get", "get the cluster", "dbv0.0.38_cluster_info"},
    {DB "/wckeys", "get", "get wckeys (none is kept)", "dbv0.0.38_wckey_info"},
    {DB "/config", "get", "accounts, users, QOS, associations, TRES",
     "dbv0.0.38_config_info"},
    {DB "/diag", "get", "rotadbd's statistics", "dbv0.0.38_diag"},
    {DB4 "/jobs", "get", "get list of job records", "v0.0.44_openapi_slurmdbd_jobs_resp"},
    {DB4 "/job/{job_id}", "get", "get a job's records",
     "v0.0.44_openapi_slurmdbd_jobs_resp"},
    {DB4 "/accounts", "get", "get all accounts", "v0.0.44_openapi_accounts_resp"},
    {DB4 "/accounts", "post", "add or update accounts", "v0.0.44_openapi_resp"},
    {DB4 "/account/{account_name}", "get", "get an account",
     "v0.0.44_openapi_accounts_resp"},
    {DB4 "/account/{account_name}", "delete", "delete an account",
     "v0.0.44_openapi_resp"},
    {DB4 "/users", "get", "get all users", "v0.0.44_openapi_users_resp"},
    {DB4 "/users", "post", "add or update users", "v0.0.44_openapi_resp"},
    {DB4 "/user/{name}", "get", "get a user", "v0.0.44_openapi_users_resp"},
    {DB4 "/user/{name}", "delete", "delete a user", "v0.0.44_openapi_resp"},
    {DB4 "/qos", "get", "get all QOS", "v0.0.44_openapi_slurmdbd_qos_resp"},
    {DB4 "/qos", "post", "add or update QOS", "v0.0.44_openapi_resp"},
    {DB4 "/qos/{qos}", "get", "get a QOS", "v0.0.44_openapi_slurmdbd_qos_resp"},
    {DB4 "/qos/{qos}", "delete", "delete a QOS", "v0.0.44_openapi_resp"},
    {DB4 "/associations", "get", "get associations", "v0.0.44_openapi_assocs_resp"},
    {DB4 "/associations", "post", "add or update associations", "v0.0.44_openapi_resp"},
    {DB4 "/association", "get", "get an association", "v0.0.44_openapi_assocs_resp"},
    {DB4 "/association", "delete", "delete an association", "v0.0.44_openapi_resp"},
    {DB4 "/tres", "get", "get the TRES", "v0.0.44_openapi_tres_resp"},
    {DB4 "/clusters", "get", "get the cluster", "v0.0.44_openapi_clusters_resp"},
    {DB4 "/cluster/{cluster_name}", "get", "get the cluster",
     "v0.0.44_openapi_clusters_resp"},
    {DB4 "/wckeys", "get", "get wckeys (none is kept)", "v0.0.44_openapi_wckey_resp"},
    {DB4 "/config", "get", "accounts, users, QOS, associations, TRES",
     "v0.0.44_openapi_slurmdbd_config_resp"},
    {DB4 "/diag", "get", "rotadbd's statistics", "v0.0.44_openapi_slurmdbd_stats_resp"},
    {"/metrics", "get", "Prometheus metrics (text)", NULL},
};

/* The schema of a sample value (objects and arrays by their members). */
static json_t *schema_of(json_t *v)
{
	json_t *s = json_object(), *props;
	const char *key;
	json_t *m;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		props = json_object();
		json_object_foreach(v, key, m)
		    json_object_set_new(props, key, schema_of(m));
		json_object_set_new(s, "type", json_string("object"));
		json_object_set_new(s, "properties", props);
		break;
	case JSON_ARRAY:
		json_object_set_new(s, "type", json_string("array"));
		json_object_set_new(s, "items",
		                    json_array_size(v)
		                        ? schema_of(json_array_get(v, 0))
		                        : json_pack("{s:s}", "type", "string"));
		break;
	case JSON_INTEGER:
		json_object_set_new(s, "type", json_string("integer"));
		break;
	case JSON_REAL:
		json_object_set_new(s, "type", json_string("number"));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		json_object_set_new(s, "type", json_string("boolean"));
		break;
	default:
		json_object_set_new(s, "type", json_string("string"));
	}
	return s;
}

static json_t *ref(const char *name)
{
	char *r = xasprintf("#/components/schemas/%s", name);
	json_t *o = json_pack("{s:s}", "$ref", r);

	free(r);
	return o;
}

/* A response document with list key holding one item of schema item. */
static json_t *response_of(const char *key, const char *item)
{
	json_t *sample = sj_response(), *doc = schema_of(sample);
	json_t *props = json_object_get(doc, "properties");

	json_decref(sample);
	json_object_set_new(json_object_get(props, "errors"), "items",
	                    ref("v0.0.38_error"));
	if (key)
		json_object_set_new(
		    props, key,
		    json_pack("{s:s, s:o}", "type", "array", "items", ref(item)));
	return doc;
}

/* Schema name from sample (taken), and info: a response listing them under
 * key. */
static void add_kind(json_t *s, const char *name, json_t *sample, const char *key,
                     const char *info)
{
	json_object_set_new(s, name, schema_of(sample));
	json_decref(sample);
	json_object_set_new(s, info, response_of(key, name));
}

static void add_prop(json_t *schema, const char *key, json_t *sample);

/* A record of each kind the slurmdb documents hold, for their schemas. */
struct db_sample {
	char *names[2];
	struct acct_step step;
	struct acct_job job;
	struct sacct_ctx x;
	struct assoc_account acct;
	struct assoc_user user;
	struct assoc_rec assoc;
	struct assoc_qos q;
	struct assoc_list_resp l;
	struct rpc_stat rpc;
	struct dbd_diag diag;
};

static void db_sample_init(struct db_sample *d, const struct conf *conf)
{
	*d = (struct db_sample){.names = {"normal", NULL}, .x = {conf, 0}};
	d->job = (struct acct_job){.steps = &d->step, .steps_count = 1};
	d->acct = (struct assoc_account){.name = "a", .coordinators = d->names};
	d->user = (struct assoc_user){.name = "u"};
	d->assoc = (struct assoc_rec){.account = "a", .user = "u", .qos = d->names};
	d->q = (struct assoc_qos){.name = "normal", .preempt = d->names};
	d->l = (struct assoc_list_resp){.accounts = &d->acct,
	                                .accounts_count = 1,
	                                .users = &d->user,
	                                .users_count = 1,
	                                .assocs = &d->assoc,
	                                .assocs_count = 1,
	                                .qos = &d->q,
	                                .qos_count = 1};
	d->rpc = (struct rpc_stat){.name = "DBD_GET_JOBS_COND"};
	d->diag = (struct dbd_diag){
	    .rpcs = &d->rpc, .rpcs_count = 1, .users = &d->rpc, .users_count = 1};
}

/* The one job record add makes of d's. */
static json_t *job_sample(struct db_sample *d,
                          void (*add)(const struct sacct_ctx *, json_t *,
                                      const struct acct_job *, int))
{
	json_t *a = json_array(), *j;

	add(&d->x, a, &d->job, 1);
	j = json_incref(json_array_get(a, 0));
	json_decref(a);
	return j;
}

/* The slurmdb documents' schemas, from a sample of each kind. */
static void db_schemas(json_t *s, const struct conf *conf)
{
	struct db_sample d;
	json_t *j;

	db_sample_init(&d, conf);
	add_kind(s, "dbv0.0.38_job", job_sample(&d, sacct_json_add), "jobs",
	         "dbv0.0.38_job_info");
	add_kind(s, "dbv0.0.38_account", sdb_account(&d.l, &d.acct), "accounts",
	         "dbv0.0.38_account_info");
	add_kind(s, "dbv0.0.38_user", sdb_user(&d.l, &d.user), "users",
	         "dbv0.0.38_user_info");
	add_kind(s, "dbv0.0.38_association", sdb_assoc(&d.l, &d.assoc), "associations",
	         "dbv0.0.38_associations_info");
	add_kind(s, "dbv0.0.38_qos", sdb_qos(&d.l, 0), "qos", "dbv0.0.38_qos_info");
	add_kind(s, "dbv0.0.38_cluster", sdb_cluster(conf), "clusters",
	         "dbv0.0.38_cluster_info");
	j = response_of(NULL, NULL);
	add_prop(j, "statistics", sdb_diag(&d.diag));
	json_object_set_new(s, "dbv0.0.38_diag", j);
	j = response_of("wckeys", "dbv0.0.38_wckey");
	json_object_set_new(s, "dbv0.0.38_wckey_info", j);
	json_object_set_new(s, "dbv0.0.38_wckey",
	                    json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}}}", "type",
	                              "object", "properties", "name", "type", "string",
	                              "user", "type", "string", "cluster", "type",
	                              "string"));
	j = response_of(NULL, NULL);
	for (size_t i = 0; i < 5; i++) {
		static const char *const key[] = {"accounts", "users", "qos",
		                                  "associations", "wckeys"};
		static const char *const item[] = {
		    "dbv0.0.38_account", "dbv0.0.38_user", "dbv0.0.38_qos",
		    "dbv0.0.38_association", "dbv0.0.38_wckey"};
		json_object_set_new(
		    json_object_get(j, "properties"), key[i],
		    json_pack("{s:s, s:o}", "type", "array", "items", ref(item[i])));
	}
	json_object_set_new(json_object_get(j, "properties"), "tres",
	                    ref("dbv0.0.38_tres_list"));
	json_object_set_new(s, "dbv0.0.38_config_info", j);
	j = sdb_tres_list("cpu=1");
	json_object_set_new(s, "dbv0.0.38_tres_list", schema_of(j));
	json_decref(j);
	j = response_of(NULL, NULL);
	json_object_set_new(json_object_get(j, "properties"), "tres",
	                    ref("dbv0.0.38_tres_list"));
	json_object_set_new(s, "dbv0.0.38_tres_info", j);
}

/* v0.0.44's response head with list key holding items of schema item, and
 * last_update (a no_val struct) when asked. */
enum { HEAD44_LAST_UPDATE = 1 };
static json_t *response44_of(const char *key, const char *item, int flags)
{
	json_t *sample = sj44_response(&(struct sj44_meta){0}), *doc = schema_of(sample);
	json_t *props = json_object_get(doc, "properties");

	json_decref(sample);
	json_object_set_new(json_object_get(props, "errors"), "items",
	                    ref("v0.0.44_openapi_error"));
	json_object_set_new(json_object_get(props, "warnings"), "items",
	                    ref("v0.0.44_openapi_warning"));
	if (key)
		json_object_set_new(
		    props, key,
		    json_pack("{s:s, s:o}", "type", "array", "items", ref(item)));
	if (flags & HEAD44_LAST_UPDATE)
		json_object_set_new(props, "last_update",
		                    ref("v0.0.44_uint64_no_val_struct"));
	return doc;
}

/* props[key]: the schema of sample (taken). */
static void add_prop(json_t *schema, const char *key, json_t *sample)
{
	json_object_set_new(json_object_get(schema, "properties"), key,
	                    schema_of(sample));
	json_decref(sample);
}

/* v0.0.44's add_kind: schema name from sample (taken), and info: a response
 * listing them under key, with last_update. */
static void add_kind44(json_t *s, const char *name, json_t *sample, const char *key,
                       const char *info)
{
	json_object_set_new(s, name, schema_of(sample));
	json_decref(sample);
	json_object_set_new(s, info, response44_of(key, name, HEAD44_LAST_UPDATE));
}

/* jobs/state, shares, licenses and reservations (paths44.c). */
static void schemas44_more(json_t *s, const struct job_info *job)
{
	struct share_row row = {.account = "a", .user = "u", .depth = 1};
	struct share_resp shares = {.cluster = "", .rows = &row, .rows_count = 1};
	struct job_info_resp jobs = {.jobs = (struct job_info *)job, .jobs_count = 1};
	json_t *j = sj44_job_states(&jobs), *sub;

	json_object_set_new(s, "v0.0.44_job_state", schema_of(json_array_get(j, 0)));
	json_decref(j);
	json_object_set_new(s, "v0.0.44_openapi_job_state_resp",
	                    response44_of("jobs", "v0.0.44_job_state", 0));
	sub = response44_of(NULL, NULL, 0);
	add_prop(sub, "shares", sj44_shares(&shares));
	json_object_set_new(s, "v0.0.44_openapi_shares_resp", sub);
	struct lic_info lic = {.name = "x"};
	j = restd_licenses44(&(struct lic_info_resp){.lics = &lic, .lics_count = 1});
	json_object_set_new(s, "v0.0.44_license", schema_of(json_array_get(j, 0)));
	json_decref(j);
	json_object_set_new(
	    s, "v0.0.44_openapi_licenses_resp",
	    response44_of("licenses", "v0.0.44_license", HEAD44_LAST_UPDATE));
	struct resv_info resv = {.name = "x", .flags = 1};
	j = restd_resvs44(&(struct resv_info_resp){.resvs = &resv, .resvs_count = 1});
	json_object_set_new(s, "v0.0.44_reservation_info",
	                    schema_of(json_array_get(j, 0)));
	json_decref(j);
	json_object_set_new(s, "v0.0.44_openapi_reservation_resp",
	                    response44_of("reservations", "v0.0.44_reservation_info",
	                                  HEAD44_LAST_UPDATE));
}

/* The slurm v0.0.44 documents' schemas, from samples the encoders make. */
static void schemas44(json_t *s)
{
	uint32_t cpus = 1;
	struct job_info job = {.state = JOB_RUNNING,
	                       .nodes = "node1",
	                       .cpus_per_node = {.v = &cpus, .n = 1},
	                       .array_task_id = NO_VAL};
	struct node_info node = {0};
	struct part_info part = {0};
	struct ping_resp ping = {0};
	struct rpc_stat rpc = {.name = "REQUEST_PING"};
	struct stats_resp stats = {.rpc_types = &rpc,
	                           .rpc_types_count = 1,
	                           .rpc_users = &rpc,
	                           .rpc_users_count = 1};
	json_t *j = sj44_response(&(struct sj44_meta){0}), *sub;

	sj44_add_error(j, "", 0, "");
	json_object_set_new(s, "v0.0.44_openapi_error",
	                    schema_of(json_array_get(json_object_get(j, "errors"), 0)));
	json_decref(j);
	j = json_pack("{s:s, s:s}", "description", "", "source", "");
	json_object_set_new(s, "v0.0.44_openapi_warning", schema_of(j));
	json_decref(j);
	j = sj44_no_val(0);
	json_object_set_new(s, "v0.0.44_uint64_no_val_struct", schema_of(j));
	json_decref(j);
	json_object_set_new(s, "v0.0.44_openapi_resp", response44_of(NULL, NULL, 0));
	add_kind44(s, "v0.0.44_job_info", sj44_job(&job, ""), "jobs",
	           "v0.0.44_openapi_job_info_resp");
	json_object_set_new(
	    json_object_get(json_object_get(s, "v0.0.44_openapi_job_info_resp"),
	                    "properties"),
	    "last_backfill", ref("v0.0.44_uint64_no_val_struct"));
	add_kind44(s, "v0.0.44_node", sj44_node(&node), "nodes",
	           "v0.0.44_openapi_nodes_resp");
	add_kind44(s, "v0.0.44_partition_info", sj44_partition(&part), "partitions",
	           "v0.0.44_openapi_partition_resp");
	j = sj44_ping(&ping, "primary", 0);
	json_object_set_new(s, "v0.0.44_controller_ping", schema_of(j));
	json_decref(j);
	json_object_set_new(s, "v0.0.44_openapi_ping_array_resp",
	                    response44_of("pings", "v0.0.44_controller_ping", 0));
	j = sj44_diag(&stats);
	json_object_set_new(s, "v0.0.44_stats_msg", schema_of(j));
	json_decref(j);
	sub = response44_of(NULL, NULL, 0);
	json_object_set_new(json_object_get(sub, "properties"), "statistics",
	                    ref("v0.0.44_stats_msg"));
	json_object_set_new(s, "v0.0.44_openapi_diag_resp", sub);
	sub = response44_of(NULL, NULL, 0);
	add_prop(sub, "job_id", json_integer(0));
	add_prop(sub, "step_id", json_string("batch"));
	add_prop(sub, "job_submit_user_msg", json_string(""));
	json_object_set_new(s, "v0.0.44_openapi_job_submit_response", sub);
	/* results[] and status[] are empty: a failure is an error */
	sub = response44_of(NULL, NULL, 0);
	add_prop(sub, "results", json_array());
	json_object_set_new(s, "v0.0.44_openapi_job_post_response", sub);
	sub = response44_of(NULL, NULL, 0);
	add_prop(sub, "status", json_array());
	json_object_set_new(s, "v0.0.44_openapi_kill_job_resp", sub);
	schemas44_more(s, &job);
}

/* Schema name from sample (taken; NULL: name is there), and info: a
 * v0.0.44 response listing them under key (slurmdbd's: no last_update). */
static void add_db44(json_t *s, const char *name, json_t *sample, const char *key,
                     const char *info)
{
	if (sample)
		json_object_set_new(s, name, schema_of(sample));
	json_decref(sample);
	json_object_set_new(s, info, response44_of(key, name, 0));
}

/* The slurmdb v0.0.44 documents' schemas (after schemas44: its head's). */
static void db44_schemas(json_t *s, const struct conf *conf)
{
	static const char *const config[][2] = {{"accounts", "v0.0.44_account"},
	                                        {"users", "v0.0.44_user"},
	                                        {"qos", "v0.0.44_qos"},
	                                        {"associations", "v0.0.44_assoc"},
	                                        {"wckeys", "v0.0.44_wckey"},
	                                        {"tres", "v0.0.44_tres"},
	                                        {"clusters", "v0.0.44_cluster_rec"}};
	struct db_sample d;
	json_t *j;

	db_sample_init(&d, conf);
	add_db44(s, "v0.0.44_job", job_sample(&d, sdb44_job_add), "jobs",
	         "v0.0.44_openapi_slurmdbd_jobs_resp");
	add_db44(s, "v0.0.44_account", sdb44_account(&d.l, &d.acct), "accounts",
	         "v0.0.44_openapi_accounts_resp");
	add_db44(s, "v0.0.44_user", sdb44_user(&d.l, &d.user), "users",
	         "v0.0.44_openapi_users_resp");
	add_db44(s, "v0.0.44_assoc", sdb44_assoc(&d.l, &d.assoc), "associations",
	         "v0.0.44_openapi_assocs_resp");
	add_db44(s, "v0.0.44_qos", sdb44_qos(&d.l, 0), "qos",
	         "v0.0.44_openapi_slurmdbd_qos_resp");
	add_db44(s, "v0.0.44_cluster_rec", sdb44_cluster(conf), "clusters",
	         "v0.0.44_openapi_clusters_resp");
	j = sdb_tres_list("cpu=1");
	json_object_set_new(s, "v0.0.44_tres", schema_of(json_array_get(j, 0)));
	json_decref(j);
	add_db44(s, "v0.0.44_tres", NULL, "TRES", "v0.0.44_openapi_tres_resp");
	json_object_set_new(s, "v0.0.44_wckey",
	                    json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}}}", "type",
	                              "object", "properties", "name", "type", "string",
	                              "user", "type", "string", "cluster", "type",
	                              "string"));
	add_db44(s, "v0.0.44_wckey", NULL, "wckeys", "v0.0.44_openapi_wckey_resp");
	j = response44_of(NULL, NULL, 0);
	for (size_t i = 0; i < sizeof(config) / sizeof(config[0]); i++)
		json_object_set_new(
		    json_object_get(j, "properties"), config[i][0],
		    json_pack("{s:s, s:o}", "type", "array", "items", ref(config[i][1])));
	add_prop(j, "instances", json_array());
	json_object_set_new(s, "v0.0.44_openapi_slurmdbd_config_resp", j);
	json_object_set_new(s, "v0.0.44_stats_rec", schema_of(j = sdb44_diag(&d.diag)));
	json_decref(j);
	j = response44_of(NULL, NULL, 0);
	json_object_set_new(json_object_get(j, "properties"), "statistics",
	                    ref("v0.0.44_stats_rec"));
	json_object_set_new(s, "v0.0.44_openapi_slurmdbd_stats_resp", j);
}

static json_t *schemas(const struct conf *conf)
{
	struct job_info job = {.array_task_id = NO_VAL};
	struct node_info node = {0};
	struct part_info part = {0};
	struct ping_resp ping = {0};
	struct stats_resp stats = {0};
	json_t *s = json_object(), *j, *sub;

	json_object_set_new(s, "v0.0.38_error",
	                    json_pack("{s:s, s:{s:{s:s}, s:{s:s}}}", "type", "object",
	                              "properties", "error", "type", "string",
	                              "error_number", "type", "integer"));
	json_object_set_new(s, "v0.0.38_errors", response_of(NULL, NULL));
	j = sj_job(&job, "");
	json_object_set_new(s, "v0.0.38_job_response_properties", schema_of(j));
	json_decref(j);
	j = sj_node(&node);
	json_object_set_new(s, "v0.0.38_node", schema_of(j));
	json_decref(j);
	j = sj_partition(&part);
	json_object_set_new(s, "v0.0.38_partition", schema_of(j));
	json_decref(j);
	j = sj_ping(&ping, "primary");
	json_object_set_new(s, "v0.0.38_ping", schema_of(j));
	json_decref(j);
	json_object_set_new(s, "v0.0.38_pings", response_of("pings", "v0.0.38_ping"));
	sub = response_of(NULL, NULL);
	j = sj_diag(&stats);
	json_object_set_new(json_object_get(sub, "properties"), "statistics",
	                    schema_of(j));
	json_decref(j);
	json_object_set_new(s, "v0.0.38_diag", sub);
	json_object_set_new(s, "v0.0.38_jobs_response",
	                    response_of("jobs", "v0.0.38_job_response_properties"));
	json_object_set_new(s, "v0.0.38_nodes_response",
	                    response_of("nodes", "v0.0.38_node"));
	json_object_set_new(s, "v0.0.38_partitions_response",
	                    response_of("partitions", "v0.0.38_partition"));
	sub = response_of(NULL, NULL);
	json_object_set_new(json_object_get(sub, "properties"), "job_id",
	                    json_pack("{s:s}", "type", "integer"));
	json_object_set_new(json_object_get(sub, "properties"), "step_id",
	                    json_pack("{s:s}", "type", "string"));
	json_object_set_new(json_object_get(sub, "properties"), "job_submit_user_msg",
	                    json_pack("{s:s}", "type", "string"));
	json_object_set_new(s, "v0.0.38_job_submission_response", sub);
	db_schemas(s, conf);
	schemas44(s);
	db44_schemas(s, conf);
	return s;
}

static json_t *document(const struct conf *conf)
{
	json_t *p = json_object(), *doc;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		json_t *item = json_object_get(p, paths[i].path), *op, *ok;

		if (!item) {
			item = json_object();
			json_object_set_new(p, paths[i].path, item);
		}
		ok = paths[i].schema ? json_pack("{s:s, s:{s:{s:o}}}", "description",
		                                 "success", "content", "application/json",
		                                 "schema", ref(paths[i].schema))
		                     : json_pack("{s:s}", "description", "success");
		op = json_pack("{s:s, s:{s:o, s:{s:s}}}", "summary", paths[i].summary,
		               "responses", "200", ok, "default", "description",
		               "errors[] with Slurm's error numbers");
		json_object_set_new(item, paths[i].method, op);
	}
	doc = json_pack(
	    "{s:s, s:{s:s, s:s, s:s}, s:[{s:s}], s:o, s:{s:{s:{s:s, s:s, s:s}, s:{s:s, "
	    "s:s, s:s}, s:{s:s, s:s}}, s:o}, s:[{s:[], s:[]}, {s:[]}]}",
	    "openapi", "3.0.2", "info", "title",
	    "Rota REST API (Slurm's slurm and slurmdb v0.0.38 and v0.0.44)", "version",
	    "0.0.38", "description",
	    "slurmrestd's paths for a Rota cluster; the schemas are generated from "
	    "the encoders that make the documents",
	    "servers", "url", "/", "paths", p, "components", "securitySchemes", "user",
	    "type", "apiKey", "in", "header", "name", "X-SLURM-USER-NAME", "token",
	    "type", "apiKey", "in", "header", "name", "X-SLURM-USER-TOKEN", "bearer",
	    "type", "http", "scheme", "bearer", "schemas", schemas(conf), "security",
	    "user", "token", "bearer");
	return doc;
}

int restd_openapi(struct restd *r, struct evhttp_request *req, const char *path)
{
	if (strcmp(path, "/openapi/v3") && strcmp(path, "/openapi") &&
	    strcmp(path, "/openapi.json"))
		return 0;
	restd_reply_json(req, 200, document(r->conf));
	return 1;
}
