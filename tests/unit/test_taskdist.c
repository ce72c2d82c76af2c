/* test_taskdist.c - srun -m: parsing, plane counts and task numbering. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/common.h"
#include "common/hostfile.h"
#include "common/hostlist.h"
#include "common/taskdist.h"

static uint32_t parse_ok(const char *s, uint32_t plane)
{
	struct rota_error err = {{0}};
	uint32_t d = 0;

	if (taskdist_parse(s, plane, &d, &err) < 0)
		fail_msg("'%s' refused: %s", s, err.text);
	return d;
}

static void test_parse(void **state)
{
	struct rota_error err = {{0}};
	uint32_t d;

	(void)state;
	assert_int_equal(parse_ok("block", 0), TASKDIST_BLOCK);
	assert_int_equal(parse_ok("Cyclic", 0), TASKDIST_CYCLIC);
	assert_int_equal(parse_ok("cyclic:block", 0), TASKDIST_CYCLIC);
	assert_int_equal(parse_ok("*:cyclic:fcyclic,NoPack", 0), TASKDIST_BLOCK);
	assert_int_equal(parse_ok("block,Pack", 0), TASKDIST_BLOCK);
	assert_int_equal(parse_ok("Pack", 0), TASKDIST_BLOCK);
	assert_int_equal(parse_ok("nopack", 0), TASKDIST_BLOCK);
	d = parse_ok("plane=4", 0);
	assert_int_equal(TASKDIST_TYPE(d), TASKDIST_PLANE);
	assert_int_equal(TASKDIST_PLANE_SIZE(d), 4);
	assert_int_equal(TASKDIST_PLANE_SIZE(parse_ok("plane", 3)), 3);
	assert_string_equal(taskdist_name(d), "plane");
	const char *bad[] = {"",
	                     "round",
	                     "plane",
	                     "plane=0",
	                     "plane=x",
	                     "cyclic=2",
	                     "block:dealt",
	                     "block:block:block:block",
	                     "block,tight",
	                     "arbitrary=2",
	                     "cyclic:"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (taskdist_parse(bad[i], 0, &d, &err) == 0)
			fail_msg("'%s' accepted", bad[i]);
}

static void expect_gtids(uint32_t d, const uint32_t *tpn, uint32_t n, const char *want)
{
	uint32_t total = 0, out[64];
	char got[256] = "";

	for (uint32_t i = 0; i < n; i++)
		total += tpn[i];
	taskdist_gtids(d, tpn, n, out);
	for (uint32_t t = 0; t < total; t++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u",
		         t ? "," : "", out[t]);
	assert_string_equal(got, want);
}

static void test_gtids(void **state)
{
	(void)state;
	expect_gtids(TASKDIST_BLOCK, (uint32_t[]){2, 2}, 2, "0,1,2,3");
	expect_gtids(TASKDIST_CYCLIC, (uint32_t[]){2, 2}, 2, "0,2,1,3");
	expect_gtids(TASKDIST_CYCLIC, (uint32_t[]){3, 1, 2}, 3, "0,3,5,1,2,4");
	expect_gtids(TASKDIST_PLANE | 2u << 8, (uint32_t[]){4, 2}, 2, "0,1,4,5,2,3");
	expect_gtids(TASKDIST_PLANE | 4u << 8, (uint32_t[]){4, 2}, 2, "0,1,2,3,4,5");
}

static void expect_counts(uint32_t plane, uint32_t ntasks, uint32_t n,
                          const uint32_t *cap, const uint32_t *want)
{
	uint32_t out[8];

	taskdist_plane_counts(TASKDIST_PLANE | plane << 8, ntasks, n, cap, out);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(out[i], want[i]);
}

static void test_plane_counts(void **state)
{
	(void)state;
	/* Slurm's: one on each node first, then blocks as far as there is room */
	expect_counts(4, 6, 2, (uint32_t[]){4, 4}, (uint32_t[]){4, 2});
	expect_counts(2, 2, 2, (uint32_t[]){4, 4}, (uint32_t[]){1, 1});
	expect_counts(4, 5, 3, (uint32_t[]){4, 4, 4}, (uint32_t[]){3, 1, 1});
	expect_counts(4, 4, 2, (uint32_t[]){7, 1}, (uint32_t[]){3, 1});
	expect_counts(2, 11, 3, (uint32_t[]){9, 9, 9}, (uint32_t[]){4, 4, 3});
	expect_counts(4, 8, 2, (uint32_t[]){2, 8}, (uint32_t[]){2, 6});
	/* more than room (-O): over every node, blocks in turn */
	expect_counts(2, 6, 2, (uint32_t[]){1, 1}, (uint32_t[]){3, 3});
}

static void test_arbitrary_map(void **state)
{
	uint32_t d = parse_ok("arbitrary", 0), out[5];

	(void)state;
	assert_int_equal(TASKDIST_TYPE(d), TASKDIST_ARBITRARY);
	assert_string_equal(taskdist_name(d), "arbitrary");
	/* tasks on nodes 1,0,1,2,2: node 0 runs 1, node 1 runs 0 and 2 */
	taskdist_gtids_map(d, (uint32_t[]){1, 2, 2}, 3, (uint32_t[]){1, 0, 1, 2, 2}, 5,
	                   out);
	assert_memory_equal(out, ((uint32_t[]){1, 0, 2, 3, 4}), sizeof(out));
	/* a map that is not a layout of the counts: as block */
	taskdist_gtids_map(d, (uint32_t[]){1, 2, 2}, 3, (uint32_t[]){1, 1, 1, 2, 2}, 5,
	                   out);
	assert_memory_equal(out, ((uint32_t[]){0, 1, 2, 3, 4}), sizeof(out));
	taskdist_gtids_map(d, (uint32_t[]){2, 2}, 2, (uint32_t[]){0, 5, 1, 1}, 4, out);
	assert_memory_equal(out, ((uint32_t[]){0, 1, 2, 3}), 4 * sizeof(uint32_t));
	taskdist_gtids_map(d, (uint32_t[]){2}, 1, NULL, 0, out);
	assert_memory_equal(out, ((uint32_t[]){0, 1}), 2 * sizeof(uint32_t));
}

static void expect_hosts(const char *text, size_t max, const char *want)
{
	struct rota_error err = {{0}};
	char **names = NULL, *got;
	size_t n = 0;

	if (hostfile_parse(text, "f", max, &names, &n, &err) < 0)
		fail_msg("'%s' refused: %s", text, err.text);
	got = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *t = xasprintf("%s%s%s", got, i ? " " : "", names[i]);
		free(got);
		got = t;
	}
	assert_string_equal(got, want);
	free(got);
	hostlist_free(names);
}

static void test_hostfile(void **state)
{
	struct rota_error err = {{0}};
	char **names = NULL;
	size_t n = 0;

	(void)state;
	expect_hosts("n2\nn1\nn2\n", 0, "n2 n1 n2");
	expect_hosts("# all\n\nn1, n2 # two\nn3*3\nn[4-5]\n", 0, "n1 n2 n3 n3 n3 n4 n5");
	expect_hosts("n[1,3],n2\n", 0, "n1 n3 n2");
	expect_hosts("n1\nn2\nn3\n", 2, "n1 n2");
	expect_hosts("a\\#b\n", 0, "a#b");
	assert_int_equal(hostfile_parse("n1\n", "f", 2, &names, &n, &err), -1);
	assert_non_null(strstr(err.text, "fewer"));
	assert_int_equal(hostfile_parse("-n1\n", "f", 0, &names, &n, &err), -1);
	assert_string_equal(err.text, "Invalid hostfile f contents on line 1");
	assert_int_equal(hostfile_parse("n1\n\n-n2\n", "f", 0, &names, &n, &err), -1);
	assert_string_equal(err.text, "Invalid hostfile f contents on line 3");
	assert_int_equal(hostfile_parse("# none\n", "f", 0, &names, &n, &err), -1);
	assert_int_equal(hostfile_parse("n1*0\n", "f", 0, &names, &n, &err), -1);
	assert_int_equal(hostfile_parse("n1*99999999\n", "f", 0, &names, &n, &err), -1);
	assert_int_equal(hostfile_read("/nonexistent/f", 0, &names, &n, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),        cmocka_unit_test(test_gtids),
	    cmocka_unit_test(test_plane_counts), cmocka_unit_test(test_arbitrary_map),
	    cmocka_unit_test(test_hostfile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
