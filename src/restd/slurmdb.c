/* slurmdb.c - slurmrestd's slurmdb paths (the dbv0.0.38 plugin of Slurm
 * 22.05, v0.0.44 of Slurm 25.11: the same paths): job records and
 * rotadbd's statistics from rotadbd, and accounts, users, associations and
 * QOS from the controller, as the user asks (relay.c).  The version only
 * chooses the encoders (encoders[] below): dbv0.0.38's are sacct --json's
 * (proto/sacct.h) and proto/slurmdb_json.h's, v0.0.44's
 * proto/slurmdb_json44.h's.
 *
 *   GET jobs[?filters], job/{id}, accounts, account/{name}, users,
 *   user/{name}, qos, qos/{name}, associations[?account=&user=&partition=&
 *   cluster=], association?..., tres, clusters, cluster/{name}, wckeys,
 *   config, diag
 *
 * rotadbd lists every user's records to anyone, as sacct does (Slurm's
 * PrivateData is not applied here). */
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "common/acct_time.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/client.h"
#include "proto/codec.h"
#include "proto/conn.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "proto/sacct.h"
#include "proto/slurm_json.h"
#include "proto/slurm_json44.h"
#include "proto/slurmdb_json.h"
#include "proto/slurmdb_json44.h"
#include "restd/restd.h"
#include "common/common.h"

#define SDB_LIST_MAX 256 /* items in one filter's list */

enum sdb_what {
	S_JOBS,
	S_JOB,
	S_ACCOUNTS,
	S_USERS,
	S_QOS,
	S_ASSOCS,
	S_CONFIG, /* accounts, users, QOS, associations, TRES in one document */
	S_DIAG,   /* rotadbd's statistics */
};

/* What a version's documents are made by. */
struct sdb_enc {
	void (*job_add)(const struct sacct_ctx *x, json_t *jobs, const struct acct_job *j,
	                int with_steps);
	json_t *(*account)(const struct assoc_list_resp *l,
	                   const struct assoc_account *a);
	json_t *(*user)(const struct assoc_list_resp *l, const struct assoc_user *u);
	json_t *(*assoc)(const struct assoc_list_resp *l, const struct assoc_rec *r);
	json_t *(*qos)(const struct assoc_list_resp *l, uint32_t i);
	json_t *(*cluster)(const struct conf *cf);
	json_t *(*diag)(const struct dbd_diag *d);
};

static const struct sdb_enc encoders[] = {
    [API_V38] = {sacct_json_add, sdb_account, sdb_user, sdb_assoc, sdb_qos, sdb_cluster,
                 sdb_diag},
    [API_V44] = {sdb44_job_add, sdb44_account, sdb44_user, sdb44_assoc, sdb44_qos,
                 sdb44_cluster, sdb44_diag},
};

/* The list key of each kind's document. */
static const char *const kinds[] = {[S_ACCOUNTS] = "accounts",
                                    [S_USERS] = "users",
                                    [S_QOS] = "qos",
                                    [S_ASSOCS] = "associations"};

/* What sacct's query cannot say, checked on each record. */
struct jfilter {
	uint32_t cpus_min, cpus_max, nodes_min, nodes_max;
	char **groups, **qos, **reservations, **constraints, **nodes, **reasons;
	int exit_code;  /* -1: any */
	int no_records; /* a filter nothing here can match (wckey) */
	int skip_steps;
};

struct sdb_call {
	struct restd *r;
	struct evhttp_request *req;
	enum rest_api api;
	const struct sdb_enc *enc;
	struct rest_user u;
	enum sdb_what what;
	char name[128]; /* account/user/qos named in the path; "" all */
	char *account, *user, *partition, *cluster; /* associations' filters */
	/* jobs */
	struct conn *c;
	struct jfilter f;
	struct sacct_ctx x;
	json_t *jobs;
	struct sdb_call *prev, *next;
};

static void unlink_call(struct sdb_call *s)
{
	struct restd *r = s->r;

	if (s->prev)
		s->prev->next = s->next;
	else if (r->sdb_calls == s)
		r->sdb_calls = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
}

static void call_free(struct sdb_call *s)
{
	unlink_call(s);
	if (s->c)
		conn_close(s->c);
	json_decref(s->jobs);
	strv_free(s->f.groups);
	strv_free(s->f.qos);
	strv_free(s->f.reservations);
	strv_free(s->f.constraints);
	strv_free(s->f.nodes);
	strv_free(s->f.reasons);
	free(s->account);
	free(s->user);
	free(s->partition);
	free(s->cluster);
	free(s);
}

json_t *restd_sdb_head(struct restd *r, struct evhttp_request *req,
                       const struct rest_user *u, enum rest_api api)
{
	return api == API_V44 ? restd_db_response44(r, req, u) : sdb_response();
}

void restd_sdb_error(json_t *doc, enum rest_api api, const char *msg, int errnum)
{
	if (api == API_V44)
		sj44_add_error(doc, msg, errnum, "rotarestd");
	else
		sj_add_error(doc, msg, errnum);
}

static json_t *head(struct sdb_call *s)
{
	return restd_sdb_head(s->r, s->req, &s->u, s->api);
}

static void fail(struct sdb_call *s, int code, const char *msg, int errnum)
{
	json_t *doc = head(s);

	restd_sdb_error(doc, s->api, msg, errnum);
	restd_reply_json(s->req, code, doc);
	call_free(s);
}

/* ---- job records (rotadbd) ---- */

static int in(char *const *list, const char *s)
{
	return !list || strv_has(list, s ? s : "", 1);
}

static int listed(const char *name, void *arg)
{
	return strv_has(arg, name, 0);
}

static int node_in(char *const *list, const char *nodes)
{
	return !list || hostlist_overlaps(nodes, listed, (void *)list);
}

static int wanted(const struct jfilter *f, const struct acct_job *j)
{
	if (f->no_records || j->ncpus < f->cpus_min || j->ncpus > f->cpus_max ||
	    j->nnodes < f->nodes_min || j->nnodes > f->nodes_max)
		return 0;
	if (f->exit_code >= 0 && (int)((j->exit_code >> 8) & 0xff) != f->exit_code)
		return 0;
	if (f->reasons && !strv_has(f->reasons, job_reason_name(j->reason), 1))
		return 0;
	return in(f->groups, j->group) && in(f->qos, j->qos) &&
	       in(f->reservations, j->reservation) &&
	       in(f->constraints, j->constraints) && node_in(f->nodes, j->nodes);
}

static void dbd_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct sdb_call *s = arg;
	struct acct_jobs *part = *body;
	json_t *doc;

	if (type == MSG_RC) {
		const struct rc_msg *rc = *body;
		s->c = NULL;
		conn_close(c);
		fail(s, 500, rc->msg && *rc->msg ? rc->msg : slurm_strerror(rc->rc),
		     rc->rc < 0 ? -rc->rc : rc->rc);
		return;
	}
	if (type == MSG_DBD_DIAG_RESP) {
		s->c = NULL;
		conn_close(c);
		doc = head(s);
		json_object_set_new(doc, "statistics", s->enc->diag(*body));
		restd_reply_json(s->req, 200, doc);
		call_free(s);
		return;
	}
	if (type != MSG_ACCT_JOBS)
		return;
	for (uint32_t i = 0; i < part->jobs_count; i++)
		if (wanted(&s->f, &part->jobs[i]))
			s->enc->job_add(&s->x, s->jobs, &part->jobs[i], !s->f.skip_steps);
	if (part->more)
		return;
	s->c = NULL;
	conn_close(c);
	if (s->what == S_JOB && !json_array_size(s->jobs)) {
		fail(s, 404, "Invalid job id specified", ESLURM_INVALID_JOB_ID);
		return;
	}
	doc = head(s);
	json_object_set(doc, "jobs", s->jobs);
	restd_reply_json(s->req, 200, doc);
	call_free(s);
}

static void dbd_closed(struct conn *c, void *arg)
{
	struct sdb_call *s = arg;

	s->c = NULL;
	fail(s, 500, "Problem talking to the database: rotadbd closed the connection",
	     SLURM_ERROR);
}

static void dbd_timeout(struct conn *c, void *arg)
{
	fail(arg, 500, "Problem talking to the database: no answer in time", SLURM_ERROR);
}

/* A comma-separated list (at most SDB_LIST_MAX items); NULL when absent. */
static char **list_param(const struct evkeyvalq *q, const char *key, const char **why)
{
	const char *v = evhttp_find_header(q, key);
	char **l;

	if (!v)
		return NULL;
	l = strv_split(v, ",");
	if (strv_len(l) > SDB_LIST_MAX) {
		strv_free(l);
		*why = "too many items in a filter";
		return NULL;
	}
	return l;
}

static int num_param(const struct evkeyvalq *q, const char *key, uint32_t dflt,
                     uint32_t *ret)
{
	const char *v = evhttp_find_header(q, key);
	char *end;
	unsigned long n;

	*ret = dflt;
	if (!v)
		return 0;
	n = strtoul(v, &end, 10);
	if (end == v || *end || n > UINT32_MAX - 2)
		return -1;
	*ret = (uint32_t)n;
	return 0;
}

static int bool_param(const struct evkeyvalq *q, const char *key)
{
	const char *v = evhttp_find_header(q, key);

	return v && (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "yes"));
}

static int time_param(const struct evkeyvalq *q, const char *key, int64_t *ret)
{
	const char *v = evhttp_find_header(q, key);
	time_t t;

	if (!v)
		return 0;
	if (acct_time_parse(v, time(NULL), &t) < 0)
		return -1;
	*ret = t;
	return 0;
}

static void add_u32(struct rota_u32v *v, uint32_t x)
{
	v->v = xrealloc(v->v, (v->n + 1) * sizeof(*v->v));
	v->v[v->n++] = x;
}

/* GET jobs' query as sacct's (and what is checked here).  0, or an HTTP
 * status with *why. */
static int jobs_query(struct sdb_call *s, const struct evkeyvalq *qs,
                      struct acct_query *q, const char **why)
{
	static char text[160];
	const char *v;
	char **l;

	*why = NULL;
	if (evhttp_find_header(qs, "association") ||
	    evhttp_find_header(qs, "reservation_id")) {
		*why = "association and reservation ids are not kept: filter by "
		       "account, partition, user and reservation instead";
		return 400;
	}
	if ((v = evhttp_find_header(qs, "cluster")) &&
	    !list_has(v, s->r->conf->cluster_name ? s->r->conf->cluster_name : "", 0))
		s->f.no_records = 1;
	if ((v = evhttp_find_header(qs, "wckey")) && *v)
		s->f.no_records = 1; /* no job has a wckey here */
	q->accounts = list_param(qs, "account", why);
	q->partitions = list_param(qs, "partition", why);
	q->names = list_param(qs, "job_name", why);
	q->jobs = list_param(qs, "step", why);
	/* v0.0.44 says groups, v0.0.38 group */
	if (!(s->f.groups = list_param(qs, "group", why)))
		s->f.groups = list_param(qs, "groups", why);
	s->f.qos = list_param(qs, "qos", why);
	s->f.reservations = list_param(qs, "reservation", why);
	s->f.constraints = list_param(qs, "constraints", why);
	s->f.nodes = list_param(qs, "node", why);
	s->f.reasons = list_param(qs, "reason", why);
	if (*why)
		return 400;
	/* step: "N" or "N.S": the job's records */
	for (char **j = q->jobs; j && *j; j++)
		(*j)[strcspn(*j, ".")] = '\0';
	if ((l = list_param(qs, "state", why))) {
		for (char **w = l; *w; w++) {
			int st = job_state_parse(*w);
			if (st < 0) {
				snprintf(text, sizeof(text), "Invalid state: %.64s", *w);
				*why = text;
				strv_free(l);
				return 400;
			}
			add_u32(&q->states, (uint32_t)st & JOB_STATE_BASE);
		}
		strv_free(l);
	}
	if ((l = list_param(qs, "users", why)) || (l = list_param(qs, "user", why))) {
		for (char **w = l; *w; w++) {
			struct passwd *pw = getpwnam(*w);
			char *end;
			unsigned long uid = strtoul(*w, &end, 10);
			if (!pw && (end == *w || *end)) {
				snprintf(text, sizeof(text), "Invalid user: %.64s", *w);
				*why = text;
				strv_free(l);
				return 400;
			}
			add_u32(&q->uids, pw ? pw->pw_uid : (uint32_t)uid);
		}
		strv_free(l);
	}
	if (time_param(qs, "start_time", &q->start) < 0 ||
	    time_param(qs, "end_time", &q->end) < 0 ||
	    (!evhttp_find_header(qs, "start_time") &&
	     time_param(qs, "submit_time", &q->start) < 0)) {
		*why = "Invalid time specification";
		return 400;
	}
	if (num_param(qs, "cpus_min", 0, &s->f.cpus_min) < 0 ||
	    num_param(qs, "cpus_max", UINT32_MAX, &s->f.cpus_max) < 0 ||
	    num_param(qs, "nodes_min", 0, &s->f.nodes_min) < 0 ||
	    num_param(qs, "nodes_max", UINT32_MAX, &s->f.nodes_max) < 0) {
		*why = "cpus_min, cpus_max, nodes_min, nodes_max: numbers";
		return 400;
	}
	s->f.exit_code = -1;
	if ((v = evhttp_find_header(qs, "exit_code"))) {
		char *end;
		long rc = strtol(v, &end, 10);
		if (end == v || (*end && *end != ':') || rc < 0 || rc > 255) {
			*why = "exit_code: a number from 0 to 255";
			return 400;
		}
		s->f.exit_code = (int)rc;
	}
	s->f.skip_steps = bool_param(qs, "skip_steps");
	if (bool_param(qs, "show_duplicates")) /* every run of a requeued job */
		q->flags |= ACCT_QUERY_F_DUPLICATES;
	return 0;
}

/* Send rotadbd request type (body q: its codec's, released here). */
static void ask_dbd(struct sdb_call *s, uint16_t type, void *q)
{
	const struct rota_type *t = msg_body_type(type);
	struct rota_error err = {""};
	char *path;
	int fd;

	if (!conf_accounting(s->r->conf)) {
		codec_release(t, q);
		fail(s, 500, "Slurm accounting storage is disabled",
		     ESLURM_NOT_SUPPORTED);
		return;
	}
	path = client_dbd_socket_path(s->r->conf);
	fd = net_connect_unix(path, &err);
	free(path);
	if (fd < 0) {
		codec_release(t, q);
		fail(s, 503, "Problem talking to the database: rotadbd cannot be reached",
		     SLURM_ERROR);
		return;
	}
	s->x.conf = s->r->conf;
	s->x.now = time(NULL);
	s->jobs = json_array();
	s->c = conn_create(s->r->base, fd, "rotadbd", dbd_msg, dbd_closed, s);
	conn_set_deadline(s->c, RESTD_CTLD_WAIT, dbd_timeout, s);
	conn_send(s->c, type, q);
	codec_release(t, q);
}

/* ---- accounts, users, associations, QOS (the controller) ---- */

static int assoc_wanted(const struct sdb_call *s, const struct assoc_rec *a)
{
	return (!s->account || !strcmp(s->account, a->account ? a->account : "")) &&
	       (!s->user || !strcmp(s->user, a->user ? a->user : "")) &&
	       (!s->partition || !strcmp(s->partition, a->partition ? a->partition : ""));
}

/* What s asks for of kind (all of it, or the one it names). */
static json_t *all_of(const struct sdb_call *s, enum sdb_what kind,
                      const struct assoc_list_resp *l)
{
	json_t *a = json_array();

	switch (kind) {
	case S_ACCOUNTS:
		for (uint32_t i = 0; i < l->accounts_count; i++)
			if (!*s->name || !strcmp(l->accounts[i].name, s->name))
				json_array_append_new(
				    a, s->enc->account(l, &l->accounts[i]));
		break;
	case S_USERS:
		for (uint32_t i = 0; i < l->users_count; i++)
			if (!*s->name || !strcmp(l->users[i].name, s->name))
				json_array_append_new(a, s->enc->user(l, &l->users[i]));
		break;
	case S_QOS:
		for (uint32_t i = 0; i < l->qos_count; i++)
			if (!*s->name || !strcmp(l->qos[i].name, s->name))
				json_array_append_new(a, s->enc->qos(l, i));
		break;
	default:
		if (s->cluster && strcmp(s->cluster, l->cluster ? l->cluster : ""))
			break;
		for (uint32_t i = 0; i < l->assocs_count; i++)
			if (assoc_wanted(s, &l->assocs[i]))
				json_array_append_new(a, s->enc->assoc(l, &l->assocs[i]));
		break;
	}
	return a;
}

static json_t *tres_kept(const struct conf *conf);

static void assoc_answered(void *arg, int rc, const char *msg, uint16_t type, void **body)
{
	struct sdb_call *s = arg;
	const struct assoc_list_resp *l = *body;
	json_t *doc, *a;

	if (rc || type != MSG_ASSOC_LIST_RESP) {
		fail(s, rc == ESLURM_ACCESS_DENIED ? 403 : 500,
		     msg && *msg ? msg : slurm_strerror(rc ? rc : SLURM_ERROR),
		     rc ? rc : SLURM_ERROR);
		return;
	}
	doc = head(s);
	if (s->what == S_CONFIG) {
		json_object_set_new(doc, "tres", tres_kept(s->r->conf));
		for (int k = S_ACCOUNTS; k <= S_ASSOCS; k++)
			json_object_set_new(doc, kinds[k],
			                    all_of(s, (enum sdb_what)k, l));
		json_object_set_new(doc, "wckeys", json_array());
		if (s->api == API_V44) { /* and the cluster, and no instances */
			json_object_set_new(
			    doc, "clusters",
			    json_pack("[o]", s->enc->cluster(s->r->conf)));
			json_object_set_new(doc, "instances", json_array());
		}
		restd_reply_json(s->req, 200, doc);
		call_free(s);
		return;
	}
	a = all_of(s, s->what, l);
	if (*s->name && !json_array_size(a)) {
		json_decref(a);
		json_decref(doc);
		fail(s, 404,
		     s->what == S_ACCOUNTS ? "Invalid account specified"
		     : s->what == S_USERS  ? "Invalid user specified"
		                           : "Invalid qos specification",
		     s->what == S_ACCOUNTS ? ESLURM_INVALID_ACCOUNT
		     : s->what == S_USERS  ? ESLURM_USER_ID_MISSING
		                           : ESLURM_INVALID_QOS);
		return;
	}
	json_object_set_new(doc, kinds[s->what], a);
	restd_reply_json(s->req, 200, doc);
	call_free(s);
}

/* The TRES accounted: Slurm's own, then AccountingStorageTRES's GRES. */
static json_t *tres_kept(const struct conf *conf)
{
	const char *extra = conf->accounting_storage_tres;
	char *all = xasprintf("cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,"
	                      "pages=0%s%s",
	                      extra ? "," : "", extra ? extra : "");
	json_t *list = sdb_tres_list(all);

	free(all);
	return list;
}

/* GET tres, wckeys (none is kept), clusters, cluster/{name}: from
 * slurm.conf. */
static void reply_conf(struct sdb_call *s, const char *what)
{
	const struct conf *cf = s->r->conf;
	const char *name = cf->cluster_name ? cf->cluster_name : "";
	json_t *doc = head(s), *a;

	if (!strcmp(what, "tres") || !strcmp(what, "wckeys")) {
		/* v0.0.44's list of TRES is "TRES" */
		json_object_set_new(doc,
		                    *what == 't' && s->api == API_V44 ? "TRES" : what,
		                    *what == 't' ? tres_kept(cf) : json_array());
		restd_reply_json(s->req, 200, doc);
		call_free(s);
		return;
	}
	if (*s->name && strcmp(s->name, name)) {
		json_decref(doc);
		fail(s, 404, "Invalid cluster specified", ESLURM_INVALID_ARGUMENT);
		return;
	}
	a = json_pack("[o]", s->enc->cluster(cf));
	json_object_set_new(doc, "clusters", a);
	restd_reply_json(s->req, 200, doc);
	call_free(s);
}

static char *dup_param(const struct evkeyvalq *q, const char *key)
{
	const char *v = evhttp_find_header(q, key);

	return v ? xstrdup(v) : NULL;
}

/* "name" or "": the one thing a path names after its kind ("user/bob"). */
static int one_name(struct sdb_call *s, const char *rest)
{
	if (!*rest || strchr(rest, '/') || strlen(rest) >= sizeof(s->name))
		return -1;
	snprintf(s->name, sizeof(s->name), "%s", rest);
	return 0;
}

void restd_slurmdb(struct restd *r, struct evhttp_request *req, const struct rest_user *u,
                   enum rest_api api, const char *path)
{
	struct sdb_call *s;
	struct evkeyvalq qs = {0};
	const char *query = evhttp_uri_get_query(evhttp_request_get_evhttp_uri(req));
	struct acct_query q = {0};
	const char *why = NULL;
	int code;

	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		if (query && evhttp_parse_query_str(query, &qs) < 0) {
			restd_reply_error(req, 400, "the query string cannot be parsed",
			                  ESLURM_INVALID_ARGUMENT);
			return;
		}
		restd_slurmdb_write(r, req, u, api, path, &qs);
		evhttp_clear_headers(&qs);
		return;
	}
	s = xcalloc(1, sizeof(*s));
	s->r = r;
	s->req = req;
	s->api = api;
	s->enc = &encoders[api];
	s->u = *u;
	s->next = r->sdb_calls;
	if (r->sdb_calls)
		r->sdb_calls->prev = s;
	r->sdb_calls = s;
	if (query && evhttp_parse_query_str(query, &qs) < 0) {
		fail(s, 400, "the query string cannot be parsed",
		     ESLURM_INVALID_ARGUMENT);
		return;
	}
	if (!strcmp(path, "jobs") || !strncmp(path, "job/", 4)) {
		s->what = S_JOBS;
		if (path[3] == '/') {
			char *end;
			unsigned long id = strtoul(path + 4, &end, 10);
			if (end == path + 4 || *end || !id || id >= NO_VAL) {
				evhttp_clear_headers(&qs);
				fail(s, 404, "Invalid job id specified",
				     ESLURM_INVALID_JOB_ID);
				return;
			}
			s->what = S_JOB;
			s->f.exit_code = -1;
			s->f.cpus_max = s->f.nodes_max = UINT32_MAX;
			q.jobs = xcalloc(2, sizeof(char *));
			q.jobs[0] = xasprintf("%lu", id);
		} else if ((code = jobs_query(s, &qs, &q, &why))) {
			evhttp_clear_headers(&qs);
			codec_release(&acct_query_type, &q);
			fail(s, code, why, ESLURM_INVALID_ARGUMENT);
			return;
		}
		evhttp_clear_headers(&qs);
		ask_dbd(s, MSG_ACCT_QUERY, &q);
		return;
	}
	if (!strcmp(path, "diag")) {
		struct empty_msg none = {0};

		evhttp_clear_headers(&qs);
		s->what = S_DIAG;
		ask_dbd(s, MSG_DBD_DIAG_REQ, &none);
		return;
	}
	if (!strcmp(path, "tres") || !strcmp(path, "wckeys") ||
	    !strcmp(path, "clusters") ||
	    (!strncmp(path, "cluster/", 8) && one_name(s, path + 8) == 0)) {
		evhttp_clear_headers(&qs);
		reply_conf(s, path);
		return;
	}
	code = 0;
	if (!strcmp(path, "accounts") || !strcmp(path, "users") || !strcmp(path, "qos"))
		s->what = *path == 'a' ? S_ACCOUNTS : *path == 'u' ? S_USERS : S_QOS;
	else if (!strncmp(path, "account/", 8))
		s->what = S_ACCOUNTS, code = one_name(s, path + 8);
	else if (!strncmp(path, "user/", 5))
		s->what = S_USERS, code = one_name(s, path + 5);
	else if (!strncmp(path, "qos/", 4))
		s->what = S_QOS, code = one_name(s, path + 4);
	else if (!strcmp(path, "associations") || !strcmp(path, "association"))
		s->what = S_ASSOCS;
	else if (!strcmp(path, "config"))
		s->what = S_CONFIG;
	else
		code = -1;
	if (code < 0) {
		evhttp_clear_headers(&qs);
		fail(s, 404, "Unable to find the requested path", ESLURM_NOT_SUPPORTED);
		return;
	}
	s->account = dup_param(&qs, "account");
	s->user = dup_param(&qs, "user");
	s->partition = dup_param(&qs, "partition");
	s->cluster = dup_param(&qs, "cluster");
	evhttp_clear_headers(&qs);
	if (relay_call(r, u, MSG_ASSOC_LIST_REQ, msg_body_new(MSG_ASSOC_LIST_REQ),
	               assoc_answered, s) < 0)
		fail(s, 503, "the controller cannot be reached now", SLURM_ERROR);
}

void restd_slurmdb_stop(struct restd *r)
{
	while (r->sdb_calls)
		fail(r->sdb_calls, 503, "rotarestd is stopping", SLURM_ERROR);
}
