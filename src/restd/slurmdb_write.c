/* slurmdb_write.c - slurmdb's changes, v0.0.38's and v0.0.44's (restd.h):
 * POST accounts,
 * users, associations and qos (each item added, or changed when it is
 * there), DELETE account/{name}, user/{name}, qos/{name} and
 * association[s]?account=&user=&partition=.  Each becomes sacctmgr's
 * requests (MSG_ASSOC_UPDATE: verb, kind, names, where and set words), made
 * one after another as the requesting user, so the controller's rules for
 * sacctmgr hold (operators, coordinators).  Items are applied in order; the
 * first refusal stops the rest and is answered (what came before it stays,
 * unlike Slurm's one transaction).  A v0.0.44 item is first put in
 * v0.0.38's form (its no_val structs as numbers, lists of one word as the
 * word), so that one mapping serves both. */
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/states.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "proto/slurm_json.h"
#include "proto/slurmdb_json.h"
#include "restd/restd.h"
#include "common/common.h"

#define WRITE_MAX_ITEMS 1000

/* One sacctmgr request; ok_nothing: "Nothing new added." (it is there) and
 * "Nothing modified" (it was so already) are not refusals. */
struct wstep {
	struct assoc_update *up;
	int ok_nothing;
};

struct wcall {
	struct restd *r;
	struct evhttp_request *req;
	struct rest_user u;
	enum rest_api api;
	struct wstep *steps;
	size_t n, i;
};

static void wcall_free(struct wcall *w)
{
	for (size_t i = 0; i < w->n; i++)
		msg_body_free(MSG_ASSOC_UPDATE, w->steps[i].up);
	free(w->steps);
	free(w);
}

static void reply(struct wcall *w, int code, const char *msg, int errnum)
{
	json_t *doc = restd_sdb_head(w->r, w->req, &w->u, w->api);

	if (msg)
		restd_sdb_error(doc, w->api, msg, errnum);
	restd_reply_json(w->req, code, doc);
	wcall_free(w);
}

static struct assoc_update *step(struct wcall *w, uint32_t verb, uint32_t kind,
                                 const char *name, int ok_nothing)
{
	struct assoc_update *up = msg_body_new(MSG_ASSOC_UPDATE);

	up->verb = verb;
	up->kind = kind;
	if (name)
		up->names = strv_append(NULL, name);
	w->steps = xrealloc(w->steps, (w->n + 1) * sizeof(*w->steps));
	w->steps[w->n].up = up;
	w->steps[w->n++].ok_nothing = ok_nothing;
	return up;
}

/* The last step is a modify that sets nothing: not made. */
static void drop_if_nothing_set(struct wcall *w)
{
	struct assoc_update *up = w->steps[w->n - 1].up;

	if (up->verb == ASSOC_MODIFY && !up->set) {
		msg_body_free(MSG_ASSOC_UPDATE, up);
		w->n--;
	}
}

static void word(char ***v, const char *key, const char *val)
{
	char *w;

	if (!val || !*val)
		return;
	w = xasprintf("%s=%s", key, val);
	*v = strv_append(*v, w);
	free(w);
}

static void word_num(char ***v, const char *key, json_t *n)
{
	char buf[32];

	if (!json_is_integer(n))
		return;
	snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(n));
	word(v, key, buf);
}

/* A dbv0.0.38_tres_list as "cpu=4,mem=2048,gres/gpu=1". */
static void word_tres(char ***v, const char *key, json_t *list)
{
	size_t i;
	json_t *t;
	char *text = NULL;

	json_array_foreach(list, i, t)
	{
		const char *type = json_string_value(json_object_get(t, "type"));
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *count = json_object_get(t, "count");
		const char *unit;
		long long n;
		char *next;

		if (!type || !json_is_integer(count))
			continue;
		n = json_integer_value(count);
		unit = ""; /* mem is in MB: as sacctmgr writes it */
		if (!strcmp(type, "mem") && n > 0) {
			unit = n % (1 << 20) == 0 ? "T" : n % (1 << 10) == 0 ? "G" : "M";
			n /= *unit == 'T' ? 1 << 20 : *unit == 'G' ? 1 << 10 : 1;
		}
		next = xasprintf("%s%s%s%s%s=%lld%s", text ? text : "", text ? "," : "",
		                 type, name && *name ? "/" : "",
		                 name && *name ? name : "", n, unit);
		free(text);
		text = next;
	}
	word(v, key, text);
	free(text);
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* o's member at a dotted path ("max.tres.total"), or NULL. */
static json_t *at(json_t *o, const char *path)
{
	char **keys = strv_split(path, ".");

	for (size_t i = 0; keys[i] && o; i++)
		o = json_object_get(o, keys[i]);
	strv_free(keys);
	return o;
}

/* An association's limits as sacctmgr's set words. */
static void assoc_limits(char ***set, json_t *a)
{
	json_t *qos = json_object_get(a, "QOS"), *q;
	char *list = NULL;
	size_t i;

	word_num(set, "MaxWall", at(a, "max.jobs.per.wall_clock"));
	word_num(set, "MaxJobs", at(a, "max.jobs.active"));
	word_num(set, "MaxSubmitJobs", at(a, "max.jobs.total"));
	word_num(set, "GrpJobs", at(a, "max.jobs.per.count"));
	word_num(set, "GrpSubmitJobs", at(a, "max.jobs.per.submitted"));
	word_tres(set, "GrpTRESRunMins", at(a, "max.tres.group.active"));
	word_num(set, "GrpWall", at(a, "max.per.account.wall_clock"));
	word_tres(set, "GrpTRES", at(a, "max.tres.total"));
	word_tres(set, "MaxTRES", at(a, "max.tres.per.job"));
	word_tres(set, "MaxTRESPerNode", at(a, "max.tres.per.node"));
	word_tres(set, "MaxTRESMins", at(a, "max.tres.minutes.per.job"));
	word_tres(set, "GrpTRESMins", at(a, "max.tres.minutes.total"));
	word_num(set, "Fairshare", json_object_get(a, "shares_raw"));
	word_num(set, "Priority", json_object_get(a, "priority"));
	word(set, "DefaultQOS", json_string_value(at(a, "default.qos")));
	json_array_foreach(qos, i, q)
	{
		char *next;
		if (!json_is_string(q))
			continue;
		next = xasprintf("%s%s%s", list ? list : "", list ? "," : "",
		                 json_string_value(q));
		free(list);
		list = next;
	}
	word(set, "QOS", list);
	free(list);
}

static int add_account(struct wcall *w, json_t *a, const char **why)
{
	const char *name = str_of(a, "name");
	struct assoc_update *up;

	if (!name || !*name)
		return *why = "an account needs a name", -1;
	up = step(w, ASSOC_ADD, ASSOC_K_ACCOUNT, name, 1);
	word(&up->set, "Description", str_of(a, "description"));
	word(&up->set, "Organization", str_of(a, "organization"));
	up = step(w, ASSOC_MODIFY, ASSOC_K_ACCOUNT, NULL, 1);
	word(&up->where, "name", name);
	word(&up->set, "Description", str_of(a, "description"));
	word(&up->set, "Organization", str_of(a, "organization"));
	drop_if_nothing_set(w);
	return 0;
}

static int add_user(struct wcall *w, json_t *u, const char **why)
{
	const char *name = str_of(u, "name"),
	           *def = json_string_value(at(u, "default.account"));
	const char *admin = str_of(u, "administrator_level");
	struct assoc_update *up;

	if (!name || !*name)
		return *why = "a user needs a name", -1;
	if (admin && !strcmp(admin, "None"))
		admin = NULL;
	if (def && *def) {
		up = step(w, ASSOC_ADD, ASSOC_K_USER, name, 1);
		word(&up->set, "Account", def);
		word(&up->set, "DefaultAccount", def);
		word(&up->set, "AdminLevel", admin);
	}
	up = step(w, ASSOC_MODIFY, ASSOC_K_USER, NULL, 1);
	word(&up->where, "name", name);
	word(&up->set, "DefaultAccount", def);
	word(&up->set, "AdminLevel", admin);
	drop_if_nothing_set(w);
	return 0;
}

static int add_assoc(struct wcall *w, json_t *a, const char **why)
{
	const char *acct = str_of(a, "account"), *user = str_of(a, "user");
	const char *part = str_of(a, "partition"), *parent = str_of(a, "parent_account");
	struct assoc_update *up;

	if (!acct || !*acct)
		return *why = "an association needs an account", -1;
	if (user && *user) {
		up = step(w, ASSOC_ADD, ASSOC_K_USER, user, 1);
		word(&up->set, "Account", acct);
		word(&up->set, "Partition", part);
		up = step(w, ASSOC_MODIFY, ASSOC_K_USER, NULL, 1);
		word(&up->where, "name", user);
		word(&up->where, "account", acct);
		word(&up->where, "partition", part);
	} else {
		up = step(w, ASSOC_ADD, ASSOC_K_ACCOUNT, acct, 1);
		word(&up->set, "Parent", parent);
		up = step(w, ASSOC_MODIFY, ASSOC_K_ACCOUNT, NULL, 1);
		word(&up->where, "name", acct);
	}
	assoc_limits(&up->set, a);
	drop_if_nothing_set(w);
	return 0;
}

static int add_qos(struct wcall *w, json_t *q, const char **why)
{
	const char *name = str_of(q, "name");
	struct assoc_update *up;

	if (!name || !*name)
		return *why = "a QOS needs a name", -1;
	step(w, ASSOC_ADD, ASSOC_K_QOS, name, 1);
	up = step(w, ASSOC_MODIFY, ASSOC_K_QOS, NULL, 1);
	word(&up->where, "name", name);
	word(&up->set, "Description", str_of(q, "description"));
	word_num(&up->set, "Priority", json_object_get(q, "priority"));
	word_num(&up->set, "MaxWall", at(q, "limits.max.wall_clock.per.job"));
	word_num(&up->set, "MaxJobsPerUser",
	         at(q, "limits.max.jobs.active_jobs.per.user"));
	word_num(&up->set, "MaxJobsPerAccount",
	         at(q, "limits.max.jobs.active_jobs.per.account"));
	word_tres(&up->set, "MaxTRES", at(q, "limits.max.tres.per.job"));
	word_tres(&up->set, "MaxTRESPerUser", at(q, "limits.max.tres.per.user"));
	word_tres(&up->set, "MaxTRESPerNode", at(q, "limits.max.tres.per.node"));
	word_tres(&up->set, "GrpTRES", at(q, "limits.max.tres.total"));
	word_num(&up->set, "GrpJobs", at(q, "limits.max.active_jobs.count"));
	word_num(&up->set, "GrpSubmitJobs", at(q, "limits.max.jobs.count"));
	word_num(&up->set, "MaxSubmitJobsPerUser", at(q, "limits.max.jobs.per.user"));
	word_num(&up->set, "MaxSubmitJobsPerAccount",
	         at(q, "limits.max.jobs.per.account"));
	word_num(&up->set, "GrpWall", at(q, "limits.max.wall_clock.per.qos"));
	word_num(&up->set, "GraceTime", at(q, "limits.grace_time"));
	word_tres(&up->set, "MaxTRESPerAccount", at(q, "limits.max.tres.per.account"));
	word_tres(&up->set, "MaxTRESMins", at(q, "limits.max.tres.minutes.per.job"));
	word_tres(&up->set, "GrpTRESMins", at(q, "limits.max.tres.minutes.total"));
	word_tres(&up->set, "MinTRES", at(q, "limits.min.tres.per.job"));
	drop_if_nothing_set(w);
	return 0;
}

static void next(struct wcall *w);

static void step_done(void *arg, int rc, const char *msg, uint16_t type, void **body)
{
	struct wcall *w = arg;
	const struct assoc_update_resp *resp = *body;
	int ok_nothing = w->steps[w->i].ok_nothing;

	if (!rc && type == MSG_ASSOC_UPDATE_RESP && resp->rc) {
		rc = resp->rc < 0 ? -resp->rc : resp->rc;
		msg = resp->text;
	}
	if (rc && !(ok_nothing && msg && !strncmp(msg, "Nothing", 7))) {
		reply(w,
		      rc == ESLURM_ACCESS_DENIED  ? 403
		      : rc == SLURM_ERROR && !msg ? 500
		                                  : 400,
		      msg && *msg ? msg : slurm_strerror(rc), rc);
		return;
	}
	w->i++;
	next(w);
}

static void next(struct wcall *w)
{
	struct assoc_update *up;

	if (w->i == w->n) {
		reply(w, 200, NULL, 0);
		return;
	}
	up = w->steps[w->i].up;
	w->steps[w->i].up = NULL; /* the relay takes it */
	if (relay_call(w->r, &w->u, MSG_ASSOC_UPDATE, up, step_done, w) < 0)
		reply(w, 503, "the controller cannot be reached now", SLURM_ERROR);
}

/* v0.0.44's {"set", "infinite", "number"} under o (in place) as the number,
 * -1 (sacctmgr's "no limit") when infinite, removed when not set. */
static void numbers_of(json_t *o)
{
	const char *key;
	json_t *v, *set;
	void *tmp;

	json_object_foreach_safe(o, tmp, key, v)
	{
		if (!json_is_object(v))
			continue;
		set = json_object_get(v, "set");
		if (!json_is_boolean(set) || !json_object_get(v, "number")) {
			numbers_of(v);
			continue;
		}
		if (json_is_true(json_object_get(v, "infinite")))
			json_object_set_new(o, key, json_integer(-1));
		else if (json_is_true(set))
			json_object_set(o, key, json_object_get(v, "number"));
		else
			json_object_del(o, key);
	}
}

/* o's member at path a moved to path b (dotted; b's objects made). */
static void move(json_t *o, const char *a, const char *b)
{
	json_t *v = json_incref(at(o, a)), *dst = o;
	char **keys;
	size_t i;

	if (!v)
		return;
	keys = strv_split(b, ".");
	for (i = 0; keys[i + 1]; i++) {
		json_t *next = json_object_get(dst, keys[i]);
		if (!json_is_object(next)) {
			next = json_object();
			json_object_set_new(dst, keys[i], next);
		}
		dst = next;
	}
	json_object_set_new(dst, keys[i], v);
	strv_free(keys);
}

/* A v0.0.44 account, user, association or QOS item in v0.0.38's form:
 * numbers as numbers, a user's administrator_level ["Operator"] as
 * "Operator", an association's qos as QOS and its GrpTRESMins where
 * v0.0.38 has it (v0.0.44's max.tres.minutes.total is MaxTRESRunMins,
 * which Rota does not keep). */
static int as_v38(json_t *it, const char **why)
{
	json_t *level = json_object_get(it, "administrator_level");

	numbers_of(it);
	if (json_is_array(level)) {
		if (json_array_size(level) > 1 ||
		    (json_array_size(level) && !json_is_string(json_array_get(level, 0))))
			return *why = "administrator_level: a list of one level", -1;
		if (json_array_size(level))
			json_object_set(it, "administrator_level",
			                json_array_get(level, 0));
		else
			json_object_del(it, "administrator_level");
	}
	if (json_object_get(it, "qos") && !json_object_get(it, "QOS") &&
	    json_is_array(json_object_get(it, "qos")))
		move(it, "qos", "QOS");
	json_object_del(at(it, "max.tres.minutes"), "total");
	move(it, "max.tres.group.minutes", "max.tres.minutes.total");
	return 0;
}

/* POST's body: {key: [items]}, each item turned into steps by add. */
static int post_items(struct wcall *w, const char *key,
                      int (*add)(struct wcall *, json_t *, const char **),
                      const char **why)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(w->req);
	size_t len = evbuffer_get_length(in), i;
	char *text = xmalloc(len + 1);
	json_t *doc, *items, *it;
	int rc = 0;

	evbuffer_copyout(in, text, len);
	text[len] = '\0';
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	free(text);
	items = json_object_get(doc, key);
	if (!json_is_array(items)) {
		json_decref(doc);
		return *why = "the body is not {\"...\": [...]} of the path's kind", -1;
	}
	if (json_array_size(items) > WRITE_MAX_ITEMS) {
		json_decref(doc);
		return *why = "too many items (at most 1000)", -1;
	}
	json_array_foreach(items, i, it) if (!json_is_object(it) ||
	                                     (w->api == API_V44 && as_v38(it, why) < 0) ||
	                                     add(w, it, why) < 0)
	{
		if (!*why)
			*why = "an item is not an object";
		rc = -1;
		break;
	}
	json_decref(doc);
	return rc;
}

void restd_slurmdb_write(struct restd *r, struct evhttp_request *req,
                         const struct rest_user *u, enum rest_api api, const char *path,
                         const struct evkeyvalq *qs)
{
	struct wcall *w = xcalloc(1, sizeof(*w));
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	const char *why = NULL, *user = evhttp_find_header(qs, "user");
	struct assoc_update *up;
	int rc = 0;

	w->r = r;
	w->req = req;
	w->u = *u;
	w->api = api;
	if (cmd == EVHTTP_REQ_POST && !strcmp(path, "accounts"))
		rc = post_items(w, "accounts", add_account, &why);
	else if (cmd == EVHTTP_REQ_POST && !strcmp(path, "users"))
		rc = post_items(w, "users", add_user, &why);
	else if (cmd == EVHTTP_REQ_POST && !strcmp(path, "associations"))
		rc = post_items(w, "associations", add_assoc, &why);
	else if (cmd == EVHTTP_REQ_POST && !strcmp(path, "qos"))
		rc = post_items(w, "qos", add_qos, &why);
	else if (cmd == EVHTTP_REQ_DELETE && !strncmp(path, "account/", 8) && path[8])
		step(w, ASSOC_DELETE, ASSOC_K_ACCOUNT, path + 8, 0);
	else if (cmd == EVHTTP_REQ_DELETE && !strncmp(path, "user/", 5) && path[5])
		step(w, ASSOC_DELETE, ASSOC_K_USER, path + 5, 0);
	else if (cmd == EVHTTP_REQ_DELETE && !strncmp(path, "qos/", 4) && path[4])
		step(w, ASSOC_DELETE, ASSOC_K_QOS, path + 4, 0);
	else if (cmd == EVHTTP_REQ_DELETE &&
	         (!strcmp(path, "association") || !strcmp(path, "associations"))) {
		const char *acct = evhttp_find_header(qs, "account");
		if (!acct || !*acct) {
			why = "account= is needed";
			rc = -1;
		} else if (user && *user) {
			up = step(w, ASSOC_DELETE, ASSOC_K_USER, user, 0);
			word(&up->where, "account", acct);
			word(&up->where, "partition",
			     evhttp_find_header(qs, "partition"));
		} else {
			step(w, ASSOC_DELETE, ASSOC_K_ACCOUNT, acct, 0);
		}
	} else {
		reply(w, 405, "not served on this path", ESLURM_NOT_SUPPORTED);
		return;
	}
	if (rc < 0) {
		reply(w, 400, why, ESLURM_INVALID_ARGUMENT);
		return;
	}
	next(w);
}
