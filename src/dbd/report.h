/* report.h - sreport's sums, made in rotadbd: the CPU time each job run held
 * inside a window, per account, user and job size, and the cluster's
 * capacity over it.  Built on store_query alone (every back end has it).
 * Runs on rotadbd's one thread. */
#ifndef ROTA_DBD_REPORT_H
#define ROTA_DBD_REPORT_H

#include <time.h>
#include "common/error.h"

struct dbd;
struct acct_report_req;
struct acct_report_resp;

#define REPORT_BINS_MAX 64 /* job size bins a request may ask for */

/* Fill *ret (zeroed by the caller; caller releases it with
 * codec_release(&acct_report_resp_type, ...), also on failure) with what req
 * asks for; now: where running jobs' time and the window end.  Returns 0, or
 * -1 with err set (bad request, store error). */
int dbd_report(struct dbd *d, const struct acct_report_req *req, time_t now,
               struct acct_report_resp *ret, struct rota_error *err);

/* Keep the copy of the recent runs warm: built a second after rotadbd starts
 * (not by the first report), brought up to date every hour (so that the
 * day's rebuild is not a report's wait either).  Stop frees the timer. */
void dbd_report_start(struct dbd *d);
void dbd_report_stop(struct dbd *d);

#endif
