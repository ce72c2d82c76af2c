/* assoc_update.c - sacctmgr's add, modify and delete (MSG_ASSOC_UPDATE):
 * the words are checked here, the change is made as one EV_ASSOC (assoc.h),
 * and the answer lists what changed or says, in Slurm's words, why nothing
 * did.  A request either changes everything it names or nothing. */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ctld/assoc.h"
#include "ctld/assoc_impl.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/journal.h"
#include "ctld/job_event.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "proto/codec.h"
#include "common/common.h"

#define NAME_MAX_LEN 64   /* an account's, user's or QOS's name */
#define VALUE_MAX    1024 /* a value's length */
#define WORDS_MAX    1024 /* names, where and set words of one request */
#define NAMES_MAX    1024 /* the records one request names */
#define WORD_MAX_LEN 4096 /* one word's length */

struct upd {
	struct ctld *ctld;
	struct assoc_mgr *m;
	const struct assoc_update *req;
	char **names; /* the records it is about (lower-case) */
	struct ev_assoc ev;
	char **changed;
	char *text; /* why not */
	int rc;
};

static int fail(struct upd *u, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct upd *u, int rc, const char *fmt, ...)
{
	va_list ap;

	if (u->rc)
		return -1;
	va_start(ap, fmt);
	u->text = xvasprintf(fmt, ap);
	va_end(ap);
	u->rc = rc;
	return -1;
}

static void lower(char *s)
{
	for (; s && *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* "CPU=4,Mem=10G,GRES/GPU=1" -> "cpu=4,mem=10G,gres/gpu=1": the names
 * lower-case, the counts and their units as given (sacctmgr shows them so). */
static void lower_tres_names(char *s)
{
	int in_name = 1;

	for (; s && *s; s++) {
		if (*s == '=')
			in_name = 0;
		else if (*s == ',')
			in_name = 1;
		else if (in_name)
			*s = (char)tolower((unsigned char)*s);
	}
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > NAME_MAX_LEN)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.@", *s))
			return 0;
	return 1;
}

/* ---- the words: Key=Value, Key+=Value, Key-=Value ---- */

struct word {
	char key[64];
	char op; /* '=', '+' or '-' */
	const char *val;
};

static int kv_parse(const char *word, struct word *kv)
{
	const char *eq = strchr(word, '=');
	size_t kl;

	if (!eq || eq == word)
		return -1;
	kl = (size_t)(eq - word);
	kv->op = '=';
	if (eq[-1] == '+' || eq[-1] == '-') {
		kv->op = eq[-1];
		kl--;
	}
	if (!kl || kl >= sizeof(kv->key) || strlen(eq + 1) > VALUE_MAX ||
	    memchr(word, '|', kl)) /* key_is's separator */
		return -1;
	memcpy(kv->key, word, kl);
	kv->key[kl] = '\0';
	lower(kv->key);
	kv->val = eq + 1;
	return 0;
}

/* The value of key in words (the last given), or NULL. */
static const char *word_get(char *const *words, const char *key)
{
	const char *v = NULL;
	struct word kv;

	for (size_t i = 0; words && words[i]; i++)
		if (kv_parse(words[i], &kv) == 0 && !strcmp(kv.key, key))
			v = kv.val;
	return v;
}

/* Is key one of "|a|b|"? */
static int key_is(const char *key, const char *names)
{
	size_t n = strlen(key);

	for (const char *p = strstr(names, key); p; p = strstr(p + 1, key))
		if (p[-1] == '|' && p[n] == '|')
			return 1;
	return 0;
}

/* ---- limits and settings: one table per record kind ---- */

/* SF_TRES1: one TRES of a TRES field, Slurm's older keys (GrpCPUs=3 is
 * GrpTRES=cpu=3, the others kept; -1 takes it out). */
enum skind { SF_U32, SF_WALL, SF_SECS, SF_STR, SF_TRES, SF_LIST, SF_FLOAT, SF_TRES1 };

struct fdef {
	const char *keys; /* "|name|alias|", lower-case */
	enum skind kind;
	size_t off;
	const char *tres; /* SF_TRES1: which */
};

/* Slurm's older keys, each one TRES of a TRES limit: the same in
 * associations and QOS */
#define OLD_TRES_KEYS(X)                                                                 \
	X("|grpcpus|", grp_tres, "cpu")                                                  \
	X("|grpmemory|grpmem|", grp_tres, "mem")                                         \
	X("|grpnodes|", grp_tres, "node")                                                \
	X("|grpcpumins|", grp_tres_mins, "cpu")                                          \
	X("|grpcpurunmins|", grp_tres_run_mins, "cpu")                                   \
	X("|maxcpus|maxcpusperjob|", max_tres, "cpu")                                    \
	X("|maxnodes|maxnodesperjob|", max_tres, "node")                                 \
	X("|maxcpumins|maxcpuminsperjob|", max_tres_mins, "cpu")

#define AF(k, kind, f)                                                                   \
	{                                                                                \
		k, kind, offsetof(struct assoc_rec, f)                                   \
	}
#define AT(k, f, t) {k, SF_TRES1, offsetof(struct assoc_rec, f), t},
static const struct fdef assoc_fields[] = {
    AF("|fairshare|shares|", SF_U32, shares),
    AF("|priority|", SF_U32, priority),
    AF("|grpjobs|", SF_U32, grp_jobs),
    AF("|grpsubmitjobs|grpsubmit|", SF_U32, grp_submit),
    AF("|grpwall|", SF_WALL, grp_wall),
    AF("|maxjobs|", SF_U32, max_jobs),
    AF("|maxsubmitjobs|maxsubmit|", SF_U32, max_submit),
    AF("|maxwall|maxwalldurationperjob|", SF_WALL, max_wall),
    AF("|grptres|", SF_TRES, grp_tres),
    AF("|grptresmins|", SF_TRES, grp_tres_mins),
    AF("|grptresrunmins|", SF_TRES, grp_tres_run_mins),
    AF("|maxtres|maxtresperjob|", SF_TRES, max_tres),
    AF("|maxtrespernode|", SF_TRES, max_tres_per_node),
    AF("|maxtresmins|maxtresminsperjob|", SF_TRES, max_tres_mins),
    AF("|qos|qoslevel|", SF_LIST, qos),
    AF("|defaultqos|defqos|", SF_STR, def_qos),
    OLD_TRES_KEYS(AT)};

#define QF(k, kind, f)                                                                   \
	{                                                                                \
		k, kind, offsetof(struct assoc_qos, f)                                   \
	}
#define QT(k, f, t) {k, SF_TRES1, offsetof(struct assoc_qos, f), t},
static const struct fdef qos_fields[] = {
    QF("|description|", SF_STR, description), QF("|priority|", SF_U32, priority),
    QF("|flags|", SF_STR, flags), QF("|gracetime|", SF_SECS, grace_time),
    QF("|preempt|", SF_LIST, preempt), QF("|preemptmode|", SF_STR, preempt_mode),
    QF("|preemptexempttime|", SF_SECS, preempt_exempt_time),
    QF("|usagefactor|", SF_FLOAT, usage_factor),
    QF("|usagethreshold|usagethres|", SF_FLOAT, usage_thres),
    QF("|grptres|", SF_TRES, grp_tres), QF("|grptresmins|", SF_TRES, grp_tres_mins),
    QF("|grptresrunmins|", SF_TRES, grp_tres_run_mins), QF("|grpjobs|", SF_U32, grp_jobs),
    QF("|grpsubmitjobs|grpsubmit|", SF_U32, grp_submit),
    QF("|grpwall|", SF_WALL, grp_wall), QF("|maxtres|maxtresperjob|", SF_TRES, max_tres),
    QF("|maxtrespernode|", SF_TRES, max_tres_per_node),
    QF("|maxtresmins|maxtresminsperjob|", SF_TRES, max_tres_mins),
    QF("|maxwall|maxwalldurationperjob|", SF_WALL, max_wall),
    QF("|maxtresperuser|maxtrespu|", SF_TRES, max_tres_pu),
    QF("|maxjobsperuser|maxjobspu|", SF_U32, max_jobs_pu),
    QF("|maxsubmitjobsperuser|maxsubmitpu|", SF_U32, max_submit_pu),
    QF("|maxtresperaccount|maxtrespa|", SF_TRES, max_tres_pa),
    QF("|maxjobsperaccount|maxjobspa|", SF_U32, max_jobs_pa),
    QF("|maxsubmitjobsperaccount|maxsubmitpa|", SF_U32, max_submit_pa),
    QF("|mintres|mintresperjob|", SF_TRES, min_tres),
    /* clang-format off */
    OLD_TRES_KEYS(QT)
    QT("|maxcpusperuser|maxcpuspu|", max_tres_pu, "cpu")
    QT("|maxnodesperuser|maxnodespu|", max_tres_pu, "node")
    /* clang-format on */
};

static const struct fdef *field_find(const struct fdef *t, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (key_is(key, t[i].keys))
			return &t[i];
	return NULL;
}

/* "cpu=4,mem=10G,node=2,gres/gpu=1": lower-case names, values as given. */
static int tres_ok(const char *v)
{
	char **items = strv_split(v, ",");
	int ok = items && items[0];

	for (size_t i = 0; ok && items[i]; i++) {
		const char *eq = strchr(items[i], '=');
		ok = eq && eq != items[i] && eq[1];
	}
	strv_free(items);
	return ok;
}

/* name=val into the TRES limit *field, replacing name's (val NULL: name
 * taken out; nothing left: NULL). */
static void tres_put(char **field, const char *name, const char *val)
{
	char **items = strv_split(*field ? *field : "", ",");
	char *out = val ? xasprintf("%s=%s", name, val) : NULL;
	size_t n = strlen(name);

	for (size_t i = 0; items[i]; i++) {
		char *next;
		if (!strncasecmp(items[i], name, n) && items[i][n] == '=')
			continue;
		next = out ? xasprintf("%s,%s", out, items[i]) : xstrdup(items[i]);
		free(out);
		out = next;
	}
	free(*field);
	*field = out;
	strv_free(items);
}

/* rec's field f takes kv (-1 unsets a limit; += and -= change a list). */
static int field_set(struct upd *u, const struct fdef *f, void *rec,
                     const struct word *kv)
{
	char *p = (char *)rec + f->off;
	int unset = !strcmp(kv->val, "-1") || !*kv->val;
	char *end;

	if (kv->op != '=' && f->kind != SF_LIST)
		return fail(u, ESLURM_INVALID_ARGUMENT, "Invalid option: %s%c=", kv->key,
		            kv->op);
	switch (f->kind) {
	case SF_U32:
	case SF_SECS: {
		unsigned long v = unset ? NO_VAL : strtoul(kv->val, &end, 10);
		if (!unset && (*end || v >= NO_VAL || !isdigit((unsigned char)*kv->val)))
			return fail(u, ESLURM_INVALID_ARGUMENT,
			            "Invalid value for %s: %s", kv->key, kv->val);
		*(uint32_t *)p = (uint32_t)v;
		return 0;
	}
	case SF_WALL: {
		uint32_t min = NO_VAL;
		if (!unset &&
		    (timefmt_parse_limit(kv->val, &min) < 0 || min == TIME_INFINITE))
			return fail(u, ESLURM_INVALID_TIME_LIMIT,
			            "Invalid value for %s: %s", kv->key, kv->val);
		*(uint32_t *)p = min;
		return 0;
	}
	case SF_FLOAT: {
		double d = unset ? 0 : strtod(kv->val, &end);
		if (!unset && (*end || d < 0 || d > 1e9))
			return fail(u, ESLURM_INVALID_ARGUMENT,
			            "Invalid value for %s: %s", kv->key, kv->val);
		free(*(char **)p);
		*(char **)p = unset ? NULL : xasprintf("%.6f", d);
		return 0;
	}
	case SF_TRES1:
		if (!unset && strspn(kv->val, "0123456789") != strlen(kv->val))
			return fail(u, ESLURM_INVALID_ARGUMENT,
			            "Invalid value for %s: %s", kv->key, kv->val);
		tres_put((char **)p, f->tres, unset ? NULL : kv->val);
		return 0;
	case SF_TRES:
		if (!unset && !tres_ok(kv->val))
			return fail(u, ESLURM_INVALID_ARGUMENT, "Invalid TRES for %s: %s",
			            kv->key, kv->val);
		/* fallthrough */
	case SF_STR:
		free(*(char **)p);
		*(char **)p = unset ? NULL : xstrdup(kv->val);
		if (f->kind == SF_TRES)
			lower_tres_names(*(char **)p);
		return 0;
	case SF_LIST: {
		char ***v = (char ***)p, **items = strv_split(kv->val, ",");
		if (kv->op == '=') {
			strv_free(*v);
			*v = NULL;
		}
		for (size_t i = 0; items && items[i]; i++) {
			lower(items[i]);
			if (f->off == offsetof(struct assoc_rec, qos) &&
			    !assoc_find_qos(u->m, items[i])) {
				strv_free(items);
				return fail(u, ESLURM_INVALID_QOS,
				            "Invalid qos specification");
			}
			if (kv->op == '-')
				strv_remove(*v, items[i]);
			else if (!strv_has(*v, items[i], 1))
				*v = strv_append(*v, items[i]);
		}
		strv_free(items);
		return 0;
	}
	}
	return 0;
}

/* Apply the set words that table t knows to rec; others are left to the
 * caller (handled: skip those keys). */
/* The keys that name the records an add makes, as Slurm's sacctmgr takes
 * them: Name=, and User= of users, Account= of accounts. */
static const char *add_name_keys(const struct upd *u)
{
	return u->req->kind == ASSOC_K_USER      ? "|name|names|user|users|"
	       : u->req->kind == ASSOC_K_ACCOUNT ? "|name|names|account|accounts|"
	                                         : "|name|names|";
}

static int set_fields(struct upd *u, const struct fdef *t, size_t n, void *rec,
                      const char *handled)
{
	struct word kv;

	for (size_t i = 0; u->req->set && u->req->set[i]; i++) {
		const struct fdef *f;
		if (kv_parse(u->req->set[i], &kv) < 0)
			return fail(u, ESLURM_INVALID_ARGUMENT, "Unknown option: %s",
			            u->req->set[i]);
		if (key_is(kv.key, handled))
			continue;
		/* add ... Name= (User= of a user, Account= of an account): the
		 * names (names_collect) */
		if (u->req->verb == ASSOC_ADD && key_is(kv.key, add_name_keys(u)))
			continue;
		if (!(f = field_find(t, n, kv.key)))
			return fail(u, ESLURM_INVALID_ARGUMENT,
			            "Unknown option: %s\n Use keyword 'where' to modify "
			            "condition",
			            u->req->set[i]);
		if (field_set(u, f, rec, &kv) < 0)
			return -1;
	}
	return 0;
}

#define SET_ASSOC(u, rec, handled)                                                       \
	set_fields(u, assoc_fields, sizeof(assoc_fields) / sizeof(assoc_fields[0]), rec, \
	           handled)

static char **qos_inherited(const struct assoc_mgr *m, const char *account);

/* An inheriting association (no QOS of its own) whose list is changed with
 * += or -= gets the list it inherited first; above: the account it is in
 * (a user's) or its parent (an account's). */
static void qos_before_change(struct upd *u, struct assoc_rec *r)
{
	const char *v = word_get(u->req->set, "qos");
	struct word w;

	if (r->qos && r->qos[0])
		return;
	for (size_t i = 0; !v && u->req->set && u->req->set[i]; i++)
		if (kv_parse(u->req->set[i], &w) == 0 &&
		    key_is(w.key, "|qos|qoslevel|") && w.op != '=')
			v = w.val;
	if (v) {
		strv_free(r->qos);
		r->qos = qos_inherited(u->m, r->user ? r->account : r->parent);
	}
}

/* ---- building the event ---- */

/* Append a copy of rec to a list of the event (*items, *n). */
static void append_copy(const struct rota_type *t, size_t size, void **items, uint32_t *n,
                        const void *rec)
{
	char *slot;

	*items = xrealloc(*items, (*n + 1) * size);
	slot = (char *)*items + *n * size;
	memset(slot, 0, size);
	codec_copy(t, slot, rec);
	(*n)++;
}

#define PUT(u, member, type_, rec)                                                       \
	append_copy(&type_##_type, sizeof(struct type_), (void **)&(u)->ev.member,       \
	            &(u)->ev.member##_count, rec)
#define put_account(u, a) PUT(u, accounts, assoc_account, a)
#define put_user(u, x)    PUT(u, users, assoc_user, x)
#define put_assoc(u, r)   PUT(u, assocs, assoc_rec, r)
#define put_qos(u, q)     PUT(u, qos, assoc_qos, q)

static void del_assoc(struct upd *u, const struct assoc_rec *r)
{
	struct assoc_rec key = {
	    .account = r->account, .user = r->user, .partition = r->partition};

	PUT(u, del_assocs, assoc_rec, &key);
}

static void changed(struct upd *u, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void changed(struct upd *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *line = xvasprintf(fmt, ap);
	va_end(ap);
	u->changed = strv_append(u->changed, line);
	free(line);
}

static const char *assoc_line(const struct upd *u, const struct assoc_rec *r, char *buf,
                              size_t len)
{
	snprintf(buf, len, "C = %-10s A = %-10s U = %-9s%s%s",
	         u->ctld->conf->cluster_name, r->account, r->user ? r->user : "",
	         r->partition ? " P = " : "", r->partition ? r->partition : "");
	return buf;
}

/* The QOS an association has: its own list, else (none: it inherits) the
 * nearest above it.  A list that is += or -= starts from it. */
static char **qos_inherited(const struct assoc_mgr *m, const char *account)
{
	char *const *list = assoc_qos_list(m, assoc_find(m, account, NULL, NULL));

	return list ? strv_dup(list) : NULL;
}

/* ---- accounts ---- */

static int add_accounts(struct upd *u)
{
	const char *parent = word_get(u->req->set, "parent");
	const char *desc = word_get(u->req->set, "description");
	const char *org = word_get(u->req->set, "organization");
	char *par = xstrdup(parent ? parent : "root");

	lower(par);
	if (!assoc_find(u->m, par, NULL, NULL)) {
		free(par);
		return fail(u, ESLURM_INVALID_PARENT_ACCOUNT,
		            "Invalid parent account "
		            "specified");
	}
	for (size_t i = 0; u->names[i]; i++) {
		struct assoc_account a = {.name = u->names[i]};
		struct assoc_rec r;
		if (assoc_find_account(u->m, u->names[i]))
			continue;
		a.description = (char *)(desc ? desc : u->names[i]);
		a.organization = (char *)(org                   ? org
		                          : strcmp(par, "root") ? par
		                                                : u->names[i]);
		assoc_rec_init(&r);
		if (SET_ASSOC(u, &r, "|parent|description|organization|cluster|") == 0) {
			put_account(u, &a);
			r.account = u->names[i];
			r.parent = par;
			put_assoc(u, &r);
			changed(u, "%s", u->names[i]);
		}
		r.account = r.parent = NULL;
		codec_release(&assoc_rec_type, &r);
		if (u->rc)
			break;
	}
	free(par);
	if (!u->rc && !u->changed)
		return fail(u, SLURM_ERROR, "Nothing new added.");
	return u->rc ? -1 : 0;
}

static int where_assoc(const struct upd *u, const struct assoc_rec *r);

/* The set words (but handled's) applied to association cr, said as changed. */
static int assoc_set_one(struct upd *u, const struct assoc_rec *cr, const char *handled)
{
	struct assoc_rec r = {0};
	char buf[256];

	codec_copy(&assoc_rec_type, &r, cr);
	qos_before_change(u, &r);
	if (SET_ASSOC(u, &r, handled) == 0) {
		put_assoc(u, &r);
		changed(u, "%s", assoc_line(u, &r, buf, sizeof(buf)));
	}
	codec_release(&assoc_rec_type, &r);
	return u->rc ? -1 : 0;
}

/* modify account A where user=U set ...: the users' associations in A. */
static int modify_account_users(struct upd *u, const char *users)
{
	char **l = strv_split(users, ",");

	for (size_t k = 0; !u->rc && k < u->m->nassocs; k++) {
		const struct assoc_rec *cr = &u->m->assocs[k];
		if (cr->user && strv_has(l, cr->user, 1) &&
		    strv_has(u->names, cr->account, 1) && where_assoc(u, cr))
			assoc_set_one(u, cr, "|description|organization|");
	}
	strv_free(l);
	return u->rc ? -1 : 0;
}

static int modify_accounts(struct upd *u)
{
	const char *parent = word_get(u->req->set, "parent");
	const char *users = word_get(u->req->where, "user");
	int limits = 0;
	struct word kv;
	char buf[256];

	if (users || (users = word_get(u->req->where, "users")))
		return modify_account_users(u, users);
	for (size_t i = 0; u->req->set && u->req->set[i]; i++)
		if (kv_parse(u->req->set[i], &kv) == 0 &&
		    !key_is(kv.key, "|description|organization|"))
			limits = 1;
	for (size_t i = 0; u->names[i]; i++) {
		const struct assoc_account *cur = assoc_find_account(u->m, u->names[i]);
		const struct assoc_rec *cr = assoc_find(u->m, u->names[i], NULL, NULL);
		struct assoc_account a = {0};
		struct assoc_rec r = {0};
		const char *d, *o;
		if (!cur || !cr)
			continue;
		codec_copy(&assoc_account_type, &a, cur);
		codec_copy(&assoc_rec_type, &r, cr);
		if ((d = word_get(u->req->set, "description"))) {
			free(a.description);
			a.description = xstrdup(d);
		}
		if ((o = word_get(u->req->set, "organization"))) {
			free(a.organization);
			a.organization = xstrdup(o);
		}
		if (parent) {
			if (!strcasecmp(u->names[i], "root") ||
			    !assoc_find(u->m, parent, NULL, NULL) ||
			    assoc_below(u->m, parent, u->names[i]))
				fail(u, ESLURM_INVALID_PARENT_ACCOUNT,
				     "Invalid parent account specified");
			free(r.parent);
			r.parent = xstrdup(parent);
			lower(r.parent);
		}
		if (!u->rc) {
			qos_before_change(u, &r);
			SET_ASSOC(u, &r, "|parent|description|organization|");
		}
		if (!u->rc) {
			put_account(u, &a);
			put_assoc(u, &r);
			/* sacctmgr says the accounts and the associations apart */
			if (!limits || word_get(u->req->set, "description") ||
			    word_get(u->req->set, "organization"))
				changed(u, "%s", u->names[i]);
			if (limits)
				changed(u, "%s", assoc_line(u, &r, buf, sizeof(buf)));
		}
		codec_release(&assoc_account_type, &a);
		codec_release(&assoc_rec_type, &r);
		if (u->rc)
			return -1;
	}
	return 0;
}

static int delete_accounts(struct upd *u)
{
	for (size_t i = 0; u->names[i]; i++) {
		const char *a = u->names[i];
		if (!assoc_find_account(u->m, a))
			continue;
		if (!strcasecmp(a, "root"))
			return fail(u, ESLURM_ACCESS_DENIED,
			            "You can't delete the root account");
		for (size_t k = 0; k < u->m->nassocs; k++) {
			const struct assoc_rec *r = &u->m->assocs[k];
			if (!r->user && r->parent && !strcasecmp(r->parent, a) &&
			    !strv_has(u->names, r->account, 1))
				return fail(
				    u, SLURM_ERROR,
				    "Account %s has child account %s: delete or move it "
				    "first",
				    a, r->account);
		}
		for (size_t k = 0; k < u->m->nusers; k++) {
			const struct assoc_user *x = &u->m->users[k];
			if (x->default_account && !strcasecmp(x->default_account, a))
				return fail(u, SLURM_ERROR,
				            "Account %s is the default account of user "
				            "%s: change "
				            "that first",
				            a, x->name);
		}
		u->ev.del_accounts = strv_append(u->ev.del_accounts, a);
		for (size_t k = 0; k < u->m->nassocs; k++)
			if (!strcasecmp(u->m->assocs[k].account, a))
				del_assoc(u, &u->m->assocs[k]);
		changed(u, "%s", a);
	}
	return 0;
}

/* ---- users ---- */

static int admin_parse(const char *v, uint32_t *ret)
{
	if (!strcasecmp(v, "none"))
		*ret = ADMIN_NONE;
	else if (!strcasecmp(v, "operator"))
		*ret = ADMIN_OPERATOR;
	else if (!strcasecmp(v, "admin") || !strcasecmp(v, "administrator"))
		*ret = ADMIN_ADMINISTRATOR;
	else
		return -1;
	return 0;
}

static int add_users(struct upd *u, int is_admin_level_ok)
{
	const char *accts = word_get(u->req->set, "account");
	const char *def = word_get(u->req->set, "defaultaccount");
	const char *part = word_get(u->req->set, "partition");
	const char *admin = word_get(u->req->set, "adminlevel");
	char **list = strv_split(accts ? accts : def ? def : "", ",");
	uint32_t level = ADMIN_NONE;
	char buf[256];

	if (!accts)
		accts = word_get(u->req->set, "accounts");
	if (accts) {
		strv_free(list);
		list = strv_split(accts, ",");
	}
	if (!list || !list[0]) {
		strv_free(list);
		return fail(u, SLURM_ERROR, "Need name of account to add user to.");
	}
	if (admin && admin_parse(admin, &level) < 0) {
		strv_free(list);
		return fail(u, ESLURM_INVALID_ARGUMENT, "Invalid AdminLevel: %s", admin);
	}
	if (level != ADMIN_NONE && !is_admin_level_ok) {
		strv_free(list);
		return fail(u, ESLURM_ACCESS_DENIED,
		            "Only an Administrator may set AdminLevel");
	}
	if (part && !name_ok(part)) {
		strv_free(list);
		return fail(u, ESLURM_INVALID_ARGUMENT, "Invalid partition: %s", part);
	}
	for (size_t k = 0; list[k]; k++) {
		lower(list[k]);
		if (!assoc_find(u->m, list[k], NULL, NULL)) {
			fail(u, ESLURM_INVALID_ACCOUNT, "The account '%s' doesn't exist.",
			     list[k]);
			strv_free(list);
			return -1;
		}
	}
	for (size_t i = 0; !u->rc && u->names[i]; i++) {
		const struct assoc_user *cur = assoc_find_user(u->m, u->names[i]);
		int added = 0;
		for (size_t k = 0; !u->rc && list[k]; k++) {
			struct assoc_rec r;
			if (assoc_find(u->m, list[k], u->names[i], part))
				continue;
			assoc_rec_init(&r);
			if (SET_ASSOC(u, &r,
			              "|account|accounts|defaultaccount|partition|"
			              "adminlevel|cluster|") == 0) {
				r.account = list[k];
				r.user = u->names[i];
				r.partition = (char *)part;
				put_assoc(u, &r);
				changed(u, "%s", assoc_line(u, &r, buf, sizeof(buf)));
				r.account = r.user = r.partition = NULL;
				added = 1;
			}
			codec_release(&assoc_rec_type, &r);
		}
		if (!cur && added) {
			struct assoc_user x = {.name = u->names[i],
			                       .default_account =
			                           (char *)(def ? def : list[0]),
			                       .admin_level = level};
			put_user(u, &x);
			lower(u->ev.users[u->ev.users_count - 1].default_account);
		}
	}
	strv_free(list);
	if (!u->rc && !u->changed)
		return fail(u, SLURM_ERROR, "Nothing new added.");
	return u->rc ? -1 : 0;
}

/* Does the user's association r match the where words (account, partition)? */
static int where_assoc(const struct upd *u, const struct assoc_rec *r)
{
	const char *a = word_get(u->req->where, "account");
	const char *p = word_get(u->req->where, "partition");

	if (!a)
		a = word_get(u->req->where, "accounts");
	if (a) {
		char **l = strv_split(a, ",");
		int in = 0;
		for (size_t i = 0; l && l[i]; i++)
			in |= !strcasecmp(l[i], r->account);
		strv_free(l);
		if (!in)
			return 0;
	}
	return !p || (r->partition && !strcasecmp(p, r->partition));
}

static int modify_users(struct upd *u, int is_admin_level_ok)
{
	const char *def = word_get(u->req->set, "defaultaccount");
	const char *admin = word_get(u->req->set, "adminlevel");
	uint32_t level = 0;
	int limits = 0;
	struct word kv;

	if (admin && admin_parse(admin, &level) < 0)
		return fail(u, ESLURM_INVALID_ARGUMENT, "Invalid AdminLevel: %s", admin);
	if (admin && !is_admin_level_ok)
		return fail(u, ESLURM_ACCESS_DENIED,
		            "Only an Administrator may set "
		            "AdminLevel");
	for (size_t i = 0; u->req->set && u->req->set[i]; i++)
		if (kv_parse(u->req->set[i], &kv) == 0 &&
		    !key_is(kv.key, "|defaultaccount|adminlevel|"))
			limits = 1;
	for (size_t i = 0; u->names[i]; i++) {
		const struct assoc_user *cur = assoc_find_user(u->m, u->names[i]);
		if (!cur)
			continue;
		if (def || admin) {
			struct assoc_user x = {0};
			codec_copy(&assoc_user_type, &x, cur);
			if (def) {
				if (!assoc_exists(u->m, u->names[i], def, NULL)) {
					codec_release(&assoc_user_type, &x);
					return fail(
					    u, ESLURM_INVALID_ACCOUNT,
					    "User %s has no association with account %s",
					    u->names[i], def);
				}
				free(x.default_account);
				x.default_account = xstrdup(def);
				lower(x.default_account);
			}
			if (admin)
				x.admin_level = level;
			put_user(u, &x);
			codec_release(&assoc_user_type, &x);
			changed(u, "%s", u->names[i]);
		}
		for (size_t k = 0; limits && k < u->m->nassocs; k++) {
			const struct assoc_rec *cr = &u->m->assocs[k];
			if (!cr->user || strcasecmp(cr->user, u->names[i]) ||
			    !where_assoc(u, cr))
				continue;
			if (assoc_set_one(u, cr, "|defaultaccount|adminlevel|") < 0)
				return -1;
		}
	}
	return 0;
}

static int delete_users(struct upd *u)
{
	char buf[256];

	for (size_t i = 0; u->names[i]; i++) {
		const struct assoc_user *x = assoc_find_user(u->m, u->names[i]);
		size_t left = 0, gone = 0;
		int def_gone = 0;
		if (!x)
			continue;
		for (size_t k = 0; k < u->m->nassocs; k++) {
			const struct assoc_rec *r = &u->m->assocs[k];
			if (!r->user || strcasecmp(r->user, x->name))
				continue;
			if (!where_assoc(u, r)) {
				left++;
				continue;
			}
			gone++;
			if (x->default_account &&
			    !strcasecmp(r->account, x->default_account))
				def_gone = 1;
			del_assoc(u, r);
			changed(u, "%s", assoc_line(u, r, buf, sizeof(buf)));
		}
		if (!left && !strcasecmp(x->name, "root"))
			return fail(u, ESLURM_ACCESS_DENIED,
			            "You can't delete user root");
		if (left && def_gone)
			return fail(
			    u, SLURM_ERROR,
			    "Can't remove the default account of user %s while others "
			    "remain: set another DefaultAccount first",
			    x->name);
		if (!left)
			u->ev.del_users = strv_append(u->ev.del_users, x->name);
		if (!gone && !left)
			changed(u, "%s", x->name);
	}
	return 0;
}

/* ---- QOS ---- */

#define SET_QOS(u, rec, handled)                                                         \
	set_fields(u, qos_fields, sizeof(qos_fields) / sizeof(qos_fields[0]), rec,       \
	           handled)

static int add_qos(struct upd *u)
{
	for (size_t i = 0; !u->rc && u->names[i]; i++) {
		struct assoc_qos q;
		if (assoc_find_qos(u->m, u->names[i]))
			continue;
		assoc_qos_init(&q);
		q.name = xstrdup(u->names[i]);
		if (SET_QOS(u, &q, "|cluster|") == 0) {
			put_qos(u, &q);
			changed(u, "%s", q.name);
		}
		codec_release(&assoc_qos_type, &q);
	}
	if (!u->rc && !u->changed)
		return fail(u, SLURM_ERROR, "Nothing new added.");
	return u->rc ? -1 : 0;
}

static int modify_qos(struct upd *u)
{
	for (size_t i = 0; !u->rc && u->names[i]; i++) {
		const struct assoc_qos *cur = assoc_find_qos(u->m, u->names[i]);
		struct assoc_qos q = {0};
		if (!cur)
			continue;
		codec_copy(&assoc_qos_type, &q, cur);
		if (SET_QOS(u, &q, "") == 0) {
			put_qos(u, &q);
			changed(u, "%s", q.name);
		}
		codec_release(&assoc_qos_type, &q);
	}
	return u->rc ? -1 : 0;
}

static int delete_qos(struct upd *u)
{
	for (size_t i = 0; u->names[i]; i++) {
		const char *name = u->names[i];
		if (!assoc_find_qos(u->m, name))
			continue;
		for (size_t k = 0; k < u->m->nassocs; k++) {
			const struct assoc_rec *cr = &u->m->assocs[k];
			struct assoc_rec r = {0};
			if (cr->def_qos && !strcasecmp(cr->def_qos, name))
				return fail(
				    u, SLURM_ERROR,
				    "QOS %s is the DefaultQOS of an association: change "
				    "that first",
				    name);
			if (!strv_has(cr->qos, name, 1))
				continue;
			codec_copy(&assoc_rec_type, &r, cr);
			strv_remove(r.qos, name);
			put_assoc(u, &r);
			codec_release(&assoc_rec_type, &r);
		}
		u->ev.del_qos = strv_append(u->ev.del_qos, name);
		changed(u, "%s", name);
	}
	return 0;
}

/* ---- the request ---- */

/* The names it is about: the words without '=' and Name(s)= (User=, Account=
 * for those kinds) of the where words; lower-case, checked. */
/* ---- coordinators ---- */

static int coords_change(struct upd *u, int add)
{
	char **accts = NULL;
	struct word kv;

	for (size_t i = 0; u->req->set && u->req->set[i]; i++)
		if (kv_parse(u->req->set[i], &kv) == 0 &&
		    key_is(kv.key, "|account|accounts|"))
			accts = strv_split(kv.val, ",");
	for (size_t i = 0; !accts && u->req->where && u->req->where[i]; i++)
		if (kv_parse(u->req->where[i], &kv) == 0 &&
		    key_is(kv.key, "|account|accounts|"))
			accts = strv_split(kv.val, ",");
	if (!accts || !accts[0]) {
		strv_free(accts);
		return fail(u, SLURM_ERROR, "You need to specify a list of accounts.");
	}
	for (size_t i = 0; u->names[i]; i++)
		if (!assoc_find_user(u->m, u->names[i])) {
			strv_free(accts);
			return fail(u, ESLURM_INVALID_ARGUMENT, "User %s does not exist.",
			            u->names[i]);
		}
	for (size_t k = 0; !u->rc && accts[k]; k++) {
		const struct assoc_account *cur;
		struct assoc_account a = {0};
		int any = 0;
		lower(accts[k]);
		if (!(cur = assoc_find_account(u->m, accts[k]))) {
			fail(u, ESLURM_INVALID_ACCOUNT, "The account '%s' doesn't exist.",
			     accts[k]);
			break;
		}
		codec_copy(&assoc_account_type, &a, cur);
		for (size_t i = 0; u->names[i]; i++) {
			int has = strv_has(a.coordinators, u->names[i], 1);
			if (add && !has)
				a.coordinators = strv_append(a.coordinators, u->names[i]);
			else if (!add && has)
				strv_remove(a.coordinators, u->names[i]);
			else
				continue;
			any = 1;
			changed(u, "%s(%s)", u->names[i], accts[k]);
		}
		if (any)
			put_account(u, &a);
		codec_release(&assoc_account_type, &a);
	}
	strv_free(accts);
	return u->rc ? -1 : 0;
}

/* (words are at most WORD_MAX_LEN long: the lists stay short) */
static size_t n_names(const struct upd *u)
{
	return strv_len(u->names);
}

static int names_collect(struct upd *u)
{
	const char *keys = u->req->kind == ASSOC_K_USER || u->req->kind == ASSOC_K_COORD
	                       ? "|name|names|user|users|"
	                   : u->req->kind == ASSOC_K_ACCOUNT
	                       ? "|name|names|account|accounts|"
	                       : "|name|names|";
	size_t n = 0;
	struct word kv;

	for (size_t i = 0; u->req->names && u->req->names[i]; i++) {
		char **l = strv_split(u->req->names[i], ",");
		for (size_t k = 0; l[k] && n_names(u) <= NAMES_MAX; k++)
			u->names = strv_append(u->names, l[k]);
		strv_free(l);
	}
	for (size_t i = 0; u->req->where && u->req->where[i]; i++) {
		if (kv_parse(u->req->where[i], &kv) < 0 || !key_is(kv.key, keys))
			continue;
		char **l = strv_split(kv.val, ",");
		for (size_t k = 0; l && l[k] && n_names(u) <= NAMES_MAX; k++)
			u->names = strv_append(u->names, l[k]);
		strv_free(l);
	}
	if (u->req->verb == ASSOC_ADD) /* add user bob Name=... is the same */
		for (size_t i = 0; u->req->set && u->req->set[i]; i++)
			if (kv_parse(u->req->set[i], &kv) == 0 &&
			    key_is(kv.key, add_name_keys(u))) {
				char **l = strv_split(kv.val, ",");
				for (size_t k = 0; l && l[k] && n_names(u) <= NAMES_MAX;
				     k++)
					u->names = strv_append(u->names, l[k]);
				strv_free(l);
			}
	for (size_t i = 0; u->names && u->names[i]; i++, n++) {
		lower(u->names[i]);
		if (!name_ok(u->names[i]))
			return fail(u, ESLURM_INVALID_ARGUMENT, "Invalid name: %s",
			            u->names[i]);
	}
	if (!n)
		return fail(u, SLURM_ERROR, "You need to specify a name.");
	if (n > NAMES_MAX)
		return fail(u, ESLURM_INVALID_ARGUMENT, "Too many names (at most %d)",
		            NAMES_MAX);
	return 0;
}

static uint32_t caller_admin_level(const struct upd *u, const struct caller *who)
{
	char name[256];
	const struct assoc_user *x;

	if (ctld_is_admin(u->ctld, who->uid))
		return ADMIN_ADMINISTRATOR;
	if (uid_to_name(who->uid, name, sizeof(name)) < 0)
		return ADMIN_NONE;
	x = assoc_find_user(u->m, name);
	return x ? x->admin_level : ADMIN_NONE;
}

/* Words a record may hold: bounded, and nothing that would break a dump
 * file's quoting or a listing's line (sacctmgr_dump.c). */
static int words_ok(char *const *w)
{
	for (size_t i = 0; w && w[i]; i++) {
		size_t n = strlen(w[i]);
		if (n > WORD_MAX_LEN)
			return 0;
		for (const unsigned char *p = (const unsigned char *)w[i]; *p; p++)
			if (*p < 0x20 || *p == 0x7f || *p == '\'' || *p == '"')
				return 0;
	}
	return 1;
}

/* Is the caller (not an operator) some account's coordinator?  me: its name. */
static int caller_coord(const struct upd *u, const struct caller *who, char *me,
                        size_t len)
{
	return uid_to_name(who->uid, me, len) == 0 && assoc_is_coord(u->m, me);
}

/* Resources: added and removed by an administrator, changed by an operator
 * too (as slurmdbd). */
static void res_update(struct upd *u, uint32_t level)
{
	char *text = NULL;
	int rc = 0;

	if (level < (u->req->verb == ASSOC_MODIFY ? ADMIN_OPERATOR : ADMIN_ADMINISTRATOR))
		fail(u, ESLURM_ACCESS_DENIED,
		     "Your user doesn't have privilege to perform this action");
	else if (assoc_res_update(u->m, u->ctld->conf->cluster_name, u->req, &u->ev,
	                          &u->changed, &rc, &text) < 0)
		fail(u, rc ? rc : SLURM_ERROR, "%s", text ? text : "Not supported");
	free(text);
}

/* The answer waits until the change is on disk: an acknowledged change is
 * never lost to a crash. */
struct update_reply {
	struct chan *ch;
	struct assoc_update_resp resp;
};

static void reply_durable(void *arg, int rc)
{
	struct update_reply *r = arg;

	if (rc < 0) {
		free(r->resp.text);
		strv_free(r->resp.changed);
		r->resp = (struct assoc_update_resp){
		    .rc = ESLURM_WRITING_TO_FILE,
		    .text = xstrdup(slurm_strerror(ESLURM_WRITING_TO_FILE))};
	}
	chan_send(r->ch, MSG_ASSOC_UPDATE_RESP, &r->resp);
	chan_unref(r->ch);
	free(r->resp.text);
	strv_free(r->resp.changed);
	free(r);
}

void assoc_update(struct ctld *ctld, struct caller *who, const struct assoc_update *req,
                  struct chan *ch)
{
	struct upd u = {.ctld = ctld, .m = ctld->assoc, .req = req};
	struct assoc_update_resp resp = {0};
	uint32_t level = caller_admin_level(&u, who);
	char me[256];
	int coord = 0;

	u.ev.type = EV_ASSOC;
	if (strv_len(req->names) + strv_len(req->where) + strv_len(req->set) > WORDS_MAX)
		fail(&u, ESLURM_INVALID_ARGUMENT,
		     "Too many names and options (at most %d)", WORDS_MAX);
	else if (!words_ok(req->names) || !words_ok(req->where) || !words_ok(req->set))
		fail(&u, ESLURM_INVALID_ARGUMENT,
		     "Invalid value: at most %d characters, no quotes or control "
		     "characters",
		     WORD_MAX_LEN);
	else if (level < ADMIN_OPERATOR &&
	         !(coord = caller_coord(&u, who, me, sizeof(me))))
		fail(&u, ESLURM_ACCESS_DENIED,
		     "Your user doesn't have privilege to perform this action");
	else if (req->kind == ASSOC_K_RES)
		res_update(&u, level);
	else if (names_collect(&u) == 0) {
		switch (req->verb * 8 + req->kind) {
		case ASSOC_ADD * 8 + ASSOC_K_ACCOUNT:
			add_accounts(&u);
			break;
		case ASSOC_MODIFY * 8 + ASSOC_K_ACCOUNT:
			modify_accounts(&u);
			break;
		case ASSOC_DELETE * 8 + ASSOC_K_ACCOUNT:
			delete_accounts(&u);
			break;
		case ASSOC_ADD * 8 + ASSOC_K_USER:
			add_users(&u, level >= ADMIN_ADMINISTRATOR);
			break;
		case ASSOC_MODIFY * 8 + ASSOC_K_USER:
			modify_users(&u, level >= ADMIN_ADMINISTRATOR);
			break;
		case ASSOC_DELETE * 8 + ASSOC_K_USER:
			delete_users(&u);
			break;
		case ASSOC_ADD * 8 + ASSOC_K_QOS:
			add_qos(&u);
			break;
		case ASSOC_MODIFY * 8 + ASSOC_K_QOS:
			modify_qos(&u);
			break;
		case ASSOC_DELETE * 8 + ASSOC_K_QOS:
			delete_qos(&u);
			break;
		case ASSOC_ADD * 8 + ASSOC_K_COORD:
		case ASSOC_DELETE * 8 + ASSOC_K_COORD:
			coords_change(&u, req->verb == ASSOC_ADD);
			break;
		default:
			fail(&u, ESLURM_NOT_SUPPORTED, "Not supported");
		}
	}
	/* a coordinator's change: only inside the accounts it coordinates */
	if (!u.rc && coord && !assoc_coord_allows(u.m, &u.ev, me))
		fail(&u, ESLURM_ACCESS_DENIED,
		     "Your user doesn't have privilege to perform this action");
	if (!u.rc && !u.changed)
		fail(&u, SLURM_ERROR, "Nothing %s",
		     req->verb == ASSOC_DELETE ? "deleted" : "modified");
	if (!u.rc && !(req->flags & ASSOC_F_DRY_RUN)) {
		if (ev_assoc_commit(ctld, &u.ev) < 0)
			fail(&u, ESLURM_TRANSITION_STATE_NO_UPDATE, "%s",
			     slurm_strerror(ESLURM_TRANSITION_STATE_NO_UPDATE));
		else
			log_info("sacctmgr by uid %u: %zu records changed",
			         (unsigned)who->uid, strv_len(u.changed));
	}
	resp.rc = u.rc; /* Slurm's number, or SLURM_ERROR */
	resp.text = u.text;
	resp.changed = u.rc ? NULL : u.changed;
	if (!u.rc && !(req->flags & ASSOC_F_DRY_RUN)) {
		struct update_reply *r = xcalloc(1, sizeof(*r));
		r->ch = ch;
		chan_ref(ch);
		r->resp = resp;
		u.text = NULL; /* the reply's now */
		u.changed = NULL;
		journal_when_durable(ctld->journal, reply_durable, r);
	} else {
		chan_send(ch, MSG_ASSOC_UPDATE_RESP, &resp);
	}
	free(u.text);
	strv_free(u.changed);
	strv_free(u.names);
	codec_release(&ev_assoc_type, &u.ev);
}
