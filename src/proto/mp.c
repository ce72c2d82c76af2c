/* mp.c - msgpack written and read in place (see mp.h). */
#include <stdlib.h>
#include "proto/mp.h"
#include "common/common.h"

void mp_grow(struct mp_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;

	while (cap - b->len < n)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

char *mp_release(struct mp_buf *b, size_t *ret_len)
{
	char *data = b->data ? b->data : xmalloc(1);

	*ret_len = b->len;
	*b = (struct mp_buf){0};
	return data;
}

/* The type byte then v in n big-endian bytes. */
static void put_be(struct mp_buf *b, uint8_t code, uint64_t v, int n)
{
	char *p = mp_room(b, 1 + (size_t)n);

	p[0] = (char)code;
	for (int k = n; k > 0; k--, v >>= 8)
		p[k] = (char)(v & 0xff);
	b->len += 1 + (size_t)n;
}

void mp_put_uint(struct mp_buf *b, uint64_t v)
{
	if (v <= 0x7f) {
		*mp_room(b, 1) = (char)v;
		b->len++;
	} else if (v <= UINT8_MAX) {
		put_be(b, 0xcc, v, 1);
	} else if (v <= UINT16_MAX) {
		put_be(b, 0xcd, v, 2);
	} else if (v <= UINT32_MAX) {
		put_be(b, 0xce, v, 4);
	} else {
		put_be(b, 0xcf, v, 8);
	}
}

void mp_put_int(struct mp_buf *b, int64_t v)
{
	if (v >= 0) {
		mp_put_uint(b, (uint64_t)v);
	} else if (v >= -32) {
		*mp_room(b, 1) = (char)(uint8_t)(0xe0 | (v + 32));
		b->len++;
	} else if (v >= INT8_MIN) {
		put_be(b, 0xd0, (uint64_t)v, 1);
	} else if (v >= INT16_MIN) {
		put_be(b, 0xd1, (uint64_t)v, 2);
	} else if (v >= INT32_MIN) {
		put_be(b, 0xd2, (uint64_t)v, 4);
	} else {
		put_be(b, 0xd3, (uint64_t)v, 8);
	}
}

void mp_put_nil(struct mp_buf *b)
{
	*mp_room(b, 1) = (char)0xc0;
	b->len++;
}

/* A header with a fix form (up to fix_max, code fix|n) or 8/16/32-bit forms
 * (c8 0 when there is none). */
static void put_head(struct mp_buf *b, uint64_t n, uint8_t fix, uint64_t fix_max,
                     uint8_t c8, uint8_t c16, uint8_t c32)
{
	if (fix && n <= fix_max) {
		*mp_room(b, 1) = (char)(uint8_t)(fix | n);
		b->len++;
	} else if (c8 && n <= UINT8_MAX) {
		put_be(b, c8, n, 1);
	} else if (n <= UINT16_MAX) {
		put_be(b, c16, n, 2);
	} else {
		put_be(b, c32, n, 4);
	}
}

void mp_put_str(struct mp_buf *b, const char *s, size_t len)
{
	put_head(b, len, 0xa0, 31, 0xd9, 0xda, 0xdb);
	mp_put_raw(b, s, len);
}

void mp_put_bin(struct mp_buf *b, const void *p, size_t len)
{
	put_head(b, len, 0, 0, 0xc4, 0xc5, 0xc6);
	mp_put_raw(b, p, len);
}

void mp_put_array(struct mp_buf *b, uint32_t n)
{
	put_head(b, n, 0x90, 15, 0, 0xdc, 0xdd);
}

void mp_put_map(struct mp_buf *b, uint32_t n)
{
	put_head(b, n, 0x80, 15, 0, 0xde, 0xdf);
}

/* ---- reading ---- */

static int take_be(struct mp_reader *r, int n, uint64_t *v)
{
	if (r->end - r->p < n)
		return -1;
	*v = 0;
	for (int k = 0; k < n; k++)
		*v = *v << 8 | *r->p++;
	return 0;
}

/* Step over n payload bytes, which must be there. */
static int take_payload(struct mp_reader *r, struct mp_item *it, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n)
		return -1;
	it->ptr = (const char *)r->p;
	it->n = n;
	r->p += n;
	return 0;
}

/* A str, bin or ext whose length is in the next n bytes (extra more follow). */
static int take_sized(struct mp_reader *r, struct mp_item *it, enum mp_kind kind, int n,
                      uint64_t extra)
{
	uint64_t v;

	it->kind = kind;
	return take_be(r, n, &v) < 0 ? -1 : take_payload(r, it, v + extra);
}

/* An array or map of n entries: each takes a byte at least. */
static int take_count(struct mp_reader *r, struct mp_item *it, enum mp_kind kind,
                      uint64_t n)
{
	it->kind = kind;
	it->n = n;
	return n * (kind == MP_MAP ? 2 : 1) > (uint64_t)(r->end - r->p) ? -1 : 0;
}

int mp_read(struct mp_reader *r, struct mp_item *it)
{
	uint64_t v;
	uint8_t c;
	int n;

	if (r->p >= r->end)
		return -1;
	c = *r->p++;
	it->u = 0;
	it->i = 0;
	if (c <= 0x7f) {
		it->kind = MP_UINT;
		it->u = c;
		return 0;
	}
	if (c >= 0xe0) {
		it->kind = MP_INT;
		it->i = (int8_t)c;
		return 0;
	}
	if (c <= 0x8f)
		return take_count(r, it, MP_MAP, c & 0x0f);
	if (c <= 0x9f)
		return take_count(r, it, MP_ARRAY, c & 0x0f);
	if (c <= 0xbf) {
		it->kind = MP_STR;
		return take_payload(r, it, c & 0x1f);
	}
	switch (c) {
	case 0xc0:
		it->kind = MP_NIL;
		return 0;
	case 0xc2:
	case 0xc3:
		it->kind = MP_BOOL;
		it->u = c == 0xc3;
		return 0;
	case 0xc4:
	case 0xc5:
	case 0xc6:
		return take_sized(r, it, MP_BIN, 1 << (c - 0xc4), 0);
	case 0xd9:
	case 0xda:
	case 0xdb:
		return take_sized(r, it, MP_STR, 1 << (c - 0xd9), 0);
	case 0xc7:
	case 0xc8:
	case 0xc9: /* the length, then a type byte */
		return take_sized(r, it, MP_EXT, 1 << (c - 0xc7), 1);
	case 0xd4:
	case 0xd5:
	case 0xd6:
	case 0xd7:
	case 0xd8:
		it->kind = MP_EXT;
		return take_payload(r, it, 1 + (1u << (c - 0xd4)));
	case 0xca:
	case 0xcb:
		it->kind = MP_FLOAT;
		return take_payload(r, it, c == 0xca ? 4 : 8);
	case 0xcc:
	case 0xcd:
	case 0xce:
	case 0xcf:
		it->kind = MP_UINT;
		return take_be(r, 1 << (c - 0xcc), &it->u);
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		n = 1 << (c - 0xd0);
		if (take_be(r, n, &v) < 0)
			return -1;
		/* sign-extend the n-byte value */
		it->i = n == 8 ? (int64_t)v
		               : (int64_t)(v ^ (1ull << (8 * n - 1))) -
		                     (int64_t)(1ull << (8 * n - 1));
		/* msgpack-c reads a signed form holding a value >= 0 as unsigned */
		if (it->i >= 0) {
			it->kind = MP_UINT;
			it->u = (uint64_t)it->i;
		} else {
			it->kind = MP_INT;
		}
		return 0;
	case 0xdc:
	case 0xdd:
		return take_be(r, c == 0xdc ? 2 : 4, &v) < 0
		           ? -1
		           : take_count(r, it, MP_ARRAY, v);
	case 0xde:
	case 0xdf:
		return take_be(r, c == 0xde ? 2 : 4, &v) < 0
		           ? -1
		           : take_count(r, it, MP_MAP, v);
	}
	return -1; /* 0xc1, never used */
}

int mp_skip(struct mp_reader *r)
{
	uint64_t pending = 1;

	while (pending > 0) {
		struct mp_item it;

		if (mp_read(r, &it) < 0)
			return -1;
		pending--;
		if (it.kind == MP_ARRAY)
			pending += it.n;
		else if (it.kind == MP_MAP)
			pending += 2 * it.n;
		/* each pending value takes a byte at least */
		if (pending > (uint64_t)(r->end - r->p))
			return -1;
	}
	return 0;
}
