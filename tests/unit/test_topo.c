/* test_topo.c - switch-aware placement (src/sched/topo.c) on small trees
 * and blocks, directly and through the backfill planner. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/topo_conf.h"
#include "sched/backfill.h"
#include "sched/topo.h"

#define N 12
static struct sched_node nodes[N];
static uint32_t idx[N], cpus[N], tasks[N];
static uint64_t mem[N];
static struct sched_alloc out = {
    .node_idx = idx, .cpus = cpus, .tasks = tasks, .mem = mem};

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < N; i++)
		nodes[i] = (struct sched_node){.cpus = 4, .mem = 1000, .usable = 1};
	return 0;
}

static int find(const char *name, void *arg)
{
	int i;

	(void)arg;
	return sscanf(name, "n%d", &i) == 1 ? i : -1;
}

static struct sched_topo *topo(const char *text, enum topo_kind kind)
{
	struct rota_error err = {{0}};
	struct topo_conf *tc = NULL;
	struct sched_topo *t;

	if (topo_conf_load_string(text, "topology.conf", kind, &tc, &err) < 0)
		fail_msg("%s", err.text);
	t = sched_topo_create(tc, N, find, NULL, NULL);
	topo_conf_destroy(tc);
	return t;
}

static const char *tree3 =
    "SwitchName=s1 Nodes=n[0-3]\nSwitchName=s2 Nodes=n[4-7]\n"
    "SwitchName=s3 Nodes=n[8-11]\nSwitchName=top Switches=s[1-3]\n";

static struct sched_req whole(uint32_t nn)
{
	return (struct sched_req){.min_nodes = nn,
	                          .max_nodes = SCHED_UNSET,
	                          .num_tasks = SCHED_UNSET,
	                          .ntasks_per_node = SCHED_UNSET,
	                          .cpus_per_task = 4};
}

static void busy(int i)
{
	nodes[i].alloc_cpus = nodes[i].cpus;
}

static void assert_nodes(uint32_t first, uint32_t count)
{
	assert_int_equal(out.nnodes, count);
	for (uint32_t j = 0; j < count; j++)
		assert_int_equal(out.node_idx[j], first + j);
}

static void test_one_switch_over_lower_index(void **state)
{
	struct sched_topo *t = topo(tree3, TOPO_TREE);
	struct sched_req r = whole(4);

	(void)state;
	busy(0);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.node_idx[0], 1); /* spans s1 and s2 */
	assert_int_equal(sched_topo_leaves(t, &out), 2);
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_nodes(4, 4);
	assert_int_equal(sched_topo_leaves(t, &out), 1);
	sched_topo_destroy(t);
}

static void test_best_fit_leaf(void **state)
{
	struct sched_topo *t = topo(tree3, TOPO_TREE);
	struct sched_req r = whole(2);

	(void)state;
	busy(0);          /* s1: 3 free */
	busy(4), busy(5); /* s2: 2 free: the best fit */
	busy(8);          /* s3: 3 free */
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_nodes(6, 2);
	r = whole(1); /* one node: as without a topology */
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_nodes(1, 1);
	sched_topo_destroy(t);
}

static void test_fewest_leaves_and_switches(void **state)
{
	struct sched_topo *t = topo(tree3, TOPO_TREE);
	struct sched_req r = whole(6);

	(void)state;
	busy(0), busy(4), busy(5), busy(8), busy(9);
	/* free: s1 3, s2 2, s3 2: 6 nodes need all three leaves */
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_int_equal(sched_topo_leaves(t, &out), 3);
	nodes[9].alloc_cpus = 0; /* s3 3 free: s1 + s3 */
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_int_equal(sched_topo_leaves(t, &out), 2);
	assert_int_equal(out.node_idx[3], 9);
	r.switches = 1;
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), -EAGAIN);
	r.switches = 2;
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	sched_topo_destroy(t);
}

static void test_no_leaf_no_fabric(void **state)
{
	/* n0-n3 in no switch; s2 and s3 share no switch above */
	struct sched_topo *t =
	    topo("SwitchName=s2 Nodes=n[4-7]\nSwitchName=s3 Nodes=n[8-11]\n", TOPO_TREE);
	struct sched_req r = whole(2);

	(void)state;
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_nodes(4, 2);
	r = whole(1);
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_nodes(0, 1);
	r = whole(6); /* would need both switches */
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), -EAGAIN);
	sched_topo_destroy(t);
}

static void test_blocks(void **state)
{
	struct sched_topo *t =
	    topo("BlockName=b1 Nodes=n[0-3]\nBlockName=b2 Nodes=n[4-7]\n"
	         "BlockName=b3 Nodes=n[8-11]\nBlockSizes=4,8\n",
	         TOPO_BLOCK);
	struct sched_req r = whole(4);

	(void)state;
	assert_int_equal(t->nsw, 6); /* 3 blocks, 2 aggregates of 8, all */
	busy(1);
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_nodes(4, 4);
	busy(5);
	r = whole(6); /* b1 + b2 hold 6, with b3: an aggregate of 8 first */
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_int_equal(out.node_idx[0], 0);
	assert_int_equal(out.node_idx[5], 7);
	busy(6);
	/* all blocks: b3 (4 free) and the best fit for the other 2, b2 */
	assert_int_equal(sched_select_topo(nodes, N, &r, t, &out), 0);
	assert_int_equal(out.node_idx[0], 4);
	assert_int_equal(out.node_idx[1], 7);
	assert_int_equal(out.node_idx[5], 11);
	sched_topo_destroy(t);
}

static void test_backfill_places_the_same(void **state)
{
	struct sched_topo *t = topo(tree3, TOPO_TREE);
	struct bf_plan *bp = bf_plan_create(nodes, N, 0, 1);
	struct sched_node mask[N];
	struct sched_req r = whole(4);
	int64_t start = -1;

	(void)state;
	for (int i = 0; i < N; i++)
		mask[i] = (struct sched_node){.usable = 1};
	bf_plan_set_topo(bp, t);
	assert_int_equal(bf_plan_hold(bp, 0, 0, 100, 4, 0), 0);
	for (int i = 8; i < N; i++)
		assert_int_equal(bf_plan_hold(bp, (uint32_t)i, 0, 50, 4, 0), 0);
	assert_int_equal(bf_plan_earliest(bp, mask, -1, &r, 10, 1000, &out, &start), 0);
	assert_int_equal(start, 0);
	assert_nodes(4, 4);
	r = whole(8); /* s1 is whole at 100, s3 at 50: s2 + s3 */
	assert_int_equal(bf_plan_earliest(bp, mask, -1, &r, 10, 1000, &out, &start), 0);
	assert_int_equal(start, 50);
	assert_nodes(4, 8);
	bf_plan_destroy(bp);
	sched_topo_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_one_switch_over_lower_index, setup),
	    cmocka_unit_test_setup(test_best_fit_leaf, setup),
	    cmocka_unit_test_setup(test_fewest_leaves_and_switches, setup),
	    cmocka_unit_test_setup(test_no_leaf_no_fabric, setup),
	    cmocka_unit_test_setup(test_blocks, setup),
	    cmocka_unit_test_setup(test_backfill_places_the_same, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
