/* test_hostlist.c - hostlist_expand / hostlist_compress. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/hostlist.h"
#include "common/common.h"

/* Expand expr and compare with the comma-joined expected names. */
static void expect_expand(const char *expr, const char *joined)
{
	struct rota_error err = {{0}};
	char **names = NULL;
	size_t n = 0;
	char buf[4096] = "";
	size_t off = 0;
	int rc = hostlist_expand(expr, &names, &n, &err);

	if (rc)
		fail_msg("expand '%s' failed: %d %s", expr, rc, err.text);
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
		                        i ? "," : "", names[i]);
	assert_null(names[n]);
	assert_string_equal(buf, joined);
	hostlist_free(names);
}

/* Expansion fails with rc and err mentioning what. */
static void expect_fail(const char *expr, int rc_want, const char *what)
{
	struct rota_error err = {{0}};
	char **names = (char **)0x1;
	size_t n = 12345;
	int rc = hostlist_expand(expr, &names, &n, &err);

	if (rc != rc_want)
		fail_msg("expand '%s': rc %d, wanted %d (%s)", expr ? expr : "(null)", rc,
		         rc_want, err.text);
	/* outputs untouched on failure */
	assert_ptr_equal(names, (char **)0x1);
	assert_int_equal(n, 12345);
	if (what && !strstr(err.text, what))
		fail_msg("expand '%s': error '%s' lacks '%s'", expr, err.text, what);
}

static void test_expand_plain(void **state)
{
	expect_expand("node01", "node01");
	expect_expand("a,b,c", "a,b,c");
	expect_expand("login-1.example.com", "login-1.example.com");
}

static void test_expand_padding(void **state)
{
	expect_expand("node[01-04,07]", "node01,node02,node03,node04,node07");
	expect_expand("n[08-11]", "n08,n09,n10,n11");
	expect_expand("n[9-11]", "n9,n10,n11");
	expect_expand("n[001-002,5]", "n001,n002,n5");
	expect_expand("n[0-1]", "n0,n1");
	expect_expand("n[00-01]", "n00,n01");
	expect_expand("[1-2]", "1,2");
}

static void test_expand_suffix_and_product(void **state)
{
	expect_expand("node[1-2]-ib", "node1-ib,node2-ib");
	expect_expand("rack[0-1]_blade[2,3]",
	              "rack0_blade2,rack0_blade3,rack1_blade2,rack1_blade3");
	expect_expand("a[1-2]b[3]c[4-5]", "a1b3c4,a1b3c5,a2b3c4,a2b3c5");
	/* Slurm's order: the last group fastest, then the first, ... */
	expect_expand("row[0,1]_rack[2-3]_blade[4,5]",
	              "row0_rack2_blade4,row0_rack2_blade5,row1_rack2_blade4,"
	              "row1_rack2_blade5,row0_rack3_blade4,row0_rack3_blade5,"
	              "row1_rack3_blade4,row1_rack3_blade5");
}

static void test_expand_list(void **state)
{
	expect_expand("a,b[1-2],c", "a,b1,b2,c");
	expect_expand("x[1,3],y[01-02]", "x1,x3,y01,y02");
	/* duplicates are kept, order is as written */
	expect_expand("b,a,b", "b,a,b");
}

static void test_expand_malformed(void **state)
{
	expect_fail(NULL, -EINVAL, "empty");
	expect_fail("", -EINVAL, "empty");
	expect_fail("node[01-02", -EINVAL, "unbalanced '['");
	expect_fail("node01-02]", -EINVAL, "unbalanced ']'");
	expect_fail("node[[1]]", -EINVAL, "unbalanced");
	expect_fail("node[5-2]", -EINVAL, "bad range '5-2'");
	expect_fail("node[]", -EINVAL, "empty brackets");
	expect_fail("node[a-b]", -EINVAL, "bad range");
	expect_fail("node[1-2-3]", -EINVAL, "bad range");
	expect_fail("node[1,]", -EINVAL, "bad range");
	expect_fail("node[-1]", -EINVAL, "bad range");
	expect_fail("node[ 1]", -EINVAL, "bad range");
	expect_fail("a,,b", -EINVAL, "empty host name");
	expect_fail("a,", -EINVAL, "empty host name");
	expect_fail(",a", -EINVAL, "empty host name");
	expect_fail("a b", -EINVAL, "bad character");
	expect_fail("n[1234567890123456789]", -EINVAL, "bad range");
}

static void test_expand_limits(void **state)
{
	struct rota_error err = {{0}};
	char **names = NULL;
	size_t n = 0;

	assert_int_equal(hostlist_expand("n[0-65535]", &names, &n, &err), 0);
	assert_int_equal(n, HOSTLIST_MAX);
	assert_string_equal(names[65535], "n65535");
	hostlist_free(names);
	expect_fail("n[0-65536]", -E2BIG, "more than 65536");
	expect_fail("n[1-999999999999]", -E2BIG, "more than");
	expect_fail("a[0-999]b[0-999]", -E2BIG, "more than");
	expect_fail("a[0-40000],b[0-40000]", -E2BIG, "more than");
	expect_fail("n[1-40000,1-40000]", -E2BIG, "more than");
	hostlist_free(NULL);
}

static void expect_compress(const char *joined, const char *want)
{
	char *copy = strdup(joined), *names[64], *s = copy, *got;
	size_t n = 0;

	while (*joined && s) {
		names[n++] = s;
		s = strchr(s, ',');
		if (s)
			*s++ = '\0';
	}
	got = hostlist_compress(names, n);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	free(copy);
}

static void test_compress(void **state)
{
	expect_compress("node01,node02,node03,node07", "node[01-03,07]");
	expect_compress("node01", "node01");
	expect_compress("a,b,c", "a,b,c");
	expect_compress("a,b1,b2,c", "a,b[1-2],c");
	expect_compress("rack0_blade2,rack0_blade3,rack1_blade2,rack1_blade3",
	                "rack0_blade[2-3],rack1_blade[2-3]");
	expect_compress("n9,n10,n11", "n[9-11]");
	expect_compress("n08,n09,n10", "n[08-10]");
	expect_compress("n10,n09", "n[10,09]");
	expect_compress("n1,n01", "n1,n01");
	expect_compress("n01,n1", "n01,n1");
	expect_compress("n3,n2,n1", "n[3,2,1]");
	expect_compress("n1-ib,n2-ib,n3", "n[1-2]-ib,n3");
	expect_compress("n1,m2,n3", "n1,m2,n3");
	expect_compress("n1,n1", "n[1,1]");
	expect_compress("", "");
}

static void test_round_trip(void **state)
{
	static const char *const canon[] = {
	    "node[01-04,07]",
	    "n[1-3,5]",
	    "a,b[1-2],c",
	    "node01",
	    "n[9-11]",
	    "n[098-100]",
	    "x[1-2]y",
	    "a,b,c",
	    "n[1-3]-ib,m[7-8]",
	    "gpu[001-128]",
	    "login1,node[1-9,11-19]",
	};

	for (size_t i = 0; i < sizeof(canon) / sizeof(canon[0]); i++) {
		struct rota_error err = {{0}};
		char **names = NULL, *back;
		size_t n = 0;

		assert_int_equal(hostlist_expand(canon[i], &names, &n, &err), 0);
		back = hostlist_compress(names, n);
		assert_non_null(back);
		assert_string_equal(back, canon[i]);
		free(back);
		hostlist_free(names);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expand_plain),
	    cmocka_unit_test(test_expand_padding),
	    cmocka_unit_test(test_expand_suffix_and_product),
	    cmocka_unit_test(test_expand_list),
	    cmocka_unit_test(test_expand_malformed),
	    cmocka_unit_test(test_expand_limits),
	    cmocka_unit_test(test_compress),
	    cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
