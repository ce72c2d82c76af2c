/* test_select.c - resource selection (src/sched/select.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include "sched/select.h"

#define N 4
static struct sched_node nodes[N];
static uint32_t idx[N], cpus[N], tasks[N];
static uint64_t mem[N];
static uint32_t gres[N * SCHED_GRES_KINDS];
static struct sched_alloc out = {
    .node_idx = idx, .cpus = cpus, .tasks = tasks, .mem = mem, .gres = gres};

static int setup(void **state)
{
	for (int i = 0; i < N; i++)
		nodes[i] = (struct sched_node){.cpus = 16, .mem = 64000, .usable = 1};
	return 0;
}

static struct sched_req req(uint32_t nn, uint32_t nt, uint32_t tpn, uint32_t cpt)
{
	return (struct sched_req){.min_nodes = nn,
	                          .max_nodes = SCHED_UNSET,
	                          .num_tasks = nt,
	                          .ntasks_per_node = tpn,
	                          .cpus_per_task = cpt};
}

static void test_tutorial_demo(void **state)
{
	struct sched_req r = req(2, SCHED_UNSET, 2, 1);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	assert_int_equal(out.ntasks, 4);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 1);
	assert_int_equal(tasks[0], 2);
	assert_int_equal(cpus[1], 2);
}

static void test_tasks_span_nodes(void **state)
{
	struct sched_req r = req(1, 20, SCHED_UNSET, 1);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	assert_int_equal(tasks[0] + tasks[1], 20);
	assert_int_equal(cpus[0], 16);
}

static void test_nodes_given_pack_first_node(void **state)
{
	/* as select/cons_tres: one CPU kept for each node, the rest on the
	 * first (salloc -N2 -n4 gives 3,1; --spread-job would spread) */
	struct sched_req r = req(2, 4, SCHED_UNSET, 1);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(tasks[0], 3);
	assert_int_equal(tasks[1], 1);
	r = req(4, 7, SCHED_UNSET, 1);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(tasks[0], 4);
	assert_int_equal(tasks[3], 1);
}

/* --spread-job: as many nodes as the tasks and max_nodes allow, the tasks
 * dealt out evenly; the nodes as -N or the tasks limit them */
static void test_spread(void **state)
{
	struct sched_req r = req(1, 6, SCHED_UNSET, 1);

	r.spread = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 4);
	assert_int_equal(tasks[0], 2);
	assert_int_equal(tasks[1], 2);
	assert_int_equal(tasks[2], 1);
	assert_int_equal(tasks[3], 1);
	r = req(1, 2, SCHED_UNSET, 1);
	r.spread = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	r = req(1, 8, SCHED_UNSET, 1);
	r.spread = 1;
	r.max_nodes = 3;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 3);
	assert_int_equal(tasks[0] + tasks[1] + tasks[2], 8);
	assert_true(tasks[2] >= 2);
	/* a busy node is left out, not waited for */
	nodes[1].alloc_cpus = 16;
	r = req(1, 6, SCHED_UNSET, 1);
	r.spread = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 3);
	assert_int_equal(idx[1], 2);
}

/* --contiguous: consecutive node indexes, the first run that holds it */
static void test_contiguous(void **state)
{
	struct sched_req r = req(2, SCHED_UNSET, SCHED_UNSET, 1);

	r.contiguous = 1;
	nodes[1].alloc_cpus = 16;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 2);
	assert_int_equal(idx[1], 3);
	r = req(3, SCHED_UNSET, SCHED_UNSET, 1);
	r.contiguous = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EAGAIN);
	nodes[1].alloc_cpus = 0;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[2], 2);
	nodes[2].usable = 0;
	r = req(2, SCHED_UNSET, SCHED_UNSET, 1);
	r.contiguous = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 1);
	r = req(1, 40, SCHED_UNSET, 1);
	r.contiguous = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
}

static void test_cpus_per_task(void **state)
{
	struct sched_req r = req(1, 1, SCHED_UNSET, 8);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 1);
	assert_int_equal(cpus[0], 8);
}

static void test_busy_vs_never(void **state)
{
	struct sched_req r = req(4, SCHED_UNSET, SCHED_UNSET, 1);
	nodes[0].alloc_cpus = 16;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EAGAIN);
	r = req(5, SCHED_UNSET, SCHED_UNSET, 1);
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
	r = req(1, 1, SCHED_UNSET, 17); /* more CPUs than any node */
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
	r = req(1, SCHED_UNSET, SCHED_UNSET, 1);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 1); /* skips the busy node */
}

static void test_memory(void **state)
{
	struct sched_req r = req(1, SCHED_UNSET, SCHED_UNSET, 1);
	r.mem_per_node = 70000;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
	r.mem_per_node = 40000;
	nodes[0].alloc_mem = 30000;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 1);
	assert_int_equal(mem[0], 40000);
	r.mem_per_node = 0;
	r.mem_per_cpu = 5000;
	r.num_tasks = 4;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(mem[0], 20000);
}

static void test_exclusive_and_required(void **state)
{
	struct sched_req r = req(1, SCHED_UNSET, SCHED_UNSET, 1);
	nodes[0].alloc_cpus = 1;
	r.exclusive = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 1);
	assert_int_equal(cpus[0], 16);
	r.exclusive = 0;
	nodes[3].required = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 3);
	nodes[3].usable = 0; /* a required node that is drained: wait */
	assert_int_equal(sched_select(nodes, N, &r, &out), -EAGAIN);
	nodes[3].required = 0;
	nodes[2].usable = 0;
	nodes[1].alloc_cpus = 16;
	nodes[0].alloc_cpus = 16;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EAGAIN);
}

static void test_weight(void **state)
{
	struct sched_req r = req(2, SCHED_UNSET, SCHED_UNSET, 1);
	nodes[0].weight = 10;
	nodes[1].weight = 5;
	nodes[2].weight = 1;
	nodes[3].weight = 5;
	/* lowest weight first, ties in node order; the result is in index order */
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 2);
	r.min_nodes = 3;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 2);
	assert_int_equal(idx[2], 3);
	/* a full light node is skipped for the next weight */
	nodes[2].alloc_cpus = 16;
	r.min_nodes = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 1);
	/* tasks fill the lightest node first */
	nodes[2].alloc_cpus = 0;
	r = req(1, 20, SCHED_UNSET, 1);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 2);
	assert_int_equal(tasks[1], 16); /* node 2 (weight 1) came first */
	assert_int_equal(tasks[0], 4);
}

static void test_min_cpus(void **state)
{
	struct sched_req r = req(1, SCHED_UNSET, SCHED_UNSET, 1);
	r.min_cpus = 8;
	nodes[0].alloc_cpus = 10; /* 6 free: too few */
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 1);
	assert_int_equal(cpus[0], 8); /* at least min_cpus, though one task */
	assert_int_equal(tasks[0], 1);
	r.mem_per_cpu = 1000;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(mem[0], 8000);
	for (int i = 1; i < N; i++)
		nodes[i].alloc_cpus = 9;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EAGAIN);
	r.min_cpus = 17; /* more than any node has */
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
}

static void test_oversubscribe(void **state)
{
	struct sched_req r = req(1, 16, SCHED_UNSET, 1);
	/* every node full of sharing jobs (one layer) */
	for (int i = 0; i < N; i++)
		nodes[i].alloc_cpus = nodes[i].shared_cpus = 16;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EAGAIN);
	r.share = 2;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 0);
	assert_int_equal(cpus[0], 16);
	/* two layers on node 0: it is full at share 2, not at share 4 */
	nodes[0].alloc_cpus = nodes[0].shared_cpus = 32;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 1);
	r.share = 4;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 0);
	/* one job never gets more CPUs on a node than it has */
	r.num_tasks = 17;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	/* CPUs held by a non-sharing job are not shared */
	setup(state);
	nodes[0].alloc_cpus = 12; /* 12 exclusive */
	r = req(1, 8, SCHED_UNSET, 1);
	r.share = 4;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2); /* only 4 CPUs of node 0 to share */
	assert_int_equal(idx[0], 0);
	assert_int_equal(cpus[0], 4);
	r.num_tasks = 4;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 0);
	/* an exclusive job still needs an idle node */
	r.exclusive = 1;
	r.share = 0;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 1);
}

/* -N1 -n8: a node with only 4 free CPUs is passed over for one that holds
 * all eight, now (and not only on idle nodes). */
static void test_one_node_skips_too_small(void **state)
{
	struct sched_req r = req(1, 8, SCHED_UNSET, 1);

	r.max_nodes = 1;
	nodes[0].alloc_cpus = 12;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 1);
	assert_int_equal(idx[0], 1);
	assert_int_equal(tasks[0], 8);
	nodes[0].alloc_cpus = 0;
}

/* GPU nodes: kinds 0 = gpu:a100, 1 = gpu:h100.  Nodes 0-1 have 4 a100, node
 * 2 has 2 h100, node 3 none. */
static int setup_gpus(void **state)
{
	setup(state);
	nodes[0].gres[0] = nodes[1].gres[0] = 4;
	nodes[2].gres[1] = 2;
	return 0;
}

static struct sched_gres_want gpus(uint32_t kinds, uint32_t node, uint32_t task,
                                   uint32_t job)
{
	return (struct sched_gres_want){kinds, node, task, job};
}

static void test_gres_per_node(void **state)
{
	struct sched_req r = req(1, SCHED_UNSET, SCHED_UNSET, 1);

	/* untyped gpu:2 takes the first node with two free */
	r.ngres = 1;
	r.gres[0] = gpus(3, 2, 0, 0);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 0);
	assert_int_equal(gres[0], 2);
	/* typed h100:2: only node 2 */
	r.gres[0] = gpus(2, 2, 0, 0);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 2);
	assert_int_equal(gres[1], 2);
	assert_int_equal(gres[0], 0);
	/* the seed's "2 servers x 4 GPUs": busy GPUs on node 1 make it wait */
	r = req(2, SCHED_UNSET, SCHED_UNSET, 1);
	r.ngres = 1;
	r.gres[0] = gpus(3, 4, 0, 0);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 1);
	nodes[1].gres_alloc[0] = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EAGAIN);
	/* more than any node has: never */
	r.gres[0] = gpus(3, 5, 0, 0);
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
}

static void test_gres_per_task_and_job(void **state)
{
	/* 3 tasks of one GPU each: 4 a100 on node 0 hold them all */
	struct sched_req r = req(1, 3, SCHED_UNSET, 1);

	r.ngres = 1;
	r.gres[0] = gpus(3, 0, 1, 0);
	nodes[0].gres_alloc[0] = 2; /* two left on node 0: the tasks spread */
	r.max_nodes = 2;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	assert_int_equal(tasks[0], 2);
	assert_int_equal(gres[0], 2);
	assert_int_equal(tasks[1], 1);
	assert_int_equal(gres[SCHED_GRES_KINDS], 1);
	/* --gpus=6 on two nodes: 2 free on node 0, 4 on node 1 */
	r = req(2, SCHED_UNSET, SCHED_UNSET, 1);
	r.ngres = 1;
	r.gres[0] = gpus(3, 0, 0, 6);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(gres[0] + gres[SCHED_GRES_KINDS], 6);
	/* --gpus=2 on one node skips the node with too few */
	nodes[0].gres_alloc[0] = 3;
	r = req(1, SCHED_UNSET, SCHED_UNSET, 1);
	r.ngres = 1;
	r.gres[0] = gpus(1, 0, 0, 2);
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 1);
	assert_int_equal(gres[0], 2);
}

/* A task's CPUs on a node of two threads a core (sched_task_cpus). */
static void test_task_cpus_in_cores(void **state)
{
	struct sched_node ht = {.cpus = 8, .sockets = 2, .cores = 2, .threads = 2};
	struct sched_node one = {.cpus = 8, .sockets = 2, .cores = 4, .threads = 1};
	struct sched_req r = req(1, SCHED_UNSET, SCHED_UNSET, 1);

	assert_int_equal(sched_task_cpus(&r, &ht), 1); /* threads one by one */
	r.threads_per_core = 1;                        /* --hint=nomultithread */
	assert_int_equal(sched_task_cpus(&r, &ht), 2);
	assert_int_equal(sched_task_cpus(&r, &one), 1);
	r.cpus_per_task = 3; /* 3 cores, one thread each */
	assert_int_equal(sched_task_cpus(&r, &ht), 6);
	r.threads_per_core = 0;
	r.ntasks_per_core = 1; /* a core to itself: 3 threads take 2 cores */
	assert_int_equal(sched_task_cpus(&r, &ht), 4);
	r.cpus_per_task = 1;
	assert_int_equal(sched_task_cpus(&r, &ht), 2);
	r.ntasks_per_core = 2; /* two tasks share a core */
	assert_int_equal(sched_task_cpus(&r, &ht), 1);
	r.ntasks_per_core = 4; /* more than the core's threads: no limit */
	assert_int_equal(sched_task_cpus(&r, &ht), 1);
	r.cpus_per_task = 3;
	assert_int_equal(sched_task_cpus(&r, &ht), 3);
}

static void test_layout_caps_tasks(void **state)
{
	struct sched_req r = req(1, 4, SCHED_UNSET, 1);

	for (int i = 0; i < N; i++)
		nodes[i] = (struct sched_node){.cpus = 8,
		                               .mem = 64000,
		                               .usable = 1,
		                               .sockets = 2,
		                               .cores = 2,
		                               .threads = 2};
	r.max_nodes = 1;
	r.ntasks_per_socket = 1; /* 2 sockets: 2 tasks a node */
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
	r.max_nodes = SCHED_UNSET;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	r.ntasks_per_socket = 0;
	r.threads_per_core = 1; /* whole cores: 4 tasks, 8 CPUs, one node */
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 1);
	assert_int_equal(cpus[0], 8);
	r.num_tasks = 5;
	r.max_nodes = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
}

/* MaxCPUsPerNode=4: -n10 takes three nodes (4+4+2), not the first 10 CPUs
 * of one; what the partition's jobs hold already counts against it. */
static void test_max_cpus_per_node(void **state)
{
	struct sched_req r = req(1, 10, SCHED_UNSET, 1);

	r.max_cpus_per_node = 4;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 3);
	assert_int_equal(cpus[0], 4);
	assert_int_equal(cpus[1], 4);
	assert_int_equal(cpus[2], 2);
	/* node 0 has 3 of the partition's 4 taken: 1 left there */
	nodes[0].alloc_cpus = nodes[0].part_cpus = 3;
	r = req(1, 2, SCHED_UNSET, 1);
	r.max_cpus_per_node = 4;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	assert_int_equal(idx[0], 0);
	assert_int_equal(cpus[0], 1);
	/* another partition's jobs there do not count */
	nodes[0].part_cpus = 0;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 1);
	assert_int_equal(idx[0], 0);
	/* -N1 -n5 never fits under the cap; without it, it does */
	r = req(1, 5, SCHED_UNSET, 1);
	r.max_nodes = 1;
	r.max_cpus_per_node = 4;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
	r.max_cpus_per_node = 0;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	/* a whole-node job needs a node of no more CPUs than the cap */
	r = req(1, 1, SCHED_UNSET, 1);
	r.exclusive = 1;
	r.max_cpus_per_node = 8;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
	r.max_cpus_per_node = 16;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(cpus[0], 16);
}

/* LLN: the node with the most of its CPUs free first, within a weight. */
static void test_lln(void **state)
{
	struct sched_req r = req(1, 1, SCHED_UNSET, 1);

	nodes[0].alloc_cpus = 4;
	nodes[1].alloc_cpus = 2;
	nodes[2].alloc_cpus = 8;
	nodes[3].alloc_cpus = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 0); /* without LLN: in index order */
	r.lln = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 3);
	/* by the share free, not the count: 16 of 32 free loses to 7 of 8 */
	nodes[3].cpus = 8;
	nodes[3].alloc_cpus = 1;
	nodes[1].cpus = 32;
	nodes[1].alloc_cpus = 16;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 3);
	/* weight first: node 3 heavier, node 0 (12 of 16) is next */
	nodes[3].weight = 2;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 0);
	/* -N2: the two least loaded */
	nodes[3].weight = 0;
	r.min_nodes = 2;
	r.num_tasks = 2;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 3);
}

/* --constraint node counts: nodes 0..3 have a: -,-,a,a and b: -,b,-,b */
static void feat_setup(void)
{
	nodes[1].feat = 2;
	nodes[2].feat = 1;
	nodes[3].feat = 3;
}

static void test_feat_counts(void **state)
{
	struct sched_req r = req(3, SCHED_UNSET, SCHED_UNSET, 1);

	feat_setup();
	/* "a*2" of 3 nodes: 2 and 3, then the lightest other */
	r.nfeat = 1;
	r.feat[0] = (struct sched_feat){.nodes = 2};
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 3);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 2);
	assert_int_equal(idx[2], 3);
	/* "a*3": only 2 nodes have a, ever */
	r.feat[0].nodes = 3;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
	/* busy now: a node with a is full, the job waits */
	r.feat[0].nodes = 2;
	nodes[2].alloc_cpus = 16;
	assert_int_equal(sched_select(nodes, N, &r, &out), -EAGAIN);
	nodes[2].alloc_cpus = 0;
	/* overlapping counts "a*1&b*1" of 1 node: node 3 has both */
	r = req(1, SCHED_UNSET, SCHED_UNSET, 1);
	r.nfeat = 2;
	r.feat[0] = (struct sched_feat){.nodes = 1};
	r.feat[1] = (struct sched_feat){.nodes = 1};
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 1);
	assert_int_equal(idx[0], 3);
	/* "[a*1&b*1]": nodes of their own, 2 in all (node 3 serves one) */
	r = req(2, SCHED_UNSET, SCHED_UNSET, 1);
	r.nfeat = 2;
	r.feat[0] = (struct sched_feat){.nodes = 1, .own = 1};
	r.feat[1] = (struct sched_feat){.nodes = 1, .own = 1};
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(out.nnodes, 2);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 2);
	/* "[a*2&b*2]": a takes 2 and 3, b has only 1 left */
	r = req(4, SCHED_UNSET, SCHED_UNSET, 1);
	r.nfeat = 2;
	r.feat[0] = (struct sched_feat){.nodes = 2, .own = 1};
	r.feat[1] = (struct sched_feat){.nodes = 2, .own = 1};
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
	/* more nodes than the job may have: never */
	r = req(1, SCHED_UNSET, SCHED_UNSET, 1);
	r.max_nodes = 1;
	r.nfeat = 1;
	r.feat[0] = (struct sched_feat){.nodes = 2};
	assert_int_equal(sched_select(nodes, N, &r, &out), -EINVAL);
}

/* a named node (-w) counts toward them; --contiguous runs hold them */
static void test_feat_counts_required_contiguous(void **state)
{
	struct sched_req r = req(2, SCHED_UNSET, SCHED_UNSET, 1);

	feat_setup();
	r.nfeat = 1;
	r.feat[0] = (struct sched_feat){.nodes = 1};
	nodes[3].required = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 3);
	nodes[3].required = 0;
	r.feat[0].nodes = 2;
	r.contiguous = 1;
	assert_int_equal(sched_select(nodes, N, &r, &out), 0);
	assert_int_equal(idx[0], 2);
	assert_int_equal(idx[1], 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_tutorial_demo, setup),
	    cmocka_unit_test_setup(test_max_cpus_per_node, setup),
	    cmocka_unit_test_setup(test_lln, setup),
	    cmocka_unit_test_setup(test_task_cpus_in_cores, setup),
	    cmocka_unit_test_setup(test_layout_caps_tasks, setup),
	    cmocka_unit_test_setup(test_one_node_skips_too_small, setup),
	    cmocka_unit_test_setup(test_tasks_span_nodes, setup),
	    cmocka_unit_test_setup(test_cpus_per_task, setup),
	    cmocka_unit_test_setup(test_spread, setup),
	    cmocka_unit_test_setup(test_contiguous, setup),
	    cmocka_unit_test_setup(test_nodes_given_pack_first_node, setup),
	    cmocka_unit_test_setup(test_busy_vs_never, setup),
	    cmocka_unit_test_setup(test_memory, setup),
	    cmocka_unit_test_setup(test_exclusive_and_required, setup),
	    cmocka_unit_test_setup(test_weight, setup),
	    cmocka_unit_test_setup(test_min_cpus, setup),
	    cmocka_unit_test_setup(test_oversubscribe, setup),
	    cmocka_unit_test_setup(test_feat_counts, setup),
	    cmocka_unit_test_setup(test_feat_counts_required_contiguous, setup),
	    cmocka_unit_test_setup(test_gres_per_node, setup_gpus),
	    cmocka_unit_test_setup(test_gres_per_task_and_job, setup_gpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
