/* slurm44.c - the slurm v0.0.44 plugin's answers (Slurm 25.11): the
 * controller's replies as proto/slurm_json44.h's documents, each headed by
 * meta (who asks, from where, on which cluster), errors[] and warnings[].
 * routes.c parses the request and relays it, as for v0.0.38. */
#include <event2/http.h>
#include <grp.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include "common/conf.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "proto/messages.h"
#include "proto/slurm_json44.h"
#include "restd/restd.h"
#include "common/common.h"

#define SOURCE "rotarestd"

/* The head for u on req, naming plugin (NULL: slurmctld). */
static json_t *response_of(struct restd *r, struct evhttp_request *req,
                           const struct rest_user *u, const char *plugin)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	char source[80] = "", group[64] = "";
	char *addr = NULL;
	uint16_t port = 0;
	struct group *gr;

	if (evcon)
		evhttp_connection_get_peer(evcon, &addr, &port);
	if (addr && port)
		snprintf(source, sizeof(source), "[%s]:%u", addr, (unsigned)port);
	else
		snprintf(source, sizeof(source), "unix");
	if (u && (gr = getgrgid(u->gid)))
		snprintf(group, sizeof(group), "%s", gr->gr_name);
	else if (u)
		snprintf(group, sizeof(group), "%u", (unsigned)u->gid);
	return sj44_response(&(struct sj44_meta){
	    .cluster = r->conf->cluster_name,
	    .accounting_storage = r->conf->accounting_storage_type,
	    .source = source,
	    .user = u ? u->name : NULL,
	    .group = group,
	    .plugin = plugin,
	});
}

json_t *restd_response44(struct restd *r, struct evhttp_request *req,
                         const struct rest_user *u)
{
	return response_of(r, req, u, NULL);
}

json_t *restd_db_response44(struct restd *r, struct evhttp_request *req,
                            const struct rest_user *u)
{
	return response_of(r, req, u, "slurmdbd");
}

void restd_reply_error44(struct restd *r, struct evhttp_request *req,
                         const struct rest_user *u, int code, const char *msg, int errnum)
{
	json_t *doc = restd_response44(r, req, u);

	sj44_add_error(doc, msg, errnum, SOURCE);
	restd_reply_json(req, code, doc);
}

json_t *restd_jobs_head44(struct rest_call *c, const struct job_info_resp *resp)
{
	json_t *doc = restd_response44(c->r, c->req, &c->u);

	/* Rota's job listing does not say when backfill last ran */
	json_object_set_new(doc, "last_backfill", sj44_no_val(NO_VAL));
	json_object_set_new(doc, "last_update", sj44_no_val((uint32_t)resp->now));
	return doc;
}

/* key: the items of list that match name (all when name is ""), and
 * last_update; -1 when a name was given and none does. */
static int add_items(json_t *doc, const char *key, const char *name, int64_t now,
                     uint32_t n, const char *(*name_of)(const void *, uint32_t),
                     json_t *(*encode)(const void *, uint32_t), const void *list)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < n; i++)
		if (!*name || !strcmp(name_of(list, i), name))
			json_array_append_new(a, encode(list, i));
	json_object_set_new(doc, key, a);
	json_object_set_new(doc, "last_update", sj44_no_val((uint32_t)now));
	return *name && !json_array_size(a) ? -1 : 0;
}

static const char *node_name(const void *l, uint32_t i)
{
	return ((const struct node_info *)l)[i].name;
}

static json_t *node_doc(const void *l, uint32_t i)
{
	return sj44_node(&((const struct node_info *)l)[i]);
}

static const char *part_name(const void *l, uint32_t i)
{
	return ((const struct part_info *)l)[i].name;
}

static json_t *part_doc(const void *l, uint32_t i)
{
	return sj44_partition(&((const struct part_info *)l)[i]);
}

/* The document's payload for c; 404's words when the one asked for is not
 * there, else NULL. */
static const char *payload(struct rest_call *c, json_t *doc, uint16_t type, void *body)
{
	switch (c->what) {
	case W_PING:
		if (type == MSG_PING_RESP)
			json_object_set_new(
			    doc, "pings",
			    json_pack(
			        "[o]",
			        sj44_ping(body, "primary",
			                  (long long)((time_mono() - c->start) * 1e6))));
		break;
	case W_DIAG:
		if (type == MSG_STATS_RESP)
			json_object_set_new(doc, "statistics", sj44_diag(body));
		break;
	case W_JOBS:
	case W_JOB: /* routes.c writes them */
		break;
	case W_JOB_CANCEL: /* a job that could not be signalled is an error */
		json_object_set_new(doc, "status", json_array());
		break;
	case W_UPDATE: /* results[] lists an array's tasks; a job's error is an error */
		if (c->job_id)
			json_object_set_new(doc, "results", json_array());
		break;
	case W_SUBMIT:
		if (type == MSG_SUBMIT_RESP) {
			const struct submit_resp *sr = body;
			json_object_set_new(doc, "job_id", json_integer(sr->job_id));
			json_object_set_new(doc, "step_id", json_string("batch"));
			json_object_set_new(doc, "job_submit_user_msg",
			                    json_string(sr->msg ? sr->msg : ""));
		}
		break;
	case W_NODES:
	case W_NODE:
		if (type == MSG_NODE_INFO_RESP) {
			const struct node_info_resp *nr = body;
			if (add_items(doc, "nodes", c->name, nr->now, nr->nodes_count,
			              node_name, node_doc, nr->nodes) < 0)
				return "Invalid node name specified";
		}
		break;
	case W_PARTS:
	case W_PART:
		if (type == MSG_PART_INFO_RESP) {
			const struct part_info_resp *pr = body;
			if (add_items(doc, "partitions", c->name, pr->now,
			              pr->parts_count, part_name, part_doc,
			              pr->parts) < 0)
				return "Invalid partition name specified";
		}
		break;
	case W_JOBS_STATE:
	case W_SHARES:
	case W_RECONFIGURE:
	case W_LICENSES:
	case W_RESVS:
		restd_payload44(c, doc, type, body);
		break;
	case W_RESV:
		if (type == MSG_RESV_INFO_RESP &&
		    !((const struct resv_info_resp *)body)->resvs_count)
			return "Requested reservation is invalid";
		restd_payload44(c, doc, type, body);
		break;
	}
	return NULL;
}

void restd_answer44(struct rest_call *c, uint16_t type, void **body)
{
	json_t *doc = restd_response44(c->r, c->req, &c->u);
	const char *missing = payload(c, doc, type, *body);

	if (missing) {
		json_decref(doc);
		restd_reply_error44(c->r, c->req, &c->u, 404, missing,
		                    c->what == W_NODE   ? ESLURM_INVALID_NODE_NAME
		                    : c->what == W_RESV ? ESLURM_RESERVATION_INVALID
		                                        : ESLURM_INVALID_PARTITION_NAME);
		return;
	}
	restd_reply_json(c->req, 200, doc);
}
