#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/gres_inv.h"

struct gres_inv *gres_inv_create(void)
{
	return calloc(1, sizeof(struct gres_inv));
}

void gres_inv_destroy(struct gres_inv *inv)
{
	free(inv);
}

static int copy_str(char *dst, size_t size, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= size)
		return -1;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
	return 0;
}

int gres_inv_add(struct gres_inv *inv, const char *name, const char *type, uint64_t count,
                 const char *flags, struct rota_error *err)
{
	struct gres_ent *e;
	size_t i;

	type = type ? type : "";
	for (i = 0; i < inv->nent; i++)
		if (!strcmp(inv->ent[i].name, name) && !strcmp(inv->ent[i].type, type))
			break;
	if (i == inv->nent) {
		if (inv->nent == GRES_MAX_ITEMS)
			return errprintf(err, "more than %d gres", GRES_MAX_ITEMS),
			       -E2BIG;
		e = &inv->ent[inv->nent];
		memset(e, 0, sizeof(*e));
		if (copy_str(e->name, sizeof(e->name), name) < 0 ||
		    copy_str(e->type, sizeof(e->type), type) < 0)
			return errprintf(err, "gres name or type over %d bytes",
			                 GRES_NAME_MAX - 1),
			       -ENAMETOOLONG;
		inv->nent++;
	}
	e = &inv->ent[i];
	if (flags && copy_str(e->flags, sizeof(e->flags), flags) < 0)
		return errprintf(err, "gres flags over %d bytes", GRES_FLAGS_MAX - 1),
		       -ENAMETOOLONG;
	e->count = count > UINT64_MAX - e->count ? UINT64_MAX : e->count + count;
	return (int)i;
}

int gres_inv_add_dev(struct gres_inv *inv, const char *name, const char *type,
                     const char *file, const uint64_t *cores, const char *links,
                     struct rota_error *err)
{
	struct gres_dev *d;
	int e;

	if (inv->ndev == GRES_DEVS_MAX)
		return errprintf(err, "more than %d gres devices on a node",
		                 GRES_DEVS_MAX),
		       -E2BIG;
	d = &inv->dev[inv->ndev];
	memset(d, 0, sizeof(*d));
	if (copy_str(d->file, sizeof(d->file), file) < 0)
		return errprintf(err, "gres file name over %d bytes", GRES_PATH_MAX - 1),
		       -ENAMETOOLONG;
	if (copy_str(d->links, sizeof(d->links), links) < 0)
		return errprintf(err, "gres links over %d bytes", GRES_LINKS_MAX - 1),
		       -ENAMETOOLONG;
	if (cores)
		memcpy(d->cores, cores, sizeof(d->cores));
	e = gres_inv_add(inv, name, type, 1, NULL, err);
	if (e < 0)
		return e;
	d->ent = (uint32_t)e;
	inv->ndev++;
	return 0;
}

int gres_inv_add_spec(struct gres_inv *inv, const char *spec, struct rota_error *err)
{
	struct gres_item items[GRES_MAX_ITEMS];
	size_t n = 0;
	int rc = gres_parse_node(spec, items, &n, err);

	for (size_t i = 0; rc >= 0 && i < n; i++)
		rc = gres_inv_add(inv, items[i].name, items[i].type, items[i].count, NULL,
		                  err);
	return rc < 0 ? rc : 0;
}

uint64_t gres_inv_count(const struct gres_inv *inv, const char *name, const char *type)
{
	uint64_t total = 0;

	for (size_t i = 0; i < inv->nent; i++)
		if (!strcmp(inv->ent[i].name, name) &&
		    (!type || !*type || !strcmp(inv->ent[i].type, type)))
			total += inv->ent[i].count;
	return total;
}

int gres_inv_has_name(const struct gres_inv *inv, const char *name)
{
	for (size_t i = 0; i < inv->nent; i++)
		if (!strcmp(inv->ent[i].name, name))
			return 1;
	return 0;
}

int gres_inv_format(const struct gres_inv *inv, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (size_t i = 0; i < inv->nent; i++) {
		const struct gres_ent *e = &inv->ent[i];
		int n = snprintf(buf + off, len - off, "%s%s%s%s:%" PRIu64, i ? "," : "",
		                 e->name, *e->type ? ":" : "", e->type, e->count);

		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	return 0;
}

static int parse_id(const char **s, unsigned long *ret)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	*ret = strtoul(*s, &end, 10);
	if (errno || *ret >= GRES_CORES_MAX)
		return -1;
	*s = end;
	return 0;
}

int gres_cores_parse(const char *s, uint64_t *cores)
{
	memset(cores, 0, GRES_CORE_WORDS * sizeof(uint64_t));
	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		unsigned long lo, hi;

		if (parse_id(&s, &lo) < 0)
			return -EINVAL;
		hi = lo;
		if (*s == '-') {
			s++;
			if (parse_id(&s, &hi) < 0 || hi < lo)
				return -EINVAL;
		}
		for (unsigned long c = lo; c <= hi; c++)
			cores[c / 64] |= UINT64_C(1) << (c % 64);
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}

void gres_cores_format(const uint64_t *cores, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (unsigned c = 0; c < GRES_CORES_MAX; c++) {
		unsigned hi = c;
		int n;

		if (!(cores[c / 64] >> (c % 64) & 1))
			continue;
		while (hi + 1 < GRES_CORES_MAX &&
		       cores[(hi + 1) / 64] >> ((hi + 1) % 64) & 1)
			hi++;
		n = hi == c ? snprintf(buf + off, len - off, "%s%u", off ? "," : "", c)
		            : snprintf(buf + off, len - off, "%s%u-%u", off ? "," : "", c,
		                       hi);
		if (n < 0 || (size_t)n >= len - off)
			return; /* truncated */
		off += (size_t)n;
		c = hi;
	}
}

int gres_inv_check(const char *configured, const struct gres_inv *found, char *reason,
                   size_t len)
{
	struct gres_item items[GRES_MAX_ITEMS];
	size_t n = 0;

	if (!configured || gres_parse_node(configured, items, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t want = 0, got = gres_inv_count(found, items[i].name, "");
		size_t k;

		/* each name once, its types summed */
		for (k = 0; k < i && strcmp(items[k].name, items[i].name); k++)
			;
		if (k < i)
			continue;
		for (k = i; k < n; k++)
			if (!strcmp(items[k].name, items[i].name))
				want += items[k].count;
		if (got < want) {
			snprintf(reason, len,
			         "gres/%s count reported lower than configured (%" PRIu64
			         " < %" PRIu64 ")",
			         items[i].name, got, want);
			return -1;
		}
	}
	return 0;
}
