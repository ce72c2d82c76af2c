/* test_node_gres - the controller's GRES of a node: the registration check
 * and GresUsed (src/ctld/node_gres.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/conf.h"
#include "ctld/node_gres.c"

static struct gres_dev_info *devs(const char *name, uint32_t n)
{
	struct gres_dev_info *v = xcalloc(n, sizeof(*v));

	for (uint32_t i = 0; i < n; i++) {
		v[i].name = xstrdup(name);
		v[i].file = xasprintf("/dev/nvidia%u", i);
	}
	return v;
}

static void test_register_drains_when_fewer(void **state)
{
	struct conf_node cfg = {.name = "n1", .gres = "gpu:h100:4(S:0-1),nic:2"};
	struct node n = {.cfg = &cfg};
	struct node_register reg = {.gres = xstrdup("gpu:h100:3,nic:2"),
	                            .gres_devs = devs("gpu", 3),
	                            .gres_devs_count = 3};
	char why[160] = "";
	char *used;

	(void)state;
	assert_int_equal(node_gres_register(&n, &reg, why, sizeof(why)), -1);
	assert_string_equal(why, "gres/gpu count reported lower than configured (3 < 4)");
	/* the node's record took what the message had */
	assert_null(reg.gres);
	assert_null(reg.gres_devs);
	assert_int_equal(n.ngres_devs, 3);
	assert_string_equal(n.gres_found, "gpu:h100:3,nic:2");
	used = node_gres_used(NULL, &n);
	assert_string_equal(used, "gpu:h100:0(IDX:N/A),nic:0");
	free(used);
	node_gres_release(&n);
	assert_null(n.gres_found);
}

static void test_register_enough_or_untold(void **state)
{
	struct conf_node cfg = {.name = "n1", .gres = "gpu:2"};
	struct node n = {.cfg = &cfg};
	struct node_register reg = {.gres = xstrdup("gpu:a100:2")};
	char why[160] = "";
	char *used;

	(void)state;
	assert_int_equal(node_gres_register(&n, &reg, why, sizeof(why)), 0);
	/* an older rotad tells nothing: it has what it is configured with */
	assert_int_equal(
	    node_gres_register(&n, &(struct node_register){0}, why, sizeof(why)), 0);
	assert_string_equal(n.gres_found, "gpu:2");
	/* no device files registered: no indexes */
	used = node_gres_used(NULL, &n);
	assert_string_equal(used, "gpu:0");
	free(used);
	node_gres_release(&n);
	cfg.gres = NULL;
	assert_null(node_gres_used(NULL, &n));
}

static void test_too_many_devices_kept_bounded(void **state)
{
	struct conf_node cfg = {.name = "n1", .gres = "gpu:1"};
	struct node n = {.cfg = &cfg};
	struct node_register reg = {.gres = xstrdup("gpu:200"),
	                            .gres_devs = devs("gpu", 200),
	                            .gres_devs_count = 200};
	char why[160];

	(void)state;
	log_init("test_node_gres", LOG_CRIT, NULL);
	assert_int_equal(node_gres_register(&n, &reg, why, sizeof(why)), 0);
	assert_int_equal(n.ngres_devs, GRES_DEVS_MAX);
	node_gres_release(&n);
}

/* enforce-binding: the free CPUs near an allocation's devices */
static void test_bind_fits(void **state)
{
	struct conf_node cfg = {.name = "n1", .gres = "gpu:3"};
	uint8_t used[8] = {0};
	struct node n = {.cfg = &cfg, .cpus = 8, .core_used = used};
	struct gres_dev_info *d = devs("gpu", 3);

	(void)state;
	d[0].cores = xstrdup("0-1");
	d[1].cores = xstrdup("2-3");
	n.gres_devs = d; /* device 2 says nothing: near every CPU */
	n.ngres_devs = 3;
	assert_true(node_gres_bind_fits(&n, "gpu:1(IDX:0)", 2));
	assert_false(node_gres_bind_fits(&n, "gpu:1(IDX:0)", 3));
	assert_true(node_gres_bind_fits(&n, "gpu:2(IDX:0-1)", 4));
	used[2] = CORE_EXCL;
	assert_false(node_gres_bind_fits(&n, "gpu:2(IDX:0-1)", 4));
	assert_true(node_gres_bind_fits(&n, "gpu:2(IDX:0-1)", 3));
	assert_true(node_gres_bind_fits(&n, "gpu:1(IDX:2)", 8));
	assert_true(node_gres_bind_fits(&n, "", 8));
	node_gres_release(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_register_drains_when_fewer),
	    cmocka_unit_test(test_register_enough_or_untold),
	    cmocka_unit_test(test_too_many_devices_kept_bounded),
	    cmocka_unit_test(test_bind_fits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
