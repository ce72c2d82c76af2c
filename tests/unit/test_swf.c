/* test_swf.c - SWF lines and trace cleaning (src/sched/swf.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "common/error.h"
#include "sched/swf.h"

#define KTH_LINE                                                                         \
	"    2   327952 291900   9382   80     -1    -1   80  14400    -1  1   2   2  "  \
	"-1 -1 -1 -1 -1\n"

static void test_parse_line(void **state)
{
	struct swf_job j;
	struct rota_error err = {{0}};

	assert_int_equal(swf_parse_line(KTH_LINE, &j, &err), 1);
	assert_int_equal(j.id, 2);
	assert_int_equal(j.submit, 327952);
	assert_int_equal(j.wait, 291900);
	assert_int_equal(j.run, 9382);
	assert_int_equal(j.alloc_procs, 80);
	assert_int_equal(j.req_procs, 80);
	assert_int_equal(j.req_time, 14400);
	assert_int_equal(j.user, 2);
	assert_int_equal(j.think, -1);
	assert_int_equal(
	    swf_parse_line("1 0 0 937 306 142.25 -1 306 35100 -1 1 97 -1 307 3 -1 -1 -1",
	                   &j, &err),
	    1);
	assert_true(j.avg_cpu > 142.24 && j.avg_cpu < 142.26);
	assert_int_equal(swf_parse_line("; MaxProcs: 100\n", &j, &err), 0);
	assert_int_equal(swf_parse_line("   \n", &j, &err), 0);
	assert_int_equal(swf_parse_line("1 2 3\n", &j, &err), -EINVAL);
	assert_non_null(strstr(err.text, "3 of 18"));
	assert_int_equal(
	    swf_parse_line("1 2 3 4 5 6 7 8 x 10 11 12 13 14 15 16 17 18", &j, &err),
	    -EINVAL);
	assert_non_null(strstr(err.text, "field 9"));
	assert_int_equal(
	    swf_parse_line("1 2 3 4 5 6 7 8 9x 10 11 12 13 14 15 16 17 18", &j, &err),
	    -EINVAL);
}

static void test_header(void **state)
{
	int64_t v = 0;

	assert_int_equal(swf_header_int("; MaxProcs: 100\n", "MaxProcs", &v), 1);
	assert_int_equal(v, 100);
	assert_int_equal(swf_header_int(";MaxNodes:   5544 (batch)\n", "MaxNodes", &v),
	                 1);
	assert_int_equal(v, 5544);
	assert_int_equal(swf_header_int("; MaxProcsX: 1\n", "MaxProcs", &v), 0);
	assert_int_equal(swf_header_int("; Note: MaxProcs: 1\n", "MaxProcs", &v), 0);
	assert_int_equal(swf_header_int("; MaxProcs: many\n", "MaxProcs", &v), 0);
	assert_int_equal(swf_header_int("1 2 3", "MaxProcs", &v), 0);
	assert_int_equal(v, 5544);
}

static struct swf_job job(int64_t submit, int64_t run, int64_t alloc, int64_t req_procs,
                          int64_t req_time)
{
	return (struct swf_job){.id = 1,
	                        .submit = submit,
	                        .run = run,
	                        .alloc_procs = alloc,
	                        .req_procs = req_procs,
	                        .req_time = req_time};
}

static void test_clean(void **state)
{
	struct swf_job j;

	j = job(0, 10, 4, 4, 100);
	assert_int_equal(swf_clean(&j, 100), SWF_KEEP);
	/* one processor count missing: use the other */
	j = job(0, 10, -1, 8, 100);
	assert_int_equal(swf_clean(&j, 100), SWF_KEEP);
	assert_int_equal(j.alloc_procs, 8);
	j = job(0, 10, 6, -1, 100);
	assert_int_equal(swf_clean(&j, 100), SWF_KEEP);
	assert_int_equal(j.req_procs, 6);
	assert_int_equal(swf_procs(&j), 6);
	/* both given: the requested count is what the scheduler sees */
	j = job(0, 10, 32, 30, 100);
	assert_int_equal(swf_procs(&j), 30);
	j = job(0, 10, 0, -1, 100);
	assert_int_equal(swf_clean(&j, 100), SWF_DROP_PROCS);
	j = job(0, 10, 101, 101, 100);
	assert_int_equal(swf_clean(&j, 100), SWF_DROP_TOO_WIDE);
	j = job(0, 0, 1, 1, 100);
	assert_int_equal(swf_clean(&j, 100), SWF_DROP_RUN);
	j = job(0, 10, 1, 1, -1);
	assert_int_equal(swf_clean(&j, 100), SWF_DROP_REQ_TIME);
	j = job(-5, 10, 1, 1, 100);
	assert_int_equal(swf_clean(&j, 100), SWF_DROP_SUBMIT);
	assert_int_equal(j.submit, -5); /* unchanged when dropped */
	/* run time capped at the requested time */
	j = job(0, 150, 1, 1, 100);
	assert_int_equal(swf_clean(&j, 100), SWF_KEEP);
	assert_int_equal(j.run, 100);
	assert_string_equal(swf_drop_name(SWF_DROP_RUN), "run time <= 0");
}

static void test_format_round_trip(void **state)
{
	struct swf_job a, b;
	char buf[SWF_MAX_LINE];

	assert_int_equal(
	    swf_parse_line("7 10 20 30 4 1.5 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1", &a, NULL),
	    1);
	swf_format_line(&a, buf, sizeof(buf));
	assert_string_equal(buf, "7 10 20 30 4 1.50 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1");
	assert_int_equal(swf_parse_line(buf, &b, NULL), 1);
	assert_memory_equal(&a, &b, sizeof(a));
	a.avg_cpu = -1;
	swf_format_line(&a, buf, sizeof(buf));
	assert_string_equal(buf, "7 10 20 30 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_line),
	    cmocka_unit_test(test_header),
	    cmocka_unit_test(test_clean),
	    cmocka_unit_test(test_format_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
