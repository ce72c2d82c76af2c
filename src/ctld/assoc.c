/* assoc.c - the records (assoc.h): kept, applied, listed, snapshotted.  The
 * requests that change them are in assoc_update.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ctld/assoc.h"
#include "ctld/assoc_impl.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/fairshare.h"
#include "ctld/job_event.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/uid.h"
#include "proto/codec.h"
#include "common/common.h"

static int same(const char *a, const char *b)
{
	return (!a || !*a) ? (!b || !*b) : (b && !strcasecmp(a, b));
}

void assoc_rec_init(struct assoc_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->shares = 1;
	r->priority = NO_VAL;
	r->grp_jobs = r->grp_submit = r->grp_wall = NO_VAL;
	r->max_jobs = r->max_submit = r->max_wall = NO_VAL;
}

void assoc_qos_init(struct assoc_qos *q)
{
	memset(q, 0, sizeof(*q));
	q->grace_time = 0;
	q->preempt_exempt_time = NO_VAL;
	q->grp_jobs = q->grp_submit = q->grp_wall = NO_VAL;
	q->max_wall = q->max_jobs_pu = q->max_submit_pu = NO_VAL;
	q->max_jobs_pa = q->max_submit_pa = NO_VAL;
	q->preempt_mode = xstrdup("cluster");
	q->usage_factor = xstrdup("1.000000");
}

struct assoc_account *assoc_find_account(const struct assoc_mgr *m, const char *name)
{
	for (size_t i = 0; i < m->naccounts; i++)
		if (same(m->accounts[i].name, name))
			return &m->accounts[i];
	return NULL;
}

struct assoc_user *assoc_find_user(const struct assoc_mgr *m, const char *name)
{
	for (size_t i = 0; i < m->nusers; i++)
		if (same(m->users[i].name, name))
			return &m->users[i];
	return NULL;
}

struct assoc_res *assoc_find_res(const struct assoc_mgr *m, const char *key)
{
	const char *at = key ? strrchr(key, '@') : NULL;

	for (size_t i = 0; at && i < m->nres; i++) {
		struct assoc_res *x = &m->res[i];
		if (strlen(x->name) == (size_t)(at - key) &&
		    !strncasecmp(x->name, key, (size_t)(at - key)) &&
		    !strcasecmp(x->server, at + 1))
			return x;
	}
	return NULL;
}

/* FNV-1a of the three names, lower-cased (the lookup is case-insensitive). */
static uint64_t key_hash(const char *account, const char *user, const char *partition)
{
	const char *parts[3] = {account, user, partition};
	uint64_t h = 1469598103934665603ull;

	for (int k = 0; k < 3; k++) {
		for (const char *p = parts[k]; p && *p; p++) {
			h ^= (unsigned char)tolower((unsigned char)*p);
			h *= 1099511628211ull;
		}
		h ^= 0xff; /* a separator no name has */
		h *= 1099511628211ull;
	}
	return h;
}

static void index_build(struct assoc_mgr *m)
{
	size_t cap = 16;

	while (cap < m->nassocs * 2)
		cap *= 2;
	if (cap != m->index_cap) {
		free(m->index);
		m->index = xmalloc(cap * sizeof(*m->index));
		m->index_cap = cap;
	}
	for (size_t i = 0; i < cap; i++)
		m->index[i] = -1;
	for (size_t i = 0; i < m->nassocs; i++) {
		const struct assoc_rec *r = &m->assocs[i];
		size_t at = key_hash(r->account, r->user, r->partition) & (cap - 1);
		while (m->index[at] >= 0)
			at = (at + 1) & (cap - 1);
		m->index[at] = (int32_t)i;
	}
	m->index_valid = 1;
}

/* Record i was just added: into the index while it is not too full. */
static void index_add(struct assoc_mgr *m, size_t i)
{
	const struct assoc_rec *r = &m->assocs[i];
	size_t at;

	if (!m->index_valid || m->nassocs * 2 > m->index_cap) {
		m->index_valid = 0;
		return;
	}
	at = key_hash(r->account, r->user, r->partition) & (m->index_cap - 1);
	while (m->index[at] >= 0)
		at = (at + 1) & (m->index_cap - 1);
	m->index[at] = (int32_t)i;
}

struct assoc_rec *assoc_find(const struct assoc_mgr *cm, const char *account,
                             const char *user, const char *partition)
{
	/* the index is a cache: building it changes nothing one can see */
	struct assoc_mgr *m = (struct assoc_mgr *)cm;

	if (!m->applying && m->nassocs > 8) {
		size_t at;
		if (!m->index_valid)
			index_build(m);
		at = key_hash(account, user, partition) & (m->index_cap - 1);
		for (; m->index[at] >= 0; at = (at + 1) & (m->index_cap - 1)) {
			struct assoc_rec *r = &m->assocs[m->index[at]];
			if (same(r->account, account) && same(r->user, user) &&
			    same(r->partition, partition))
				return r;
		}
		return NULL;
	}
	for (size_t i = 0; i < m->nassocs; i++) {
		struct assoc_rec *r = &m->assocs[i];
		if (same(r->account, account) && same(r->user, user) &&
		    same(r->partition, partition))
			return r;
	}
	return NULL;
}

struct assoc_qos *assoc_find_qos(const struct assoc_mgr *m, const char *name)
{
	for (size_t i = 0; i < m->nqos; i++)
		if (same(m->qos[i].name, name))
			return &m->qos[i];
	return NULL;
}

/* ---- put and delete: one generic array of codec records ---- */

struct table {
	const struct rota_type *type;
	size_t size;
	void **items;
	size_t *n;
};

static void *item(const struct table *t, size_t i)
{
	return (char *)*t->items + i * t->size;
}

static void table_put(const struct table *t, void *slot, const void *rec)
{
	if (!slot) {
		*t->items = xrealloc(*t->items, (*t->n + 1) * t->size);
		slot = item(t, (*t->n)++);
	} else {
		codec_release(t->type, slot);
	}
	memset(slot, 0, t->size);
	codec_copy(t->type, slot, rec);
}

static void table_del(const struct table *t, void *slot)
{
	size_t i = (size_t)((char *)slot - (char *)*t->items) / t->size;

	codec_release(t->type, slot);
	memmove(slot, item(t, i + 1), (*t->n - i - 1) * t->size);
	(*t->n)--;
}

#define TABLE(m, member, type_)                                                          \
	((struct table){&type_##_type, sizeof(struct type_), (void **)&(m)->member,      \
	                &(m)->n##member})

/* Every record gone (a snapshot brings the whole state; the usage is the
 * snapshot's too, fairshare_restore). */
static void clear_all(struct assoc_mgr *m)
{
	for (size_t i = 0; i < m->naccounts; i++)
		codec_release(&assoc_account_type, &m->accounts[i]);
	for (size_t i = 0; i < m->nusers; i++)
		codec_release(&assoc_user_type, &m->users[i]);
	for (size_t i = 0; i < m->nassocs; i++)
		codec_release(&assoc_rec_type, &m->assocs[i]);
	for (size_t i = 0; i < m->nqos; i++)
		codec_release(&assoc_qos_type, &m->qos[i]);
	for (size_t i = 0; i < m->nres; i++)
		codec_release(&assoc_res_type, &m->res[i]);
	free(m->accounts);
	free(m->users);
	free(m->assocs);
	free(m->qos);
	free(m->res);
	m->res = NULL;
	m->nres = 0;
	m->accounts = NULL;
	m->users = NULL;
	m->assocs = NULL;
	m->qos = NULL;
	m->naccounts = m->nusers = m->nassocs = m->nqos = 0;
	m->index_valid = 0;
}

int assoc_apply(struct assoc_mgr *m, const struct ev_assoc *ev)
{
	struct table ta = TABLE(m, accounts, assoc_account);
	struct table tu = TABLE(m, users, assoc_user);
	struct table tr = TABLE(m, assocs, assoc_rec);
	struct table tq = TABLE(m, qos, assoc_qos);
	struct table ts = TABLE(m, res, assoc_res);
	void *slot;

	if (ev->usage_time) /* a snapshot's: the whole state, not a change */
		clear_all(m);
	m->applying = 1; /* records move: assoc_find searches them all */
	m->index_valid = 0;

	for (size_t i = 0; ev->del_accounts && ev->del_accounts[i]; i++)
		if ((slot = assoc_find_account(m, ev->del_accounts[i])))
			table_del(&ta, slot);
	for (size_t i = 0; ev->del_users && ev->del_users[i]; i++)
		if ((slot = assoc_find_user(m, ev->del_users[i])))
			table_del(&tu, slot);
	for (size_t i = 0; i < ev->del_assocs_count; i++) {
		const struct assoc_rec *r = &ev->del_assocs[i];
		if ((slot = assoc_find(m, r->account, r->user, r->partition)))
			table_del(&tr, slot);
		fairshare_forget(m, r); /* a new one of that name starts afresh */
	}
	for (size_t i = 0; ev->del_qos && ev->del_qos[i]; i++)
		if ((slot = assoc_find_qos(m, ev->del_qos[i])))
			table_del(&tq, slot);
	for (size_t i = 0; ev->del_res && ev->del_res[i]; i++)
		if ((slot = assoc_find_res(m, ev->del_res[i])))
			table_del(&ts, slot);
	for (size_t i = 0; i < ev->accounts_count; i++)
		table_put(&ta, assoc_find_account(m, ev->accounts[i].name),
		          &ev->accounts[i]);
	for (size_t i = 0; i < ev->users_count; i++)
		table_put(&tu, assoc_find_user(m, ev->users[i].name), &ev->users[i]);
	/* from here records are only replaced in place or added at the end:
	 * the index can follow (a snapshot of many is not searched whole for
	 * each) */
	m->applying = 0;
	for (size_t i = 0; i < ev->assocs_count; i++) {
		const struct assoc_rec *r = &ev->assocs[i];
		slot = assoc_find(m, r->account, r->user, r->partition);
		table_put(&tr, slot, r);
		if (!slot)
			index_add(m, m->nassocs - 1);
	}
	for (size_t i = 0; i < ev->qos_count; i++)
		table_put(&tq, assoc_find_qos(m, ev->qos[i].name), &ev->qos[i]);
	for (size_t i = 0; i < ev->res_count; i++) {
		const struct assoc_res *x = &ev->res[i];
		char *key = xasprintf("%s@%s", x->name, x->server);
		table_put(&ts, assoc_find_res(m, key), x);
		free(key);
	}
	fairshare_restore(m, ev);
	m->gen++;
	return 0;
}

/* ---- life ---- */

struct assoc_mgr *assoc_mgr_create(void)
{
	struct assoc_mgr *m = xcalloc(1, sizeof(*m));
	struct assoc_account root = {.name = "root",
	                             .description = "default root account",
	                             .organization = "root"};
	struct assoc_user user = {.name = "root",
	                          .default_account = "root",
	                          .admin_level = ADMIN_ADMINISTRATOR};
	struct assoc_rec r;
	struct assoc_qos q;
	struct ev_assoc ev = {.type = EV_ASSOC};

	assoc_rec_init(&r);
	assoc_qos_init(&q);
	q.name = xstrdup("normal");
	q.description = xstrdup("Normal QOS default");
	ev.accounts = &root;
	ev.accounts_count = 1;
	ev.users = &user;
	ev.users_count = 1;
	ev.qos = &q;
	ev.qos_count = 1;
	ev.assocs = &r;
	ev.assocs_count = 1;
	r.account = "root";
	r.qos = (char *[]){"normal", NULL};
	assoc_apply(m, &ev); /* the account's own */
	r.user = "root";
	assoc_apply(m, &ev); /* and root's in it */
	free(q.name);
	free(q.description);
	free(q.preempt_mode);
	free(q.usage_factor);
	return m;
}

void assoc_mgr_destroy(struct assoc_mgr *m)
{
	if (!m)
		return;
	clear_all(m);
	fairshare_free(m->fs);
	free(m->index);
	free(m);
}

/* ---- what others read ---- */

static void *copy_all(const struct rota_type *t, size_t size, const void *src, size_t n)
{
	char *dst = n ? xcalloc(n, size) : NULL;

	for (size_t i = 0; i < n; i++)
		codec_copy(t, dst + i * size, (const char *)src + i * size);
	return dst;
}

void assoc_snapshot(const struct assoc_mgr *m, struct ev_assoc *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = EV_ASSOC;
	ev->accounts = copy_all(&assoc_account_type, sizeof(*m->accounts), m->accounts,
	                        m->naccounts);
	ev->accounts_count = m->naccounts;
	ev->users = copy_all(&assoc_user_type, sizeof(*m->users), m->users, m->nusers);
	ev->users_count = m->nusers;
	ev->assocs = copy_all(&assoc_rec_type, sizeof(*m->assocs), m->assocs, m->nassocs);
	ev->assocs_count = m->nassocs;
	ev->qos = copy_all(&assoc_qos_type, sizeof(*m->qos), m->qos, m->nqos);
	ev->qos_count = m->nqos;
	ev->res = copy_all(&assoc_res_type, sizeof(*m->res), m->res, m->nres);
	ev->res_count = m->nres;
	fairshare_snapshot(m, ev);
}

void assoc_list(struct ctld *ctld, struct caller *who, struct chan *ch)
{
	const struct assoc_mgr *m = ctld->assoc;
	/* lent, not copied: the answer is encoded before anything changes */
	struct assoc_list_resp r = {.cluster = ctld->conf->cluster_name,
	                            .accounts = m->accounts,
	                            .accounts_count = m->naccounts,
	                            .users = m->users,
	                            .users_count = m->nusers,
	                            .assocs = m->assocs,
	                            .assocs_count = m->nassocs,
	                            .qos = m->qos,
	                            .qos_count = m->nqos,
	                            .res = m->res,
	                            .res_count = m->nres};

	chan_send(ch, MSG_ASSOC_LIST_RESP, &r);
}

const char *assoc_default_account(const struct assoc_mgr *m, const char *user)
{
	const struct assoc_user *u = m && user ? assoc_find_user(m, user) : NULL;

	return u && u->default_account && *u->default_account ? u->default_account : NULL;
}

unsigned assoc_enforce(const struct conf *conf)
{
	char **w;
	unsigned on = 0;

	if (!conf->accounting_storage_enforce)
		return 0;
	w = strv_split(conf->accounting_storage_enforce, ",");
	for (size_t i = 0; w[i]; i++) {
		if (!strcasecmp(w[i], "associations"))
			on |= ENFORCE_ASSOC;
		else if (!strcasecmp(w[i], "limits"))
			on |= ENFORCE_ASSOC | ENFORCE_LIMITS;
		else if (!strcasecmp(w[i], "safe"))
			on |= ENFORCE_ASSOC | ENFORCE_LIMITS | ENFORCE_SAFE;
		else if (!strcasecmp(w[i], "qos"))
			on |= ENFORCE_ASSOC | ENFORCE_QOS;
		else if (!strcasecmp(w[i], "all"))
			on |= ENFORCE_ASSOC | ENFORCE_LIMITS | ENFORCE_QOS | ENFORCE_SAFE;
	}
	strv_free(w);
	return on;
}

int assoc_job_account(const struct ctld *ctld, const char *user, const char *partition,
                      struct job_desc *d)
{
	const char *def;

	if ((!d->account || !*d->account) &&
	    (def = assoc_default_account(ctld->assoc, user))) {
		free(d->account);
		d->account = xstrdup(def);
	}
	if (!(assoc_enforce(ctld->conf) & ENFORCE_ASSOC))
		return 0;
	if (!d->account || !*d->account ||
	    !assoc_exists(ctld->assoc, user, d->account, partition))
		return -ESLURM_INVALID_ACCOUNT;
	return 0;
}

const struct assoc_rec *assoc_parent(const struct assoc_mgr *m, const struct assoc_rec *r)
{
	if (r->user && *r->user)
		return assoc_find(m, r->account, NULL, NULL);
	return r->parent && *r->parent ? assoc_find(m, r->parent, NULL, NULL) : NULL;
}

int assoc_below(const struct assoc_mgr *m, const char *a, const char *top)
{
	for (int depth = 0; a && depth < 1000; depth++) {
		const struct assoc_rec *r = assoc_find(m, a, NULL, NULL);
		if (!strcasecmp(a, top))
			return 1;
		a = r ? r->parent : NULL;
	}
	return 0;
}

char *const *assoc_qos_list(const struct assoc_mgr *m, const struct assoc_rec *r)
{
	for (int depth = 0; r && depth < 1000; depth++, r = assoc_parent(m, r))
		if (r->qos && r->qos[0])
			return r->qos;
	return NULL;
}

const char *assoc_def_qos(const struct assoc_mgr *m, const struct assoc_rec *r)
{
	const struct assoc_rec *top = r;
	char *const *list;

	for (int depth = 0; r && depth < 1000; depth++, r = assoc_parent(m, r))
		if (r->def_qos && *r->def_qos && assoc_find_qos(m, r->def_qos))
			return r->def_qos;
	/* no default: the only QOS it may use, else normal */
	list = assoc_qos_list(m, top);
	if (list && list[0] && !list[1] && assoc_find_qos(m, list[0]))
		return list[0];
	return "normal";
}

uint32_t assoc_qos_priority(const struct assoc_mgr *m, const char *name)
{
	const struct assoc_qos *q = m ? assoc_find_qos(m, name) : NULL;

	return q && q->priority != NO_VAL ? q->priority : 0;
}

const struct assoc_qos *assoc_qos_get(const struct assoc_mgr *m, const char *name)
{
	return m && name ? assoc_find_qos(m, name) : NULL;
}

uint32_t assoc_max_qos_priority(const struct assoc_mgr *m)
{
	uint32_t max = 0;

	for (size_t i = 0; m && i < m->nqos; i++)
		if (m->qos[i].priority != NO_VAL && m->qos[i].priority > max)
			max = m->qos[i].priority;
	return max;
}

uint32_t assoc_priority(const struct assoc_mgr *m, const struct assoc_rec *r)
{
	for (int depth = 0; r && depth < 1000; depth++, r = assoc_parent(m, r))
		if (r->priority != NO_VAL)
			return r->priority;
	return 0;
}

uint32_t assoc_max_priority(const struct assoc_mgr *m)
{
	uint32_t max = 0;

	for (size_t i = 0; m && i < m->nassocs; i++)
		if (m->assocs[i].priority != NO_VAL && m->assocs[i].priority > max)
			max = m->assocs[i].priority;
	return max;
}

const struct assoc_rec *assoc_of_job(const struct assoc_mgr *m, const char *account,
                                     const char *user, const char *partition)
{
	const struct assoc_rec *r;

	if (!m || !account || !*account || !user)
		return NULL;
	r = partition ? assoc_find(m, account, user, partition) : NULL;
	return r ? r : assoc_find(m, account, user, NULL);
}

int assoc_job_qos(const struct ctld *ctld, const char *user, const char *partition,
                  struct job_desc *d)
{
	const struct assoc_mgr *m = ctld->assoc;
	const struct assoc_rec *r = assoc_of_job(m, d->account, user, partition);
	const struct assoc_qos *q;

	if (!d->qos || !*d->qos) {
		free(d->qos);
		d->qos = xstrdup(r ? assoc_def_qos(m, r) : "normal");
		/* with qos enforced, a default the association may not use is no
		 * QOS at all (as Slurm refuses it) */
		if ((assoc_enforce(ctld->conf) & ENFORCE_QOS) && r) {
			char *const *list = assoc_qos_list(m, r);
			if (list && !strv_has(list, d->qos, 1))
				return -ESLURM_INVALID_QOS;
		}
		return 0;
	}
	if (!(q = assoc_find_qos(m, d->qos)))
		return -ESLURM_INVALID_QOS;
	if (strcmp(d->qos, q->name)) { /* the name as it was created */
		free(d->qos);
		d->qos = xstrdup(q->name);
	}
	/* with qos enforced, only a QOS of the association (or above it) */
	if ((assoc_enforce(ctld->conf) & ENFORCE_QOS) && r) {
		char *const *list = assoc_qos_list(m, r);
		if (!list || !strv_has(list, q->name, 1))
			return -ESLURM_INVALID_QOS;
	}
	return 0;
}

int assoc_exists(const struct assoc_mgr *m, const char *user, const char *account,
                 const char *partition)
{
	return m && (assoc_find(m, account, user, partition) ||
	             (partition && assoc_find(m, account, user, NULL)));
}
