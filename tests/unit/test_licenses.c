/* test_licenses.c - license lists (src/common/licenses.c): names, counts,
 * Slurm's two separators, and what is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/error.h"
#include "common/licenses.h"

static void test_parse(void **state)
{
	struct lic l[LIC_MAX];
	char *s;

	assert_int_equal(lic_parse("fluent:2,ansys,matlab*3", l, 0, NULL), 3);
	assert_string_equal(l[0].name, "fluent");
	assert_int_equal(l[0].count, 2);
	assert_int_equal(l[1].count, 1);
	assert_int_equal(l[2].count, 3);
	assert_int_equal(lic_find(l, 3, "matlab"), 2);
	assert_int_equal(lic_find(l, 3, "Matlab"), -1);
	s = lic_format(l, 3);
	assert_string_equal(s, "fluent:2,ansys:1,matlab:3");
	free(s);
	assert_int_equal(lic_parse(NULL, l, 0, NULL), 0);
	assert_int_equal(lic_parse("", l, 0, NULL), 0);
	assert_int_equal(lic_parse("spare:0", l, 1, NULL), 1);
}

static void test_refused(void **state)
{
	const char *bad[] = {"a:0",   "a:x",           "a:",   ":2",    "a,,b",
	                     "a,a:2", "a:-1",          "a:2x", "a b:1", "a=1",
	                     ",",     "a:99999999999", "a,"};
	struct lic l[LIC_MAX];
	struct rota_error e = {{0}};
	char many[LIC_MAX * 4 + 8] = "";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.text[0] = '\0';
		assert_int_equal(lic_parse(bad[i], l, 0, &e), -1);
		assert_true(e.text[0] != '\0');
	}
	for (int i = 0; i <= LIC_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%sl%d",
		         i ? "," : "", i);
	assert_int_equal(lic_parse(many, l, 0, &e), -1);
	memset(many, 'n', LIC_NAME_MAX);
	many[LIC_NAME_MAX] = '\0';
	assert_int_equal(lic_parse(many, l, 0, &e), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
