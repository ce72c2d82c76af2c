/* assoc_info.c - scontrol show assoc_mgr (MSG_ASSOC_MGR_REQ, assoc.h): the
 * users, associations and QOS the controller holds, each limit with what
 * jobs use of it.
 *
 * DESIGN: nothing is kept for this.  Each request counts the jobs once --
 * pending ones (submitted, and accruing age when limits are enforced) and
 * running or suspended ones (jobs, the TRES they hold, the TRES-minutes left
 * to their time limits) -- for each job's association and every account
 * above it, for its QOS, and in that QOS for its account and its user; the
 * fairshare figures come from fairshare.c.  Then the records the caller may
 * see are lent to the answer in Slurm's order: associations depth-first
 * from root (under each account its users, then its sub-accounts, by name;
 * Lft numbers that walk), users by name, QOS as created.  IDs are positions
 * (root's association is 1, normal is QOS 1): Rota keeps no other.
 *
 * Who sees what is Slurm's rule (assoc_mgr_info_get_pack_msg): everyone
 * everything, unless PrivateData names usage (a user then sees its own
 * associations and those of the accounts it coordinates, and those below)
 * or users (its own user record only); operators and admins see all, and a
 * user the records do not know sees nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "ctld/assoc.h"
#include "ctld/assoc_impl.h"
#include "ctld/assoc_limits.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/fairshare.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "common/billing.h"
#include "common/conf.h"
#include "common/gres_req.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/uid.h"
#include "common/common.h"

#define PRIVATE_USAGE 1u
#define PRIVATE_USERS 2u
#define DEPTH_MAX     1000

/* The TRES every cluster accounts, in Slurm's order (its ids 1 to 8). */
static const char *const base_tres[] = {"cpu",     "mem",     "energy", "node",
                                        "billing", "fs/disk", "vmem",   "pages"};

/* What jobs use of one association's or QOS's limits, or of an account's or
 * a user's in a QOS. */
struct use {
	uint32_t jobs, accrue, submit;
	uint64_t *tres;     /* [ntres]: held by running jobs */
	uint64_t *run_mins; /* [ntres]: TRES-minutes left to their time limits */
};

struct sub_use {
	const char *account; /* borrowed from a job; NULL for a user's */
	uint32_t uid;
	struct use u;
};

struct qos_count {
	struct use u;
	struct sub_use *accts, *users;
	size_t naccts, nusers;
	size_t last_acct, last_user; /* the last found: a user's jobs come together */
};

struct info {
	struct ctld *ctld;
	const struct assoc_mgr *m;
	time_t now;
	char **tres; /* the names, in the answer's order */
	size_t ntres;
	struct use *assoc;     /* [m->nassocs] */
	struct qos_count *qos; /* [m->nqos] */
	uint64_t *job;         /* [ntres]: scratch, one job's */
};

/* Who asks: may it see everything, and its name if not. */
struct viewer {
	unsigned private;
	int admin;
	char name[256];
};

/* ---- the TRES ---- */

static int tres_index(const struct info *in, const char *name)
{
	for (size_t i = 0; i < in->ntres; i++)
		if (!strcasecmp(in->tres[i], name))
			return (int)i;
	return -1;
}

/* The names in a limit ("cpu=4,gres/gpu=1") not yet in *v, added. */
static void names_add(char ***v, const char *limits)
{
	char **items = strv_split(limits ? limits : "", ",");

	for (size_t i = 0; items[i]; i++) {
		char *eq = strchr(items[i], '=');
		if (eq)
			*eq = '\0';
		if (*items[i] && !strv_has(*v, items[i], 1))
			*v = strv_append(*v, items[i]);
	}
	strv_free(items);
}

/* Slurm's eight, AccountingStorageTRES's, then any other a limit names (so
 * that no limit set is hidden). */
static void tres_names(struct info *in)
{
	const struct assoc_mgr *m = in->m;
	char **v = NULL;

	for (size_t i = 0; i < sizeof(base_tres) / sizeof(base_tres[0]); i++)
		v = strv_append(v, base_tres[i]);
	names_add(&v, in->ctld->conf->accounting_storage_tres);
	for (size_t i = 0; i < m->nassocs; i++) {
		const struct assoc_rec *r = &m->assocs[i];
		const char *lim[] = {r->grp_tres,          r->grp_tres_mins,
		                     r->grp_tres_run_mins, r->max_tres,
		                     r->max_tres_per_node, r->max_tres_mins};
		for (size_t k = 0; k < sizeof(lim) / sizeof(lim[0]); k++)
			names_add(&v, lim[k]);
	}
	for (size_t i = 0; i < m->nqos; i++) {
		const struct assoc_qos *q = &m->qos[i];
		const char *lim[] = {
		    q->grp_tres,    q->grp_tres_mins,     q->grp_tres_run_mins,
		    q->max_tres,    q->max_tres_per_node, q->max_tres_mins,
		    q->max_tres_pu, q->max_tres_pa,       q->min_tres};
		for (size_t k = 0; k < sizeof(lim) / sizeof(lim[0]); k++)
			names_add(&v, lim[k]);
	}
	in->tres = v;
	in->ntres = strv_len(v);
}

/* A limit's count: mem in MB (its unit K, M, G, T or P as written), the
 * others as they are; -1 or no number: none. */
static uint64_t limit_value(const char *name, const char *s)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return NO_VAL64;
	v = strtoull(s, &end, 10);
	if (strcasecmp(name, "mem"))
		return v;
	switch (*end) {
	case 'K':
	case 'k':
		return v / 1024;
	case 'G':
	case 'g':
		return v << 10;
	case 'T':
	case 't':
		return v << 20;
	case 'P':
	case 'p':
		return v << 30;
	default:
		return v;
	}
}

/* A TRES line of the answer: each TRES's limit from limits, and used[i]
 * (NULL: 0) of it. */
static void tres_line(const struct info *in, const char *limits, const uint64_t *used,
                      struct tres_use **ret, uint32_t *ret_n)
{
	struct tres_use *v = xcalloc(in->ntres ? in->ntres : 1, sizeof(*v));
	char **items = strv_split(limits ? limits : "", ",");

	for (size_t i = 0; i < in->ntres; i++) {
		v[i].limit = NO_VAL64;
		v[i].used = used ? used[i] : 0;
	}
	for (size_t i = 0; items[i]; i++) {
		char *eq = strchr(items[i], '=');
		int k;
		if (!eq)
			continue;
		*eq = '\0';
		if ((k = tres_index(in, items[i])) >= 0)
			v[k].limit = limit_value(items[i], eq + 1);
	}
	strv_free(items);
	*ret = v;
	*ret_n = (uint32_t)in->ntres;
}

/* ---- counting the jobs ---- */

static void use_init(struct use *u, size_t ntres)
{
	memset(u, 0, sizeof(*u));
	u->tres = xcalloc(2 * (ntres ? ntres : 1), sizeof(*u->tres));
	u->run_mins = u->tres + (ntres ? ntres : 1);
}

static void tres_set(const struct info *in, const char *name, uint64_t n)
{
	int k = tres_index(in, name);

	if (k >= 0)
		in->job[k] = n;
}

/* What running job j holds, into in->job. */
static void job_tres(const struct info *in, const struct job *j)
{
	const struct job_run *run = j->run;
	uint64_t cpus = 0, mem = 0;
	char *gres, **items;

	memset(in->job, 0, (in->ntres ? in->ntres : 1) * sizeof(*in->job));
	for (uint32_t k = 0; k < run->nnodes; k++) {
		cpus += run->cpus[k];
		mem += run->mem[k];
	}
	tres_set(in, "cpu", cpus);
	tres_set(in, "mem", mem);
	tres_set(in, "node", run->nnodes);
	tres_set(in, "billing",
	         conf_billing(in->ctld->conf, j->part ? j->part->cfg->name : NULL,
	                      (uint32_t)cpus, mem, run->nnodes));
	if (!run->gres || !(gres = gres_alloc_tres(run->gres, run->nnodes)))
		return;
	items = strv_split(gres, ",");
	for (size_t i = 0; items[i]; i++) {
		char *eq = strchr(items[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		tres_set(in, items[i], strtoull(eq + 1, NULL, 10));
	}
	strv_free(items);
	free(gres);
}

/* Does pending job j accrue age (Slurm counts it then: limits enforced, not
 * PriorityFlags=ACCRUE_ALWAYS, not held, not waiting for a dependency or
 * its begin time)? */
static int job_accrues(const struct info *in, const struct job *j)
{
	const struct conf *cf = in->ctld->conf;

	if (!(assoc_enforce(cf) & ENFORCE_LIMITS) ||
	    billing_flag(cf->prio_flags, "ACCRUE_ALWAYS"))
		return 0;
	return !j->hold && j->priority && j->reason != WAIT_DEPENDENCY &&
	       j->desc.begin_time <= (int64_t)in->now;
}

struct job_use {
	int running, accrues;
	uint32_t weight;
	double left_mins;
};

static void use_add(const struct info *in, struct use *u, const struct job_use *ju)
{
	u->submit += ju->weight;
	if (ju->accrues)
		u->accrue += ju->weight;
	if (!ju->running)
		return;
	u->jobs++;
	for (size_t i = 0; i < in->ntres; i++) {
		u->tres[i] += in->job[i];
		u->run_mins[i] += (uint64_t)((double)in->job[i] * ju->left_mins);
	}
}

static int sub_is(const struct sub_use *s, const char *account, uint32_t uid)
{
	return account ? s->account && !strcasecmp(s->account, account) : s->uid == uid;
}

/* In a QOS, the record of account (or of uid, account NULL); *last: the
 * one found before, tried first. */
static struct use *sub_of(const struct info *in, struct sub_use **v, size_t *n,
                          size_t *last, const char *account, uint32_t uid)
{
	if (*last < *n && sub_is(&(*v)[*last], account, uid))
		return &(*v)[*last].u;
	for (size_t i = 0; i < *n; i++)
		if (sub_is(&(*v)[i], account, uid)) {
			*last = i;
			return &(*v)[i].u;
		}
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].account = account;
	(*v)[*n].uid = uid;
	use_init(&(*v)[*n].u, in->ntres);
	*last = *n;
	return &(*v)[(*n)++].u;
}

/* What job j uses, counted in QOS q (its own or its partition's). */
static void count_in_qos(struct info *in, const struct job *j, const struct job_use *ju,
                         const struct assoc_qos *q)
{
	struct qos_count *qc = &in->qos[q - in->m->qos];

	use_add(in, &qc->u, ju);
	if (j->desc.account && *j->desc.account)
		use_add(in,
		        sub_of(in, &qc->accts, &qc->naccts, &qc->last_acct,
		               j->desc.account, 0),
		        ju);
	if (j->owner)
		use_add(in,
		        sub_of(in, &qc->users, &qc->nusers, &qc->last_user, NULL,
		               j->owner->uid),
		        ju);
}

static void count_job(struct info *in, const struct job *j, const struct job_use *ju)
{
	const struct assoc_mgr *m = in->m;
	const struct assoc_rec *r =
	    assoc_of_job(m, j->desc.account, j->owner ? j->owner->user : NULL,
	                 j->part ? j->part->cfg->name : NULL);
	const struct assoc_qos *q =
	    assoc_find_qos(m, j->desc.qos && *j->desc.qos ? j->desc.qos
	                      : r                         ? assoc_def_qos(m, r)
	                                                  : "normal");
	/* its partition's QOS counts it too (Slurm's partition QOS), once */
	const struct assoc_qos *pq =
	    j->part && j->part->cfg->qos ? assoc_find_qos(m, j->part->cfg->qos) : NULL;

	for (int depth = 0; r && depth < DEPTH_MAX; depth++, r = assoc_parent(m, r))
		use_add(in, &in->assoc[r - m->assocs], ju);
	if (q)
		count_in_qos(in, j, ju, q);
	if (pq && pq != q)
		count_in_qos(in, j, ju, pq);
}

static void count_jobs(struct info *in)
{
	for (struct job *j = job_first(in->ctld->jobs); j; j = j->next) {
		uint32_t base = j->state & JOB_STATE_BASE;
		struct job_use ju = {.running =
		                         base == JOB_RUNNING || base == JOB_SUSPENDED};
		if (!ju.running && base != JOB_PENDING)
			continue;
		ju.weight = ju.running ? 1 : assoc_limits_job_weight(j);
		ju.accrues = !ju.running && job_accrues(in, j);
		if (ju.running) {
			job_tres(in, j);
			if (j->time_limit != INFINITE32 && j->time_limit != NO_VAL) {
				double end =
				    (double)j->run->start_time + j->time_limit * 60.0;
				ju.left_mins = end > (double)in->now
				                   ? (end - (double)in->now) / 60.0
				                   : 0.0;
			}
		}
		count_job(in, j, &ju);
	}
}

/* ---- the order: Slurm's hierarchy ---- */

struct tree {
	const struct assoc_mgr *m;
	int *parent, *kids;    /* kids: children of i from first[i], count[i] many */
	size_t *first, *count; /* [nassocs] */
	int *order;            /* the walk */
	uint32_t *lft;         /* [nassocs] */
	uint8_t *seen;
	size_t n;
	uint32_t next;
};

/* Among siblings: users first, then by name (a user's or an account's),
 * then partition. */
static int sibling_cmp(const void *a, const void *b, void *arg)
{
	const struct assoc_mgr *m = arg;
	const struct assoc_rec *x = &m->assocs[*(const int *)a];
	const struct assoc_rec *y = &m->assocs[*(const int *)b];
	int c;

	if (!x->user != !y->user)
		return x->user ? -1 : 1;
	if ((c = strcmp(x->user ? x->user : x->account, y->user ? y->user : y->account)))
		return c;
	return strcmp(x->partition ? x->partition : "", y->partition ? y->partition : "");
}

static void walk(struct tree *t, int i, int depth)
{
	if (t->seen[i])
		return;
	t->seen[i] = 1;
	t->order[t->n++] = i;
	t->lft[i] = t->next++;
	for (size_t k = 0; depth < DEPTH_MAX && k < t->count[i]; k++)
		walk(t, t->kids[t->first[i] + k], depth + 1);
	t->next++; /* its rgt */
}

static void tree_build(struct tree *t, const struct assoc_mgr *m)
{
	size_t n = m->nassocs ? m->nassocs : 1, at = 0;

	memset(t, 0, sizeof(*t));
	t->m = m;
	t->parent = xcalloc(n, sizeof(*t->parent));
	t->kids = xcalloc(n, sizeof(*t->kids));
	t->first = xcalloc(n, sizeof(*t->first));
	t->count = xcalloc(n, sizeof(*t->count));
	t->order = xcalloc(n, sizeof(*t->order));
	t->lft = xcalloc(n, sizeof(*t->lft));
	t->seen = xcalloc(n, 1);
	t->next = 1;
	for (size_t i = 0; i < m->nassocs; i++) {
		const struct assoc_rec *p = assoc_parent(m, &m->assocs[i]);
		t->parent[i] = p ? (int)(p - m->assocs) : -1;
		if (p)
			t->count[t->parent[i]]++;
	}
	for (size_t i = 0; i < m->nassocs; i++) {
		t->first[i] = at;
		at += t->count[i];
		t->count[i] = 0;
	}
	for (size_t i = 0; i < m->nassocs; i++)
		if (t->parent[i] >= 0) {
			int p = t->parent[i];
			t->kids[t->first[p] + t->count[p]++] = (int)i;
		}
	for (size_t i = 0; i < m->nassocs; i++)
		if (t->count[i] > 1)
			qsort_r(t->kids + t->first[i], t->count[i], sizeof(int),
			        sibling_cmp, (void *)m);
	for (size_t i = 0; i < m->nassocs; i++) /* root, then any astray */
		if (t->parent[i] < 0 && !strcasecmp(m->assocs[i].account, "root"))
			walk(t, (int)i, 0);
	for (size_t i = 0; i < m->nassocs; i++)
		if (t->parent[i] < 0)
			walk(t, (int)i, 0);
	for (size_t i = 0; i < m->nassocs; i++)
		walk(t, (int)i, 0);
}

static void tree_free(struct tree *t)
{
	free(t->parent);
	free(t->kids);
	free(t->first);
	free(t->count);
	free(t->order);
	free(t->lft);
	free(t->seen);
}

/* ---- who may see what ---- */

static unsigned private_flags(const char *s)
{
	unsigned f = 0;

	if (!s)
		return 0;
	if (strcasestr(s, "usage"))
		f |= PRIVATE_USAGE;
	if (strcasestr(s, "user"))
		f |= PRIVATE_USERS;
	if (strcasestr(s, "all"))
		f |= PRIVATE_USAGE | PRIVATE_USERS;
	return f;
}

/* 0, or -1 for a caller the records do not know while data is private. */
static int viewer_init(const struct info *in, const struct caller *who, struct viewer *v)
{
	const struct assoc_user *u;

	memset(v, 0, sizeof(*v));
	v->private = private_flags(in->ctld->conf->private_data);
	v->admin = 1;
	if (!v->private || caller_is_operator(who))
		return 0;
	if (uid_to_name(who->uid, v->name, sizeof(v->name)) < 0 ||
	    !(u = assoc_find_user(in->m, v->name)))
		return -1;
	v->admin = u->admin_level >= ADMIN_OPERATOR;
	return 0;
}

static int listed(char *const *filter, const char *name)
{
	return !filter || !filter[0] || (name && strv_has(filter, name, 1));
}

static int assoc_shown(const struct info *in, const struct viewer *v,
                       const struct assoc_mgr_req *req, const struct assoc_rec *r)
{
	if ((r->user && !listed(req->users, r->user)) ||
	    !listed(req->accounts, r->account))
		return 0;
	if (v->admin || !(v->private & PRIVATE_USAGE))
		return 1;
	return (r->user && !strcmp(r->user, v->name)) ||
	       assoc_coord_covers(in->m, r->account, v->name);
}

/* ---- the answer ---- */

static uint64_t scaled(double v, double by)
{
	v *= by;
	return v <= 0.0      ? 0
	       : v >= 1.8e19 ? UINT64_C(18000000000000000000)
	                     : (uint64_t)(v + 0.5);
}

static int is_default(const struct assoc_mgr *m, const struct assoc_rec *r)
{
	const char *def = r->user ? assoc_default_account(m, r->user) : NULL;

	if (!def || strcasecmp(def, r->account))
		return 0;
	return !r->partition || !*r->partition ||
	       !assoc_find(m, r->account, r->user, NULL);
}

static void fill_assoc(const struct info *in, const struct tree *t, int i,
                       const uint32_t *level, struct assoc_mgr_assoc *o)
{
	const struct assoc_mgr *m = in->m;
	const struct assoc_rec *r = &m->assocs[i];
	const struct use *u = &in->assoc[i];
	struct fairshare_of fs = {0};
	uint64_t *mins = xcalloc(in->ntres ? in->ntres : 1, sizeof(*mins));
	int k;

	fairshare_get(in->ctld, r, in->now, &fs);
	o->id = (uint32_t)i + 1;
	o->account = (char *)r->account;
	o->user = r->user && *r->user ? (char *)r->user : NULL;
	o->partition = (char *)r->partition;
	o->priority = assoc_priority(m, r);
	if (!o->user && t->parent[i] >= 0) {
		o->parent = (char *)m->assocs[t->parent[i]].account;
		o->parent_id = (uint32_t)t->parent[i] + 1;
	}
	o->lft = t->lft[i];
	o->is_def = is_default(m, r);
	o->shares_raw = r->shares;
	o->shares_norm = scaled(fs.norm_shares, 1e6);
	o->level_shares = t->parent[i] >= 0 ? level[t->parent[i]] : NO_VAL;
	o->fs_factor = scaled(fs.factor, 1e6);
	o->usage_raw = scaled(fs.usage, 100.0);
	o->usage_norm = scaled(fs.norm_usage, 1e6);
	o->usage_efctv = scaled(fs.eff_usage, 1e6);
	o->grp_jobs = r->grp_jobs;
	o->used_jobs = u->jobs;
	o->grp_jobs_accrue = o->max_jobs_accrue = o->min_prio_thresh = NO_VAL;
	o->accrue = u->accrue;
	o->grp_submit = r->grp_submit;
	o->used_submit = u->submit;
	o->grp_wall = r->grp_wall;
	o->max_jobs = r->max_jobs;
	o->max_submit = r->max_submit;
	o->max_wall = r->max_wall;
	/* GrpTRESMins' use: what fairshare keeps, CPU and billing minutes */
	if ((k = tres_index(in, "cpu")) >= 0)
		mins[k] = scaled(fs.cpu_secs, 1.0 / 60);
	if ((k = tres_index(in, "billing")) >= 0)
		mins[k] = scaled(fs.usage, 1.0 / 60);
	tres_line(in, r->grp_tres, u->tres, &o->grp_tres, &o->grp_tres_count);
	tres_line(in, r->grp_tres_mins, mins, &o->grp_tres_mins, &o->grp_tres_mins_count);
	tres_line(in, r->grp_tres_run_mins, u->run_mins, &o->grp_tres_run_mins,
	          &o->grp_tres_run_mins_count);
	tres_line(in, r->max_tres, NULL, &o->max_tres, &o->max_tres_count);
	tres_line(in, r->max_tres_per_node, NULL, &o->max_tres_pn, &o->max_tres_pn_count);
	tres_line(in, r->max_tres_mins, NULL, &o->max_tres_mins, &o->max_tres_mins_count);
	free(mins);
}

static int by_account(const void *a, const void *b)
{
	return strcasecmp(((const struct sub_use *)a)->account,
	                  ((const struct sub_use *)b)->account);
}

static int by_uid(const void *a, const void *b)
{
	uint32_t x = ((const struct sub_use *)a)->uid,
	         y = ((const struct sub_use *)b)->uid;

	return x < y ? -1 : x > y;
}

static void fill_subs(const struct info *in, struct sub_use *v, size_t n,
                      const char *limits, struct qos_used **ret, uint32_t *ret_n)
{
	struct qos_used *o = xcalloc(n ? n : 1, sizeof(*o));

	if (n > 1) /* v may be NULL when there are none */
		qsort(v, n, sizeof(*v), v[0].account ? by_account : by_uid);
	for (size_t i = 0; i < n; i++) {
		o[i].account = (char *)v[i].account;
		o[i].uid = v[i].uid;
		o[i].jobs = v[i].u.jobs;
		o[i].accrue = v[i].u.accrue;
		o[i].submit = v[i].u.submit;
		tres_line(in, limits, v[i].u.tres, &o[i].tres, &o[i].tres_count);
	}
	*ret = o;
	*ret_n = (uint32_t)n;
}

/* "OFF" for the cluster's (Slurm's word for a QOS's own mode unset), else
 * upper-case (caller frees). */
static char *preempt_word(const char *mode)
{
	char *s;

	if (!mode || !*mode || !strcasecmp(mode, "cluster"))
		return xstrdup("OFF");
	s = xstrdup(mode);
	for (char *p = s; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return s;
}

static void fill_qos(const struct info *in, size_t i, struct assoc_mgr_qos *o)
{
	const struct assoc_qos *q = &in->m->qos[i];
	struct qos_count *qc = &in->qos[i];

	o->id = (uint32_t)i + 1;
	o->name = (char *)q->name;
	o->grp_jobs = q->grp_jobs;
	o->used_jobs = qc->u.jobs;
	o->grp_jobs_accrue = o->min_prio_thresh = NO_VAL;
	o->max_jobs_accrue_pa = o->max_jobs_accrue_pu = NO_VAL;
	o->accrue = qc->u.accrue;
	o->grp_submit = q->grp_submit;
	o->used_submit = qc->u.submit;
	o->grp_wall = q->grp_wall;
	o->max_wall = q->max_wall;
	o->preempt_mode = preempt_word(q->preempt_mode);
	o->priority = q->priority;
	o->max_jobs_pa = q->max_jobs_pa;
	o->max_submit_pa = q->max_submit_pa;
	o->max_jobs_pu = q->max_jobs_pu;
	o->max_submit_pu = q->max_submit_pu;
	tres_line(in, q->grp_tres, qc->u.tres, &o->grp_tres, &o->grp_tres_count);
	tres_line(in, q->grp_tres_mins, NULL, &o->grp_tres_mins, &o->grp_tres_mins_count);
	tres_line(in, q->grp_tres_run_mins, qc->u.run_mins, &o->grp_tres_run_mins,
	          &o->grp_tres_run_mins_count);
	tres_line(in, q->max_tres, NULL, &o->max_tres, &o->max_tres_count);
	tres_line(in, q->max_tres_per_node, NULL, &o->max_tres_pn, &o->max_tres_pn_count);
	tres_line(in, q->max_tres_mins, NULL, &o->max_tres_mins, &o->max_tres_mins_count);
	tres_line(in, q->min_tres, NULL, &o->min_tres, &o->min_tres_count);
	fill_subs(in, qc->accts, qc->naccts, q->max_tres_pa, &o->accounts,
	          &o->accounts_count);
	fill_subs(in, qc->users, qc->nusers, q->max_tres_pu, &o->users, &o->users_count);
}

static int user_by_name(const void *a, const void *b)
{
	return strcmp(((const struct assoc_user *)a)->name,
	              ((const struct assoc_user *)b)->name);
}

static void add_assocs(struct info *in, const struct viewer *v,
                       const struct assoc_mgr_req *req, struct assoc_mgr_resp *r)
{
	const struct assoc_mgr *m = in->m;
	uint32_t *level = xcalloc(m->nassocs ? m->nassocs : 1, sizeof(*level));
	struct tree t;

	tree_build(&t, m);
	for (size_t i = 0; i < m->nassocs; i++)
		if (t.parent[i] >= 0)
			level[t.parent[i]] += m->assocs[i].shares;
	r->assocs = xcalloc(t.n ? t.n : 1, sizeof(*r->assocs));
	for (size_t k = 0; k < t.n; k++)
		if (assoc_shown(in, v, req, &m->assocs[t.order[k]]))
			fill_assoc(in, &t, t.order[k], level,
			           &r->assocs[r->assocs_count++]);
	tree_free(&t);
	free(level);
}

#define ASSOC_MGR_FILTER_MAX 1024 /* names in users=, accounts=, qos= */

static void add_qos(struct info *in, const struct assoc_mgr_req *req,
                    struct assoc_mgr_resp *r)
{
	const struct assoc_mgr *m = in->m;
	size_t n = req->qos && req->qos[0] ? strv_len(req->qos) : m->nqos;

	r->qos = xcalloc(n ? n : 1, sizeof(*r->qos));
	if (!req->qos || !req->qos[0]) {
		for (size_t i = 0; i < m->nqos; i++)
			fill_qos(in, i, &r->qos[r->qos_count++]);
		return;
	}
	uint8_t *seen = xcalloc(m->nqos ? m->nqos : 1, 1);
	for (size_t k = 0; req->qos[k]; k++) { /* in the order asked, once */
		const struct assoc_qos *q = assoc_find_qos(m, req->qos[k]);
		if (q && !seen[q - m->qos]) {
			seen[q - m->qos] = 1;
			fill_qos(in, (size_t)(q - m->qos), &r->qos[r->qos_count++]);
		}
	}
	free(seen);
}

static void add_users(const struct info *in, const struct viewer *v,
                      const struct assoc_mgr_req *req, struct assoc_mgr_resp *r)
{
	const struct assoc_mgr *m = in->m;

	r->users = xcalloc(m->nusers ? m->nusers : 1, sizeof(*r->users));
	for (size_t i = 0; i < m->nusers; i++) {
		const struct assoc_user *u = &m->users[i];
		if (!v->admin && (v->private & PRIVATE_USERS) &&
		    strcasecmp(u->name, v->name))
			continue;
		if (listed(req->users, u->name))
			r->users[r->users_count++] = *u; /* lent */
	}
	if (r->users_count > 1)
		qsort(r->users, r->users_count, sizeof(*r->users), user_by_name);
}

static void tres_lines_free(struct tres_use *const *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
}

static void resp_free(struct assoc_mgr_resp *r)
{
	for (uint32_t i = 0; i < r->assocs_count; i++) {
		const struct assoc_mgr_assoc *a = &r->assocs[i];
		struct tres_use *lines[] = {a->grp_tres,          a->grp_tres_mins,
		                            a->grp_tres_run_mins, a->max_tres,
		                            a->max_tres_pn,       a->max_tres_mins};
		tres_lines_free(lines, sizeof(lines) / sizeof(lines[0]));
	}
	for (uint32_t i = 0; i < r->qos_count; i++) {
		const struct assoc_mgr_qos *q = &r->qos[i];
		struct tres_use *lines[] = {
		    q->grp_tres,    q->grp_tres_mins, q->grp_tres_run_mins, q->max_tres,
		    q->max_tres_pn, q->max_tres_mins, q->min_tres};
		tres_lines_free(lines, sizeof(lines) / sizeof(lines[0]));
		for (uint32_t k = 0; k < q->accounts_count; k++)
			free(q->accounts[k].tres);
		for (uint32_t k = 0; k < q->users_count; k++)
			free(q->users[k].tres);
		free(q->accounts);
		free(q->users);
		free(q->preempt_mode);
	}
	free(r->assocs);
	free(r->qos);
	free(r->users);
}

static void info_free(struct info *in)
{
	for (size_t i = 0; i < in->m->nassocs; i++)
		free(in->assoc[i].tres);
	for (size_t i = 0; i < in->m->nqos; i++) {
		struct qos_count *qc = &in->qos[i];
		free(qc->u.tres);
		for (size_t k = 0; k < qc->naccts; k++)
			free(qc->accts[k].u.tres);
		for (size_t k = 0; k < qc->nusers; k++)
			free(qc->users[k].u.tres);
		free(qc->accts);
		free(qc->users);
	}
	free(in->assoc);
	free(in->qos);
	free(in->job);
	strv_free(in->tres);
}

void assoc_info(struct ctld *ctld, struct caller *who, const struct assoc_mgr_req *req,
                struct chan *ch)
{
	const struct assoc_mgr *m = ctld->assoc;
	uint32_t flags = req->flags
	                     ? req->flags
	                     : ASSOC_MGR_F_USERS | ASSOC_MGR_F_ASSOC | ASSOC_MGR_F_QOS;
	struct info in = {.ctld = ctld, .m = m, .now = time(NULL)};
	struct assoc_mgr_resp r = {.cluster = ctld->conf->cluster_name};
	struct viewer v;

	/* each filter is looked through per record: keep them short */
	if (strv_len(req->users) > ASSOC_MGR_FILTER_MAX ||
	    strv_len(req->accounts) > ASSOC_MGR_FILTER_MAX ||
	    strv_len(req->qos) > ASSOC_MGR_FILTER_MAX) {
		chan_send_rc(ch, -ESLURM_INVALID_ARGUMENT, "too many names in a filter");
		return;
	}
	if (viewer_init(&in, who, &v) < 0) {
		chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
		return;
	}
	tres_names(&in);
	in.assoc = xcalloc(m->nassocs ? m->nassocs : 1, sizeof(*in.assoc));
	in.qos = xcalloc(m->nqos ? m->nqos : 1, sizeof(*in.qos));
	in.job = xcalloc(in.ntres ? in.ntres : 1, sizeof(*in.job));
	for (size_t i = 0; i < m->nassocs; i++)
		use_init(&in.assoc[i], in.ntres);
	for (size_t i = 0; i < m->nqos; i++)
		use_init(&in.qos[i].u, in.ntres);
	count_jobs(&in);
	r.tres = in.tres;
	if (flags & ASSOC_MGR_F_ASSOC)
		add_assocs(&in, &v, req, &r);
	if (flags & ASSOC_MGR_F_QOS)
		add_qos(&in, req, &r);
	if (flags & ASSOC_MGR_F_USERS)
		add_users(&in, &v, req, &r);
	chan_send(ch, MSG_ASSOC_MGR_RESP, &r);
	resp_free(&r);
	info_free(&in);
}
