/* time_parse.c - Slurm's point-in-time words (time_parse.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/time_parse.h"

#define DAY           (24 * 60 * 60)
#define MAX_NOW_COUNT 10000000000LL /* now+N: N's bound, about 300 years of seconds */

/* What the words named so far; -1: not named.  mon 0-11, year since 1900. */
struct when {
	int hour, min, sec;
	int mon, mday, year;
};

static void set_date(struct when *w, time_t t)
{
	struct tm tm;

	localtime_r(&t, &tm);
	w->mon = tm.tm_mon;
	w->mday = tm.tm_mday;
	w->year = tm.tm_year;
}

static void set_clock(struct when *w, int hour, int min, int sec)
{
	w->hour = hour;
	w->min = min;
	w->sec = sec;
}

/* Between lo and hi digits at s + *i into *ret, advancing *i; -1 if fewer. */
static int digits(const char *s, size_t *i, int lo, int hi, int *ret)
{
	int n = 0, v = 0;

	while (n < hi && isdigit((unsigned char)s[*i + n])) {
		v = v * 10 + (s[*i + n] - '0');
		n++;
	}
	if (n < lo)
		return -1;
	*i += (size_t)n;
	*ret = v;
	return 0;
}

/* "HH:MM[:SS] [AM|PM]" at s + *i. */
static int clock_word(const char *s, size_t *i, struct when *w)
{
	size_t p = *i, q;
	int h, m, sec = 0;

	if (digits(s, &p, 1, 2, &h) < 0 || h > 23 || s[p++] != ':' ||
	    digits(s, &p, 2, 2, &m) < 0 || m > 59)
		goto bad;
	if (s[p] == ':' && (++p, digits(s, &p, 2, 2, &sec) < 0 || sec > 59))
		goto bad;
	for (q = p; isspace((unsigned char)s[q]);)
		q++;
	if (!strncasecmp(s + q, "pm", 2) || !strncasecmp(s + q, "am", 2)) {
		if (h > 12)
			goto bad;
		if (tolower((unsigned char)s[q]) == 'p')
			h = h == 12 ? 12 : h + 12;
		else
			h = h == 12 ? 0 : h;
		p = q + 2;
	}
	set_clock(w, h, m, sec);
	*i = p;
	return 0;
bad:
	*i = p;
	return -1;
}

/* "YYYY-MM-DD", or "MMDD[YY]" with optional '.' or '/' after MM and DD. */
static int date_word(const char *s, size_t *i, struct when *w)
{
	size_t p = *i;
	int y = -1, m, d;

	if (strnlen(s + p, 8) == 8 && s[p + 4] == '-' && s[p + 7] == '-') {
		if (digits(s, &p, 4, 4, &y) < 0 || s[p++] != '-')
			goto bad;
		y -= 1900;
	}
	if (digits(s, &p, 1, 2, &m) < 0 || m < 1 || m > 12)
		goto bad;
	if (y >= 0 && s[p++] != '-')
		goto bad;
	if (y < 0 && (s[p] == '.' || s[p] == '/'))
		p++;
	if (digits(s, &p, 1, 2, &d) < 0 || d < 1 || d > 31)
		goto bad;
	if (y < 0) {
		if (s[p] == '.' || s[p] == '/')
			p++;
		if (isdigit((unsigned char)s[p])) {
			if (digits(s, &p, 2, 2, &y) < 0)
				goto bad;
			y += 100; /* two digits: 20YY */
		}
	}
	w->mon = m - 1;
	w->mday = d;
	w->year = y; /* -1: the next (or last) such date */
	*i = p;
	return 0;
bad:
	*i = p;
	return -1;
}

/* "now[{+|-}count[unit]]" at s + *i (past "now"): sets date and clock. */
static int now_word(const char *s, size_t *i, time_t now, struct when *w)
{
	static const struct {
		const char *name;
		long long secs;
	} units[] = {{"seconds", 1},
	             {"minutes", 60},
	             {"hours", 60 * 60},
	             {"days", DAY},
	             {"weeks", 7 * DAY}};
	size_t p = *i, n;
	long long count = 0, unit = 1;
	struct tm tm;
	int sign = 0;

	while (isblank((unsigned char)s[p]))
		p++;
	if (s[p] == '+' || s[p] == '-') {
		sign = s[p++] == '-' ? -1 : 1;
		while (isblank((unsigned char)s[p]))
			p++;
		if (!isdigit((unsigned char)s[p]))
			goto bad;
		while (isdigit((unsigned char)s[p]) && count <= MAX_NOW_COUNT)
			count = count * 10 + (s[p++] - '0');
		if (count > MAX_NOW_COUNT)
			goto bad;
		while (isblank((unsigned char)s[p]))
			p++;
		for (n = 0; isalpha((unsigned char)s[p + n]);)
			n++;
		if (n) { /* a unit word, or the start of one */
			size_t k = 0;
			while (k < sizeof(units) / sizeof(units[0]) &&
			       (n > strlen(units[k].name) ||
			        strncasecmp(s + p, units[k].name, n)))
				k++;
			if (k == sizeof(units) / sizeof(units[0]))
				goto bad;
			unit = units[k].secs;
			p += n;
		}
	} else if (s[p] && s[p] != '\n') {
		goto bad;
	}
	now += (time_t)(sign * count * unit);
	localtime_r(&now, &tm);
	set_date(w, now);
	set_clock(w, tm.tm_hour, tm.tm_min, tm.tm_sec);
	*i = p;
	return 0;
bad:
	*i = p;
	return -1;
}

/* A word that names a date or a time of day; its length, or 0 if none. */
static size_t name_word(const char *s, time_t now, struct when *w)
{
	static const struct {
		const char *name;
		int hour; /* -1: today, -2: tomorrow */
	} words[] = {{"today", -1}, {"tomorrow", -2}, {"midnight", 0}, {"elevenses", 11},
	             {"noon", 12},  {"fika", 15},     {"teatime", 16}};

	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		size_t n = strlen(words[k].name);
		if (strncasecmp(s, words[k].name, n))
			continue;
		if (words[k].hour >= 0)
			set_clock(w, words[k].hour, 0, 0);
		else
			set_date(w, now + (words[k].hour == -2 ? DAY : 0));
		return n;
	}
	return 0;
}

static int parse_uts(const char *s, time_t *ret, int *ret_pos)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s + 3, &end, 10);
	if (errno || end == s + 3 || *end || v < 1000000) {
		if (ret_pos)
			*ret_pos = 0;
		return -EINVAL;
	}
	*ret = (time_t)v;
	return 0;
}

/* The date and clock the words left unnamed, as Slurm fills them. */
static void fill_in(struct when *w, time_t now, enum time_parse_flags flags)
{
	struct tm tm;
	int past = !!(flags & TIME_PARSE_PAST), later;

	localtime_r(&now, &tm);
	if (w->hour < 0) {
		set_clock(w, 0, 0, 0);
	} else if (w->mon < 0) {
		later =
		    w->hour > tm.tm_hour || (w->hour == tm.tm_hour && w->min > tm.tm_min);
		set_date(w, now + (past || later ? 0 : DAY));
	}
	if (w->year >= 0)
		return;
	if (past) {
		w->year = tm.tm_year - (w->mon > tm.tm_mon);
		return;
	}
	later = w->mon != tm.tm_mon     ? w->mon > tm.tm_mon
	        : w->mday != tm.tm_mday ? w->mday > tm.tm_mday
	        : w->hour != tm.tm_hour ? w->hour > tm.tm_hour
	                                : w->min > tm.tm_min;
	w->year = tm.tm_year + !later;
}

int time_parse(const char *s, time_t now, enum time_parse_flags flags, time_t *ret,
               int *ret_pos)
{
	struct when w = {.hour = -1, .min = -1, .mon = -1, .mday = -1, .year = -1};
	struct tm tm = {0};
	size_t i = 0, n;
	time_t t;
	int rc = 0;

	if (!s)
		goto bad;
	if (!strncasecmp(s, "uts", 3))
		return parse_uts(s, ret, ret_pos);
	while (s[i] && s[i] != '\n' && rc == 0) {
		if ((n = name_word(s + i, now, &w))) {
			i += n;
		} else if (isblank((unsigned char)s[i]) || s[i] == '-' || s[i] == 'T') {
			i++;
		} else if (!strncasecmp(s + i, "now", 3)) {
			i += 3;
			rc = now_word(s, &i, now, &w);
		} else if (!isdigit((unsigned char)s[i])) {
			rc = -1;
		} else if (s[i + 1] == ':' || (s[i + 1] && s[i + 2] == ':')) {
			rc = clock_word(s, &i, &w);
		} else {
			rc = date_word(s, &i, &w);
		}
	}
	if (rc < 0)
		goto bad;
	if (w.hour < 0 && w.mon < 0) {
		if (ret_pos)
			*ret_pos = -1; /* named nothing */
		return -EINVAL;
	}
	fill_in(&w, now, flags);
	tm.tm_year = w.year;
	tm.tm_mon = w.mon;
	tm.tm_mday = w.mday;
	tm.tm_hour = w.hour;
	tm.tm_min = w.min;
	tm.tm_sec = w.sec;
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) == (time_t)-1)
		goto bad;
	*ret = t;
	return 0;
bad:
	if (ret_pos)
		*ret_pos = (int)i;
	return -EINVAL;
}
