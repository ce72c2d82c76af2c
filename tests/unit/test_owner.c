/* owner: one counted record per uid, gid and names (src/ctld/owner.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/intern.h"
#include "common/xmalloc.h"
#include "ctld/owner.c"

static const struct owner *get(struct owner_table *t, uid_t uid, gid_t gid,
                               const char *user, const char *group)
{
	return owner_get(t, uid, gid, xstrdup(user), xstrdup(group));
}

static void test_same_owner_shared_others_apart(void **state)
{
	struct intern *texts = intern_create();
	struct owner_table *t = owner_table_create(texts);
	const struct owner *a = get(t, 1000, 100, "alice", "users");
	const struct owner *b = get(t, 1000, 100, "alice", "users");
	const struct owner *c = get(t, 1000, 101, "alice", "staff");
	const struct owner *d = get(t, 1000, 100, "alice2", "users"); /* renamed */

	(void)state;
	assert_ptr_equal(a, b);
	assert_int_equal(a->refs, 2);
	assert_ptr_not_equal(a, c);
	assert_ptr_not_equal(a, d);
	assert_int_equal(a->uid, 1000);
	assert_int_equal(a->gid, 100);
	assert_string_equal(a->user, "alice");
	assert_string_equal(c->group, "staff");
	/* the names are the kept copies: the same text, the same pointer */
	assert_ptr_equal(a->group, d->group);
	assert_ptr_equal(owner_ref(a), a);
	assert_int_equal(a->refs, 3);
	owner_drop(t, a);
	owner_drop(t, b);
	owner_drop(t, a);
	owner_drop(t, NULL);
	owner_drop(t, c);
	owner_drop(t, d);
	owner_table_destroy(t);
	intern_destroy(texts);
}

static void test_many_owners(void **state)
{
	struct intern *texts = intern_create();
	struct owner_table *t = owner_table_create(texts);
	const struct owner *v[2000];
	char name[32];

	(void)state;
	for (uid_t u = 0; u < 2000; u++) { /* the table grows */
		snprintf(name, sizeof(name), "user%u", (unsigned)u);
		v[u] = get(t, u, u % 7, name, "g");
	}
	for (uid_t u = 0; u < 2000; u++) {
		snprintf(name, sizeof(name), "user%u", (unsigned)u);
		assert_ptr_equal(get(t, u, u % 7, name, "g"), v[u]);
		assert_string_equal(v[u]->user, name);
		owner_drop(t, v[u]);
	}
	for (uid_t u = 0; u < 1000; u++)
		owner_drop(t, v[u]);
	owner_table_destroy(t); /* the rest freed here */
	intern_destroy(texts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_owner_shared_others_apart),
	    cmocka_unit_test(test_many_owners),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
