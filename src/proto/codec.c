/* codec.c - msgpack (proto/mp.h) and JSON encoding driven by struct rota_type
 * descriptors. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "proto/codec.h"
#include "proto/mp.h"
#include "common/common.h"

/* An out-of-line part with nothing in it (read through codec_field). */
static const uint64_t zero_part[128];

const void *codec_field(const struct rota_field *f, const void *obj)
{
	const char *x;

	if (!f->ext_size)
		return (const char *)obj + f->offset;
	x = *(char *const *)((const char *)obj + f->ext_at);
	return (x ? x : (const char *)zero_part) + f->offset;
}

void *codec_field_mut(const struct rota_field *f, void *obj)
{
	char **x;

	if (!f->ext_size)
		return (char *)obj + f->offset;
	x = (char **)((char *)obj + f->ext_at);
	if (!*x)
		*x = xcalloc(1, f->ext_size);
	return *x + f->offset;
}

void *codec_field_if(const struct rota_field *f, void *obj)
{
	char *x;

	if (!f->ext_size)
		return (char *)obj + f->offset;
	x = *(char **)((char *)obj + f->ext_at);
	return x ? x + f->offset : NULL;
}

#define FIELD_PTR(obj, f) ((const char *)codec_field(f, obj))

static void pack_obj(struct mp_buf *b, const struct rota_type *t, const void *obj);

static void pack_field(struct mp_buf *b, const struct rota_field *f, const void *obj)
{
	const char *p = FIELD_PTR(obj, f);

	switch (f->kind) {
	case FK_U32:
		mp_put_uint(b, *(const uint32_t *)p);
		break;
	case FK_I32:
		mp_put_int(b, *(const int32_t *)p);
		break;
	case FK_U64:
		mp_put_uint(b, *(const uint64_t *)p);
		break;
	case FK_I64:
		mp_put_int(b, *(const int64_t *)p);
		break;
	case FK_STR: {
		const char *s = *(char *const *)p;
		if (s)
			mp_put_str(b, s, strlen(s));
		else
			mp_put_nil(b);
		break;
	}
	case FK_BIN: {
		const struct rota_bin *v = (const struct rota_bin *)p;
		mp_put_bin(b, v->data, v->len);
		break;
	}
	case FK_STRV: {
		char *const *v = *(char **const *)p;
		size_t n = strv_len(v);
		mp_put_array(b, (uint32_t)n);
		for (size_t i = 0; i < n; i++)
			mp_put_str(b, v[i], strlen(v[i]));
		break;
	}
	case FK_U32V: {
		const struct rota_u32v *v = (const struct rota_u32v *)p;
		mp_put_array(b, v->n);
		for (uint32_t i = 0; i < v->n; i++)
			mp_put_uint(b, v->v[i]);
		break;
	}
	case FK_LIST: {
		const char *items = *(char *const *)p;
		uint32_t n = *(const uint32_t *)((const char *)obj + f->count_offset);
		mp_put_array(b, n);
		for (uint32_t i = 0; i < n; i++)
			pack_obj(b, f->sub, items + i * f->sub->size);
		break;
	}
	}
}

/* A number that is 0 or a string that is absent is left out: the decoder
 * reads a missing key as exactly that (arrays are always sent). */
static int field_is_zero(const struct rota_field *f, const void *obj)
{
	const char *p = FIELD_PTR(obj, f);

	switch (f->kind) {
	case FK_U32:
	case FK_I32:
		return !*(const uint32_t *)p;
	case FK_U64:
	case FK_I64:
		return !*(const uint64_t *)p;
	case FK_STR:
		return !*(char *const *)p;
	default:
		return 0;
	}
}

/* One pass over the fields: the map's head is written after them, in its
 * shortest form (a fixmap in the byte kept for it, else the body is moved up
 * to make room), so the bytes are what counting first would give. */
static void pack_obj(struct mp_buf *b, const struct rota_type *t, const void *obj)
{
	size_t at = b->len;
	uint32_t n = 0;

	*mp_room(b, 1) = 0;
	b->len++;
	for (size_t i = 0; i < t->nfields; i++) {
		const struct rota_field *f = &t->fields[i];
		if (field_is_zero(f, obj))
			continue;
		n++;
		mp_put_str(b, f->name, f->name_len);
		pack_field(b, f, obj);
	}
	if (n <= 15) {
		b->data[at] = (char)(0x80 | n);
		return;
	}
	/* map 16 (3 bytes) or map 32 (5): the head grows by 2 or 4 */
	{
		uint8_t head[5];
		size_t len = 0, body = b->len - at - 1;

		head[len++] = n <= UINT16_MAX ? 0xde : 0xdf;
		for (int k = n <= UINT16_MAX ? 1 : 3; k >= 0; k--)
			head[len++] = (uint8_t)(n >> (8 * k));
		mp_room(b, len - 1);
		memmove(b->data + at + len, b->data + at + 1, body);
		memcpy(b->data + at, head, len);
		b->len = at + len + body;
	}
}

void codec_encode_into(const struct rota_type *t, const void *obj, struct mp_buf *b)
{
	pack_obj(b, t, obj);
}

int codec_encode(const struct rota_type *t, const void *obj, char **ret_buf,
                 size_t *ret_len)
{
	struct mp_buf b = {0};

	pack_obj(&b, t, obj);
	*ret_buf = mp_release(&b, ret_len);
	return 0;
}

/* ---- decoding ---- */

static int get_uint(const struct mp_item *it, uint64_t max, uint64_t *out)
{
	if (it->kind == MP_UINT && it->u <= max) {
		*out = it->u;
		return 0;
	}
	return -1;
}

static int get_int(const struct mp_item *it, int64_t min, int64_t max, int64_t *out)
{
	if (it->kind == MP_UINT && it->u <= (uint64_t)max) {
		*out = (int64_t)it->u;
		return 0;
	}
	if (it->kind == MP_INT && it->i >= min) {
		*out = it->i;
		return 0;
	}
	return -1;
}

static char *dup_str(const struct mp_item *it)
{
	if (it->kind != MP_STR || it->n > CODEC_MAX_STR)
		return NULL;
	if (memchr(it->ptr, '\0', it->n))
		return NULL; /* embedded NULs would be silently truncated later */
	return xstrndup(it->ptr, it->n);
}

/* The next value, which must be an array of at most CODEC_MAX_ITEMS. */
static int read_array(struct mp_reader *r, struct mp_item *it)
{
	if (mp_read(r, it) < 0 || it->kind != MP_ARRAY || it->n > CODEC_MAX_ITEMS)
		return -1;
	return 0;
}

static int unpack_obj(const struct rota_type *t, struct mp_reader *r, void *obj,
                      struct rota_error *err);

static int unpack_field(const struct rota_field *f, struct mp_reader *r, void *obj,
                        struct rota_error *err)
{
	char *p = codec_field_mut(f, obj);
	struct mp_item it;
	uint64_t u;
	int64_t s;

	switch (f->kind) {
	case FK_U32:
		if (mp_read(r, &it) < 0 || get_uint(&it, UINT32_MAX, &u) < 0)
			goto bad;
		*(uint32_t *)p = (uint32_t)u;
		return 0;
	case FK_U64:
		if (mp_read(r, &it) < 0 || get_uint(&it, UINT64_MAX, &u) < 0)
			goto bad;
		*(uint64_t *)p = u;
		return 0;
	case FK_I32:
		if (mp_read(r, &it) < 0 || get_int(&it, INT32_MIN, INT32_MAX, &s) < 0)
			goto bad;
		*(int32_t *)p = (int32_t)s;
		return 0;
	case FK_I64:
		if (mp_read(r, &it) < 0 || get_int(&it, INT64_MIN, INT64_MAX, &s) < 0)
			goto bad;
		*(int64_t *)p = s;
		return 0;
	case FK_STR:
		if (mp_read(r, &it) < 0)
			goto bad;
		if (it.kind == MP_NIL)
			return 0;
		if (!(*(char **)p = dup_str(&it)))
			goto bad;
		return 0;
	case FK_BIN: {
		struct rota_bin *b = (struct rota_bin *)p;
		if (mp_read(r, &it) < 0 || it.kind != MP_BIN || it.n > CODEC_MAX_STR)
			goto bad;
		b->data = xmalloc(it.n ? it.n : 1);
		memcpy(b->data, it.ptr, it.n);
		b->len = (uint32_t)it.n;
		return 0;
	}
	case FK_STRV: {
		char **v;
		if (read_array(r, &it) < 0)
			goto bad;
		v = xcalloc(it.n + 1, sizeof(char *));
		*(char ***)p = v;
		for (uint64_t i = 0; i < it.n; i++) {
			struct mp_item e;
			if (mp_read(r, &e) < 0 || !(v[i] = dup_str(&e)))
				goto bad;
		}
		return 0;
	}
	case FK_U32V: {
		struct rota_u32v *v = (struct rota_u32v *)p;
		if (read_array(r, &it) < 0)
			goto bad;
		v->v = xcalloc(it.n ? it.n : 1, sizeof(uint32_t));
		v->n = (uint32_t)it.n;
		for (uint32_t i = 0; i < v->n; i++) {
			struct mp_item e;
			if (mp_read(r, &e) < 0 || get_uint(&e, UINT32_MAX, &u) < 0)
				goto bad;
			v->v[i] = (uint32_t)u;
		}
		return 0;
	}
	case FK_LIST: {
		uint32_t *count = (uint32_t *)((char *)obj + f->count_offset);
		char *items;
		if (read_array(r, &it) < 0)
			goto bad;
		items = xcalloc(it.n ? it.n : 1, f->sub->size);
		*(char **)p = items;
		for (uint32_t i = 0; i < it.n; i++) {
			/* counted first: a half-decoded item is released too */
			*count = i + 1;
			if (unpack_obj(f->sub, r, items + i * f->sub->size, err) < 0)
				return -1;
		}
		return 0;
	}
	}
bad:
	return errprintf(err, "field '%s': wrong type or too large", f->name);
}

static int field_is(const struct rota_field *f, const char *name, size_t len)
{
	return f->name_len == len && !memcmp(f->name, name, len);
}

/* The field named name[0..len).  Encoders write the fields in their declared
 * order, so the one after the last found (*next) is tried first: decoding a
 * message from a peer of the same version looks at one field per key; keys
 * in another order, or unknown, cost a scan. */
static const struct rota_field *field_find(const struct rota_type *t, const char *name,
                                           size_t len, size_t *next)
{
	for (size_t i = *next; i < t->nfields; i++)
		if (field_is(&t->fields[i], name, len)) {
			*next = i + 1;
			return &t->fields[i];
		}
	for (size_t i = 0; i < *next && i < t->nfields; i++)
		if (field_is(&t->fields[i], name, len)) {
			*next = i + 1;
			return &t->fields[i];
		}
	return NULL;
}

static int unpack_obj(const struct rota_type *t, struct mp_reader *r, void *obj,
                      struct rota_error *err)
{
	struct mp_item m;
	size_t next = 0;

	if (mp_read(r, &m) < 0)
		return errprintf(err, "%s: malformed or truncated body", t->name);
	if (m.kind != MP_MAP)
		return errprintf(err, "%s: expected a map", t->name);
	for (uint64_t i = 0; i < m.n; i++) {
		const struct rota_field *f;
		struct mp_item k;

		if (mp_read(r, &k) < 0)
			return errprintf(err, "%s: malformed or truncated body", t->name);
		if (k.kind != MP_STR)
			return errprintf(err, "%s: non-string key", t->name);
		f = field_find(t, k.ptr, k.n, &next);
		if (!f) {
			/* a newer peer's field */
			if (mp_skip(r) < 0)
				return errprintf(err, "%s: malformed or truncated body",
				                 t->name);
			continue;
		}
		/* a repeated key must not leak the first value (a number is
		 * just written again) */
		if (f->kind >= FK_STR && *(void *const *)FIELD_PTR(obj, f))
			codec_release(&(struct rota_type){t->name, t->size, f, 1}, obj);
		if (unpack_field(f, r, obj, err) < 0)
			return -1;
	}
	return 0;
}

static uint64_t be_uint(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Size of the msgpack header at p (1 + length bytes), the payload bytes that
 * follow it (str/bin/ext/numbers), and the objects it contains (array/map).
 * Returns -1 for the never-used byte 0xc1. */
static int mp_header(const uint8_t *p, size_t avail, size_t *ret_hdr,
                     uint64_t *ret_payload, uint64_t *ret_children)
{
	static const uint8_t fixed[] = {
	    /* 0xc0..0xdf: fixed bytes after the type byte */
	    [0x00] = 0, [0x02] = 0, [0x03] = 0,             /* nil, false, true */
	    [0x0a] = 4, [0x0b] = 8,                         /* float32/64 */
	    [0x0c] = 1, [0x0d] = 2, [0x0e] = 4, [0x0f] = 8, /* uint */
	    [0x10] = 1, [0x11] = 2, [0x12] = 4, [0x13] = 8, /* int */
	    [0x14] = 2, [0x15] = 3, [0x16] = 5, [0x17] = 9, [0x18] = 17, /* fixext */
	};
	uint8_t b = p[0];
	int n;

	*ret_hdr = 1;
	*ret_payload = 0;
	*ret_children = 0;
	if (b <= 0x7f || b >= 0xe0)
		return 0;
	if (b <= 0x8f)
		return *ret_children = 2u * (b & 0x0f), 0;
	if (b <= 0x9f)
		return *ret_children = b & 0x0f, 0;
	if (b <= 0xbf)
		return *ret_payload = b & 0x1f, 0;
	switch (b) {
	case 0xc1:
		return -1;
	case 0xc4:
	case 0xc5:
	case 0xc6: /* bin 8/16/32 */
	case 0xd9:
	case 0xda:
	case 0xdb: /* str 8/16/32 */
		n = (b == 0xc4 || b == 0xd9) ? 1 : (b == 0xc5 || b == 0xda) ? 2 : 4;
		break;
	case 0xc7:
	case 0xc8:
	case 0xc9: /* ext 8/16/32: length, then a type byte */
		n = b == 0xc7 ? 1 : b == 0xc8 ? 2 : 4;
		break;
	case 0xdc:
	case 0xdd:
	case 0xde:
	case 0xdf: /* array/map 16/32 */
		n = (b == 0xdc || b == 0xde) ? 2 : 4;
		break;
	default:
		*ret_payload = fixed[b - 0xc0];
		return 0;
	}
	if (avail < 1u + n)
		return *ret_hdr = 1 + n, 0; /* the caller finds it truncated */
	*ret_hdr = 1 + n;
	if (b >= 0xdc)
		*ret_children = be_uint(p + 1, n) * (b >= 0xde ? 2 : 1);
	else
		*ret_payload = be_uint(p + 1, n) + (b >= 0xc7 && b <= 0xc9);
	return 0;
}

/* Walk one msgpack object without decoding it: every declared length (str,
 * bin, ext) must fit in the bytes left, and every array/map count too (each
 * entry takes at least one byte), and there are at most max_values values.
 * Run before decoding a peer's message, so that a body of many small values
 * (a list of empty maps, each decoded into a whole struct) is refused before
 * anything is allocated; and after a decoding that failed, for its words. */
static int codec_check(const struct rota_type *t, const uint8_t *p, size_t len,
                       uint64_t max_values, struct rota_error *err)
{
	uint64_t pending = 1; /* objects still to read */
	uint64_t values = 0;
	size_t off = 0;

	while (pending > 0) {
		size_t hdr;
		uint64_t payload, children;

		if (off >= len)
			goto truncated;
		if (mp_header(p + off, len - off, &hdr, &payload, &children) < 0)
			return errprintf(err, "%s: invalid byte 0x%02x at offset %zu",
			                 t->name, p[off], off),
			       -EPROTO;
		if (hdr > len - off || payload > len - off - hdr)
			goto truncated;
		off += hdr + payload;
		pending--;
		if (++values > max_values)
			return errprintf(err, "%s: more than %llu values", t->name,
			                 (unsigned long long)max_values),
			       -EMSGSIZE;
		if (children > len - off || pending + children > len - off) {
			uint8_t b = p[off - hdr - payload];
			int is_map = (b & 0xf0) == 0x80 || b >= 0xde;
			return errprintf(
			           err,
			           "%s: %s declares %llu entries but only %zu bytes "
			           "follow",
			           t->name, is_map ? "a map" : "an array",
			           (unsigned long long)(is_map ? children / 2 : children),
			           len - off),
			       -EPROTO;
		}
		pending += children;
	}
	return 0;
truncated:
	return errprintf(err, "%s: malformed or truncated body", t->name), -EPROTO;
}

int codec_decode(const struct rota_type *t, const char *data, size_t len, void *obj,
                 struct rota_error *err)
{
	return codec_decode_max(t, data, len, UINT64_MAX, obj, err);
}

/* The type a tagged map says it is: the u32 value of the first key `key`
 * (*ret_tag).  r is not moved.  Only the keys before it are stepped over:
 * encoders write the tag first. */
static const struct rota_type *tag_pick(struct mp_reader r, const char *key,
                                        const struct rota_type *(*pick)(uint32_t),
                                        uint32_t *ret_tag, struct rota_error *err)
{
	size_t klen = strlen(key);
	struct mp_item m, k, val;
	const struct rota_type *t;
	uint64_t v;

	if (mp_read(&r, &m) < 0 || m.kind != MP_MAP)
		return errprintf(err, "expected a map"), NULL;
	for (uint64_t i = 0; i < m.n; i++) {
		if (mp_read(&r, &k) < 0)
			return errprintf(err, "malformed or truncated body"), NULL;
		if (k.kind != MP_STR || k.n != klen || memcmp(k.ptr, key, klen)) {
			if (mp_skip(&r) < 0)
				return errprintf(err, "malformed or truncated body"),
				       NULL;
			continue;
		}
		if (mp_read(&r, &val) < 0 || get_uint(&val, UINT32_MAX, &v) < 0)
			return errprintf(err, "field '%s': wrong type or too large", key),
			       NULL;
		if (!(t = pick((uint32_t)v)))
			errprintf(err, "unknown %s %llu", key, (unsigned long long)v);
		*ret_tag = (uint32_t)v;
		return t;
	}
	return errprintf(err, "no field '%s'", key), NULL;
}

/* After a tagged decode: the tag field still holds what picked the type (a
 * second `key` of another value would have the record released as a type it
 * was not decoded as). */
static int tag_kept(const struct rota_type *t, const char *key, uint32_t tag,
                    const void *obj)
{
	for (size_t i = 0; i < t->nfields; i++)
		if (t->fields[i].kind == FK_U32 &&
		    field_is(&t->fields[i], key, strlen(key)))
			return *(const uint32_t *)codec_field(&t->fields[i], obj) == tag;
	return 1;
}

/* codec_decode_max(), of type t or (t NULL) of the type a tag says.  A limit
 * on the values is checked by a walk before anything is decoded. */
static int decode(const struct rota_type *t, const char *key,
                  const struct rota_type *(*pick)(uint32_t), const char *data, size_t len,
                  uint64_t max_values, void *obj, struct rota_error *err)
{
	static const struct rota_type tagged = {"tagged record", 0, NULL, 0};
	struct mp_reader r = {(const uint8_t *)data, (const uint8_t *)data + len};
	uint32_t tag = 0;
	int rc;

	if (max_values != UINT64_MAX &&
	    (rc = codec_check(t ? t : &tagged, (const uint8_t *)data, len, max_values,
	                      err)) < 0)
		return rc;
	if (!t && !(t = tag_pick(r, key, pick, &tag, err)))
		return -EPROTO;
	if (unpack_obj(t, &r, obj, err) < 0) {
		codec_release(t, obj);
		memset(obj, 0, t->size);
		/* a structural fault: the walk says where, in more words */
		if (max_values == UINT64_MAX)
			codec_check(t, (const uint8_t *)data, len, max_values, err);
		return -EPROTO;
	}
	if (r.p != r.end || (key && !tag_kept(t, key, tag, obj))) {
		if (r.p != r.end)
			errprintf(err, "%s: %zu trailing bytes", t->name,
			          (size_t)(r.end - r.p));
		else
			errprintf(err, "field '%s' given twice", key);
		codec_release(t, obj);
		memset(obj, 0, t->size);
		return -EPROTO;
	}
	return 0;
}

int codec_decode_max(const struct rota_type *t, const char *data, size_t len,
                     uint64_t max_values, void *obj, struct rota_error *err)
{
	return decode(t, NULL, NULL, data, len, max_values, obj, err);
}

int codec_decode_tagged(const char *key, const struct rota_type *(*pick)(uint32_t),
                        const char *data, size_t len, void *obj, struct rota_error *err)
{
	return decode(NULL, key, pick, data, len, UINT64_MAX, obj, err);
}

void codec_release_list(const struct rota_type *t, void *items, uint32_t count)
{
	for (uint32_t j = 0; items && j < count; j++)
		codec_release(t, (char *)items + j * t->size);
	free(items);
}

void codec_release(const struct rota_type *t, void *obj)
{
	if (!obj)
		return;
	for (size_t i = 0; i < t->nfields; i++) {
		const struct rota_field *f = &t->fields[i];
		char *p = codec_field_if(f, obj);
		if (!p)
			continue;
		switch (f->kind) {
		case FK_STR:
			free(*(char **)p);
			*(char **)p = NULL;
			break;
		case FK_BIN:
			free(((struct rota_bin *)p)->data);
			memset(p, 0, sizeof(struct rota_bin));
			break;
		case FK_STRV:
			strv_free(*(char ***)p);
			*(char ***)p = NULL;
			break;
		case FK_U32V:
			free(((struct rota_u32v *)p)->v);
			memset(p, 0, sizeof(struct rota_u32v));
			break;
		case FK_LIST: {
			uint32_t *count = (uint32_t *)((char *)obj + f->count_offset);
			codec_release_list(f->sub, *(char **)p, *count);
			*(char **)p = NULL;
			*count = 0;
			break;
		}
		default:
			break;
		}
	}
	if (t->ext_size) {
		free(*(void **)((char *)obj + t->ext_at));
		*(void **)((char *)obj + t->ext_at) = NULL;
	}
}

static void copy_obj(const struct rota_type *t, void *dst, const void *src);

/* What an encode and a decode would give, without them: every string and
 * array allocated afresh (an absent strv, bin or list comes back empty, as
 * from the wire). */
static void copy_field(const struct rota_field *f, void *dst, const void *src)
{
	char *d;
	const char *s = FIELD_PTR(src, f);

	if (f->ext_size && !*(void *const *)((const char *)src + f->ext_at))
		return; /* none out of line: dst has none either */
	d = codec_field_mut(f, dst);
	switch (f->kind) {
	case FK_U32:
	case FK_I32:
		memcpy(d, s, sizeof(uint32_t));
		break;
	case FK_U64:
	case FK_I64:
		memcpy(d, s, sizeof(uint64_t));
		break;
	case FK_STR: {
		const char *v = *(char *const *)s;
		*(char **)d = v ? xstrdup(v) : NULL;
		break;
	}
	case FK_BIN: {
		const struct rota_bin *b = (const struct rota_bin *)s;
		struct rota_bin *o = (struct rota_bin *)d;
		o->data = xmalloc(b->len);
		if (b->len)
			memcpy(o->data, b->data, b->len);
		o->len = b->len;
		break;
	}
	case FK_STRV: {
		char *const *v = *(char **const *)s;
		size_t n = strv_len(v);
		char **o = xcalloc(n + 1, sizeof(char *));
		for (size_t i = 0; i < n; i++)
			o[i] = xstrdup(v[i]);
		*(char ***)d = o;
		break;
	}
	case FK_U32V: {
		const struct rota_u32v *v = (const struct rota_u32v *)s;
		struct rota_u32v *o = (struct rota_u32v *)d;
		o->v = xcalloc(v->n, sizeof(uint32_t));
		if (v->n)
			memcpy(o->v, v->v, v->n * sizeof(uint32_t));
		o->n = v->n;
		break;
	}
	case FK_LIST: {
		const char *items = *(char *const *)s;
		uint32_t n = *(const uint32_t *)((const char *)src + f->count_offset);
		char *o = xcalloc(n, f->sub->size);
		for (uint32_t i = 0; i < n; i++)
			copy_obj(f->sub, o + i * f->sub->size, items + i * f->sub->size);
		*(char **)d = o;
		*(uint32_t *)((char *)dst + f->count_offset) = n;
		break;
	}
	}
}

static void copy_obj(const struct rota_type *t, void *dst, const void *src)
{
	for (size_t i = 0; i < t->nfields; i++)
		copy_field(&t->fields[i], dst, src);
}

int codec_copy(const struct rota_type *t, void *dst, const void *src)
{
	memset(dst, 0, t->size);
	copy_obj(t, dst, src);
	return 0;
}

/* ---- JSON ---- */

static json_t *json_obj(const struct rota_type *t, const void *obj);

static json_t *json_field(const struct rota_field *f, const void *obj)
{
	const char *p = FIELD_PTR(obj, f);

	switch (f->kind) {
	case FK_U32:
		return json_integer(*(const uint32_t *)p);
	case FK_I32:
		return json_integer(*(const int32_t *)p);
	case FK_U64:
		return json_integer((json_int_t) * (const uint64_t *)p);
	case FK_I64:
		return json_integer(*(const int64_t *)p);
	case FK_STR: {
		const char *s = *(char *const *)p;
		return s ? json_string(s) : json_null();
	}
	case FK_BIN: {
		const struct rota_bin *b = (const struct rota_bin *)p;
		char *hex = xmalloc(b->len * 2 + 1);
		json_t *j;
		for (uint32_t i = 0; i < b->len; i++)
			snprintf(hex + 2 * i, 3, "%02x", b->data[i]);
		hex[b->len * 2] = '\0';
		j = json_string(hex);
		free(hex);
		return j;
	}
	case FK_STRV: {
		char *const *v = *(char **const *)p;
		json_t *a = json_array();
		for (size_t i = 0; v && v[i]; i++)
			json_array_append_new(a, json_string(v[i]));
		return a;
	}
	case FK_U32V: {
		const struct rota_u32v *v = (const struct rota_u32v *)p;
		json_t *a = json_array();
		for (uint32_t i = 0; i < v->n; i++)
			json_array_append_new(a, json_integer(v->v[i]));
		return a;
	}
	case FK_LIST: {
		const char *items = *(char *const *)p;
		uint32_t n = *(const uint32_t *)((const char *)obj + f->count_offset);
		json_t *a = json_array();
		for (uint32_t i = 0; i < n; i++)
			json_array_append_new(a,
			                      json_obj(f->sub, items + i * f->sub->size));
		return a;
	}
	}
	return json_null();
}

static json_t *json_obj(const struct rota_type *t, const void *obj)
{
	json_t *o = json_object();
	for (size_t i = 0; i < t->nfields; i++)
		json_object_set_new(o, t->fields[i].name, json_field(&t->fields[i], obj));
	return o;
}

char *codec_to_json(const struct rota_type *t, const void *obj, int indent)
{
	json_t *o = json_obj(t, obj);
	char *s = json_dumps(o, JSON_INDENT(indent) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}
