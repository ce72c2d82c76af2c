/* test_gres_conf.c - gres.conf and a node's GRES inventory (common/gres_conf.h,
 * common/gres_inv.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/gres_conf.h"

static struct gres_conf *load_ok(const char *text)
{
	struct rota_error err = {{0}};
	struct gres_conf *gc = NULL;

	if (gres_conf_load_string(text, "gres.conf", &gc, &err) < 0)
		fail_msg("load failed: %s", err.text);
	return gc;
}

static void load_err(const char *text, const char *want)
{
	struct rota_error err = {{0}};
	struct gres_conf *gc = NULL;

	assert_true(gres_conf_load_string(text, "gres.conf", &gc, &err) < 0);
	assert_null(gc);
	if (!strstr(err.text, want))
		fail_msg("error '%s' lacks '%s'", err.text, want);
}

static struct gres_inv *inventory(const struct gres_conf *gc, const char *node,
                                  const char *node_gres, const struct gres_node_opts *o)
{
	struct rota_error err = {{0}};
	struct gres_inv *inv = NULL;

	if (gres_conf_node_inventory(gc, node, node_gres, o, &inv, &err) < 0)
		fail_msg("inventory failed: %s", err.text);
	return inv;
}

static void assert_format(const struct gres_inv *inv, const char *want)
{
	char buf[256];

	assert_int_equal(gres_inv_format(inv, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

/* Ranges in File= and NodeName=, Cores=, Links=, a count-only GRES. */
static void test_ranges_and_nodes(void **state)
{
	struct gres_conf *gc = load_ok(
	    "# GPUs\n"
	    "NodeName=gpu[01-02] Name=gpu Type=h100 File=/dev/nvidia[0-3] Cores=0-7,16 "
	    "Links=-1,2,0,0\n"
	    "nodename=gpu03 name=gpu type=a100 file=/dev/nvidia0,/dev/nvidia1\n"
	    "Name=nic Count=2   # every node\n"
	    "\n");
	struct gres_inv *a = inventory(gc, "gpu02", "gpu:h100:4,nic:2", NULL);
	struct gres_inv *b = inventory(gc, "gpu03", NULL, NULL);
	char cores[64];

	(void)state;
	assert_format(a, "gpu:h100:4,nic:2");
	assert_int_equal(a->ndev, 4);
	assert_string_equal(a->dev[0].file, "/dev/nvidia0");
	assert_string_equal(a->dev[3].file, "/dev/nvidia3");
	assert_string_equal(a->dev[3].links, "-1,2,0,0");
	gres_cores_format(a->dev[2].cores, cores, sizeof(cores));
	assert_string_equal(cores, "0-7,16");
	assert_format(b, "gpu:a100:2,nic:2");
	assert_int_equal(gres_inv_count(b, "gpu", "a100"), 2);
	assert_int_equal(gres_inv_count(b, "gpu", "h100"), 0);
	gres_inv_destroy(a);
	gres_inv_destroy(b);
	gres_conf_destroy(gc);
}

/* What slurm.conf's Gres= names and gres.conf does not describe is taken as
 * configured; a File= line counts only the files that exist. */
static int exists_even(const char *file, void *arg)
{
	(void)arg;
	return (file[strlen(file) - 1] - '0') % 2 == 0;
}

static void test_found_vs_configured(void **state)
{
	struct gres_conf *gc = load_ok("Name=gpu File=/dev/nvidia[0-3]\n");
	struct gres_node_opts o = {.dev_exists = exists_even};
	struct gres_inv *all = inventory(gc, "n1", "gpu:4,mps:100(S:0-1)", NULL);
	struct gres_inv *found = inventory(gc, "n1", "gpu:4,mps:100", &o);
	char reason[128] = "";

	(void)state;
	assert_format(all, "gpu:4,mps:100");
	assert_format(found, "gpu:2,mps:100");
	assert_string_equal(found->dev[1].file, "/dev/nvidia2");
	assert_int_equal(gres_inv_check("gpu:4,mps:100", all, reason, sizeof(reason)), 0);
	assert_int_equal(gres_inv_check("gpu:4,mps:100", found, reason, sizeof(reason)),
	                 -1);
	assert_string_equal(reason,
	                    "gres/gpu count reported lower than configured (2 < 4)");
	/* types of one name are summed, as Slurm counts the name */
	assert_int_equal(gres_inv_check("gpu:a:1,gpu:b:1", found, reason, sizeof(reason)),
	                 0);
	assert_int_equal(gres_inv_check("gpu:a:2,gpu:b:1", found, reason, sizeof(reason)),
	                 -1);
	assert_string_equal(reason,
	                    "gres/gpu count reported lower than configured (2 < 3)");
	assert_int_equal(gres_inv_check(NULL, found, reason, sizeof(reason)), 0);
	gres_inv_destroy(all);
	gres_inv_destroy(found);
	gres_conf_destroy(gc);
}

static void test_autodetect(void **state)
{
	struct gres_conf *gc =
	    load_ok("AutoDetect=nvml\n"
	            "NodeName=cpu[1-2] AutoDetect=off\n"
	            "Name=gpu File=/dev/nvidia[0-1]\n"
	            "Name=gpu Type=h100\n"
	            "NodeName=cpu2 Name=gpu AutoDetect=nvml CPUs=0-3\n");
	struct gres_inv *det = gres_inv_create(), *inv;
	struct gres_node_opts o = {.detected = det};

	(void)state;
	assert_int_equal(gres_conf_autodetect(gc, "gpu1"), GRES_AUTODETECT_NVML);
	assert_int_equal(gres_conf_autodetect(gc, "cpu1"), GRES_AUTODETECT_OFF);
	assert_int_equal(gres_conf_autodetect(gc, "cpu2"), GRES_AUTODETECT_NVML);
	assert_int_equal(gres_conf_autodetect(NULL, "x"), GRES_AUTODETECT_OFF);
	/* detected GPUs replace the lines of that name */
	assert_int_equal(
	    gres_inv_add_dev(det, "gpu", "h100", "/dev/nvidia5", NULL, NULL, NULL), 0);
	inv = inventory(gc, "gpu1", "gpu:1", &o);
	assert_format(inv, "gpu:h100:1");
	assert_string_equal(inv->dev[0].file, "/dev/nvidia5");
	gres_inv_destroy(inv);
	gres_inv_destroy(det);
	gres_conf_destroy(gc);
}

static void test_errors_carry_file_line(void **state)
{
	(void)state;
	load_err("Name=gpu File=/dev/nvidia0\nName=gpu Wibble=1\n",
	         "gres.conf:2: unknown key 'Wibble'");
	load_err("\n\nName=gpu File=/dev/nvidia[0-3] Count=2\n",
	         "gres.conf:3: Count=2 does not match the 4 files of File=");
	load_err("File=/dev/nvidia0\n", "gres.conf:1: no Name= on the line");
	load_err("Name=gpu Cores=0-5000\n", "gres.conf:1: Cores=0-5000");
	load_err("Name=gpu Cores=3-1\n", "gres.conf:1: Cores=3-1");
	load_err("Name=gpu Count=x\n", "gres.conf:1: Count=x");
	load_err("Name=gpu Flags=bogus\n", "gres.conf:1: Flags=bogus");
	load_err("Name=gpu Links=a\n", "gres.conf:1: Links=a");
	load_err("AutoDetect=rsmi\n", "gres.conf:1: AutoDetect=rsmi");
	load_err("Name=gpu Name=nic\n", "gres.conf:1: Name given twice");
	load_err("Name=g/pu\n", "gres.conf:1: Name=g/pu");
	load_err("Name=gpu File=/dev/nvidia[0-999]\n", "more than 128 names");
	load_err("NodeName=n[1-2 Name=gpu\n", "gres.conf:1: NodeName=n[1-2");
	load_err("Name=gpu junk\n", "gres.conf:1: expected Key=Value");
}

static void test_limits(void **state)
{
	struct gres_inv *inv = gres_inv_create();
	char *big = malloc(GRES_CONF_LINE_MAX + 2);
	char name[16];
	uint64_t cores[GRES_CORE_WORDS];

	(void)state;
	for (int i = 0; i < GRES_MAX_ITEMS; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		assert_true(gres_inv_add(inv, name, "", 1, NULL, NULL) >= 0);
	}
	assert_int_equal(gres_inv_add(inv, "one_more", "", 1, NULL, NULL), -E2BIG);
	for (int i = 0; i < GRES_DEVS_MAX; i++)
		assert_int_equal(
		    gres_inv_add_dev(inv, "g0", "", "/dev/x", NULL, NULL, NULL), 0);
	assert_int_equal(gres_inv_add_dev(inv, "g0", "", "/dev/x", NULL, NULL, NULL),
	                 -E2BIG);
	memset(big, 'a', GRES_CONF_LINE_MAX + 1);
	big[GRES_CONF_LINE_MAX + 1] = '\0';
	load_err(big, "gres.conf:1: line longer than");
	load_err("NodeName=a[1-40000] Name=gpu\nNodeName=b[1-40000] Name=gpu\n",
	         "gres.conf:2: NodeName= lines name more than 65536 nodes in all");
	assert_int_equal(gres_cores_parse("1023", cores), 0);
	assert_int_equal(gres_cores_parse("1024", cores), -EINVAL);
	assert_int_equal(gres_cores_parse("", cores), -EINVAL);
	free(big);
	gres_inv_destroy(inv);
}

static void test_path(void **state)
{
	char *p = gres_conf_path("/etc/slurm/slurm.conf");

	(void)state;
	assert_string_equal(p, "/etc/slurm/gres.conf");
	free(p);
	p = gres_conf_path("slurm.conf");
	assert_string_equal(p, "gres.conf");
	free(p);
}

static void test_missing_file_is_empty(void **state)
{
	struct rota_error err = {{0}};
	struct gres_conf *gc = NULL;

	(void)state;
	assert_int_equal(gres_conf_load("/nonexistent/gres.conf", &gc, &err), 0);
	assert_non_null(gc);
	gres_conf_destroy(gc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranges_and_nodes),
	    cmocka_unit_test(test_found_vs_configured),
	    cmocka_unit_test(test_autodetect),
	    cmocka_unit_test(test_errors_carry_file_line),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_path),
	    cmocka_unit_test(test_missing_file_is_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
