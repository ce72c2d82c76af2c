/* assoc_res.c - sacctmgr add|modify|delete resource (Slurm's remote
 * licenses): a count of name@server, a share of which (PercentAllowed) is
 * given to the cluster, where the scheduler counts it as license
 * "name@server" (assoc_res_licenses).  The words, the checks and the lines
 * printed are those of Slurm 22.05's sacctmgr and slurmdbd; Rota has one
 * cluster, so a resource is given to it or to none. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ctld/assoc.h"
#include "ctld/assoc_impl.h"
#include "ctld/job_event.h"
#include "common/licenses.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/codec.h"
#include "common/common.h"

#define PERCENT_MAX 65534u /* a uint16 that is not NO_VAL16, as Slurm's */

enum res_key {
	K_NONE,
	K_NAME,
	K_CLUSTER,
	K_COUNT,
	K_DESCR,
	K_FLAGS,
	K_SERVER,
	K_SERVER_TYPE,
	K_PERCENT,
	K_TYPE,
	K_ID
};

struct key_def {
	const char *word;
	size_t min; /* letters that name it */
	enum res_key key;
};

/* What a record's words (add; modify's set) may say, tried in this order. */
static const struct key_def rec_keys[] = {
    {"names", 1, K_NAME},
    {"resources", 1, K_NAME},
    {"clusters", 1, K_CLUSTER},
    {"count", 3, K_COUNT},
    {"description", 1, K_DESCR},
    {"flags", 2, K_FLAGS},
    {"server", 1, K_SERVER},
    {"servertype", 1, K_SERVER_TYPE},
    {"percentallowed", 1, K_PERCENT},
    {"type", 1, K_TYPE},
};
/* ... and a condition's (modify's where, delete). */
static const struct key_def cond_keys[] = {
    {"names", 1, K_NAME},
    {"clusters", 1, K_CLUSTER},
    {"descriptions", 1, K_DESCR},
    {"ids", 1, K_ID},
    {"percentallowed", 1, K_PERCENT},
    {"servertype", 7, K_SERVER_TYPE},
    {"server", 2, K_SERVER},
};

/* The words, understood.  Lists are lower-case, as Slurm's database keeps
 * them. */
struct res_words {
	char **names, **clusters, **servers, **server_types, **descrs;
	char *server, *server_type, *descr; /* a record's */
	uint32_t count, percent;            /* NO_VAL: not given */
	int type_set, set;                  /* set: a record's value given */
};

struct res_req {
	const struct assoc_mgr *m;
	const char *cluster; /* ours */
	struct ev_assoc *ev;
	char ***changed;
	int *rc;
	char **text;
};

static int fail(struct res_req *q, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct res_req *q, int rc, const char *fmt, ...)
{
	va_list ap;

	if (*q->text)
		return -1; /* the first reason stands */
	va_start(ap, fmt);
	*q->text = xvasprintf(fmt, ap);
	va_end(ap);
	*q->rc = rc;
	return -1;
}

static void line(struct res_req *q, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void line(struct res_req *q, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	*q->changed = strv_append(*q->changed, s);
	free(s);
}

static void set_str(char **dst, const char *v)
{
	char *old = *dst;

	*dst = v && *v ? xstrdup(v) : NULL;
	free(old);
}

static char *lowered(const char *s)
{
	char *d = xstrdup(s);

	for (char *p = d; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return d;
}

static void list_add(char ***list, const char *csv)
{
	char *low = lowered(csv);
	char **l = strv_split(low, ",");

	for (size_t i = 0; l && l[i]; i++)
		if (*l[i] && !strv_has(*list, l[i], 1))
			*list = strv_append(*list, l[i]);
	strv_free(l);
	free(low);
}

/* A text key: a condition adds to its list (where), a record's value (set)
 * replaces the one given before. */
static void text_key(int rec, char ***list, char **value, const char *v, int *set)
{
	if (!rec) {
		list_add(list, v);
		return;
	}
	free(*value);
	*value = lowered(v);
	*set = 1;
}

static enum res_key key_of(const struct key_def *t, size_t n, const char *k, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (len >= t[i].min && len <= strlen(t[i].word) &&
		    !strncasecmp(k, t[i].word, len))
			return t[i].key;
	return K_NONE;
}

static int uint_parse(const char *v, uint32_t max, uint32_t *ret)
{
	char *end;
	unsigned long long x;

	if (*v < '0' || *v > '9')
		return -1;
	x = strtoull(v, &end, 10);
	if (*end || x > max)
		return -1;
	*ret = (uint32_t)x;
	return 0;
}

/* One key=value of a record (rec) or a condition into w. */
static int word_take(struct res_req *q, struct res_words *w, const char *word, int rec)
{
	const char *eq = strchr(word, '=');
	size_t klen = (size_t)(eq - word);
	enum res_key k =
	    rec ? key_of(rec_keys, sizeof(rec_keys) / sizeof(*rec_keys), word, klen)
	        : key_of(cond_keys, sizeof(cond_keys) / sizeof(*cond_keys), word, klen);
	const char *v = eq + 1;

	if (k == K_NONE && rec)
		return fail(
		    q, SLURM_ERROR,
		    "Unknown option: %s\n Use keyword 'where' to modify condition", word);
	if (k == K_NONE)
		return fail(q, SLURM_ERROR,
		            " Unknown condition: %s\n Use keyword 'set' to modify value",
		            word);
	switch (k) {
	case K_NAME:
		list_add(&w->names, v);
		return 0;
	case K_CLUSTER:
		list_add(&w->clusters, v);
		for (size_t i = 0; w->clusters && w->clusters[i]; i++)
			if (strcasecmp(w->clusters[i], q->cluster))
				return fail(q, SLURM_ERROR,
				            " Need a valid cluster name to "
				            "add a cluster resource.");
		return 0;
	case K_COUNT:
		if (uint_parse(v, NO_VAL - 1, &w->count) < 0)
			return fail(q, SLURM_ERROR, " Bad count value: %s", v);
		w->set = 1;
		return 0;
	case K_DESCR:
		text_key(rec, &w->descrs, &w->descr, v, &w->set);
		return 0;
	case K_SERVER:
		text_key(rec, &w->servers, &w->server, v, &w->set);
		return 0;
	case K_SERVER_TYPE:
		text_key(rec, &w->server_types, &w->server_type, v, &w->set);
		return 0;
	case K_PERCENT:
		if (uint_parse(v, PERCENT_MAX, &w->percent) < 0)
			return fail(q, SLURM_ERROR, " Bad PercentAllowed value: %s", v);
		w->set = 1;
		return 0;
	case K_TYPE:
		if (!*v || strncasecmp(v, "license", strlen(v)))
			return fail(q, SLURM_ERROR,
			            " Unknown resource type: '%s'  Valid resources is "
			            "License.",
			            v);
		w->type_set = 1;
		return 0;
	case K_FLAGS:
		return fail(q, SLURM_ERROR,
		            " Unknown Server Resource flag used in:\n  '%s'", v);
	default: /* Ids=: Rota's resources have none */
		return fail(q, SLURM_ERROR, " Invalid RES ID: %s", v);
	}
}

static int words_take(struct res_req *q, struct res_words *w, char *const *words, int rec)
{
	for (size_t i = 0; words && words[i]; i++)
		if (strchr(words[i], '=') ? word_take(q, w, words[i], rec) < 0
		                          : (list_add(&w->names, words[i]), 0))
			return -1;
	return 0;
}

static void words_release(struct res_words *w)
{
	strv_free(w->names);
	strv_free(w->clusters);
	strv_free(w->servers);
	strv_free(w->server_types);
	strv_free(w->descrs);
	free(w->server);
	free(w->server_type);
	free(w->descr);
}

/* A name the scheduler can count: no separator of a license list, and
 * name@server short enough. */
static int name_ok(const char *name, const char *server)
{
	if (!*name || !*server || strlen(name) + strlen(server) + 2 > LIC_NAME_MAX)
		return 0;
	return !strpbrk(name, ",:*=()@ \t") && !strpbrk(server, ",:*=()@ \t");
}

/* ---- add ---- */

static void settings(struct res_req *q, const struct assoc_res *x, int is_new)
{
	line(q, " Settings");
	if (is_new)
		line(q, "  Name           = %s", x->name);
	line(q, "  Server         = %s", x->server);
	if (is_new) {
		line(q, "  Description    = %s", x->description);
		if (x->server_type)
			line(q, "  ServerType     = %s", x->server_type);
		line(q, "  Count          = %u", x->count);
	}
	line(q, "  Type           = License");
}

static void put(struct res_req *q, const struct assoc_res *x)
{
	struct ev_assoc *ev = q->ev;

	ev->res = xrealloc(ev->res, (ev->res_count + 1) * sizeof(*ev->res));
	memset(&ev->res[ev->res_count], 0, sizeof(*ev->res));
	codec_copy(&assoc_res_type, &ev->res[ev->res_count++], x);
}

static int add_one(struct res_req *q, const struct res_words *w, const char *name,
                   const char *server, int *ret_new)
{
	char *key = xasprintf("%s@%s", name, server);
	const struct assoc_res *cur = assoc_find_res(q->m, key);
	struct assoc_res x = {0};
	int changed = 0, rc = 0;

	free(key);
	if (cur) {
		codec_copy(&assoc_res_type, &x, cur);
	} else if (!w->type_set) {
		return fail(q, SLURM_ERROR,
		            " Need to designate a resource type to initially add '%s'.",
		            name);
	} else if (w->count == NO_VAL) {
		return fail(q, SLURM_ERROR,
		            " Need to designate a resource count to initially add '%s'.",
		            name);
	} else if (!name_ok(name, server)) {
		return fail(q, ESLURM_INVALID_ARGUMENT,
		            " Invalid name: %s@%s (no ',:*=()@' or blanks, at most %d "
		            "characters in all)",
		            name, server, LIC_NAME_MAX - 1);
	} else {
		x.name = xstrdup(name);
		x.server = xstrdup(server);
		x.server_type = w->server_type ? xstrdup(w->server_type) : NULL;
		x.description = xstrdup(w->descr ? w->descr : name);
		x.count = w->count;
		line(q, "  %s@%s", name, server);
		changed = 1;
	}
	if (w->clusters && !x.cluster) {
		uint32_t p = w->percent == NO_VAL ? 0 : w->percent;
		if (p > 100) {
			rc = fail(
			    q, SLURM_ERROR,
			    " Adding this %zu clusters to resource %s@%s at %u%% each , "
			    "with %u%% already used,  would go over 100%%.  Please "
			    "redo your math and resubmit.",
			    strv_len(w->clusters), name, server, p, 0u);
			goto out;
		}
		if (!changed)
			line(q, "  %s@%s", name, server);
		x.cluster = xstrdup(q->cluster);
		x.percent_allowed = p;
		line(q, "   Cluster - %s\t%u%%", q->cluster, p);
		changed = 1;
	}
	if (changed) {
		put(q, &x);
		*ret_new = !cur;
	}
out:
	codec_release(&assoc_res_type, &x);
	return rc;
}

static int res_add(struct res_req *q, const struct assoc_update *req)
{
	struct res_words w = {.count = NO_VAL, .percent = NO_VAL};
	const char *server;
	int last_new = 0, rc = -1;

	if (words_take(q, &w, req->names, 1) < 0 ||
	    words_take(q, &w, req->where, 1) < 0 || words_take(q, &w, req->set, 1) < 0)
		goto out;
	if (!w.names) {
		fail(q, SLURM_ERROR, " Need name of resource to add.");
		goto out;
	}
	server = w.server ? w.server : "slurmdb";
	line(q, " Adding Resource(s)");
	for (size_t i = 0; w.names[i]; i++)
		if (add_one(q, &w, w.names[i], server, &last_new) < 0)
			goto out;
	if (!q->ev->res_count) {
		fail(q, SLURM_ERROR, "Nothing new added.");
		goto out;
	}
	settings(q, &q->ev->res[q->ev->res_count - 1], last_new);
	rc = 0;
out:
	words_release(&w);
	return rc;
}

/* ---- the ones a condition selects ---- */

static int selected(const struct res_words *c, const struct assoc_res *x)
{
	if (c->names && !strv_has(c->names, x->name, 1))
		return 0;
	if (c->servers && !strv_has(c->servers, x->server, 1))
		return 0;
	if (c->server_types && !strv_has(c->server_types, x->server_type, 1))
		return 0;
	if (c->descrs && !strv_has(c->descrs, x->description, 1))
		return 0;
	if (c->percent != NO_VAL && (!x->cluster || x->percent_allowed != c->percent))
		return 0;
	return 1;
}

/* ---- modify ---- */

static int res_modify(struct res_req *q, const struct assoc_update *req)
{
	struct res_words c = {.count = NO_VAL, .percent = NO_VAL};
	struct res_words s = {.count = NO_VAL, .percent = NO_VAL};
	int rc = -1;

	if (words_take(q, &c, req->names, 0) < 0 || words_take(q, &c, req->where, 0) < 0)
		goto out;
	for (size_t i = 0; req->set && req->set[i]; i++) {
		const char *eq = strchr(req->set[i], '=');
		if (eq && key_of(rec_keys, sizeof(rec_keys) / sizeof(*rec_keys),
		                 req->set[i], (size_t)(eq - req->set[i])) == K_CLUSTER) {
			fail(q, SLURM_ERROR, " Can't modify the cluster of an resource");
			goto out;
		}
		if (eq && key_of(rec_keys, sizeof(rec_keys) / sizeof(*rec_keys),
		                 req->set[i], (size_t)(eq - req->set[i])) == K_NAME)
			continue; /* names are not changed */
		if (word_take(q, &s, req->set[i], 1) < 0)
			goto out;
	}
	if (!s.set) {
		fail(q, SLURM_ERROR, " You didn't give me anything to set");
		goto out;
	}
	if (s.count != NO_VAL && c.clusters) {
		fail(q, SLURM_ERROR,
		     "Can't change \"count\" on a cluster-based resource. "
		     "Remove cluster selection.");
		goto out;
	}
	if (s.percent != NO_VAL && !c.clusters) {
		fail(q, SLURM_ERROR,
		     "Can't change \"percentallowed\" without specifying a cluster.");
		goto out;
	}
	line(q, " Modified server resource ...");
	for (size_t i = 0; i < q->m->nres; i++) {
		const struct assoc_res *cur = &q->m->res[i];
		struct assoc_res x = {0};
		if (!selected(&c, cur) || (c.clusters && !cur->cluster))
			continue;
		if (s.percent != NO_VAL && s.percent > 100) {
			fail(q, SLURM_ERROR, /* Slurm's ESLURM_OVER_ALLOCATE */
			     " If change was accepted it would look like this...\n"
			     "  %s@%s\n   Cluster - %s\t %u%%\n   total\t\t%u%%",
			     cur->name, cur->server, cur->cluster, s.percent, s.percent);
			goto out;
		}
		codec_copy(&assoc_res_type, &x, cur);
		if (s.count != NO_VAL)
			x.count = s.count;
		if (s.percent != NO_VAL)
			x.percent_allowed = s.percent;
		if (s.descr)
			set_str(&x.description, s.descr);
		if (s.server_type)
			set_str(&x.server_type, s.server_type);
		if (s.server && strcasecmp(s.server, x.server)) {
			/* the record moves: name@server is its key */
			char *key, *dest = xasprintf("%s@%s", cur->name, s.server);
			int taken = assoc_find_res(q->m, dest) != NULL;
			free(dest);
			if (!name_ok(cur->name, s.server) || taken) {
				codec_release(&assoc_res_type, &x);
				fail(q, SLURM_ERROR,
				     taken ? " Resource %s@%s already exists"
				           : " Invalid resource name %s@%s",
				     cur->name, s.server);
				goto out;
			}
			key = xasprintf("%s@%s", cur->name, cur->server);
			q->ev->del_res = strv_append(q->ev->del_res, key);
			free(key);
			set_str(&x.server, s.server);
		}
		if (!c.clusters)
			line(q, "  %s@%s", cur->name, cur->server);
		if (cur->cluster)
			line(q, "  Cluster - %s\t- %s@%s", cur->cluster, cur->name,
			     cur->server);
		put(q, &x);
		codec_release(&assoc_res_type, &x);
	}
	if (!q->ev->res_count) {
		fail(q, SLURM_ERROR, "Nothing modified");
		goto out;
	}
	rc = 0;
out:
	words_release(&c);
	words_release(&s);
	return rc;
}

/* ---- delete ---- */

static int res_delete(struct res_req *q, const struct assoc_update *req)
{
	struct res_words c = {.count = NO_VAL, .percent = NO_VAL};
	int rc = -1, any = 0;

	if (words_take(q, &c, req->names, 0) < 0 ||
	    words_take(q, &c, req->where, 0) < 0 || words_take(q, &c, req->set, 0) < 0)
		goto out;
	if (!c.names && !c.clusters && !c.servers && !c.server_types && !c.descrs &&
	    c.percent == NO_VAL) {
		fail(q, SLURM_ERROR, " No conditions given to remove, not executing.");
		goto out;
	}
	line(q, " Deleting resource(s)...");
	for (size_t i = 0; i < q->m->nres; i++) {
		const struct assoc_res *cur = &q->m->res[i];
		if (!selected(&c, cur) || (c.clusters && !cur->cluster))
			continue;
		any = 1;
		if (c.clusters) { /* only what the cluster was given */
			struct assoc_res x = {0};
			codec_copy(&assoc_res_type, &x, cur);
			set_str(&x.cluster, NULL);
			x.percent_allowed = 0;
			put(q, &x);
			codec_release(&assoc_res_type, &x);
		} else {
			char *key = xasprintf("%s@%s", cur->name, cur->server);
			q->ev->del_res = strv_append(q->ev->del_res, key);
			free(key);
			line(q, "  %s@%s", cur->name, cur->server);
		}
		if (cur->cluster)
			line(q, "  Cluster - %s\t- %s@%s", cur->cluster, cur->name,
			     cur->server);
	}
	if (!any) {
		fail(q, SLURM_ERROR, "Nothing deleted");
		goto out;
	}
	rc = 0;
out:
	words_release(&c);
	return rc;
}

int assoc_res_update(const struct assoc_mgr *m, const char *cluster,
                     const struct assoc_update *req, struct ev_assoc *ev, char ***changed,
                     int *rc, char **text)
{
	struct res_req q = {m, cluster, ev, changed, rc, text};

	switch (req->verb) {
	case ASSOC_ADD:
		return res_add(&q, req);
	case ASSOC_MODIFY:
		return res_modify(&q, req);
	default:
		return res_delete(&q, req);
	}
}

int assoc_res_licenses(const struct assoc_mgr *m, const char *cluster, struct lic *l,
                       int n)
{
	for (size_t i = 0; i < m->nres && n < LIC_MAX; i++) {
		const struct assoc_res *x = &m->res[i];
		char name[LIC_NAME_MAX];
		int len;

		if (!x->cluster || strcasecmp(x->cluster, cluster))
			continue;
		len = snprintf(name, sizeof(name), "%s@%s", x->name, x->server);
		if (len < 0 || (size_t)len >= sizeof(name) || lic_find(l, n, name) >= 0)
			continue;
		memcpy(l[n].name, name, (size_t)len + 1);
		l[n++].count = (uint32_t)((uint64_t)x->count * x->percent_allowed / 100);
	}
	return n;
}
