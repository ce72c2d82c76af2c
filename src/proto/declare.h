/* declare.h - the X-macro machinery that turns one field list into a C struct
 * (ROTA_DECLARE, in a header) and its codec descriptor (ROTA_DEFINE, in one .c).
 * A field list is  #define NAME_FIELDS(F, S)  F(S, kind, name, sub) ...
 * with kind one of u32 i32 u64 i64 str bin strv u32v list (sub = element struct).
 *
 * Out of line: in a list declared with ROTA_DECLARE_EXT, the kinds u32_x u64_x
 * i64_x str_x are fields seldom given, kept in `struct S_ext`, which `struct
 * S` points to (`ext`, NULL while none is given: the record is smaller by
 * them).  They read as zero then, so a field that is not zero by default
 * stays in line.  The wire, JSON and the codec see one flat list in its
 * declared order; C code reads them through S_X(obj) and writes them
 * through S_x_mut(obj) (which allocates the part). */
#ifndef ROTA_DECLARE_H
#define ROTA_DECLARE_H

#include <stddef.h>
#include <stdint.h>
#include "proto/codec.h"

#define ROTA_M_u32(n, a)  uint32_t n;
#define ROTA_M_i32(n, a)  int32_t n;
#define ROTA_M_u64(n, a)  uint64_t n;
#define ROTA_M_i64(n, a)  int64_t n;
#define ROTA_M_str(n, a)  char *n;
#define ROTA_M_bin(n, a)  struct rota_bin n;
#define ROTA_M_strv(n, a) char **n;
#define ROTA_M_u32v(n, a) struct rota_u32v n;
#define ROTA_M_list(n, a)                                                                \
	struct a *n;                                                                     \
	uint32_t n##_count;
#define ROTA_M_u32_x(n, a)
#define ROTA_M_u64_x(n, a)
#define ROTA_M_i64_x(n, a)
#define ROTA_M_str_x(n, a)
#define ROTA_MEMBER(S, k, n, a) ROTA_M_##k(n, a)
/* the out-of-line part's members: the _x kinds alone */
#define ROTA_X_u32(n, a)
#define ROTA_X_i32(n, a)
#define ROTA_X_u64(n, a)
#define ROTA_X_i64(n, a)
#define ROTA_X_str(n, a)
#define ROTA_X_bin(n, a)
#define ROTA_X_strv(n, a)
#define ROTA_X_u32v(n, a)
#define ROTA_X_list(n, a)
#define ROTA_X_u32_x(n, a)       uint32_t n;
#define ROTA_X_u64_x(n, a)       uint64_t n;
#define ROTA_X_i64_x(n, a)       int64_t n;
#define ROTA_X_str_x(n, a)       char *n;
#define ROTA_XMEMBER(S, k, n, a) ROTA_X_##k(n, a)
#define ROTA_DECLARE(S, FIELDS)                                                          \
	struct S {                                                                       \
		FIELDS(ROTA_MEMBER, S)                                                   \
	};                                                                               \
	extern const struct rota_type S##_type;
#define ROTA_DECLARE_EXT(S, FIELDS)                                                      \
	struct S##_ext {                                                                 \
		FIELDS(ROTA_XMEMBER, S)                                                  \
	};                                                                               \
	struct S {                                                                       \
		FIELDS(ROTA_MEMBER, S)                                                   \
		struct S##_ext *ext; /* NULL: every out-of-line field zero */            \
	};                                                                               \
	extern const struct rota_type S##_type;                                          \
	extern const struct S##_ext S##_ext_none;                                        \
	/* the out-of-line fields to read (all zero when there are none) */              \
	static inline const struct S##_ext *S##_X(const struct S *o)                     \
	{                                                                                \
		return o->ext ? o->ext : &S##_ext_none;                                  \
	}                                                                                \
	/* ... and to write: allocated (zeroed) when missing */                          \
	struct S##_ext *S##_x_mut(struct S *o);

#define ROTA_D_u32(S, n, a) {#n, FK_U32, offsetof(struct S, n), NULL, 0, sizeof(#n) - 1},
#define ROTA_D_i32(S, n, a) {#n, FK_I32, offsetof(struct S, n), NULL, 0, sizeof(#n) - 1},
#define ROTA_D_u64(S, n, a) {#n, FK_U64, offsetof(struct S, n), NULL, 0, sizeof(#n) - 1},
#define ROTA_D_i64(S, n, a) {#n, FK_I64, offsetof(struct S, n), NULL, 0, sizeof(#n) - 1},
#define ROTA_D_str(S, n, a) {#n, FK_STR, offsetof(struct S, n), NULL, 0, sizeof(#n) - 1},
#define ROTA_D_bin(S, n, a) {#n, FK_BIN, offsetof(struct S, n), NULL, 0, sizeof(#n) - 1},
#define ROTA_D_strv(S, n, a)                                                             \
	{#n, FK_STRV, offsetof(struct S, n), NULL, 0, sizeof(#n) - 1},
#define ROTA_D_u32v(S, n, a)                                                             \
	{#n, FK_U32V, offsetof(struct S, n), NULL, 0, sizeof(#n) - 1},
#define ROTA_D_list(S, n, a)                                                             \
	{#n,                                                                             \
	 FK_LIST,                                                                        \
	 offsetof(struct S, n),                                                          \
	 &a##_type,                                                                      \
	 offsetof(struct S, n##_count),                                                  \
	 sizeof(#n) - 1},
#define ROTA_D_X(S, n, K)                                                                \
	{#n,                                                                             \
	 K,                                                                              \
	 offsetof(struct S##_ext, n),                                                    \
	 NULL,                                                                           \
	 0,                                                                              \
	 sizeof(#n) - 1,                                                                 \
	 offsetof(struct S, ext),                                                        \
	 sizeof(struct S##_ext)},
#define ROTA_D_u32_x(S, n, a) ROTA_D_X(S, n, FK_U32)
#define ROTA_D_u64_x(S, n, a) ROTA_D_X(S, n, FK_U64)
#define ROTA_D_i64_x(S, n, a) ROTA_D_X(S, n, FK_I64)
#define ROTA_D_str_x(S, n, a) ROTA_D_X(S, n, FK_STR)
#define ROTA_DESC(S, k, n, a) ROTA_D_##k(S, n, a)

/* S_idx_NAME: each field's position in its list (for masks of fields). */
#define ROTA_IDX(S, k, n, a)  S##_idx_##n,
#define ROTA_INDEX(S, FIELDS) enum S##_field{FIELDS(ROTA_IDX, S) S##_nfields};
#define ROTA_DEFINE(S, FIELDS)                                                           \
	static const struct rota_field S##_fields[] = {FIELDS(ROTA_DESC, S)};            \
	const struct rota_type S##_type = {#S, sizeof(struct S), S##_fields,             \
	                                   sizeof(S##_fields) / sizeof(S##_fields[0])};
#define ROTA_DEFINE_EXT(S, FIELDS)                                                       \
	static const struct rota_field S##_fields[] = {FIELDS(ROTA_DESC, S)};            \
	const struct rota_type S##_type = {#S,                                           \
	                                   sizeof(struct S),                             \
	                                   S##_fields,                                   \
	                                   sizeof(S##_fields) / sizeof(S##_fields[0]),   \
	                                   offsetof(struct S, ext),                      \
	                                   sizeof(struct S##_ext)};                      \
	_Static_assert(sizeof(struct S##_ext) <= 1024, "codec.c's zero_part");           \
	const struct S##_ext S##_ext_none;                                               \
	struct S##_ext *S##_x_mut(struct S *o)                                           \
	{                                                                                \
		if (!o->ext)                                                             \
			o->ext = xcalloc(1, sizeof(*o->ext));                            \
		return o->ext;                                                           \
	}

#endif
