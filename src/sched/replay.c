#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/error.h"
#include "sched/plan.h"
#include "sched/replay.h"
#include "sched/sim_nodes.h"
#include "common/common.h"

/* Same-instant events: corrections, then (from the submit order, not the heap)
 * submissions, then completions. */
enum replay_ev { EV_CORRECT, EV_COMPLETE };

struct replay_event {
	int64_t time;
	int kind;
	uint64_t seq; /* start order: jobs end in the order they started */
	size_t job;
};

struct replay {
	const struct replay_opts *opts;
	struct replay_job *jobs;
	size_t n;
	size_t *order;           /* [n] job indexes by (submit, id) */
	size_t next;             /* next in order to submit */
	int64_t *est;            /* [n] current estimate */
	unsigned *ncorr;         /* [n] corrections of its estimate so far */
	struct replay_event *ev; /* binary heap by (time, kind, id) */
	size_t nev, evcap;
	struct policy_job *queue; /* [n] pending jobs in (submit, id) order */
	size_t nq;
	size_t unchanged; /* see policy_pass */
	struct plan *running;
	struct policy *pol;
	struct predict *pred;
	struct replay_stats st;
	struct sim_nodes *nodes; /* opts->topo: what each running job holds */
	uint64_t seq;            /* the next start-order number */
	int64_t last_pass;       /* time of the previous pass; -1 before the first */
};

static int ev_less(const struct replay_event *a, const struct replay_event *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	if (a->seq != b->seq)
		return a->seq < b->seq;
	return a->job < b->job;
}

static int ev_push(struct replay *r, int64_t time, int kind, size_t job, uint64_t seq)
{
	struct replay_event e = {.time = time, .kind = kind, .seq = seq, .job = job};
	size_t i;

	if (r->nev == r->evcap) {
		size_t cap = r->evcap ? r->evcap * 2 : 256;
		struct replay_event *v = realloc(r->ev, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->ev = v;
		r->evcap = cap;
	}
	for (i = r->nev++; i > 0 && ev_less(&e, &r->ev[(i - 1) / 2]); i = (i - 1) / 2)
		r->ev[i] = r->ev[(i - 1) / 2];
	r->ev[i] = e;
	return 0;
}

static struct replay_event ev_pop(struct replay *r)
{
	struct replay_event top = r->ev[0], last = r->ev[--r->nev];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= r->nev)
			break;
		if (c + 1 < r->nev && ev_less(&r->ev[c + 1], &r->ev[c]))
			c++;
		if (!ev_less(&r->ev[c], &last))
			break;
		r->ev[i] = r->ev[c];
		i = c;
	}
	if (r->nev)
		r->ev[i] = last;
	return top;
}

static int order_cmp(const void *a, const void *b, void *ctx)
{
	const struct replay_job *jobs = ctx;
	size_t i = *(const size_t *)a, k = *(const size_t *)b;
	const struct replay_job *x = &jobs[i], *y = &jobs[k];

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (i > k) - (i < k);
}

static int replay_check(const struct replay *r, struct rota_error *err)
{
	if (r->opts->procs < 1) {
		errprintf(err, "the machine needs at least one processor");
		return -EINVAL;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct replay_job *j = &r->jobs[i];
		if (j->submit < 0 || j->run < 1 || j->req < 1 || j->procs < 1 ||
		    j->procs > r->opts->procs) {
			errprintf(err,
			          "job %lld: invalid submit time, run time, requested "
			          "time or size",
			          (long long)j->id);
			return -EINVAL;
		}
	}
	return 0;
}

/* A job ended at now: release what is left of its reservation. */
static int on_complete(struct replay *r, int64_t now, size_t j)
{
	struct replay_job *job = &r->jobs[j];
	int64_t end = job->start + r->est[j];
	int rc;

	if (end > now && (rc = plan_add(r->running, now, end, -(int64_t)job->procs)) < 0)
		return rc;
	if (r->nodes)
		sim_nodes_end(r->nodes, j);
	r->unchanged = 0;
	return predict_record_job(r->pred, &(struct predict_job){.user = job->user,
	                                                         .requested = job->req,
	                                                         .actual = job->run,
	                                                         .procs = job->procs});
}

/* A job reached its estimate and still runs: extend its reservation. */
static int on_correct(struct replay *r, int64_t now, size_t j)
{
	struct replay_job *job = &r->jobs[j];
	int64_t est = predict_correct_nth(r->pred, r->est[j], job->req, r->ncorr[j]++);
	int rc;

	rc = plan_add(r->running, now, job->start + est, job->procs);
	if (rc < 0)
		return rc;
	r->est[j] = est;
	if (r->nodes)
		sim_nodes_extend(r->nodes, j, job->start + est);
	r->st.corrections++;
	r->unchanged = 0;
	if (est < job->run)
		return ev_push(r, job->start + est, EV_CORRECT, j, r->seq++);
	return 0;
}

static void on_submit(struct replay *r, size_t j)
{
	struct replay_job *job = &r->jobs[j];

	r->est[j] =
	    predict_estimate_job(r->pred, &(struct predict_job){.user = job->user,
	                                                        .requested = job->req,
	                                                        .actual = job->run,
	                                                        .procs = job->procs});
	r->queue[r->nq++] = (struct policy_job){.ref = j,
	                                        .procs = job->procs,
	                                        .est = r->est[j],
	                                        .submit = job->submit,
	                                        .start = POLICY_NO_START};
}

/* One pass at now; start what the policy starts and drop it from the queue. */
static int replay_pass(struct replay *r, int64_t now)
{
	struct policy_pass pass = {.now = now, .unchanged = r->unchanged};
	uint64_t base = r->seq;
	size_t k = 0;
	int rc;

	r->st.passes++;
	/* a job whose estimate ended at now has left the plan though its
	 * completion comes after the submissions: the head may fit now */
	if (now != r->last_pass)
		pass.unchanged = r->unchanged = 0;
	r->last_pass = now;
	rc = policy_schedule(r->pol, r->running, &pass, r->queue, r->nq);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		r->unchanged = r->nq;
		return 0;
	}
	r->seq = base + (uint64_t)rc; /* the pass ranked its starts 1..rc */
	for (size_t i = 0; i < r->nq; i++) {
		size_t j = (size_t)r->queue[i].ref;
		uint64_t seq;

		if (!r->queue[i].started) {
			r->queue[k++] = r->queue[i];
			continue;
		}
		seq = base + (uint64_t)r->queue[i].started - 1;
		r->jobs[j].start = now;
		if ((rc = ev_push(r, now + r->jobs[j].run, EV_COMPLETE, j, seq)) < 0)
			return rc;
		if (r->est[j] < r->jobs[j].run &&
		    (rc = ev_push(r, now + r->est[j], EV_CORRECT, j, seq)) < 0)
			return rc;
	}
	r->nq = k;
	r->unchanged = 0; /* the queue was compacted */
	return 0;
}

/* Apply the next event and schedule: each correction, submission and
 * completion is an event of its own, with its own pass.  One pass per
 * submission matters for EASY-SJBF: a pass for two arrivals together would
 * try the shorter first, where the first arrival's own pass may already have
 * backfilled it. */
static int replay_step(struct replay *r)
{
	int64_t now = INT64_MAX;
	int submit_now;
	int rc;

	if (r->nev)
		now = r->ev[0].time;
	if (r->next < r->n && r->jobs[r->order[r->next]].submit < now)
		now = r->jobs[r->order[r->next]].submit;
	plan_trim(r->running, now);
	submit_now = r->next < r->n && r->jobs[r->order[r->next]].submit == now;
	if (r->nev && r->ev[0].time == now &&
	    (r->ev[0].kind == EV_CORRECT || !submit_now)) {
		struct replay_event e = ev_pop(r);
		rc = e.kind == EV_CORRECT ? on_correct(r, now, e.job)
		                          : on_complete(r, now, e.job);
		if (rc < 0)
			return rc;
		return replay_pass(r, now);
	}
	on_submit(r, r->order[r->next++]);
	return replay_pass(r, now);
}

static void replay_stats(struct replay *r)
{
	int64_t first = INT64_MAX, last = INT64_MIN;
	double area = 0, wait = 0, resp = 0, bsld = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct replay_job *j = &r->jobs[i];
		double w = (double)(j->start - j->submit), run = (double)j->run;
		double b =
		    (w + run) / (run > REPLAY_BSLD_BOUND ? run : REPLAY_BSLD_BOUND);

		first = j->submit < first ? j->submit : first;
		last = j->start + j->run > last ? j->start + j->run : last;
		area += run * j->procs;
		wait += w;
		resp += w + run;
		bsld += b > 1 ? b : 1;
		if (w > r->st.max_wait)
			r->st.max_wait = w;
	}
	r->st.jobs = r->n;
	if (!r->n)
		return;
	r->st.makespan = last - first;
	r->st.utilization = r->st.makespan > 0
	                        ? area / ((double)r->opts->procs * (double)r->st.makespan)
	                        : 0;
	r->st.avg_wait = wait / (double)r->n;
	r->st.avg_response = resp / (double)r->n;
	r->st.avg_bsld = bsld / (double)r->n;
}

static void replay_release(struct replay *r)
{
	free(r->order);
	free(r->est);
	free(r->ncorr);
	free(r->ev);
	free(r->queue);
	plan_destroy(r->running);
	policy_destroy(r->pol);
	predict_destroy(r->pred);
	sim_nodes_destroy(r->nodes);
}

int replay_run(const struct replay_opts *opts, struct replay_job *jobs, size_t n,
               struct replay_stats *ret_stats, struct rota_error *err)
{
	struct replay r = {.opts = opts, .jobs = jobs, .n = n, .last_pass = -1};
	int rc = -ENOMEM;

	r.order = malloc((n ? n : 1) * sizeof(*r.order));
	r.est = malloc((n ? n : 1) * sizeof(*r.est));
	r.ncorr = calloc(n ? n : 1, sizeof(*r.ncorr));
	r.queue = malloc((n ? n : 1) * sizeof(*r.queue));
	r.running = plan_create(opts->procs);
	r.pol = policy_create(opts->policy, opts->procs);
	r.pred = predict_create(opts->estimates);
	if (!r.order || !r.est || !r.ncorr || !r.queue || !r.running || !r.pol ||
	    !r.pred) {
		errprintf(err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		r.order[i] = i;
	qsort_r(r.order, n, sizeof(*r.order), order_cmp, jobs);
	if ((rc = replay_check(&r, err)) < 0)
		goto out;
	predict_set_correction(r.pred, opts->correction);
	policy_set_controller(
	    r.pol, &(struct policy_controller_opts){.part_reserve = opts->part_reserve,
	                                            .saf_aged = opts->saf_aged});
	if (opts->topo) {
		uint32_t c = opts->node_cpus ? opts->node_cpus : 1;
		r.nodes = sim_nodes_create((size_t)opts->procs / c, c, n, opts->topo,
		                           opts->topo_blind ? SIM_PLACE_INDEX
		                                            : SIM_PLACE_SWITCH);
		if (!r.nodes) {
			errprintf(err, "out of memory");
			rc = -ENOMEM;
			goto out;
		}
		policy_set_nodes(r.pol, r.nodes);
	}
	while (r.next < n || r.nev) {
		if ((rc = replay_step(&r)) < 0) {
			errprintf(err, "scheduling pass failed");
			goto out;
		}
	}
	replay_stats(&r);
	if (r.nodes)
		sim_nodes_stats(r.nodes, &r.st.multi_jobs, &r.st.multi_leaves);
	*ret_stats = r.st;
	rc = 0;
out:
	replay_release(&r);
	return rc;
}
