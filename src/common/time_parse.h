/* time_parse.h - the points in time Slurm's commands take (sbatch --begin,
 * --deadline, scontrol update StartTime=, reservations' StartTime=).
 *
 * The text is a run of words, each setting the date, the time of day or both;
 * blanks, '-' and 'T' between them are ignored, case does not matter:
 *   today, tomorrow                       the date
 *   midnight, elevenses (11:00), noon, fika (15:00), teatime (16:00)
 *   HH:MM[:SS] [AM|PM]                    the time of day
 *   MMDD[YY], MM/DD[/YY], MM.DD[.YY]      the date
 *   YYYY-MM-DD                            the date ("YYYY-MM-DDTHH:MM[:SS]")
 *   now[{+|-}count[seconds|minutes|hours|days|weeks]]
 *                                         both; the unit defaults to seconds
 *                                         and may be shortened ("2min")
 *   uts<seconds since the epoch>          that instant, alone
 * so "noon-tomorrow", "tomorrow 10:30pm" and "12/24-18:00" are all accepted.
 * A date without a time of day is at 00:00; a time of day without a date is
 * the next one (today's if it is still ahead, else tomorrow's); a date
 * without a year the next one.  Times are local.
 */
#ifndef ROTA_TIME_PARSE_H
#define ROTA_TIME_PARSE_H

#include <time.h>

enum time_parse_flags {
	TIME_PARSE_PAST = 1 << 0, /* without date or year: the last one, not the next */
};

/* Parse s as of now.  Returns 0 and sets *ret, or -EINVAL and (when ret_pos is
 * not NULL) sets *ret_pos to the offset where the text stopped making sense,
 * as Slurm's "Invalid time specification (pos=N)" reports it; text that
 * names no date and no time ("", "-") is -EINVAL with *ret_pos -1 (Slurm
 * reports no position for it). */
int time_parse(const char *s, time_t now, enum time_parse_flags flags, time_t *ret,
               int *ret_pos);

#endif
