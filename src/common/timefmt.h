/* timefmt.h - Slurm's time and size formats.
 *
 * Time limits (sbatch -t, MaxTime=, DefaultTime=) accept: "minutes",
 * "minutes:seconds", "hours:minutes:seconds", "days-hours",
 * "days-hours:minutes", "days-hours:minutes:seconds", and "UNLIMITED"/"INFINITE"
 * (any case) for no limit.  Seconds round up to whole minutes as in Slurm.
 */
#ifndef ROTA_TIMEFMT_H
#define ROTA_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define TIME_INFINITE UINT32_MAX /* minutes value meaning no limit */

/* Seconds on the monotonic clock (for intervals, never for dates). */
double time_mono(void);

/* Parse a time limit into minutes (TIME_INFINITE for unlimited).
 * Returns 0 or -EINVAL. *ret_minutes set only on success. */
int timefmt_parse_limit(const char *s, uint32_t *ret_minutes);

/* Format a duration in seconds as squeue's TIME column: "M:SS", "H:MM:SS",
 * "D-HH:MM:SS".  Writes into buf (always NUL-terminated), returns buf. */
char *timefmt_elapsed(long secs, char *buf, size_t len);

/* Format a duration as scontrol's RunTime and sacct's Elapsed: hours always
 * there, "00:00:05", "1-02:03:04".  Negative counts as 0. */
char *timefmt_duration(long secs, char *buf, size_t len);

/* Format a limit in minutes as scontrol/sinfo do: "UNLIMITED" for TIME_INFINITE,
 * else like timefmt_elapsed(minutes*60) ("1:00:00", "30:00", "1-00:00:00"). */
char *timefmt_limit(uint32_t minutes, char *buf, size_t len);

/* Format an absolute time as Slurm's "2026-11-29T13:25:39" (local time), or
 * as SLURM_TIME_FORMAT in this process's environment says (see
 * timefmt_show); 0 prints "Unknown" and (time_t)-1/INFINITE prints "None". */
char *timefmt_iso(time_t t, char *buf, size_t len);

/* The same in style (SLURM_TIME_FORMAT's values): NULL, "" or "standard"
 * the form above; "relative" as Slurm's (today "13:25:39", "Ystday 13:25",
 * "Tomorr 13:25", this week "Mon 13:25", this year "29 Nov 13:25", else
 * "29 Nov 2026"; days counted from now's); otherwise a strftime format with
 * a '%', shorter than 32 bytes (another is said once on stderr and the
 * standard form used, as Slurm). */
char *timefmt_show(time_t t, const char *style, time_t now, char *buf, size_t len);
/* Is style one of those (NULL included)? */
int timefmt_style_ok(const char *style);

/* Parse a memory size as Slurm does for --mem and RealMemory: a number with an
 * optional suffix K, M, G, T (case-insensitive, powers of 1024), which may be
 * followed by B ("1GB"); no suffix means megabytes.  Result in megabytes (K rounds up).
 * Returns 0 or -EINVAL. */
int timefmt_parse_mem(const char *s, uint64_t *ret_mb);

/* Format megabytes the way sinfo/scontrol print memory: plain MB number "64000",
 * or with unit for ReqMem-like fields: "16G" when divisible, else "500M". */
char *timefmt_mem_unit(uint64_t mb, char *buf, size_t len);

#endif
