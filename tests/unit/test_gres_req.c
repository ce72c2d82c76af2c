/* test_gres_req.c - GPU options and per-node GRES allocation strings
 * (src/common/gres_req.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/gres_req.h"

static void test_gpu_parse(void **state)
{
	char type[GRES_NAME_MAX];
	uint32_t n = 0;

	assert_int_equal(gres_gpu_parse("2", type, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(type, "");
	assert_int_equal(gres_gpu_parse("a100:4", type, &n, NULL), 0);
	assert_int_equal(n, 4);
	assert_string_equal(type, "a100");
	assert_int_equal(gres_gpu_parse("0", type, &n, NULL), -EINVAL);
	assert_int_equal(gres_gpu_parse("65537", type, &n, NULL), -EINVAL);
	assert_int_equal(gres_gpu_parse("a100:", type, &n, NULL), -EINVAL);
	assert_int_equal(gres_gpu_parse("a:b:1", type, &n, NULL), -EINVAL);
	assert_int_equal(gres_gpu_parse("x y:1", type, &n, NULL), -EINVAL);
	assert_int_equal(gres_gpu_parse("", type, &n, NULL), -EINVAL);
	assert_int_equal(gres_gpu_parse("-1", type, &n, NULL), -EINVAL);
}

static void test_alloc_parse(void **state)
{
	struct gres_alloc_item it[4];
	size_t n = 0;

	assert_int_equal(
	    gres_alloc_parse("gpu:h100:2(IDX:0-1),gpu:a100:1(IDX:4),nic:1", it, 4, &n),
	    0);
	assert_int_equal(n, 3);
	assert_string_equal(it[0].type, "h100");
	assert_int_equal(it[0].nidx, 2);
	assert_int_equal(it[1].idx[0], 4);
	assert_int_equal(it[2].nidx, 0);
	assert_int_equal(it[2].count, 1);
	assert_int_equal(gres_alloc_parse("", it, 4, &n), 0);
	assert_int_equal(n, 0);
	/* damaged: refused, not half read */
	assert_int_equal(gres_alloc_parse("gpu:2(IDX:0-", it, 4, &n), -EINVAL);
	assert_int_equal(gres_alloc_parse("gpu:2(IDX:5-1)", it, 4, &n), -EINVAL);
	assert_int_equal(gres_alloc_parse("gpu:2(IDX:99999)", it, 4, &n), -EINVAL);
	assert_int_equal(gres_alloc_parse("gpu", it, 4, &n), -EINVAL);
	assert_int_equal(gres_alloc_parse("a:1,b:1,c:1,d:1,e:1", it, 4, &n), -EINVAL);
}

static void test_indexes(void **state)
{
	char *s = gres_alloc_indexes("gpu:h100:1(IDX:3),gpu:a100:2(IDX:0-1),nic:1(IDX:0)",
	                             "gpu");
	uint32_t idx[] = {0, 1, 2, 5, 7, 8};
	char *r = gres_idx_ranges(idx, 6);

	assert_string_equal(s, "0,1,3");
	assert_int_equal(gres_alloc_count("gpu:h100:1(IDX:3),gpu:a100:2(IDX:0-1)", "gpu"),
	                 3);
	assert_null(gres_alloc_indexes("nic:1", "gpu"));
	assert_null(gres_alloc_indexes(NULL, "gpu"));
	assert_string_equal(r, "0-2,5,7-8");
	free(s);
	free(r);
}

static void test_spec_tres(void **state)
{
	char *a = gres_spec_tres("gpu:h100:4(S:0-1),nic:2");
	char *b = gres_spec_tres("gpu:h100:0(IDX:N/A),gpu:a100:1(IDX:2),nic:0");
	char *c = gres_spec_tres("gpu:4");

	assert_string_equal(a, "gres/gpu=4,gres/gpu:h100=4,gres/nic=2");
	assert_string_equal(b, "gres/gpu=1,gres/gpu:a100=1");
	assert_string_equal(c, "gres/gpu=4");
	assert_null(gres_spec_tres("gpu:0(IDX:N/A)"));
	assert_null(gres_spec_tres(NULL));
	free(a);
	free(b);
	free(c);
}

static void test_tres_tracked(void **state)
{
	const char *t = "gres/gpu=3,gres/gpu:h100=2,gres/gpu:a100=1,gres/nic=1";
	char buf[128];

	assert_string_equal(gres_tres_tracked(t, NULL, buf, sizeof(buf)),
	                    "gres/gpu=3,gres/nic=1");
	assert_string_equal(
	    gres_tres_tracked(t, "gres/gpu,GRES/GPU:H100", buf, sizeof(buf)),
	    "gres/gpu=3,gres/gpu:h100=2,gres/nic=1");
	assert_string_equal(gres_tres_tracked(NULL, NULL, buf, sizeof(buf)), "");
	assert_string_equal(gres_tres_tracked(t, NULL, buf, 8), "gres/gp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpu_parse),    cmocka_unit_test(test_alloc_parse),
	    cmocka_unit_test(test_indexes),      cmocka_unit_test(test_spec_tres),
	    cmocka_unit_test(test_tres_tracked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
