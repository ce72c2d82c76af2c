/* yamlw.c - a JSON document as YAML (yamlw.h): block mappings and
 * sequences, two spaces a level; strings double-quoted with JSON's escapes
 * (a YAML double-quoted scalar reads them the same), so no string is taken
 * for a number, a boolean or null. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proto/yamlw.h"
#include "common/common.h"

struct out {
	char *buf;
	size_t len, cap;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		o->cap = (o->len + n + 1) * 2;
		o->buf = xrealloc(o->buf, o->cap);
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void indent(struct out *o, int level)
{
	for (int i = 0; i < level; i++)
		put(o, "  ", 2);
}

/* A scalar, or {} and [] for empty containers. */
static void scalar(struct out *o, const json_t *v)
{
	char *text;

	if (json_is_object(v)) {
		puts_(o, "{}");
		return;
	}
	if (json_is_array(v)) {
		puts_(o, "[]");
		return;
	}
	if (json_is_null(v)) {
		puts_(o, "null");
		return;
	}
	text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	if (!text)
		fatal("out of memory");
	puts_(o, text);
	free(text);
}

static int is_container(const json_t *v)
{
	return (json_is_object(v) && json_object_size(v)) ||
	       (json_is_array(v) && json_array_size(v));
}

/* A key: plain when it is a simple word, else quoted. */
static void key(struct out *o, const char *k)
{
	int plain = *k && !strchr("-?:,[]{}#&*!|>'\"%@`0123456789 ", *k);

	for (const char *p = k; plain && *p; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		        (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.' ||
		        *p == '/';
	if (plain) {
		puts_(o, k);
	} else {
		json_t *s = json_string(k);
		scalar(o, s);
		json_decref(s);
	}
	puts_(o, ":");
}

static void node(struct out *o, const json_t *v, int level);

static void mapping(struct out *o, const json_t *v, int level, int first_inline)
{
	const char *k;
	json_t *m;
	int first = 1;

	json_object_foreach((json_t *)v, k, m)
	{
		if (!(first && first_inline))
			indent(o, level);
		first = 0;
		key(o, k);
		if (is_container(m)) {
			puts_(o, "\n");
			node(o, m, json_is_array(m) ? level : level + 1);
		} else {
			puts_(o, " ");
			scalar(o, m);
			puts_(o, "\n");
		}
	}
}

static void sequence(struct out *o, const json_t *v, int level)
{
	size_t i;
	json_t *m;

	json_array_foreach((json_t *)v, i, m)
	{
		indent(o, level);
		puts_(o, "- ");
		if (json_is_object(m) && json_object_size(m)) {
			mapping(o, m, level + 1, 1);
		} else if (json_is_array(m) && json_array_size(m)) {
			puts_(o, "\n");
			sequence(o, m, level + 1);
		} else {
			scalar(o, m);
			puts_(o, "\n");
		}
	}
}

static void node(struct out *o, const json_t *v, int level)
{
	if (json_is_object(v))
		mapping(o, v, level, 0);
	else
		sequence(o, v, level);
}

char *yaml_dumps(const json_t *doc)
{
	struct out o = {0};

	puts_(&o, "---\n");
	if (is_container(doc)) {
		node(&o, doc, 0);
	} else {
		scalar(&o, doc);
		puts_(&o, "\n");
	}
	return o.buf;
}
