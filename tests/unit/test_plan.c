/* test_plan.c - the availability profile (src/sched/plan.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include "sched/plan.h"

static void test_empty(void **state)
{
	struct plan *p = plan_create(10);
	int64_t s = -1;

	assert_non_null(p);
	assert_int_equal(plan_free_at(p, 0), 10);
	assert_int_equal(plan_free_at(p, PLAN_TIME_MIN), 10);
	assert_int_equal(plan_earliest(p, 42, 10, 1000, &s), 0);
	assert_int_equal(s, 42);
	assert_int_equal(plan_earliest(p, 42, 11, 1, &s), -EINVAL);
	assert_int_equal(plan_earliest(p, 42, 1, 0, &s), -EINVAL);
	assert_int_equal(plan_steps(p), 1);
	plan_destroy(p);
	plan_destroy(NULL);
}

static void test_add_remove_merges(void **state)
{
	struct plan *p = plan_create(10);

	assert_int_equal(plan_add(p, 0, 100, 4), 0);
	assert_int_equal(plan_add(p, 50, 150, 3), 0);
	assert_int_equal(plan_free_at(p, -1), 10);
	assert_int_equal(plan_free_at(p, 0), 6);
	assert_int_equal(plan_free_at(p, 49), 6);
	assert_int_equal(plan_free_at(p, 50), 3);
	assert_int_equal(plan_free_at(p, 99), 3);
	assert_int_equal(plan_free_at(p, 100), 7);
	assert_int_equal(plan_free_at(p, 150), 10);
	assert_int_equal(plan_steps(p), 5);
	assert_int_equal(plan_min_free(p, 0, 50), 6);
	assert_int_equal(plan_min_free(p, 0, 51), 3);
	assert_int_equal(plan_min_free(p, 100, 1000), 7);
	/* releasing everything merges back to one step */
	assert_int_equal(plan_add(p, 50, 150, -3), 0);
	assert_int_equal(plan_steps(p), 3);
	assert_int_equal(plan_add(p, 0, 100, -4), 0);
	assert_int_equal(plan_steps(p), 1);
	assert_int_equal(plan_add(p, 5, 5, 1), -EINVAL);
	/* a range to forever */
	assert_int_equal(plan_add(p, 10, PLAN_TIME_MAX, 2), 0);
	assert_int_equal(plan_free_at(p, PLAN_TIME_MAX - 1), 8);
	assert_int_equal(plan_steps(p), 2);
	plan_destroy(p);
}

/* A hole too short for the job is skipped. */
static void test_earliest_needs_a_long_enough_hole(void **state)
{
	struct plan *p = plan_create(10);
	int64_t s;

	plan_add(p, 0, 10, 8);
	plan_add(p, 20, 30, 10);
	assert_int_equal(plan_earliest(p, 0, 2, 100, &s), 0);
	assert_int_equal(s, 20 + 10);
	assert_int_equal(plan_earliest(p, 0, 2, 20, &s), 0);
	assert_int_equal(s, 0); /* 2 free during [0, 20) */
	assert_int_equal(plan_earliest(p, 0, 5, 10, &s), 0);
	assert_int_equal(s, 10); /* [10, 20) is exactly long enough */
	assert_int_equal(plan_earliest(p, 0, 5, 11, &s), 0);
	assert_int_equal(s, 30);
	assert_int_equal(plan_earliest(p, 25, 1, 1, &s), 0);
	assert_int_equal(s, 30);
	assert_int_equal(plan_earliest(p, 12, 10, 5, &s), 0);
	assert_int_equal(s, 12);
	plan_destroy(p);
}

/* Over-commitment (a running job outlived its estimate) gives negative free
 * counts; nothing fits there. */
static void test_overcommit(void **state)
{
	struct plan *p = plan_create(4);
	int64_t s;

	plan_add(p, 0, 100, 4);
	plan_add(p, 50, 80, 2);
	assert_int_equal(plan_free_at(p, 60), -2);
	assert_int_equal(plan_min_free(p, 0, 200), -2);
	assert_int_equal(plan_earliest(p, 0, 1, 1, &s), 0);
	assert_int_equal(s, 100);
	plan_destroy(p);
}

static void test_copy_trim_clear(void **state)
{
	struct plan *p = plan_create(8), *q = plan_create(1);
	int64_t s;

	for (int i = 0; i < 100; i++)
		assert_int_equal(plan_add(p, i * 10, i * 10 + 5, 1 + i % 7), 0);
	assert_int_equal(plan_steps(p), 201);
	assert_int_equal(plan_copy(q, p), 0);
	assert_int_equal(plan_total(q), 8);
	assert_int_equal(plan_steps(q), 201);
	assert_int_equal(plan_free_at(q, 992), 8 - (1 + 99 % 7));
	plan_trim(q, 502);
	assert_int_equal(plan_steps(q), 100);
	assert_int_equal(plan_free_at(q, 0), plan_free_at(p, 502)); /* past = now */
	assert_int_equal(plan_free_at(q, 505), 8);
	assert_int_equal(plan_earliest(q, 500, 8, 5, &s), 0);
	assert_int_equal(s, 505);
	plan_clear(q);
	assert_int_equal(plan_steps(q), 1);
	assert_int_equal(plan_free_at(q, 502), 8);
	plan_destroy(p);
	plan_destroy(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_add_remove_merges),
	    cmocka_unit_test(test_earliest_needs_a_long_enough_hole),
	    cmocka_unit_test(test_overcommit),
	    cmocka_unit_test(test_copy_trim_clear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
