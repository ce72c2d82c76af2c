/* acct_time.c - the times sacct, sreport and rotarestd's slurmdb paths take
 * (acct_time.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/acct_time.h"
#include "common/common.h"
#include "common/time_parse.h"

int acct_time_parse(const char *s, time_t now, time_t *ret)
{
	struct tm tm;
	time_t t;
	int mon, day, year = -1;
	char tail;

	if (sscanf(s, "%d/%d/%d%c", &mon, &day, &year, &tail) >= 2 && !strchr(s, '-')) {
		localtime_r(&now, &tm);
		tm.tm_mon = mon - 1;
		tm.tm_mday = day;
		if (year >= 0)
			tm.tm_year = year < 100 ? year + 100 : year - 1900;
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_isdst = -1;
		*ret = mktime(&tm);
		return 0;
	}
	if (!strncmp(s, "now-", 4)) {
		char *plus = xasprintf("now+%s", s + 4);
		int rc = time_parse(plus, now, 0, &t, NULL);
		free(plus);
		if (rc == 0) {
			*ret = now - (t - now);
			return 0;
		}
	} else if (time_parse(s, now, 0, &t, NULL) == 0) {
		/* a time of day (midnight, noon, HH:MM) is today's, not the
		 * next one */
		if (strncasecmp(s, "now", 3) && strcasecmp(s, "tomorrow") &&
		    !strchr(s, '-') && t > now)
			t -= 86400;
		*ret = t;
		return 0;
	}
	if (s[0] >= '0' && s[0] <= '9' && !strpbrk(s, "-:/") && strlen(s) > 8) {
		*ret = (time_t)strtoll(s, NULL, 10); /* seconds since the epoch */
		return 0;
	}
	return -1;
}
