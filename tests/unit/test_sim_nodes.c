/* test_sim_nodes.c - `rota sim --topology`: the controller policy replayed
 * on real nodes under a topology (sched/sim_nodes.h, replay.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "common/topo_conf.h"
#include "sched/replay.h"
#include "sched/topo.h"

static int find(const char *name, void *arg)
{
	int i;

	(void)arg;
	return sscanf(name, "n%d", &i) == 1 ? i - 1 : -1;
}

/* 8 one-CPU nodes, two leaves of 4: a serial job takes n1, then a 4-node
 * job arrives.  By switch it gets n5-n8 (one leaf), by index n2-n5 (two). */
static void run(int blind, struct replay_stats *st)
{
	struct rota_error err = {{0}};
	struct topo_conf *tc = NULL;
	struct sched_topo *t;
	struct replay_job jobs[] = {
	    {.id = 1, .submit = 0, .run = 100, .req = 100, .user = 1, .procs = 1},
	    {.id = 2, .submit = 1, .run = 50, .req = 50, .user = 1, .procs = 4},
	};
	struct replay_opts o = {.procs = 8,
	                        .policy = POLICY_CONTROLLER,
	                        .estimates = PREDICT_REQUESTED,
	                        .node_cpus = 1,
	                        .topo_blind = blind};

	assert_int_equal(topo_conf_load_string("SwitchName=a Nodes=n[1-4]\n"
	                                       "SwitchName=b Nodes=n[5-8]\n"
	                                       "SwitchName=top Switches=a,b\n",
	                                       "t", TOPO_TREE, &tc, &err),
	                 0);
	t = sched_topo_create(tc, 8, find, NULL, NULL);
	o.topo = t;
	assert_int_equal(replay_run(&o, jobs, 2, st, &err), 0);
	assert_int_equal(jobs[1].start, 1);
	sched_topo_destroy(t);
	topo_conf_destroy(tc);
}

static void test_switch_vs_index(void **state)
{
	struct replay_stats st;

	(void)state;
	run(0, &st);
	assert_int_equal(st.multi_jobs, 1);
	assert_int_equal(st.multi_leaves, 1);
	run(1, &st);
	assert_int_equal(st.multi_jobs, 1);
	assert_int_equal(st.multi_leaves, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_switch_vs_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
