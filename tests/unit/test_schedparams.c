/* test_schedparams.c - SchedulerParameters parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "common/schedparams.h"

static void test_defaults(void **state)
{
	struct sched_params sp;

	sched_params_parse(NULL, &sp);
	assert_int_equal(sp.bf_interval, 30);
	assert_int_equal(sp.bf_max_job_test, 500);
	assert_int_equal(sp.bf_resolution, 60);
	assert_int_equal(sp.bf_window, 1440);
	assert_int_equal(sp.bf_yield_interval, 50000);
	assert_int_equal(sp.default_queue_depth, 100);
	assert_false(sp.bf_predict);
	assert_false(sp.kill_invalid_depend);
}

static void test_values(void **state)
{
	struct sched_params sp;

	sched_params_parse("bf_interval=1,bf_window=60,bf_resolution=5,bf_continue,"
	                   "bf_max_job_test=1000,kill_invalid_depend,enable_user_top,"
	                   "bf_yield_interval=2000000,"
	                   "bf_estimate=predict,default_queue_depth=250",
	                   &sp);
	assert_int_equal(sp.bf_interval, 1);
	assert_int_equal(sp.bf_yield_interval, 2000000);
	assert_int_equal(sp.bf_window, 60);
	assert_int_equal(sp.bf_resolution, 5);
	assert_int_equal(sp.bf_max_job_test, 1000);
	assert_int_equal(sp.default_queue_depth, 250);
	assert_true(sp.bf_continue);
	assert_true(sp.kill_invalid_depend);
	assert_true(sp.enable_user_top);
	assert_true(sp.bf_predict);
}

static void test_bad_values_keep_defaults(void **state)
{
	struct sched_params sp;

	sched_params_parse(
	    "bf_interval=abc,bf_window=-5,bf_resolution=,bf_max_job_test=0,"
	    "bf_estimate=requested,bf_window2=3",
	    &sp);
	assert_int_equal(sp.bf_interval, 30);
	assert_int_equal(sp.bf_window, 1440);
	assert_int_equal(sp.bf_resolution, 60);
	assert_int_equal(sp.bf_max_job_test, 1); /* clamped to the minimum */
	assert_false(sp.bf_predict);
	sched_params_parse("bf_estimate=learned", &sp);
	assert_int_equal(sp.bf_predict, BF_ESTIMATE_LEARNED);
	assert_int_equal(sp.sched_order, SCHED_ORDER_PRIORITY);
	assert_int_equal(sp.bf_part_reserve, 0);
	sched_params_parse("bf_estimate=best", &sp);
	assert_int_equal(sp.bf_predict, BF_ESTIMATE_LEARNED);
	/* best is the whole policy, unless its parts are given */
	assert_int_equal(sp.sched_order, SCHED_ORDER_SAF_AGED);
	assert_int_equal(sp.bf_part_reserve, 1);
	sched_params_parse("bf_job_part_count_reserve=0,bf_estimate=best", &sp);
	assert_int_equal(sp.sched_order, SCHED_ORDER_SAF_AGED);
	assert_int_equal(sp.bf_part_reserve, 0);
	sched_params_parse("bf_estimate=best,sched_order=priority", &sp);
	assert_int_equal(sp.sched_order, SCHED_ORDER_PRIORITY);
	assert_int_equal(sp.bf_part_reserve, 1);
	sched_params_parse("sched_order=saf-aged,bf_job_part_count_reserve=999999", &sp);
	assert_int_equal(sp.sched_order, SCHED_ORDER_SAF_AGED);
	assert_int_equal(sp.bf_part_reserve, 100000);
	assert_int_equal(sp.bf_predict, BF_ESTIMATE_LIMIT);
	sched_params_parse("bf_estimate=predict", &sp);
	assert_int_equal(sp.bf_predict, BF_ESTIMATE_PREDICT);
	sched_params_parse("BF_INTERVAL=99999999", &sp);
	assert_int_equal(sp.bf_interval, 10800);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_bad_values_keep_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
