/* test_backfill.c - node-level backfill planning (src/sched/backfill.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "sched/backfill.h"

#define N   2
#define NOW 1000
static struct sched_node nodes[N];
static uint32_t idx[N], cpus[N], tasks[N];
static uint64_t mem[N];
static struct sched_alloc out = {
    .node_idx = idx, .cpus = cpus, .tasks = tasks, .mem = mem};
static const uint32_t all[N] = {0, 1};

static int setup(void **state)
{
	for (int i = 0; i < N; i++)
		nodes[i] = (struct sched_node){.cpus = 8, .mem = 1000, .usable = 1};
	return 0;
}

static struct sched_req whole_nodes(uint32_t nn)
{
	return (struct sched_req){.min_nodes = nn,
	                          .max_nodes = SCHED_UNSET,
	                          .num_tasks = SCHED_UNSET,
	                          .ntasks_per_node = 8,
	                          .cpus_per_task = 1};
}

/* node0 busy until NOW+100, node1 until NOW+200 */
static struct bf_plan *busy_plan(int grouped)
{
	struct bf_plan *bp = bf_plan_create(nodes, N, NOW, 1);

	assert_non_null(bp);
	if (grouped)
		assert_int_equal(bf_plan_add_group(bp, all, N), 0);
	assert_int_equal(bf_plan_hold(bp, 0, NOW - 50, NOW + 100, 8, 100), 0);
	assert_int_equal(bf_plan_hold(bp, 1, NOW - 50, NOW + 200, 8, 100), 0);
	return bp;
}

static void reservation_then_backfill(int grouped)
{
	struct bf_plan *bp = busy_plan(grouped);
	struct sched_req two = whole_nodes(2), one = whole_nodes(1);
	int64_t t;

	/* the big job can only start when both are free */
	assert_int_equal(bf_plan_earliest(bp, nodes, grouped ? 0 : -1, &two, 300,
	                                  NOW + 10000, &out, &t),
	                 0);
	assert_int_equal(t, NOW + 200);
	assert_int_equal(bf_plan_hold_alloc(bp, &out, t, t + 300), 0);
	/* a short job fits in the hole on node0 before the reservation */
	assert_int_equal(bf_plan_earliest(bp, nodes, grouped ? 0 : -1, &one, 100,
	                                  NOW + 10000, &out, &t),
	                 0);
	assert_int_equal(t, NOW + 100);
	assert_int_equal(idx[0], 0);
	assert_int_equal(bf_plan_hold_alloc(bp, &out, t, t + 100), 0);
	/* a long one would delay the reservation: after it */
	assert_int_equal(bf_plan_earliest(bp, nodes, grouped ? 0 : -1, &one, 150,
	                                  NOW + 10000, &out, &t),
	                 0);
	assert_int_equal(t, NOW + 500);
	bf_plan_destroy(bp);
}

static void test_reservation_then_backfill(void **state)
{
	reservation_then_backfill(0);
}

static void test_reservation_then_backfill_grouped(void **state)
{
	reservation_then_backfill(1);
}

static void test_start_now_before_reservation(void **state)
{
	struct bf_plan *bp = bf_plan_create(nodes, N, NOW, 1);
	struct sched_req two = whole_nodes(2);
	struct sched_req small = {.min_nodes = 1,
	                          .max_nodes = SCHED_UNSET,
	                          .num_tasks = 4,
	                          .ntasks_per_node = SCHED_UNSET,
	                          .cpus_per_task = 1};
	int64_t t;

	/* 4 CPUs of node0 busy until NOW+100: the 2-node job waits for them */
	assert_int_equal(bf_plan_hold(bp, 0, NOW, NOW + 100, 4, 0), 0);
	assert_int_equal(
	    bf_plan_earliest(bp, nodes, -1, &two, 1000, NOW + 10000, &out, &t), 0);
	assert_int_equal(t, NOW + 100);
	assert_int_equal(bf_plan_hold_alloc(bp, &out, t, t + 1000), 0);
	/* 4 CPUs for 100 s: now, ending exactly when the reservation starts */
	assert_int_equal(
	    bf_plan_earliest(bp, nodes, -1, &small, 100, NOW + 10000, &out, &t), 0);
	assert_int_equal(t, NOW);
	/* for 101 s it would delay the reservation: after it */
	assert_int_equal(
	    bf_plan_earliest(bp, nodes, -1, &small, 101, NOW + 10000, &out, &t), 0);
	assert_int_equal(t, NOW + 1100);
	bf_plan_destroy(bp);
}

static void test_horizon_and_never(void **state)
{
	struct bf_plan *bp = busy_plan(1);
	struct sched_req two = whole_nodes(2), three = whole_nodes(3);
	int64_t t = -1;

	assert_int_equal(bf_plan_earliest(bp, nodes, 0, &two, 10, NOW + 150, &out, &t),
	                 -EAGAIN);
	assert_int_equal(t, -1);
	assert_int_equal(bf_plan_earliest(bp, nodes, 0, &three, 10, NOW + 150, &out, &t),
	                 -EINVAL);
	/* held forever: never within any horizon */
	assert_int_equal(bf_plan_hold(bp, 0, NOW, BF_FOREVER, 8, 0), 0);
	assert_int_equal(
	    bf_plan_earliest(bp, nodes, 0, &two, 10, NOW + 1000000, &out, &t), -EAGAIN);
	bf_plan_destroy(bp);
}

static void test_resolution_rounds_ends_up(void **state)
{
	struct bf_plan *bp = bf_plan_create(nodes, N, NOW, 60);
	struct sched_req two = whole_nodes(2);
	int64_t t;

	assert_int_equal(bf_plan_hold(bp, 0, NOW, NOW + 61, 1, 0), 0);
	assert_int_equal(bf_plan_earliest(bp, nodes, -1, &two, 10, NOW + 10000, &out, &t),
	                 0);
	assert_int_equal(t, NOW + 120);
	bf_plan_destroy(bp);
}

static void test_memory_blocks(void **state)
{
	struct bf_plan *bp = bf_plan_create(nodes, 1, NOW, 1);
	struct sched_req r = {.min_nodes = 1,
	                      .max_nodes = SCHED_UNSET,
	                      .num_tasks = 1,
	                      .ntasks_per_node = SCHED_UNSET,
	                      .cpus_per_task = 1,
	                      .mem_per_node = 600};
	int64_t t;

	assert_int_equal(bf_plan_hold(bp, 0, NOW, NOW + 30, 1, 500), 0);
	assert_int_equal(bf_plan_earliest(bp, nodes, -1, &r, 10, NOW + 100, &out, &t), 0);
	assert_int_equal(t, NOW + 30);
	bf_plan_destroy(bp);
}

static void test_unusable_nodes_ignored(void **state)
{
	struct bf_plan *bp = busy_plan(0);
	struct sched_req one = whole_nodes(1);
	struct sched_node mask[N];
	int64_t t;

	mask[0] = nodes[0];
	mask[1] = nodes[1];
	mask[0].usable = 0; /* -x node0: wait for node1 */
	assert_int_equal(bf_plan_earliest(bp, mask, -1, &one, 10, NOW + 1000, &out, &t),
	                 0);
	assert_int_equal(t, NOW + 200);
	assert_int_equal(idx[0], 1);
	bf_plan_destroy(bp);
}

/* One-node jobs are found by a sweep of each node's usage changes: a hole
 * too short is skipped, the earliest long enough window on any node wins. */
static void test_one_node_sweep(void **state)
{
	struct bf_plan *bp = bf_plan_create(nodes, N, NOW, 1);
	struct sched_req four = {.min_nodes = 1,
	                         .max_nodes = 1,
	                         .num_tasks = 4,
	                         .ntasks_per_node = SCHED_UNSET,
	                         .cpus_per_task = 1};
	int64_t t;

	assert_int_equal(bf_plan_add_group(bp, all, N), 0);
	/* node0: 4 CPUs busy until NOW+200, all 8 over [NOW+100, NOW+200) */
	assert_int_equal(bf_plan_hold(bp, 0, NOW, NOW + 200, 4, 0), 0);
	assert_int_equal(bf_plan_hold(bp, 0, NOW + 100, NOW + 200, 4, 0), 0);
	/* node1: full until NOW+300 */
	assert_int_equal(bf_plan_hold(bp, 1, NOW, NOW + 300, 8, 0), 0);
	assert_int_equal(bf_plan_earliest(bp, nodes, 0, &four, 50, NOW + 10000, &out, &t),
	                 0);
	assert_int_equal(t, NOW);
	assert_int_equal(idx[0], 0);
	assert_int_equal(
	    bf_plan_earliest(bp, nodes, 0, &four, 150, NOW + 10000, &out, &t), 0);
	assert_int_equal(t, NOW + 200);
	assert_int_equal(idx[0], 0);
	/* exclusive: the whole node idle, node0 from NOW+200 */
	four.exclusive = 1;
	assert_int_equal(bf_plan_earliest(bp, nodes, 0, &four, 10, NOW + 10000, &out, &t),
	                 0);
	assert_int_equal(t, NOW + 200);
	bf_plan_destroy(bp);
}

/* Random plans against a brute-force oracle: the earliest start is the first
 * of now and the holds' ends at which sched_select() places the job on each
 * node's peak usage over the run.  Catches a pruning step (the aggregate
 * profiles, the per-node bounds, probing only the nodes that could take a
 * task) that leaves out a start or a node. */
#define RN   12
#define RMAX 64
struct rhold {
	uint32_t node, cpus;
	int64_t start, end;
	uint64_t mem;
	uint32_t gres;
};
static struct rhold rholds[RMAX * 4];
static size_t nrholds;
static uint64_t rstate = 12345;

static uint32_t rnd(uint32_t n)
{
	rstate ^= rstate << 13;
	rstate ^= rstate >> 7;
	rstate ^= rstate << 17;
	return (uint32_t)(rstate % n);
}

static void oracle_view(const struct sched_node *cap, const struct sched_node *mask,
                        int64_t a, int64_t b, struct sched_node *v)
{
	for (size_t i = 0; i < RN; i++) {
		v[i] = mask[i];
		v[i].cpus = cap[i].cpus;
		v[i].mem = cap[i].mem;
		v[i].gres[0] = cap[i].gres[0];
		v[i].alloc_cpus = 0;
		v[i].alloc_mem = 0;
		v[i].gres_alloc[0] = 0;
		for (size_t h = 0; h < nrholds; h++) {
			const struct rhold *x = &rholds[h];
			int64_t p = x->start > a ? x->start : a;
			uint32_t c = 0, g = 0;
			uint64_t m = 0;
			if (x->node != i || x->start >= b || x->end <= a)
				continue;
			for (size_t k = 0; k < nrholds; k++)
				if (rholds[k].node == i && rholds[k].start <= p &&
				    p < rholds[k].end) {
					c += rholds[k].cpus;
					m += rholds[k].mem;
					g += rholds[k].gres;
				}
			if (c > v[i].alloc_cpus)
				v[i].alloc_cpus = c;
			if (m > v[i].alloc_mem)
				v[i].alloc_mem = m;
			if (g > v[i].gres_alloc[0])
				v[i].gres_alloc[0] = g;
		}
	}
}

static int oracle(const struct sched_node *cap, const struct sched_node *mask,
                  const struct sched_req *req, int64_t dur, int64_t *ret)
{
	struct sched_node v[RN];
	uint32_t oi[RN], oc[RN], ot[RN];
	uint64_t om[RN];
	struct sched_alloc o = {.node_idx = oi, .cpus = oc, .tasks = ot, .mem = om};
	int64_t best = INT64_MAX;
	int rc;

	oracle_view(cap, mask, NOW, NOW + 1, v);
	for (size_t i = 0; i < RN; i++)
		v[i].alloc_cpus = v[i].alloc_mem = v[i].gres_alloc[0] = 0;
	if (sched_select(v, RN, req, &o) == -EINVAL)
		return -EINVAL;
	for (size_t h = 0; h <= nrholds; h++) {
		int64_t t = h == nrholds ? NOW : rholds[h].end;
		if (t < NOW || t >= best || t == BF_FOREVER)
			continue;
		oracle_view(cap, mask, t, t + dur, v);
		rc = sched_select(v, RN, req, &o);
		if (rc == 0)
			best = t;
	}
	if (best == INT64_MAX)
		return -EAGAIN;
	*ret = best;
	return 0;
}

/* What a failing case was, to replay it by hand. */
static void dump_case(int round, int q, const struct sched_req *r, int64_t dur,
                      const struct sched_node *cap, const struct sched_node *mask)
{
	fprintf(stderr,
	        "round %d query %d: -N%u ntasks %u per-node %u cpt %u mem/cpu %lu "
	        "excl %d gres/node %u dur %ld\n",
	        round, q, r->min_nodes, r->num_tasks, r->ntasks_per_node,
	        r->cpus_per_task, (unsigned long)r->mem_per_cpu, r->exclusive,
	        r->ngres ? r->gres[0].per_node : 0, (long)dur);
	for (size_t i = 0; i < RN; i++)
		fprintf(stderr, "  node %zu: %u CPUs %u GPUs usable %d required %d\n", i,
		        cap[i].cpus, cap[i].gres[0], mask[i].usable, mask[i].required);
	for (size_t h = 0; h < nrholds; h++)
		fprintf(stderr, "  hold node %u: %u CPUs %lu MB %u GPUs [%ld, %ld)\n",
		        rholds[h].node, rholds[h].cpus, (unsigned long)rholds[h].mem,
		        rholds[h].gres, (long)rholds[h].start, (long)rholds[h].end);
}

static void test_random_plans_match_oracle(void **state)
{
	struct sched_node cap[RN], mask[RN];
	uint32_t members[RN], oi[RN], oc[RN], ot[RN], og[RN * SCHED_GRES_KINDS];
	uint64_t om[RN];
	struct sched_alloc o = {
	    .node_idx = oi, .cpus = oc, .tasks = ot, .mem = om, .gres = og};
	int checked = 0;

	for (int round = 0; round < 200; round++) {
		struct bf_plan *bp;
		int grouped = round % 2;

		nrholds = 0;
		for (size_t i = 0; i < RN; i++) {
			cap[i] = (struct sched_node){
			    .cpus = 4 + 4 * rnd(3), .mem = 1000, .usable = 1};
			cap[i].gres[0] = rnd(3) ? 0 : 4;
			members[i] = (uint32_t)i;
		}
		bp = bf_plan_create(cap, RN, NOW, 1);
		assert_non_null(bp);
		if (grouped)
			assert_int_equal(bf_plan_add_group(bp, members, RN), 0);
		for (int q = 0; q < RMAX; q++) {
			struct sched_req r = {.min_nodes = 1 + rnd(4),
			                      .max_nodes = SCHED_UNSET,
			                      .num_tasks = SCHED_UNSET,
			                      .ntasks_per_node = SCHED_UNSET,
			                      .cpus_per_task = 1 + rnd(3),
			                      .mem_per_cpu = rnd(2) ? 0 : 50 * rnd(4)};
			int64_t dur = 10 + rnd(300), t = -1, want = -1;
			int rc, orc;

			if (rnd(3) == 0)
				r.ntasks_per_node = 1 + rnd(4);
			else if (rnd(2))
				r.num_tasks = r.min_nodes + rnd(8);
			if (rnd(5) == 0)
				r.exclusive = 1;
			if (rnd(4) == 0) {
				r.ngres = 1;
				r.gres[0] = (struct sched_gres_want){
				    .kinds = 1, .per_node = 1 + rnd(3)};
			}
			for (size_t i = 0; i < RN; i++) {
				mask[i] = cap[i];
				mask[i].usable = rnd(8) != 0;
			}
			if (rnd(10) == 0) /* -w: one named node */
				mask[rnd(RN)].required = 1;
			rc = bf_plan_earliest(bp, mask, grouped ? 0 : -1, &r, dur,
			                      BF_FOREVER - 1, &o, &t);
			orc = oracle(cap, mask, &r, dur, &want);
			if (rc != orc || (rc == 0 && t != want))
				dump_case(round, q, &r, dur, cap, mask);
			assert_int_equal(rc, orc);
			if (rc < 0)
				continue;
			assert_int_equal(t, want);
			checked++;
			/* hold it, as the driver does, on both sides */
			assert_int_equal(bf_plan_hold_alloc(bp, &o, t, t + dur), 0);
			for (uint32_t j = 0; j < o.nnodes; j++)
				rholds[nrholds++] = (struct rhold){
				    .node = oi[j],
				    .cpus = oc[j],
				    .start = t,
				    .end = t + dur,
				    .mem = om[j],
				    .gres = og[(size_t)j * SCHED_GRES_KINDS]};
		}
		bf_plan_destroy(bp);
	}
	assert_true(checked > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_reservation_then_backfill, setup),
	    cmocka_unit_test_setup(test_reservation_then_backfill_grouped, setup),
	    cmocka_unit_test_setup(test_start_now_before_reservation, setup),
	    cmocka_unit_test_setup(test_horizon_and_never, setup),
	    cmocka_unit_test_setup(test_resolution_rounds_ends_up, setup),
	    cmocka_unit_test_setup(test_memory_blocks, setup),
	    cmocka_unit_test_setup(test_unusable_nodes_ignored, setup),
	    cmocka_unit_test_setup(test_one_node_sweep, setup),
	    cmocka_unit_test(test_random_plans_match_oracle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
