/* fmtspec.c - squeue/sinfo format strings (see fmtspec.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/fmtspec.h"
#include "common/common.h"

#define FMTSPEC_MAX_NAME 64 /* one -O field name */

void fmtspec_destroy(struct fmtspec *spec)
{
	if (!spec)
		return;
	for (size_t i = 0; i < spec->count; i++) {
		free(spec->items[i].name);
		free(spec->items[i].suffix);
	}
	free(spec->items);
	free(spec->prefix);
	free(spec);
}

static struct fmtspec *spec_new(size_t max_items)
{
	struct fmtspec *spec = calloc(1, sizeof(*spec));

	if (!spec)
		return NULL;
	spec->items = calloc(max_items ? max_items : 1, sizeof(*spec->items));
	if (!spec->items) {
		free(spec);
		return NULL;
	}
	return spec;
}

/* Copy literal text from *pp up to the next lone '%' (or the end), turning "%%"
 * into '%'.  Advances *pp.  Returns a new string or NULL on ENOMEM. */
static char *read_text(const char **pp)
{
	const char *p = *pp;
	char *out = malloc(strlen(p) + 1);
	size_t n = 0;

	if (!out)
		return NULL;
	while (*p) {
		if (p[0] == '%' && p[1] == '%') {
			out[n++] = '%';
			p += 2;
		} else if (p[0] == '%') {
			break;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	*pp = p;
	return out;
}

/* Parse decimal digits at *pp into *ret_width (0 when none). */
static int read_width(const char **pp, int *ret_width, struct rota_error *err)
{
	const char *p = *pp;
	long w = 0;

	while (isdigit((unsigned char)*p)) {
		w = w * 10 + (*p++ - '0');
		if (w > FMTSPEC_MAX_WIDTH) {
			errprintf(err, "field width exceeds %d", FMTSPEC_MAX_WIDTH);
			return -EINVAL;
		}
	}
	*ret_width = (int)w;
	*pp = p;
	return 0;
}

static int check_input(const char *fmt, struct rota_error *err)
{
	if (!fmt || !*fmt) {
		errprintf(err, "empty format");
		return -EINVAL;
	}
	if (strlen(fmt) > FMTSPEC_MAX_LEN) {
		errprintf(err, "format longer than %d bytes", FMTSPEC_MAX_LEN);
		return -EINVAL;
	}
	return 0;
}

int fmtspec_parse(const char *fmt, struct fmtspec **ret, struct rota_error *err)
{
	struct fmtspec *spec = NULL;
	const char *p = fmt;
	int rc;

	if ((rc = check_input(fmt, err)) < 0)
		return rc;
	rc = -ENOMEM;
	if (!(spec = spec_new(FMTSPEC_MAX_ITEMS)) || !(spec->prefix = read_text(&p)))
		goto out;
	while (*p == '%') {
		struct fmtspec_item *it;

		if (spec->count == FMTSPEC_MAX_ITEMS) {
			errprintf(err, "more than %d fields", FMTSPEC_MAX_ITEMS);
			rc = -EINVAL;
			goto out;
		}
		it = &spec->items[spec->count];
		p++;
		if (*p == '.') {
			it->flags |= FMTSPEC_RIGHT;
			p++;
		}
		if (*p == '-')
			p++;
		if ((rc = read_width(&p, &it->width, err)) < 0)
			goto out;
		if (!*p) {
			errprintf(err, "format ends before a field type letter");
			rc = -EINVAL;
			goto out;
		}
		it->letter = *p++;
		spec->count++;
		rc = -ENOMEM;
		if (!(it->suffix = read_text(&p)))
			goto out;
	}
	*ret = spec;
	spec = NULL;
	rc = 0;
out:
	fmtspec_destroy(spec);
	return rc;
}

/* One "Name[:[.][size][suffix]]" token of length n. */
static int parse_long_token(const char *tok, size_t n, int default_width,
                            struct fmtspec_item *it, struct rota_error *err)
{
	const char *colon = memchr(tok, ':', n);
	size_t name_len = colon ? (size_t)(colon - tok) : n;
	const char *p, *end = tok + n;
	int rc;

	if (name_len > FMTSPEC_MAX_NAME) {
		errprintf(err, "field name longer than %d bytes", FMTSPEC_MAX_NAME);
		return -EINVAL;
	}
	if (!(it->name = strndup(tok, name_len)))
		return -ENOMEM;
	if (!colon) {
		it->width = default_width;
		return (it->suffix = strdup("")) ? 0 : -ENOMEM;
	}
	p = colon + 1;
	if (p < end && *p == '.') {
		it->flags |= FMTSPEC_RIGHT;
		p++;
	}
	/* digits stop at the ',' that ends the token, so p stays within it */
	if ((rc = read_width(&p, &it->width, err)) < 0)
		return rc;
	return (it->suffix = strndup(p, (size_t)(end - p))) ? 0 : -ENOMEM;
}

int fmtspec_parse_long(const char *fmt, int default_width, struct fmtspec **ret,
                       struct rota_error *err)
{
	struct fmtspec *spec = NULL;
	const char *p = fmt;
	int rc;

	if ((rc = check_input(fmt, err)) < 0)
		return rc;
	rc = -ENOMEM;
	if (!(spec = spec_new(FMTSPEC_MAX_ITEMS)) || !(spec->prefix = strdup("")))
		goto out;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n) {
			if (spec->count == FMTSPEC_MAX_ITEMS) {
				errprintf(err, "more than %d fields", FMTSPEC_MAX_ITEMS);
				rc = -EINVAL;
				goto out;
			}
			rc = parse_long_token(p, n, default_width,
			                      &spec->items[spec->count], err);
			spec->count++;
			if (rc < 0)
				goto out;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	if (!spec->count) {
		errprintf(err, "no fields in format");
		rc = -EINVAL;
		goto out;
	}
	*ret = spec;
	spec = NULL;
	rc = 0;
out:
	fmtspec_destroy(spec);
	return rc;
}
