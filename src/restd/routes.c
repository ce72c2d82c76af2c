/* routes.c - slurmrestd's paths (the slurm v0.0.38 plugin of Slurm 22.05,
 * and v0.0.44 of Slurm 25.11: the same paths), each a request to the
 * controller as the authenticated user, answered with Slurm's document
 * (proto/slurm_json.h; v0.0.44's by slurm44.c) or its errors[] and an HTTP
 * code. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/signame.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "proto/jsonw.h"
#include "proto/messages.h"
#include "proto/slurm_json.h"
#include "proto/slurm_json44.h"
#include "restd/assets.h"
#include "restd/restd.h"
#include "common/common.h"

/* The HTTP code for one of Slurm's errors. */
static int http_code(int rc)
{
	switch (rc) {
	case ESLURM_INVALID_JOB_ID:
	case ESLURM_INVALID_NODE_NAME:
	case ESLURM_INVALID_PARTITION_NAME:
		return 404;
	case ESLURM_ACCESS_DENIED:
		return 403;
	case ESLURM_INVALID_ARGUMENT:
		return 400;
	default:
		return 500;
	}
}

/* A job written by one version's encoder. */
typedef void (*job_write_f)(struct jsonw *w, const struct job_info *j,
                            const char *cluster);

/* The jobs' document: head (taken), then the jobs written one at a time
 * (compact, proto/jsonw.h): a listing of 100,000 jobs never exists as a tree
 * of JSON values. */
static void reply_jobs(struct evhttp_request *req, json_t *head, job_write_f write,
                       const struct job_info_resp *resp, const char *cluster)
{
	struct evbuffer *buf = evbuffer_new();
	char *text = json_dumps(head, JSON_COMPACT | JSON_PRESERVE_ORDER);
	size_t len = text ? strlen(text) : 0;

	if (!buf || len < 2 || text[len - 1] != '}')
		fatal("out of memory");
	struct jsonw w = {0};

	evbuffer_add(buf, text, len - 1); /* the closing brace comes last */
	evbuffer_add(buf, ",\"jobs\":[", 9);
	for (uint32_t i = 0; i < resp->jobs_count; i++) {
		w.len = 0;
		if (i)
			jsonw_lit(&w, ",");
		write(&w, &resp->jobs[i], cluster);
		evbuffer_add(buf, w.p, w.len);
	}
	jsonw_free(&w);
	evbuffer_add(buf, "]}\n", 3);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
	                  "application/json");
	evhttp_send_reply(req, 200, NULL, buf);
	evbuffer_free(buf);
	free(text);
	json_decref(head);
}

/* nodes[] (all, or the one named: 404 when there is none). */
static int add_nodes(json_t *doc, const struct node_info_resp *resp, const char *name)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < resp->nodes_count; i++)
		if (!*name || !strcmp(resp->nodes[i].name, name))
			json_array_append_new(a, sj_node(&resp->nodes[i]));
	json_object_set_new(doc, "nodes", a);
	return *name && !json_array_size(a) ? -1 : 0;
}

static int add_parts(json_t *doc, const struct part_info_resp *resp, const char *name)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < resp->parts_count; i++)
		if (!*name || !strcmp(resp->parts[i].name, name))
			json_array_append_new(a, sj_partition(&resp->parts[i]));
	json_object_set_new(doc, "partitions", a);
	return *name && !json_array_size(a) ? -1 : 0;
}

/* An error for c, in its version's shape. */
static void reply_error(struct rest_call *c, int code, const char *msg, int errnum)
{
	if (c->api == API_V44)
		restd_reply_error44(c->r, c->req, &c->u, code, msg, errnum);
	else
		restd_reply_error(c->req, code, msg, errnum);
}

static void answered(void *arg, int rc, const char *msg, uint16_t type, void **body)
{
	struct rest_call *c = arg;
	const char *cluster = c->r->conf->cluster_name;
	json_t *doc;

	if (rc) {
		reply_error(c, http_code(rc), msg && *msg ? msg : slurm_strerror(rc), rc);
		free(c);
		return;
	}
	if ((c->what == W_JOBS || c->what == W_JOB) && type == MSG_JOB_INFO_RESP) {
		if (c->api == API_V44)
			reply_jobs(c->req, restd_jobs_head44(c, *body), sj44_job_write,
			           *body, cluster);
		else
			reply_jobs(c->req, sj_response(), sj_job_write, *body, cluster);
		free(c);
		return;
	}
	if (c->api == API_V44) {
		restd_answer44(c, type, body);
		free(c);
		return;
	}
	doc = sj_response();
	switch (c->what) {
	case W_PING:
		if (type == MSG_PING_RESP)
			json_object_set_new(doc, "pings",
			                    json_pack("[o]", sj_ping(*body, "primary")));
		break;
	case W_JOBS:
	case W_JOB: /* answered above */
		break;
	case W_DIAG:
		if (type == MSG_STATS_RESP)
			json_object_set_new(doc, "statistics", sj_diag(*body));
		break;
	case W_JOB_CANCEL:
	case W_UPDATE:
	case W_JOBS_STATE: /* v0.0.44's alone */
	case W_SHARES:
	case W_RECONFIGURE:
	case W_LICENSES:
	case W_RESVS:
	case W_RESV:
		break;
	case W_SUBMIT:
		if (type == MSG_SUBMIT_RESP) {
			const struct submit_resp *sr = *body;
			json_object_set_new(doc, "job_id", json_integer(sr->job_id));
			json_object_set_new(doc, "step_id", json_string("BATCH"));
			json_object_set_new(doc, "job_submit_user_msg",
			                    json_string(sr->msg ? sr->msg : ""));
		}
		break;
	case W_NODES:
	case W_NODE:
		if (type == MSG_NODE_INFO_RESP && add_nodes(doc, *body, c->name) < 0) {
			json_decref(doc);
			restd_reply_error(c->req, 404, "Invalid node name specified",
			                  ESLURM_INVALID_NODE_NAME);
			free(c);
			return;
		}
		break;
	case W_PARTS:
	case W_PART:
		if (type == MSG_PART_INFO_RESP && add_parts(doc, *body, c->name) < 0) {
			json_decref(doc);
			restd_reply_error(c->req, 404, "Invalid partition name specified",
			                  ESLURM_INVALID_PARTITION_NAME);
			free(c);
			return;
		}
		break;
	}
	restd_reply_json(c->req, 200, doc);
	free(c);
}

char *restd_body(struct evhttp_request *req, size_t *len)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	char *text;

	*len = evbuffer_get_length(in);
	text = xmalloc(*len + 1);
	evbuffer_copyout(in, text, *len);
	text[*len] = '\0';
	return text;
}

/* "123" as a job id; 0 when it is not one. */
static uint32_t job_id_of(const char *s)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return 0;
	v = strtoul(s, &end, 10);
	return *end || !v || v >= NO_VAL ? 0 : (uint32_t)v;
}

/* The value of key in the request's query string, copied to out. */
static int query_value(struct evhttp_request *req, const char *key, char *out, size_t len)
{
	const char *q = evhttp_uri_get_query(evhttp_request_get_evhttp_uri(req));
	struct evkeyvalq params = {0};
	const char *v;
	int found = 0;

	if (!q || evhttp_parse_query_str(q, &params) < 0)
		return 0;
	if ((v = evhttp_find_header(&params, key)) && strlen(v) < len) {
		snprintf(out, len, "%s", v);
		found = 1;
	}
	evhttp_clear_headers(&params);
	return found;
}

/* Which call path (below the version's prefix) and method ask for; the request
 * body to send in *type and *body.  Returns 0, or an HTTP code with *why and
 * Slurm's error number in *errnum. */
static int parse_call(struct evhttp_request *req, const struct rest_user *u,
                      const char *path, struct rest_call *c, uint16_t *type, void **body,
                      const char **why, int *errnum)
{
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	const char *slash = strchr(path, '/');
	size_t head = slash ? (size_t)(slash - path) : strlen(path);
	const char *arg = slash ? slash + 1 : "";
	char sig[32];
	int code;

	*why = "Unable to find the requested path";
	*errnum = ESLURM_NOT_SUPPORTED;
	if (c->api == API_V44 &&
	    (code = restd_parse44(c, path, type, body, why, errnum)) >= 0)
		return code;
	if (head == 4 && !strncmp(path, "ping", 4) && !*arg && cmd == EVHTTP_REQ_GET) {
		c->what = W_PING;
		*type = MSG_PING_REQ;
	} else if (head == 4 && !strncmp(path, "diag", 4) && !*arg &&
	           cmd == EVHTTP_REQ_GET) {
		c->what = W_DIAG;
		*type = MSG_STATS_REQ;
	} else if (head == 4 && !strncmp(path, "jobs", 4) && !*arg &&
	           cmd == EVHTTP_REQ_GET) {
		c->what = W_JOBS;
		*type = MSG_JOB_INFO_REQ;
	} else if (head == 3 && !strncmp(path, "job", 3) && !strcmp(arg, "submit")) {
		struct job_desc *d = NULL;
		size_t n;
		char *text;

		if (cmd != EVHTTP_REQ_POST) {
			*why = "Method not allowed on this path";
			return 405;
		}
		text = restd_body(req, &n);
		*errnum = restd_submit_desc(text, n, u, c->api, &d, why);
		free(text);
		if (*errnum)
			return 400;
		c->what = W_SUBMIT;
		*type = MSG_SUBMIT_REQ;
		*body = d;
		return 0;
	} else if (head == 3 && !strncmp(path, "job", 3) && *arg) {
		uint32_t id = job_id_of(arg);

		if (!id) {
			*why = "Invalid job id specified";
			*errnum = ESLURM_INVALID_JOB_ID;
			return 404;
		}
		if (cmd == EVHTTP_REQ_GET) {
			struct job_info_req *q = msg_body_new(MSG_JOB_INFO_REQ);

			q->job_ids.v = xmalloc(sizeof(*q->job_ids.v));
			q->job_ids.v[0] = id;
			q->job_ids.n = 1;
			c->what = W_JOB;
			*type = MSG_JOB_INFO_REQ;
			*body = q;
			return 0;
		}
		if (cmd == EVHTTP_REQ_POST) {
			struct job_update_req *q = NULL;
			size_t n;
			char *text = restd_body(req, &n);

			*errnum = restd_job_update(text, n, id, c->api, &q, why);
			free(text);
			if (*errnum)
				return 400;
			c->what = W_UPDATE;
			c->job_id = id;
			*type = MSG_JOB_UPDATE_REQ;
			*body = q;
			return 0;
		}
		if (cmd == EVHTTP_REQ_DELETE) {
			struct cancel_req *q;
			int signo = 0;

			if (query_value(req, "signal", sig, sizeof(sig)) &&
			    (signo = signal_parse(sig)) < 0) {
				*why = "Invalid signal";
				*errnum = ESLURM_INVALID_ARGUMENT;
				return 400;
			}
			q = msg_body_new(MSG_CANCEL_REQ);
			q->job_id = id;
			q->step_id = NO_VAL;
			q->signal = (uint32_t)signo;
			c->what = W_JOB_CANCEL;
			*type = MSG_CANCEL_REQ;
			*body = q;
			return 0;
		}
		*why = "Method not allowed on this path";
		return 405;
	} else if (head == 5 && !strncmp(path, "nodes", 5) && !*arg &&
	           cmd == EVHTTP_REQ_GET) {
		c->what = W_NODES;
		*type = MSG_NODE_INFO_REQ;
	} else if (head == 4 && !strncmp(path, "node", 4) && *arg && !strchr(arg, '/') &&
	           strlen(arg) < sizeof(c->name) && cmd == EVHTTP_REQ_POST) {
		struct node_update_req *q = NULL;
		size_t n;
		char *text = restd_body(req, &n);

		*errnum = restd_node_update(text, n, arg, c->api, &q, why);
		free(text);
		if (*errnum)
			return 400;
		c->what = W_UPDATE;
		*type = MSG_NODE_UPDATE_REQ;
		*body = q;
		return 0;
	} else if (head == 4 && !strncmp(path, "node", 4) && *arg && !strchr(arg, '/') &&
	           strlen(arg) < sizeof(c->name) && cmd == EVHTTP_REQ_GET) {
		c->what = W_NODE;
		snprintf(c->name, sizeof(c->name), "%s", arg);
		*type = MSG_NODE_INFO_REQ;
	} else if (head == 10 && !strncmp(path, "partitions", 10) && !*arg &&
	           cmd == EVHTTP_REQ_GET) {
		c->what = W_PARTS;
		*type = MSG_PART_INFO_REQ;
	} else if (head == 9 && !strncmp(path, "partition", 9) && *arg &&
	           !strchr(arg, '/') && strlen(arg) < sizeof(c->name) &&
	           cmd == EVHTTP_REQ_GET) {
		c->what = W_PART;
		snprintf(c->name, sizeof(c->name), "%s", arg);
		*type = MSG_PART_INFO_REQ;
	} else {
		return 404;
	}
	*body = msg_body_new(*type);
	return 0;
}

/* The dashboard's files (web/, built in): served to anyone, as they hold
 * no data; what they show comes from the paths above, with a token. */
static int serve_asset(struct evhttp_request *req, const char *path)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	const struct web_asset *a;
	struct evbuffer *buf;

	if (!strcmp(path, "/"))
		path = "/index.html";
	for (a = web_assets; a->path && strcmp(a->path, path); a++)
		;
	if (!a->path)
		return 0;
	buf = evbuffer_new();
	if (!buf)
		fatal("out of memory");
	evbuffer_add_reference(buf, a->data, a->len, NULL, NULL);
	evhttp_add_header(h, "Content-Type", a->type);
	evhttp_add_header(h, "Cache-Control", "no-cache");
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(h, "Content-Security-Policy",
	                  "default-src 'self'; style-src 'self' 'unsafe-inline'");
	evhttp_send_reply(req, 200, NULL, buf);
	evbuffer_free(buf);
	return 1;
}

/* Rota's own paths, beside Slurm's */
#define ROTA_V1 "/rota/v1"

/* job/{id}/output[?tail=BYTES] */
static void route_output(struct restd *r, struct evhttp_request *req,
                         const struct rest_user *u, const char *rest)
{
	const char *slash = strchr(rest, '/');
	char id[16], tail[24], *end;
	unsigned long t = RESTD_TAIL_DEFAULT;
	uint32_t job_id;

	if (!slash || strcmp(slash, "/output") || (size_t)(slash - rest) >= sizeof(id)) {
		restd_reply_error(req, 404, "Unable to find the requested path",
		                  ESLURM_NOT_SUPPORTED);
		return;
	}
	memcpy(id, rest, (size_t)(slash - rest));
	id[slash - rest] = '\0';
	if (!(job_id = job_id_of(id))) {
		restd_reply_error(req, 404, "Invalid job id specified",
		                  ESLURM_INVALID_JOB_ID);
		return;
	}
	if (query_value(req, "tail", tail, sizeof(tail))) {
		t = strtoul(tail, &end, 10);
		if (end == tail || *end || !t || t > RESTD_TAIL_MAX) {
			restd_reply_error(req, 400,
			                  "tail is a byte count from 1 to 1048576",
			                  ESLURM_INVALID_ARGUMENT);
			return;
		}
	}
	restd_output(r, req, u, job_id, t);
}

void restd_route(struct evhttp_request *req, void *arg)
{
	struct restd *r = arg;
	const char *raw = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	enum rest_api api = raw && (!strncmp(raw, SLURM44, strlen(SLURM44)) ||
	                            !strncmp(raw, DB44, strlen(DB44)))
	                        ? API_V44
	                        : API_V38;
	const char *prefix = api == API_V44 ? SLURM44 : SLURM38;
	struct rest_user u;
	const char *why = NULL;
	char *path;
	size_t len = 0;
	struct rest_call *c;
	uint16_t type = 0;
	void *body = NULL;
	int code, errnum = 0;

	restd_conn_request(r, req);
	if (raw && evhttp_request_get_command(req) == EVHTTP_REQ_GET &&
	    (serve_asset(req, raw) || restd_openapi(r, req, raw)))
		return;
	if ((code = restd_who(r, req, &u, &why))) {
		if (api == API_V44)
			restd_reply_error44(r, req, NULL, code, why,
			                    ESLURM_ACCESS_DENIED);
		else
			restd_reply_error(req, code, why, ESLURM_ACCESS_DENIED);
		return;
	}
	path = raw ? evhttp_uridecode(raw, 0, &len) : NULL;
	if (path && !strcmp(path, "/metrics") &&
	    evhttp_request_get_command(req) == EVHTTP_REQ_GET) {
		free(path);
		restd_metrics(r, req, &u);
		return;
	}
	if (path && !strcmp(path, ROTA_V1 "/history") &&
	    evhttp_request_get_command(req) == EVHTTP_REQ_GET) {
		free(path);
		restd_reply_json(req, 200, restd_history_doc(r));
		return;
	}
	if (path && !strncmp(path, ROTA_V1 "/job/", strlen(ROTA_V1 "/job/")) &&
	    evhttp_request_get_command(req) == EVHTTP_REQ_GET) {
		route_output(r, req, &u, path + strlen(ROTA_V1 "/job/"));
		free(path);
		return;
	}
	if (path && strlen(path) == len &&
	    (!strncmp(path, DB38, strlen(DB38)) || !strncmp(path, DB44, strlen(DB44)))) {
		enum rest_api db = !strncmp(path, DB44, strlen(DB44)) ? API_V44 : API_V38;

		while (len > strlen(DB38) && path[len - 1] == '/')
			path[--len] = '\0';
		restd_slurmdb(r, req, &u, db, path + strlen(DB38));
		free(path);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->r = r;
	c->req = req;
	c->api = api;
	c->u = u;
	c->start = time_mono();
	if (!path || strlen(path) != len || strncmp(path, prefix, strlen(prefix))) {
		reply_error(c, 404, "Unable to find the requested path",
		            ESLURM_NOT_SUPPORTED);
		free(path);
		free(c);
		return;
	}
	while (len > strlen(prefix) && path[len - 1] == '/')
		path[--len] = '\0';
	code = parse_call(req, &u, path + strlen(prefix), c, &type, &body, &why, &errnum);
	free(path);
	if (code) {
		reply_error(c, code, why, errnum);
		free(c);
		return;
	}
	if (relay_call(r, &u, type, body, answered, c) < 0) {
		reply_error(c, 503, "the controller cannot be reached now", SLURM_ERROR);
		free(c);
	}
}
