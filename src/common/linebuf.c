/* linebuf.c - cut a byte stream into whole lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/linebuf.h"
#include "common/common.h"

void linebuf_init(struct linebuf *lb)
{
	memset(lb, 0, sizeof(*lb));
}

void linebuf_release(struct linebuf *lb)
{
	free(lb->buf);
	linebuf_init(lb);
}

void linebuf_flush(struct linebuf *lb, linebuf_emit_f emit, void *arg)
{
	if (lb->len)
		emit(lb->buf, lb->len, arg);
	lb->len = 0;
}

/* Keep [p, p+n) as (part of) the unfinished line. */
static int keep(struct linebuf *lb, const char *p, size_t n)
{
	if (lb->len + n > lb->cap) {
		size_t cap = lb->cap ? lb->cap : 256;
		char *b;

		while (cap < lb->len + n)
			cap *= 2;
		if (!(b = realloc(lb->buf, cap)))
			return -ENOMEM;
		lb->buf = b;
		lb->cap = cap;
	}
	memcpy(lb->buf + lb->len, p, n);
	lb->len += n;
	return 0;
}

int linebuf_feed(struct linebuf *lb, const char *data, size_t len, linebuf_emit_f emit,
                 void *arg)
{
	const char *p = data, *end = data + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (lb->len + n > LINEBUF_MAX && lb->len) {
			/* an over-long line: hand out what we have first */
			linebuf_flush(lb, emit, arg);
		}
		if (nl && !lb->len) {
			emit(p, n, arg); /* a whole line, no copy */
		} else if (n > LINEBUF_MAX) {
			emit(p, n, arg);
		} else {
			if (keep(lb, p, n) < 0) {
				linebuf_flush(lb, emit, arg);
				emit(p, n, arg);
				return -ENOMEM;
			}
			if (nl)
				linebuf_flush(lb, emit, arg);
		}
		p += n;
	}
	return 0;
}
