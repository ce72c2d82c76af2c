/* fmtrow.h - a user's output format bound to a command's fields, and rows
 * printed with it into a byte buffer.
 *
 * A command declares its fields once in a table (letter for -o, name for -O,
 * header).  fmt_layout_bind() turns a format (fmtspec.h) into columns bound to
 * that table; fmt_row_append() prints one record as a line, asking the
 * command's value callback for each cell.  squeue's columns are printed by the
 * controller and sinfo's by the CLI, with the same code.  Pure: no logging.
 */
#ifndef ROTA_COMMON_FMTROW_H
#define ROTA_COMMON_FMTROW_H

#include <stddef.h>
#include <string.h>
#include "common/error.h"

struct fmtspec;

struct fmt_field {
	int id;             /* the command's field id (the letter for -o fields) */
	char letter;        /* -o letter, 0 when the field is -O only */
	const char *name;   /* -O name (matched case-insensitively), NULL if none */
	const char *header; /* column title */
	int flags;          /* FMTSPEC_NOCUT: values are never cut (node lists) */
};

struct fmt_col {
	const struct fmt_field *field; /* NULL: unknown type, only the suffix prints */
	int width;                     /* may be changed before printing (sinfo '#') */
	int flags;                     /* FMTSPEC_RIGHT */
	const char *suffix;            /* borrowed from the layout */
	size_t suffix_len;
};

struct fmt_layout {
	const char *prefix; /* borrowed from spec */
	size_t prefix_len;
	struct fmt_col *cols;
	size_t ncols;
	struct fmtspec *spec;
};

enum fmt_syntax { FMT_SHORT, FMT_LONG }; /* -o "%.18i ..." or -O "JobID,..." */

/* Bind fmt to table[0..n).  A type the table lacks leaves its column's field
 * NULL (the caller may say so).  Returns 0 and sets *ret (caller destroys),
 * -EINVAL with err for a malformed format (fmtspec.h), or -ENOMEM. */
int fmt_layout_bind(const char *fmt, enum fmt_syntax syntax,
                    const struct fmt_field *table, size_t n, struct fmt_layout **ret,
                    struct rota_error *err);
void fmt_layout_destroy(struct fmt_layout *layout); /* NULL allowed */

/* 1 if some column shows field id. */
int fmt_layout_has(const struct fmt_layout *layout, int id);

/* A growing byte buffer (aborts when memory runs out, as xmalloc does). */
struct fmtbuf {
	char *data;
	size_t len, cap;
};

void fmtbuf_reserve(struct fmtbuf *b, size_t more);
void fmtbuf_release(struct fmtbuf *b);

static inline void fmtbuf_put(struct fmtbuf *b, const char *s, size_t n)
{
	if (!n)
		return;
	if (b->cap - b->len < n)
		fmtbuf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

/* A cell's text: either buf (len bytes) or a string that lives as long as rec. */
typedef const char *(*fmt_value_f)(const struct fmt_col *col, const void *rec, void *ctx,
                                   char *buf, size_t len);

/* s (NULL prints "(null)") padded to width and, unless FMTSPEC_NOCUT, cut to it
 * (the leftmost width bytes are kept, whichever side is padded). */
void fmt_cell_append(struct fmtbuf *b, const char *s, int width, int flags);

/* The header line, and one record's line. */
void fmt_header_append(struct fmtbuf *b, const struct fmt_layout *layout);
void fmt_row_append(struct fmtbuf *b, const struct fmt_layout *layout, fmt_value_f value,
                    const void *rec, void *ctx);

#endif
