/* test_batch_feat.c - sbatch --batch expressions (common/batch_feat.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "common/batch_feat.h"
#include "common/constraint.h"
#include "common/common.h"

static void test_match(void **state)
{
	assert_true(batch_feat_match("knl", "haswell,knl"));
	assert_false(batch_feat_match("knl", "haswell"));
	assert_false(batch_feat_match("kn", "knl"));
	assert_false(batch_feat_match("knl", NULL));
	assert_true(batch_feat_match("haswell|broadwell", "broadwell"));
	assert_false(batch_feat_match("haswell|broadwell", "knl"));
	assert_true(batch_feat_match("haswell&big", "big,haswell"));
	assert_false(batch_feat_match("haswell&big", "haswell"));
	/* left to right, no precedence: (a|b)&c */
	assert_false(batch_feat_match("a|b&c", "a"));
	assert_true(batch_feat_match("a|b&c", "b,c"));
	assert_true(batch_feat_match("a&b|c", "c"));
	/* malformed: never */
	assert_false(batch_feat_match("", "a"));
	assert_false(batch_feat_match("a|", "a"));
	assert_false(batch_feat_match("|a", "a"));
	assert_false(batch_feat_match(NULL, "a"));
}

static void test_check(void **state)
{
	struct constraint *c = NULL;

	assert_int_equal(constraint_parse("f0|f3&big&[x|y]", &c, NULL), 0);
	assert_int_equal(batch_feat_check("f3", c), 0);
	assert_int_equal(batch_feat_check("f3|f0", c), 0);
	assert_int_equal(batch_feat_check("big&x", c), 0);
	assert_int_equal(batch_feat_check("f4", c), -EINVAL); /* not -C's */
	assert_int_equal(batch_feat_check("f3,f0", c), -EINVAL);
	assert_int_equal(batch_feat_check("(f3)", c), -EINVAL);
	assert_int_equal(batch_feat_check("f3*1", c), -EINVAL);
	assert_int_equal(batch_feat_check("f3||f0", c), -EINVAL);
	assert_int_equal(batch_feat_check("f3&", c), -EINVAL);
	assert_int_equal(batch_feat_check("", c), -EINVAL);
	assert_int_equal(batch_feat_check("f3", NULL), -EINVAL); /* no -C */
	constraint_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match),
	    cmocka_unit_test(test_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
