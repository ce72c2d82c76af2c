/* test_fmtspec.c - squeue/sinfo format strings, and cells printed with them
 * (fmtrow.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/fmtrow.h"
#include "common/fmtspec.h"
#include "common/common.h"

static struct fmtspec *parse_ok(const char *fmt)
{
	struct rota_error err = {{0}};
	struct fmtspec *spec = NULL;

	if (fmtspec_parse(fmt, &spec, &err))
		fail_msg("fmtspec_parse(%s): %s", fmt, err.text);
	return spec;
}

static struct fmtspec *parse_long_ok(const char *fmt)
{
	struct rota_error err = {{0}};
	struct fmtspec *spec = NULL;

	if (fmtspec_parse_long(fmt, 20, &spec, &err))
		fail_msg("fmtspec_parse_long(%s): %s", fmt, err.text);
	return spec;
}

/* Render one row the way the CLIs do: prefix, then each field's value padded and
 * cut, then its suffix.  values[i] is the value of item i.  Caller frees. */
static char *render(const struct fmtspec *spec, const char *const *values)
{
	struct fmtbuf b = {0};
	char *out;

	fmtbuf_put(&b, spec->prefix, strlen(spec->prefix));
	for (size_t i = 0; i < spec->count; i++) {
		fmt_cell_append(&b, values[i], spec->items[i].width,
		                spec->items[i].flags);
		fmtbuf_put(&b, spec->items[i].suffix, strlen(spec->items[i].suffix));
	}
	out = strndup(b.data ? b.data : "", b.len);
	fmtbuf_release(&b);
	return out;
}

static char *put(const char *s, int width, int flags)
{
	struct fmtbuf b = {0};
	char *out;

	fmt_cell_append(&b, s, width, flags);
	out = strndup(b.data ? b.data : "", b.len);
	fmtbuf_release(&b);
	return out;
}

static void expect_put(const char *s, int width, int flags, const char *want)
{
	char *got = put(s, width, flags);

	assert_string_equal(got, want);
	free(got);
}

static void test_parse_squeue_default(void **state)
{
	struct fmtspec *spec = parse_ok("%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R");
	static const char letters[] = "iPjutMDR";
	static const int widths[] = {18, 9, 8, 8, 2, 10, 6, 0};

	assert_string_equal(spec->prefix, "");
	assert_int_equal(spec->count, 8);
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(spec->items[i].letter, letters[i]);
		assert_int_equal(spec->items[i].width, widths[i]);
		assert_int_equal(spec->items[i].flags & FMTSPEC_RIGHT,
		                 i < 7 ? FMTSPEC_RIGHT : 0);
		assert_null(spec->items[i].name);
		assert_string_equal(spec->items[i].suffix, i < 7 ? " " : "");
	}
	fmtspec_destroy(spec);
}

static void test_render_squeue_header(void **state)
{
	struct fmtspec *spec = parse_ok("%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R");
	static const char *const hdr[] = {
	    "JOBID", "PARTITION", "NAME",  "USER",
	    "ST",    "TIME",      "NODES", "NODELIST(REASON)"};
	static const char *const row[] = {
	    "42", "debug", "a_very_long_name", "alice", "PD", "0:00", "1", "(Resources)"};
	char *s = render(spec, hdr);

	assert_string_equal(
	    s, "             JOBID PARTITION     NAME     USER ST       TIME "
	       " NODES NODELIST(REASON)");
	free(s);
	s = render(spec, row);
	/* the name is cut to its 8 leftmost bytes even though it is right-justified */
	assert_string_equal(
	    s, "                42     debug a_very_l    alice PD       0:00 "
	       "     1 (Resources)");
	free(s);
	fmtspec_destroy(spec);
}

static void test_parse_prefix_suffix_percent(void **state)
{
	struct fmtspec *spec = parse_ok("id=%i|%5t%% done%-4M");

	assert_string_equal(spec->prefix, "id=");
	assert_int_equal(spec->count, 3);
	assert_int_equal(spec->items[0].letter, 'i');
	assert_int_equal(spec->items[0].width, 0);
	assert_string_equal(spec->items[0].suffix, "|");
	assert_int_equal(spec->items[1].letter, 't');
	assert_int_equal(spec->items[1].width, 5);
	assert_int_equal(spec->items[1].flags, 0);
	assert_string_equal(spec->items[1].suffix, "% done");
	assert_int_equal(spec->items[2].letter, 'M');
	assert_int_equal(spec->items[2].width, 4);
	assert_int_equal(spec->items[2].flags, 0);
	assert_string_equal(spec->items[2].suffix, "");
	fmtspec_destroy(spec);

	/* Nextflow's two columns */
	spec = parse_ok("%i %t");
	{
		static const char *const v[] = {"17", "R"};
		char *s = render(spec, v);

		assert_string_equal(s, "17 R");
		free(s);
	}
	fmtspec_destroy(spec);

	/* literal text only */
	spec = parse_ok("100%% literal");
	assert_int_equal(spec->count, 0);
	assert_string_equal(spec->prefix, "100% literal");
	fmtspec_destroy(spec);
}

static void test_parse_errors(void **state)
{
	struct rota_error err = {{0}};
	struct fmtspec *spec = NULL;
	char *big;

	assert_int_equal(fmtspec_parse("", &spec, &err), -EINVAL);
	assert_int_equal(fmtspec_parse(NULL, &spec, &err), -EINVAL);
	assert_int_equal(fmtspec_parse("%i %", &spec, &err), -EINVAL);
	assert_non_null(strstr(err.text, "letter"));
	assert_int_equal(fmtspec_parse("%.", &spec, &err), -EINVAL);
	assert_int_equal(fmtspec_parse("%99999i", &spec, &err), -EINVAL);
	assert_non_null(strstr(err.text, "width"));
	assert_null(spec);

	big = malloc(FMTSPEC_MAX_LEN + 2);
	memset(big, 'x', FMTSPEC_MAX_LEN + 1);
	big[FMTSPEC_MAX_LEN + 1] = '\0';
	assert_int_equal(fmtspec_parse(big, &spec, &err), -EINVAL);
	/* 257 fields */
	for (int i = 0; i < 257; i++)
		memcpy(big + 2 * i, "%i", 2);
	big[514] = '\0';
	assert_int_equal(fmtspec_parse(big, &spec, &err), -EINVAL);
	assert_non_null(strstr(err.text, "fields"));
	big[512] = '\0';
	assert_int_equal(fmtspec_parse(big, &spec, &err), 0);
	assert_int_equal(spec->count, 256);
	fmtspec_destroy(spec);
	free(big);
}

static void test_parse_long(void **state)
{
	struct fmtspec *spec =
	    parse_long_ok("JobID,State:.10,Name:5|,UserName:,,TimeUsed:-3");

	assert_string_equal(spec->prefix, "");
	assert_int_equal(spec->count, 5);
	assert_int_equal(spec->items[0].letter, 0);
	assert_string_equal(spec->items[0].name, "JobID");
	assert_int_equal(spec->items[0].width, 20);
	assert_int_equal(spec->items[0].flags, 0);
	assert_string_equal(spec->items[0].suffix, "");
	assert_string_equal(spec->items[1].name, "State");
	assert_int_equal(spec->items[1].width, 10);
	assert_int_equal(spec->items[1].flags, FMTSPEC_RIGHT);
	assert_string_equal(spec->items[2].name, "Name");
	assert_int_equal(spec->items[2].width, 5);
	assert_string_equal(spec->items[2].suffix, "|");
	assert_string_equal(spec->items[3].name, "UserName");
	assert_int_equal(spec->items[3].width, 0);
	assert_string_equal(spec->items[4].name, "TimeUsed");
	assert_int_equal(spec->items[4].width, 0);
	assert_string_equal(spec->items[4].suffix, "-3");
	{
		static const char *const v[] = {"123", "RUNNING", "sleeper", "bob",
		                                "1:00"};
		char *s = render(spec, v);

		assert_string_equal(s, "123                    RUNNINGsleep|bob1:00-3");
		free(s);
	}
	fmtspec_destroy(spec);
}

static void test_parse_long_errors(void **state)
{
	struct rota_error err = {{0}};
	struct fmtspec *spec = NULL;

	assert_int_equal(fmtspec_parse_long(",,", 20, &spec, &err), -EINVAL);
	assert_int_equal(fmtspec_parse_long("", 20, &spec, &err), -EINVAL);
	assert_int_equal(fmtspec_parse_long("JobID:123456789012", 20, &spec, &err),
	                 -EINVAL);
	assert_int_equal(fmtspec_parse_long("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	                                    "AAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	                                    20, &spec, &err),
	                 -EINVAL);
	assert_null(spec);
}

static void test_put(void **state)
{
	expect_put("abc", 0, 0, "abc");
	expect_put("abc", 5, 0, "abc  ");
	expect_put("abc", 5, FMTSPEC_RIGHT, "  abc");
	expect_put("abcdef", 4, 0, "abcd");
	expect_put("abcdef", 4, FMTSPEC_RIGHT, "abcd");
	expect_put("abcdef", 4, FMTSPEC_NOCUT, "abcdef");
	expect_put("abcdef", 4, FMTSPEC_NOCUT | FMTSPEC_RIGHT, "abcdef");
	expect_put("ab", 4, FMTSPEC_NOCUT | FMTSPEC_RIGHT, "  ab");
	expect_put(NULL, 8, 0, "(null)  ");
	expect_put("", 3, 0, "   ");
	expect_put("", 0, 0, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_squeue_default),
	    cmocka_unit_test(test_render_squeue_header),
	    cmocka_unit_test(test_parse_prefix_suffix_percent),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_parse_long),
	    cmocka_unit_test(test_parse_long_errors),
	    cmocka_unit_test(test_put),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
