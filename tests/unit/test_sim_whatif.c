/* test_sim_whatif.c - what-if replays of a history (src/cli/sim_whatif.c,
 * compiled in): nodes and partitions, priorities, backfill's interval, jobs
 * left out, moves. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cli/sim_whatif.c"
#include "cli/sim_whatif_nodes.c"

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
static void replay_jobs(const char *text, struct sim_hjob *js, size_t n,
                        struct whatif *wf, struct conf **conf)
{
	static struct sim_history h;
	struct rota_error err = {""};

	h = (struct sim_history){.jobs = js, .n = n};
	assert_int_equal(conf_load_string(text, "test.conf", conf, &err), 0);
	*wf = (struct whatif){.conf = *conf, .tolerance = 1};
	cluster_build(wf);
	jobs_assign(wf, &h);
	assert_int_equal(jobs_replay(wf), 0);
	figures_build(wf);
}

static void replay(const char *text, struct whatif *wf, struct conf **conf)
{
	replay_jobs(text, jobs, 5, wf, conf);
}

static void release(struct whatif *wf, struct conf *conf)
{
	free(wf->nodes);
	free(wf->groups);
	free(wf->members);
	free(wf->part_factor);
	free(wf->part_tier);
	for (size_t i = 0; i < wf->nmasks; i++)
		free(wf->mask[i]);
	free(wf->mask);
	free(wf->mask_key);
	free(wf->w);
	free(wf->parts);
	free(wf->accts);
	conf_destroy(conf);
}

static void test_disjoint_partitions_run_apart(void **state)
{
	struct whatif wf;
	struct conf *conf;
	struct moved mv = {0};

	(void)state;
	replay(NODES "PartitionName=p1 Nodes=n[1-2]\nPartitionName=p2 Nodes=n[3-4]\n",
	       &wf, &conf);
	assert_int_equal(wf.parts[0].cpus, 4);
	assert_int_equal(wf.parts[1].cpus, 4);
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

static void test_overlapping_partitions_share_nodes(void **state)
{
	struct whatif wf;
	struct conf *conf;

	(void)state;
	/* p3 shares n2 with p1 and n3 with p2: p1's two jobs of 4 CPUs still
	 * have only n1 and n2 (no union pool), p2's job runs on n3-n4 */
	replay(NODES "PartitionName=p1 Nodes=n[1-2]\nPartitionName=p2 Nodes=n[3-4]\n"
	             "PartitionName=p3 Nodes=n[2-3]\n",
	       &wf, &conf);
	assert_int_equal(wf.all.cpus, 8);
	assert_int_equal(wf.too_big, 1); /* 10 CPUs: more than p1 has */
	assert_int_equal(wf.w[0].sim_start, 1000);
	assert_int_equal(wf.w[1].sim_start, 1100);
	assert_int_equal(wf.w[2].sim_start, 1000);
	release(&wf, conf);
}

#define HJOB(i, sub, s, e, c, nn, l, p)                                                  \
	{                                                                                \
		.id = i, .order = SIM_HISTORY_ORDER(i, 0), .submit = sub, .start = s,    \
		.end = e, .cpus = c, .nodes = nn, .limit = l, .user = "u",               \
		.account = "a", .partition = p                                           \
	}

static void test_jobs_fit_on_nodes_not_cpus(void **state)
{
	/* two 4-CPU one-node jobs: only `big` can take one; the 2-CPU nodes
	 * can hold a 4-CPU job on two nodes */
	struct sim_hjob js[] = {
	    HJOB(1, 1000, 1000, 1100, 4, 1, 100, "p"),
	    HJOB(2, 1000, 1100, 1200, 4, 1, 100, "p"),
	    HJOB(3, 1000, 1000, 1100, 4, 2, 100, "p"),
	    HJOB(4, 1000, 1000, 1100, 3, 3, 100, "p"),
	};
	struct whatif wf;
	struct conf *conf;

	(void)state;
	replay_jobs("NodeName=big CPUs=4\nNodeName=s[1-2] CPUs=2\n"
	            "PartitionName=p Nodes=big,s[1-2]\n",
	            js, 4, &wf, &conf);
	assert_int_equal(wf.all.cpus, 8);
	assert_int_equal(wf.w[0].sim_start, 1000);
	assert_int_equal(wf.w[1].sim_start, 1100); /* waits for `big` */
	assert_int_equal(wf.w[2].sim_start, 1000); /* on s1 and s2 */
	/* three nodes: they are all busy until 1100, then job 2 holds big */
	assert_int_equal(wf.w[3].sim_start, 1200);
	release(&wf, conf);
}

static void test_job_size_weight_reorders(void **state)
{
	/* job 1 holds the node; jobs 2 (1 CPU) and 3 (4 CPUs) wait for it */
	struct sim_hjob js[] = {
	    HJOB(1, 1000, 1000, 1100, 4, 1, 100, "p"),
	    HJOB(2, 1010, 1100, 1200, 4, 1, 100, "p"),
	    HJOB(3, 1020, 1200, 1300, 4, 1, 100, "p"),
	};
	struct whatif wf;
	struct conf *conf;

	(void)state;
	replay_jobs("NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1\n", js, 3, &wf, &conf);
	assert_int_equal(wf.w[1].sim_start, 1100); /* basic: FIFO */
	assert_int_equal(wf.w[2].sim_start, 1200);
	release(&wf, conf);
	js[2].cpus = 4;
	js[1].cpus = 1;
	replay_jobs("PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\n"
	            "NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1\n",
	            js, 3, &wf, &conf);
	assert_int_equal(wf.w[2].sim_start, 1100); /* the larger job first */
	assert_int_equal(wf.w[1].sim_start, 1200);
	release(&wf, conf);
}

static void test_backfill_waits_for_bf_interval(void **state)
{
	/* job 2 (4 CPUs) waits for job 1; job 3 (2 CPUs, 100 s) fits beside
	 * job 1 before job 2's reservation, but only backfill starts it */
	struct sim_hjob js[] = {
	    HJOB(1, 1000, 1000, 2000, 2, 1, 1000, "p"),
	    HJOB(2, 1000, 2000, 2100, 4, 1, 1000, "p"),
	    HJOB(3, 1005, 1030, 1130, 2, 1, 100, "p"),
	};
	struct whatif wf;
	struct conf *conf;

	(void)state;
	replay_jobs("NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1\n", js, 3, &wf, &conf);
	assert_int_equal(wf.opts.bf_interval, 30);
	assert_int_equal(wf.w[2].sim_start, 1030); /* the next backfill run */
	assert_int_equal(wf.w[1].sim_start, 2000);
	assert_int_equal(wf.all.later + wf.all.earlier, 0);
	release(&wf, conf);
	replay_jobs("SchedulerParameters=bf_interval=300\n"
	            "NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1\n",
	            js, 3, &wf, &conf);
	assert_int_equal(wf.w[2].sim_start, 1300);
	assert_int_equal(wf.all.later, 1);
	release(&wf, conf);
}

static void test_features_memory_exclusive_are_honoured(void **state)
{
	/* three jobs asking for `fast` share its two nodes; two of 600 MB
	 * cannot share a 1000 MB node; an exclusive job holds its node */
	struct sim_hjob js[] = {
	    HJOB(1, 1000, 1000, 1100, 4, 1, 100, "f"),
	    HJOB(2, 1000, 1000, 1100, 4, 1, 100, "f"),
	    HJOB(3, 1000, 1100, 1200, 4, 1, 100, "f"),
	    HJOB(4, 1000, 1000, 1100, 1, 1, 100, "m"),
	    HJOB(5, 1000, 1100, 1200, 1, 1, 100, "m"),
	    HJOB(6, 1000, 1000, 1100, 1, 1, 100, "x"),
	    HJOB(7, 1000, 1100, 1200, 1, 1, 100, "x"),
	};
	struct whatif wf;
	struct conf *conf;

	(void)state;
	for (int i = 0; i < 3; i++)
		js[i].features = "fast";
	js[3].mem_per_node = js[4].mem_per_node = 600;
	js[5].exclusive = 1;
	replay_jobs("NodeName=a[1-2] CPUs=4 Features=fast\nNodeName=b[1-4] CPUs=4\n"
	            "NodeName=m1 CPUs=4 RealMemory=1000\nNodeName=x1 CPUs=4\n"
	            "PartitionName=f Nodes=a[1-2],b[1-4]\nPartitionName=m Nodes=m1\n"
	            "PartitionName=x Nodes=x1\n",
	            js, 7, &wf, &conf);
	assert_int_equal(wf.w[0].sim_start, 1000);
	assert_int_equal(wf.w[1].sim_start, 1000);
	assert_int_equal(wf.w[2].sim_start, 1100); /* b1-b4 are idle, not fast */
	assert_int_equal(wf.w[3].sim_start, 1000);

	assert_int_equal(wf.w[4].sim_start, 1100);
	assert_int_equal(wf.w[5].sim_start, 1000);
	assert_int_equal(wf.w[6].sim_start, 1100);
	assert_int_equal(wf.all.later + wf.all.earlier, 0);
	release(&wf, conf);
	/* none of it asked: they all start at once */
	for (int i = 0; i < 7; i++) {
		js[i].features = NULL;
		js[i].mem_per_node = 0;
		js[i].exclusive = 0;
	}
	replay_jobs("NodeName=a[1-2] CPUs=4 Features=fast\nNodeName=b[1-4] CPUs=4\n"
	            "NodeName=m1 CPUs=4 RealMemory=1000\nNodeName=x1 CPUs=4\n"
	            "PartitionName=f Nodes=a[1-2],b[1-4]\nPartitionName=m Nodes=m1\n"
	            "PartitionName=x Nodes=x1\n",
	            js, 7, &wf, &conf);
	assert_int_equal(wf.all.earlier, 3);
	release(&wf, conf);
}

static void test_bf_estimate_predict_backfills_short_runners(void **state)
{
	/* u's two jobs ran 10 s of their 1000; v's L holds 2 of 4 CPUs and B
	 * waits for all 4; u's C (2 CPUs, 1000 s asked) fits before B's
	 * reservation only when planned with u's past runtimes */
	struct sim_hjob js[] = {
	    HJOB(1, 0, 0, 10, 1, 1, 1000, "p"),
	    HJOB(2, 0, 0, 10, 1, 1, 1000, "p"),
	    HJOB(3, 100, 100, 600, 2, 1, 1000, "p"),
	    HJOB(4, 100, 600, 700, 4, 1, 1000, "p"),
	    HJOB(5, 105, 700, 710, 2, 1, 1000, "p"),
	};
	struct whatif wf;
	struct conf *conf;

	(void)state;
	js[2].user = js[3].user = "v";
	replay_jobs("SchedulerParameters=bf_resolution=1\n"
	            "NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1\n",
	            js, 5, &wf, &conf);
	assert_int_equal(wf.w[3].sim_start, 600);
	assert_int_equal(wf.w[4].sim_start, 700); /* planned for 1000 s */
	release(&wf, conf);
	replay_jobs("SchedulerParameters=bf_estimate=predict,bf_resolution=1\n"
	            "NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1\n",
	            js, 5, &wf, &conf);
	assert_true(wf.opts.bf_predict);
	assert_int_equal(wf.w[4].sim_start, 130); /* the next backfill run */
	assert_int_equal(wf.w[3].sim_start, 600);
	assert_int_equal(wf.all.earlier, 1);
	release(&wf, conf);
}

static void test_priority_tier_goes_first(void **state)
{
	/* lo's job 2 queued before hi's job 3, both behind job 1 on the one
	 * node both partitions share: hi's higher PriorityTier goes first */
	struct sim_hjob js[] = {
	    HJOB(1, 1000, 1000, 1100, 4, 1, 100, "lo"),
	    HJOB(2, 1010, 1100, 1200, 4, 1, 100, "lo"),
	    HJOB(3, 1020, 1200, 1300, 4, 1, 100, "hi"),
	};
	struct whatif wf;
	struct conf *conf;

	(void)state;
	replay_jobs("NodeName=n1 CPUs=4\nPartitionName=lo Nodes=n1 PriorityTier=1\n"
	            "PartitionName=hi Nodes=n1 PriorityTier=2\n",
	            js, 3, &wf, &conf);
	assert_int_equal(wf.w[2].sim_start, 1100);
	assert_int_equal(wf.w[1].sim_start, 1200);
	assert_int_equal(wf.parts[0].later, 1);
	assert_int_equal(wf.parts[1].earlier, 1);
	release(&wf, conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_disjoint_partitions_run_apart),
	    cmocka_unit_test(test_overlapping_partitions_share_nodes),
	    cmocka_unit_test(test_jobs_fit_on_nodes_not_cpus),
	    cmocka_unit_test(test_job_size_weight_reorders),
	    cmocka_unit_test(test_backfill_waits_for_bf_interval),
	    cmocka_unit_test(test_features_memory_exclusive_are_honoured),
	    cmocka_unit_test(test_bf_estimate_predict_backfills_short_runners),
	    cmocka_unit_test(test_priority_tier_goes_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
