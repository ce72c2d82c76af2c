/* test_gpubind.c - --gpu-bind parsing and the GPUs each task gets. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/gpubind.h"

static void test_parse(void **state)
{
	struct rota_error err = {""};
	struct gpubind b;

	assert_int_equal(gpubind_parse("verbose,closest", &b, &err), 0);
	assert_int_equal(b.type, GPUBIND_CLOSEST);
	assert_true(b.verbose);
	gpubind_release(&b);
	assert_int_equal(gpubind_parse("single:2", &b, &err), 0);
	assert_int_equal(b.type, GPUBIND_SINGLE);
	assert_int_equal(b.n, 2);
	gpubind_release(&b);
	assert_int_equal(gpubind_parse("per_task:3", &b, &err), 0);
	assert_int_equal(b.type, GPUBIND_PER_TASK);
	assert_int_equal(b.n, 3);
	gpubind_release(&b);
	assert_int_equal(gpubind_parse("verbose,map_gpu:1*2,0", &b, &err), 0);
	assert_int_equal(b.type, GPUBIND_MAP);
	assert_int_equal(b.list.n, 3);
	assert_int_equal(b.list.ids[1][0], 1);
	assert_int_equal(b.list.ids[2][0], 0);
	gpubind_release(&b);
	assert_int_equal(gpubind_parse("mask_gpu:0x3,c", &b, &err), 0);
	assert_int_equal(b.type, GPUBIND_MASK);
	assert_int_equal(b.list.cnt[0], 2);
	assert_int_equal(b.list.ids[1][0], 2);
	gpubind_release(&b);
	assert_int_equal(gpubind_parse("none", &b, &err), 0);
	assert_int_equal(b.type, GPUBIND_NONE);
	gpubind_release(&b);
	for (const char *const *bad =
	         (const char *const[]){"nearest", "single:", "single:0", "per_task:x",
	                               "map_gpu:", "mask_gpu:0xz", "closest,foo", NULL};
	     *bad; bad++) {
		assert_int_equal(gpubind_parse(*bad, &b, &err), -EINVAL);
		assert_non_null(strstr(err.text, "Invalid --gpu-bind"));
	}
}

static uint64_t task(const char *spec, const struct gpubind_node *n, uint32_t ltid,
                     uint64_t close)
{
	struct gpubind b;
	uint64_t got;

	assert_int_equal(gpubind_parse(spec, &b, NULL), 0);
	got = gpubind_task(&b, n, ltid, close);
	gpubind_release(&b);
	return got;
}

static void test_tasks(void **state)
{
	const uint32_t idx[] = {1, 2, 5, 6};
	struct gpubind_node rel = {.ngpus = 4, .idx = idx, .relative = 1};
	struct gpubind_node abs = {.ngpus = 4, .idx = idx};
	char *s;

	/* map_gpu: relative ids, the list cycled */
	assert_int_equal(task("map_gpu:3,1", &rel, 0, 0), 0x8);
	assert_int_equal(task("map_gpu:3,1", &rel, 1, 0), 0x2);
	assert_int_equal(task("map_gpu:3,1", &rel, 2, 0), 0x8);
	/* node indexes without a device cgroup; one not in the step: all */
	assert_int_equal(task("map_gpu:5,1", &abs, 0, 0), 0x4);
	assert_int_equal(task("map_gpu:3", &abs, 0, 0), 0xf);
	assert_int_equal(task("mask_gpu:0x6,0x1", &rel, 0, 0), 0x6);
	assert_int_equal(task("mask_gpu:0x6,0x1", &rel, 1, 0), 0x1);
	assert_int_equal(task("mask_gpu:0x60", &abs, 0, 0), 0xc);
	/* per_task: in order, wrapping */
	assert_int_equal(task("per_task:2", &rel, 0, 0), 0x3);
	assert_int_equal(task("per_task:2", &rel, 1, 0), 0xc);
	assert_int_equal(task("per_task:1", &rel, 5, 0), 0x2);
	/* closest and single follow what is near the task */
	assert_int_equal(task("closest", &rel, 0, 0x6), 0x6);
	assert_int_equal(task("closest", &rel, 0, 0), 0xf);
	assert_int_equal(task("single:2", &rel, 0, 0x6), 0x2);
	assert_int_equal(task("single:2", &rel, 2, 0x6), 0x4);
	assert_int_equal(task("single:2", &rel, 3, 0), 0x2);
	assert_int_equal(task("none", &rel, 1, 0x1), 0xf);
	s = gpubind_list(&abs, 0xa, 0);
	assert_string_equal(s, "2,6");
	free(s);
	s = gpubind_list(&abs, 0xa, 1);
	assert_string_equal(s, "1,3");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_tasks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
