/* jsonw.h - JSON written straight into a growing buffer, for documents too
 * large to build as a tree first (a listing of 100,000 jobs).  Strings are
 * escaped as JSON wants them, and made valid UTF-8 (a byte that does not
 * start or continue a valid sequence becomes '?'). */
#ifndef ROTA_JSONW_H
#define ROTA_JSONW_H

#include <stddef.h>
#include <stdint.h>

struct jsonw {
	char *p;
	size_t len, cap;
	int first; /* nothing written yet in the current object or array */
};

void jsonw_raw(struct jsonw *w, const char *s, size_t n);
/* A string literal, as it is (its length from its type). */
#define jsonw_lit(w, lit) jsonw_raw((w), "" lit, sizeof(lit) - 1)
void jsonw_obj_begin(struct jsonw *w);
void jsonw_obj_end(struct jsonw *w);
/* "key": followed by a value (NULL strings are written as ""). */
void jsonw_str(struct jsonw *w, const char *key, const char *v);
void jsonw_int(struct jsonw *w, const char *key, long long v);
void jsonw_bool(struct jsonw *w, const char *key, int v);
/* "key": alone, before a nested object or array. */
void jsonw_key(struct jsonw *w, const char *key);
/* An array: jsonw_elem before each item that is an object (then
 * jsonw_obj_begin...), or jsonw_elem_str for a string item. */
void jsonw_arr_begin(struct jsonw *w);
void jsonw_arr_end(struct jsonw *w);
void jsonw_elem(struct jsonw *w);
void jsonw_elem_str(struct jsonw *w, const char *v);
/* A string of n bytes, escaped and quoted, no key. */
void jsonw_quoted(struct jsonw *w, const char *s, size_t n);
void jsonw_free(struct jsonw *w);

#endif
