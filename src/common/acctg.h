/* acctg.h - what job accounting gathers, and how its figures read: the
 * step daemons' sampling period (JobAcctGatherFrequency, srun/sbatch
 * --acctg-freq), the gatherer (JobAcctGatherType) and Slurm's way of writing
 * a size ("204800K" -> "200M").  Pure: no I/O, no allocation. */
#ifndef ROTA_COMMON_ACCTG_H
#define ROTA_COMMON_ACCTG_H

#include <stddef.h>
#include <stdint.h>

#define ACCTG_FREQ_DEFAULT 30u    /* seconds, as Slurm */
#define ACCTG_FREQ_MAX     65533u /* seconds: a sampling period past 18 h is a typo */

/* "N" or "task=N[,energy=N,network=N,filesystem=N]" (the other kinds are
 * checked, not used) -> *ret_secs, the task sampling period in seconds (0:
 * at the step's end only).  A spec without task= gives the default.  Returns
 * 0, or -1 for anything else (Slurm: "Invalid --acctg-freq specification").
 * s may be NULL: the default. */
int acctg_freq_parse(const char *s, uint32_t *ret_secs);

enum acctg_type { ACCTG_CGROUP, ACCTG_LINUX, ACCTG_NONE };

/* JobAcctGatherType -> its kind (NULL: the default, cgroup).  Returns 0, or
 * -1 for a name that is none of jobacct_gather/{cgroup,linux,none}. */
int acctg_type_parse(const char *s, enum acctg_type *ret);

/* Slurm's units of a size: convert while no precision is lost (its
 * CONVERT_NUM_UNIT_EXACT, sacct's and sstat's default), or not at all
 * (--noconvert). */
enum acctg_convert { ACCTG_CONVERT_EXACT = 0, ACCTG_CONVERT_NO = 1 };

/* value in unit (0: none, 1: K, 2: M, ...) as Slurm writes it: "0",
 * "204800K", "200M", "1.50G" (two decimals where the value is not whole,
 * which EXACT only gives for its original unit: never).  Returns buf. */
const char *acctg_size(uint64_t value, int unit, enum acctg_convert conv, char *buf,
                       size_t len);

#endif
