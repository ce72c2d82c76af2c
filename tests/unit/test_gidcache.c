/* test_gidcache - rotad's cache of users' groups (noded/gidcache.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include "noded/gidcache.c"

static void test_put_get_and_lifetime(void **state)
{
	struct gid_cache *c = gid_cache_create();
	gid_t a[] = {1000, 50, 60}, b[] = {1001, 50};
	const gid_t *got;

	(void)state;
	assert_int_equal(gid_cache_get(c, "alice", 1000, 100, &got), -1);
	gid_cache_put(c, "alice", 1000, a, 3, 100);
	gid_cache_put(c, "bob", 1001, b, 2, 100);
	assert_int_equal(gid_cache_get(c, "alice", 1000, 100, &got), 3);
	assert_memory_equal(got, a, sizeof(a));
	assert_int_equal(gid_cache_get(c, "bob", 1001, 100 + GID_CACHE_TTL_S - 1, &got),
	                 2);
	assert_memory_equal(got, b, sizeof(b));
	/* another primary group, another user name: not the same list */
	assert_int_equal(gid_cache_get(c, "alice", 1001, 100, &got), -1);
	assert_int_equal(gid_cache_get(c, "alic", 1000, 100, &got), -1);
	assert_int_equal(gid_cache_get(c, NULL, 1000, 100, &got), -1);
	/* too old, and a clock that went back */
	assert_int_equal(gid_cache_get(c, "alice", 1000, 100 + GID_CACHE_TTL_S, &got),
	                 -1);
	assert_int_equal(gid_cache_get(c, "alice", 1000, 99, &got), -1);
	/* found again: replaced */
	gid_cache_put(c, "alice", 1000, b, 2, 200);
	assert_int_equal(gid_cache_get(c, "alice", 1000, 200, &got), 2);
	assert_memory_equal(got, b, sizeof(b));
	/* nothing kept for an empty name or list */
	gid_cache_put(c, "", 5, a, 3, 200);
	gid_cache_put(c, "carol", 5, a, 0, 200);
	assert_int_equal(gid_cache_get(c, "", 5, 200, &got), -1);
	assert_int_equal(gid_cache_get(c, "carol", 5, 200, &got), -1);
	gid_cache_destroy(c);
	gid_cache_destroy(NULL);
}

static void test_oldest_goes_first(void **state)
{
	struct gid_cache *c = gid_cache_create();
	const gid_t *got;
	char name[32];

	(void)state;
	for (gid_t i = 0; i < GID_CACHE_ENTRIES; i++) {
		snprintf(name, sizeof(name), "u%u", (unsigned)i);
		gid_cache_put(c, name, i, &i, 1, 1000 + (time_t)i);
	}
	gid_cache_put(c, "late", 7, (gid_t[]){7}, 1, 2000);
	assert_int_equal(gid_cache_get(c, "u0", 0, 1000, &got), -1); /* the oldest */
	assert_int_equal(gid_cache_get(c, "u1", 1, 1001, &got), 1);
	assert_int_equal(gid_cache_get(c, "late", 7, 2000, &got), 1);
	assert_int_equal(got[0], 7);
	gid_cache_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_put_get_and_lifetime),
	    cmocka_unit_test(test_oldest_goes_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
