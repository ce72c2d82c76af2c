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

static void test_job_states(void **state)
{
	struct job_info jobs[] = {
	    {.job_id = 5, .state = JOB_PENDING},
	    {.job_id = 9, .array_job_id = 6, .array_task_id = 3, .state = JOB_RUNNING},
	    {.job_id = 6,
	     .array_job_id = 6,
	     .array_task_str = "0-2,4",
	     .state = JOB_PENDING},
	};
	struct job_info_resp r = {.jobs = jobs, .jobs_count = 3};
	json_t *a = sj44_job_states(&r);
	const char *ids[] = {"5", "6_3", "6_[0-2,4]"};

	assert_int_equal(json_array_size(a), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *j = json_array_get(a, i);
		assert_string_equal(json_string_value(json_object_get(j, "job_id")),
		                    ids[i]);
		assert_int_equal(json_object_size(j), 2);
	}
	assert_string_equal(json_string_value(json_array_get(
	                        json_object_get(json_array_get(a, 1), "state"), 0)),
	                    "RUNNING");
	json_decref(a);
}

/* sshare's rows: names, parents from the tree, fractions and their unset
 * and infinite values. */
static void test_shares(void **state)
{
	struct share_row rows[] = {
	    {.account = "root", .depth = 0, .raw_shares = NO_VAL, .fairshare = FS_NONE},
	    {.account = "phys",
	     .depth = 1,
	     .raw_shares = 30,
	     .norm_shares = 750000,
	     .fairshare = FS_NONE},
	    {.account = "phys",
	     .user = "ann",
	     .depth = 2,
	     .raw_shares = 1,
	     .norm_shares = 1000000,
	     .fairshare = 500000,
	     .level_fs = FS_INF,
	     .grp_tres_mins = "cpu=600",
	     .run_cpu_mins = 2},
	    {.account = "chem", .depth = 1, .raw_shares = 10, .fairshare = FS_NONE},
	};
	struct share_resp r = {.cluster = "c", .rows = rows, .rows_count = 4};
	json_t *d = sj44_shares(&r), *a = json_object_get(d, "shares"), *ann, *fs;

	assert_int_equal(json_integer_value(json_object_get(d, "total_shares")), 40);
	assert_int_equal(json_array_size(a), 4);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(a, 1), "parent")), "root");
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(a, 3), "parent")), "root");
	ann = json_array_get(a, 2);
	assert_string_equal(json_string_value(json_object_get(ann, "name")), "ann");
	assert_string_equal(json_string_value(json_object_get(ann, "parent")), "phys");
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(ann, "type"), 0)), "USER");
	fs = json_object_get(json_object_get(ann, "fairshare"), "factor");
	assert_true(json_is_true(json_object_get(fs, "set")));
	assert_true(json_real_value(json_object_get(fs, "number")) == 0.5);
	fs = json_object_get(json_object_get(ann, "fairshare"), "level");
	assert_true(json_is_true(json_object_get(fs, "infinite")));
	assert_false(json_is_true(json_object_get(
	    json_object_get(json_object_get(json_array_get(a, 1), "fairshare"), "factor"),
	    "set")));
	assert_nv(json_object_get(json_array_get(a, 0), "shares"), 0, 0, 0);
	assert_nv(
	    json_object_get(
	        json_array_get(
	            json_object_get(json_object_get(ann, "tres"), "group_minutes"), 0),
	        "value"),
	    1, 0, 600);
	assert_nv(
	    json_object_get(
	        json_array_get(
	            json_object_get(json_object_get(ann, "tres"), "run_seconds"), 0),
	        "value"),
	    1, 0, 120);
	json_decref(d);
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
	    cmocka_unit_test(test_job_states),
	    cmocka_unit_test(test_shares),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
