/* fmtrow.c - formats bound to field tables, rows into buffers (see fmtrow.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/fmtrow.h"
#include "common/fmtspec.h"
#include "common/common.h"

static const struct fmt_field *find_field(const struct fmtspec_item *it,
                                          const struct fmt_field *table, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (it->name ? (table[i].name && !strcasecmp(it->name, table[i].name))
		             : (table[i].letter && table[i].letter == it->letter))
			return &table[i];
	}
	return NULL;
}

int fmt_layout_bind(const char *fmt, enum fmt_syntax syntax,
                    const struct fmt_field *table, size_t n, struct fmt_layout **ret,
                    struct rota_error *err)
{
	struct fmt_layout *layout;
	struct fmtspec *spec = NULL;
	int rc;

	if (syntax == FMT_LONG)
		rc = fmtspec_parse_long(fmt, 20, &spec, err);
	else
		rc = fmtspec_parse(fmt, &spec, err);
	if (rc < 0)
		return rc;
	layout = xcalloc(1, sizeof(*layout));
	layout->spec = spec;
	layout->prefix = spec->prefix;
	layout->prefix_len = strlen(spec->prefix);
	layout->cols = xcalloc(spec->count ? spec->count : 1, sizeof(*layout->cols));
	layout->ncols = spec->count;
	for (size_t i = 0; i < spec->count; i++) {
		const struct fmtspec_item *it = &spec->items[i];
		struct fmt_col *col = &layout->cols[i];

		col->field = find_field(it, table, n);
		col->width = it->width;
		col->flags = it->flags;
		col->suffix = it->suffix;
		col->suffix_len = strlen(it->suffix);
	}
	*ret = layout;
	return 0;
}

void fmt_layout_destroy(struct fmt_layout *layout)
{
	if (!layout)
		return;
	fmtspec_destroy(layout->spec);
	free(layout->cols);
	free(layout);
}

int fmt_layout_has(const struct fmt_layout *layout, int id)
{
	for (size_t i = 0; i < layout->ncols; i++)
		if (layout->cols[i].field && layout->cols[i].field->id == id)
			return 1;
	return 0;
}

void fmtbuf_reserve(struct fmtbuf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;

	while (cap - b->len < more)
		cap *= 2;
	if (cap != b->cap) {
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
}

void fmtbuf_release(struct fmtbuf *b)
{
	free(b->data);
	*b = (struct fmtbuf){0};
}

static void put_pad(struct fmtbuf *b, size_t n)
{
	if (!n)
		return;
	if (b->cap - b->len < n)
		fmtbuf_reserve(b, n);
	memset(b->data + b->len, ' ', n);
	b->len += n;
}

void fmt_cell_append(struct fmtbuf *b, const char *s, int width, int flags)
{
	size_t len, pad = 0;

	if (!s)
		s = "(null)";
	len = strlen(s);
	if (width > 0) {
		if (len > (size_t)width && !(flags & FMTSPEC_NOCUT))
			len = (size_t)width;
		if (len < (size_t)width)
			pad = (size_t)width - len;
	}
	if (flags & FMTSPEC_RIGHT)
		put_pad(b, pad);
	fmtbuf_put(b, s, len);
	if (!(flags & FMTSPEC_RIGHT))
		put_pad(b, pad);
}

static void put_str(struct fmtbuf *b, const char *s)
{
	fmtbuf_put(b, s, strlen(s));
}

void fmt_header_append(struct fmtbuf *b, const struct fmt_layout *layout)
{
	put_str(b, layout->prefix);
	for (size_t i = 0; i < layout->ncols; i++) {
		const struct fmt_col *col = &layout->cols[i];

		if (col->field)
			fmt_cell_append(b, col->field->header, col->width,
			                col->flags | (col->field->flags & FMTSPEC_NOCUT));
		put_str(b, col->suffix);
	}
	fmtbuf_put(b, "\n", 1);
}

void fmt_row_append(struct fmtbuf *b, const struct fmt_layout *layout, fmt_value_f value,
                    const void *rec, void *ctx)
{
	char buf[1024];

	fmtbuf_put(b, layout->prefix, layout->prefix_len);
	for (size_t i = 0; i < layout->ncols; i++) {
		const struct fmt_col *col = &layout->cols[i];

		if (col->field) {
			buf[0] = '\0';
			fmt_cell_append(b, value(col, rec, ctx, buf, sizeof(buf)),
			                col->width,
			                col->flags | (col->field->flags & FMTSPEC_NOCUT));
		}
		fmtbuf_put(b, col->suffix, col->suffix_len);
	}
	fmtbuf_put(b, "\n", 1);
}
