/* test_topo_conf.c - topology.conf (common/topo_conf.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/topo_conf.h"

static struct topo_conf *load_ok(const char *text, enum topo_kind kind)
{
	struct rota_error err = {{0}};
	struct topo_conf *tc = NULL;

	if (topo_conf_load_string(text, "topology.conf", kind, &tc, &err) < 0)
		fail_msg("load failed: %s", err.text);
	return tc;
}

static void load_err(const char *text, enum topo_kind kind, const char *want)
{
	struct rota_error err = {{0}};
	struct topo_conf *tc = NULL;

	assert_true(topo_conf_load_string(text, "topology.conf", kind, &tc, &err) < 0);
	assert_null(tc);
	if (!strstr(err.text, want))
		fail_msg("error '%s' lacks '%s'", err.text, want);
}

static void test_tree(void **state)
{
	struct topo_conf *tc = load_ok("# two leaves, one spine\n"
	                               "SwitchName=s1 Nodes=n[1-4] LinkSpeed=10\n"
	                               "switchname=s2 nodes=n[5-8]\n"
	                               "SwitchName=top Switches=s[1-2]\n",
	                               TOPO_TREE);
	int s1 = topo_conf_find(tc, "s1"), top = topo_conf_find(tc, "top");

	(void)state;
	assert_int_equal(tc->nsw, 3);
	assert_int_equal(tc->sw[s1].nnodes, 4);
	assert_string_equal(tc->sw[s1].nodes[3], "n4");
	assert_int_equal(tc->sw[s1].link_speed, 10);
	assert_int_equal(tc->sw[s1].level, 0);
	assert_int_equal(tc->sw[s1].parent, top);
	assert_int_equal(tc->sw[top].level, 1);
	assert_int_equal(tc->sw[top].nchildren, 2);
	assert_int_equal(tc->sw[top].link_speed, 1);
	assert_int_equal(tc->sw[top].parent, -1);
	topo_conf_destroy(tc);
}

static void test_tree_errors(void **state)
{
	(void)state;
	load_err("SwitchName=s1 Nodes=n1\nSwitchName=s1 Nodes=n2\n", TOPO_TREE,
	         "topology.conf:2: s1 defined twice");
	load_err("SwitchName=s1 Nodes=n1 Switches=s2\n", TOPO_TREE,
	         "topology.conf:1: switch s1 has both Nodes= and Switches=");
	load_err("SwitchName=s1\n", TOPO_TREE, "topology.conf:1: s1 has no");
	load_err("\nSwitchName=t Switches=s9\n", TOPO_TREE,
	         "topology.conf:2: switch t: unknown switch s9");
	load_err("SwitchName=a Nodes=n1\nSwitchName=b Switches=a\nSwitchName=c "
	         "Switches=a\n",
	         TOPO_TREE, "topology.conf:3: switch a is already under b");
	load_err("SwitchName=a Switches=b\nSwitchName=b Switches=a\n", TOPO_TREE,
	         "below itself");
	load_err("SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n2\n", TOPO_TREE,
	         "topology.conf:2: node n2 is also in a");
	load_err("SwitchName=a Nodes=n[1-\n", TOPO_TREE, "topology.conf:1: Nodes=n[1-");
	load_err("SwitchName=a Nodes=n1 Color=red\n", TOPO_TREE,
	         "topology.conf:1: unexpected key 'Color'");
	load_err("BlockName=b1 Nodes=n1\n", TOPO_TREE,
	         "topology.conf:1: expected SwitchName=");
	load_err("# nothing\n", TOPO_TREE, "no SwitchName= lines");
	load_err("SwitchName=a Nodes=n1 LinkSpeed=fast\n", TOPO_TREE, "LinkSpeed=fast");
}

static void test_block(void **state)
{
	struct topo_conf *tc =
	    load_ok("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\n"
	            "BlockName=b3 Nodes=n[9-12]\nBlockSizes=4,8\n",
	            TOPO_BLOCK);

	(void)state;
	assert_int_equal(tc->nsw, 3);
	assert_int_equal(tc->nsizes, 2);
	assert_int_equal(tc->sizes[1], 8);
	topo_conf_destroy(tc);
	tc = load_ok("BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\n"
	             "BlockName=b3 Nodes=n[5-6]\n",
	             TOPO_BLOCK);
	assert_int_equal(tc->nsizes, 3); /* 2, 4, 8 >= all */
	assert_int_equal(tc->sizes[0], 2);
	assert_int_equal(tc->sizes[2], 8);
	topo_conf_destroy(tc);
	load_err("BlockName=b1 Nodes=n1\nBlockSizes=4,6\n", TOPO_BLOCK,
	         "topology.conf:2: BlockSizes=4,6");
	load_err("BlockName=b1 Switches=x\n", TOPO_BLOCK, "unexpected key 'Switches'");
	load_err("SwitchName=s Nodes=n1\n", TOPO_BLOCK, "expected BlockName=");
}

static void test_kind_and_path(void **state)
{
	enum topo_kind k;
	struct topo_conf *tc = (void *)1;
	char *p = topo_conf_path("/etc/slurm/slurm.conf");

	(void)state;
	assert_int_equal(topo_kind_parse(NULL, &k, NULL), 0);
	assert_int_equal(k, TOPO_NONE);
	assert_int_equal(topo_kind_parse("topology/tree", &k, NULL), 0);
	assert_int_equal(k, TOPO_TREE);
	assert_int_equal(topo_kind_parse("topology/block", &k, NULL), 0);
	assert_int_equal(k, TOPO_BLOCK);
	assert_true(topo_kind_parse("topology/3d_torus", &k, NULL) < 0);
	assert_string_equal(p, "/etc/slurm/topology.conf");
	free(p);
	assert_int_equal(topo_conf_load("/nonexistent", TOPO_NONE, &tc, NULL), 0);
	assert_null(tc);
	assert_true(topo_conf_load("/nonexistent/x", TOPO_TREE, &tc, NULL) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree),
	    cmocka_unit_test(test_tree_errors),
	    cmocka_unit_test(test_block),
	    cmocka_unit_test(test_kind_and_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
