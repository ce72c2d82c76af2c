#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/plan.h"
#include "sched/policy.h"
#include "common/common.h"

struct policy {
	enum policy_kind kind;
	struct plan *scratch; /* conservative: running jobs + reservations */
	int scratch_valid;    /* scratch is what the previous pass left */
	size_t *order;        /* backfill candidates in the order tried */
	size_t order_cap;
	struct sim_nodes *nodes;   /* controller on real nodes; NULL: processors */
	struct policy_job *sorted; /* priority kinds: the queue in priority order */
	size_t *perm;              /* sorted[i] is queue[perm[i]] */
	double *key;               /* [queue index] priority, lower first */
	size_t sorted_cap;
	struct policy_controller_opts ctl;
};

static const char *const kind_names[] = {
    [POLICY_FCFS] = "fcfs",
    [POLICY_EASY] = "easy",
    [POLICY_CONSERVATIVE] = "conservative",
    [POLICY_EASY_SJBF] = "easy-sjbf",
    [POLICY_CONTROLLER] = "controller",
    [POLICY_EASY_SAF] = "easy-saf",
    [POLICY_EASY_SJF] = "easy-sjf",
    [POLICY_EASY_WFP3] = "easy-wfp3",
    [POLICY_EASY_UNICEF] = "easy-unicef",
    [POLICY_EASY_F1] = "easy-f1",
    [POLICY_EASY_SAF_AGED] = "easy-saf-aged",
};

struct policy *policy_create(enum policy_kind kind, int64_t total)
{
	struct policy *pol = calloc(1, sizeof(*pol));

	if (!pol)
		return NULL;
	pol->kind = kind;
	pol->scratch = plan_create(total);
	if (!pol->scratch) {
		free(pol);
		return NULL;
	}
	return pol;
}

void policy_destroy(struct policy *pol)
{
	if (!pol)
		return;
	plan_destroy(pol->scratch);
	free(pol->order);
	free(pol->sorted);
	free(pol->perm);
	free(pol->key);
	free(pol);
}

int policy_kind_parse(const char *name, enum policy_kind *ret_kind)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
		if (!strcmp(name, kind_names[i])) {
			*ret_kind = (enum policy_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *policy_kind_name(enum policy_kind kind)
{
	return kind_names[kind];
}

int policy_job_start(struct plan *running, int64_t now, struct policy_job *job, int rank)
{
	int64_t end = job->est > PLAN_TIME_MAX - now ? PLAN_TIME_MAX : now + job->est;

	job->started = rank;
	job->start = now;
	return plan_add(running, now, end, job->procs);
}

/* Start jobs in order while they fit now.  Returns the index of the first job
 * that does not fit (n if all started) and adds the count to *started. */
static int fcfs_head(struct plan *running, int64_t now, struct policy_job *queue,
                     size_t n, size_t *ret_head, int *started)
{
	int64_t free_now = plan_free_at(running, now);
	size_t i;
	int rc;

	for (i = 0; i < n && queue[i].procs <= free_now; i++) {
		if ((rc = policy_job_start(running, now, &queue[i], *started + 1)) < 0)
			return rc;
		free_now -= queue[i].procs;
		(*started)++;
	}
	*ret_head = i;
	return 0;
}

/* Shortest estimate first; queue order among equals. */
static int sjbf_cmp(const void *a, const void *b, void *ctx)
{
	const struct policy_job *queue = ctx;
	size_t i = *(const size_t *)a, k = *(const size_t *)b;

	if (queue[i].est != queue[k].est)
		return queue[i].est < queue[k].est ? -1 : 1;
	return (i > k) - (i < k);
}

/* The backfill candidates queue[first..n) in the order to try them. */
static int easy_order(struct policy *pol, const struct policy_job *queue, size_t first,
                      size_t n)
{
	size_t m = n - first;

	if (m > pol->order_cap) {
		size_t *o = realloc(pol->order, m * sizeof(*o));
		if (!o)
			return -ENOMEM;
		pol->order = o;
		pol->order_cap = m;
	}
	for (size_t i = 0; i < m; i++)
		pol->order[i] = first + i;
	if (pol->kind != POLICY_EASY)
		qsort_r(pol->order, m, sizeof(*pol->order), sjbf_cmp, (void *)queue);
	return 0;
}

static int easy_pass(struct policy *pol, struct plan *running,
                     const struct policy_pass *pass, struct policy_job *queue, size_t n)
{
	int64_t now = pass->now, shadow, extra, free_now;
	size_t head = 0, first;
	int started = 0, rc;

	if (!pass->unchanged &&
	    (rc = fcfs_head(running, now, queue, n, &head, &started)) < 0)
		return rc;
	first = pass->unchanged > head + 1 ? pass->unchanged : head + 1;
	if (head >= n || (pass->unchanged && first >= n))
		return started;
	rc = plan_earliest(running, now, queue[head].procs, queue[head].est, &shadow);
	if (rc < 0)
		return rc;
	queue[head].start = shadow;
	if (first >= n)
		return started;
	if ((rc = easy_order(pol, queue, first, n)) < 0)
		return rc;
	/* free counts never drop after now in a plan of running jobs: the least
	 * number free from the shadow time on is the number free at it */
	extra = plan_free_at(running, shadow) - queue[head].procs;
	free_now = plan_free_at(running, now);
	for (size_t k = 0; k < n - first && free_now > 0; k++) {
		struct policy_job *job = &queue[pol->order[k]];
		int crosses = job->est > shadow - now;

		if (job->procs > free_now || (crosses && job->procs > extra))
			continue;
		if ((rc = policy_job_start(running, now, job, started + 1)) < 0)
			return rc;
		free_now -= job->procs;
		if (crosses)
			extra -= job->procs;
		started++;
	}
	return started;
}

/* Can the reservations of the previous pass stand?  Only when nothing changed
 * for the jobs that had them (pass->unchanged) and none of them is due now. */
static size_t conservative_keep(const struct policy *pol, const struct policy_pass *pass,
                                const struct policy_job *queue)
{
	if (!pol->scratch_valid)
		return 0;
	for (size_t i = 0; i < pass->unchanged; i++) {
		if (queue[i].start <= pass->now)
			return 0;
	}
	return pass->unchanged;
}

static int conservative_pass(struct policy *pol, struct plan *running,
                             const struct policy_pass *pass, struct policy_job *queue,
                             size_t n)
{
	int64_t now = pass->now;
	size_t from = conservative_keep(pol, pass, queue);
	int started = 0, rc;

	pol->scratch_valid = 0;
	if (!from && (rc = plan_copy(pol->scratch, running)) < 0)
		return rc;
	for (size_t i = from; i < n; i++) {
		struct policy_job *job = &queue[i];
		int64_t s, end;

		rc = plan_earliest(pol->scratch, now, job->procs, job->est, &s);
		if (rc < 0)
			return rc;
		end = job->est > PLAN_TIME_MAX - s ? PLAN_TIME_MAX : s + job->est;
		if ((rc = plan_add(pol->scratch, s, end, job->procs)) < 0)
			return rc;
		job->start = s;
		job->started = 0;
		if (s != now)
			continue;
		if ((rc = policy_job_start(running, now, job, started + 1)) < 0)
			return rc;
		started++;
	}
	pol->scratch_valid = 1;
	return started;
}

double policy_saf_aged_key(int64_t est, int64_t procs, int64_t submit, int64_t now)
{
	double r = (double)est, w = now > submit ? (double)(now - submit) : 0;

	/* aged jobs sort below any area (>= 1), by submit time: below 2^52 every
	 * whole second stays exact (-1e30 + submit rounds to -1e30 for all) */
	if (w > POLICY_AGE_WAIT || (w + r) / (r > 10 ? r : 10) > POLICY_AGE_SLOWDOWN)
		return (submit > 0 ? (double)submit : 0) - 0x1p52;
	return r * (double)procs;
}

/* The priority of job at now, lower first (policy.h). */
static double priority_key(enum policy_kind kind, const struct policy_job *job,
                           int64_t now)
{
	double r = (double)job->est, n = (double)job->procs;
	double w = now > job->submit ? (double)(now - job->submit) : 0;
	double s = job->submit > 0 ? (double)job->submit : 0;

	switch (kind) {
	case POLICY_EASY_SJF:
		return r;
	case POLICY_EASY_WFP3:
		return -pow(w / r, 3) * n;
	case POLICY_EASY_UNICEF:
		return -(w + 1) / (log2(n + 1) * r);
	case POLICY_EASY_F1:
		return log10(r) * n + 870.0 * log10(s + 1);
	case POLICY_EASY_SAF_AGED:
		return policy_saf_aged_key(job->est, job->procs, job->submit, now);
	default:
		return r * n;
	}
}

static int key_cmp(const void *a, const void *b, void *ctx)
{
	const double *key = ctx;
	size_t i = *(const size_t *)a, k = *(const size_t *)b;

	if (key[i] != key[k])
		return key[i] < key[k] ? -1 : 1;
	return (i > k) - (i < k);
}

static int priority_reserve(struct policy *pol, size_t n)
{
	struct policy_job *s;
	size_t *p;
	double *k;

	if (n <= pol->sorted_cap)
		return 0;
	if (!(s = realloc(pol->sorted, n * sizeof(*s))))
		return -ENOMEM;
	pol->sorted = s;
	if (!(p = realloc(pol->perm, n * sizeof(*p))))
		return -ENOMEM;
	pol->perm = p;
	if (!(k = realloc(pol->key, n * sizeof(*k))))
		return -ENOMEM;
	pol->key = k;
	pol->sorted_cap = n;
	return 0;
}

/* EASY on the queue in priority order, backfilling shortest first (or the
 * controller's passes on it, under sched_order=saf_aged); the results go
 * back to queue.  Every pass is a full one: priorities move with time, so
 * pass->unchanged does not hold for the sorted order. */
static int priority_pass(struct policy *pol, struct plan *running,
                         const struct policy_pass *pass, struct policy_job *queue,
                         size_t n)
{
	enum policy_kind kind =
	    pol->kind == POLICY_CONTROLLER ? POLICY_EASY_SAF_AGED : pol->kind;
	struct policy_pass all = {.now = pass->now};
	int rc;

	if ((rc = priority_reserve(pol, n)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		pol->perm[i] = i;
		pol->key[i] = priority_key(kind, &queue[i], pass->now);
	}
	qsort_r(pol->perm, n, sizeof(*pol->perm), key_cmp, pol->key);
	for (size_t i = 0; i < n; i++)
		pol->sorted[i] = queue[pol->perm[i]];
	if (pol->kind == POLICY_CONTROLLER)
		rc = policy_controller_pass(running, pol->nodes, &pol->ctl, &all,
		                            pol->sorted, n);
	else
		rc = easy_pass(pol, running, &all, pol->sorted, n);
	for (size_t i = 0; i < n; i++)
		queue[pol->perm[i]] = pol->sorted[i];
	return rc;
}

int policy_schedule(struct policy *pol, struct plan *running,
                    const struct policy_pass *pass, struct policy_job *queue, size_t n)
{
	int64_t total = plan_total(running);
	size_t from = pass->unchanged, head;
	int started = 0, rc;

	if (from > n)
		return -EINVAL;
	for (size_t i = from; i < n; i++) {
		if (queue[i].procs < 1 || queue[i].procs > total || queue[i].est < 1)
			return -EINVAL;
	}
	for (size_t i = from; i < n; i++) {
		queue[i].started = 0;
		queue[i].start = POLICY_NO_START;
	}
	switch (pol->kind) {
	case POLICY_FCFS:
		if (pass->unchanged)
			return 0;
		rc = fcfs_head(running, pass->now, queue, n, &head, &started);
		return rc < 0 ? rc : started;
	case POLICY_EASY:
	case POLICY_EASY_SJBF:
		return easy_pass(pol, running, pass, queue, n);
	case POLICY_CONSERVATIVE:
		return conservative_pass(pol, running, pass, queue, n);
	case POLICY_CONTROLLER:
		if (pol->ctl.saf_aged)
			return priority_pass(pol, running, pass, queue, n);
		return policy_controller_pass(running, pol->nodes, &pol->ctl, pass, queue,
		                              n);
	case POLICY_EASY_SAF:
	case POLICY_EASY_SJF:
	case POLICY_EASY_WFP3:
	case POLICY_EASY_UNICEF:
	case POLICY_EASY_F1:
	case POLICY_EASY_SAF_AGED:
		return priority_pass(pol, running, pass, queue, n);
	}
	return -EINVAL;
}

void policy_set_nodes(struct policy *pol, struct sim_nodes *sn)
{
	pol->nodes = sn;
}

void policy_set_controller(struct policy *pol, const struct policy_controller_opts *o)
{
	pol->ctl = *o;
}
