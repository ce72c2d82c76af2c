/* test_pass.c - the shared scheduling passes (src/sched/pass.c, bf_run.c)
 * through a small driver of their own: partitions blocking, arrays started
 * task by task, reservations, a rebuild keeping only the jobs that still
 * wait, bf_max_job_test; a job of several partitions as queue records
 * (src/sched/queue.h), one per partition. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "sched/backfill.h"
#include "sched/bf_run.h"
#include "sched/pass.h"
#include "sched/queue.h"

#define NOW   1000
#define MAXJ  8
#define NODES 4 /* 2 partitions of 2 nodes, 4 CPUs each */

struct tjob {
	uint32_t part, nodes, cpus; /* per node */
	int64_t dur;
	uint32_t tasks;     /* > 1: an array of so many tasks */
	uint32_t gpus;      /* per node, kind 0 */
	uint32_t named;     /* bit k: node k named in its --nodelist */
	uint32_t nodes_may; /* bit k: node k usable; 0: its partition's */
	int resv;           /* in a reservation: admit gives no partition */
	uint32_t comp[3];   /* a heterogeneous job's other components (indexes) */
	size_t ncomp;
	int skip, held;
	/* another record of job same - 1 (-p a,b): it started once one did */
	size_t same;
	/* out */
	uint32_t started;
	int waited; /* 1 + enum sched_wait */
	int64_t planned;
	int kept; /* keep() answer */
};

struct tview {
	struct tjob job[MAXJ];
	size_t n;
	size_t cur; /* the job (or component) mark() and plan() are about */
};

/* The record that counts job i's starts (its first, for one of several). */
static struct tjob *root(struct tview *v, size_t i)
{
	return v->job[i].same ? &v->job[v->job[i].same - 1] : &v->job[i];
}

static int t_admit(void *ctx, size_t i, uint32_t *ret_part)
{
	struct tview *v = ctx;

	if (v->job[i].skip || root(v, i)->started >= root(v, i)->tasks)
		return SCHED_SKIP;
	*ret_part = v->job[i].resv ? 2 : v->job[i].part;
	return SCHED_TRY;
}

static void t_fill(const struct tjob *j, struct sched_job *job)
{
	*job = (struct sched_job){.part = j->part,
	                          .req = {.min_nodes = j->nodes,
	                                  .max_nodes = SCHED_UNSET,
	                                  .num_tasks = SCHED_UNSET,
	                                  .ntasks_per_node = 1,
	                                  .cpus_per_task = j->cpus},
	                          .dur = j->dur,
	                          .nalts = 1};
	if (j->gpus) {
		job->req.ngres = 1;
		job->req.gres[0] =
		    (struct sched_gres_want){.kinds = 1, .per_node = j->gpus};
	}
}

static int t_next(void *ctx, size_t i, struct sched_job *job)
{
	struct tview *v = ctx;
	struct tjob *j = &v->job[i];

	if (j->skip || root(v, i)->started >= root(v, i)->tasks)
		return SCHED_SKIP;
	if (j->held)
		return SCHED_HELD;
	v->cur = i;
	t_fill(j, job);
	return SCHED_TRY;
}

static int t_part(void *ctx, size_t i, size_t k, struct sched_job *job)
{
	struct tview *v = ctx;

	if (k > v->job[i].ncomp)
		return SCHED_SKIP;
	v->cur = k ? v->job[i].comp[k - 1] : i;
	t_fill(&v->job[v->cur], job);
	return SCHED_TRY;
}

static int t_start_parts(void *ctx, size_t i, const struct sched_alloc *a, size_t n)
{
	struct tview *v = ctx;

	assert_int_equal(n, v->job[i].ncomp + 1);
	for (size_t k = 0; k < n; k++) {
		struct tjob *c = &v->job[k ? v->job[i].comp[k - 1] : i];
		assert_int_equal(a[k].nnodes, c->nodes);
		c->started++;
	}
	return SCHED_STARTED;
}

static void t_mark(void *ctx, size_t i, size_t alt, struct sched_node *nodes)
{
	struct tview *v = ctx;

	(void)i;
	for (size_t k = 0; k < NODES; k++) {
		const struct tjob *j = &v->job[v->cur];
		nodes[k].usable =
		    j->nodes_may ? (j->nodes_may >> k) & 1 : k / 2 == j->part;
		nodes[k].required = (j->named >> k) & 1;
	}
}

static int t_start(void *ctx, size_t i, const struct sched_alloc *a)
{
	struct tview *v = ctx;
	struct tjob *j = root(v, i);

	j->started++;
	v->job[i].waited = -1; /* this record started it */
	return j->started < j->tasks ? SCHED_MORE : SCHED_STARTED;
}

static void t_wait(void *ctx, size_t i, enum sched_wait why, const struct sched_job *job)
{
	struct tview *v = ctx;

	v->job[i].waited = 1 + (int)why;
}

static void t_plan(void *ctx, size_t i, int64_t start, const struct sched_alloc *a)
{
	struct tview *v = ctx;

	(void)i;
	v->job[v->cur].planned = start;
}

static void t_unplan(void *ctx, size_t i)
{
	struct tview *v = ctx;

	v->job[i].planned = -1;
	for (size_t k = 0; k < v->job[i].ncomp; k++)
		v->job[v->job[i].comp[k]].planned = -1;
}

static int t_keep(void *ctx, size_t i)
{
	struct tview *v = ctx;

	return v->job[i].kept;
}

static const struct sched_ops ops = {
    .admit = t_admit,
    .next = t_next,
    .mark = t_mark,
    .start = t_start,
    .wait = t_wait,
    .plan = t_plan,
    .unplan = t_unplan,
    .keep = t_keep,
    .part = t_part,
    .start_parts = t_start_parts,
};

static const uint32_t p0[] = {0, 1}, p1[] = {2, 3};
static const struct sched_group parts[] = {{p0, 2}, {p1, 2}};

static void snap_make(struct sched_snap *s)
{
	assert_int_equal(sched_snap_init(s, NODES, 2), 0);
	s->parts = parts;
	for (size_t k = 0; k < NODES; k++)
		s->nodes[k] = (struct sched_node){.cpus = 4, .mem = 1000};
}

static struct tjob J(uint32_t part, uint32_t nodes, uint32_t cpus, int64_t dur) {
	return (struct tjob){.part = part,
	                     .nodes = nodes,
	                     .cpus = cpus,
	                     .dur = dur,
	                     .tasks = 1,
	                     .planned = -1,
	                     .kept = 1};
}

/* A job that does not fit blocks its partition only: the job after it there
 * waits for priority, one in the other partition starts; a skipped job
 * blocks nobody; an array starts tasks while they fit. */
static void
test_main_pass_blocks_per_partition(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 5};
	size_t considered;

	snap_make(&s);
	s.nodes[0].alloc_cpus = 4; /* partition 0: one node busy */
	v.job[0] = J(0, 2, 1, 60); /* needs both nodes: waits */
	v.job[1] = J(0, 1, 1, 60); /* would fit, but a job before it waits */
	v.job[2] = J(1, 1, 4, 60);
	v.job[2].skip = 1;         /* held: blocks nobody */
	v.job[3] = J(1, 1, 2, 60); /* an array of 5 tasks of 2 CPUs: 4 fit */
	v.job[3].tasks = 5;
	v.job[4] = J(1, 1, 1, 60); /* partition 1 is now blocked by the array */
	considered = sched_main_pass(&s, &ops, &v, v.n,
	                             &(struct sched_pass_opts){.depth = 10, .full = 1});
	assert_int_equal(considered, 5);
	assert_int_equal(v.job[0].waited, 1 + SCHED_WAIT_RESOURCES);
	assert_int_equal(v.job[1].waited, 1 + SCHED_WAIT_PRIORITY);
	assert_int_equal(v.job[1].started, 0);
	assert_int_equal(v.job[2].waited, 0);
	assert_int_equal(v.job[3].started, 4);
	assert_int_equal(v.job[3].waited, 1 + SCHED_WAIT_RESOURCES);
	assert_int_equal(v.job[4].waited, 1 + SCHED_WAIT_PRIORITY);
	assert_int_equal(s.nodes[2].alloc_cpus + s.nodes[3].alloc_cpus, 8);
	/* not full: it stops once every partition is blocked */
	memset(&v, 0, sizeof(v));
	v.job[0] = J(0, 2, 1, 60);
	v.job[1] = J(1, 1, 1, 60); /* nodes 2 and 3 are full */
	v.job[2] = J(1, 1, 1, 60);
	considered =
	    sched_main_pass(&s, &ops, &v, 3, &(struct sched_pass_opts){.depth = 10});
	assert_int_equal(considered, 2);
	assert_int_equal(v.job[2].waited, 0);
	sched_snap_release(&s);
}

/* A job that names the nodes it needs and cannot start keeps those nodes
 * alone: its partition goes on on the others.  A job that blocks its
 * partition keeps the partition's nodes from another partition's jobs too
 * (Slurm's main scheduler). */
static void test_main_pass_withholds_what_a_waiting_job_needs(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 3};

	snap_make(&s);
	s.nodes[0].alloc_cpus = 4; /* node 0 busy */
	v.job[0] = J(0, 1, 1, 60);
	v.job[0].named = 1u << 0;  /* -w node0: waits for it */
	v.job[1] = J(0, 1, 1, 60); /* starts on node 1 */
	v.job[2] = J(0, 1, 1, 60);
	v.job[2].named = 1u << 1; /* -w node1: shares it with job 1 */
	sched_main_pass(&s, &ops, &v, v.n, &(struct sched_pass_opts){.depth = 10});
	assert_int_equal(v.job[0].waited, 1 + SCHED_WAIT_RESOURCES);
	assert_int_equal(v.job[1].started, 1);
	assert_int_equal(v.job[2].started, 1);
	assert_int_equal(s.nodes[1].alloc_cpus, 2);
	/* a job after job 0 that could use node 0's free CPUs does not */
	memset(&v, 0, sizeof(v));
	s.nodes[0].alloc_cpus = 3;
	s.nodes[1].alloc_cpus = 4;
	v.job[0] = J(0, 1, 2, 60);
	v.job[0].named = 1u << 0;
	v.job[1] = J(1, 1, 1, 60);
	v.job[1].nodes_may = 1u << 0 | 1u << 2; /* partition 1 holds node 0 too */
	v.job[1].named = 1u << 0;
	sched_main_pass(&s, &ops, &v, 2, &(struct sched_pass_opts){.depth = 10});
	assert_int_equal(v.job[0].waited, 1 + SCHED_WAIT_RESOURCES);
	assert_int_equal(v.job[1].started, 0);
	assert_int_equal(s.nodes[0].alloc_cpus, 3);
	/* partition 0 blocked: its nodes are kept from partition 1's jobs */
	memset(&v, 0, sizeof(v));
	s.nodes[0].alloc_cpus = 4;
	s.nodes[1].alloc_cpus = 0;
	v.job[0] = J(0, 2, 1, 60); /* needs both: blocks partition 0 */
	v.job[1] = J(1, 1, 1, 60);
	v.job[1].nodes_may = 1u << 1; /* partition 1 shares node 1 */
	v.job[2] = J(1, 1, 1, 60);    /* node 2: starts */
	sched_main_pass(&s, &ops, &v, 3, &(struct sched_pass_opts){.depth = 10});
	assert_int_equal(v.job[1].started, 0);
	assert_int_equal(v.job[1].waited, 1 + SCHED_WAIT_RESOURCES);
	assert_int_equal(s.nodes[1].alloc_cpus, 0);
	/* job 1 does not fit even were its nodes idle: it blocks nobody */
	assert_int_equal(v.job[2].started, 1);
	/* a job of a reservation (admit's partition: none) blocks nobody and
	 * may use the nodes kept for others */
	memset(&v, 0, sizeof(v));
	s.nodes[2].alloc_cpus = 0;
	v.job[0] = J(0, 2, 1, 60); /* node 0 busy: blocks partition 0 */
	v.job[1] = J(0, 1, 1, 60);
	v.job[1].resv = 1;
	v.job[2] = J(0, 2, 1, 60);
	v.job[2].resv = 1; /* does not fit: blocks nobody */
	v.job[3] = J(1, 1, 1, 60);
	sched_main_pass(&s, &ops, &v, 4, &(struct sched_pass_opts){.depth = 10});
	assert_int_equal(v.job[0].waited, 1 + SCHED_WAIT_RESOURCES);
	assert_int_equal(v.job[1].started, 1);
	assert_int_equal(s.nodes[1].alloc_cpus, 1);
	assert_int_equal(v.job[3].started, 1);
	/* the next pass starts afresh */
	memset(&v, 0, sizeof(v));
	v.job[0] = J(1, 1, 1, 60);
	v.job[0].nodes_may = 1u << 1;
	sched_main_pass(&s, &ops, &v, 1, &(struct sched_pass_opts){.depth = 10});
	assert_int_equal(v.job[0].started, 1);
	sched_snap_release(&s);
}

/* A job of partitions 0 and 1 (-p a,b), of the same PriorityTier: its
 * records come together in its priority's place; the one in partition 0 waits
 * (busy nodes) and blocks partition 0 only, the one in partition 1 starts it,
 * and no record of it starts it twice. */
static void test_main_pass_job_of_two_partitions(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 4};
	struct sched_qrec q[] = {
	    {.job = 1, .at = 0, .tier = 1, .prio = 40, .job_id = 11}, /* B, part 0 */
	    {.job = 0, .at = 1, .tier = 1, .prio = 50, .job_id = 10}, /* A, part 1 */
	    {.job = 0, .at = 0, .tier = 1, .prio = 50, .job_id = 10}, /* A, part 0 */
	    {.job = 2, .at = 0, .tier = 1, .prio = 30, .job_id = 12}, /* C, part 1 */
	};

	sched_queue_sort(q, 4);
	/* A in its list's order, then B, then C */
	assert_int_equal(q[0].job, 0);
	assert_int_equal(q[0].at, 0);
	assert_int_equal(q[1].job, 0);
	assert_int_equal(q[1].at, 1);
	assert_int_equal(q[2].job, 1);
	assert_int_equal(q[3].job, 2);
	snap_make(&s);
	s.nodes[0].alloc_cpus = s.nodes[1].alloc_cpus = 4; /* partition 0 full */
	v.job[0] = J(0, 1, 4, 60);                         /* A in partition 0 */
	v.job[1] = J(1, 1, 4, 60);                         /* A in partition 1 */
	v.job[1].same = 1;
	v.job[2] = J(0, 1, 1, 60); /* B: partition 0 is blocked by A */
	v.job[3] = J(1, 1, 4, 60); /* C: the node A left in partition 1 */
	sched_main_pass(&s, &ops, &v, 4, &(struct sched_pass_opts){.depth = 10});
	assert_int_equal(v.job[0].waited, 1 + SCHED_WAIT_RESOURCES);
	assert_int_equal(v.job[0].started, 1); /* once, */
	assert_int_equal(v.job[1].waited, -1); /* from its partition-1 record */
	assert_int_equal(v.job[2].waited, 1 + SCHED_WAIT_PRIORITY);
	assert_int_equal(v.job[3].waited, -1);
	assert_int_equal(s.nodes[2].alloc_cpus + s.nodes[3].alloc_cpus, 8);
	/* with room in both, the first record starts it; the other is not
	 * tried (it blocks nobody: D after it in partition 1 starts) */
	memset(&v, 0, sizeof(v));
	s.nodes[0].alloc_cpus = s.nodes[1].alloc_cpus = 0;
	s.nodes[2].alloc_cpus = s.nodes[3].alloc_cpus = 0;
	v.job[0] = J(0, 2, 4, 60);
	v.job[1] = J(1, 2, 4, 60);
	v.job[1].same = 1;
	v.job[2] = J(1, 2, 4, 60);
	sched_main_pass(&s, &ops, &v, 3, &(struct sched_pass_opts){.depth = 10});
	assert_int_equal(v.job[0].waited, -1);
	assert_int_equal(v.job[0].started, 1);
	assert_int_equal(v.job[1].waited, 0);
	assert_int_equal(v.job[2].waited, -1);
	sched_snap_release(&s);
}

/* Slurm's order of queue records: a higher PriorityTier partition's records
 * first whatever the jobs' priorities, then priority, then job id, and a
 * job's records in its list's order. */
static void test_queue_order_by_tier(void **state)
{
	struct sched_qrec q[] = {
	    {.job = 0, .at = 0, .tier = 1, .prio = 90, .job_id = 5}, /* A in lo */
	    {.job = 0, .at = 1, .tier = 9, .prio = 90, .job_id = 5}, /* A in hi */
	    {.job = 1, .at = 0, .tier = 9, .prio = 10, .job_id = 6}, /* B in hi */
	    {.job = 2, .at = 0, .tier = 1, .prio = 95, .job_id = 7}, /* C in lo */
	    {.job = 3, .at = 0, .tier = 1, .prio = 95, .job_id = 4}, /* D in lo */
	};
	const uint32_t want_job[] = {0, 1, 3, 2, 0}, want_at[] = {1, 0, 0, 0, 0};

	sched_queue_sort(q, 5);
	for (size_t k = 0; k < 5; k++) {
		assert_int_equal(q[k].job, want_job[k]);
		assert_int_equal(q[k].at, want_at[k]);
	}
	sched_queue_sort(q, 0); /* nothing to do */
}

static struct bf_run *run_make(struct tview *v, struct sched_snap *s,
                               const struct sched_hold *h, size_t nh, uint32_t max_test)
{
	struct bf_run_params p = {
	    .window = 86400, .resolution = 1, .max_job_test = max_test};
	struct bf_run *r = bf_run_create(&p, &ops, v, v->n);

	assert_non_null(r);
	assert_int_equal(bf_run_rebuild(r, s, h, nh, NOW), 0);
	return r;
}

/* The head waits for the running job's end and gets a reservation; a short
 * job starts now beside it, a long one that would delay it is planned after
 * it; a held job counts as tested and gets no plan. */
static void test_backfill_reserves_and_backfills(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 4};
	/* node 0 busy until NOW + 100 */
	struct sched_hold h = {.node = 0, .end = NOW + 100, .cpus = 4};
	struct bf_run *r;

	snap_make(&s);
	v.job[0] = J(0, 2, 4, 50);  /* both nodes: at NOW + 100 */
	v.job[1] = J(0, 1, 4, 200); /* would end after NOW + 100: after the head */
	v.job[2] = J(0, 1, 4, 100);
	v.job[2].held = 1;
	v.job[3] = J(0, 1, 2, 100); /* fits on node 1 until NOW + 100: starts */
	r = run_make(&v, &s, &h, 1, 100);
	while (bf_run_step(r))
		;
	assert_int_equal(v.job[0].planned, NOW + 100);
	assert_int_equal(v.job[1].started, 0);
	assert_int_equal(v.job[1].planned, NOW + 150);
	assert_int_equal(v.job[2].planned, -1);
	assert_int_equal(v.job[3].started, 1);
	assert_int_equal(bf_run_tested(r), 4);
	assert_int_equal(bf_run_started(r), 1);
	bf_run_destroy(r);
	sched_snap_release(&s);
}

/* A rebuild keeps the reservations of jobs that still wait and drops the
 * others': with the head's dropped, a later job may start now. */
static void test_rebuild_keeps_waiting_jobs(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 2};
	struct sched_hold h = {.node = 0, .end = NOW + 100, .cpus = 4};
	struct bf_run *r;

	snap_make(&s);
	v.job[0] = J(0, 2, 4, 50);  /* reserved both nodes at NOW + 100 */
	v.job[1] = J(0, 1, 4, 500); /* node 1 free now but would delay the head */
	r = run_make(&v, &s, &h, 1, 100);
	assert_int_equal(bf_run_step(r), 1);
	assert_int_equal(v.job[0].planned, NOW + 100);
	v.job[0].kept = 0; /* cancelled meanwhile */
	assert_int_equal(bf_run_rebuild(r, &s, &h, 1, NOW), 0);
	assert_int_equal(bf_run_step(r), 0);
	assert_int_equal(v.job[1].started, 1);
	bf_run_destroy(r);
	/* the same with the head still waiting: the job is planned after it */
	memset(&v, 0, sizeof(v));
	v.n = 2;
	v.job[0] = J(0, 2, 4, 50);
	v.job[1] = J(0, 1, 4, 500);
	r = run_make(&v, &s, &h, 1, 100);
	bf_run_step(r);
	assert_int_equal(bf_run_rebuild(r, &s, &h, 1, NOW), 0);
	bf_run_step(r);
	assert_int_equal(v.job[1].started, 0);
	assert_int_equal(v.job[1].planned, NOW + 150);
	bf_run_destroy(r);
	sched_snap_release(&s);
}

/* bf_job_part_count_reserve=1 (EASY): the first waiting job of each
 * partition gets a reservation, the others only a start now that delays it
 * not; with shortest_first those are tried shortest first. */
static void test_part_reserve(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 5};
	/* nodes 0 and 2 (one per partition) busy until NOW + 100 */
	struct sched_hold h[2] = {{.node = 0, .end = NOW + 100, .cpus = 4},
	                          {.node = 2, .end = NOW + 100, .cpus = 4}};
	struct bf_run_params p = {
	    .window = 86400, .resolution = 1, .max_job_test = 100, .part_reserve = 1};
	struct bf_run *r;

	snap_make(&s);
	for (int sjf = 0; sjf < 2; sjf++) {
		memset(&v, 0, sizeof(v));
		v.n = 5;
		v.job[0] = J(0, 2, 4, 50);  /* the head: both nodes at NOW + 100 */
		v.job[1] = J(0, 1, 4, 500); /* would delay the head: no plan */
		v.job[2] = J(0, 1, 4, 90);  /* node 1 until before the head */
		v.job[3] = J(0, 1, 2, 60);  /* the same, but shorter */
		v.job[4] = J(1, 2, 4, 50);  /* partition 1's own reservation */
		for (int i = 0; i < 5; i++)
			v.job[i].planned = -2;
		p.shortest_first = sjf;
		r = bf_run_create(&p, &ops, &v, v.n);
		assert_non_null(r);
		assert_int_equal(bf_run_rebuild(r, &s, h, 2, NOW), 0);
		while (bf_run_step(r))
			;
		assert_int_equal(v.job[0].planned, NOW + 100);
		assert_int_equal(v.job[1].started, 0);
		assert_int_equal(v.job[1].planned, -1);
		/* in order, the 90 s job takes node 1; shortest first, the 60 s
		 * one does, and the other finds no room and gets no plan */
		assert_int_equal(v.job[2].started, !sjf);
		assert_int_equal(v.job[3].started, sjf);
		assert_int_equal(sjf ? v.job[2].planned : v.job[3].planned, -1);
		assert_int_equal(v.job[4].planned, NOW + 100);
		assert_int_equal(bf_run_tested(r), 5);
		bf_run_destroy(r);
	}
	/* without the limit the job that would delay the head is planned */
	memset(&v, 0, sizeof(v));
	v.n = 2;
	v.job[0] = J(0, 2, 4, 50);
	v.job[1] = J(0, 1, 4, 500);
	r = run_make(&v, &s, h, 1, 100);
	while (bf_run_step(r))
		;
	assert_int_equal(v.job[1].planned, NOW + 150);
	bf_run_destroy(r);
	sched_snap_release(&s);
}

/* bf_max_job_test counts array tasks; jobs past it are left as they were. */
static void test_max_job_test(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 2};
	struct bf_run *r;

	snap_make(&s);
	v.job[0] = J(0, 1, 1, 60);
	v.job[0].tasks = 3;
	v.job[1] = J(0, 1, 1, 60);
	r = run_make(&v, &s, NULL, 0, 2);
	while (bf_run_step(r))
		;
	assert_int_equal(v.job[0].started, 2);
	assert_int_equal(v.job[1].started, 0);
	assert_int_equal(v.job[1].planned, -1);
	assert_int_equal(bf_run_tested(r), 2);
	bf_run_destroy(r);
	sched_snap_release(&s);
}

/* GPUs are planned like CPUs: a job wanting the GPUs a running job holds is
 * reserved at its end, while a CPU-only job starts beside it; the main pass
 * counts the GPUs it hands out. */
static void test_gpus_planned(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 3};
	struct sched_hold h = {.node = 0, .end = NOW + 100, .cpus = 1, .gres = {2}};
	struct bf_run *r;

	snap_make(&s);
	s.nodes[0].gres[0] = 2; /* 2 GPUs on node 0 only */
	v.job[0] = J(0, 1, 1, 50);
	v.job[0].gpus = 1;
	v.job[1] = J(0, 1, 2, 50); /* CPUs only: node 0 has 3 free */
	v.job[2] = J(0, 1, 1, 50);
	v.job[2].gpus = 3; /* more than any node has: never planned */
	r = run_make(&v, &s, &h, 1, 100);
	while (bf_run_step(r))
		;
	assert_int_equal(v.job[0].planned, NOW + 100);
	assert_int_equal(v.job[1].started, 1);
	assert_int_equal(v.job[2].planned, -1);
	bf_run_destroy(r);
	/* main pass: two 1-GPU jobs take both GPUs, the third waits */
	memset(&v, 0, sizeof(v));
	for (int i = 0; i < 3; i++) {
		v.job[i] = J(0, 1, 1, 50);
		v.job[i].gpus = 1;
	}
	sched_main_pass(&s, &ops, &v, 3, &(struct sched_pass_opts){.depth = 3});
	assert_int_equal(v.job[0].started + v.job[1].started, 2);
	assert_int_equal(v.job[2].waited, 1 + SCHED_WAIT_RESOURCES);
	assert_int_equal(s.nodes[0].gres_alloc[0], 2);
	sched_snap_release(&s);
}

/* v->job[0] a heterogeneous job of two components: job[0] on n0 nodes of
 * partition 0, job[5] on n1 of partition 1, 4 CPUs each, 100 s; its plan
 * run to the end over holds h[0..nh). */
static void het_run(struct tview *v, struct sched_snap *s, uint32_t n0, uint32_t n1,
                    const struct sched_hold *h, size_t nh, uint32_t started)
{
	struct bf_run *r;

	v->job[0] = J(0, n0, 4, 100);
	v->job[0].comp[0] = 5;
	v->job[0].ncomp = 1;
	v->job[5] = J(1, n1, 4, 100);
	v->job[5].planned = 7;
	r = run_make(v, s, h, nh, 100);
	while (bf_run_step(r))
		;
	assert_int_equal(bf_run_started(r), started);
	bf_run_destroy(r);
}

/* A heterogeneous job starts when all its components fit together: one
 * fits at NOW + 100, the other at NOW + 200, so both are planned then (and
 * the first's nodes are kept for it: a job that would still run then waits);
 * with every component free they start together. */
static void test_parts_planned_together(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 3};
	/* node 0 busy until NOW + 100, node 2 until NOW + 200 */
	struct sched_hold h[] = {{.node = 0, .end = NOW + 100, .cpus = 4},
	                         {.node = 2, .end = NOW + 200, .cpus = 4}};

	(void)state;
	snap_make(&s);
	/* component 0: both nodes of p0, component 1: both nodes of p1 */
	v.job[1] = J(0, 1, 4, 300); /* would hold node 1 past NOW + 200 */
	v.job[2] = J(0, 1, 4, 150); /* ends before: starts now */
	het_run(&v, &s, 2, 2, h, 2, 1);
	assert_int_equal(v.job[0].planned, NOW + 200);
	assert_int_equal(v.job[5].planned, NOW + 200);
	assert_int_equal(v.job[0].started + v.job[5].started, 0);
	assert_int_equal(v.job[1].started, 0);
	assert_int_equal(v.job[1].planned, NOW + 300);
	assert_int_equal(v.job[2].started, 1);
	/* a component that never fits: no plan for any */
	memset(&v, 0, sizeof(v));
	v.n = 1;
	het_run(&v, &s, 1, 3, h, 2, 0);
	assert_int_equal(v.job[0].planned, -1);
	assert_int_equal(v.job[5].planned, -1);
	/* all free: both start now, each on its own nodes */
	memset(&v, 0, sizeof(v));
	v.n = 1;
	het_run(&v, &s, 2, 2, NULL, 0, 1);
	assert_int_equal(v.job[0].started, 1);
	assert_int_equal(v.job[5].started, 1);
	sched_snap_release(&s);
}

/* Undoing a tentative hold gives the plan back as it was. */
static void test_unhold(void **state)
{
	struct sched_node nodes[2] = {{.cpus = 4, .mem = 1000}, {.cpus = 4, .mem = 1000}};
	static const uint32_t both[] = {0, 1};
	struct bf_plan *bp = bf_plan_create(nodes, 2, NOW, 1);
	struct sched_node mask[2] = {{.usable = 1}, {.usable = 1}};
	struct sched_req req = {.min_nodes = 2,
	                        .max_nodes = SCHED_UNSET,
	                        .num_tasks = SCHED_UNSET,
	                        .ntasks_per_node = 1,
	                        .cpus_per_task = 4};
	struct sched_snap s;
	int64_t t = 0;

	(void)state;
	assert_non_null(bp);
	assert_int_equal(bf_plan_add_group(bp, both, 2), 0);
	assert_int_equal(bf_plan_hold(bp, 0, NOW, NOW + 50, 4, 0), 0);
	assert_int_equal(bf_plan_node_holds(bp, 0), 1);
	assert_int_equal(bf_plan_hold(bp, 0, NOW + 50, NOW + 500, 2, 0), 0);
	assert_int_equal(bf_plan_hold(bp, 1, NOW, NOW + 500, 1, 0), 0);
	assert_int_equal(sched_snap_init(&s, 2, 0), 0);
	assert_int_equal(bf_plan_earliest(bp, mask, 0, &req, 10, NOW + 1000, &s.out, &t),
	                 0);
	assert_int_equal(t, NOW + 500);
	assert_int_equal(bf_plan_unhold(bp, 0, 1), 0);
	assert_int_equal(bf_plan_unhold(bp, 1, 0), 0);
	assert_int_equal(bf_plan_node_holds(bp, 0), 1);
	assert_int_equal(bf_plan_earliest(bp, mask, 0, &req, 10, NOW + 1000, &s.out, &t),
	                 0);
	assert_int_equal(t, NOW + 50);
	sched_snap_release(&s);
	bf_plan_destroy(bp);
}

/* A backfill run over one job of partitions 0 and 1 (two records) in v. */
static struct bf_run *run_two_part_job(struct tview *v, struct sched_snap *s,
                                       const struct sched_hold *h, size_t nh)
{
	struct bf_run *r;

	memset(v, 0, sizeof(*v));
	v->n = 2;
	v->job[0] = J(0, 1, 4, 60);
	v->job[1] = J(1, 1, 4, 60);
	v->job[1].same = 1;
	r = run_make(v, s, h, nh, 10);
	while (bf_run_step(r))
		;
	return r;
}

/* Backfill: each record of a job of two partitions is planned in its own
 * partition (the driver keeps the earliest start); one that can start now
 * starts the job, the other is then skipped. */
static void test_backfill_job_of_two_partitions(void **state)
{
	struct sched_snap s;
	struct tview v = {.n = 2};
	struct sched_hold h[] = {{.node = 0, .end = NOW + 100, .cpus = 4},
	                         {.node = 1, .end = NOW + 100, .cpus = 4},
	                         {.node = 2, .end = NOW + 50, .cpus = 4},
	                         {.node = 3, .end = NOW + 50, .cpus = 4}};
	struct bf_run *r;

	snap_make(&s);
	for (size_t k = 0; k < NODES; k++)
		s.nodes[k].alloc_cpus = 4;
	r = run_two_part_job(&v, &s, h, 4);
	assert_int_equal(v.job[0].planned, NOW + 100);
	assert_int_equal(v.job[1].planned, NOW + 50);
	assert_int_equal(v.job[0].started, 0);
	bf_run_destroy(r);
	/* partition 1 free now: it starts there */
	s.nodes[2].alloc_cpus = s.nodes[3].alloc_cpus = 0;
	r = run_two_part_job(&v, &s, h, 2);
	assert_int_equal(v.job[0].planned, NOW + 100);
	assert_int_equal(v.job[0].started, 1);
	assert_int_equal(v.job[1].waited, -1);
	bf_run_destroy(r);
	sched_snap_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_main_pass_blocks_per_partition),
	    cmocka_unit_test(test_main_pass_withholds_what_a_waiting_job_needs),
	    cmocka_unit_test(test_backfill_reserves_and_backfills),
	    cmocka_unit_test(test_rebuild_keeps_waiting_jobs),
	    cmocka_unit_test(test_max_job_test),
	    cmocka_unit_test(test_part_reserve),
	    cmocka_unit_test(test_gpus_planned),
	    cmocka_unit_test(test_parts_planned_together),
	    cmocka_unit_test(test_unhold),
	    cmocka_unit_test(test_main_pass_job_of_two_partitions),
	    cmocka_unit_test(test_queue_order_by_tier),
	    cmocka_unit_test(test_backfill_job_of_two_partitions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
