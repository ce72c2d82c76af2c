#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/ranksort.h"

/* The distinct strings of one key: open addressing over a power of two. */
struct distinct {
	char **str;     /* [count], owned */
	uint32_t *slot; /* [size]: index + 1 into str, 0 empty */
	size_t count, size;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The index of s among d's strings, added if new; -1 when out of memory. */
static long distinct_index(struct distinct *d, const char *s)
{
	size_t h = (size_t)hash_str(s) & (d->size - 1);

	for (; d->slot[h]; h = (h + 1) & (d->size - 1))
		if (!strcmp(d->str[d->slot[h] - 1], s))
			return (long)d->slot[h] - 1;
	if (!(d->str[d->count] = strdup(s)))
		return -1;
	d->slot[h] = (uint32_t)++d->count;
	return (long)d->count - 1;
}

static void distinct_release(struct distinct *d)
{
	for (size_t i = 0; i < d->count; i++)
		free(d->str[i]);
	free(d->str);
	free(d->slot);
}

struct order_ctx {
	char **str;
	int (*cmp)(const char *, const char *);
};

static int cmp_by_str(const void *a, const void *b, void *arg)
{
	const struct order_ctx *c = arg;

	return c->cmp(c->str[*(const uint32_t *)a], c->str[*(const uint32_t *)b]);
}

/* Fill column i of k (rows of stride numbers) with the rank of each row's
 * string. */
static int rank_strings(const void **rows, size_t n, const struct rank_key *key, size_t i,
                        size_t stride, uint64_t *k, rank_value_f value, void *arg)
{
	struct distinct d = {0};
	uint32_t *order = NULL;
	uint64_t *rank = NULL;
	int rc = -ENOMEM;

	d.size = 16;
	while (d.size < 2 * n)
		d.size *= 2;
	d.str = calloc(n ? n : 1, sizeof(*d.str));
	d.slot = calloc(d.size, sizeof(*d.slot));
	if (!d.str || !d.slot)
		goto out;
	for (size_t r = 0; r < n; r++) {
		char buf[256];
		uint64_t num = 0;
		const char *s = value(rows[r], i, buf, sizeof(buf), &num, arg);
		long idx = distinct_index(&d, s ? s : "");
		if (idx < 0)
			goto out;
		k[r * stride + i] = (uint64_t)idx;
	}
	order = malloc((d.count ? d.count : 1) * sizeof(*order));
	rank = malloc((d.count ? d.count : 1) * sizeof(*rank));
	if (!order || !rank)
		goto out;
	for (size_t j = 0; j < d.count; j++)
		order[j] = (uint32_t)j;
	qsort_r(order, d.count, sizeof(*order), cmp_by_str,
	        &(struct order_ctx){d.str, key->str_cmp});
	for (size_t j = 0; j < d.count; j++)
		rank[order[j]] = j && !key->str_cmp(d.str[order[j - 1]], d.str[order[j]])
		                     ? rank[order[j - 1]]
		                     : j;
	for (size_t r = 0; r < n; r++)
		k[r * stride + i] = rank[k[r * stride + i]];
	rc = 0;
out:
	free(order);
	free(rank);
	distinct_release(&d);
	return rc;
}

struct row_ctx {
	const uint64_t *k;
	const struct rank_key *keys;
	size_t nkeys;
};

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct row_ctx *c = arg;
	const uint64_t *a = c->k + *(const uint32_t *)pa * (c->nkeys + 1);
	const uint64_t *b = c->k + *(const uint32_t *)pb * (c->nkeys + 1);

	for (size_t i = 0; i <= c->nkeys; i++) {
		if (a[i] == b[i])
			continue;
		if (i < c->nkeys && c->keys[i].desc)
			return a[i] > b[i] ? -1 : 1;
		return a[i] < b[i] ? -1 : 1;
	}
	return 0;
}

int rank_sort(const void **rows, size_t n, const struct rank_key *keys, size_t nkeys,
              rank_value_f value, uint64_t (*tiebreak)(const void *row), void *arg)
{
	size_t stride = nkeys + 1; /* the keys, then the tiebreak */
	uint64_t *k = calloc(n ? n * stride : 1, sizeof(*k));
	uint32_t *perm = calloc(n ? n : 1, sizeof(*perm));
	const void **sorted = calloc(n ? n : 1, sizeof(*sorted));
	int rc = -ENOMEM;

	if (!k || !perm || !sorted || n > UINT32_MAX)
		goto out;
	for (size_t i = 0; i < nkeys; i++) {
		if (keys[i].str_cmp) {
			if (rank_strings(rows, n, &keys[i], i, stride, k, value, arg) < 0)
				goto out;
			continue;
		}
		for (size_t r = 0; r < n; r++) {
			char buf[8];
			uint64_t num = 0;
			value(rows[r], i, buf, sizeof(buf), &num, arg);
			k[r * stride + i] = num;
		}
	}
	for (size_t r = 0; r < n; r++) {
		k[r * stride + nkeys] = tiebreak(rows[r]);
		perm[r] = (uint32_t)r;
	}
	qsort_r(perm, n, sizeof(*perm), cmp_rows, &(struct row_ctx){k, keys, nkeys});
	for (size_t r = 0; r < n; r++)
		sorted[r] = rows[perm[r]];
	memcpy(rows, sorted, n * sizeof(*rows));
	rc = 0;
out:
	free(k);
	free(perm);
	free(sorted);
	return rc;
}
