/* pmi_kvs.c - a PMI key-value space (see pmi_kvs.h): an open-addressing hash
 * table of owned strings. */
#include <stdlib.h>
#include <string.h>
#include "stepd/pmi_kvs.h"
#include "common/common.h"

/* What an entry costs beyond its bytes (slot, allocations): counted against
 * PMI_KVS_BYTES_MAX so that many tiny keys cannot take more. */
#define KV_OVERHEAD 64

struct kv {
	char *key; /* NULL: empty slot */
	char *val;
};

struct pmi_kvs {
	struct kv *slot;
	size_t cap; /* a power of two, or 0 */
	size_t count;
	size_t bytes; /* keys and values held */
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

struct pmi_kvs *pmi_kvs_create(void)
{
	return xcalloc(1, sizeof(struct pmi_kvs));
}

void pmi_kvs_clear(struct pmi_kvs *kvs)
{
	for (size_t i = 0; i < kvs->cap; i++) {
		free(kvs->slot[i].key);
		free(kvs->slot[i].val);
		kvs->slot[i] = (struct kv){NULL, NULL};
	}
	kvs->count = kvs->bytes = 0;
}

void pmi_kvs_destroy(struct pmi_kvs *kvs)
{
	if (!kvs)
		return;
	pmi_kvs_clear(kvs);
	free(kvs->slot);
	free(kvs);
}

size_t pmi_kvs_count(const struct pmi_kvs *kvs)
{
	return kvs->count;
}

static struct kv *find(const struct pmi_kvs *kvs, const char *key)
{
	size_t mask = kvs->cap - 1, i;

	if (!kvs->cap)
		return NULL;
	for (i = hash(key) & mask;; i = (i + 1) & mask) {
		struct kv *s = &kvs->slot[i];
		if (!s->key || !strcmp(s->key, key))
			return s;
	}
}

static void grow(struct pmi_kvs *kvs)
{
	struct kv *old = kvs->slot;
	size_t old_cap = kvs->cap;

	kvs->cap = old_cap ? old_cap * 2 : 64;
	kvs->slot = xcalloc(kvs->cap, sizeof(*kvs->slot));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].key)
			*find(kvs, old[i].key) = old[i];
	free(old);
}

int pmi_kvs_put(struct pmi_kvs *kvs, const char *key, const char *val)
{
	size_t kl = strlen(key), vl = strlen(val);
	struct kv *s;

	if (!kl || kl > PMI_KVS_KEY_MAX || vl > PMI_KVS_VAL_MAX)
		return -1;
	if ((kvs->count + 1) * 2 > kvs->cap)
		grow(kvs);
	s = find(kvs, key);
	if (s->key) {
		size_t ol = strlen(s->val);
		if (kvs->bytes - ol + vl > PMI_KVS_BYTES_MAX)
			return -1;
		free(s->val);
		s->val = xstrdup(val);
		kvs->bytes = kvs->bytes - ol + vl;
		return 0;
	}
	if (kvs->bytes + kl + vl + KV_OVERHEAD > PMI_KVS_BYTES_MAX)
		return -1;
	s->key = xstrdup(key);
	s->val = xstrdup(val);
	kvs->count++;
	kvs->bytes += kl + vl + KV_OVERHEAD;
	return 0;
}

const char *pmi_kvs_get(const struct pmi_kvs *kvs, const char *key)
{
	const struct kv *s = find(kvs, key);

	return s && s->key ? s->val : NULL;
}

static uint8_t *put_str(uint8_t *p, const char *s, size_t n)
{
	for (int b = 0; b < 4; b++)
		*p++ = (uint8_t)(n >> (8 * b));
	memcpy(p, s, n);
	return p + n;
}

void pmi_kvs_encode(const struct pmi_kvs *kvs, uint8_t **ret, size_t *ret_len)
{
	size_t len = kvs->bytes + kvs->count * 8;
	uint8_t *buf = xmalloc(len ? len : 1), *p = buf;

	for (size_t i = 0; i < kvs->cap; i++) {
		const struct kv *s = &kvs->slot[i];
		if (!s->key)
			continue;
		p = put_str(p, s->key, strlen(s->key));
		p = put_str(p, s->val, strlen(s->val));
	}
	*ret = buf;
	*ret_len = (size_t)(p - buf);
}

/* One string of a record at *off: copied into buf (NUL-terminated). */
static int get_str(const uint8_t *p, size_t n, size_t *off, char *buf, size_t max)
{
	uint32_t len = 0;

	if (n - *off < 4)
		return -1;
	for (int b = 0; b < 4; b++)
		len |= (uint32_t)p[*off + b] << (8 * b);
	*off += 4;
	if (len > max || n - *off < len || memchr(p + *off, '\0', len))
		return -1;
	memcpy(buf, p + *off, len);
	buf[len] = '\0';
	*off += len;
	return 0;
}

long pmi_kvs_decode(struct pmi_kvs *kvs, const uint8_t *p, size_t n)
{
	char key[PMI_KVS_KEY_MAX + 1], val[PMI_KVS_VAL_MAX + 1];
	size_t off = 0;
	long count = 0;

	while (off < n) {
		if (get_str(p, n, &off, key, PMI_KVS_KEY_MAX) < 0 ||
		    get_str(p, n, &off, val, PMI_KVS_VAL_MAX) < 0 ||
		    pmi_kvs_put(kvs, key, val) < 0)
			return -1;
		count++;
	}
	return count;
}
