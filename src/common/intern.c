/* intern.c - one copy of each identical text, counted (see intern.h).
 *
 * A chained hash table keyed by content (FNV-1a over the bytes, and for a
 * vector over each string and its terminating NUL, so that {"ab"} and
 * {"a", "b"} differ), grown to keep chains short.  A drop hashes the text
 * again to find its entry: no per-copy header, so a kept copy is an ordinary
 * string or vector that the rest of the code reads as before.
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
	void *text; /* char * or char ** */
	struct entry *next;
};

struct intern {
	struct entry **buckets;
	size_t nbuckets; /* a power of two */
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
	free(in);
}

static void grow(struct intern *in)
{
	size_t n = in->nbuckets * 2;
	struct entry **b = xcalloc(n, sizeof(*b));

	for (size_t i = 0; i < in->nbuckets; i++)
		for (struct entry *e = in->buckets[i], *next; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	free(in->buckets);
	in->buckets = b;
	in->nbuckets = n;
}

static void *keep(struct intern *in, void *text, int is_vec)
{
	uint64_t h;
	struct entry *e;

	if (!text)
		return NULL;
	h = hash_text(text, is_vec);
	for (e = in->buckets[h & (in->nbuckets - 1)]; e; e = e->next)
		if (e->hash == h && e->is_vec == is_vec &&
		    same_text(e->text, text, is_vec)) {
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
	in->count++;
	in->refs++;
	return text;
}

static void drop(struct intern *in, void *text, int is_vec)
{
	uint64_t h;
	struct entry **p;

	if (!text)
		return;
	h = hash_text(text, is_vec);
	for (p = &in->buckets[h & (in->nbuckets - 1)]; *p; p = &(*p)->next) {
		struct entry *e = *p;

		if (e->text != text)
			continue;
		in->refs--;
		if (--e->refs == 0) {
			*p = e->next;
			text_free(e->text, e->is_vec);
			free(e);
			in->count--;
		}
		return;
	}
	/* not one of ours: a caller's bug, but the text is still its to free */
	text_free(text, is_vec);
}

char *intern_str(struct intern *in, char *s)
{
	return keep(in, s, 0);
}

char **intern_strv(struct intern *in, char **v)
{
	return keep(in, v, 1);
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
