/* cronspec.c - crontab time fields (see cronspec.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/common.h"
#include "common/cronspec.h"
#include "common/error.h"

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                          "jul", "aug", "sep", "oct", "nov", "dec"};
static const char *const dow_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

struct field {
	const char *what;
	int lo, hi;               /* the values it takes */
	const char *const *names; /* [hi - lo + 1] or NULL: names of lo.. */
};

static const struct field fields[5] = {
    {"minute", 0, 59, NULL},          {"hour", 0, 23, NULL},
    {"day of month", 1, 31, NULL},    {"month", 1, 12, month_names},
    {"day of week", 0, 7, dow_names}, /* 7 is Sunday too */
};

/* A number or (where the field has them) a 3-letter name at *p. */
static int value(const struct field *f, const char **p, int *ret)
{
	const char *s = *p;

	if (isdigit((unsigned char)*s)) {
		long v = 0;
		while (isdigit((unsigned char)*s) && v < 1000)
			v = v * 10 + (*s++ - '0');
		if (v < f->lo || v > f->hi)
			return -1;
		*ret = (int)v;
		*p = s;
		return 0;
	}
	if (f->names) {
		size_t n = f->what[0] == 'm' ? 12 : 7;
		for (size_t i = 0; i < n; i++)
			if (!strncasecmp(s, f->names[i], 3) &&
			    !isalpha((unsigned char)s[3])) {
				*ret = (int)i + f->lo;
				*p = s + 3;
				return 0;
			}
	}
	return -1;
}

/* One field (its text [s, end)) into *bits; *wild when it is "*" alone. */
static int field_parse(const struct field *f, const char *s, const char *end,
                       uint64_t *bits, int *wild, struct rota_error *err)
{
	*bits = 0;
	*wild = end - s == 1 && *s == '*';
	if (*wild) {
		for (int v = f->lo; v <= f->hi; v++)
			*bits |= UINT64_C(1) << v;
		return 0;
	}
	while (s < end) {
		int a, b, step = 1;

		if (*s == '*') {
			a = f->lo;
			b = f->hi;
			s++;
		} else {
			if (value(f, &s, &a) < 0)
				goto bad;
			b = a;
			if (*s == '-') {
				s++;
				if (value(f, &s, &b) < 0 || b < a)
					goto bad;
			}
		}
		if (*s == '/') {
			long v = 0;
			s++;
			if (!isdigit((unsigned char)*s))
				goto bad;
			while (isdigit((unsigned char)*s) && v < 1000)
				v = v * 10 + (*s++ - '0');
			if (v < 1 || v > f->hi)
				goto bad;
			step = (int)v;
			if (a == b) /* N/step: from N to the end */
				b = f->hi;
		}
		for (int v = a; v <= b; v += step)
			*bits |= UINT64_C(1) << v;
		if (s < end && *s != ',')
			goto bad;
		if (s < end)
			s++;
		if (s == end && end[-1] == ',')
			goto bad;
	}
	return 0;
bad:
	errprintf(err, "invalid %s field", f->what);
	return -EINVAL;
}

static const struct {
	const char *name, *spec;
} shortcuts[] = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

static int days_in_month(int month, int year) /* month 1-12; year: full */
{
	static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : d[month - 1];
}

/* Can a date match at all (no 30 February alone)? */
static int some_date(const struct cronspec *c)
{
	if ((c->wild & CRON_WILD_DOM) || !(c->wild & CRON_WILD_DOW))
		return 1; /* any day, or a weekday will do */
	for (int m = 1; m <= 12; m++)
		for (int d = 1; d <= 31; d++)
			if ((c->month >> m & 1) && (c->dom >> d & 1) &&
			    d <= days_in_month(m, 2000))
				return 1;
	return 0;
}

int cronspec_parse(const char *line, struct cronspec *ret, const char **ret_rest,
                   struct rota_error *err)
{
	const char *p = line;
	struct cronspec c = {0};

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '@') {
		size_t n = strcspn(p, " \t\n");
		for (size_t i = 0; i < sizeof(shortcuts) / sizeof(shortcuts[0]); i++)
			if (strlen(shortcuts[i].name) == n &&
			    !strncmp(p, shortcuts[i].name, n)) {
				const char *rest;
				if (cronspec_parse(shortcuts[i].spec, ret, &rest, err) <
				    0)
					return -EINVAL;
				p += n;
				while (*p == ' ' || *p == '\t')
					p++;
				*ret_rest = p;
				return 0;
			}
		return errprintf(err, "unknown time specification %.*s", (int)n, p),
		       -EINVAL;
	}
	for (int i = 0; i < 5; i++) {
		const char *end = p + strcspn(p, " \t\n");
		uint64_t bits;
		int wild;

		if (end == p)
			return errprintf(err, "missing %s field", fields[i].what),
			       -EINVAL;
		if (field_parse(&fields[i], p, end, &bits, &wild, err) < 0)
			return -EINVAL;
		if (wild)
			c.wild |= (uint8_t)(1 << i);
		switch (i) {
		case 0:
			c.minute = bits;
			break;
		case 1:
			c.hour = (uint32_t)bits;
			break;
		case 2:
			c.dom = (uint32_t)bits;
			break;
		case 3:
			c.month = (uint16_t)bits;
			break;
		default: /* 7 is Sunday */
			c.dow = (uint8_t)((bits | bits >> 7) & 0x7f);
		}
		p = end;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	if (!some_date(&c))
		return errprintf(err, "no date matches the day of month and month"),
		       -EINVAL;
	*ret = c;
	*ret_rest = p;
	return 0;
}

static int day_matches(const struct cronspec *c, int month, int mday, int wday)
{
	int dom = c->dom >> mday & 1, dow = c->dow >> wday & 1;

	if (!(c->month >> month & 1))
		return 0;
	if ((c->wild & CRON_WILD_DOM) && (c->wild & CRON_WILD_DOW))
		return 1;
	if (c->wild & CRON_WILD_DOM)
		return dow;
	if (c->wild & CRON_WILD_DOW)
		return dom;
	return dom || dow; /* both restricted: either, as cron */
}

/* Days are walked by arithmetic (a month the spec leaves out in one step);
 * mktime runs for the matching minutes of a matching day only. */
time_t cronspec_next(const struct cronspec *c, time_t after)
{
	struct tm start;
	time_t t = after - (after % 60) + 60;
	int y, mo, d, wd;

	localtime_r(&t, &start);
	y = start.tm_year + 1900;
	mo = start.tm_mon + 1;
	d = start.tm_mday;
	wd = start.tm_wday;
	for (int n = 0; n < 8 * 366; n++) {
		int first_day = n == 0;

		if (!(c->month >> mo & 1)) { /* to the 1st of the next month */
			int left = days_in_month(mo, y) - d + 1;
			n += left - 1;
			wd = (wd + left) % 7;
			d = 1;
			if (++mo > 12) {
				mo = 1;
				y++;
			}
			continue;
		}
		if (day_matches(c, mo, d, wd)) {
			for (int h = first_day ? start.tm_hour : 0; h < 24; h++) {
				if (!(c->hour >> h & 1))
					continue;
				for (int m = first_day && h == start.tm_hour
				                 ? start.tm_min
				                 : 0;
				     m < 60; m++) {
					struct tm at = {.tm_year = y - 1900,
					                .tm_mon = mo - 1,
					                .tm_mday = d,
					                .tm_hour = h,
					                .tm_min = m,
					                .tm_isdst = -1};
					time_t r;
					if (!(c->minute >> m & 1))
						continue;
					r = mktime(&at);
					if (r > after)
						return r;
				}
			}
		}
		wd = (wd + 1) % 7;
		if (++d > days_in_month(mo, y)) {
			d = 1;
			if (++mo > 12) {
				mo = 1;
				y++;
			}
		}
	}
	return -1;
}

static void bits_str(char **out, uint64_t bits, int lo, int hi)
{
	int first = 1;

	for (int v = lo; v <= hi; v++) {
		int e = v;
		if (!(bits >> v & 1))
			continue;
		while (e + 1 <= hi && (bits >> (e + 1) & 1))
			e++;
		{
			char *s =
			    e > v ? xasprintf("%s%s%d-%d", *out, first ? "" : ",", v, e)
			          : xasprintf("%s%s%d", *out, first ? "" : ",", v);
			free(*out);
			*out = s;
		}
		first = 0;
		v = e;
	}
}

char *cronspec_str(const struct cronspec *c)
{
	const uint64_t bits[5] = {c->minute, c->hour, c->dom, c->month, c->dow};
	const int hi[5] = {59, 23, 31, 12, 6};
	char *out = xstrdup("");

	for (int i = 0; i < 5; i++) {
		char *s;
		if (i) {
			s = xasprintf("%s ", out);
			free(out);
			out = s;
		}
		if (c->wild & (1 << i)) {
			s = xasprintf("%s*", out);
			free(out);
			out = s;
		} else {
			bits_str(&out, bits[i], fields[i].lo, hi[i]);
		}
	}
	return out;
}
