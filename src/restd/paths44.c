/* paths44.c - the slurm v0.0.44 paths that v0.0.38 has not: jobs/state,
 * shares, reconfigure, licenses, reservations and POST nodes (several nodes
 * updated at once).  routes.c asks here first for a v0.0.44 path; what the
 * controller answers comes back to restd_payload44. */
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/resv_flags.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "proto/slurm_json44.h"
#include "restd/restd.h"
#include "common/common.h"

#define STATE_IDS_MAX 1024 /* job ids in one jobs/state query */

/* GET jobs/state?job_id=1,2_3: the ids (an array task's is its array's
 * job id: the answer lists all its tasks).  0, or 400's words in *why. */
static int state_query(struct evhttp_request *req, struct job_info_req *q,
                       const char **why)
{
	const char *query = evhttp_uri_get_query(evhttp_request_get_evhttp_uri(req));
	struct evkeyvalq qs = {0};
	const char *ids;
	int rc = 0;

	q->fields = JI(job_id) | JI(array_job_id) | JI(array_task_id) |
	            JI(array_task_str) | JI(state);
	if (!query)
		return 0;
	if (evhttp_parse_query_str(query, &qs) < 0) {
		*why = "the query string cannot be parsed";
		return -1;
	}
	if ((ids = evhttp_find_header(&qs, "job_id")) && *ids) {
		q->job_ids.v = xcalloc(STATE_IDS_MAX, sizeof(uint32_t));
		for (const char *s = ids; *s;) {
			char *end;
			unsigned long id = strtoul(s, &end, 10);

			if (end == s || !id || id >= NO_VAL ||
			    (*end && *end != ',' && *end != '_') ||
			    q->job_ids.n == STATE_IDS_MAX) {
				*why = "job_id is a list of job ids";
				rc = -1;
				break;
			}
			q->job_ids.v[q->job_ids.n++] = (uint32_t)id;
			s = end + strcspn(end, ",");
			s += *s == ',';
		}
	}
	evhttp_clear_headers(&qs);
	return rc;
}

/* POST nodes: v0.0.44_update_node_msg with the nodes in "name" (a list, or
 * one hostlist). */
static int nodes_update(struct rest_call *c, uint16_t *type, void **body,
                        const char **why, int *errnum)
{
	size_t n;
	char *text = restd_body(c->req, &n);
	json_t *root = json_loadb(text, n, 0, NULL), *names;
	char *list = NULL;
	struct node_update_req *q = NULL;

	free(text);
	names = json_is_object(root) ? json_object_get(root, "name") : NULL;
	if (json_is_string(names))
		list = xstrdup(json_string_value(names));
	for (size_t i = 0; json_is_array(names) && i < json_array_size(names); i++) {
		const char *s = json_string_value(json_array_get(names, i));
		char *prev = list;
		if (!s || !*s || strchr(s, ',')) {
			free(list);
			list = NULL;
			break;
		}
		list = prev ? xasprintf("%s,%s", prev, s) : xstrdup(s);
		free(prev);
	}
	if (!list || !*list) {
		json_decref(root);
		free(list);
		*why = "name: the nodes to update are needed";
		*errnum = ESLURM_INVALID_NODE_NAME;
		return 400;
	}
	json_object_del(root, "name");
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	*errnum = restd_node_update(text, strlen(text), list, API_V44, &q, why);
	free(text);
	free(list);
	if (*errnum)
		return 400;
	c->what = W_UPDATE;
	*type = MSG_NODE_UPDATE_REQ;
	*body = q;
	return 0;
}

int restd_parse44(struct rest_call *c, const char *path, uint16_t *type, void **body,
                  const char **why, int *errnum)
{
	enum evhttp_cmd_type cmd = evhttp_request_get_command(c->req);
	int get = cmd == EVHTTP_REQ_GET;

	if (!strcmp(path, "jobs/state") && get) {
		struct job_info_req *q = msg_body_new(MSG_JOB_INFO_REQ);

		if (state_query(c->req, q, why) < 0) {
			msg_body_free(MSG_JOB_INFO_REQ, q);
			*errnum = ESLURM_INVALID_ARGUMENT;
			return 400;
		}
		c->what = W_JOBS_STATE;
		*type = MSG_JOB_INFO_REQ;
		*body = q;
		return 0;
	}
	if (!strcmp(path, "shares") && get) {
		c->what = W_SHARES;
		*type = MSG_SHARE_REQ;
	} else if (!strcmp(path, "reconfigure") && get) {
		c->what = W_RECONFIGURE;
		*type = MSG_RECONFIG_REQ;
	} else if (!strcmp(path, "nodes") && cmd == EVHTTP_REQ_POST) {
		return nodes_update(c, type, body, why, errnum);
	} else if (!strcmp(path, "licenses") && get) {
		c->what = W_LICENSES;
		*type = MSG_LIC_INFO_REQ;
	} else if ((!strcmp(path, "reservations") ||
	            (!strncmp(path, "reservation/", 12) && path[12])) &&
	           get) {
		struct resv_info_req *q = msg_body_new(MSG_RESV_INFO_REQ);
		if (path[11] == '/')
			q->name = xstrdup(path + 12);
		c->what = q->name ? W_RESV : W_RESVS;
		*type = MSG_RESV_INFO_REQ;
		*body = q;
		return 0;
	} else {
		return -1;
	}
	*body = msg_body_new(*type);
	return 0;
}

json_t *restd_licenses44(const struct lic_info_resp *r)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < r->lics_count; i++) {
		const struct lic_info *l = &r->lics[i];
		json_array_append_new(
		    a, json_pack("{s:s, s:i, s:i, s:i, s:b, s:i, s:i, s:i, s:i, s:s}",
		                 "LicenseName", l->name, "Total", (int)l->total, "Used",
		                 (int)l->used, "Free",
		                 (int)(l->used < l->total ? l->total - l->used : 0),
		                 "Remote", l->remote ? 1 : 0, "Reserved",
		                 (int)l->reserved, "LastConsumed", 0, "LastDeficit", 0,
		                 "LastUpdate", 0, "Nodes", ""));
	}
	return a;
}

/* shares' rows narrowed to the accounts= and users= of the query (CSV). */
static int listed(const char *csv, const char *name)
{
	size_t n = strlen(name);

	if (!csv || !*csv)
		return 1;
	for (const char *s = csv; *s;) {
		size_t k = strcspn(s, ",");
		if (k == n && !strncmp(s, name, n))
			return 1;
		s += k;
		s += *s == ',';
	}
	return 0;
}

static void narrow_shares(struct evhttp_request *req, struct share_resp *r)
{
	const char *query = evhttp_uri_get_query(evhttp_request_get_evhttp_uri(req));
	struct evkeyvalq qs = {0};
	const char *accounts, *users;
	uint32_t kept = 0;

	if (!query || evhttp_parse_query_str(query, &qs) < 0)
		return;
	accounts = evhttp_find_header(&qs, "accounts");
	users = evhttp_find_header(&qs, "users");
	for (uint32_t k = 0; k < r->rows_count; k++) {
		struct share_row *s = &r->rows[k];
		int user = s->user && *s->user;

		if (listed(accounts, s->account ? s->account : "") &&
		    (!users || !*users || (user && listed(users, s->user)))) {
			struct share_row t = r->rows[kept];
			r->rows[kept++] = *s;
			*s = t;
		}
	}
	/* the rows left out are freed with the message */
	if (kept < r->rows_count) {
		for (uint32_t k = kept; k < r->rows_count; k++)
			codec_release(&share_row_type, &r->rows[k]);
		r->rows_count = kept;
	}
	evhttp_clear_headers(&qs);
}

/* Slurm's time value of a reservation's start or end. */
static json_t *when(int64_t t)
{
	return json_pack("{s:b, s:b, s:I}", "set", 1, "infinite", 0, "number",
	                 (json_int_t)t);
}

json_t *restd_resvs44(const struct resv_info_resp *r)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < r->resvs_count; i++) {
		const struct resv_info *v = &r->resvs[i];
		char flags[256];
		json_t *fl = json_array();
		char **names =
		    strv_split(resv_flags_format(v->flags, 0, flags, sizeof(flags)), ",");
		for (size_t k = 0; names[k]; k++)
			json_array_append_new(fl, json_string(names[k]));
		strv_free(names);
		json_array_append_new(
		    a,
		    json_pack(
		        "{s:s, s:s, s:i, s:i, s:o, s:s, s:o, s:s, s:s, s:o, s:s, "
		        "s:i, s:s, s:s, s:{s:o}, s:o, s:s, s:s, s:s, s:o}",
		        "accounts", v->accounts ? v->accounts : "", "burst_buffer", "",
		        "core_count", (int)v->core_cnt, "core_spec_cnt", 0, "end_time",
		        when(v->end), "features", "", "flags", fl, "groups", "",
		        "licenses", v->licenses ? v->licenses : "", "max_start_delay",
		        sj44_no_val(0), "name", v->name, "node_count", (int)v->node_cnt,
		        "node_list", v->nodes ? v->nodes : "", "partition",
		        v->partition ? v->partition : "", "purge_completed", "time",
		        sj44_no_val(v->purge_comp), "start_time", when(v->start), "tres",
		        v->tres ? v->tres : "", "users", v->users ? v->users : "",
		        "watts", "", "core_specializations", json_array()));
	}
	return a;
}

void restd_payload44(struct rest_call *c, json_t *doc, uint16_t type, void *body)
{
	switch (c->what) {
	case W_JOBS_STATE:
		if (type == MSG_JOB_INFO_RESP)
			json_object_set_new(doc, "jobs", sj44_job_states(body));
		break;
	case W_SHARES:
		if (type == MSG_SHARE_RESP) {
			narrow_shares(c->req, body);
			json_object_set_new(doc, "shares", sj44_shares(body));
		}
		break;
	case W_LICENSES:
		if (type == MSG_LIC_INFO_RESP) {
			json_object_set_new(doc, "licenses", restd_licenses44(body));
			json_object_set_new(doc, "last_update",
			                    sj44_no_val((uint32_t)time(NULL)));
		}
		break;
	case W_RESVS:
	case W_RESV:
		if (type == MSG_RESV_INFO_RESP) {
			json_object_set_new(doc, "reservations", restd_resvs44(body));
			json_object_set_new(doc, "last_update",
			                    sj44_no_val((uint32_t)time(NULL)));
		}
		break;
	default: /* reconfigure: the head alone */
		break;
	}
}
