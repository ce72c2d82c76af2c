#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "common/resv_flags.h"
#include "common/timefmt.h"

/* In the order Slurm prints them; min: the shortest abbreviation taken. */
static const struct {
	const char *name;
	size_t min;
	uint32_t bit;
	int alias; /* another name for a flag listed before: not printed */
} flags[] = {
    {"MAINT", 3, RESV_F_MAINT},
    {"FLEX", 1, RESV_F_FLEX},
    {"OVERLAP", 1, RESV_F_OVERLAP},
    {"IGNORE_JOBS", 1, RESV_F_IGNORE_JOBS},
    {"HOURLY", 1, RESV_F_HOURLY},
    {"DAILY", 2, RESV_F_DAILY},
    {"WEEKDAY", 5, RESV_F_WEEKDAY},
    {"WEEKEND", 5, RESV_F_WEEKEND},
    {"WEEKLY", 5, RESV_F_WEEKLY},
    {"SPEC_NODES", 0, RESV_F_SPEC_NODES}, /* the controller's, not parsed */
    {"ALL_NODES", 0, RESV_F_ALL_NODES},   /* the controller's too */
    {"ANY_NODES", 1, RESV_F_ANY_NODES},
    {"LICENSE_ONLY", 1, RESV_F_ANY_NODES, 1},
    {"PART_NODES", 2, RESV_F_PART_NODES},
    {"REPLACE", 1, RESV_F_REPLACE},
    {"REPLACE_DOWN", 8, RESV_F_REPLACE_DOWN},
    {"PURGE_COMP", 2, RESV_F_PURGE_COMP},
    {"NO_HOLD_JOBS_AFTER_END", 1, RESV_F_NO_HOLD},
    {"MAGNETIC", 3, RESV_F_MAGNETIC},
};
#define NFLAGS (sizeof(flags) / sizeof(flags[0]))

/* "Maintenance" is MAINT too, as Slurm reads it. */
static int name_is(const char *w, size_t n, size_t i)
{
	if (!flags[i].min || n < flags[i].min)
		return 0;
	if (flags[i].bit == RESV_F_MAINT && n <= 11 && !strncasecmp(w, "Maintenance", n))
		return 1;
	return n <= strlen(flags[i].name) && !strncasecmp(w, flags[i].name, n);
}

int resv_flags_parse(const char *s, uint32_t *ret_add, uint32_t *ret_del,
                     uint32_t *ret_purge, char *bad, size_t badlen)
{
	uint32_t add = 0, del = 0, purge = 0;

	while (s && *s) {
		int minus = 0;
		size_t n = 0, i;
		const char *val = NULL;
		if (*s == '+' || *s == '-')
			minus = *s++ == '-';
		while (s[n] && s[n] != ',' && s[n] != '=')
			n++;
		for (i = 0; i < NFLAGS && !name_is(s, n, i); i++)
			;
		if (s[n] == '=')
			val = s + n + 1;
		if (i == NFLAGS || (val && flags[i].bit != RESV_F_PURGE_COMP) ||
		    (minus && (flags[i].bit &
		               (RESV_F_OVERLAP | RESV_F_REPLACES | RESV_F_NO_HOLD)))) {
			snprintf(bad, badlen, "%.*s", (int)n, s);
			return -1;
		}
		if (val) {
			uint32_t min;
			char t[32];
			size_t vn = strcspn(val, ",");
			snprintf(t, sizeof(t), "%.*s", (int)vn, val);
			if (vn >= sizeof(t) || timefmt_parse_limit(t, &min) < 0 ||
			    min == TIME_INFINITE || min > 365u * 24 * 60) {
				snprintf(bad, badlen, "%.*s", (int)(n + 1 + vn), s);
				return -1;
			}
			purge = min * 60;
			n += 1 + vn;
		}
		if (minus)
			del |= flags[i].bit;
		else
			add |= flags[i].bit;
		s += n;
		if (*s == ',')
			s++;
	}
	*ret_add = add;
	*ret_del = del;
	*ret_purge = purge;
	return 0;
}

char *resv_flags_format(uint32_t f, uint32_t purge, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NFLAGS; i++) {
		char d[32] = "";
		if (!(f & flags[i].bit) || flags[i].alias)
			continue;
		if (flags[i].bit == RESV_F_PURGE_COMP && purge)
			timefmt_duration(purge, d, sizeof(d));
		at += (size_t)snprintf(buf + (at < len ? at : len),
		                       at < len ? len - at : 0, "%s%s%s%s", at ? "," : "",
		                       flags[i].name, *d ? "=" : "", d);
	}
	return buf;
}
