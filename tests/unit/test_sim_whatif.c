/* test_sim_whatif.c - what-if replays of a history (src/cli/sim_whatif.c,
 * compiled in): partitions as pools, jobs left out, moves. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cli/sim_whatif.c"

#define NODES "NodeName=n[1-4] CPUs=2\n"

/* Jobs 1 and 2 (p1) and 3 (p2), 4 CPUs and 100 s each, all submitted at
 * 1000, each really started at 1000; job 4 in a partition the configuration
 * lacks, job 5 (p1) of 10 CPUs. */
#define JOB(i, c, a, p)                                                                  \
	{                                                                                \
		.id = i, .submit = 1000, .start = 1000, .end = 1100, .cpus = c,          \
		.limit = 100, .user = "u", .account = a, .partition = p                  \
	}
static struct sim_hjob jobs[] = {
    JOB(1, 4, "a", "p1"),   JOB(2, 4, "a", "p1"),  JOB(3, 4, "b", "p2"),
    JOB(4, 1, "b", "gone"), JOB(5, 10, "b", "p1"),
};

/* Replay the jobs on the configuration text; wf to be released. */
static void replay(const char *text, struct whatif *wf, struct conf **conf)
{
	static struct sim_history h = {.jobs = jobs, .n = 5};
	struct rota_error err = {""};

	assert_int_equal(conf_load_string(text, "test.conf", conf, &err), 0);
	*wf = (struct whatif){.conf = *conf, .tolerance = 1};
	pools_build(wf);
	jobs_assign(wf, &h);
	assert_int_equal(pools_replay(wf), 0);
	figures_build(wf);
}

static void release(struct whatif *wf, struct conf *conf)
{
	free(wf->part_pool);
	free(wf->pool_cpus);
	free(wf->w);
	free(wf->parts);
	free(wf->accts);
	conf_destroy(conf);
}

static void test_disjoint_partitions_are_pools_of_their_own(void **state)
{
	struct whatif wf;
	struct conf *conf;
	struct moved mv = {0};

	(void)state;
	replay(NODES "PartitionName=p1 Nodes=n[1-2]\nPartitionName=p2 Nodes=n[3-4]\n",
	       &wf, &conf);
	assert_int_equal(wf.npools, 2);
	assert_int_equal(wf.pool_cpus[0], 4);
	assert_int_equal(wf.pool_cpus[1], 4);
	assert_int_equal(wf.no_part, 1);
	assert_int_equal(wf.too_big, 1);
	/* p1 holds one 4-CPU job at a time; p2's job is not held up by p1's */
	assert_int_equal(wf.w[0].sim_start, 1000);
	assert_int_equal(wf.w[1].sim_start, 1100);
	assert_int_equal(wf.w[2].sim_start, 1000);
	assert_int_equal(wf.w[3].pool, -1);
	assert_int_equal(wf.w[4].pool, -1);
	/* figures: p1 two jobs, waits 0 and 100 replayed, 0 and 0 real */
	assert_int_equal(wf.parts[0].jobs, 2);
	assert_true(wf.parts[0].wait[0] == 0 && wf.parts[0].wait[1] == 100);
	assert_int_equal(wf.parts[0].cpus, 4);
	assert_int_equal(wf.parts[0].later, 1);
	assert_int_equal(wf.parts[0].earlier, 0);
	assert_int_equal(wf.parts[1].later, 0);
	assert_int_equal(wf.accts[0].later, 1); /* account a: job 2 */
	assert_int_equal(wf.accts[1].later, 0);
	assert_int_equal(wf.naccts, 2);
	assert_int_equal(wf.all.jobs, 3);
	moved_build(&wf, 1, &mv);
	assert_int_equal(mv.later, 1);
	assert_int_equal(mv.earlier, 0);
	assert_int_equal(mv.same, 2);
	assert_int_equal(mv.list[0]->h->id, 2);
	free(mv.list);
	release(&wf, conf);
}

static void test_overlapping_partitions_share_one_pool(void **state)
{
	struct whatif wf;
	struct conf *conf;

	(void)state;
	/* p3 shares n2 with p1 and n3 with p2: one pool of all 8 CPUs */
	replay(NODES "PartitionName=p1 Nodes=n[1-2]\nPartitionName=p2 Nodes=n[3-4]\n"
	             "PartitionName=p3 Nodes=n[2-3]\n",
	       &wf, &conf);
	assert_int_equal(wf.npools, 1);
	assert_int_equal(wf.pool_cpus[0], 8);
	assert_int_equal(wf.too_big, 1); /* 10 CPUs still too many */
	/* jobs 1 and 2 start at once; job 3 waits for one of them */
	assert_int_equal(wf.w[0].sim_start, 1000);
	assert_int_equal(wf.w[1].sim_start, 1000);
	assert_int_equal(wf.w[2].sim_start, 1100);
	release(&wf, conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_disjoint_partitions_are_pools_of_their_own),
	    cmocka_unit_test(test_overlapping_partitions_share_one_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
