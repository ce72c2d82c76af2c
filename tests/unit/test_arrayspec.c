/* test_arrayspec.c - job array index specifications. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/arrayspec.h"
#include "common/common.h"

/* Parse spec and compare the formatted form and the task count. */
static void expect_spec(const char *spec, const char *formatted, uint32_t count)
{
	struct arrayspec a;
	struct rota_error err = {{0}};
	char *s;

	if (arrayspec_parse(spec, 1001, &a, &err) < 0)
		fail_msg("parse '%s' failed: %s", spec, err.text);
	s = arrayspec_format(&a, 1);
	assert_string_equal(s, formatted);
	assert_int_equal(a.count, count);
	free(s);
	arrayspec_release(&a);
}

static void test_forms(void **state)
{
	(void)state;
	expect_spec("0-99%10", "0-99%10", 100);
	expect_spec("1-7:2", "1-7:2", 4);
	expect_spec("1,3,5-7", "1,3,5-7", 5);
	expect_spec("1,3,5,7,8,9", "1-5:2,7-9", 6);
	expect_spec("4", "4", 1);
	expect_spec("9,2,2", "2,9", 2);
	expect_spec("1,2", "1-2", 2);
	expect_spec("0-1000", "0-1000", 1001);
	expect_spec("5-6%1", "5-6%1", 2);
}

static void test_invalid(void **state)
{
	const char *bad[] = {"",   "a",   "1-",   "-3",     "5-2", "1-7:0",       "1,,2",
	                     "1%", "1%x", "1001", "0-1001", "3 ",  "99999999999", NULL};
	(void)state;
	for (int i = 0; bad[i]; i++) {
		struct arrayspec a = {0};
		if (arrayspec_parse(bad[i], 1001, &a, NULL) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_null(a.bits);
	}
}

static void test_ops(void **state)
{
	struct arrayspec a, b;
	char *s;

	(void)state;
	assert_int_equal(arrayspec_parse("5-99%10", 1001, &a, NULL), 0);
	assert_int_equal(arrayspec_first(&a), 5);
	assert_int_equal(arrayspec_last(&a), 99);
	assert_int_equal(arrayspec_next(&a, 5), 6);
	assert_int_equal(arrayspec_step(&a), 1);
	assert_true(arrayspec_clear(&a, 5));
	assert_false(arrayspec_clear(&a, 5));
	assert_false(arrayspec_test(&a, 5));
	arrayspec_copy(&b, &a);
	assert_true(arrayspec_clear(&a, 50));
	s = arrayspec_format(&a, 1);
	assert_string_equal(s, "6-49,51-99%10");
	free(s);
	s = arrayspec_format(&b, 0);
	assert_string_equal(s, "6-99");
	free(s);
	for (uint32_t i = 0; i < 100; i++)
		arrayspec_clear(&a, i);
	assert_int_equal(a.count, 0);
	assert_int_equal(arrayspec_first(&a), -1);
	s = arrayspec_format(&a, 0);
	assert_string_equal(s, "");
	free(s);
	arrayspec_release(&a);
	arrayspec_release(&b);
	assert_int_equal(arrayspec_parse("0-20:4", 1001, &a, NULL), 0);
	assert_int_equal(arrayspec_step(&a), 4);
	arrayspec_release(&a);
}

/* Setting an id past the bitmap grows it; an empty spec can be grown from. */
static void test_set_grows(void **state)
{
	struct arrayspec a, none = {0};
	char *s;

	assert_int_equal(arrayspec_parse("2-3%1", 100, &a, NULL), 0);
	assert_int_equal(arrayspec_set(&a, 3), 0);
	assert_int_equal(arrayspec_set(&a, 4), 1);
	assert_int_equal(arrayspec_set(&a, 1000), 1);
	assert_int_equal(arrayspec_set(&a, ARRAYSPEC_LIMIT), -EINVAL);
	assert_int_equal(a.count, 4);
	assert_true(arrayspec_test(&a, 1000));
	assert_false(arrayspec_test(&a, 999));
	assert_int_equal(arrayspec_last(&a), 1000);
	s = arrayspec_format(&a, 1);
	assert_string_equal(s, "2-4,1000%1");
	free(s);
	arrayspec_release(&a);
	assert_int_equal(arrayspec_set(&none, 7), 1);
	assert_int_equal(arrayspec_set(&none, 9), 1);
	assert_int_equal(arrayspec_set(&none, 8), 1);
	s = arrayspec_format(&none, 0);
	assert_string_equal(s, "7-9");
	free(s);
	arrayspec_release(&none);
}

static void test_large(void **state)
{
	struct arrayspec a;
	char *s;

	(void)state;
	assert_int_equal(arrayspec_parse("0-999999", 1000000, &a, NULL), 0);
	assert_int_equal(a.count, 1000000);
	s = arrayspec_format(&a, 0);
	assert_string_equal(s, "0-999999");
	free(s);
	arrayspec_release(&a);
	assert_int_equal(arrayspec_parse("0-999999", 999999, &a, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forms), cmocka_unit_test(test_invalid),
	    cmocka_unit_test(test_ops),   cmocka_unit_test(test_set_grows),
	    cmocka_unit_test(test_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
