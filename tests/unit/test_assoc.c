/* test_assoc - the association records (src/ctld/assoc.c): assoc_find's
 * index kept right across adds, deletes and case, and a snapshot's usage
 * restored (fairshare.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include "ctld_fixture.h"
#include "ctld/assoc.h"
#include "ctld/assoc_impl.h"
#include "ctld/fairshare.h"
#include "ctld/job_event.h"
#include "proto/codec.h"
#include "common/common.h"

#define N 300

static void put_users(struct assoc_mgr *m, int from, int to)
{
	struct ev_assoc ev = {.type = EV_ASSOC};
	char names[N][16];

	ev.assocs = xcalloc(N, sizeof(*ev.assocs));
	for (int i = from; i < to; i++) {
		struct assoc_rec *r = &ev.assocs[ev.assocs_count++];
		assoc_rec_init(r);
		snprintf(names[i], sizeof(names[i]), "u%d", i);
		r->account = "root";
		r->user = names[i];
	}
	assoc_apply(m, &ev);
	free(ev.assocs);
}

static void test_index_follows_changes(void **state)
{
	struct assoc_mgr *m = assoc_mgr_create();
	struct ev_assoc del = {.type = EV_ASSOC};
	struct assoc_rec key = {.account = "root", .user = "u7"};
	char name[16];

	(void)state;
	put_users(m, 0, N);
	for (int i = 0; i < N; i++) {
		char lower[16];
		snprintf(name, sizeof(name), "U%d", i); /* any case */
		snprintf(lower, sizeof(lower), "u%d", i);
		struct assoc_rec *r = assoc_find(m, "ROOT", name, NULL);
		assert_non_null(r);
		assert_string_equal(r->user, lower);
	}
	assert_null(assoc_find(m, "root", "u7", "debug")); /* a partition's: none */
	assert_null(assoc_find(m, "root", "nobody", NULL));
	assert_non_null(assoc_find(m, "root", NULL, NULL)); /* the account's own */
	/* a delete moves the records after it: still found, the deleted not */
	del.del_assocs = &key;
	del.del_assocs_count = 1;
	assoc_apply(m, &del);
	assert_null(assoc_find(m, "root", "u7", NULL));
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "u%d", i);
		struct assoc_rec *r = assoc_find(m, "root", name, NULL);
		if (i == 7)
			continue;
		assert_non_null(r);
		assert_string_equal(r->user, name);
	}
	assoc_mgr_destroy(m);
}

static void test_snapshot_keeps_usage(void **state)
{
	struct assoc_mgr *m = assoc_mgr_create(), *m2 = assoc_mgr_create();
	struct share_usage u = {
	    .account = "root", .user = "root", .raw_ms = 123456, .cpu_ms = 61000};
	struct ev_assoc ev = {.type = EV_ASSOC,
	                      .usage = &u,
	                      .usage_count = 1,
	                      .usage_time = 1000},
	                snap;

	(void)state;
	assoc_apply(m, &ev);
	assoc_snapshot(m, &snap);
	assert_int_equal(snap.usage_count, 1);
	assert_int_equal(snap.usage[0].raw_ms, 123456);
	assert_int_equal(snap.usage[0].cpu_ms, 61000);
	assert_int_equal(snap.usage_time, 1000);
	/* an EV_ASSOC that is no snapshot leaves the usage */
	struct ev_assoc plain = {.type = EV_ASSOC};
	assoc_apply(m, &plain);
	codec_release(&ev_assoc_type, &snap);
	assoc_snapshot(m, &snap);
	assert_int_equal(snap.usage_count, 1);
	assoc_apply(m2, &snap);
	codec_release(&ev_assoc_type, &snap);
	assoc_snapshot(m2, &snap);
	assert_int_equal(snap.usage[0].raw_ms, 123456);
	codec_release(&ev_assoc_type, &snap);
	assoc_mgr_destroy(m);
	assoc_mgr_destroy(m2);
}

static void test_snapshot_is_the_whole_state(void **state)
{
	struct assoc_mgr *m = assoc_mgr_create(), *m2 = assoc_mgr_create();
	struct ev_assoc del = {.type = EV_ASSOC}, snap;
	struct share_usage u = {.account = "root", .user = "u3", .raw_ms = 5000};
	struct ev_assoc use = {
	    .type = EV_ASSOC, .usage = &u, .usage_count = 1, .usage_time = 1000};
	struct assoc_rec key = {.account = "root", .user = "u3"};
	char name[16];

	(void)state;
	assoc_apply(m, &use); /* a snapshot's usage: the state is replaced */
	assert_int_equal(m->nassocs, 0);
	put_users(m, 0, N);
	/* QOS normal deleted, and u3 with its usage */
	del.del_qos = (char *[]){"normal", NULL};
	del.del_assocs = &key;
	del.del_assocs_count = 1;
	assoc_apply(m, &del);
	assoc_snapshot(m, &snap);
	assert_int_equal(snap.usage_count, 0); /* forgotten with it */
	/* applied to a manager that has the built-in records: they do not
	 * come back, and every record is found */
	assoc_apply(m2, &snap);
	assert_null(assoc_find_qos(m2, "normal"));
	assert_null(assoc_find(m2, "root", "u3", NULL));
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "u%d", i);
		if (i != 3)
			assert_non_null(assoc_find(m2, "root", name, NULL));
	}
	assert_int_equal(m2->nassocs, m->nassocs);
	codec_release(&ev_assoc_type, &snap);
	assoc_mgr_destroy(m);
	assoc_mgr_destroy(m2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_index_follows_changes),
	    cmocka_unit_test(test_snapshot_keeps_usage),
	    cmocka_unit_test(test_snapshot_is_the_whole_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
