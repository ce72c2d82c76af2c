/* fairshare.c - usage, its decay, and the fairshare factor (fairshare.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/billing.h"
#include "common/conf.h"
#include "ctld/assoc.h"
#include "ctld/assoc_impl.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/fairshare.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "common/strv.h"
#include "proto/codec.h"
#include "common/common.h"

#define LN2       0.69314718055994530942
#define LEVEL_INF 1e300 /* Level FS of an association without usage */

/* A user association's usage (billing-seconds) as of fs->at. */
struct fs_use {
	char *account, *user, *partition;
	double raw, cpu; /* billing-seconds; CPU-seconds (GrpTRESMins=cpu) */
};

/* What compute() found for association i. */
struct fs_calc {
	int parent; /* -1: root (or detached) */
	uint32_t depth;
	double own, usage; /* its own usage; with everything below it */
	double cpu_secs;   /* CPU-seconds, with everything below it */
	double norm_shares, eff_usage, norm_usage, level_fs, factor;
	double run_cpu_mins, run_billing_mins;
};

struct fairshare {
	struct fs_use *use;
	size_t nuse, cap;
	time_t at;        /* the usages are decayed to this time */
	uint64_t use_gen; /* bumped by every charge */
	/* the last computation, valid for (assoc gen, use_gen, second) */
	struct fs_calc *calc;
	size_t ncalc;
	uint64_t calc_gen, calc_use_gen;
	time_t calc_at;
	int calc_valid;
	uint32_t nusers; /* user associations ranked */
};

static struct fairshare *fs_of(struct assoc_mgr *m)
{
	if (!m->fs)
		m->fs = xcalloc(1, sizeof(*m->fs));
	return m->fs;
}

void fairshare_free(struct fairshare *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->nuse; i++) {
		free(fs->use[i].account);
		free(fs->use[i].user);
		free(fs->use[i].partition);
	}
	free(fs->use);
	free(fs->calc);
	free(fs);
}

/* ---- decay ---- */

/* 2^-x for x >= 0 (no libm: every process links libc only). */
static double pow2_neg(double x)
{
	double r = 1.0, y, term = 1.0, sum = 1.0;

	if (x <= 0.0)
		return 1.0;
	if (x > 1100.0)
		return 0.0;
	while (x >= 1.0) {
		r *= 0.5;
		x -= 1.0;
	}
	y = -x * LN2;
	for (int k = 1; k < 24; k++) {
		term *= y / k;
		sum += term;
	}
	return r * sum;
}

/* The last PriorityUsageResetPeriod boundary at or before t (local time, as
 * Slurm), or 0 for none. */
static time_t reset_before(const char *period, time_t t)
{
	struct tm tm;

	if (!period || !strcasecmp(period, "NONE") || !strcasecmp(period, "NOW"))
		return 0;
	localtime_r(&t, &tm);
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_isdst = -1;
	if (!strcasecmp(period, "WEEKLY")) {
		tm.tm_mday -= tm.tm_wday; /* Sunday */
	} else if (!strcasecmp(period, "MONTHLY")) {
		tm.tm_mday = 1;
	} else if (!strcasecmp(period, "QUARTERLY")) {
		tm.tm_mday = 1;
		tm.tm_mon -= tm.tm_mon % 3;
	} else if (!strcasecmp(period, "YEARLY")) {
		tm.tm_mday = 1;
		tm.tm_mon = 0;
	} else if (strcasecmp(period, "DAILY")) {
		return 0;
	}
	return mktime(&tm);
}

/* What usage stored as of fs->at is worth at t. */
static double decay_factor(const struct fairshare *fs, const struct conf *cf, time_t t)
{
	time_t r;

	if (!fs->at || t <= fs->at)
		return 1.0;
	r = reset_before(cf->prio_usage_reset, t);
	if (r && fs->at < r)
		return 0.0;
	if (!cf->prio_decay_half_life)
		return 1.0;
	return pow2_neg((double)(t - fs->at) / (cf->prio_decay_half_life * 60.0));
}

static void decay_to(struct fairshare *fs, const struct conf *cf, time_t t)
{
	double f = decay_factor(fs, cf, t);

	if (f != 1.0)
		for (size_t i = 0; i < fs->nuse; i++) {
			fs->use[i].raw *= f;
			fs->use[i].cpu *= f;
		}
	if (t > fs->at)
		fs->at = t;
}

static int same(const char *a, const char *b)
{
	return (!a || !*a) ? (!b || !*b) : (b && !strcasecmp(a, b));
}

static struct fs_use *use_add(struct fairshare *fs, const struct assoc_rec *r)
{
	struct fs_use *u;

	if (fs->nuse == fs->cap) {
		fs->cap = fs->cap ? fs->cap * 2 : 16;
		fs->use = xrealloc(fs->use, fs->cap * sizeof(*fs->use));
	}
	u = &fs->use[fs->nuse++];
	u->account = xstrdup(r->account);
	u->user = r->user ? xstrdup(r->user) : NULL;
	u->partition = r->partition ? xstrdup(r->partition) : NULL;
	u->raw = u->cpu = 0.0;
	return u;
}

static struct fs_use *use_of(struct fairshare *fs, const struct assoc_rec *r)
{
	for (size_t i = 0; i < fs->nuse; i++)
		if (same(fs->use[i].account, r->account) &&
		    same(fs->use[i].user, r->user) &&
		    same(fs->use[i].partition, r->partition))
			return &fs->use[i];
	return use_add(fs, r);
}

/* ---- what a job costs ---- */

/* Its billing per second (common/billing.h), *cpus_out its CPUs. */
static double billing_rate(const struct conf *cf, const struct job *job, double *cpus_out)
{
	const struct job_run *run = job->run;
	double cpus = 0.0, mem = 0.0;

	for (uint32_t k = 0; k < run->nnodes; k++) {
		cpus += run->cpus[k];
		mem += (double)run->mem[k];
	}
	*cpus_out = cpus;
	return billing_of(job->part ? job->part->cfg->tres_billing_weights : NULL,
	                  billing_flag(cf->prio_flags, "MAX_TRES"), cpus, mem,
	                  run->nnodes);
}

/* Its QOS's UsageFactor (1 unless set). */
static double usage_factor(const struct assoc_mgr *m, const struct job *job)
{
	const struct assoc_qos *q =
	    assoc_find_qos(m, job->desc.qos && *job->desc.qos ? job->desc.qos : "normal");
	double f;

	if (!q || !q->usage_factor)
		return 1.0;
	f = strtod(q->usage_factor, NULL);
	return f >= 0.0 ? f : 1.0;
}

static const struct assoc_rec *job_rec(const struct assoc_mgr *m, const struct job *job)
{
	return assoc_of_job(m, job->desc.account, job->owner ? job->owner->user : NULL,
	                    job->part ? job->part->cfg->name : NULL);
}

void fairshare_charge(struct ctld *ctld, const struct job *job, time_t end)
{
	struct assoc_mgr *m = ctld->assoc;
	const struct assoc_rec *r;
	struct fairshare *fs;
	struct fs_use *u;
	double cpus, secs, used;

	if (!m || !(r = job_rec(m, job)) || end <= job->run->start_time)
		return;
	secs = (double)(end - job->run->start_time);
	used = billing_rate(ctld->conf, job, &cpus) * secs * usage_factor(m, job);
	fs = fs_of(m);
	decay_to(fs, ctld->conf, end);
	u = use_of(fs, r);
	u->raw += used;
	u->cpu += cpus * secs;
	fs->use_gen++;
}

/* ---- the factors ---- */

static int rec_index(const struct assoc_mgr *m, const struct assoc_rec *r)
{
	return r ? (int)(r - m->assocs) : -1;
}

static int parent_of(const struct assoc_mgr *m, const struct assoc_rec *r)
{
	return rec_index(m, assoc_parent(m, r));
}

static int is_user(const struct assoc_mgr *m, int i)
{
	return m->assocs[i].user && *m->assocs[i].user;
}

static const char *name_of(const struct assoc_mgr *m, int i)
{
	return is_user(m, i) ? m->assocs[i].user : m->assocs[i].account;
}

/* Users before accounts, then by name. */
static int users_then_name(const struct assoc_mgr *m, int i, int j)
{
	if (is_user(m, i) != is_user(m, j))
		return is_user(m, i) ? -1 : 1;
	return strcasecmp(name_of(m, i), name_of(m, j));
}

struct sort_ctx {
	const struct assoc_mgr *m;
	const struct fs_calc *c;
};

/* Fair Tree's order among siblings: Level FS, highest first; users before
 * accounts on a tie, then by name. */
static int by_level(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *x = arg;
	int i = *(const int *)a, j = *(const int *)b;
	double li = x->c[i].level_fs, lj = x->c[j].level_fs;

	if (li != lj)
		return li > lj ? -1 : 1;
	return users_then_name(x->m, i, j);
}

struct ranker {
	const struct assoc_mgr *m;
	struct fs_calc *c;
	int *kids;                   /* every association, grouped by parent */
	const size_t *first, *count; /* children of i: kids[first[i]..] */
	uint32_t rank, next_rank, nusers;
};

/* Rank a set of siblings, depth-first: users take ranks from nusers down, a
 * user tied with the one before it (same Level FS) the same rank; accounts
 * tied with each other have their children ranked as one set (Slurm's Fair
 * Tree).  tied: the set's first is tied with what was ranked before it. */
static void rank_set(struct ranker *rk, const int *set, size_t n, int tied, int depth)
{
	int *order;
	double prev = 0.0;

	if (!n || depth > 1000)
		return;
	order = xcalloc(n, sizeof(*order));
	memcpy(order, set, n * sizeof(*order));
	qsort_r(order, n, sizeof(*order), by_level, &(struct sort_ctx){rk->m, rk->c});
	for (size_t i = 0; i < n;) {
		int x = order[i];
		int t = i ? rk->c[x].level_fs == prev : tied;
		prev = rk->c[x].level_fs;
		if (is_user(rk->m, x)) {
			if (!t)
				rk->rank = rk->next_rank;
			rk->c[x].factor =
			    rk->nusers ? (double)rk->rank / rk->nusers : 0.0;
			rk->next_rank--;
			i++;
			continue;
		}
		/* the accounts tied with this one: their children together */
		size_t j = i, nk = 0;
		int *merged;
		while (j < n && !is_user(rk->m, order[j]) &&
		       rk->c[order[j]].level_fs == prev)
			nk += rk->count[order[j++]];
		merged = xcalloc(nk ? nk : 1, sizeof(*merged));
		nk = 0;
		for (size_t k = i; k < j; k++) {
			memcpy(merged + nk, rk->kids + rk->first[order[k]],
			       rk->count[order[k]] * sizeof(*merged));
			nk += rk->count[order[k]];
		}
		rank_set(rk, merged, nk, t, depth + 1);
		free(merged);
		i = j;
	}
	free(order);
}

static void fair_tree(struct fairshare *fs, const struct assoc_mgr *m, int root)
{
	size_t n = m->nassocs, k = 0;
	size_t *first = xcalloc(n ? n : 1, sizeof(*first));
	size_t *count = xcalloc(n ? n : 1, sizeof(*count));
	struct ranker rk = {m, fs->calc, xcalloc(n ? n : 1, sizeof(int)), first, count};

	for (size_t i = 0; i < n; i++) {
		if (is_user(m, (int)i))
			rk.nusers++;
		if (fs->calc[i].parent >= 0)
			count[fs->calc[i].parent]++;
	}
	for (size_t i = 0; i < n; i++) {
		first[i] = k;
		k += count[i];
		count[i] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		int p = fs->calc[i].parent;
		if (p >= 0)
			rk.kids[first[p] + count[p]++] = (int)i;
	}
	rk.next_rank = rk.nusers;
	if (root >= 0)
		rank_set(&rk, rk.kids + first[root], count[root], 0, 0);
	fs->nusers = rk.nusers;
	free(rk.kids);
	free(first);
	free(count);
}

/* Classic: 2^(-usage / shares), both normalized to the whole cluster. */
static void classic(struct fairshare *fs, const struct assoc_mgr *m)
{
	for (size_t i = 0; i < m->nassocs; i++) {
		double s = 1.0;
		int depth = 0;
		if (!is_user(m, (int)i))
			continue;
		for (int j = (int)i; j >= 0 && fs->calc[j].parent >= 0 && depth < 1000;
		     j = fs->calc[j].parent, depth++)
			s *= fs->calc[j].norm_shares;
		fs->calc[i].factor = s > 0.0 ? pow2_neg(fs->calc[i].norm_usage / s) : 0.0;
	}
}

static void add_up(struct fairshare *fs, int i, double usage, double cpu_secs,
                   double cpu_mins, double billing_mins)
{
	for (int depth = 0; i >= 0 && depth < 1000; i = fs->calc[i].parent, depth++) {
		fs->calc[i].usage += usage;
		fs->calc[i].cpu_secs += cpu_secs;
		fs->calc[i].run_cpu_mins += cpu_mins;
		fs->calc[i].run_billing_mins += billing_mins;
	}
}

static void compute(struct ctld *ctld, time_t now)
{
	struct assoc_mgr *m = ctld->assoc;
	struct fairshare *fs = fs_of(m);
	size_t n = m->nassocs;
	double f = decay_factor(fs, ctld->conf, now), *share_sum;
	int root = -1;

	free(fs->calc);
	fs->calc = xcalloc(n ? n : 1, sizeof(*fs->calc));
	fs->ncalc = n;
	share_sum = xcalloc(n ? n : 1, sizeof(*share_sum));
	for (size_t i = 0; i < n; i++) {
		fs->calc[i].parent = parent_of(m, &m->assocs[i]);
		if (fs->calc[i].parent < 0 && !strcasecmp(m->assocs[i].account, "root") &&
		    !is_user(m, (int)i))
			root = (int)i;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t d = 0;
		for (int j = fs->calc[i].parent; j >= 0 && d < 1000;
		     j = fs->calc[j].parent)
			d++;
		fs->calc[i].depth = d;
		if (fs->calc[i].parent >= 0)
			share_sum[fs->calc[i].parent] += m->assocs[i].shares;
	}
	for (size_t k = 0; k < fs->nuse; k++) {
		const struct fs_use *u = &fs->use[k];
		int i = rec_index(m, assoc_find(m, u->account, u->user, u->partition));
		if (i >= 0) {
			fs->calc[i].own += u->raw * f;
			add_up(fs, i, u->raw * f, u->cpu * f, 0, 0);
		}
	}
	/* what running jobs have used so far, and what they may still use */
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext) {
		int i;
		double cpus, rate, left, secs, used;
		if (!job_is_running(j) || (i = rec_index(m, job_rec(m, j))) < 0)
			continue;
		rate = billing_rate(ctld->conf, j, &cpus);
		left =
		    j->time_limit == INFINITE32 || j->time_limit == NO_VAL
		        ? 0.0
		        : (double)j->run->start_time + j->time_limit * 60.0 - (double)now;
		if (left < 0.0)
			left = 0.0;
		secs =
		    now > j->run->start_time ? (double)(now - j->run->start_time) : 0.0;
		used = rate * secs * usage_factor(m, j);
		fs->calc[i].own += used;
		add_up(fs, i, used, cpus * secs, cpus * left / 60.0, rate * left / 60.0);
	}
	for (size_t i = 0; i < n; i++) {
		struct fs_calc *c = &fs->calc[i];
		int p = c->parent;
		double total = root >= 0 ? fs->calc[root].usage : 0.0;
		c->norm_usage = total > 0.0 ? c->usage / total : 0.0;
		if (p < 0) {
			c->eff_usage = 1.0;
			c->level_fs = LEVEL_INF;
			continue;
		}
		c->norm_shares =
		    share_sum[p] > 0.0 ? m->assocs[i].shares / share_sum[p] : 0.0;
		c->eff_usage =
		    fs->calc[p].usage > 0.0 ? c->usage / fs->calc[p].usage : 0.0;
		/* no shares: last, whatever it used (Slurm's) */
		c->level_fs = c->norm_shares <= 0.0 ? 0.0
		              : c->eff_usage > 0.0  ? c->norm_shares / c->eff_usage
		                                    : LEVEL_INF;
	}
	free(share_sum);
	if (billing_flag(ctld->conf->prio_flags, "NO_FAIR_TREE"))
		classic(fs, m);
	else
		fair_tree(fs, m, root);
	fs->calc_gen = m->gen;
	fs->calc_use_gen = fs->use_gen;
	fs->calc_at = now;
	fs->calc_valid = 1;
}

static struct fairshare *computed(struct ctld *ctld, time_t now)
{
	struct fairshare *fs = fs_of(ctld->assoc);

	if (!fs->calc_valid || fs->calc_gen != ctld->assoc->gen ||
	    fs->calc_use_gen != fs->use_gen || fs->calc_at != now)
		compute(ctld, now);
	return fs;
}

double fairshare_factor(struct ctld *ctld, const struct job *job, time_t now)
{
	struct fairshare *fs;
	int i;

	if (!ctld->assoc)
		return 0.0;
	fs = computed(ctld, now);
	i = rec_index(ctld->assoc, job_rec(ctld->assoc, job));
	return i >= 0 && (size_t)i < fs->ncalc ? fs->calc[i].factor : 0.0;
}

double fairshare_cpu_mins(struct ctld *ctld, const struct assoc_rec *r, time_t now,
                          double *running_left)
{
	struct fairshare *fs;
	int i;

	*running_left = 0.0;
	if (!ctld->assoc || !r)
		return 0.0;
	fs = computed(ctld, now);
	i = rec_index(ctld->assoc, r);
	if (i < 0 || (size_t)i >= fs->ncalc)
		return 0.0;
	*running_left = fs->calc[i].run_cpu_mins;
	return fs->calc[i].cpu_secs / 60.0;
}

int fairshare_get(struct ctld *ctld, const struct assoc_rec *r, time_t now,
                  struct fairshare_of *ret)
{
	const struct fs_calc *c;
	struct fairshare *fs;
	int i;

	if (!ctld->assoc || !r)
		return -ENOENT;
	fs = computed(ctld, now);
	i = rec_index(ctld->assoc, r);
	if (i < 0 || (size_t)i >= fs->ncalc)
		return -ENOENT;
	c = &fs->calc[i];
	*ret = (struct fairshare_of){.norm_shares = c->norm_shares,
	                             .factor = c->factor,
	                             .usage = c->usage,
	                             .norm_usage = c->norm_usage,
	                             .eff_usage = c->eff_usage,
	                             .cpu_secs = c->cpu_secs};
	return 0;
}

/* ---- sshare ---- */

/* A count as u64, clamped (a double past 2^64 does not convert). */
static uint64_t whole(double v)
{
	return v <= 0.0      ? 0
	       : v >= 1.8e19 ? UINT64_C(18000000000000000000)
	                     : (uint64_t)(v + 0.5);
}

static uint64_t micro(double v)
{
	return v >= LEVEL_INF / 2 ? FS_INF : v >= 1.8e13 ? FS_NONE - 1 : whole(v * 1e6);
}

/* sshare's order: under each account its users, then its sub-accounts, each
 * by name. */
static int by_name(const void *a, const void *b, void *arg)
{
	return users_then_name(arg, *(const int *)a, *(const int *)b);
}

static void add_rows(struct share_resp *r, const struct assoc_mgr *m,
                     const struct fairshare *fs, int node, int depth)
{
	const struct assoc_rec *a = &m->assocs[node];
	const struct fs_calc *c = &fs->calc[node];
	struct share_row *row = &r->rows[r->rows_count++];
	int *kids;
	size_t nk = 0;

	row->account = xstrdup(a->account);
	row->user = a->user ? xstrdup(a->user) : NULL;
	row->partition = a->partition ? xstrdup(a->partition) : NULL;
	row->depth = c->depth;
	row->raw_shares = c->parent < 0 ? NO_VAL : a->shares;
	row->norm_shares = micro(c->norm_shares);
	row->raw_usage = whole(c->usage);
	row->norm_usage = micro(c->norm_usage);
	row->eff_usage = micro(c->eff_usage);
	row->fairshare = is_user(m, node) ? micro(c->factor) : FS_NONE;
	row->level_fs = c->parent < 0 ? FS_NONE : micro(c->level_fs);
	row->grp_tres_mins = a->grp_tres_mins ? xstrdup(a->grp_tres_mins) : NULL;
	row->run_cpu_mins = whole(c->run_cpu_mins);
	row->run_billing_mins = whole(c->run_billing_mins);
	if (is_user(m, node) || depth > 1000)
		return;
	kids = xcalloc(m->nassocs ? m->nassocs : 1, sizeof(*kids));
	for (size_t i = 0; i < m->nassocs; i++)
		if (fs->calc[i].parent == node)
			kids[nk++] = (int)i;
	qsort_r(kids, nk, sizeof(*kids), by_name, (void *)m);
	for (size_t k = 0; k < nk; k++)
		add_rows(r, m, fs, kids[k], depth + 1);
	free(kids);
}

void fairshare_list(struct ctld *ctld, struct caller *who, struct chan *ch)
{
	const struct assoc_mgr *m = ctld->assoc;
	const struct fairshare *fs = computed(ctld, time(NULL));
	struct share_resp r = {.cluster = xstrdup(ctld->conf->cluster_name)};

	(void)who; /* shares are no secret (PrivateData is not applied here) */
	r.rows = xcalloc(m->nassocs ? m->nassocs : 1, sizeof(*r.rows));
	for (size_t i = 0; i < m->nassocs; i++)
		if (fs->calc[i].parent < 0 && !is_user(m, (int)i) &&
		    !strcasecmp(m->assocs[i].account, "root"))
			add_rows(&r, m, fs, (int)i, 0);
	chan_send(ch, MSG_SHARE_RESP, &r);
	codec_release(&share_resp_type, &r);
}

/* ---- snapshots ---- */

void fairshare_snapshot(const struct assoc_mgr *m, struct ev_assoc *ev)
{
	const struct fairshare *fs = m->fs;

	ev->usage_time = fs && fs->at ? fs->at : 1; /* set: a snapshot */
	if (!fs || !fs->nuse)
		return;
	ev->usage = xcalloc(fs->nuse, sizeof(*ev->usage));
	for (size_t i = 0; i < fs->nuse; i++) {
		struct share_usage *u = &ev->usage[ev->usage_count++];
		u->account = xstrdup(fs->use[i].account);
		u->user = fs->use[i].user ? xstrdup(fs->use[i].user) : NULL;
		u->partition =
		    fs->use[i].partition ? xstrdup(fs->use[i].partition) : NULL;
		u->raw_ms = whole(fs->use[i].raw * 1000.0);
		u->cpu_ms = whole(fs->use[i].cpu * 1000.0);
	}
}

void fairshare_forget(struct assoc_mgr *m, const struct assoc_rec *r)
{
	struct fairshare *fs = m->fs;

	for (size_t i = 0; fs && i < fs->nuse; i++) {
		struct fs_use *u = &fs->use[i];
		if (same(u->account, r->account) && same(u->user, r->user) &&
		    same(u->partition, r->partition)) {
			free(u->account);
			free(u->user);
			free(u->partition);
			fs->use[i] = fs->use[--fs->nuse];
			fs->use_gen++;
			return;
		}
	}
}

void fairshare_restore(struct assoc_mgr *m, const struct ev_assoc *ev)
{
	struct fairshare *fs;

	if (!ev->usage_time)
		return;
	fairshare_free(m->fs);
	m->fs = NULL;
	fs = fs_of(m);
	fs->at = ev->usage_time > 1 ? (time_t)ev->usage_time : 0;
	for (size_t i = 0; i < ev->usage_count; i++) {
		const struct share_usage *s = &ev->usage[i];
		if (!s->account)
			continue;
		struct assoc_rec key = {
		    .account = s->account, .user = s->user, .partition = s->partition};
		struct fs_use *u = use_add(fs, &key); /* a snapshot's: each once */
		u->raw = (double)s->raw_ms / 1000.0;
		u->cpu = (double)s->cpu_ms / 1000.0;
	}
	fs->use_gen++;
}
