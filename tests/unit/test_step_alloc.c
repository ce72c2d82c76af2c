/* test_step_alloc.c - how steps divide their job's allocation: whole nodes by
 * default, ntasks x cpus-per-task with --exact or -c, --overlap, memory, -N and
 * candidates, busy against never.  step_alloc.c is compiled in (ctld objects
 * are not in librota.a). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ctld/step_alloc.c"

#define NODES 2
#define CPUS  8

struct fixture {
	struct job job;
	struct job_run run; /* the job's, on the stack */
	uint32_t node_idx[NODES], cpus[NODES], core_ids[NODES][CPUS];
	uint32_t *cores[NODES];
	uint64_t mem[NODES];
	uint32_t cand[NODES];
};

static void fixture_init(struct fixture *f, uint64_t mem)
{
	memset(f, 0, sizeof(*f));
	for (uint32_t k = 0; k < NODES; k++) {
		f->node_idx[k] = 10 + k;
		f->cpus[k] = CPUS;
		f->mem[k] = mem;
		f->cand[k] = k;
		for (uint32_t c = 0; c < CPUS; c++)
			f->core_ids[k][c] = c;
		f->cores[k] = f->core_ids[k];
	}
	f->job.run = &f->run;
	f->run.nnodes = NODES;
	f->run.node_idx = f->node_idx;
	f->run.cpus = f->cpus;
	f->run.cores = f->cores;
	f->run.mem = f->mem;
}

static struct step_create_req req_new(uint32_t ntasks, uint32_t cpt, uint32_t flags)
{
	struct step_create_req r = {0};

	r.min_nodes = NO_VAL;
	r.num_tasks = ntasks;
	r.ntasks_per_node = NO_VAL;
	r.cpus_per_task = cpt;
	r.flags = flags;
	r.relative = NO_VAL;
	return r;
}

/* Allocate and, on success, record it as a running step of the job. */
static int take(struct fixture *f, const struct step_create_req *r, uint32_t ncand,
                int fixed)
{
	struct step_layout l;
	struct step *st;
	int rc = step_alloc(&f->job, r, f->cand, ncand, fixed, NULL, &l);

	if (rc)
		return rc;
	st = xcalloc(1, sizeof(*st));
	st->nnodes = l.n;
	st->node_idx = xcalloc(l.n, sizeof(uint32_t));
	for (uint32_t i = 0; i < l.n; i++)
		st->node_idx[i] = f->run.node_idx[l.pos[i]];
	st->nslots = l.nslots;
	st->slots = l.slots;
	st->mem = l.mem;
	st->num_cpus = l.num_cpus;
	st->overlap = !!(r->flags & STEP_F_OVERLAP);
	l.nslots = NULL;
	l.slots = NULL;
	l.mem = NULL;
	step_layout_release(&l);
	st->next = f->run.steps;
	f->run.steps = st;
	return 0;
}

static void steps_free(struct fixture *f)
{
	for (struct step *s = f->run.steps, *n; s; s = n) {
		n = s->next;
		for (uint32_t i = 0; i < s->nnodes; i++)
			free(s->slots[i]);
		free(s->slots);
		free(s->nslots);
		free(s->mem);
		free(s->node_idx);
		free(s);
	}
	f->run.steps = NULL;
}

static void test_exact_steps_divide_a_node(void **state)
{
	struct fixture f;
	struct step_create_req r = req_new(1, 4, STEP_F_EXACT);

	fixture_init(&f, 0);
	assert_int_equal(take(&f, &r, 1, 0), 0);
	assert_int_equal(f.run.steps->num_cpus, 4);
	assert_int_equal(f.run.steps->slots[0][0], 0);
	assert_int_equal(take(&f, &r, 1, 0), 0);
	assert_int_equal(f.run.steps->slots[0][0], 4); /* the free ones */
	assert_int_equal(take(&f, &r, 1, 0), -ESLURM_NODES_BUSY);
	/* over both nodes the third goes to the second node */
	assert_int_equal(take(&f, &r, 2, 0), 0);
	assert_int_equal(f.run.steps->node_idx[0], 11);
	steps_free(&f);
}

static void test_cpus_per_task_implies_exact(void **state)
{
	struct fixture f;
	struct step_create_req r = req_new(2, 2, 0);

	fixture_init(&f, 0);
	assert_int_equal(take(&f, &r, 1, 0), 0);
	assert_int_equal(f.run.steps->num_cpus, 4);
	steps_free(&f);
}

static void test_whole_nodes_by_default(void **state)
{
	struct fixture f;
	struct step_create_req r = req_new(1, NO_VAL, 0);
	struct step_create_req small = req_new(1, 1, STEP_F_EXACT);

	fixture_init(&f, 0);
	assert_int_equal(take(&f, &r, 1, 0), 0);
	assert_int_equal(f.run.steps->num_cpus, CPUS);
	assert_int_equal(take(&f, &small, 1, 0), -ESLURM_NODES_BUSY);
	/* -w names a busy node: it waits rather than going elsewhere */
	assert_int_equal(take(&f, &r, 1, 1), -ESLURM_NODES_BUSY);
	assert_int_equal(take(&f, &r, 2, 0), 0);
	assert_int_equal(take(&f, &r, 2, 0), -ESLURM_NODES_BUSY);
	steps_free(&f);
}

static void test_overlap_shares_everything(void **state)
{
	struct fixture f;
	struct step_create_req whole = req_new(NO_VAL, NO_VAL, 0);
	struct step_create_req ov = req_new(1, CPUS, STEP_F_OVERLAP);

	fixture_init(&f, 0);
	assert_int_equal(take(&f, &whole, 2, 0), 0);
	assert_int_equal(f.run.steps->nnodes, 2);
	assert_int_equal(take(&f, &ov, 1, 0), 0);
	assert_int_equal(f.run.steps->num_cpus, CPUS);
	assert_int_equal(take(&f, &ov, 2, 0), 0);
	steps_free(&f);
	/* and an --overlap step holds nothing against the others */
	assert_int_equal(take(&f, &ov, 1, 0), 0);
	assert_int_equal(take(&f, &whole, 1, 0), 0);
	steps_free(&f);
}

static void test_never_fits(void **state)
{
	struct fixture f;
	struct step_create_req big = req_new(1, CPUS * 2, STEP_F_EXACT);
	struct step_create_req many = req_new(CPUS * NODES + 1, NO_VAL, 0);
	struct step_create_req nodes = req_new(NO_VAL, NO_VAL, 0);

	fixture_init(&f, 0);
	assert_int_equal(take(&f, &big, 2, 0), -ESLURM_TOO_MANY_REQUESTED_CPUS);
	assert_int_equal(take(&f, &many, 2, 0), -ESLURM_TOO_MANY_REQUESTED_CPUS);
	many.flags |= STEP_F_OVERCOMMIT;
	assert_int_equal(take(&f, &many, 2, 0), 0);
	steps_free(&f);
	nodes.min_nodes = 3;
	assert_int_equal(take(&f, &nodes, 2, 0), -ESLURM_INVALID_NODE_COUNT);
	nodes.relative = 1; /* -r over a -N given: too few nodes left */
	assert_int_equal(take(&f, &nodes, 1, 0), -ESLURM_INVALID_NODE_COUNT);
	nodes.flags |= STEP_F_NODES_ENV; /* -r wins over the allocation's count */
	assert_int_equal(take(&f, &nodes, 1, 0), 0);
	steps_free(&f);
}

static void test_memory(void **state)
{
	struct fixture f;
	struct step_create_req r = req_new(1, 1, STEP_F_EXACT);

	fixture_init(&f, 1000);
	r.mem_per_node = 600;
	assert_int_equal(take(&f, &r, 1, 0), 0);
	assert_int_equal(f.run.steps->mem[0], 600);
	assert_int_equal(take(&f, &r, 1, 0), -ESLURM_NODES_BUSY);
	r.mem_per_node = 2000;
	assert_int_equal(take(&f, &r, 1, 0), -ESLURM_INVALID_TASK_MEMORY);
	r.mem_per_node = 0;
	r.mem_per_cpu = 100;
	r.cpus_per_task = 3;
	assert_int_equal(take(&f, &r, 1, 0), 0);
	assert_int_equal(f.run.steps->mem[0], 300);
	steps_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact_steps_divide_a_node),
	    cmocka_unit_test(test_cpus_per_task_implies_exact),
	    cmocka_unit_test(test_whole_nodes_by_default),
	    cmocka_unit_test(test_overlap_shares_everything),
	    cmocka_unit_test(test_never_fits),
	    cmocka_unit_test(test_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
