/* licenses.c - license lists (licenses.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/error.h"
#include "common/licenses.h"
#include "common/common.h"

int lic_find(const struct lic *l, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(l[i].name, name))
			return i;
	return -1;
}

/* One item "name[:count]" of len bytes at s into *out. */
static int item_parse(const char *s, size_t len, struct lic *out, int zero_ok,
                      struct rota_error *err)
{
	size_t name_len = strcspn(s, ":*");
	unsigned long long count = 1;

	if (name_len > len)
		name_len = len;
	if (!name_len)
		return errprintf(err, "a license needs a name");
	if (name_len >= LIC_NAME_MAX)
		return errprintf(err, "license name %.*s... is too long", 16, s);
	for (size_t i = 0; i < name_len; i++)
		if (s[i] == '=' || s[i] == ' ' || s[i] == '\t' || s[i] == '(' ||
		    s[i] == ')')
			return errprintf(err, "bad license name %.*s", (int)name_len, s);
	if (name_len < len) {
		const char *c = s + name_len + 1;
		size_t clen = len - name_len - 1;
		char *end;

		if (!clen || clen > 10 || *c < '0' || *c > '9')
			return errprintf(err, "bad license count in %.*s", (int)len, s);
		count = strtoull(c, &end, 10);
		if (end != c + clen || count > LIC_COUNT_MAX)
			return errprintf(err, "bad license count in %.*s", (int)len, s);
	}
	if (!count && !zero_ok)
		return errprintf(err, "license %.*s: a count of 0", (int)name_len, s);
	memcpy(out->name, s, name_len);
	out->name[name_len] = '\0';
	out->count = (uint32_t)count;
	return 0;
}

int lic_parse(const char *spec, struct lic *out, int zero_ok, struct rota_error *err)
{
	int n = 0;

	if (!spec || !*spec)
		return 0;
	for (const char *s = spec;;) {
		size_t len = strcspn(s, ",");
		struct lic one;

		if (n == LIC_MAX)
			return errprintf(err, "more than %d licenses", LIC_MAX);
		if (item_parse(s, len, &one, zero_ok, err))
			return -1;
		if (lic_find(out, n, one.name) >= 0)
			return errprintf(err, "license %s named twice", one.name);
		out[n++] = one;
		if (!s[len])
			break;
		s += len + 1;
	}
	return n;
}

char *lic_format(const struct lic *l, int n)
{
	size_t cap = (size_t)n * (LIC_NAME_MAX + 12) + 1, off = 0;
	char *out = xmalloc(cap);

	out[0] = '\0';
	for (int i = 0; i < n; i++)
		off += (size_t)snprintf(out + off, cap - off, "%s%s:%u", i ? "," : "",
		                        l[i].name, l[i].count);
	return out;
}
