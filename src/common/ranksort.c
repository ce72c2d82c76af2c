#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/ranksort.h"

/* The distinct strings of one key: open addressing over a power of two. */
struct distinct {
	char **str;     /* [count], owned */
	uint32_t *slot; /* [size]: index + 1 into str, 0 empty */
	size_t count, size, cap;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int distinct_grow(struct distinct *d)
{
	size_t size = d->size ? 2 * d->size : 64;
	uint32_t *slot = calloc(size, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t j = 0; j < d->count; j++) {
		size_t h = (size_t)hash_str(d->str[j]) & (size - 1);
		while (slot[h])
			h = (h + 1) & (size - 1);
		slot[h] = (uint32_t)j + 1;
	}
	free(d->slot);
	d->slot = slot;
	d->size = size;
	return 0;
}

/* The index of s among d's strings, added if new; -1 when out of memory. */
static long distinct_index(struct distinct *d, const char *s)
{
	size_t h;

	if (2 * (d->count + 1) > d->size && distinct_grow(d) < 0)
		return -1;
	h = (size_t)hash_str(s) & (d->size - 1);
	for (; d->slot[h]; h = (h + 1) & (d->size - 1))
		if (!strcmp(d->str[d->slot[h] - 1], s))
			return (long)d->slot[h] - 1;
	if (d->count == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		char **str = realloc(d->str, cap * sizeof(*str));
		if (!str)
			return -1;
		d->str = str;
		d->cap = cap;
	}
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

struct ranker {
	struct rank_key keys[RANK_MAX_KEYS];
	struct distinct d[RANK_MAX_KEYS];
	size_t nkeys, stride; /* the keys, then the tiebreak */
	uint64_t *k;          /* [n * stride] */
	size_t n, cap;
};

struct ranker *ranker_create(const struct rank_key *keys, size_t nkeys)
{
	struct ranker *r;

	if (nkeys > RANK_MAX_KEYS || !(r = calloc(1, sizeof(*r))))
		return NULL;
	memcpy(r->keys, keys, nkeys * sizeof(*keys));
	r->nkeys = nkeys;
	r->stride = nkeys + 1;
	return r;
}

void ranker_destroy(struct ranker *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nkeys; i++)
		distinct_release(&r->d[i]);
	free(r->k);
	free(r);
}

size_t ranker_count(const struct ranker *r)
{
	return r->n;
}

int ranker_add(struct ranker *r, const void *row, rank_value_f value, uint64_t tiebreak,
               void *arg)
{
	uint64_t *k;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		if (cap > UINT32_MAX ||
		    !(k = realloc(r->k, cap * r->stride * sizeof(*k))))
			return -ENOMEM;
		r->k = k;
		r->cap = cap;
	}
	k = r->k + r->n * r->stride;
	for (size_t i = 0; i < r->nkeys; i++) {
		char buf[256];
		uint64_t num = 0;
		const char *s = value(row, i, buf, sizeof(buf), &num, arg);

		if (r->keys[i].str_cmp) {
			long idx = distinct_index(&r->d[i], s ? s : "");
			if (idx < 0)
				return -ENOMEM;
			num = (uint64_t)idx;
		}
		k[i] = num;
	}
	k[r->nkeys] = tiebreak;
	r->n++;
	return 0;
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

/* Replace key i's string indexes with their ranks. */
static int rank_strings(struct ranker *r, size_t i)
{
	struct distinct *d = &r->d[i];
	size_t cnt = d->count ? d->count : 1;
	uint32_t *order = malloc(cnt * sizeof(*order));
	uint64_t *rank = malloc(cnt * sizeof(*rank));
	int (*cmp)(const char *, const char *) = r->keys[i].str_cmp;

	if (!order || !rank) {
		free(order);
		free(rank);
		return -ENOMEM;
	}
	for (size_t j = 0; j < d->count; j++)
		order[j] = (uint32_t)j;
	qsort_r(order, d->count, sizeof(*order), cmp_by_str,
	        &(struct order_ctx){d->str, cmp});
	for (size_t j = 0; j < d->count; j++)
		rank[order[j]] = j && !cmp(d->str[order[j - 1]], d->str[order[j]])
		                     ? rank[order[j - 1]]
		                     : j;
	for (size_t row = 0; row < r->n; row++)
		r->k[row * r->stride + i] = rank[r->k[row * r->stride + i]];
	free(order);
	free(rank);
	return 0;
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

static unsigned bit_width(uint64_t v)
{
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

/* When every row's keys fit in 64 bits together: each row as one number that
 * orders as its keys do (the first key highest), in *ret.  0, 1 when they do
 * not fit, or -ENOMEM. */
static int pack_keys(const struct ranker *r, uint64_t **ret)
{
	uint64_t max[RANK_MAX_KEYS + 1] = {0};
	unsigned shift[RANK_MAX_KEYS + 1], bits = 0;
	uint64_t *packed;

	for (size_t row = 0; row < r->n; row++)
		for (size_t i = 0; i < r->stride; i++)
			if (r->k[row * r->stride + i] > max[i])
				max[i] = r->k[row * r->stride + i];
	for (size_t i = r->stride; i-- > 0;) {
		shift[i] = bits;
		bits += bit_width(max[i]);
		if (bits > 64)
			return 1;
	}
	if (!(packed = malloc((r->n ? r->n : 1) * sizeof(*packed))))
		return -ENOMEM;
	for (size_t row = 0; row < r->n; row++) {
		const uint64_t *k = r->k + row * r->stride;
		uint64_t v = 0;

		for (size_t i = 0; i < r->stride; i++) {
			uint64_t x =
			    i < r->nkeys && r->keys[i].desc ? max[i] - k[i] : k[i];
			if (shift[i] < 64)
				v |= x << shift[i];
		}
		packed[row] = v;
	}
	*ret = packed;
	return 0;
}

/* Stable LSD radix sort of idx[0..n) by key[idx], a byte at a time; bytes
 * that every key shares are skipped. */
static int radix_order(const uint64_t *key, uint32_t *idx, size_t n)
{
	uint32_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));

	if (!tmp)
		return -ENOMEM;
	for (unsigned byte = 0; byte < 8; byte++) {
		size_t count[257] = {0};
		unsigned sh = 8 * byte;

		for (size_t j = 0; j < n; j++)
			count[((key[idx[j]] >> sh) & 0xff) + 1]++;
		if (count[((key[idx[0]] >> sh) & 0xff) + 1] == n)
			continue;
		for (size_t b = 1; b < 257; b++)
			count[b] += count[b - 1];
		for (size_t j = 0; j < n; j++)
			tmp[count[(key[idx[j]] >> sh) & 0xff]++] = idx[j];
		memcpy(idx, tmp, n * sizeof(*idx));
	}
	free(tmp);
	return 0;
}

int ranker_order(struct ranker *r, uint32_t **ret)
{
	uint32_t *perm = malloc((r->n ? r->n : 1) * sizeof(*perm));
	uint64_t *packed = NULL;
	int rc;

	if (!perm)
		return -ENOMEM;
	for (size_t i = 0; i < r->nkeys; i++)
		if (r->keys[i].str_cmp && rank_strings(r, i) < 0)
			goto nomem;
	for (size_t row = 0; row < r->n; row++)
		perm[row] = (uint32_t)row;
	/* the ranks are in: a second call would rank them again */
	for (size_t i = 0; i < r->nkeys; i++) {
		distinct_release(&r->d[i]);
		memset(&r->d[i], 0, sizeof(r->d[i]));
		r->keys[i].str_cmp = NULL;
	}
	if (r->n && (rc = pack_keys(r, &packed)) < 0)
		goto nomem;
	if (packed) {
		rc = radix_order(packed, perm, r->n);
		free(packed);
		if (rc < 0)
			goto nomem;
	} else {
		qsort_r(perm, r->n, sizeof(*perm), cmp_rows,
		        &(struct row_ctx){r->k, r->keys, r->nkeys});
	}
	*ret = perm;
	return 0;
nomem:
	free(perm);
	return -ENOMEM;
}

int rank_sort(const void **rows, size_t n, const struct rank_key *keys, size_t nkeys,
              rank_value_f value, uint64_t (*tiebreak)(const void *row), void *arg)
{
	struct ranker *r = ranker_create(keys, nkeys);
	const void **sorted = NULL;
	uint32_t *perm = NULL;
	int rc = -ENOMEM;

	if (!r || n > UINT32_MAX)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (ranker_add(r, rows[i], value, tiebreak(rows[i]), arg) < 0)
			goto out;
	if (!(sorted = malloc((n ? n : 1) * sizeof(*sorted))) ||
	    ranker_order(r, &perm) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		sorted[i] = rows[perm[i]];
	memcpy(rows, sorted, n * sizeof(*rows));
	rc = 0;
out:
	free(perm);
	free(sorted);
	ranker_destroy(r);
	return rc;
}

int rank_natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *da = a, *db = b;
			size_t la, lb, sa, sb;
			int c;

			while (*da == '0')
				da++;
			while (*db == '0')
				db++;
			for (sa = 0; isdigit((unsigned char)da[sa]); sa++)
				;
			for (sb = 0; isdigit((unsigned char)db[sb]); sb++)
				;
			if (sa != sb)
				return sa < sb ? -1 : 1;
			if ((c = strncmp(da, db, sa)))
				return c;
			la = (size_t)(da - a) + sa;
			lb = (size_t)(db - b) + sb;
			if (la != lb)
				return la < lb ? -1 : 1;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}
