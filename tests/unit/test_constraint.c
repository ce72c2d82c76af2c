/* test_constraint.c - node feature expressions (--constraint). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/constraint.h"
#include "common/common.h"

static struct constraint *parse_ok(const char *spec)
{
	struct constraint *c = NULL;
	struct rota_error err = {{0}};

	if (constraint_parse(spec, &c, &err) < 0)
		fail_msg("parse '%s' failed: %s", spec, err.text);
	return c;
}

/* spec against a node with features: expected result (no matching OR). */
static void expect_match(const char *spec, const char *features, int want)
{
	struct constraint *c = parse_ok(spec);

	if (constraint_match(c, 0, features) != want)
		fail_msg("'%s' on '%s': want %d", spec, features ? features : "(none)",
		         want);
	constraint_destroy(c);
}

static void expect_invalid(const char *spec, const char *why)
{
	struct constraint *c = (struct constraint *)0x1;
	struct rota_error err = {{0}};

	assert_int_equal(constraint_parse(spec, &c, &err), -EINVAL);
	assert_ptr_equal(c, (struct constraint *)0x1); /* untouched */
	if (!strstr(err.text, why))
		fail_msg("'%s': error '%s' lacks '%s'", spec, err.text, why);
}

static void test_feature_list(void **state)
{
	assert_true(feature_list_has("gpu,bigmem", "gpu"));
	assert_true(feature_list_has("gpu,bigmem", "bigmem"));
	assert_false(feature_list_has("gpu,bigmem", "big"));
	assert_false(feature_list_has("gpus", "gpu"));
	assert_false(feature_list_has(NULL, "gpu"));
	assert_false(feature_list_has("", "gpu"));
}

static void test_and_or(void **state)
{
	expect_match("gpu", "gpu,bigmem", 1);
	expect_match("gpu", "bigmem", 0);
	expect_match("gpu", NULL, 0);
	expect_match("gpu&bigmem", "gpu,bigmem", 1);
	expect_match("gpu&bigmem", "gpu", 0);
	expect_match("gpu,bigmem", "gpu", 0); /* ',' is AND too */
	expect_match("gpu,bigmem", "bigmem,gpu", 1);
	expect_match("gpu|bigmem", "bigmem", 1);
	expect_match("gpu|bigmem", "ib", 0);
	/* left to right, no precedence: (a|b)&c */
	expect_match("a|b&c", "a", 0);
	expect_match("a|b&c", "a,c", 1);
	expect_match("a&b|c", "c", 1); /* (a&b)|c */
	/* parentheses */
	expect_match("a|(b&c)", "a", 1);
	expect_match("a|(b&c)", "b", 0);
	expect_match("a|(b&c)", "b,c", 1);
	expect_match("(a|b)&(c|d)", "b,d", 1);
	expect_match("(a|b)&(c|d)", "b", 0);
	expect_match("((x))", "x", 1);
	expect_match("rack-1.a_b", "rack-1.a_b", 1);
}

static void test_matching_or(void **state)
{
	struct constraint *c = parse_ok("[rack1|rack2|(rack3&ib)]");

	assert_int_equal(constraint_alternatives(c), 3);
	assert_true(constraint_match(c, 0, "rack1"));
	assert_false(constraint_match(c, 1, "rack1"));
	assert_true(constraint_match(c, 1, "rack2,ib"));
	assert_false(constraint_match(c, 2, "rack3"));
	assert_true(constraint_match(c, 2, "rack3,ib"));
	assert_true(constraint_match_any(c, "rack2"));
	assert_false(constraint_match_any(c, "rack4"));
	constraint_destroy(c);

	c = parse_ok("gpu&[a|b]");
	assert_int_equal(constraint_alternatives(c), 2);
	assert_true(constraint_match(c, 1, "gpu,b"));
	assert_false(constraint_match(c, 0, "gpu,b"));
	assert_false(constraint_match(c, 1, "b"));
	constraint_destroy(c);

	c = parse_ok("gpu");
	assert_int_equal(constraint_alternatives(c), 1);
	constraint_destroy(NULL);
	constraint_destroy(c);
}

static void test_names(void **state)
{
	struct constraint *c = parse_ok("a&(b|c),[d|e]");
	const char *const *names;

	assert_int_equal(constraint_names(c, &names), 5);
	assert_string_equal(names[0], "a");
	assert_string_equal(names[2], "c");
	assert_string_equal(names[4], "e");
	constraint_destroy(c);
}

static void test_counts(void **state)
{
	struct constraint *c = parse_ok("gpu*2");
	struct constraint_count cc;

	assert_int_equal(constraint_counts(c), 1);
	cc = constraint_count(c, 0);
	assert_int_equal(cc.nodes, 2);
	assert_false(cc.own);
	/* a counted term filters no node; it is counted apart */
	assert_true(constraint_match(c, 0, "bigmem"));
	assert_true(constraint_count_match(c, 0, "gpu,bigmem"));
	assert_false(constraint_count_match(c, 0, "bigmem"));
	assert_int_equal(constraint_count_nodes(c), 2);
	constraint_destroy(c);

	/* ANDed with the rest: every node has ib, at least 3 of them gpu */
	c = parse_ok("ib&gpu*3,(a&b)*1");
	assert_int_equal(constraint_counts(c), 2);
	assert_false(constraint_match(c, 0, "gpu"));
	assert_true(constraint_match(c, 0, "ib"));
	assert_true(constraint_count_match(c, 1, "a,b"));
	assert_false(constraint_count_match(c, 1, "a"));
	assert_int_equal(constraint_count_nodes(c), 3);
	constraint_destroy(c);

	/* left to right: (a|b)&c*2 */
	c = parse_ok("a|b&c*2");
	assert_true(constraint_match(c, 0, "b"));
	assert_false(constraint_match(c, 0, "c"));
	constraint_destroy(c);

	/* [..&..]: each on nodes of its own */
	c = parse_ok("[(f0&f2)*2&f1*1]");
	assert_int_equal(constraint_alternatives(c), 1);
	assert_int_equal(constraint_counts(c), 2);
	assert_true(constraint_count(c, 0).own);
	assert_int_equal(constraint_count(c, 1).nodes, 1);
	assert_true(constraint_count_match(c, 0, "f0,f2,f4"));
	assert_false(constraint_count_match(c, 0, "f0"));
	assert_true(constraint_match(c, 0, "f3"));
	assert_int_equal(constraint_count_nodes(c), 3);
	constraint_destroy(c);

	/* with a matching OR: counts apart, alternatives as before */
	c = parse_ok("[a|b]&c*2");
	assert_int_equal(constraint_alternatives(c), 2);
	assert_true(constraint_match(c, 1, "b"));
	assert_int_equal(constraint_counts(c), 1);
	constraint_destroy(c);

	c = parse_ok("gpu");
	assert_int_equal(constraint_counts(c), 0);
	assert_int_equal(constraint_count_nodes(c), 0);
	constraint_destroy(c);
}

static void test_invalid(void **state)
{
	char big[CONSTRAINT_MAX_LEN + 2];
	size_t len = 0;

	expect_invalid("", "empty");
	expect_invalid("a&", "missing at the end");
	expect_invalid("&a", "unexpected '&' at position 1");
	expect_invalid("a||b", "unexpected '|' at position 3");
	expect_invalid("a b", "unexpected ' ' at position 2");
	expect_invalid("(a|b", "missing ')'");
	expect_invalid("a)", "unexpected ')'");
	expect_invalid("[a|b", "missing ']'");
	expect_invalid("[a&b]", "needs a node count");
	expect_invalid("[a*1&b]", "needs a node count");
	expect_invalid("[a*1|b*1]", "takes no node counts");
	expect_invalid("[a*1&b*1|c*1]", "mixes");
	expect_invalid("[a|b]*2", "takes no node count");
	expect_invalid("a*2|b", "may only be ANDed");
	expect_invalid("b|a*2", "may only be ANDed");
	expect_invalid("a*2&b|c", "may only be ANDed");
	expect_invalid("a|[b*1&c*1]", "may only be ANDed");
	expect_invalid("(a*2&b)", "inside parentheses");
	expect_invalid("a*", "missing at position 3");
	expect_invalid("a*x", "missing at position 3");
	expect_invalid("a*0", "out of range");
	expect_invalid("a*100001", "out of range");
	expect_invalid("a*99999999999999999999", "out of range");
	expect_invalid("[a|b]&[c|d]", "only one");
	expect_invalid("([a|b])", "inside parentheses");
	expect_invalid("((((((((((((((((((a))))))))))))))))))", "nested too deep");

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect_invalid(big, "longer than");
	for (unsigned i = 0; i <= CONSTRAINT_MAX_TERMS && len < sizeof(big) - 8; i++)
		len += (size_t)snprintf(big + len, sizeof(big) - len, "%sf%u",
		                        i ? "|" : "", i);
	expect_invalid(big, "too many");
	len = 0;
	for (unsigned i = 0; i <= CONSTRAINT_MAX_COUNTS; i++)
		len += (size_t)snprintf(big + len, sizeof(big) - len, "%sf%u*1",
		                        i ? "&" : "", i);
	expect_invalid(big, "too many node counts");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_feature_list), cmocka_unit_test(test_and_or),
	    cmocka_unit_test(test_matching_or),  cmocka_unit_test(test_names),
	    cmocka_unit_test(test_counts),       cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
