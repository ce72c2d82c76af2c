/* report_cache.h - sreport's copy of the job runs of the last weeks, kept in
 * rotadbd's memory so that a report over a month of a busy cluster is a scan
 * of compact records, not a million rows read from the store.
 *
 * Built from store_query on first use (and again each day, so that it holds
 * REPORT_CACHE_DAYS of runs and no more); kept true by the feed, which says
 * which jobs each stored event touched (report_cache_touch): before a report
 * those jobs' runs are read again.  A feed that rolls back forgets it all.
 * More than 4,000,000 runs in the span are not kept (the reports read the
 * store, and the next day's build tries again).
 * rotadbd's one thread. */
#ifndef ROTA_DBD_REPORT_CACHE_H
#define ROTA_DBD_REPORT_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "common/error.h"

struct store;
struct report_cache;

#define REPORT_CACHE_DAYS 62 /* two months: a month's report any day of the next */

/* One job run, as the reports need it. */
struct report_run {
	uint32_t job_id, restarts;
	int64_t submit;
	int64_t start, end, eligible; /* 0: not (yet) */
	uint32_t ncpus, req_cpus, uid;
	uint32_t account, user; /* report_cache_name() */
};

struct report_cache *report_cache_create(void);
void report_cache_destroy(struct report_cache *c); /* NULL allowed */

/* The feed stored an event of job_id (a job or an array). */
void report_cache_touch(struct report_cache *c, uint32_t job_id);
/* What was stored may have been rolled back: build it again. */
void report_cache_forget(struct report_cache *c);

/* Bring c up to date with s.  Then it holds every run that had not ended
 * before *ret_from (after now when it keeps none).  Returns 0, or -1 with
 * err set (the store's error). */
int report_cache_update(struct report_cache *c, struct store *s, time_t now,
                        time_t *ret_from, struct rota_error *err);

/* The runs (borrowed, valid until the next update). */
const struct report_run *report_cache_runs(const struct report_cache *c, size_t *ret_n);
/* An account's or user's name (borrowed). */
const char *report_cache_name(const struct report_cache *c, uint32_t idx);

#endif
