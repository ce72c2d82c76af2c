/* policy_controller.c - `rota sim --policy controller`: the controller's own
 * passes (pass.h, then bf_run.h) driven over a trace's queue.  The pool of P
 * processors is P nodes of one CPU in one partition; a job of k processors
 * asks for k nodes, one task each.  The backfill run tests every job, over an
 * unbounded window at a resolution of one second, at every pass;
 * bf_job_part_count_reserve and sched_order=saf_aged as the caller says
 * (policy_set_controller). */
#include <errno.h>
#include <stdlib.h>
#include "sched/backfill.h"
#include "sched/bf_run.h"
#include "sched/pass.h"
#include "sched/plan.h"
#include "sched/policy.h"
#include "sched/sim_nodes.h"

struct sim_view {
	struct plan *running;
	struct policy_job *queue;
	int64_t now;
	int failed; /* -ENOMEM while starting */
	int started;
	struct sched_hold
	    *holds; /* [nholds]: running jobs', then the main pass's starts */
	size_t nholds;
	struct sim_nodes *sn; /* --topology: the nodes each job holds; NULL none */
};

static int sim_admit(void *ctx, size_t i, uint32_t *ret_part)
{
	(void)ctx;
	(void)i;
	*ret_part = 0;
	return SCHED_TRY;
}

static int sim_next(void *ctx, size_t i, struct sched_job *job)
{
	struct sim_view *v = ctx;
	const struct policy_job *pj = &v->queue[i];

	if (pj->started)
		return SCHED_SKIP;
	if (v->sn && sim_nodes_cpus(v->sn) > 1) { /* k tasks of one CPU, packed */
		*job = (struct sched_job){.part = 0,
		                          .req = {.min_nodes = 1,
		                                  .max_nodes = SCHED_UNSET,
		                                  .num_tasks = pj->procs,
		                                  .ntasks_per_node = SCHED_UNSET,
		                                  .cpus_per_task = 1},
		                          .dur = pj->est,
		                          .nalts = 1};
		return SCHED_TRY;
	}
	*job = (struct sched_job){.part = 0,
	                          .req = {.min_nodes = pj->procs,
	                                  .max_nodes = SCHED_UNSET,
	                                  .num_tasks = SCHED_UNSET,
	                                  .ntasks_per_node = 1,
	                                  .cpus_per_task = 1},
	                          .dur = pj->est,
	                          .nalts = 1};
	return SCHED_TRY;
}

static void sim_mark(void *ctx, size_t i, size_t alt, struct sched_node *nodes)
{
	(void)ctx;
	(void)i;
	(void)alt;
	(void)nodes; /* every node is usable, none required: set once */
}

static int sim_start(void *ctx, size_t i, const struct sched_alloc *a)
{
	struct sim_view *v = ctx;

	if (policy_job_start(v->running, v->now, &v->queue[i], v->started + 1) < 0) {
		v->failed = 1;
		return -ENOMEM;
	}
	v->started++;
	if (v->sn &&
	    sim_nodes_take(v->sn, v->queue[i].ref, a, v->now + v->queue[i].est) < 0) {
		v->failed = 1;
		return -ENOMEM;
	}
	/* the main pass's starts keep their nodes in the backfill run (holds has
	 * room for every node once) */
	for (uint32_t k = 0; k < a->nnodes && v->holds; k++)
		v->holds[v->nholds++] = (struct sched_hold){
		    a->node_idx[k], v->now + v->queue[i].est, a->cpus[k], 0};
	return SCHED_STARTED;
}

static void sim_wait(void *ctx, size_t i, enum sched_wait why,
                     const struct sched_job *job)
{
	(void)ctx;
	(void)i;
	(void)why;
	(void)job;
}

static void sim_plan(void *ctx, size_t i, int64_t start, const struct sched_alloc *a)
{
	struct sim_view *v = ctx;

	(void)a;
	v->queue[i].start = start;
}

static void sim_unplan(void *ctx, size_t i)
{
	struct sim_view *v = ctx;

	v->queue[i].start = POLICY_NO_START;
}

static const struct sched_ops sim_ops = {
    .admit = sim_admit,
    .next = sim_next,
    .mark = sim_mark,
    .start = sim_start,
    .wait = sim_wait,
    .plan = sim_plan,
    .unplan = sim_unplan,
};

/* The running plan as holds on nodes of one processor: node k is held from
 * now until the usage drops to k or below (the pool's profile only falls
 * after now).  Node k < used is busy now in the snapshot as well. */
static int running_holds(const struct plan *running, int64_t now,
                         struct sched_hold *holds, size_t *ret_n)
{
	int64_t prev = plan_free_at(running, now), total = plan_total(running);
	int64_t used = total - prev, t, u;
	size_t steps = plan_steps(running), n = 0;

	/* an underestimated job corrected later may overfill the pool for a
	 * while: all nodes are busy then */
	if (used > total)
		used = total;
	for (size_t i = 0; i < steps && used > 0; i++) {
		plan_step(running, i, &t, &u);
		if (t <= now)
			continue;
		if (u < 0)
			u = 0;
		if (u > total)
			u = total;
		for (int64_t k = u; k < used; k++)
			holds[n++] = (struct sched_hold){(uint32_t)k, t, 1, 0};
		if (u < used)
			used = u;
	}
	for (int64_t k = 0; k < used; k++) /* running beyond the last step */
		holds[n++] = (struct sched_hold){(uint32_t)k, BF_FOREVER, 1, 0};
	*ret_n = n;
	return 0;
}

int policy_controller_pass(struct plan *running, struct sim_nodes *sn,
                           const struct policy_controller_opts *o,
                           const struct policy_pass *pass, struct policy_job *queue,
                           size_t n)
{
	int64_t total = plan_total(running);
	int64_t nnodes = sn ? (int64_t)sim_nodes_count(sn) : total;
	struct sim_view v = {
	    .running = running, .queue = queue, .now = pass->now, .sn = sn};
	struct sched_hold *holds = calloc((size_t)total + 1, sizeof(*holds));
	uint32_t *all = calloc((size_t)total + 1, sizeof(*all));
	struct sched_snap s = {0};
	struct sched_group part;
	struct bf_run *run = NULL;
	struct bf_run_params p = {.window = BF_FOREVER,
	                          .resolution = 1,
	                          .max_job_test = UINT32_MAX,
	                          .part_reserve = o->part_reserve,
	                          .shortest_first = o->saf_aged};
	size_t nholds = 0;
	int rc = -ENOMEM;

	if (pass->unchanged == n) {
		rc = 0; /* nothing ended, nothing arrived: nothing can start */
		goto out;
	}
	if (!holds || !all || sched_snap_init(&s, (size_t)nnodes, 1) < 0)
		goto out;
	for (int64_t k = 0; k < nnodes; k++)
		all[k] = (uint32_t)k;
	part = (struct sched_group){all, (size_t)nnodes};
	s.parts = &part;
	if (sn) {
		s.topo = sim_nodes_topo(sn);
		nholds = sim_nodes_snapshot(sn, s.nodes, holds);
	} else {
		running_holds(running, pass->now, holds, &nholds);
		for (int64_t k = 0; k < total; k++)
			s.nodes[k] = (struct sched_node){.cpus = 1, .usable = 1};
		for (size_t h = 0; h < nholds; h++)
			s.nodes[holds[h].node].alloc_cpus = 1;
	}
	for (size_t i = 0; i < n; i++) {
		queue[i].started = 0;
		queue[i].start = POLICY_NO_START;
	}
	v.holds = holds;
	v.nholds = nholds;
	sched_main_pass(&s, &sim_ops, &v, n, &(struct sched_pass_opts){.depth = n});
	v.holds = NULL; /* the backfill run's starts are in its plan already */
	if (v.failed || !(run = bf_run_create(&p, &sim_ops, &v, n)) ||
	    bf_run_rebuild(run, &s, holds, v.nholds, pass->now) < 0)
		goto out;
	while (bf_run_step(run) && !v.failed)
		;
	if (v.failed)
		goto out;
	rc = v.started;
out:
	bf_run_destroy(run);
	sched_snap_release(&s);
	free(holds);
	free(all);
	return rc;
}
