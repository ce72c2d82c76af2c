#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/pfields.h"

#define PF_WIDTH_MAX 4096

void pf_cell(struct fmtbuf *b, const char *s, const struct pf_col *c, enum pf_mode mode,
             int last)
{
	size_t n = strlen(s);

	if (mode != PF_COLUMNS) {
		fmtbuf_put(b, s, n);
		if (!last || mode == PF_PARSABLE)
			fmtbuf_put(b, "|", 1);
		return;
	}
	if ((int)n > c->width) {
		/* cut, the last kept character a '+' */
		if (c->width > 0) {
			fmtbuf_put(b, s, (size_t)c->width - 1);
			fmtbuf_put(b, "+", 1);
		}
	} else {
		fmtbuf_reserve(b, (size_t)c->width + 1);
		if (!c->left)
			for (size_t k = n; k < (size_t)c->width; k++)
				fmtbuf_put(b, " ", 1);
		fmtbuf_put(b, s, n);
		if (c->left)
			for (size_t k = n; k < (size_t)c->width; k++)
				fmtbuf_put(b, " ", 1);
	}
	fmtbuf_put(b, " ", 1);
}

void pf_end_line(struct fmtbuf *b)
{
	fmtbuf_put(b, "\n", 1);
	if (b->len > (64u << 10)) {
		fwrite(b->data, 1, b->len, stdout);
		b->len = 0;
	}
}

void pf_header(struct fmtbuf *b, const struct pf_col *cols, size_t n, enum pf_mode mode)
{
	char cut[PF_WIDTH_MAX + 1];

	for (size_t i = 0; i < n; i++) {
		const char *t = cols[i].title;
		/* a title is cut plainly, without the values' '+' (Slurm's
		 * print_fields_header: "NTa" for NTasks%3) */
		if (mode == PF_COLUMNS && cols[i].width >= 0 &&
		    strlen(t) > (size_t)cols[i].width && cols[i].width <= PF_WIDTH_MAX) {
			memcpy(cut, t, (size_t)cols[i].width);
			cut[cols[i].width] = '\0';
			t = cut;
		}
		pf_cell(b, t, &cols[i], mode, i + 1 == n);
	}
	pf_end_line(b);
	if (mode != PF_COLUMNS)
		return;
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < cols[i].width; k++)
			fmtbuf_put(b, "-", 1);
		fmtbuf_put(b, " ", 1);
	}
	pf_end_line(b);
}

int pf_parse_width(char *word, int *width, int *left)
{
	char *pct = strchr(word, '%'), *end;
	long n;

	if (!pct)
		return 0;
	*pct = '\0';
	if (pct[1] == '-') {
		*left = 1;
		pct++;
	}
	n = strtol(pct + 1, &end, 10);
	if (end == pct + 1 || *end || n < 0 || n > PF_WIDTH_MAX)
		return -1;
	*width = (int)n;
	return 0;
}
