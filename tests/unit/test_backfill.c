/* test_backfill.c - node-level backfill planning (src/sched/backfill.c). */
#include <errno.h>
#include <stdarg.h>
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
