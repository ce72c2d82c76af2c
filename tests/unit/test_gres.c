/* test_gres.c - --gres requests and a node's Gres= (common/gres.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/gres.h"
#include "common/common.h"

static void test_parse(void **state)
{
	struct gres_item it[GRES_MAX_ITEMS];
	size_t n = 0;

	assert_int_equal(gres_parse("gpu", it, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(it[0].name, "gpu");
	assert_string_equal(it[0].type, "");
	assert_int_equal(it[0].count, 1);
	assert_int_equal(gres_parse("gres/gpu:tesla:2,mps:1k", it, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(it[0].name, "gpu");
	assert_string_equal(it[0].type, "tesla");
	assert_int_equal(it[0].count, 2);
	assert_string_equal(it[1].name, "mps");
	assert_int_equal(it[1].count, 1024);
	assert_int_equal(gres_parse("gpu:a100", it, &n, NULL), 0);
	assert_string_equal(it[0].type, "a100");
	assert_int_equal(it[0].count, 1);
}

/* A count whose suffix would overflow 64 bits is refused, not wrapped. */
static void test_count_overflow(void **state)
{
	struct gres_item it[GRES_MAX_ITEMS];
	size_t n = 0;

	assert_int_equal(gres_parse("gpu:17179869185g", it, &n, NULL), -EINVAL);
	assert_int_equal(gres_parse("gpu:999999999999g", it, &n, NULL), -EINVAL);
	assert_int_equal(gres_parse("gpu:17179869183g", it, &n, NULL), 0);
	assert_true(it[0].count == 17179869183ull << 30);
}

static void test_invalid(void **state)
{
	static const char *const bad[] = {
	    "",
	    ",",
	    "gpu,",
	    ":1",
	    "gpu:0",
	    "gpu:1:2:3",
	    "gpu:x:",
	    "gpu:1x",
	    "g pu",
	    "gpu\n:1",
	    "gpu:9999999999999",
	    "gpu:tesla:0",
	};
	struct gres_item it[GRES_MAX_ITEMS];
	struct rota_error err = {{0}};
	char many[512] = "";
	size_t n = 0, len = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gres_parse(bad[i], it, &n, &err) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	for (int i = 0; i <= GRES_MAX_ITEMS; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len, "%sgpu",
		                        i ? "," : "");
	assert_int_equal(gres_parse(many, it, &n, &err), -EINVAL);
	assert_non_null(strstr(err.text, "more than"));
}

static void test_node(void **state)
{
	const char *node = "gpu:tesla:2(S:0-1),gpu:k80:1,mps:100";

	assert_int_equal(gres_node_count(node, "gpu", ""), 3);
	assert_int_equal(gres_node_count(node, "gpu", "tesla"), 2);
	assert_int_equal(gres_node_count(node, "mps", ""), 100);
	assert_int_equal(gres_node_count(node, "nic", ""), 0);
	assert_int_equal(gres_node_count(NULL, "gpu", ""), 0);
	assert_true(gres_node_has("gpu:3", node));
	assert_true(gres_node_has("gpu:k80,mps:50", node));
	assert_false(gres_node_has("gpu:4", node));
	assert_false(gres_node_has("gpu:tesla:3", node));
	assert_false(gres_node_has("gpu", NULL));
}

static void test_drop_zero(void **state)
{
	char *s;

	(void)state;
	assert_null(gres_drop_zero("craynetwork:0"));
	assert_null(gres_drop_zero("gpu:a100:00,nic:0"));
	s = gres_drop_zero("gpu:2,craynetwork:0,gpu:a100:10");
	assert_string_equal(s, "gpu:2,gpu:a100:10");
	free(s);
	s = gres_drop_zero("gpu"); /* no count: one */
	assert_string_equal(s, "gpu");
	free(s);
	s = gres_drop_zero("gpu:0(S:0-1),mps:100");
	assert_string_equal(s, "mps:100");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),          cmocka_unit_test(test_invalid),
	    cmocka_unit_test(test_count_overflow), cmocka_unit_test(test_drop_zero),
	    cmocka_unit_test(test_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
