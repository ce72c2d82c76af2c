/* codec.h - table-driven encoding of Rota's message structs.
 *
 * DESIGN: each struct carried on the wire is declared once, as an X-macro field
 * list in messages.h.  That one declaration generates the C struct and a
 * `struct rota_type` descriptor (field names, kinds, offsets).  The codec walks
 * descriptors: the binary encoding is a msgpack map keyed by field name (unknown
 * keys are skipped, missing ones stay zero, so old and new peers interoperate;
 * a number that is 0 or a string that is absent is not sent),
 * and the JSON for --json/REST is produced from the same descriptor.
 */
#ifndef ROTA_CODEC_H
#define ROTA_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"
#include "common/strv.h"

/* Per-message limits on what a peer may send. */
#define CODEC_MAX_STR   (16u << 20) /* one string/bin */
#define CODEC_MAX_ITEMS (1u << 20)  /* entries in one strv/u32v/list */

enum field_kind {
	FK_U32,
	FK_I32,
	FK_U64,
	FK_I64,
	FK_STR,
	FK_BIN,
	FK_STRV,
	FK_U32V,
	FK_LIST
};

struct rota_bin {
	uint8_t *data;
	uint32_t len;
};

struct rota_u32v {
	uint32_t *v;
	uint32_t n;
};

struct rota_type;

struct rota_field {
	const char *name;
	enum field_kind kind;
	size_t offset;
	const struct rota_type *sub; /* FK_LIST: element type */
	size_t count_offset;         /* FK_LIST: offset of the uint32_t count */
	size_t name_len;             /* strlen(name) */
	/* out of line (declare.h's _x kinds): offset is within the part the
	 * pointer at ext_at points to, ext_size long; ext_size 0: in line */
	size_t ext_at;
	size_t ext_size;
};

struct rota_type {
	const char *name;
	size_t size;
	const struct rota_field *fields;
	size_t nfields;
	size_t ext_at, ext_size; /* its out-of-line part (ext_size 0: none) */
};

/* Where field f of obj is, to read: in obj or in its out-of-line part (a
 * zeroed one when obj has none). */
const void *codec_field(const struct rota_field *f, const void *obj);
/* ... to write: the out-of-line part is allocated (zeroed) when missing. */
void *codec_field_mut(const struct rota_field *f, void *obj);
/* ... to write where it exists: NULL for an out-of-line field of an obj
 * without that part (which reads as zero). */
void *codec_field_if(const struct rota_field *f, void *obj);

/* Encode obj (of type t) as msgpack.  *ret_buf: caller frees (free()). */
int codec_encode(const struct rota_type *t, const void *obj, char **ret_buf,
                 size_t *ret_len);
struct mp_buf;
/* The same, appended to b (proto/mp.h). */
void codec_encode_into(const struct rota_type *t, const void *obj, struct mp_buf *b);

/* Decode data into obj, which the caller has zeroed (t->size bytes).  On failure
 * obj is left zeroed (partial members freed) and err says which field.  Every
 * declared length and count is checked against the bytes present before
 * anything is allocated. */
int codec_decode(const struct rota_type *t, const char *data, size_t len, void *obj,
                 struct rota_error *err);

/* codec_decode() of at most max_values msgpack values (every scalar, string,
 * array and map counts one), refused with -EMSGSIZE before anything is
 * allocated: a one-byte value may decode into a whole struct (an empty map in
 * a list). */
int codec_decode_max(const struct rota_type *t, const char *data, size_t len,
                     uint64_t max_values, void *obj, struct rota_error *err);

/* codec_decode() of a map whose u32 field `key` says what it is: it is decoded
 * as pick(value), which returns NULL for a value it does not know (-EPROTO).
 * Each type pick returns has `key` as a u32 field: a second `key` of another
 * value is refused.  The caller zeroes obj (as large as any type pick returns). */
int codec_decode_tagged(const char *key, const struct rota_type *(*pick)(uint32_t),
                        const char *data, size_t len, void *obj, struct rota_error *err);

/* Free the members of obj (not obj itself). NULL allowed. */
void codec_release(const struct rota_type *t, void *obj);

/* Release items[0..count) (records of type t) and free the array.  NULL
 * allowed. */
void codec_release_list(const struct rota_type *t, void *items, uint32_t count);

/* Deep copy src into dst (dst need not be zeroed).  Returns 0 or -ENOMEM. */
int codec_copy(const struct rota_type *t, void *dst, const void *src);

/* JSON text of obj (caller frees), or NULL on ENOMEM.  Bins are base16. */
char *codec_to_json(const struct rota_type *t, const void *obj, int indent);

#endif
