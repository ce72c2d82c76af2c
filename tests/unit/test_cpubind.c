/* test_cpubind.c - srun --cpu-bind parsing. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/cpubind.h"

static void test_words(void **state)
{
	struct rota_error err = {""};
	struct cpubind b;

	assert_int_equal(cpubind_parse("", &b, &err), 0);
	assert_int_equal(b.type, CPUBIND_DEFAULT);
	assert_int_equal(cpubind_parse("verbose", &b, &err), 0);
	assert_int_equal(b.type, CPUBIND_DEFAULT);
	assert_true(b.verbose);
	assert_int_equal(cpubind_parse("none", &b, &err), 0);
	assert_int_equal(b.type, CPUBIND_NONE);
	assert_string_equal(cpubind_word(&b), "NONE");
	assert_int_equal(cpubind_parse("verbose,cores", &b, &err), 0);
	assert_int_equal(b.type, CPUBIND_SHARE);
	assert_true(b.verbose);
	assert_int_equal(cpubind_parse("quiet,Threads", &b, &err), 0);
	assert_int_equal(b.type, CPUBIND_SHARE);
	assert_false(b.verbose);
	/* snakemake runs srun --cpu-bind=q */
	assert_int_equal(cpubind_parse("q", &b, &err), 0);
	assert_int_equal(b.type, CPUBIND_DEFAULT);
	assert_false(b.verbose);
	assert_int_equal(cpubind_parse("v,rank", &b, &err), 0);
	assert_true(b.verbose);
	assert_int_equal(b.type, CPUBIND_SHARE);
	assert_int_equal(cpubind_parse("verbose,map_ldom:0,1", &b, &err), 0);
	assert_int_equal(b.type, CPUBIND_SHARE);
	assert_int_equal(cpubind_parse("help", &b, &err), 1);
}

static void test_map(void **state)
{
	struct rota_error err = {""};
	struct cpubind b;

	assert_int_equal(cpubind_parse("verbose,map_cpu:3,0x10,1*2", &b, &err), 0);
	assert_int_equal(b.type, CPUBIND_MAP);
	assert_true(b.verbose);
	assert_string_equal(cpubind_word(&b), "MAP ");
	assert_int_equal(b.n, 4);
	assert_int_equal(b.cnt[0], 1);
	assert_int_equal(b.ids[0][0], 3);
	assert_int_equal(b.ids[1][0], 16);
	assert_int_equal(b.ids[2][0], 1);
	assert_int_equal(b.ids[3][0], 1);
	cpubind_release(&b);
}

static void test_mask(void **state)
{
	struct rota_error err = {""};
	struct cpubind b;

	assert_int_equal(cpubind_parse("mask_cpu:0x3,C,0x100", &b, &err), 0);
	assert_int_equal(b.type, CPUBIND_MASK);
	assert_int_equal(b.n, 3);
	assert_int_equal(b.cnt[0], 2);
	assert_int_equal(b.ids[0][0], 0);
	assert_int_equal(b.ids[0][1], 1);
	assert_int_equal(b.cnt[1], 2);
	assert_int_equal(b.ids[1][0], 2);
	assert_int_equal(b.ids[1][1], 3);
	assert_int_equal(b.cnt[2], 1);
	assert_int_equal(b.ids[2][0], 8);
	cpubind_release(&b);
}

static void test_invalid(void **state)
{
	static const char *const bad[] = {
	    "bogus",        "map_cpu:",     "map_cpu:a",  "map_cpu:1,", "map_cpu:1*0",
	    "map_cpu:5000", "mask_cpu:0x0", "mask_cpu:g", "cores:2",    "map_cpu:1*99999",
	};
	struct rota_error err = {""};
	struct cpubind b;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.text[0] = '\0';
		assert_int_equal(cpubind_parse(bad[i], &b, &err), -EINVAL);
		assert_non_null(strstr(err.text, "Invalid --cpu-bind argument: "));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_words),
	    cmocka_unit_test(test_map),
	    cmocka_unit_test(test_mask),
	    cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
