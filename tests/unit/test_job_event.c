/* test_job_event - the typed events: each type's record decodes as itself, a
 * record in the older one-struct-for-all layout still replays, and journal
 * records that no controller writes (damaged, or a checksum-valid record from
 * a resynchronised reader) are applied safely at replay (cases found by
 * tests/fuzz/fuzz_journal). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "proto/mp.h"
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
	union job_event ev = {.submit = {.type = EV_SUBMIT,
	                                 .job_id = id,
	                                 .time = 100,
	                                 .desc = &d,
	                                 .desc_count = 1}};

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
	union job_event ev = {
	    .node_state = {.type = EV_NODE_STATE, .state = NODE_DRAIN, .text = "x"}};

	assert_int_equal(job_event_apply(ctld, &ev), -ENOENT);
}

static void test_end_to_a_state_that_is_not_final(void **state)
{
	struct ctld *ctld = *state;
	uint32_t one[] = {1};
	union job_event start = {.start = {.type = EV_START,
	                                   .job_id = 2,
	                                   .time = 110,
	                                   .nodes = "node01",
	                                   .cpus_per_node = {one, 1},
	                                   .tasks_per_node = {one, 1},
	                                   .mem_per_node = {one, 1}}};
	union job_event end = {.end = {.type = EV_END, .job_id = 2, .time = 120}};

	assert_int_equal(submit(ctld, 2, "debug"), 0);
	assert_int_equal(job_event_apply(ctld, &start), 0);
	end.end.state = JOB_PENDING;
	assert_int_equal(job_event_apply(ctld, &end), -EINVAL);
	end.end.state = JOB_RUNNING;
	assert_int_equal(job_event_apply(ctld, &end), -EINVAL);
	end.end.state = JOB_END;
	assert_int_equal(job_event_apply(ctld, &end), -EINVAL);
	assert_true(job_is_running(job_find(ctld->jobs, 2)));
	end.end.state = JOB_COMPLETE;
	assert_int_equal(job_event_apply(ctld, &end), 0);
	assert_true(job_is_finished(job_find(ctld->jobs, 2)));
}

/* Every declared type encodes and decodes as itself, under its own name. */
/* Every declared type (their numbers need not be consecutive). */
#define TYPE_NUM(name, num, m) num,
static const uint32_t all_types[] = {ROTA_JOB_EVENTS(TYPE_NUM)};
#undef TYPE_NUM

static void test_each_type_round_trips(void **state)
{
	size_t declared = 0;

	for (uint32_t t = 1; t < EV_TYPE_END; t++) {
		size_t k;
		for (k = 0; k < sizeof(all_types) / sizeof(all_types[0]); k++)
			if (all_types[k] == t)
				break;
		if (k == sizeof(all_types) / sizeof(all_types[0])) {
			assert_null(job_event_type_of(t)); /* a number not used */
			continue;
		}
		declared++;
		union job_event ev = {.head = {.type = t, .seq = 40 + t}}, back;
		struct rota_error err = {""};
		char *buf;
		size_t len;

		assert_non_null(job_event_type_of(t));
		assert_string_not_equal(job_event_name(t), "?");
		assert_int_equal(job_event_encode(&ev, &buf, &len), 0);
		assert_int_equal(job_event_decode(buf, len, &back, &err), 0);
		assert_int_equal(back.head.type, t);
		assert_int_equal(back.head.seq, 40 + t);
		job_event_release(&back);
		free(buf);
	}
	assert_int_equal(declared, sizeof(all_types) / sizeof(all_types[0]));
	assert_null(job_event_type_of(0));
	assert_null(job_event_type_of(EV_TYPE_END));
	assert_string_equal(job_event_name(EV_END), "END");
}

static void pack_key(struct mp_buf *pk, const char *k)
{
	mp_put_str(pk, k, strlen(k));
}

/* A record of an unknown type, or with none, is refused, not guessed. */
static void test_unknown_type_refused(void **state)
{
	struct mp_buf pk = {0};
	union job_event ev;
	struct rota_error err = {""};

	mp_put_map(&pk, 2);
	pack_key(&pk, "type");
	mp_put_uint(&pk, 99);
	pack_key(&pk, "job_id");
	mp_put_uint(&pk, 1);
	assert_int_equal(job_event_decode(pk.data, pk.len, &ev, &err), -EPROTO);
	assert_non_null(strstr(err.text, "99"));
	pk.len = 0;
	mp_put_map(&pk, 1);
	pack_key(&pk, "job_id");
	mp_put_uint(&pk, 1);
	assert_int_equal(job_event_decode(pk.data, pk.len, &ev, &err), -EPROTO);
	/* two types: decoded as one, it would be released as the other (found by
	 * tests/fuzz/fuzz_journal) */
	pk.len = 0;
	mp_put_map(&pk, 3);
	pack_key(&pk, "type");
	mp_put_uint(&pk, EV_START);
	pack_key(&pk, "cpus_per_node");
	mp_put_array(&pk, 1);
	mp_put_uint(&pk, 4);
	pack_key(&pk, "type");
	mp_put_uint(&pk, EV_SUBMIT);
	assert_int_equal(job_event_decode(pk.data, pk.len, &ev, &err), -EPROTO);
	assert_non_null(strstr(err.text, "twice"));
	free(pk.data);
}

/* A journal written before events had types of their own: one map with every
 * field of every type, most of them empty.  It decodes as its type says, the
 * other types' fields skipped, and replays. */
static void test_old_layout_replays(void **state)
{
	struct ctld *ctld = *state;
	struct mp_buf pk = {0};
	union job_event ev;
	struct rota_error err = {""};
	struct job *job;

	mp_put_map(&pk, 11);
	pack_key(&pk, "type");
	mp_put_uint(&pk, EV_SUBMIT);
	pack_key(&pk, "job_id");
	mp_put_uint(&pk, 7);
	pack_key(&pk, "time");
	mp_put_int(&pk, 1000);
	pack_key(&pk, "uid");
	mp_put_uint(&pk, 1234);
	pack_key(&pk, "desc");
	mp_put_array(&pk, 1);
	mp_put_map(&pk, 2);
	pack_key(&pk, "name");
	mp_put_str(&pk, "old", 3);
	pack_key(&pk, "min_nodes");
	mp_put_uint(&pk, NO_VAL);
	pack_key(&pk, "nodes"); /* START's */
	mp_put_nil(&pk);
	pack_key(&pk, "cpus_per_node");
	mp_put_array(&pk, 0);
	pack_key(&pk, "priority");
	mp_put_uint(&pk, 555);
	pack_key(&pk, "next_job_id"); /* META's */
	mp_put_uint(&pk, 8);
	pack_key(&pk, "seq");
	mp_put_uint(&pk, 12);
	pack_key(&pk, "user");
	mp_put_str(&pk, "alice", 5);
	assert_int_equal(job_event_decode(pk.data, pk.len, &ev, &err), 0);
	assert_int_equal(ev.head.type, EV_SUBMIT);
	assert_int_equal(ev.head.seq, 12);
	assert_int_equal(ev.submit.job_id, 7);
	assert_int_equal(ev.submit.priority, 555);
	assert_int_equal(ev.submit.desc_count, 1);
	assert_int_equal(job_event_apply(ctld, &ev), 0);
	job = job_find(ctld->jobs, 7);
	assert_non_null(job);
	assert_string_equal(job->desc.name, "old");
	assert_string_equal(job->owner->user, "alice");
	assert_int_equal(job->owner->uid, 1234);
	assert_int_equal(job->submit_time, 1000);
	job_event_release(&ev);
	free(pk.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_each_type_round_trips),
	    cmocka_unit_test(test_unknown_type_refused),
	    cmocka_unit_test_setup_teardown(test_old_layout_replays, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_submit_without_partition, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_node_state_without_name, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_end_to_a_state_that_is_not_final, setup,
	                                    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
