/* test_timefmt.c - time limits, durations, timestamps and memory sizes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "common/timefmt.h"
#include "common/common.h"

static void expect_limit(const char *s, uint32_t want)
{
	uint32_t got = 0xdead;

	if (timefmt_parse_limit(s, &got))
		fail_msg("parse_limit('%s') failed", s);
	if (got != want)
		fail_msg("parse_limit('%s') = %u, wanted %u", s, got, want);
}

static void test_parse_limit(void **state)
{
	expect_limit("30", 30);
	expect_limit("0", 0);
	expect_limit("1:30", 2); /* seconds round up */
	expect_limit("0:01", 1);
	expect_limit("0:00", 0);
	expect_limit("10:00", 10);
	expect_limit("01:00:00", 60);
	expect_limit("1:00:01", 61);
	expect_limit("100:00:00", 6000);
	expect_limit("1-0", 1440);
	expect_limit("2-12", 3600);
	expect_limit("2-12:30", 3630);
	expect_limit("1-00:00:01", 1441);
	expect_limit("UNLIMITED", TIME_INFINITE);
	expect_limit("unlimited", TIME_INFINITE);
	expect_limit("infinite", TIME_INFINITE);
	expect_limit("INFINITE", TIME_INFINITE);
	expect_limit("-1", TIME_INFINITE); /* Slurm's spelling of no limit */
}

static void test_parse_limit_bad(void **state)
{
	static const char *const bad[] = {
	    "",     "abc",    "-5",          "1:99:00",    "1:00:60",    "1:60",
	    "1-24", "1-1:60", "1:2:3:4",     "1::2",       ":5",         "5:",
	    "1-",   "-",      "1-2-3",       " 5",         "5 ",         "5m",
	    "+5",   "1.5",    "99999999999", "4294967295", "9999999-00",
	};
	uint32_t v = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (timefmt_parse_limit(bad[i], &v) != -EINVAL)
			fail_msg("parse_limit('%s') accepted", bad[i]);
		assert_int_equal(v, 7);
	}
	assert_int_equal(timefmt_parse_limit(NULL, &v), -EINVAL);
}

static void test_elapsed(void **state)
{
	char buf[32];

	assert_string_equal(timefmt_elapsed(0, buf, sizeof(buf)), "0:00");
	assert_string_equal(timefmt_elapsed(5, buf, sizeof(buf)), "0:05");
	assert_string_equal(timefmt_elapsed(65, buf, sizeof(buf)), "1:05");
	assert_string_equal(timefmt_elapsed(3599, buf, sizeof(buf)), "59:59");
	assert_string_equal(timefmt_elapsed(3600, buf, sizeof(buf)), "1:00:00");
	assert_string_equal(timefmt_elapsed(86399, buf, sizeof(buf)), "23:59:59");
	assert_string_equal(timefmt_elapsed(86400, buf, sizeof(buf)), "1-00:00:00");
	assert_string_equal(timefmt_elapsed(90061, buf, sizeof(buf)), "1-01:01:01");
	assert_string_equal(timefmt_elapsed(-3, buf, sizeof(buf)), "0:00");
	/* truncates but stays terminated */
	assert_string_equal(timefmt_elapsed(90061, buf, 4), "1-0");
}

static void test_limit(void **state)
{
	char buf[32];

	assert_string_equal(timefmt_limit(60, buf, sizeof(buf)), "1:00:00");
	assert_string_equal(timefmt_limit(5, buf, sizeof(buf)), "5:00");
	assert_string_equal(timefmt_limit(30, buf, sizeof(buf)), "30:00");
	assert_string_equal(timefmt_limit(0, buf, sizeof(buf)), "0:00");
	assert_string_equal(timefmt_limit(1440, buf, sizeof(buf)), "1-00:00:00");
	assert_string_equal(timefmt_limit(3630, buf, sizeof(buf)), "2-12:30:00");
	assert_string_equal(timefmt_limit(TIME_INFINITE, buf, sizeof(buf)), "UNLIMITED");
	/* a huge but finite limit does not overflow */
	assert_string_equal(timefmt_limit(TIME_INFINITE - 1, buf, sizeof(buf)),
	                    "2982616-04:14:00");
}

static void test_iso(void **state)
{
	char buf[64];

	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(timefmt_iso(1795959939, buf, sizeof(buf)),
	                    "2026-11-29T13:45:39");
	assert_string_equal(timefmt_iso(0, buf, sizeof(buf)), "Unknown");
	assert_string_equal(timefmt_iso((time_t)-1, buf, sizeof(buf)), "None");
	assert_string_equal(timefmt_iso((time_t)UINT32_MAX, buf, sizeof(buf)), "None");
}

static void expect_mem(const char *s, uint64_t want)
{
	uint64_t got = 0xdead;

	if (timefmt_parse_mem(s, &got))
		fail_msg("parse_mem('%s') failed", s);
	if (got != want)
		fail_msg("parse_mem('%s') = %llu, wanted %llu", s,
		         (unsigned long long)got, (unsigned long long)want);
}

static void test_parse_mem(void **state)
{
	static const char *const bad[] = {
	    "",
	    "G",
	    "-1",
	    "12X",
	    "1B",
	    "1GBB",
	    "1GiB",
	    "1.5G",
	    " 1",
	    "1 ",
	    "+1",
	    "0x10",
	    "18446744073709551616",
	    "18014398509481984G",
	    "17592186044416T",
	};
	uint64_t v = 7;

	expect_mem("16G", 16384);
	expect_mem("16g", 16384);
	expect_mem("500", 500);
	expect_mem("500M", 500);
	expect_mem("500m", 500);
	expect_mem("1T", 1048576);
	expect_mem("2048K", 2);
	expect_mem("2049K", 3); /* K rounds up */
	expect_mem("1k", 1);
	expect_mem("0", 0);
	expect_mem("1GB", 1024); /* Slurm takes B after the unit */
	expect_mem("512mb", 512);
	expect_mem("2048KB", 2);
	expect_mem("18446744073709551615", UINT64_MAX);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (timefmt_parse_mem(bad[i], &v) != -EINVAL)
			fail_msg("parse_mem('%s') accepted", bad[i]);
		assert_int_equal(v, 7);
	}
	assert_int_equal(timefmt_parse_mem(NULL, &v), -EINVAL);
}

/* SLURM_TIME_FORMAT's styles: relative by days from now, a strftime format,
 * and one without '%' falling back to the standard form. */
static void test_show_styles(void **state)
{
	/* 2026-12-06T10:00:00Z, a Sunday */
	const time_t now = 1796551200;
	char buf[64];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(timefmt_show(now + 3600, "relative", now, buf, sizeof(buf)),
	                    "11:00:00");
	assert_string_equal(timefmt_show(now - 86400, "relative", now, buf, sizeof(buf)),
	                    "Ystday 10:00");
	assert_string_equal(timefmt_show(now + 86400, "relative", now, buf, sizeof(buf)),
	                    "Tomorr 10:00");
	assert_string_equal(
	    timefmt_show(now + 3 * 86400, "relative", now, buf, sizeof(buf)),
	    "Wed 10:00");
	assert_string_equal(
	    timefmt_show(now + 20 * 86400, "relative", now, buf, sizeof(buf)),
	    "26 Dec 10:00");
	assert_string_equal(
	    timefmt_show(now - 400 * 86400, "relative", now, buf, sizeof(buf)),
	    "1 Nov 2025");
	assert_string_equal(timefmt_show(now, "%s", now, buf, sizeof(buf)), "1796551200");
	assert_string_equal(timefmt_show(now, "standard", now, buf, sizeof(buf)),
	                    "2026-12-06T10:00:00");
	assert_string_equal(timefmt_show(now, "bad", now, buf, sizeof(buf)),
	                    "2026-12-06T10:00:00");
	assert_string_equal(timefmt_show(0, "%s", now, buf, sizeof(buf)), "Unknown");
}

static void test_mem_unit(void **state)
{
	char buf[32];

	assert_string_equal(timefmt_mem_unit(16384, buf, sizeof(buf)), "16G");
	assert_string_equal(timefmt_mem_unit(500, buf, sizeof(buf)), "500M");
	assert_string_equal(timefmt_mem_unit(1536, buf, sizeof(buf)), "1536M");
	assert_string_equal(timefmt_mem_unit(1048576, buf, sizeof(buf)), "1T");
	assert_string_equal(timefmt_mem_unit(0, buf, sizeof(buf)), "0M");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_limit), cmocka_unit_test(test_parse_limit_bad),
	    cmocka_unit_test(test_elapsed),     cmocka_unit_test(test_limit),
	    cmocka_unit_test(test_iso),         cmocka_unit_test(test_parse_mem),
	    cmocka_unit_test(test_mem_unit),    cmocka_unit_test(test_show_styles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
