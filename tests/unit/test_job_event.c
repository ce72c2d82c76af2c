/* test_job_event - journal records that no controller writes (damaged, or a
 * checksum-valid record from a resynchronised reader) are applied safely at
 * replay.  Each case was found by tests/fuzz/fuzz_journal. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/states.h"
#include "common/common.h"

/* What rotactld's main.c provides to the modules. */
int ctld_is_admin(const struct ctld *ctld, uid_t uid)
{
	return uid == 0;
}

void ctld_sched_kick(struct ctld *ctld)
{
}

void ctld_backfill_kick(struct ctld *ctld)
{
}

static int setup(void **state)
{
	struct ctld *ctld = xcalloc(1, sizeof(*ctld));
	struct conf *conf;
	struct rota_error err = {""};

	log_init("test_job_event", LOG_CRIT, NULL);
	assert_int_equal(conf_load_string("ClusterName=t\nNodeName=node[01-02] CPUs=4\n"
	                                  "PartitionName=debug Nodes=ALL Default=YES\n",
	                                  "t.conf", &conf, &err),
	                 0);
	ctld->conf = conf;
	ctld->base = event_base_new();
	ctld->replaying = 1;
	assert_int_equal(node_mgr_create(ctld, &ctld->nodes), 0);
	assert_int_equal(job_mgr_create(ctld, &ctld->jobs), 0);
	*state = ctld;
	return 0;
}

static int teardown(void **state)
{
	struct ctld *ctld = *state;

	job_mgr_destroy(ctld->jobs);
	node_mgr_destroy(ctld->nodes);
	event_base_free(ctld->base);
	conf_destroy((struct conf *)ctld->conf);
	free(ctld);
	return 0;
}

static int submit(struct ctld *ctld, uint32_t id, char *partition)
{
	struct job_desc d = {.partition = partition, .min_nodes = NO_VAL};
	struct job_event ev = {
	    .type = EV_SUBMIT, .job_id = id, .time = 100, .desc = &d, .desc_count = 1};

	return job_event_apply(ctld, &ev);
}

static void test_submit_without_partition(void **state)
{
	struct ctld *ctld = *state;

	assert_int_equal(submit(ctld, 1, NULL), 0);
	assert_null(job_find(ctld->jobs, 1)->part);
}

static void test_node_state_without_name(void **state)
{
	struct ctld *ctld = *state;
	struct job_event ev = {.type = EV_NODE_STATE, .state = NODE_DRAIN, .text = "x"};

	assert_int_equal(job_event_apply(ctld, &ev), -ENOENT);
}

static void test_end_to_a_state_that_is_not_final(void **state)
{
	struct ctld *ctld = *state;
	uint32_t one[] = {1};
	struct job_event start = {.type = EV_START,
	                          .job_id = 2,
	                          .time = 110,
	                          .nodes = "node01",
	                          .cpus_per_node = {one, 1},
	                          .tasks_per_node = {one, 1},
	                          .mem_per_node = {one, 1}};
	struct job_event end = {.type = EV_END, .job_id = 2, .time = 120};

	assert_int_equal(submit(ctld, 2, "debug"), 0);
	assert_int_equal(job_event_apply(ctld, &start), 0);
	end.state = JOB_PENDING;
	assert_int_equal(job_event_apply(ctld, &end), -EINVAL);
	end.state = JOB_RUNNING;
	assert_int_equal(job_event_apply(ctld, &end), -EINVAL);
	end.state = JOB_END;
	assert_int_equal(job_event_apply(ctld, &end), -EINVAL);
	assert_true(job_is_running(job_find(ctld->jobs, 2)));
	end.state = JOB_COMPLETE;
	assert_int_equal(job_event_apply(ctld, &end), 0);
	assert_true(job_is_finished(job_find(ctld->jobs, 2)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_submit_without_partition, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_node_state_without_name, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_end_to_a_state_that_is_not_final, setup,
	                                    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
