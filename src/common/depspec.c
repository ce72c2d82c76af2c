/* depspec.c - job dependency specifications; see depspec.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/depspec.h"
#include "common/common.h"

static const char *const type_names[] = {
    [DEPSPEC_AFTER] = "after",         [DEPSPEC_AFTERANY] = "afterany",
    [DEPSPEC_AFTEROK] = "afterok",     [DEPSPEC_AFTERNOTOK] = "afternotok",
    [DEPSPEC_AFTERCORR] = "aftercorr", [DEPSPEC_SINGLETON] = "singleton",
};

const char *depspec_type_name(enum depspec_type type)
{
	return (size_t)type < sizeof(type_names) / sizeof(type_names[0])
	           ? type_names[type]
	           : "?";
}

void depspec_destroy(struct depspec *d)
{
	if (!d)
		return;
	free(d->items);
	free(d);
}

/* Unsigned decimal at *p (advanced past it) into ret, at most max. */
static int parse_u32(const char **p, uint32_t max, uint32_t *ret)
{
	uint64_t v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -1;
	}
	*p = s;
	*ret = (uint32_t)v;
	return 0;
}

static int type_parse(const char *s, size_t len, enum depspec_type *ret)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (strlen(type_names[i]) == len && !strncasecmp(s, type_names[i], len)) {
			*ret = (enum depspec_type)i;
			return 0;
		}
	return -1;
}

/* One "ID[_T|_*][+MIN]" at *p into it (type already set). */
static int id_parse(const char **p, struct depspec_item *it, struct rota_error *err)
{
	const char *s = *p;

	if (parse_u32(&s, 0xfffffffdu, &it->job_id) < 0 || it->job_id == 0)
		return errprintf(err, "invalid job id in dependency near \"%.20s\"", *p);
	it->task_id = DEPSPEC_ALL_TASKS;
	if (*s == '_') {
		s++;
		if (*s == '*')
			s++;
		else if (parse_u32(&s, 0xfffffffdu, &it->task_id) < 0)
			return errprintf(err,
			                 "invalid array task id in dependency "
			                 "near \"%.20s\"",
			                 *p);
	}
	it->minutes = 0;
	if (*s == '+') {
		s++;
		if (parse_u32(&s, DEPSPEC_MAX_MIN, &it->minutes) < 0 || !it->minutes)
			return errprintf(err, "invalid time in dependency near \"%.20s\"",
			                 *p);
	}
	*p = s;
	return 0;
}

static int item_add(struct depspec *d, const struct depspec_item *it,
                    struct rota_error *err)
{
	if (d->n >= DEPSPEC_MAX_ITEMS)
		return errprintf(err, "more than %u jobs in a dependency",
		                 DEPSPEC_MAX_ITEMS);
	d->items[d->n++] = *it;
	return 0;
}

/* One element "TYPE:ID[:ID...]", "singleton" or "ID[:ID...]" ending at end. */
static int element_parse(struct depspec *d, const char *s, const char *end,
                         struct rota_error *err)
{
	struct depspec_item it = {.type = DEPSPEC_AFTERANY};
	const char *colon = memchr(s, ':', (size_t)(end - s));
	size_t tlen = colon ? (size_t)(colon - s) : (size_t)(end - s);

	if (s == end)
		return errprintf(err, "empty dependency element");
	if (*s < '0' || *s > '9') {
		if (tlen == 16 && !strncasecmp(s, "afterburstbuffer", tlen))
			return errprintf(err, "afterburstbuffer dependencies are not "
			                      "supported: there are no burst buffers");
		if (type_parse(s, tlen, &it.type) < 0)
			return errprintf(err, "unknown dependency type \"%.*s\"",
			                 (int)(tlen > 32 ? 32 : tlen), s);
		if (it.type == DEPSPEC_SINGLETON) {
			if (colon)
				return errprintf(err, "singleton takes no job ids");
			it.task_id = DEPSPEC_ALL_TASKS;
			return item_add(d, &it, err);
		}
		if (!colon || colon + 1 == end)
			return errprintf(err, "%s needs a job id",
			                 depspec_type_name(it.type));
		s = colon + 1;
	}
	for (;;) {
		if (id_parse(&s, &it, err) < 0 || item_add(d, &it, err) < 0)
			return -1;
		if (s == end)
			return 0;
		if (*s != ':' || s + 1 == end)
			return errprintf(err, "invalid dependency near \"%.20s\"", s);
		s++;
	}
}

int depspec_parse(const char *spec, struct depspec **ret, struct rota_error *err)
{
	struct depspec *d;
	size_t len = spec ? strlen(spec) : 0;
	int has_and = 0;
	const char *s;

	if (!len)
		return errprintf(err, "empty dependency"), -EINVAL;
	if (len > DEPSPEC_MAX_LEN)
		return errprintf(err, "dependency longer than %u characters",
		                 DEPSPEC_MAX_LEN),
		       -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	/* each item takes at least two characters, "1:" or "1," */
	d->items =
	    calloc(len / 2 + 1 < DEPSPEC_MAX_ITEMS ? len / 2 + 1 : DEPSPEC_MAX_ITEMS,
	           sizeof(*d->items));
	if (!d->items) {
		free(d);
		return -ENOMEM;
	}
	for (s = spec;;) {
		const char *end = s + strcspn(s, ",?");
		if (element_parse(d, s, end, err) < 0)
			goto fail;
		if (!*end)
			break;
		if (*end == '?')
			d->any = 1;
		else
			has_and = 1;
		if (d->any && has_and) {
			errprintf(err, "a dependency may not mix ',' and '?'");
			goto fail;
		}
		s = end + 1;
	}
	*ret = d;
	return 0;
fail:
	depspec_destroy(d);
	return -EINVAL;
}

char *depspec_format(const struct depspec *d, const char *const *status)
{
	size_t cap = 1, len = 0;
	char *out;

	for (size_t i = 0; i < d->n; i++)
		cap += 64 + (status && status[i] ? strlen(status[i]) : 0);
	out = malloc(cap);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < d->n; i++) {
		const struct depspec_item *it = &d->items[i];
		const char *st = status ? status[i] : NULL;
		if (i)
			len += (size_t)snprintf(out + len, cap - len, "%c",
			                        d->any ? '?' : ',');
		len += (size_t)snprintf(out + len, cap - len, "%s",
		                        depspec_type_name(it->type));
		if (it->type != DEPSPEC_SINGLETON) {
			len += (size_t)snprintf(out + len, cap - len, ":%u", it->job_id);
			if (it->task_id != DEPSPEC_ALL_TASKS)
				len += (size_t)snprintf(out + len, cap - len, "_%u",
				                        it->task_id);
			if (it->minutes)
				len += (size_t)snprintf(out + len, cap - len, "+%u",
				                        it->minutes);
		}
		if (st)
			len += (size_t)snprintf(out + len, cap - len, "(%s)", st);
	}
	return out;
}
