/* intern.c - one copy of each identical text, counted (see intern.h).
 *
 * A chained hash table keyed by content (FNV-1a over the bytes, and for a
 * vector over each string and its terminating NUL, so that {"ab"} and
 * {"a", "b"} differ), grown to keep chains short.  A second table finds an
 * entry from its kept copy's address, so that handing over or dropping a kept
 * copy costs no hashing of its text: no per-copy header, so a kept copy is an
 * ordinary string or vector that the rest of the code reads as before.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/intern.h"
#include "common/strv.h"
#include "common/common.h"

struct entry {
	uint64_t hash;
	size_t refs;
	int is_vec;
	void *text;          /* char * or char ** */
	struct entry *next;  /* same content hash bucket */
	struct entry *pnext; /* same address bucket */
	struct intern_tag tag;
};

struct intern {
	struct entry **buckets;  /* by content */
	struct entry **pbuckets; /* by the kept copy's address */
	size_t nbuckets;         /* of each; a power of two */
	size_t count, refs;
};

#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME  1099511628211ull

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * FNV_PRIME;
	return h;
}

static size_t ptr_bucket(const struct intern *in, const void *text)
{
	uint64_t h = (uint64_t)(uintptr_t)text * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (in->nbuckets - 1);
}

static struct entry *find_kept(const struct intern *in, const void *text, int is_vec)
{
	for (struct entry *e = in->pbuckets[ptr_bucket(in, text)]; e; e = e->pnext)
		if (e->text == text && e->is_vec == is_vec)
			return e;
	return NULL;
}

static uint64_t hash_text(const void *text, int is_vec)
{
	uint64_t h = FNV_OFFSET ^ (uint64_t)is_vec;

	if (!is_vec)
		return fnv(h, text, strlen(text) + 1);
	for (char *const *v = text; *v; v++)
		h = fnv(h, *v, strlen(*v) + 1);
	return h;
}

static int same_text(const void *a, const void *b, int is_vec)
{
	char *const *va = a, *const *vb = b;

	if (!is_vec)
		return !strcmp(a, b);
	for (; *va && *vb; va++, vb++)
		if (strcmp(*va, *vb))
			return 0;
	return !*va && !*vb;
}

static void text_free(void *text, int is_vec)
{
	if (is_vec)
		strv_free(text);
	else
		free(text);
}

struct intern *intern_create(void)
{
	struct intern *in = xcalloc(1, sizeof(*in));

	in->nbuckets = 64;
	in->buckets = xcalloc(in->nbuckets, sizeof(*in->buckets));
	in->pbuckets = xcalloc(in->nbuckets, sizeof(*in->pbuckets));
	return in;
}

void intern_destroy(struct intern *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->nbuckets; i++)
		for (struct entry *e = in->buckets[i], *next; e; e = next) {
			next = e->next;
			text_free(e->text, e->is_vec);
			free(e);
		}
	free(in->buckets);
	free(in->pbuckets);
	free(in);
}

static void grow(struct intern *in)
{
	size_t n = in->nbuckets * 2;
	struct entry **b = xcalloc(n, sizeof(*b));

	free(in->pbuckets);
	in->pbuckets = xcalloc(n, sizeof(*in->pbuckets));
	for (size_t i = 0; i < in->nbuckets; i++)
		for (struct entry *e = in->buckets[i], *next; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	free(in->buckets);
	in->buckets = b;
	in->nbuckets = n;
	for (size_t i = 0; i < n; i++)
		for (struct entry *e = b[i]; e; e = e->next) {
			size_t k = ptr_bucket(in, e->text);
			e->pnext = in->pbuckets[k];
			in->pbuckets[k] = e;
		}
}

/* The entry of text, a kept copy or not (NULL: no such text is kept). */
static struct entry *find(const struct intern *in, const void *text, int is_vec,
                          uint64_t *ret_hash)
{
	struct entry *e = find_kept(in, text, is_vec);
	uint64_t h;

	if (e)
		return e;
	h = hash_text(text, is_vec);
	if (ret_hash)
		*ret_hash = h;
	for (e = in->buckets[h & (in->nbuckets - 1)]; e; e = e->next)
		if (e->hash == h && e->is_vec == is_vec &&
		    same_text(e->text, text, is_vec))
			return e;
	return NULL;
}

static void *keep(struct intern *in, void *text, int is_vec)
{
	uint64_t h = 0;
	struct entry *e;
	size_t k;

	if (!text)
		return NULL;
	if ((e = find(in, text, is_vec, &h))) {
		if (e->text != text)
			text_free(text, is_vec);
		e->refs++;
		in->refs++;
		return e->text;
	}
	if (in->count >= in->nbuckets)
		grow(in);
	e = xcalloc(1, sizeof(*e));
	e->hash = h;
	e->refs = 1;
	e->is_vec = is_vec;
	e->text = text;
	e->next = in->buckets[h & (in->nbuckets - 1)];
	in->buckets[h & (in->nbuckets - 1)] = e;
	k = ptr_bucket(in, text);
	e->pnext = in->pbuckets[k];
	in->pbuckets[k] = e;
	in->count++;
	in->refs++;
	return text;
}

static void unlink_entry(struct intern *in, struct entry *e)
{
	struct entry **p;

	for (p = &in->buckets[e->hash & (in->nbuckets - 1)]; *p != e; p = &(*p)->next)
		;
	*p = e->next;
	for (p = &in->pbuckets[ptr_bucket(in, e->text)]; *p != e; p = &(*p)->pnext)
		;
	*p = e->pnext;
}

static void drop(struct intern *in, void *text, int is_vec)
{
	struct entry *e;

	if (!text)
		return;
	if (!(e = find_kept(in, text, is_vec))) {
		/* not one of ours: a caller's bug, but the text is still its to
		 * free */
		text_free(text, is_vec);
		return;
	}
	in->refs--;
	if (--e->refs == 0) {
		unlink_entry(in, e);
		text_free(e->text, e->is_vec);
		free(e);
		in->count--;
	}
}

char *intern_str(struct intern *in, char *s)
{
	return keep(in, s, 0);
}

char **intern_strv(struct intern *in, char **v)
{
	return keep(in, v, 1);
}

static void hold(struct intern *in, const void *text, int is_vec, size_t n)
{
	struct entry *e = text ? find_kept(in, text, is_vec) : NULL;

	if (e) {
		e->refs += n;
		in->refs += n;
	}
}

void intern_hold_str(struct intern *in, const char *s, size_t n)
{
	hold(in, s, 0, n);
}

void intern_hold_strv(struct intern *in, char *const *v, size_t n)
{
	hold(in, v, 1, n);
}

void intern_drop_str(struct intern *in, char *s)
{
	drop(in, s, 0);
}

void intern_drop_strv(struct intern *in, char **v)
{
	drop(in, v, 1);
}

size_t intern_count(const struct intern *in, size_t *ret_refs)
{
	if (ret_refs)
		*ret_refs = in->refs;
	return in->count;
}

struct intern_tag *intern_tag_str(struct intern *in, const char *s)
{
	struct entry *e = s ? find(in, s, 0, NULL) : NULL;

	return e ? &e->tag : NULL;
}

struct intern_tag *intern_tag_strv(struct intern *in, char *const *v)
{
	struct entry *e = v ? find(in, v, 1, NULL) : NULL;

	return e ? &e->tag : NULL;
}
