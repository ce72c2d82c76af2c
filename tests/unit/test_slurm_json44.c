/* test_slurm_json44.c - Slurm's v0.0.44 documents (src/proto/slurm_json44.c):
 * no_val structs for unset, infinite and set numbers, states and exit codes
 * as lists, and the memory a job asked for per CPU or per node. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>
#include "common/states.h"
#include "proto/slurm_json44.h"

static void assert_nv(json_t *v, int set, int infinite, json_int_t n)
{
	assert_non_null(v);
	assert_int_equal(json_is_true(json_object_get(v, "set")), set);
	assert_int_equal(json_is_true(json_object_get(v, "infinite")), infinite);
	assert_int_equal(json_integer_value(json_object_get(v, "number")), n);
	assert_int_equal(json_object_size(v), 3);
}

static void test_no_val(void **state)
{
	json_t *v;

	assert_nv(v = sj44_no_val(NO_VAL), 0, 0, 0);
	json_decref(v);
	assert_nv(v = sj44_no_val(INFINITE32), 0, 1, 0);
	json_decref(v);
	assert_nv(v = sj44_no_val(30), 1, 0, 30);
	json_decref(v);
}

static void test_job(void **state)
{
	struct job_info j = {.job_id = 7,
	                     .name = "x",
	                     .state = JOB_COMPLETE | JOB_COMPLETING,
	                     .time_limit = INFINITE32,
	                     .exit_code = 9, /* killed by SIGKILL */
	                     .mem_per_cpu = 100,
	                     .pn_min_cpus = NO_VAL,
	                     .array_task_id = NO_VAL};
	json_t *o = sj44_job(&j, "c"), *st, *ec;

	st = json_object_get(o, "job_state");
	assert_int_equal(json_array_size(st), 2);
	assert_string_equal(json_string_value(json_array_get(st, 0)), "COMPLETED");
	assert_string_equal(json_string_value(json_array_get(st, 1)), "COMPLETING");
	assert_nv(json_object_get(o, "time_limit"), 0, 1, 0);
	assert_nv(json_object_get(o, "memory_per_cpu"), 1, 0, 100);
	assert_nv(json_object_get(o, "memory_per_node"), 0, 0, 0);
	assert_nv(json_object_get(o, "minimum_cpus_per_node"), 0, 0, 0);
	assert_nv(json_object_get(o, "array_task_id"), 0, 0, 0);
	ec = json_object_get(o, "exit_code");
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(ec, "status"), 0)),
	    "SIGNALED");
	assert_nv(json_object_get(ec, "return_code"), 0, 0, 0);
	assert_nv(json_object_get(json_object_get(ec, "signal"), "id"), 1, 0, 9);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(ec, "signal"), "name")),
	    "KILL");
	assert_string_equal(json_string_value(json_object_get(o, "cluster")), "c");
	json_decref(o);
}

static void test_pending_exit_code(void **state)
{
	struct job_info j = {.state = JOB_PENDING, .exit_code = 0};
	json_t *o = sj44_job(&j, ""), *ec = json_object_get(o, "exit_code");

	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(ec, "status"), 0)),
	    "PENDING");
	assert_true(json_is_object(json_object_get(o, "job_resources")));
	assert_int_equal(json_object_size(json_object_get(o, "job_resources")), 0);
	json_decref(o);
}

static void test_error(void **state)
{
	json_t *r = sj44_response(&(struct sj44_meta){.cluster = "c", .user = "u"});
	json_t *e;

	sj44_add_error(r, "Unable to find JobId=5", ESLURM_INVALID_JOB_ID, "here");
	e = json_array_get(json_object_get(r, "errors"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "description")),
	                    "Unable to find JobId=5");
	assert_int_equal(json_integer_value(json_object_get(e, "error_number")),
	                 ESLURM_INVALID_JOB_ID);
	assert_string_equal(json_string_value(json_object_get(e, "error")),
	                    slurm_strerror(ESLURM_INVALID_JOB_ID));
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_object_get(json_object_get(r, "meta"), "slurm"), "cluster")),
	    "c");
	assert_int_equal(json_array_size(json_object_get(r, "warnings")), 0);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_val),
	    cmocka_unit_test(test_job),
	    cmocka_unit_test(test_pending_exit_code),
	    cmocka_unit_test(test_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
