/* test_time_parse.c - the points in time --begin, --deadline and StartTime=
 * take, word by word as Slurm's parse_time reads them. */
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
#include "common/time_parse.h"

static time_t local(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = {.tm_year = y - 1900,
	                .tm_mon = mo - 1,
	                .tm_mday = d,
	                .tm_hour = h,
	                .tm_min = mi,
	                .tm_sec = s,
	                .tm_isdst = -1};
	return mktime(&tm);
}

/* 2026-03-10 14:30:00 local */
static time_t now_ref(void)
{
	return local(2026, 3, 10, 14, 30, 0);
}

static void expect_at(const char *s, time_t want)
{
	time_t t = 0;
	int pos = -2;

	if (time_parse(s, now_ref(), 0, &t, &pos) < 0)
		fail_msg("time_parse('%s') failed at %d", s, pos);
	if (t != want)
		fail_msg("time_parse('%s') = %lld, want %lld", s, (long long)t,
		         (long long)want);
}

static void expect_bad(const char *s)
{
	time_t t = 7;
	int pos = -2;

	if (time_parse(s, now_ref(), 0, &t, &pos) != -EINVAL)
		fail_msg("time_parse('%s') accepted", s);
	assert_int_equal(t, 7);
	assert_true(pos >= -1);
}

static void test_now(void **state)
{
	time_t now = now_ref();

	(void)state;
	expect_at("now", now);
	expect_at("NOW", now);
	expect_at("now+60", now + 60);
	expect_at("now+1hour", now + 3600);
	expect_at("now+1hours", now + 3600);
	expect_at("now + 1 hour", now + 3600);
	expect_at("now+2min", now + 120);
	expect_at("now+2minutes", now + 120);
	expect_at("now+1days", now + 86400);
	expect_at("now+1week", now + 7 * 86400);
	expect_at("now-5", now - 5);
	expect_at("now-1day", now - 86400);
	expect_bad("now+");
	expect_bad("now+hour");
	expect_bad("now+5parsecs");
	expect_bad("now tomorrow");
	expect_bad("now+99999999999999999999");
}

static void test_words(void **state)
{
	(void)state;
	expect_at("today", local(2026, 3, 10, 0, 0, 0));
	expect_at("tomorrow", local(2026, 3, 11, 0, 0, 0));
	expect_at("Tomorrow", local(2026, 3, 11, 0, 0, 0));
	expect_at("midnight", local(2026, 3, 11, 0, 0, 0));
	expect_at("elevenses", local(2026, 3, 11, 11, 0, 0));
	expect_at("noon", local(2026, 3, 11, 12, 0, 0));
	expect_at("fika", local(2026, 3, 10, 15, 0, 0));
	expect_at("teatime", local(2026, 3, 10, 16, 0, 0));
	/* a word for the time and one for the date, any order */
	expect_at("noon-tomorrow", local(2026, 3, 11, 12, 0, 0));
	expect_at("tomorrow noon", local(2026, 3, 11, 12, 0, 0));
	expect_at("midnight-today", local(2026, 3, 10, 0, 0, 0));
	expect_at("teatime-tomorrow", local(2026, 3, 11, 16, 0, 0));
	expect_at("today-10:00", local(2026, 3, 10, 10, 0, 0));
	expect_bad("garbage");
	expect_bad("noonish");
}

static void test_clock(void **state)
{
	(void)state;
	expect_at("16:00", local(2026, 3, 10, 16, 0, 0));
	expect_at("9:05", local(2026, 3, 11, 9, 5, 0));
	expect_at("10:00:30", local(2026, 3, 11, 10, 0, 30));
	expect_at("14:30", local(2026, 3, 11, 14, 30, 0)); /* not ahead: tomorrow */
	expect_at("14:31", local(2026, 3, 10, 14, 31, 0));
	expect_at("4:00pm", local(2026, 3, 10, 16, 0, 0));
	expect_at("4:00 PM", local(2026, 3, 10, 16, 0, 0));
	expect_at("12:00am", local(2026, 3, 11, 0, 0, 0));
	expect_at("12:15pm", local(2026, 3, 11, 12, 15, 0));
	expect_at("10:00am-tomorrow", local(2026, 3, 11, 10, 0, 0));
	expect_bad("25:00");
	expect_bad("10:60");
	expect_bad("10:5");
	expect_bad("13:00pm");
	expect_bad("10:00:61");
}

static void test_dates(void **state)
{
	(void)state;
	expect_at("2026-12-24", local(2026, 12, 24, 0, 0, 0));
	expect_at("2026-12-24T18:05", local(2026, 12, 24, 18, 5, 0));
	expect_at("2026-12-24T18:05:09", local(2026, 12, 24, 18, 5, 9));
	expect_at("2026-12-24T", local(2026, 12, 24, 0, 0, 0));
	expect_at("1224", local(2026, 12, 24, 0, 0, 0));
	expect_at("12/24", local(2026, 12, 24, 0, 0, 0));
	expect_at("12.24.27", local(2027, 12, 24, 0, 0, 0));
	expect_at("122427", local(2027, 12, 24, 0, 0, 0));
	expect_at("12/24/27-18:00", local(2027, 12, 24, 18, 0, 0));
	/* a date without a year: the next one */
	expect_at("03/01", local(2027, 3, 1, 0, 0, 0));
	expect_at("03/10", local(2027, 3, 10, 0, 0, 0));
	expect_at("03/11", local(2026, 3, 11, 0, 0, 0));
	expect_bad("2026-13-01");
	expect_bad("2026-12-24x");
	expect_bad("13/01");
	expect_bad("12/32");
	expect_bad("12/24/2");
}

static void test_nothing_and_uts(void **state)
{
	time_t t = 7;
	int pos = 0;

	(void)state;
	/* naming nothing: no position to report */
	assert_int_equal(time_parse("", now_ref(), 0, &t, &pos), -EINVAL);
	assert_int_equal(pos, -1);
	assert_int_equal(time_parse(" - ", now_ref(), 0, &t, &pos), -EINVAL);
	assert_int_equal(pos, -1);
	assert_int_equal(time_parse(NULL, now_ref(), 0, &t, NULL), -EINVAL);
	assert_int_equal(time_parse("noon x", now_ref(), 0, &t, &pos), -EINVAL);
	assert_int_equal(pos, 5);
	expect_at("uts1700000000", 1700000000);
	expect_bad("uts12");
	expect_bad("uts1700000000x");
}

static void test_past(void **state)
{
	time_t t = 0;

	(void)state;
	assert_int_equal(time_parse("16:00", now_ref(), TIME_PARSE_PAST, &t, NULL), 0);
	assert_int_equal(t, local(2026, 3, 10, 16, 0, 0));
	assert_int_equal(time_parse("12/24", now_ref(), TIME_PARSE_PAST, &t, NULL), 0);
	assert_int_equal(t, local(2025, 12, 24, 0, 0, 0));
	assert_int_equal(time_parse("03/01", now_ref(), TIME_PARSE_PAST, &t, NULL), 0);
	assert_int_equal(t, local(2026, 3, 1, 0, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_now),
	    cmocka_unit_test(test_words),
	    cmocka_unit_test(test_clock),
	    cmocka_unit_test(test_dates),
	    cmocka_unit_test(test_nothing_and_uts),
	    cmocka_unit_test(test_past),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
