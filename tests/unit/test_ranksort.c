/* ranksort: the order is the one comparing the fields gives (src/common/ranksort.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/ranksort.c"

struct rec {
	const char *part; /* may be NULL */
	uint64_t prio;
	char name[16];
	uint32_t id;
};

static int natural(const char *a, const char *b)
{
	/* digits compare as numbers: node2 < node10 */
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			unsigned long x = strtoul(a, (char **)&a, 10);
			unsigned long y = strtoul(b, (char **)&b, 10);
			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++, b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static const char *value(const void *row, size_t i, char *buf, size_t len, uint64_t *num,
                         void *arg)
{
	const struct rec *r = row;

	switch (i) {
	case 0:
		return r->part;
	case 1:
		*num = r->prio;
		return NULL;
	default:
		snprintf(buf, len, "%s", r->name);
		return buf;
	}
}

static uint64_t tiebreak(const void *row)
{
	return ((const struct rec *)row)->id;
}

/* The reference: compare the fields, part asc, prio desc, name natural asc. */
static int ref_cmp(const void *pa, const void *pb)
{
	const struct rec *a = *(const struct rec *const *)pa;
	const struct rec *b = *(const struct rec *const *)pb;
	int c = strcmp(a->part ? a->part : "", b->part ? b->part : "");

	if (c)
		return c;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if ((c = natural(a->name, b->name)))
		return c;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* wide: priorities of 64 bits, so that the keys cannot be packed into one
 * number and rows are compared key by key */
static void check_same_order(int wide)
{
	static const char *parts[] = {"debug", "batch", NULL, "gpu", "batch"};
	enum { N = 5000 };
	struct rec *recs = calloc(N, sizeof(*recs));
	const void **got = calloc(N, sizeof(*got));
	const struct rec **want = calloc(N, sizeof(*want));
	struct rank_key keys[] = {{strcmp, 0}, {NULL, 1}, {natural, 0}};

	srand(7);
	for (uint32_t i = 0; i < N; i++) {
		recs[i].part = parts[rand() % 5];
		recs[i].prio = (uint64_t)(rand() % 4) << (wide ? 62 : 40);
		if (wide)
			recs[i].prio |= (uint64_t)(rand() % 3);
		/* node7 and node07 compare equal: they share a rank */
		snprintf(recs[i].name, sizeof(recs[i].name),
		         rand() % 2 ? "node%d" : "node%02d", rand() % 12);
		recs[i].id = N - i;
		got[i] = want[i] = &recs[i];
	}
	assert_int_equal(rank_sort(got, N, keys, 3, value, tiebreak, NULL), 0);
	qsort(want, N, sizeof(*want), ref_cmp);
	for (size_t i = 0; i < N; i++)
		assert_ptr_equal(got[i], want[i]);
	free(recs);
	free(got);
	free(want);
}

static void test_same_order_as_comparing_fields(void **state)
{
	check_same_order(0);
}

static void test_same_order_when_keys_do_not_pack(void **state)
{
	check_same_order(1);
}

/* Rows given one at a time, from a slot that is reused: the keys are read when
 * the row is added. */
static void test_ranker_reads_rows_when_added(void **state)
{
	static const char *parts[] = {"b", "a", "b", "c", "a"};
	struct rank_key keys[] = {{strcmp, 1}, {NULL, 0}};
	struct ranker *r = ranker_create(keys, 2);
	struct rec slot;
	uint32_t *order = NULL;
	static const uint32_t want[] = {3, 2, 0, 4, 1};

	assert_non_null(r);
	for (uint32_t i = 0; i < 5; i++) {
		slot = (struct rec){.part = parts[i], .prio = i % 2};
		assert_int_equal(ranker_add(r, &slot, value, 100 - i, NULL), 0);
	}
	assert_int_equal(ranker_count(r), 5);
	assert_int_equal(ranker_order(r, &order), 0);
	/* c; then b: prio 0 (row 2 before row 0, tiebreak 98 < 100); a: prio 0, 1 */
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(order[i], want[i]);
	free(order);
	ranker_destroy(r);
	assert_null(ranker_create(keys, RANK_MAX_KEYS + 1));
}

static void test_empty_and_one(void **state)
{
	struct rec r = {.part = "a", .id = 1};
	const void *rows[1] = {&r};
	struct rank_key keys[] = {{strcmp, 0}};

	assert_int_equal(rank_sort(rows, 0, keys, 1, value, tiebreak, NULL), 0);
	assert_int_equal(rank_sort(rows, 1, keys, 1, value, tiebreak, NULL), 0);
	assert_ptr_equal(rows[0], &r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_order_as_comparing_fields),
	    cmocka_unit_test(test_same_order_when_keys_do_not_pack),
	    cmocka_unit_test(test_ranker_reads_rows_when_added),
	    cmocka_unit_test(test_empty_and_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
