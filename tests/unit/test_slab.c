/* slab: objects of one size, zeroed, distinct, reused, and their chunks given
 * back (src/common/slab.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/slab.h"

#define N 5000

static void test_objects_are_zeroed_distinct_and_aligned(void **state)
{
	struct slab *s = slab_create(392);
	unsigned char **v = calloc(N, sizeof(*v));

	(void)state;
	assert_non_null(s);
	for (size_t i = 0; i < N; i++) {
		v[i] = slab_alloc(s);
		assert_non_null(v[i]);
		assert_int_equal((uintptr_t)v[i] % 8, 0);
		for (size_t k = 0; k < 392; k++)
			assert_int_equal(v[i][k], 0);
		memset(v[i], (int)(i & 0xff) | 1, 392);
	}
	assert_int_equal(slab_count(s), N);
	/* no two overlap: each still holds what was written to it */
	for (size_t i = 0; i < N; i++)
		for (size_t k = 0; k < 392; k += 97)
			assert_int_equal(v[i][k], (i & 0xff) | 1);
	/* 392 bytes, 64 KiB chunks: 167 a chunk, so 30 of them */
	assert_int_equal(slab_chunks(s), (N + 166) / 167);
	for (size_t i = 0; i < N; i++)
		slab_free(s, v[i]);
	assert_int_equal(slab_count(s), 0);
	/* every chunk given back but the one kept spare */
	assert_int_equal(slab_chunks(s), 1);
	slab_destroy(s);
	free(v);
}

static void test_freed_objects_are_reused_zeroed(void **state)
{
	struct slab *s = slab_create(100);
	void *keep = slab_alloc(s), *a = slab_alloc(s), *b;

	(void)state;
	memset(a, 0x5a, 100);
	slab_free(s, a);
	b = slab_alloc(s);
	assert_ptr_equal(a, b); /* the hole is filled before fresh room */
	for (size_t k = 0; k < 100; k++)
		assert_int_equal(((unsigned char *)b)[k], 0);
	slab_free(s, b);
	slab_free(s, keep);
	slab_free(s, NULL);
	assert_int_equal(slab_count(s), 0);
	slab_destroy(s);
}

/* Objects never handed out are not cleared one by one: a chunk kept spare is
 * cleared whole when it empties, so a second round reads zeros everywhere,
 * the objects on its header's page included. */
static void test_the_spare_chunk_comes_back_zeroed(void **state)
{
	struct slab *s = slab_create(392);
	unsigned char *v[167], *w;

	(void)state;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 167; i++) { /* one chunk, full */
			v[i] = slab_alloc(s);
			for (size_t k = 0; k < 392; k++)
				assert_int_equal(v[i][k], 0);
			memset(v[i], 0xa5, 392);
		}
		assert_int_equal(slab_chunks(s), 1);
		w = slab_alloc(s); /* a second chunk, kept spare when empty */
		assert_int_equal(slab_chunks(s), 2);
		memset(w, 0x5a, 392);
		slab_free(s, w);
		for (int i = 0; i < 167; i++)
			slab_free(s, v[i]);
		/* one of the two unmapped, the other kept */
		assert_int_equal(slab_chunks(s), 1);
	}
	slab_destroy(s);
}

static void test_a_full_chunk_with_a_hole_is_filled_first(void **state)
{
	struct slab *s = slab_create(4096);
	void *v[32];

	(void)state;
	for (int i = 0; i < 32; i++) /* 15 a chunk: three chunks */
		v[i] = slab_alloc(s);
	assert_int_equal(slab_chunks(s), 3);
	slab_free(s, v[3]); /* in the first, full chunk */
	assert_ptr_equal(slab_alloc(s), v[3]);
	assert_int_equal(slab_chunks(s), 3);
	for (int i = 0; i < 32; i++)
		slab_free(s, v[i]);
	/* objects out when destroyed are unmapped with their chunks */
	v[0] = slab_alloc(s);
	slab_destroy(s);
}

static void test_sizes_refused(void **state)
{
	(void)state;
	assert_null(slab_create(0));
	assert_null(slab_create(16385)); /* more than a quarter of a chunk */
	slab_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_objects_are_zeroed_distinct_and_aligned),
	    cmocka_unit_test(test_freed_objects_are_reused_zeroed),
	    cmocka_unit_test(test_the_spare_chunk_comes_back_zeroed),
	    cmocka_unit_test(test_a_full_chunk_with_a_hole_is_filled_first),
	    cmocka_unit_test(test_sizes_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
