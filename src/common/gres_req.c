/* gres_req.c - GPU options and per-node GRES allocations (gres_req.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/gres_req.h"
#include "common/common.h"

static int valid_word(const char *s, size_t len)
{
	char w[GRES_NAME_MAX];

	return gres_word_copy(w, s, len) == 0;
}

/* A decimal count in s[0..len), 1..GRES_REQ_MAX_COUNT, else 0. */
static uint32_t count_of(const char *s, size_t len)
{
	uint64_t v = 0;

	if (!len || len > 9)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	return v >= 1 && v <= GRES_REQ_MAX_COUNT ? (uint32_t)v : 0;
}

int gres_gpu_parse(const char *spec, char type[GRES_NAME_MAX], uint32_t *ret_count,
                   struct rota_error *err)
{
	const char *colon, *num;
	uint32_t n;

	if (!spec || !*spec)
		return errprintf(err, "empty GPU count"), -EINVAL;
	colon = strchr(spec, ':');
	num = colon ? colon + 1 : spec;
	if (colon && (!valid_word(spec, (size_t)(colon - spec)) || strchr(num, ':')))
		return errprintf(err, "invalid GPU type in '%.64s'", spec), -EINVAL;
	n = count_of(num, strlen(num));
	if (!n)
		return errprintf(err, "invalid GPU count in '%.64s' (1 to %d)", spec,
		                 GRES_REQ_MAX_COUNT),
		       -EINVAL;
	if (colon) {
		memcpy(type, spec, (size_t)(colon - spec));
		type[colon - spec] = '\0';
	} else {
		type[0] = '\0';
	}
	*ret_count = n;
	return 0;
}

/* "0-1,3" inside IDX:...) into it->idx. */
static int parse_idx(const char *s, size_t len, struct gres_alloc_item *it)
{
	const char *end = s + len;

	it->nidx = 0;
	while (s < end) {
		char *e;
		unsigned long a = strtoul(s, &e, 10), b = a;
		if (e == s || a >= GRES_ALLOC_MAX_INDEX)
			return -1;
		if (*e == '-') {
			s = e + 1;
			b = strtoul(s, &e, 10);
			if (e == s || b < a || b >= GRES_ALLOC_MAX_INDEX)
				return -1;
		}
		for (unsigned long i = a; i <= b; i++)
			if (it->nidx < 64)
				it->idx[it->nidx++] = (uint32_t)i;
		s = e;
		if (s < end && *s++ != ',')
			return -1;
	}
	return 0;
}

static int parse_alloc_item(const char *s, size_t len, struct gres_alloc_item *it)
{
	const char *paren = memchr(s, '(', len), *end = paren ? paren : s + len;
	const char *c1 = memchr(s, ':', (size_t)(end - s)), *c2;

	memset(it, 0, sizeof(*it));
	if (!c1 || !valid_word(s, (size_t)(c1 - s)))
		return -1;
	memcpy(it->name, s, (size_t)(c1 - s));
	c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	if (c2) {
		if (!valid_word(c1 + 1, (size_t)(c2 - c1 - 1)))
			return -1;
		memcpy(it->type, c1 + 1, (size_t)(c2 - c1 - 1));
		c1 = c2;
	}
	it->count = count_of(c1 + 1, (size_t)(end - c1 - 1));
	if (!it->count)
		return -1;
	if (!paren)
		return 0;
	if (len - (size_t)(paren - s) < 6 || strncmp(paren, "(IDX:", 5) ||
	    s[len - 1] != ')')
		return -1;
	return parse_idx(paren + 5, len - (size_t)(paren - s) - 6, it);
}

int gres_alloc_parse(const char *s, struct gres_alloc_item *items, size_t max,
                     size_t *ret_n)
{
	size_t n = 0;

	while (s && *s) {
		size_t len = 0;
		int depth = 0;
		/* an item ends at a comma outside the parentheses */
		for (; s[len] && (depth || s[len] != ','); len++)
			depth += s[len] == '(' ? 1 : s[len] == ')' ? -1 : 0;
		if (n == max || parse_alloc_item(s, len, &items[n]) < 0)
			return -EINVAL;
		n++;
		s += len;
		if (*s)
			s++;
	}
	*ret_n = n;
	return 0;
}

uint32_t gres_alloc_count(const char *s, const char *name)
{
	struct gres_alloc_item it[GRES_MAX_ITEMS];
	size_t n = 0;
	uint32_t total = 0;

	if (gres_alloc_parse(s, it, GRES_MAX_ITEMS, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(it[i].name, name))
			total += it[i].count;
	return total;
}

char *gres_alloc_indexes(const char *s, const char *name)
{
	struct gres_alloc_item it[GRES_MAX_ITEMS];
	uint32_t idx[64 * GRES_MAX_ITEMS];
	size_t n = 0, k = 0;
	char *out;
	size_t len = 0;

	if (gres_alloc_parse(s, it, GRES_MAX_ITEMS, &n) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(it[i].name, name))
			for (uint32_t j = 0; j < it[i].nidx; j++)
				idx[k++] = it[i].idx[j];
	if (!k)
		return NULL;
	/* ascending: types may interleave */
	for (size_t a = 1; a < k; a++)
		for (size_t b = a; b > 0 && idx[b - 1] > idx[b]; b--) {
			uint32_t t = idx[b];
			idx[b] = idx[b - 1];
			idx[b - 1] = t;
		}
	out = xcalloc(k * 5 + 1, 1);
	for (size_t i = 0; i < k; i++)
		len += (size_t)snprintf(out + len, k * 5 + 1 - len, "%s%u", i ? "," : "",
		                        idx[i]);
	return out;
}

char *gres_idx_ranges(const uint32_t *idx, size_t n)
{
	size_t cap = n * 10 + 1, len = 0;
	char *out = xcalloc(cap, 1);

	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && idx[j + 1] == idx[j] + 1)
			j++;
		if (j > i)
			len += (size_t)snprintf(out + len, cap - len, "%s%u-%u",
			                        len ? "," : "", idx[i], idx[j]);
		else
			len += (size_t)snprintf(out + len, cap - len, "%s%u",
			                        len ? "," : "", idx[i]);
		i = j + 1;
	}
	return out;
}

char *gres_alloc_tres(char *const *per_node, size_t nnodes)
{
	struct gres_alloc_item it[GRES_MAX_ITEMS];
	struct {
		char name[GRES_NAME_MAX], type[GRES_NAME_MAX];
		uint64_t n;
	} sum[GRES_MAX_ITEMS];
	size_t nsum = 0;
	char *out = NULL;

	for (size_t k = 0; per_node && k < nnodes; k++) {
		size_t n = 0;
		if (!per_node[k] ||
		    gres_alloc_parse(per_node[k], it, GRES_MAX_ITEMS, &n) < 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			size_t j = 0;
			while (j < nsum && (strcmp(sum[j].name, it[i].name) ||
			                    strcmp(sum[j].type, it[i].type)))
				j++;
			if (j == nsum) {
				if (nsum == GRES_MAX_ITEMS)
					continue;
				memcpy(sum[j].name, it[i].name, sizeof(sum[j].name));
				memcpy(sum[j].type, it[i].type, sizeof(sum[j].type));
				sum[j].n = 0;
				nsum++;
			}
			sum[j].n += it[i].count;
		}
	}
	for (size_t j = 0; j < nsum; j++) {
		uint64_t total = 0;
		char *next;
		/* the name's total once, before its types */
		for (size_t i = 0; i < nsum; i++)
			if (!strcmp(sum[i].name, sum[j].name))
				total += sum[i].n;
		next = xasprintf("%s%s", out ? out : "", out ? "," : "");
		free(out);
		out = next;
		if (j == 0 || strcmp(sum[j - 1].name, sum[j].name)) {
			next = xasprintf("%sgres/%s=%llu", out, sum[j].name,
			                 (unsigned long long)total);
			free(out);
			out = next;
			if (!*sum[j].type)
				continue;
			next = xasprintf("%s,", out);
			free(out);
			out = next;
		}
		if (*sum[j].type) {
			next = xasprintf("%sgres/%s:%s=%llu", out, sum[j].name,
			                 sum[j].type, (unsigned long long)sum[j].n);
			free(out);
			out = next;
		}
	}
	return out;
}

char *gres_spec_tres(const char *spec)
{
	size_t cap = spec ? strlen(spec) + 1 : 1, len = 0;
	char *clean = xcalloc(cap, 1), *out = NULL;

	while (spec && *spec) {
		size_t n = strcspn(spec, "(,");
		const char *colon = memrchr(spec, ':', n);
		/* a count of 0 ("gpu:h100:0") holds nothing */
		int zero = colon && n == (size_t)(colon - spec) + 2 && colon[1] == '0';

		if (!zero) {
			len += (size_t)snprintf(clean + len, cap - len, "%s%.*s",
			                        len ? "," : "", (int)n, spec);
		}
		spec += n;
		if (*spec == '(')
			spec += strcspn(spec, ")") + (spec[strcspn(spec, ")")] ? 1 : 0);
		if (*spec == ',')
			spec++;
	}
	if (*clean)
		out = gres_alloc_tres(&clean, 1);
	free(clean);
	return out;
}

/* Does list (comma-separated) hold word[0..n), case-insensitive? */
static int list_has(const char *list, const char *word, size_t n)
{
	while (list && *list) {
		size_t len = strcspn(list, ",");
		if (len == n && !strncasecmp(list, word, n))
			return 1;
		list += len + (list[len] == ',');
	}
	return 0;
}

char *gres_tres_tracked(const char *tres, const char *tracked, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	while (tres && *tres && len) {
		size_t n = strcspn(tres, ","), key = strcspn(tres, "=");
		int typed = memchr(tres, ':', key < n ? key : n) != NULL;

		if (!typed || list_has(tracked, tres, key < n ? key : n)) {
			int w = snprintf(buf + at, len - at, "%s%.*s", at ? "," : "",
			                 (int)n, tres);
			at = w < 0 || (size_t)w >= len - at ? len - 1 : at + (size_t)w;
		}
		tres += n + (tres[n] == ',');
	}
	return buf;
}
