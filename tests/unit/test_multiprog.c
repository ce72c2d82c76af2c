/* test_multiprog.c - srun --multi-prog configuration files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include "common/multiprog.h"
#include "proto/codec.h"

static const char *conf = "# a comment\n"
                          "\n"
                          "0-1,4 prog-a %t %o\n"
                          "2 'prog b' \"x y\" # trailing comment\n"
                          "* rest %t\n";

static void test_ranges_and_offsets(void **state)
{
	char **argv = NULL;

	assert_int_equal(multiprog_argv(conf, 1, &argv, NULL), 0);
	assert_string_equal(argv[0], "prog-a");
	assert_string_equal(argv[1], "1");
	assert_string_equal(argv[2], "1");
	strv_free(argv);
	assert_int_equal(multiprog_argv(conf, 4, &argv, NULL), 0);
	assert_string_equal(argv[1], "4");
	assert_string_equal(argv[2], "2"); /* the third task of "0-1,4" */
	strv_free(argv);
	assert_int_equal(multiprog_argv(conf, 2, &argv, NULL), 0);
	assert_string_equal(argv[0], "prog b");
	assert_string_equal(argv[1], "x y");
	assert_null(argv[2]);
	strv_free(argv);
	assert_int_equal(multiprog_argv(conf, 7, &argv, NULL), 0);
	assert_string_equal(argv[0], "rest");
	assert_string_equal(argv[1], "7");
	strv_free(argv);
}

static void test_continued_lines(void **state)
{
	const char *text = "0,3 echo aaaa task:%t:\\\noffset:%o \\\nbbbb\n* rest\n";
	char **argv = NULL;

	(void)state;
	assert_int_equal(multiprog_argv(text, 3, &argv, NULL), 0);
	assert_string_equal(argv[0], "echo");
	assert_string_equal(argv[1], "aaaa");
	assert_string_equal(argv[2], "task:3:offset:1");
	assert_string_equal(argv[3], "bbbb");
	assert_null(argv[4]);
	strv_free(argv);
	assert_int_equal(multiprog_argv(text, 1, &argv, NULL), 0);
	assert_string_equal(argv[0], "rest");
	strv_free(argv);
}

static void test_errors(void **state)
{
	struct rota_error err = {""};
	char **argv = NULL;

	assert_int_equal(multiprog_argv("0 a\n", 1, &argv, &err), -1);
	assert_string_equal(err.text, "No executable program specified for this task");
	assert_int_equal(multiprog_argv("0-x a\n", 0, &argv, &err), -1);
	assert_int_equal(multiprog_argv("3-1 a\n", 0, &argv, &err), -1);
	assert_int_equal(multiprog_argv("0\n", 0, &argv, &err), -1);
	assert_int_equal(multiprog_argv("0 'a\n", 0, &argv, &err), -1);
	assert_int_equal(multiprog_check("0-1 a\n", 3, &err), -1);
	assert_int_equal(multiprog_check("0-1 a\n2 b\n", 3, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranges_and_offsets),
	    cmocka_unit_test(test_continued_lines),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
