/* mp.h - the msgpack the codec speaks, written and read in place.
 *
 * A writer appends to a growing buffer with the shortest form of each value
 * (what msgpack-c's packer and Python's msgpack write: the canonical form the
 * job credential is signed over).  A reader takes one value's head at a time
 * from a bounded byte range: every length and count is checked against the
 * bytes that are left before anyone allocates for it, and skipping a value
 * of any depth uses no recursion.  No object tree is built: the codec decodes
 * straight into its structs (proto/codec.c).
 */
#ifndef ROTA_MP_H
#define ROTA_MP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct mp_buf {
	char *data;
	size_t len, cap;
};

/* Make room for n more bytes (aborts on ENOMEM, as xmalloc does). */
void mp_grow(struct mp_buf *b, size_t n);
/* The buffer's bytes, now the caller's (free()); b is empty again. */
char *mp_release(struct mp_buf *b, size_t *ret_len);

static inline char *mp_room(struct mp_buf *b, size_t n)
{
	if (b->cap - b->len < n)
		mp_grow(b, n);
	return b->data + b->len;
}

static inline void mp_put_raw(struct mp_buf *b, const void *p, size_t n)
{
	if (!n) /* p may be NULL (an absent bin) */
		return;
	memcpy(mp_room(b, n), p, n);
	b->len += n;
}

void mp_put_uint(struct mp_buf *b, uint64_t v);
void mp_put_int(struct mp_buf *b, int64_t v);
void mp_put_nil(struct mp_buf *b);
/* A str or bin with its bytes; an array's or map's header (its n entries, or
 * n key/value pairs, follow). */
void mp_put_str(struct mp_buf *b, const char *s, size_t len);
void mp_put_bin(struct mp_buf *b, const void *p, size_t len);
void mp_put_array(struct mp_buf *b, uint32_t n);
void mp_put_map(struct mp_buf *b, uint32_t n);

enum mp_kind {
	MP_NIL,
	MP_BOOL,
	MP_UINT,  /* u */
	MP_INT,   /* i: a negative integer */
	MP_FLOAT, /* not decoded: its bytes are skipped */
	MP_STR,   /* ptr, n bytes */
	MP_BIN,   /* ptr, n bytes */
	MP_ARRAY, /* n entries follow */
	MP_MAP,   /* n key/value pairs follow */
	MP_EXT,   /* ptr, n bytes (after the ext type byte) */
};

struct mp_item {
	enum mp_kind kind;
	uint64_t u;
	int64_t i;
	const char *ptr;
	uint64_t n;
};

struct mp_reader {
	const uint8_t *p, *end;
};

/* Read the next value's head into *it and step over it (and over the payload
 * of a str, bin or ext).  An array or map of n entries is refused when fewer
 * than n (2n) bytes are left.  Returns 0, or -1 when the bytes are truncated,
 * invalid (0xc1) or the count cannot fit. */
int mp_read(struct mp_reader *r, struct mp_item *it);
/* Step over one whole value, however deep. */
int mp_skip(struct mp_reader *r);

#endif
