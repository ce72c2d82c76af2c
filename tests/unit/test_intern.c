/* test_intern.c - one kept copy per text, counted, freed with its last drop. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/intern.h"
#include "common/strv.h"
#include "common/common.h"

static char **vec(const char *a, const char *b)
{
	char **v = NULL;

	v = strv_append(v, a);
	if (b)
		v = strv_append(v, b);
	return v;
}

static void test_same_text_kept_once(void **state)
{
	struct intern *in = intern_create();
	char *a = intern_str(in, xstrdup("#!/bin/sh\ntrue\n"));
	char *b = intern_str(in, xstrdup("#!/bin/sh\ntrue\n"));
	char *c = intern_str(in, xstrdup("#!/bin/sh\nfalse\n"));
	size_t refs;

	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	assert_int_equal(intern_count(in, &refs), 2);
	assert_int_equal(refs, 3);
	/* handing back the kept copy itself counts once more, frees nothing */
	assert_ptr_equal(intern_str(in, a), a);
	assert_int_equal(intern_count(in, &refs), 2);
	assert_int_equal(refs, 4);
	intern_drop_str(in, a);
	intern_drop_str(in, b);
	assert_int_equal(intern_count(in, &refs), 2);
	assert_int_equal(refs, 2);
	assert_string_equal(a, "#!/bin/sh\ntrue\n"); /* one reference left */
	intern_drop_str(in, a);
	assert_int_equal(intern_count(in, &refs), 1);
	intern_drop_str(in, c);
	assert_int_equal(intern_count(in, &refs), 0);
	assert_int_equal(refs, 0);
	assert_null(intern_str(in, NULL));
	intern_drop_str(in, NULL);
	intern_destroy(in);
}

/* Vectors compare string by string: {"ab"} is not {"a", "b"}, and a string
 * is not a vector holding it. */
static void test_vectors(void **state)
{
	struct intern *in = intern_create();
	char **e1 = intern_strv(in, vec("A=1", "B=2"));
	char **e2 = intern_strv(in, vec("A=1", "B=2"));
	char **ab = intern_strv(in, vec("A=1B=2", NULL));
	char **a = intern_strv(in, vec("A=1", NULL));
	char *s = intern_str(in, xstrdup("A=1"));

	assert_ptr_equal(e1, e2);
	assert_ptr_not_equal(e1, ab);
	assert_ptr_not_equal(e1, a);
	assert_ptr_not_equal((void *)a, (void *)s);
	assert_int_equal(intern_count(in, NULL), 4);
	intern_drop_strv(in, e1);
	intern_drop_strv(in, e2);
	intern_drop_strv(in, ab);
	assert_int_equal(intern_count(in, NULL), 2);
	intern_destroy(in); /* frees what is still kept */
}

/* Many distinct texts: the table grows, each is still found. */
static void test_many(void **state)
{
	struct intern *in = intern_create();
	char *kept[5000];
	char buf[32];

	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "script %d", i);
		kept[i] = intern_str(in, xstrdup(buf));
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "script %d", i);
		assert_ptr_equal(intern_str(in, xstrdup(buf)), kept[i]);
	}
	assert_int_equal(intern_count(in, NULL), 5000);
	for (int i = 0; i < 5000; i++) {
		intern_drop_str(in, kept[i]);
		intern_drop_str(in, kept[i]);
	}
	assert_int_equal(intern_count(in, NULL), 0);
	intern_destroy(in);
}

/* A tag is found from the kept copy or from any text equal to it, starts at
 * zero, stays while the copy is kept, and a copy made after the last drop
 * starts at zero again. */
/* n counts taken at once: the copy lives until n + 1 drops. */
static void test_hold(void **state)
{
	struct intern *in = intern_create();
	char *a = intern_str(in, xstrdup("x"));
	char **v = intern_strv(in, vec("A=1", NULL));
	size_t refs;

	intern_hold_str(in, a, 3);
	intern_hold_strv(in, v, 2);
	intern_hold_str(in, NULL, 5);
	assert_int_equal(intern_count(in, &refs), 2);
	assert_int_equal(refs, 7);
	for (int i = 0; i < 3; i++)
		intern_drop_str(in, a);
	intern_drop_strv(in, v);
	intern_drop_strv(in, v);
	assert_int_equal(intern_count(in, &refs), 2);
	assert_string_equal(a, "x");
	assert_string_equal(v[0], "A=1");
	intern_drop_str(in, a);
	intern_drop_strv(in, v);
	assert_int_equal(intern_count(in, &refs), 0);
	intern_destroy(in);
}

static void test_tags(void **state)
{
	struct intern *in = intern_create();
	char **env = intern_strv(in, vec("A=1", "B=2"));
	char **same = vec("A=1", "B=2"), **other = vec("A=1", NULL);
	struct intern_tag *t = intern_tag_strv(in, env);

	assert_non_null(t);
	assert_int_equal(t->id, 0);
	assert_int_equal(t->gen, 0);
	t->id = 7;
	t->gen = 3;
	assert_ptr_equal(intern_tag_strv(in, same), t);
	assert_null(intern_tag_strv(in, other));
	assert_null(intern_tag_str(in, "A=1")); /* a string is not a vector */
	assert_null(intern_tag_strv(in, NULL));
	/* handed over again (the kept copy itself, then an equal one) */
	assert_ptr_equal(intern_strv(in, env), env);
	assert_ptr_equal(intern_strv(in, same), env);
	assert_int_equal(intern_tag_strv(in, env)->id, 7);
	intern_drop_strv(in, env);
	intern_drop_strv(in, env);
	intern_drop_strv(in, env);
	assert_null(intern_tag_strv(in, other));
	env = intern_strv(in, vec("A=1", "B=2"));
	assert_int_equal(intern_tag_strv(in, env)->id, 0);
	intern_drop_strv(in, env);
	assert_int_equal(intern_count(in, NULL), 0);
	strv_free(other);
	intern_destroy(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_text_kept_once),
	    cmocka_unit_test(test_vectors),
	    cmocka_unit_test(test_many),
	    cmocka_unit_test(test_hold),
	    cmocka_unit_test(test_tags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
