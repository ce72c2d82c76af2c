/* test_depspec.c - job dependency specifications. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/depspec.h"
#include "common/common.h"

/* Parse spec and compare its display form (no status). */
static void expect_spec(const char *spec, const char *formatted)
{
	struct depspec *d = NULL;
	struct rota_error err = {{0}};
	char *s;

	if (depspec_parse(spec, &d, &err) < 0)
		fail_msg("parse '%s' failed: %s", spec, err.text);
	s = depspec_format(d, NULL);
	assert_non_null(s);
	assert_string_equal(s, formatted);
	free(s);
	depspec_destroy(d);
}

static void expect_invalid(const char *spec, const char *why)
{
	struct depspec *d = (struct depspec *)0x1;
	struct rota_error err = {{0}};

	assert_int_equal(depspec_parse(spec, &d, &err), -EINVAL);
	assert_ptr_equal(d, (struct depspec *)0x1); /* untouched */
	if (!strstr(err.text, why))
		fail_msg("'%s': error '%s' lacks '%s'", spec, err.text, why);
}

static void test_forms(void **state)
{
	expect_spec("afterok:12", "afterok:12");
	expect_spec("after:12+5:13", "after:12+5,after:13");
	expect_spec("afterany:1,afternotok:2", "afterany:1,afternotok:2");
	expect_spec("afterok:1?afternotok:2", "afterok:1?afternotok:2");
	expect_spec("singleton", "singleton");
	expect_spec("SINGLETON,afterok:3", "singleton,afterok:3");
	expect_spec("aftercorr:7", "aftercorr:7");
	expect_spec("afterok:123_4:123_*", "afterok:123_4,afterok:123");
	expect_spec("12:13", "afterany:12,afterany:13"); /* the old form */
}

static void test_items(void **state)
{
	struct depspec *d = NULL;

	assert_int_equal(depspec_parse("after:5_2+10?singleton", &d, NULL), 0);
	assert_int_equal(d->n, 2);
	assert_true(d->any);
	assert_int_equal(d->items[0].type, DEPSPEC_AFTER);
	assert_int_equal(d->items[0].job_id, 5);
	assert_int_equal(d->items[0].task_id, 2);
	assert_int_equal(d->items[0].minutes, 10);
	assert_int_equal(d->items[1].type, DEPSPEC_SINGLETON);
	depspec_destroy(d);
	depspec_destroy(NULL);
}

static void test_status(void **state)
{
	struct depspec *d = NULL;
	const char *st[] = {"unfulfilled", NULL, "failed"};
	char *s;

	assert_int_equal(depspec_parse("afterok:1:2,singleton", &d, NULL), 0);
	s = depspec_format(d, st);
	assert_string_equal(s, "afterok:1(unfulfilled),afterok:2,singleton(failed)");
	free(s);
	depspec_destroy(d);
}

static void test_invalid(void **state)
{
	char big[DEPSPEC_MAX_LEN + 16];
	size_t len = 0;

	expect_invalid("", "empty");
	expect_invalid(NULL, "empty");
	expect_invalid("afterok", "needs a job id");
	expect_invalid("afterok:", "needs a job id");
	expect_invalid("afterok:x", "invalid job id");
	expect_invalid("afterok:0", "invalid job id");
	expect_invalid("afterok:1:", "invalid dependency");
	expect_invalid("afterok:1,", "empty dependency element");
	expect_invalid("afterok:1,afterok:2?afterok:3", "mix");
	expect_invalid("afterok:1?afterok:2,afterok:3", "mix");
	expect_invalid("afterburstbuffer:1", "afterburstbuffer");
	expect_invalid("before:1", "unknown dependency type");
	expect_invalid("singleton:1", "singleton takes no job ids");
	expect_invalid("after:1+", "invalid time");
	expect_invalid("after:1+x", "invalid time");
	expect_invalid("after:1+999999999", "invalid time");
	expect_invalid("afterok:99999999999", "invalid job id");
	expect_invalid("afterok:1_x", "invalid array task id");
	expect_invalid("afterok:1x", "invalid dependency");

	/* bounds: length, then item count */
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect_invalid(big, "longer than");
	len = (size_t)snprintf(big, sizeof(big), "afterok:1");
	for (unsigned i = 2; i <= DEPSPEC_MAX_ITEMS + 1 && len < sizeof(big) - 16; i++)
		len += (size_t)snprintf(big + len, sizeof(big) - len, ":%u", i);
	expect_invalid(big, "more than");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forms),
	    cmocka_unit_test(test_items),
	    cmocka_unit_test(test_status),
	    cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
