/* timefmt.c - Slurm's time limit, duration, timestamp and memory formats. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "common/timefmt.h"
#include "common/common.h"

#define FIELD_DIGITS_MAX 10 /* keeps days*86400 far from uint64_t overflow */

/* Split "a:b:c" (s..end) into at most 3 unsigned fields. Returns count or -1. */
static int fields_parse(const char *s, const char *end, uint64_t f[3])
{
	int n = 0;

	for (;;) {
		size_t digits = 0;
		uint64_t v = 0;

		while (s < end && isdigit((unsigned char)*s)) {
			if (++digits > FIELD_DIGITS_MAX)
				return -1;
			v = v * 10 + (uint64_t)(*s++ - '0');
		}
		if (!digits || n == 3)
			return -1;
		f[n++] = v;
		if (s == end)
			return n;
		if (*s++ != ':')
			return -1;
	}
}

int timefmt_parse_limit(const char *s, uint32_t *ret_minutes)
{
	const char *dash, *end;
	uint64_t f[3], days = 0, secs;
	int n;

	if (!s)
		return -EINVAL;
	if (!strcasecmp(s, "UNLIMITED") || !strcasecmp(s, "INFINITE") ||
	    !strcmp(s, "-1")) {
		*ret_minutes = TIME_INFINITE;
		return 0;
	}
	end = s + strlen(s);
	dash = strchr(s, '-');
	if (dash) {
		if ((n = fields_parse(s, dash, f)) != 1)
			return -EINVAL;
		days = f[0];
		s = dash + 1;
	}
	if ((n = fields_parse(s, end, f)) < 0)
		return -EINVAL;
	if (dash) {
		/* days-hours[:minutes[:seconds]] */
		if (f[0] > 23 || (n > 1 && f[1] > 59) || (n > 2 && f[2] > 59))
			return -EINVAL;
		secs = days * 86400 + f[0] * 3600 + (n > 1 ? f[1] * 60 : 0) +
		       (n > 2 ? f[2] : 0);
	} else if (n == 1) {
		secs = f[0] * 60;
	} else if (n == 2) {
		if (f[1] > 59)
			return -EINVAL;
		secs = f[0] * 60 + f[1];
	} else {
		if (f[1] > 59 || f[2] > 59)
			return -EINVAL;
		secs = f[0] * 3600 + f[1] * 60 + f[2];
	}
	secs = (secs + 59) / 60; /* Slurm rounds seconds up to a whole minute */
	if (secs >= TIME_INFINITE)
		return -EINVAL;
	*ret_minutes = (uint32_t)secs;
	return 0;
}

/* v's decimal digits at p (two at least when pad2); returns the end. */
static char *put_num(char *p, long v, int pad2)
{
	char tmp[24];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	if (pad2 && n < 2)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

char *timefmt_duration(long secs, char *buf, size_t len)
{
	if (secs < 0)
		secs = 0;
	if (secs >= 86400)
		snprintf(buf, len, "%ld-%02ld:%02ld:%02ld", secs / 86400,
		         secs / 3600 % 24, secs / 60 % 60, secs % 60);
	else
		snprintf(buf, len, "%02ld:%02ld:%02ld", secs / 3600, secs / 60 % 60,
		         secs % 60);
	return buf;
}

/* Printed by hand: squeue prints this for every job it lists. */
char *timefmt_elapsed(long secs, char *buf, size_t len)
{
	char tmp[48], *p = tmp;
	long d, h, m, s;
	size_t n;

	if (!len)
		return buf;
	if (secs < 0)
		secs = 0;
	d = secs / 86400;
	h = secs / 3600 % 24;
	m = secs / 60 % 60;
	s = secs % 60;
	if (d) {
		p = put_num(p, d, 0);
		*p++ = '-';
	}
	if (d || h) {
		p = put_num(p, h, d != 0);
		*p++ = ':';
	}
	p = put_num(p, m, d || h);
	*p++ = ':';
	p = put_num(p, s, 1);
	n = (size_t)(p - tmp) < len ? (size_t)(p - tmp) : len - 1;
	memcpy(buf, tmp, n);
	buf[n] = '\0';
	return buf;
}

char *timefmt_limit(uint32_t minutes, char *buf, size_t len)
{
	if (!len)
		return buf;
	if (minutes == TIME_INFINITE) {
		snprintf(buf, len, "UNLIMITED");
		return buf;
	}
	return timefmt_elapsed((long)minutes * 60, buf, len);
}

#define TIMEFMT_STYLE_MAX 32

/* The day t falls on, as a number that counts days within a year. */
static long day_number(const struct tm *tm)
{
	return 1000L * (tm->tm_year + 1900) + tm->tm_yday;
}

/* Slurm's "relative" style: the form by how many days t is from now. */
static const char *relative_form(const struct tm *tm, time_t now)
{
	struct tm today;
	long days;

	if (!localtime_r(&now, &today))
		return "%Y-%m-%dT%H:%M:%S";
	days = day_number(tm) - day_number(&today);
	if (days == 0)
		return "%H:%M:%S";
	if (days == -1)
		return "Ystday %H:%M";
	if (days == 1)
		return "Tomorr %H:%M";
	if (days < -365 || days > 365)
		return "%-d %b %Y";
	if (days < -1 || days > 6)
		return "%-d %b %H:%M";
	return "%a %H:%M";
}

int timefmt_style_ok(const char *style)
{
	return !style || !*style || !strcmp(style, "standard") ||
	       !strcmp(style, "relative") ||
	       (strchr(style, '%') && strlen(style) < TIMEFMT_STYLE_MAX);
}

/* The strftime form of style for t (an invalid style: the standard one). */
static const char *style_form(const char *style, const struct tm *tm, time_t now)
{
	if (!timefmt_style_ok(style) || !style || !*style || !strcmp(style, "standard"))
		return "%Y-%m-%dT%H:%M:%S";
	if (!strcmp(style, "relative"))
		return relative_form(tm, now);
	return style;
}

char *timefmt_show(time_t t, const char *style, time_t now, char *buf, size_t len)
{
	struct tm tm;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (t == 0) {
		snprintf(buf, len, "Unknown");
	} else if (t == (time_t)-1 || t == (time_t)UINT32_MAX) {
		snprintf(buf, len, "None");
	} else if (!localtime_r(&t, &tm)) {
		snprintf(buf, len, "Unknown");
	} else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		/* a format the user gave may print nothing: that is theirs */
		if (!strftime(buf, len, style_form(style, &tm, now), &tm))
			buf[0] = '\0';
#pragma GCC diagnostic pop
	}
	return buf;
}

char *timefmt_iso(time_t t, char *buf, size_t len)
{
	static int warned;
	const char *style = getenv("SLURM_TIME_FORMAT");

	if (!timefmt_style_ok(style) && !warned++)
		fprintf(stderr, "%s: error: invalid SLURM_TIME_FORMAT = '%s'\n",
		        program_invocation_short_name, style);
	return timefmt_show(t, style, time(NULL), buf, len);
}

int timefmt_parse_mem(const char *s, uint64_t *ret_mb)
{
	uint64_t v = 0, mb;
	size_t digits = 0;

	if (!s)
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++, digits++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	/* a unit may be followed by B: "1GB", "512mb" (submitit writes them) */
	if (!digits || (s[0] && s[1] && ((s[1] != 'B' && s[1] != 'b') || s[2])))
		return -EINVAL;
	switch (toupper((unsigned char)s[0])) {
	case '\0':
	case 'M':
		mb = v;
		break;
	case 'K':
		mb = v / 1024 + (v % 1024 != 0);
		break;
	case 'G':
		if (v > UINT64_MAX / 1024)
			return -EINVAL;
		mb = v * 1024;
		break;
	case 'T':
		if (v > UINT64_MAX / (1024 * 1024))
			return -EINVAL;
		mb = v * 1024 * 1024;
		break;
	default:
		return -EINVAL;
	}
	*ret_mb = mb;
	return 0;
}

char *timefmt_mem_unit(uint64_t mb, char *buf, size_t len)
{
	unsigned long long v = mb;

	if (!len)
		return buf;
	if (v && v % (1024 * 1024) == 0)
		snprintf(buf, len, "%lluT", v / (1024 * 1024));
	else if (v && v % 1024 == 0)
		snprintf(buf, len, "%lluG", v / 1024);
	else
		snprintf(buf, len, "%lluM", v);
	return buf;
}

double time_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
