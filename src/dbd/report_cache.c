/* report_cache.c - sreport's copy of the recent job runs (report_cache.h).
 *
 * DESIGN: an array of compact runs, an open-addressing index from a run's
 * key (job id, submit time, restarts: the store's own unique key) to its
 * place, and the account and user names interned once each.  The feed's
 * touches gather job ids; an update reads those jobs' runs (every run of
 * the job or array) in chunks and puts each in its place.  Too many touched
 * jobs (a snapshot touches them all) and a day's age mean a new build. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/strv.h"
#include "dbd/report_cache.h"
#include "dbd/store.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

#define TOUCHED_MAX  50000   /* touched jobs read one by one; beyond: a new build */
#define TOUCH_CHUNK  500     /* job ids per store_query */
#define REBUILD_SECS 86400   /* so that runs older than the span leave */
#define RUNS_MAX     4000000 /* about 280 MB: past it, reports read the store */

struct report_cache {
	int built;
	int too_big; /* more than RUNS_MAX runs at built_at: none kept */
	time_t built_at, from;
	struct report_run *runs;
	size_t nruns, cap;
	uint32_t *index; /* run position + 1; 0: free */
	size_t index_cap;
	char **names; /* interned */
	uint32_t nnames, names_cap;
	uint32_t *name_index; /* name position + 1 */
	size_t name_index_cap;
	uint32_t *touched;
	size_t ntouched, touched_cap;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static uint64_t run_hash(uint32_t job_id, int64_t submit, uint32_t restarts)
{
	return mix(((uint64_t)job_id << 32 | restarts) ^ mix((uint64_t)submit));
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* ---- names ---- */

static void names_reindex(struct report_cache *c, size_t cap)
{
	free(c->name_index);
	c->name_index = xcalloc(cap, sizeof(*c->name_index));
	c->name_index_cap = cap;
	for (uint32_t n = 0; n < c->nnames; n++) {
		size_t i = name_hash(c->names[n]) & (cap - 1);
		while (c->name_index[i])
			i = (i + 1) & (cap - 1);
		c->name_index[i] = n + 1;
	}
}

static uint32_t name_intern(struct report_cache *c, const char *s)
{
	size_t i;

	s = s ? s : "";
	if ((c->nnames + 1) * 2 > c->name_index_cap)
		names_reindex(c, c->name_index_cap ? c->name_index_cap * 2 : 64);
	i = name_hash(s) & (c->name_index_cap - 1);
	while (c->name_index[i]) {
		if (!strcmp(c->names[c->name_index[i] - 1], s))
			return c->name_index[i] - 1;
		i = (i + 1) & (c->name_index_cap - 1);
	}
	if (c->nnames == c->names_cap) {
		c->names_cap = c->names_cap ? c->names_cap * 2 : 64;
		c->names = xrealloc(c->names, c->names_cap * sizeof(*c->names));
	}
	c->names[c->nnames] = xstrdup(s);
	c->name_index[i] = ++c->nnames;
	return c->nnames - 1;
}

/* ---- runs ---- */

static size_t slot_of(const struct report_cache *c, uint32_t job_id, int64_t submit,
                      uint32_t restarts)
{
	size_t i = run_hash(job_id, submit, restarts) & (c->index_cap - 1);

	while (c->index[i]) {
		const struct report_run *r = &c->runs[c->index[i] - 1];
		if (r->job_id == job_id && r->submit == submit && r->restarts == restarts)
			break;
		i = (i + 1) & (c->index_cap - 1);
	}
	return i;
}

static void runs_reindex(struct report_cache *c, size_t cap)
{
	free(c->index);
	c->index = xcalloc(cap, sizeof(*c->index));
	c->index_cap = cap;
	for (size_t n = 0; n < c->nruns; n++) {
		const struct report_run *r = &c->runs[n];
		c->index[slot_of(c, r->job_id, r->submit, r->restarts)] = (uint32_t)n + 1;
	}
}

static int put_run(void *arg, struct acct_job *j)
{
	struct report_cache *c = arg;
	struct report_run r = {
	    .job_id = j->job_id,
	    .restarts = j->restarts,
	    .submit = j->submit,
	    .start = j->start,
	    .end = j->end,
	    .eligible = j->eligible,
	    .ncpus = j->ncpus,
	    .req_cpus = j->req_cpus,
	    .uid = j->uid,
	};
	char uid[16];
	size_t i;

	if (c->nruns >= RUNS_MAX) {
		c->too_big = 1; /* seen here: a back end may not pass the code on */
		return -E2BIG;
	}
	snprintf(uid, sizeof(uid), "%u", j->uid);
	r.account = name_intern(c, j->account);
	r.user = name_intern(c, j->user ? j->user : uid);
	if ((c->nruns + 1) * 2 > c->index_cap)
		runs_reindex(c, c->index_cap ? c->index_cap * 2 : 1024);
	i = slot_of(c, r.job_id, r.submit, r.restarts);
	if (c->index[i]) {
		c->runs[c->index[i] - 1] = r;
		return 0;
	}
	if (c->nruns == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->runs = xrealloc(c->runs, c->cap * sizeof(*c->runs));
	}
	c->runs[c->nruns] = r;
	c->index[i] = (uint32_t)++c->nruns;
	return 0;
}

static void clear(struct report_cache *c)
{
	for (uint32_t n = 0; n < c->nnames; n++)
		free(c->names[n]);
	free(c->names);
	free(c->name_index);
	free(c->runs);
	free(c->index);
	free(c->touched);
	memset(c, 0, sizeof(*c));
}

static int build(struct report_cache *c, struct store *s, time_t now,
                 struct rota_error *err)
{
	struct acct_query q = {.flags = ACCT_QUERY_F_DUPLICATES | ACCT_QUERY_F_NO_STEPS};

	struct rota_error ignored = {""};
	int rc;

	clear(c);
	c->from = now - (time_t)REPORT_CACHE_DAYS * 86400;
	q.start = c->from;
	rc = store_query(s, &q, put_run, c, &ignored);
	if (c->too_big) {
		/* too many to keep: the reports read the store until tomorrow */
		clear(c);
		c->too_big = 1;
	} else if (rc < 0) {
		errprintf(err, "%s", ignored.text);
		clear(c);
		return -1;
	}
	c->built = 1;
	c->built_at = now;
	return 0;
}

static int by_id(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* Read the touched jobs' runs again, TOUCH_CHUNK jobs a query. */
static int refresh(struct report_cache *c, struct store *s, struct rota_error *err)
{
	size_t n = 0;

	qsort(c->touched, c->ntouched, sizeof(*c->touched), by_id);
	while (n < c->ntouched) {
		struct acct_query q = {.flags = ACCT_QUERY_F_DUPLICATES |
		                                ACCT_QUERY_F_NO_STEPS};
		int rc;
		for (size_t k = 0; k < TOUCH_CHUNK && n < c->ntouched; n++) {
			char id[16];
			if (n && c->touched[n] == c->touched[n - 1])
				continue;
			snprintf(id, sizeof(id), "%u", c->touched[n]);
			q.jobs = strv_append(q.jobs, id);
			k++;
		}
		rc = q.jobs ? store_query(s, &q, put_run, c, err) : 0;
		strv_free(q.jobs);
		if (rc < 0)
			return -1;
	}
	c->ntouched = 0;
	return 0;
}

struct report_cache *report_cache_create(void)
{
	return xcalloc(1, sizeof(struct report_cache));
}

void report_cache_destroy(struct report_cache *c)
{
	if (!c)
		return;
	clear(c);
	free(c);
}

void report_cache_touch(struct report_cache *c, uint32_t job_id)
{
	if (!c->built || c->too_big || c->ntouched > TOUCHED_MAX)
		return; /* read whole at the next update */
	if (c->ntouched == c->touched_cap) {
		c->touched_cap = c->touched_cap ? c->touched_cap * 2 : 256;
		c->touched = xrealloc(c->touched, c->touched_cap * sizeof(*c->touched));
	}
	c->touched[c->ntouched++] = job_id;
}

void report_cache_forget(struct report_cache *c)
{
	c->built = 0;
}

int report_cache_update(struct report_cache *c, struct store *s, time_t now,
                        time_t *ret_from, struct rota_error *err)
{
	if (!c->built || c->ntouched > TOUCHED_MAX || now - c->built_at >= REBUILD_SECS) {
		if (build(c, s, now, err) < 0)
			return -1;
	} else if (c->ntouched && refresh(c, s, err) < 0) {
		int too_big = c->too_big;
		clear(c);
		if (!too_big)
			return -1;
		/* grown past RUNS_MAX: none kept until tomorrow's build */
		c->too_big = c->built = 1;
		c->built_at = now;
	}
	/* none kept: no window starts after now */
	*ret_from = c->too_big ? now + 1 : c->from;
	return 0;
}

const struct report_run *report_cache_runs(const struct report_cache *c, size_t *ret_n)
{
	*ret_n = c->nruns;
	return c->runs;
}

const char *report_cache_name(const struct report_cache *c, uint32_t idx)
{
	return idx < c->nnames ? c->names[idx] : "";
}
