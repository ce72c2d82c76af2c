/* acct_time.h - the times sacct (-S/-E), sreport (start=/end=) and the
 * slurmdb REST paths take: Slurm's forms YYYY-MM-DD[THH:MM[:SS]],
 * MM/DD[/YY], HH:MM[:SS], now[+-N[unit]], today, midnight, noon, tomorrow,
 * ..., or seconds since the epoch. */
#ifndef ROTA_COMMON_ACCT_TIME_H
#define ROTA_COMMON_ACCT_TIME_H

#include <time.h>

/* s as a time (a time of day is today's, not the next one); now: what
 * "now" and "today" mean.  Returns 0 and sets *ret, or -1. */
int acct_time_parse(const char *s, time_t now, time_t *ret);

#endif
