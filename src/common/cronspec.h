/* cronspec.h - the time fields of a crontab line, as scrontab and the
 * controller read them (cron's syntax: five fields or an @shortcut).
 *
 * DESIGN: a spec is parsed into one bit set per field; "*" alone is a
 * wildcard (kept apart: it is what decides how day of month and day of week
 * combine, as in cron: both restricted, either may match).  The next start
 * is found by walking days from the given time, then hours and minutes of a
 * day that matches, in the controller's local time; a spec no date can match
 * (31 February) is refused when parsed.  The controller keeps the spec as
 * its text (cronspec_str: Slurm's CrontabSpec=) and parses it again when a
 * run ends. */
#ifndef ROTA_COMMON_CRONSPEC_H
#define ROTA_COMMON_CRONSPEC_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct rota_error;

enum {
	CRON_WILD_MINUTE = 1,
	CRON_WILD_HOUR = 2,
	CRON_WILD_DOM = 4,
	CRON_WILD_MONTH = 8,
	CRON_WILD_DOW = 16,
};

struct cronspec {
	uint64_t minute; /* bits 0-59 */
	uint32_t hour;   /* bits 0-23 */
	uint32_t dom;    /* bits 1-31 */
	uint16_t month;  /* bits 1-12 */
	uint8_t dow;     /* bits 0-6, Sunday 0 */
	uint8_t wild;    /* CRON_WILD_* */
};

/* Parse the time fields at the start of line ("1-5,30 8-17/2 * * wed", or
 * "@hourly"...).  Returns 0 and sets *ret_rest to the first character of
 * what follows (the command, blanks skipped), or -EINVAL with err. */
int cronspec_parse(const char *line, struct cronspec *ret, const char **ret_rest,
                   struct rota_error *err);

/* The first minute after `after` (strictly: not its own minute) that the spec
 * matches, in local time; -1 when there is none within 8 years. */
time_t cronspec_next(const struct cronspec *c, time_t after);

/* The spec as Slurm prints it: "*" for a wildcard, else the values as ranges
 * ("0 8-16 * * 3").  Caller frees. */
char *cronspec_str(const struct cronspec *c);

#endif
