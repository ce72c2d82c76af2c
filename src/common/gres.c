#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include "common/gres.h"
#include "common/common.h"

uint64_t gres_count_parse(const char *s, size_t len)
{
	uint64_t v = 0, mult = 1;
	size_t i = 0;

	if (!len)
		return 0;
	switch (tolower((unsigned char)s[len - 1])) {
	case 'k':
		mult = 1024, len--;
		break;
	case 'm':
		mult = 1024 * 1024, len--;
		break;
	case 'g':
		mult = 1024 * 1024 * 1024, len--;
		break;
	}
	if (!len || len > 12)
		return 0;
	for (; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT64_MAX / mult)
		return 0; /* would wrap */
	return v * mult;
}

int gres_word_copy(char *dst, const char *s, size_t len)
{
	if (!len || len >= GRES_NAME_MAX)
		return -1;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-.", s[i]))
			return -1;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

/* One item s[0..len): name[:type][:count], maybe "gres/" first, maybe "(...)"
 * last. */
static int parse_item(const char *s, size_t len, struct gres_item *it)
{
	const char *end = s + len, *c1, *c2, *paren;

	paren = memchr(s, '(', len);
	if (paren)
		end = paren;
	if (end - s > 5 && !strncmp(s, "gres/", 5))
		s += 5;
	memset(it, 0, sizeof(*it));
	it->count = 1;
	c1 = memchr(s, ':', (size_t)(end - s));
	if (!c1)
		return gres_word_copy(it->name, s, (size_t)(end - s));
	if (gres_word_copy(it->name, s, (size_t)(c1 - s)) < 0)
		return -1;
	c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	if (c2) {
		if (gres_word_copy(it->type, c1 + 1, (size_t)(c2 - c1 - 1)) < 0)
			return -1;
		it->count = gres_count_parse(c2 + 1, (size_t)(end - c2 - 1));
	} else if (isdigit((unsigned char)c1[1])) {
		it->count = gres_count_parse(c1 + 1, (size_t)(end - c1 - 1));
	} else if (gres_word_copy(it->type, c1 + 1, (size_t)(end - c1 - 1)) < 0) {
		return -1;
	}
	return it->count ? 0 : -1;
}

/* Whether item s[0..len) ends in a count of zero (":0", ":00"). */
static int item_is_zero(const char *s, size_t len)
{
	const char *paren = memchr(s, '(', len), *c;

	if (paren)
		len = (size_t)(paren - s);
	c = memrchr(s, ':', len);
	if (!c || c + 1 == s + len)
		return 0;
	for (c++; c < s + len; c++)
		if (*c != '0')
			return 0;
	return 1;
}

char *gres_drop_zero(const char *spec)
{
	size_t n = strlen(spec), o = 0;
	char *out = xmalloc(n + 1);

	for (const char *s = spec;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (!item_is_zero(s, len)) {
			if (o)
				out[o++] = ',';
			memcpy(out + o, s, len);
			o += len;
		}
		if (!comma)
			break;
		s = comma + 1;
	}
	out[o] = '\0';
	if (!o) {
		free(out);
		return NULL;
	}
	return out;
}

int gres_parse(const char *spec, struct gres_item *items, size_t *ret_n,
               struct rota_error *err)
{
	size_t n = 0;

	if (!spec || !*spec)
		return errprintf(err, "empty gres specification"), -EINVAL;
	for (const char *s = spec;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (n == GRES_MAX_ITEMS)
			return errprintf(err, "more than %d gres items", GRES_MAX_ITEMS),
			       -EINVAL;
		if (parse_item(s, len, &items[n]) < 0)
			return errprintf(err, "invalid gres item '%.*s'",
			                 (int)(len > 64 ? 64 : len), s),
			       -EINVAL;
		n++;
		if (!comma)
			break;
		s = comma + 1;
	}
	*ret_n = n;
	return 0;
}

int gres_parse_node(const char *node_gres, struct gres_item *items, size_t *ret_n,
                    struct rota_error *err)
{
	char buf[1024];
	size_t b = 0;
	int depth = 0;

	if (!node_gres)
		return errprintf(err, "empty gres specification"), -EINVAL;
	/* a node's "(S:0-1)" holds commas of its own: drop the bindings first */
	for (const char *s = node_gres; *s; s++) {
		if (b == sizeof(buf) - 1)
			return errprintf(err, "gres specification over %zu bytes",
			                 sizeof(buf) - 1),
			       -EINVAL;
		if (*s == '(')
			depth++;
		else if (*s == ')')
			depth--;
		else if (!depth)
			buf[b++] = *s;
	}
	buf[b] = '\0';
	if (depth)
		return errprintf(err, "unbalanced '(' in gres '%.64s'", node_gres),
		       -EINVAL;
	return gres_parse(buf, items, ret_n, err);
}

uint64_t gres_node_count(const char *node_gres, const char *name, const char *type)
{
	struct gres_item items[GRES_MAX_ITEMS];
	uint64_t total = 0;
	size_t n = 0;

	if (!node_gres || gres_parse_node(node_gres, items, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(items[i].name, name) &&
		    (!*type || !strcmp(items[i].type, type)))
			total += items[i].count;
	return total;
}

int gres_node_has(const char *req, const char *node_gres)
{
	struct gres_item items[GRES_MAX_ITEMS];
	size_t n = 0;

	if (gres_parse(req, items, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (gres_node_count(node_gres, items[i].name, items[i].type) <
		    items[i].count)
			return 0;
	return 1;
}
