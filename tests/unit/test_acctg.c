/* test_acctg.c - JobAcctGatherFrequency / --acctg-freq, JobAcctGatherType and
 * Slurm's way of writing sizes (sstat, sacct). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/acctg.h"

static void expect_freq(const char *s, uint32_t want)
{
	uint32_t got = 0xdead;

	if (acctg_freq_parse(s, &got))
		fail_msg("acctg_freq_parse('%s') failed", s ? s : "(null)");
	if (got != want)
		fail_msg("acctg_freq_parse('%s') = %u, wanted %u", s ? s : "(null)", got,
		         want);
}

static void test_freq(void **state)
{
	uint32_t v = 7;

	expect_freq(NULL, 30);
	expect_freq("", 30);
	expect_freq("10", 10);
	expect_freq("0", 0);
	expect_freq("task=5", 5);
	expect_freq("TASK=5", 5);
	expect_freq("energy=0,task=2,network=0,filesystem=0", 2);
	expect_freq("energy=10", 30);
	expect_freq("65533", 65533);
	assert_int_equal(acctg_freq_parse("65534", &v), -1);
	assert_int_equal(acctg_freq_parse("task=", &v), -1);
	assert_int_equal(acctg_freq_parse("task=-1", &v), -1);
	assert_int_equal(acctg_freq_parse("task=1x", &v), -1);
	assert_int_equal(acctg_freq_parse("cpu=1", &v), -1);
	assert_int_equal(acctg_freq_parse("task=1,", &v), -1);
	assert_int_equal(acctg_freq_parse(",", &v), -1);
	assert_int_equal(acctg_freq_parse("99999999999999999999", &v), -1);
	assert_int_equal(v, 7); /* untouched on failure */
}

static void test_type(void **state)
{
	enum acctg_type t = ACCTG_NONE;

	assert_int_equal(acctg_type_parse(NULL, &t), 0);
	assert_int_equal(t, ACCTG_CGROUP);
	assert_int_equal(acctg_type_parse("jobacct_gather/linux", &t), 0);
	assert_int_equal(t, ACCTG_LINUX);
	assert_int_equal(acctg_type_parse("jobacct_gather/none", &t), 0);
	assert_int_equal(t, ACCTG_NONE);
	assert_int_equal(acctg_type_parse("jobacct_gather/cgroup", &t), 0);
	assert_int_equal(t, ACCTG_CGROUP);
	assert_int_equal(acctg_type_parse("jobacct_gather/aix", &t), -1);
}

static void expect_size(uint64_t v, int unit, enum acctg_convert c, const char *want)
{
	char buf[32];

	assert_string_equal(acctg_size(v, unit, c, buf, sizeof(buf)), want);
}

static void test_size(void **state)
{
	expect_size(0, 1, ACCTG_CONVERT_EXACT, "0");
	expect_size(1000, 1, ACCTG_CONVERT_EXACT, "1000K");
	expect_size(204800, 1, ACCTG_CONVERT_EXACT, "200M");
	expect_size(205080, 1, ACCTG_CONVERT_EXACT, "205080K");
	expect_size(1536, 1, ACCTG_CONVERT_EXACT, "1.50M");
	expect_size(209715200, 0, ACCTG_CONVERT_EXACT, "200M");
	expect_size(209715200, 0, ACCTG_CONVERT_NO, "209715200");
	expect_size(204800, 1, ACCTG_CONVERT_NO, "204800K");
	expect_size(1ull << 30, 1, ACCTG_CONVERT_EXACT, "1T");
	expect_size(4096, 0, ACCTG_CONVERT_EXACT, "4K");
	expect_size(512, 0, ACCTG_CONVERT_EXACT, "512");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_freq),
	    cmocka_unit_test(test_type),
	    cmocka_unit_test(test_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
