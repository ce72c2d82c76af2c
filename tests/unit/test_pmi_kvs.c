/* test_pmi_kvs - the PMI key-value space and its byte form (stepd/pmi_kvs.h),
 * and srun's gathering of a fence (cli/srun_fence.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include "stepd/pmi_kvs.c"
#include "cli/srun_fence.c"

static void test_put_get_replace(void **state)
{
	struct pmi_kvs *kvs = pmi_kvs_create();
	char key[16];

	(void)state;
	assert_null(pmi_kvs_get(kvs, "a"));
	assert_int_equal(pmi_kvs_put(kvs, "a", "1"), 0);
	assert_int_equal(pmi_kvs_put(kvs, "a", "2;x=y z"), 0);
	assert_string_equal(pmi_kvs_get(kvs, "a"), "2;x=y z");
	for (int i = 0; i < 1000; i++) { /* grows past its first table */
		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(pmi_kvs_put(kvs, key, key), 0);
	}
	assert_int_equal(pmi_kvs_count(kvs), 1001);
	assert_string_equal(pmi_kvs_get(kvs, "k999"), "k999");
	pmi_kvs_clear(kvs);
	assert_int_equal(pmi_kvs_count(kvs), 0);
	assert_null(pmi_kvs_get(kvs, "k1"));
	pmi_kvs_destroy(kvs);
	pmi_kvs_destroy(NULL);
}

static void test_limits(void **state)
{
	struct pmi_kvs *kvs = pmi_kvs_create();
	char key[PMI_KVS_KEY_MAX + 2], val[PMI_KVS_VAL_MAX + 2];

	(void)state;
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	memset(val, 'v', sizeof(val) - 1);
	val[sizeof(val) - 1] = '\0';
	assert_int_equal(pmi_kvs_put(kvs, key, "v"), -1); /* one too long */
	assert_int_equal(pmi_kvs_put(kvs, "k", val), -1);
	assert_int_equal(pmi_kvs_put(kvs, "", "v"), -1);
	key[PMI_KVS_KEY_MAX] = '\0';
	val[PMI_KVS_VAL_MAX] = '\0';
	assert_int_equal(pmi_kvs_put(kvs, key, val), 0); /* at the limits */
	assert_int_equal(pmi_kvs_count(kvs), 1);
	pmi_kvs_destroy(kvs);
}

static void test_encode_decode_concatenated(void **state)
{
	struct pmi_kvs *a = pmi_kvs_create(), *b = pmi_kvs_create(),
	               *all = pmi_kvs_create();
	uint8_t *ea, *eb, *both;
	size_t la, lb;

	(void)state;
	pmi_kvs_put(a, "rank0", "card;0");
	pmi_kvs_put(a, "shared", "a");
	pmi_kvs_put(b, "rank1", "");
	pmi_kvs_encode(a, &ea, &la);
	pmi_kvs_encode(b, &eb, &lb);
	both = malloc(la + lb);
	memcpy(both, ea, la);
	memcpy(both + la, eb, lb);
	assert_int_equal(pmi_kvs_decode(all, both, la + lb), 3);
	assert_string_equal(pmi_kvs_get(all, "rank0"), "card;0");
	assert_string_equal(pmi_kvs_get(all, "rank1"), "");
	/* truncated, a NUL inside, a length past the end: refused */
	assert_int_equal(pmi_kvs_decode(all, both, la - 1), -1);
	both[4] = '\0';
	assert_int_equal(pmi_kvs_decode(all, both, la), -1);
	both[0] = 0xff;
	assert_int_equal(pmi_kvs_decode(all, both, la), -1);
	assert_int_equal(pmi_kvs_decode(all, both, 0), 0);
	free(ea);
	free(eb);
	free(both);
	pmi_kvs_destroy(a);
	pmi_kvs_destroy(b);
	pmi_kvs_destroy(all);
}

static void test_fence_gathers_in_node_order(void **state)
{
	struct srun_fence *f = srun_fence_create(3);
	struct rota_error err = {""};
	uint8_t *all = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(
	    srun_fence_add(f, 2, 0, (const uint8_t *)"cc", 2, &all, &len, &err), 0);
	assert_int_equal(
	    srun_fence_add(f, 0, 0, (const uint8_t *)"a", 1, &all, &len, &err), 0);
	/* twice from one node, the next fence early, no such node: refused */
	assert_int_equal(
	    srun_fence_add(f, 0, 0, (const uint8_t *)"a", 1, &all, &len, &err), -1);
	assert_int_equal(
	    srun_fence_add(f, 1, 1, (const uint8_t *)"b", 1, &all, &len, &err), -1);
	assert_int_equal(
	    srun_fence_add(f, 3, 0, (const uint8_t *)"b", 1, &all, &len, &err), -1);
	assert_int_equal(srun_fence_add(f, 1, 0, NULL, 0, &all, &len, &err), 1);
	assert_int_equal(len, 3);
	assert_memory_equal(all, "acc", 3);
	free(all);
	/* the next fence */
	assert_int_equal(
	    srun_fence_add(f, 1, 1, (const uint8_t *)"b", 1, &all, &len, &err), 0);
	srun_fence_destroy(f);
	srun_fence_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_put_get_replace),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_encode_decode_concatenated),
	    cmocka_unit_test(test_fence_gathers_in_node_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
