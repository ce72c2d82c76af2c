/* jsonw.c - JSON into a buffer (jsonw.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proto/jsonw.h"
#include "common/common.h"

void jsonw_raw(struct jsonw *w, const char *s, size_t n)
{
	if (w->len + n > w->cap) {
		w->cap = (w->len + n) * 2 + 256;
		w->p = xrealloc(w->p, w->cap);
	}
	memcpy(w->p + w->len, s, n);
	w->len += n;
}

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void jsonw_quoted(struct jsonw *w, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t start = 0, i = 0;

	jsonw_raw(w, "\"", 1);
	while (i < n) {
		char esc[8];
		size_t k;

		if (u[i] >= 0x20 && u[i] != '"' && u[i] != '\\' && u[i] < 0x80) {
			i++;
			continue;
		}
		if (u[i] >= 0x80 && (k = utf8_len(u + i, n - i))) {
			i += k;
			continue;
		}
		jsonw_raw(w, s + start, i - start);
		if (u[i] == '"' || u[i] == '\\') {
			esc[0] = '\\';
			esc[1] = (char)u[i];
			jsonw_raw(w, esc, 2);
		} else if (u[i] >= 0x80) {
			jsonw_raw(w, "?", 1);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", u[i]);
			jsonw_raw(w, esc, 6);
		}
		start = ++i;
	}
	jsonw_raw(w, s + start, n - start);
	jsonw_raw(w, "\"", 1);
}

void jsonw_key(struct jsonw *w, const char *k)
{
	jsonw_elem(w);
	jsonw_quoted(w, k, strlen(k));
	jsonw_raw(w, ":", 1);
}

/* An object or array opened or closed: c is its brace or bracket. */
static void open_close(struct jsonw *w, const char *c, int opening)
{
	jsonw_raw(w, c, 1);
	w->first = opening;
}

void jsonw_obj_begin(struct jsonw *w)
{
	open_close(w, "{", 1);
}

void jsonw_obj_end(struct jsonw *w)
{
	open_close(w, "}", 0);
}

void jsonw_str(struct jsonw *w, const char *k, const char *v)
{
	jsonw_key(w, k);
	jsonw_quoted(w, v ? v : "", v ? strlen(v) : 0);
}

void jsonw_int(struct jsonw *w, const char *k, long long v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%lld", v);

	jsonw_key(w, k);
	jsonw_raw(w, num, (size_t)n);
}

void jsonw_bool(struct jsonw *w, const char *k, int v)
{
	jsonw_key(w, k);
	jsonw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

void jsonw_arr_begin(struct jsonw *w)
{
	open_close(w, "[", 1);
}

void jsonw_arr_end(struct jsonw *w)
{
	open_close(w, "]", 0);
}

void jsonw_elem(struct jsonw *w)
{
	if (!w->first)
		jsonw_raw(w, ",", 1);
	w->first = 0;
}

void jsonw_elem_str(struct jsonw *w, const char *v)
{
	jsonw_elem(w);
	jsonw_quoted(w, v ? v : "", v ? strlen(v) : 0);
}

void jsonw_free(struct jsonw *w)
{
	free(w->p);
	w->p = NULL;
	w->len = w->cap = 0;
}
