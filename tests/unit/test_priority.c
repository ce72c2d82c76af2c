/* test_priority.c - priority/basic and priority/multifactor. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/conf.h"
#include "common/common.h"
#include "sched/priority.h"

static const struct priority_params mf = {
    .type = PRIORITY_MULTIFACTOR,
    .weight_age = 1000,
    .weight_job_size = 2000,
    .weight_partition = 4000,
    .weight_qos = 500,
    .weight_fairshare = 700,
    .max_age = 1000,
    .cluster_cpus = 100,
    .cluster_nodes = 10,
    .max_part_job_factor = 4,
};

static void test_basic(void **state)
{
	struct priority_params pp = mf;
	struct priority_job j = {.job_id = 42, .eligible_time = 0, .cpus = 50};

	(void)state;
	pp.type = PRIORITY_BASIC;
	assert_int_equal(priority_of(&pp, &j, 5000), 0xffff0000u - 42);
	j.nice = 100; /* less its nice value, as Slurm's priority/basic */
	assert_int_equal(priority_of(&pp, &j, 5000), 0xffff0000u - 42 - 100);
	j.nice = -5;
	assert_int_equal(priority_of(&pp, &j, 5000), 0xffff0000u - 42 + 5);
	j.job_id = 0xffff0000u - 3; /* never below 1 */
	j.nice = 100;
	assert_int_equal(priority_of(&pp, &j, 5000), 1);
}

static void test_type_parse(void **state)
{
	(void)state;
	assert_int_equal(priority_type_parse(NULL), PRIORITY_BASIC);
	assert_int_equal(priority_type_parse("priority/basic"), PRIORITY_BASIC);
	assert_int_equal(priority_type_parse("priority/multifactor"),
	                 PRIORITY_MULTIFACTOR);
	assert_int_equal(priority_type_parse("priority/other"), -EINVAL);
}

static void test_factors(void **state)
{
	struct priority_job j = {.job_id = 1,
	                         .eligible_time = 1000,
	                         .cpus = 25,
	                         .nodes = 1,
	                         .part_job_factor = 2};
	struct priority_factors f;

	(void)state;
	priority_compute(&mf, &j, 1500, &f);
	assert_true(f.age > 0.499 && f.age < 0.501);
	assert_true(f.job_size > 0.249 && f.job_size < 0.251);
	assert_true(f.partition > 0.499 && f.partition < 0.501);
	assert_true(f.qos == 0.0 && f.fairshare == 0.0);
	/* 500 + 500 + 2000 */
	assert_int_equal(f.priority, 3000);
	/* age is capped at PriorityMaxAge */
	priority_compute(&mf, &j, 1000000, &f);
	assert_true(f.age == 1.0);
	assert_int_equal(f.priority, 1000 + 500 + 2000);
	/* not yet eligible: no age */
	priority_compute(&mf, &j, 10, &f);
	assert_true(f.age == 0.0);
	assert_int_equal(f.priority, 2500);
}

static void test_favor_small(void **state)
{
	struct priority_params pp = mf;
	struct priority_job small = {.job_id = 1, .eligible_time = 0, .cpus = 1};
	struct priority_job big = {.job_id = 2, .eligible_time = 0, .cpus = 100};

	(void)state;
	assert_true(priority_of(&pp, &big, 0) > priority_of(&pp, &small, 0));
	pp.favor_small = 1;
	assert_true(priority_of(&pp, &small, 0) > priority_of(&pp, &big, 0));
	assert_int_equal(priority_of(&pp, &small, 0), 1980);
	/* a request larger than the cluster counts as the whole cluster */
	big.cpus = 1000;
	assert_int_equal(priority_of(&pp, &big, 0), 1);
	/* without a CPU count, nodes */
	pp.cluster_cpus = 0;
	big.nodes = 5;
	assert_int_equal(priority_of(&pp, &big, 0), 1000);
}

static void test_nice(void **state)
{
	struct priority_job j = {.job_id = 1, .eligible_time = 0, .cpus = 50};
	int32_t neg = -300;

	(void)state;
	assert_int_equal(priority_of(&mf, &j, 0), 1000);
	j.nice = 100;
	assert_int_equal(priority_of(&mf, &j, 0), 900);
	j.nice = (uint32_t)neg;
	assert_int_equal(priority_of(&mf, &j, 0), 1300);
	/* clamped to at least 1 */
	j.nice = 100000;
	assert_int_equal(priority_of(&mf, &j, 0), 1);
}

static void test_conf_keys(void **state)
{
	struct conf *c = NULL;
	struct rota_error err = {{0}};

	(void)state;
	assert_int_equal(conf_load_string("ClusterName=x\n", "t", &c, &err), 0);
	assert_int_equal(c->prio_max_age, 7 * 24 * 60);
	assert_int_equal(c->prio_weight_age, 0);
	assert_int_equal(c->prio_favor_small, 0);
	conf_destroy(c);
	assert_int_equal(conf_load_string("PriorityType=priority/multifactor\n"
	                                  "PriorityWeightAge=10\n"
	                                  "PriorityWeightJobSize=20\n"
	                                  "PriorityWeightPartition=30\n"
	                                  "PriorityWeightQOS=40\n"
	                                  "PriorityWeightFairshare=50\n"
	                                  "PriorityMaxAge=1-0\n"
	                                  "PriorityFavorSmall=YES\n",
	                                  "t", &c, &err),
	                 0);
	assert_int_equal(c->prio_weight_age, 10);
	assert_int_equal(c->prio_weight_job_size, 20);
	assert_int_equal(c->prio_weight_partition, 30);
	assert_int_equal(c->prio_weight_qos, 40);
	assert_int_equal(c->prio_weight_fairshare, 50);
	assert_int_equal(c->prio_max_age, 24 * 60);
	assert_int_equal(c->prio_favor_small, 1);
	conf_destroy(c);
}

/* The association factor is its Priority over the largest; each weighted
 * TRES is what the job asks over what its partition has. */
static void test_assoc_and_tres(void **state)
{
	struct priority_params pp = mf;
	struct priority_job j = {
	    .job_id = 1, .eligible_time = 1000, .cpus = 2, .nodes = 1};
	struct priority_factors f;
	char bad[32];

	(void)state;
	pp.weight_assoc = 4000000;
	pp.max_assoc_priority = 200;
	j.assoc_priority = 100;
	assert_int_equal(priority_tres_weights_parse("CPU=4000000,mem=2G", pp.weight_tres,
	                                             bad, sizeof(bad)),
	                 0);
	assert_true(pp.weight_tres[PRIO_TRES_CPU] == 4000000.0);
	assert_true(pp.weight_tres[PRIO_TRES_MEM] == 2.0 / 1024);
	assert_true(pp.weight_tres[PRIO_TRES_NODE] == 0.0);
	j.tres[PRIO_TRES_CPU] = 2;
	j.part_tres[PRIO_TRES_CPU] = 4;
	j.tres[PRIO_TRES_NODE] = 1; /* not weighted: no factor */
	j.part_tres[PRIO_TRES_NODE] = 2;
	priority_compute(&pp, &j, 1000, &f);
	assert_true(f.assoc == 0.5);
	assert_true(f.w_assoc == 2000000.0);
	assert_true(f.tres[PRIO_TRES_CPU] == 0.5);
	assert_true(f.w_tres[PRIO_TRES_CPU] == 2000000.0);
	assert_true(f.w_tres[PRIO_TRES_MEM] == 0.0); /* none asked */
	assert_true(f.w_tres[PRIO_TRES_NODE] == 0.0);
	assert_true(f.priority >= 4000000u);
	pp.max_assoc_priority = 0; /* no association has one */
	priority_compute(&pp, &j, 1000, &f);
	assert_true(f.assoc == 0.0);

	/* a TRES Rota does not weigh: left out, the others kept (Slurm's
	 * configurations load) */
	assert_int_equal(priority_tres_weights_parse("cpu=1,GRES/gpu=5", pp.weight_tres,
	                                             bad, sizeof(bad)),
	                 0);
	assert_true(pp.weight_tres[PRIO_TRES_CPU] == 1.0);
	assert_int_equal(priority_tres_weights_parse("cpu=1,mem=nan", pp.weight_tres, bad,
	                                             sizeof(bad)),
	                 -EINVAL);
	assert_string_equal(bad, "mem=nan");
	assert_true(pp.weight_tres[PRIO_TRES_CPU] == 0.0);
	assert_int_equal(
	    priority_tres_weights_parse("cpu=inf", pp.weight_tres, bad, sizeof(bad)),
	    -EINVAL);
	assert_int_equal(
	    priority_tres_weights_parse("cpu=x", pp.weight_tres, bad, sizeof(bad)),
	    -EINVAL);
	assert_int_equal(
	    priority_tres_weights_parse("node=2G", pp.weight_tres, bad, sizeof(bad)),
	    -EINVAL);
	assert_int_equal(
	    priority_tres_weights_parse(NULL, pp.weight_tres, bad, sizeof(bad)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic),          cmocka_unit_test(test_type_parse),
	    cmocka_unit_test(test_factors),        cmocka_unit_test(test_favor_small),
	    cmocka_unit_test(test_nice),           cmocka_unit_test(test_conf_keys),
	    cmocka_unit_test(test_assoc_and_tres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
