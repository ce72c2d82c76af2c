/* report.c - sreport's sums (report.h).
 *
 * DESIGN: one pass over the job runs that existed in the window (every run
 * of a requeued job: each held its CPUs), steps left out.  A run's CPU time
 * is its allocated CPUs times the part of its run inside the window, a run
 * still going counting up to now.  Sums are kept in a small open-addressing
 * table keyed by (account, uid, size bin): a month of a busy cluster has a
 * million runs but only a few thousand keys, so the pass costs what reading
 * the rows costs.  A window inside the last REPORT_CACHE_DAYS is summed
 * from the compact copy of the recent runs (report_cache.h) instead of the
 * store's rows.  The cluster's capacity is its configured CPUs times the
 * window (rotadbd reads the same slurm.conf as the controller). */
#include <errno.h>
#include <event2/event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/timefmt.h"
#include "dbd/dbd.h"
#include "dbd/report.h"
#include "dbd/report_cache.h"
#include "dbd/store.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

struct slot {
	char *account; /* NULL: free slot */
	uint32_t uid;
	uint32_t bin;
	char *user;
	uint64_t cpu_secs;
	uint32_t jobs;
};

struct tally {
	const struct acct_report_req *req;
	int64_t start, end, now;
	uint64_t alloc, planned;
	struct slot *slots;
	size_t cap, used;
};

static uint64_t key_hash(const char *account, uint32_t uid, uint32_t bin)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)account; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h = (h ^ uid) * 1099511628211ull;
	return (h ^ bin) * 1099511628211ull;
}

static struct slot *slot_find(struct slot *slots, size_t cap, const char *account,
                              uint32_t uid, uint32_t bin)
{
	size_t i = key_hash(account, uid, bin) & (cap - 1);

	while (slots[i].account && (slots[i].uid != uid || slots[i].bin != bin ||
	                            strcmp(slots[i].account, account)))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void grow(struct tally *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	struct slot *slots = xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].account)
			*slot_find(slots, cap, t->slots[i].account, t->slots[i].uid,
			           t->slots[i].bin) = t->slots[i];
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
}

/* One run as the sums need it, from the store's record or the cache's. */
struct run_view {
	int64_t start, end, eligible;
	uint32_t ncpus, req_cpus, uid;
	const char *account, *user; /* NULL allowed */
};

static struct slot *slot_get(struct tally *t, const struct run_view *v, uint32_t bin)
{
	const char *account = v->account ? v->account : "";
	struct slot *s;

	if ((t->used + 1) * 2 > t->cap)
		grow(t);
	s = slot_find(t->slots, t->cap, account, v->uid, bin);
	if (!s->account) {
		s->account = xstrdup(account);
		s->uid = v->uid;
		s->bin = bin;
		s->user = v->user ? xstrdup(v->user) : xasprintf("%u", v->uid);
		t->used++;
	}
	return s;
}

/* The seconds of [from, to) inside the window. */
static int64_t overlap(const struct tally *t, int64_t from, int64_t to)
{
	if (from < t->start)
		from = t->start;
	if (to > t->end)
		to = t->end;
	return to > from ? to - from : 0;
}

static uint32_t size_bin(const struct acct_report_req *req, uint32_t cpus)
{
	uint32_t bin = 0;

	while (bin < req->bins.n && cpus >= req->bins.v[bin])
		bin++;
	return bin;
}

static void tally_run(struct tally *t, const struct run_view *v)
{
	int64_t held, waited, end = v->end ? v->end : t->now;

	/* the wait of an eligible job: planned time, as Slurm's rollup counts
	 * it (what it asked for, from eligible to its start) */
	if (v->eligible > 0) {
		waited = overlap(t, v->eligible, v->start ? v->start : end);
		t->planned += (uint64_t)waited * (v->req_cpus ? v->req_cpus : 1);
	}
	if (!v->start || !v->ncpus)
		return;
	held = overlap(t, v->start, end);
	if (held <= 0)
		return;
	struct slot *s = slot_get(t, v, size_bin(t->req, v->ncpus));
	s->cpu_secs += (uint64_t)held * v->ncpus;
	s->jobs++;
	t->alloc += (uint64_t)held * v->ncpus;
}

static int add_run(void *arg, struct acct_job *j)
{
	struct run_view v = {j->start,    j->end, j->eligible, j->ncpus,
	                     j->req_cpus, j->uid, j->account,  j->user};

	tally_run(arg, &v);
	return 0;
}

/* The runs store_query would give for the window, from the cache: submitted
 * before its end, not ended before its start. */
static void add_cached(struct tally *t, const struct report_cache *c)
{
	size_t n;
	const struct report_run *runs = report_cache_runs(c, &n);

	for (size_t i = 0; i < n; i++) {
		const struct report_run *r = &runs[i];
		if (r->submit > t->end || (r->end && r->end < t->start))
			continue;
		struct run_view v = {r->start,
		                     r->end,
		                     r->eligible,
		                     r->ncpus,
		                     r->req_cpus,
		                     r->uid,
		                     report_cache_name(c, r->account),
		                     report_cache_name(c, r->user)};
		tally_run(t, &v);
	}
}

/* Sum the window's runs: from the cache when it holds them all. */
static int sum_runs(struct dbd *d, struct tally *t, struct rota_error *err)
{
	struct acct_query q = {0};
	time_t from;

	if (d->report && t->start > t->now - (int64_t)REPORT_CACHE_DAYS * 86400 + 60) {
		if (report_cache_update(d->report, d->store, t->now, &from, err) < 0)
			return -1;
		if (t->start >= from) {
			add_cached(t, d->report);
			return 0;
		}
	}
	q.start = t->start;
	q.end = t->end;
	q.flags = ACCT_QUERY_F_DUPLICATES | ACCT_QUERY_F_NO_STEPS;
	return store_query(d->store, &q, add_run, t, err) < 0 ? -1 : 0;
}

static int check(const struct acct_report_req *req, struct rota_error *err)
{
	if (req->bins.n > REPORT_BINS_MAX)
		return errprintf(err, "more than %d job size groups", REPORT_BINS_MAX);
	for (uint32_t i = 0; i < req->bins.n; i++)
		if (!req->bins.v[i] || (i && req->bins.v[i] <= req->bins.v[i - 1]))
			return errprintf(err,
			                 "job size groups must be ascending CPU counts");
	return 0;
}

static uint32_t cluster_cpus(const struct conf *conf)
{
	uint64_t cpus = 0;

	for (size_t i = 0; i < conf->node_count; i++)
		cpus += conf->nodes[i].cpus;
	return cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
}

/* The sums become the answer's rows (the table's strings move there). */
static void take_rows(struct tally *t, struct acct_report_resp *r)
{
	r->rows = xcalloc(t->used ? t->used : 1, sizeof(*r->rows));
	for (size_t i = 0; i < t->cap; i++) {
		struct slot *s = &t->slots[i];
		if (!s->account)
			continue;
		r->rows[r->rows_count++] = (struct acct_report_row){
		    .account = s->account,
		    .user = s->user,
		    .uid = s->uid,
		    .bin = s->bin,
		    .cpu_secs = s->cpu_secs,
		    .jobs = s->jobs,
		};
		s->account = s->user = NULL;
	}
}

static void tally_release(struct tally *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		free(t->slots[i].account);
		free(t->slots[i].user);
	}
	free(t->slots);
}

int dbd_report(struct dbd *d, const struct acct_report_req *req, time_t now,
               struct acct_report_resp *ret, struct rota_error *err)
{
	struct tally t = {.req = req, .start = req->start, .end = req->end, .now = now};
	uint64_t reported, free_secs;

	if (check(req, err) < 0)
		return -1;
	if (!t.end || t.end > now)
		t.end = now;
	if (t.start < 0 || t.start > t.end)
		t.start = t.end;
	if (t.end > t.start && sum_runs(d, &t, err) < 0) {
		tally_release(&t);
		return -1;
	}
	ret->cluster = xstrdup(d->conf->cluster_name);
	ret->start = t.start;
	ret->end = t.end;
	ret->cpus = cluster_cpus(d->conf);
	ret->alloc_secs = t.alloc;
	/* no node down time is recorded yet (doc/accounting.md) */
	ret->down_secs = ret->pdown_secs = 0;
	reported = (uint64_t)ret->cpus * (uint64_t)(t.end - t.start);
	free_secs = reported > t.alloc ? reported - t.alloc : 0;
	ret->planned_secs = t.planned < free_secs ? t.planned : free_secs;
	take_rows(&t, ret);
	tally_release(&t);
	return 0;
}

#define WARM_FIRST_S 1
#define WARM_EVERY_S 3600

static void warm_cb(evutil_socket_t fd_unused, short what, void *arg)
{
	struct dbd *d = arg;
	struct rota_error err = {""};
	struct timeval every = {WARM_EVERY_S, 0};
	double t0 = time_mono();
	size_t n;
	time_t from;

	if (report_cache_update(d->report, d->store, time(NULL), &from, &err) < 0) {
		log_warn("sreport: cannot read the recent runs: %s", err.text);
	} else if (time_mono() - t0 > 0.5) {
		report_cache_runs(d->report, &n);
		log_info("sreport: %zu runs of the last %d days kept (%.1f s)", n,
		         REPORT_CACHE_DAYS, time_mono() - t0);
	}
	evtimer_add(d->report_ev, &every);
}

void dbd_report_start(struct dbd *d)
{
	struct timeval first = {WARM_FIRST_S, 0};

	if (!d->report)
		return;
	d->report_ev = evtimer_new(d->base, warm_cb, d);
	evtimer_add(d->report_ev, &first);
}

void dbd_report_stop(struct dbd *d)
{
	if (d->report_ev)
		event_free(d->report_ev);
	d->report_ev = NULL;
}
