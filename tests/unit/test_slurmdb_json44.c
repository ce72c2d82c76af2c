/* test_slurmdb_json44.c - the accounting side in Slurm 25.11's v0.0.44
 * shapes (src/proto/slurmdb_json44.c): a finished job's record with its
 * steps, limits as no_val structs, a user's lists, rotadbd's statistics. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/states.h"
#include "proto/sacct.h"
#include "proto/slurmdb_json44.h"

/* The member at a dotted path ("time.limit.number"; "steps.0.step.id"). */
static json_t *at(json_t *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = json_is_array(o) ? json_array_get(o, strtoul(k, NULL, 10))
		                     : json_object_get(o, k);
	return o;
}

static long long num(json_t *o, const char *path)
{
	json_t *v = at(o, path);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static const char *text(json_t *o, const char *path)
{
	json_t *v = at(o, path);

	assert_true(json_is_string(v));
	return json_string_value(v);
}

static void no_val(json_t *o, const char *path, int set, int infinite, long long n)
{
	char key[200];

	assert_true(json_is_object(at(o, path)));
	snprintf(key, sizeof(key), "%s.set", path);
	assert_int_equal(json_is_true(at(o, key)), set);
	snprintf(key, sizeof(key), "%s.infinite", path);
	assert_int_equal(json_is_true(at(o, key)), infinite);
	snprintf(key, sizeof(key), "%s.number", path);
	assert_int_equal(num(o, key), n);
}

static void test_job_record(void **state)
{
	struct conf cf = {.cluster_name = "c1"};
	struct sacct_ctx x = {&cf, 2000};
	struct acct_step st[] = {
	    {.step_id = STEP_BATCH,
	     .name = "batch",
	     .nodes = "n[1-2]",
	     .nnodes = 2,
	     .ntasks = 1,
	     .ncpus = 2,
	     .start = 1010,
	     .end = 1070,
	     .state = JOB_FAILED,
	     .exit_code = 3 << 8,
	     .user_usec = 1500000,
	     .sys_usec = 250000},
	};
	struct acct_job j = {.job_id = 42,
	                     .array_task_id = NO_VAL,
	                     .name = "hello",
	                     .user = "bob",
	                     .group = "users",
	                     .account = "physics",
	                     .partition = "debug",
	                     .state = JOB_FAILED,
	                     .exit_code = 3 << 8,
	                     .submit = 1000,
	                     .eligible = 1001,
	                     .start = 1010,
	                     .end = 1070,
	                     .time_limit = INFINITE32,
	                     .priority = 7,
	                     .nodes = "n[1-2]",
	                     .nnodes = 2,
	                     .ncpus = 2,
	                     .req_cpus = 2,
	                     .req_mem = 100 | ACCT_MEM_PER_CPU,
	                     .steps = st,
	                     .steps_count = 1};
	json_t *a = json_array(), *o;

	sdb44_job_add(&x, a, &j, 1);
	o = json_array_get(a, 0);
	assert_int_equal(num(o, "job_id"), 42);
	assert_string_equal(text(o, "name"), "hello");
	assert_string_equal(text(o, "user"), "bob");
	assert_string_equal(text(o, "state.current.0"), "FAILED");
	assert_string_equal(text(o, "exit_code.status.0"), "ERROR");
	no_val(o, "exit_code.return_code", 1, 0, 3);
	no_val(o, "exit_code.signal.id", 0, 0, 0);
	assert_int_equal(num(o, "time.elapsed"), 60);
	assert_int_equal(num(o, "time.submission"), 1000);
	no_val(o, "time.limit", 0, 1, 0);
	no_val(o, "time.planned", 1, 0, 9);
	assert_int_equal(num(o, "time.user.seconds"), 1);
	assert_int_equal(num(o, "time.user.microseconds"), 500000);
	no_val(o, "required.memory_per_cpu", 1, 0, 100);
	no_val(o, "required.memory_per_node", 0, 0, 0);
	no_val(o, "priority", 1, 0, 7);
	no_val(o, "array.task_id", 0, 0, 0);
	no_val(o, "het.job_offset", 0, 0, 0);
	assert_string_equal(text(o, "association.cluster"), "c1");
	assert_string_equal(text(o, "nodes"), "n[1-2]");
	assert_string_equal(text(o, "tres.allocated.0.type"), "cpu");
	assert_int_equal(num(o, "tres.requested.1.count"), 200); /* 100 MB x 2 CPUs */
	assert_string_equal(text(o, "steps.0.step.id"), "42.batch");
	assert_string_equal(text(o, "steps.0.step.name"), "batch");
	assert_string_equal(text(o, "steps.0.state.0"), "FAILED");
	assert_string_equal(text(o, "steps.0.nodes.list.1"), "n2");
	no_val(o, "steps.0.time.start", 1, 0, 1010);
	assert_int_equal(num(o, "steps.0.time.elapsed"), 60);
	assert_int_equal(num(o, "steps.0.tres.allocated.0.count"), 2);
	assert_true(json_is_array(at(o, "steps.0.tres.consumed.max")));
	no_val(o, "steps.0.CPU.requested_frequency.min", 0, 0, 0);
	no_val(o, "steps.0.statistics.energy.consumed", 0, 0, 0);
	json_decref(a);

	a = json_array();
	sdb44_job_add(&x, a, &j, 0);
	assert_int_equal(json_array_size(at(json_array_get(a, 0), "steps")), 0);
	json_decref(a);
}

static void test_assoc_and_qos_limits(void **state)
{
	char *qos[] = {"normal", NULL};
	struct assoc_user u = {.name = "bob", .default_account = "physics"};
	struct assoc_rec r = {.account = "physics",
	                      .user = "bob",
	                      .max_wall = 60,
	                      .grp_wall = NO_VAL,
	                      .max_jobs = INFINITE32,
	                      .max_submit = NO_VAL,
	                      .grp_jobs = 4,
	                      .grp_submit = NO_VAL,
	                      .priority = NO_VAL,
	                      .shares = 5,
	                      .grp_tres = "cpu=8",
	                      .qos = qos};
	struct assoc_qos q = {.name = "normal",
	                      .priority = 10,
	                      .max_wall = NO_VAL,
	                      .grp_wall = NO_VAL,
	                      .grp_jobs = NO_VAL,
	                      .grp_submit = NO_VAL,
	                      .max_jobs_pu = 3,
	                      .max_jobs_pa = NO_VAL,
	                      .max_submit_pu = NO_VAL,
	                      .max_submit_pa = NO_VAL,
	                      .preempt_exempt_time = NO_VAL,
	                      .usage_factor = "2.5"};
	struct assoc_list_resp l = {.cluster = "c1",
	                            .users = &u,
	                            .users_count = 1,
	                            .assocs = &r,
	                            .assocs_count = 1,
	                            .qos = &q,
	                            .qos_count = 1};
	json_t *o = sdb44_assoc(&l, &r);

	no_val(o, "max.jobs.per.wall_clock", 1, 0, 60);
	no_val(o, "max.per.account.wall_clock", 0, 0, 0);
	no_val(o, "max.jobs.active", 0, 1, 0);
	no_val(o, "max.jobs.per.count", 1, 0, 4);
	no_val(o, "priority", 0, 0, 0);
	assert_int_equal(num(o, "max.tres.total.0.count"), 8);
	assert_string_equal(text(o, "qos.0"), "normal");
	assert_true(json_is_true(at(o, "is_default")));
	assert_int_equal(num(o, "shares_raw"), 5);
	json_decref(o);

	o = sdb44_qos(&l, 0);
	no_val(o, "priority", 1, 0, 10);
	no_val(o, "limits.max.jobs.active_jobs.per.user", 1, 0, 3);
	no_val(o, "limits.max.wall_clock.per.job", 0, 0, 0);
	assert_int_equal(num(o, "id"), 1);
	assert_true(json_real_value(at(o, "usage_factor.number")) == 2.5);
	json_decref(o);

	o = sdb44_user(&l, &u);
	assert_string_equal(text(o, "administrator_level.0"), "None");
	assert_string_equal(text(o, "default.account"), "physics");
	assert_string_equal(text(o, "associations.0.account"), "physics");
	assert_int_equal(num(o, "associations.0.id"), 0);
	json_decref(o);
}

static void test_diag(void **state)
{
	struct rpc_stat rpcs[] = {
	    {.name = "DBD_GET_JOBS_COND", .count = 4, .total_us = 100}};
	struct rpc_stat users[] = {{.name = "root", .count = 4, .total_us = 100}};
	struct dbd_diag d = {.time_start = 1234,
	                     .rpcs = rpcs,
	                     .rpcs_count = 1,
	                     .users = users,
	                     .users_count = 1};
	json_t *o = sdb44_diag(&d);

	assert_int_equal(num(o, "time_start"), 1234);
	assert_string_equal(text(o, "RPCs.0.rpc"), "DBD_GET_JOBS_COND");
	assert_int_equal(num(o, "RPCs.0.time.average"), 25);
	assert_string_equal(text(o, "users.0.user"), "root");
	assert_int_equal(num(o, "rollups.daily.count"), 0);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_job_record),
	    cmocka_unit_test(test_assoc_and_qos_limits),
	    cmocka_unit_test(test_diag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
