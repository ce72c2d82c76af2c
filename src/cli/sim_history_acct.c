/* sim_history_acct.c - a history (sim_history.h) from rotadbd: the records
 * sacct -X lists, through the same client. */
#include <stdlib.h>
#include <string.h>
#include "cli/acct_client.h"
#include "cli/sim_history.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

struct collect {
	struct sim_history *h;
	int too_many;
};

static void on_job(void *arg, const struct acct_job *r)
{
	struct collect *c = arg;
	struct sim_history *h = c->h;
	struct sim_hjob *j;

	if (r->superseded || r->array_pending)
		return; /* an earlier run; a pending array's remainder */
	if (r->start <= 0 || r->end <= 0 || r->end < r->start || !r->ncpus) {
		h->unfinished++;
		return;
	}
	if (h->n >= SIM_HISTORY_MAX_JOBS) {
		c->too_many = 1;
		return;
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 256;
		h->jobs = xrealloc(h->jobs, h->cap * sizeof(*h->jobs));
	}
	j = &h->jobs[h->n++];
	*j = (struct sim_hjob){
	    .id = r->job_id,
	    .order = r->array_job_id && r->array_task_id != NO_VAL
	                 ? SIM_HISTORY_ORDER(r->array_job_id, r->array_task_id)
	                 : SIM_HISTORY_ORDER(r->job_id, 0),
	    .submit = r->eligible > r->submit ? r->eligible : r->submit,
	    .start = r->start,
	    .end = r->end,
	    .cpus = r->ncpus,
	    .nodes = r->nnodes,
	    .limit =
	        r->time_limit && r->time_limit != NO_VAL && r->time_limit != INFINITE32
	            ? (int64_t)r->time_limit * 60
	            : 0,
	    .user = xstrdup(r->user && *r->user ? r->user : "?"),
	    .account = xstrdup(r->account ? r->account : ""),
	    .partition = r->partition && *r->partition ? xstrdup(r->partition) : NULL,
	    .features =
	        r->constraints && *r->constraints ? xstrdup(r->constraints) : NULL,
	};
	if (j->submit > j->start)
		j->submit =
		    j->start; /* an eligible time past the start: trust the start */
}

static int hjob_cmp(const void *a, const void *b)
{
	const struct sim_hjob *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int sim_history_from_accounting(int64_t start, int64_t end, struct sim_history *h)
{
	struct acct_query q = {
	    .start = start, .end = end, .flags = ACCT_QUERY_F_NO_STEPS};
	struct collect c = {.h = h};
	struct acct_fetch_cb cb = {NULL, on_job, &c};

	if (acct_fetch(&q, &cb))
		return 1;
	if (c.too_many) {
		fprintf(stderr, "rota sim: error: more than %d jobs in the period\n",
		        SIM_HISTORY_MAX_JOBS);
		return 1;
	}
	if (h->n) /* none in the period: no array to sort */
		qsort(h->jobs, h->n, sizeof(*h->jobs), hjob_cmp);
	return 0;
}
