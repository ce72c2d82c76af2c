/* test_cronspec.c - crontab time fields: parsing, Slurm's CrontabSpec text and
 * the next start (in UTC here, so that the expectations are fixed). */
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
#include "common/common.h"
#include "common/cronspec.h"

static void expect_str(const char *line, const char *spec, const char *rest)
{
	struct cronspec c;
	struct rota_error err = {{0}};
	const char *r;
	char *s;

	if (cronspec_parse(line, &c, &r, &err) < 0)
		fail_msg("parse '%s' failed: %s", line, err.text);
	s = cronspec_str(&c);
	assert_string_equal(s, spec);
	assert_string_equal(r, rest);
	free(s);
}

static void expect_bad(const char *line)
{
	struct cronspec c;
	struct rota_error err = {{0}};
	const char *r;

	if (cronspec_parse(line, &c, &r, &err) == 0)
		fail_msg("'%s' was accepted", line);
	assert_true(err.text[0] != '\0');
}

static void test_forms(void **state)
{
	(void)state;
	expect_str("* * * * * date", "* * * * *", "date");
	expect_str("1-5,30 8-17/2 * * wed $DIR/x.job", "1-5,30 8,10,12,14,16 * * 3",
	           "$DIR/x.job");
	expect_str("*/15 * * * * a b", "0,15,30,45 * * * *", "a b");
	expect_str("0 0 1 jan-mar sun,7 x", "0 0 1 1-3 0", "x");
	expect_str("@hourly /bin/true", "0 * * * *", "/bin/true");
	expect_str("@daily x", "0 0 * * *", "x");
	expect_str("@weekly x", "0 0 * * 0", "x");
	expect_str("@yearly x", "0 0 1 1 *", "x");
	expect_str("5/20 * * * *", "5,25,45 * * * *", "");
	expect_str("  0 12 29 2 *\tcmd", "0 12 29 2 *", "cmd");
}

static void test_refused(void **state)
{
	(void)state;
	expect_bad("60 * * * * x");
	expect_bad("* 24 * * * x");
	expect_bad("* * 0 * * x");
	expect_bad("* * * 13 * x");
	expect_bad("* * * * 8 x");
	expect_bad("5-1 * * * * x");
	expect_bad("1, * * * * x");
	expect_bad("*/0 * * * * x");
	expect_bad("* * * *");
	expect_bad("@often x");
	expect_bad("* * 31 2,4 * x"); /* no such date */
	expect_bad("* * 30 feb * x");
	expect_bad("a * * * * x");
}

static time_t utc(int y, int mo, int d, int h, int mi)
{
	struct tm tm = {.tm_year = y - 1900,
	                .tm_mon = mo - 1,
	                .tm_mday = d,
	                .tm_hour = h,
	                .tm_min = mi,
	                .tm_isdst = -1};
	return mktime(&tm);
}

static void expect_next(const char *line, time_t after, time_t want)
{
	struct cronspec c;
	struct rota_error err = {{0}};
	const char *r;

	assert_int_equal(cronspec_parse(line, &c, &r, &err), 0);
	assert_int_equal((long)cronspec_next(&c, after), (long)want);
}

static void test_next(void **state)
{
	(void)state;
	/* 2026-12-05 is a Saturday */
	time_t now = utc(2026, 12, 5, 10, 7) + 30;

	expect_next("* * * * * x", now, utc(2026, 12, 5, 10, 8)); /* not this minute */
	expect_next("@hourly x", now, utc(2026, 12, 5, 11, 0));
	expect_next("*/15 * * * * x", now, utc(2026, 12, 5, 10, 15));
	expect_next("0 9 * * * x", now, utc(2026, 12, 6, 9, 0));
	expect_next("30 8 * * mon x", now, utc(2026, 12, 7, 8, 30));
	expect_next("0 0 1 * * x", now, utc(2027, 1, 1, 0, 0));
	expect_next("0 0 29 2 * x", now, utc(2028, 2, 29, 0, 0)); /* leap years only */
	/* both days restricted: either (the 10th, or a Monday) */
	expect_next("0 0 10 * mon x", now, utc(2026, 12, 7, 0, 0));
	expect_next("59 23 31 12 * x", now, utc(2026, 12, 31, 23, 59));
	expect_next("7 10 * * * x", now, utc(2026, 12, 6, 10, 7));
	expect_next("7 10 * * * x", utc(2026, 12, 5, 10, 6) + 59,
	            utc(2026, 12, 5, 10, 7));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forms),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_next),
	};
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
