/* bsub.h - a batch script's "#BSUB" directives (LSF) as sbatch options, as
 * Slurm's sbatch reads them (before #PBS ones) unless --ignore-pbs.
 *
 * What is translated, as Slurm does: -c and -cwd (--chdir), -e, -J, -o,
 * -m "host host" (--nodelist=host,host), -M (--mem-per-cpu, in KB without a
 * unit, as LSF), -n [min,]max (--ntasks=max), -q (--partition), -W (--time),
 * -x (--exclusive).  Any other option is refused.  Pure: no I/O, no
 * globals. */
#ifndef ROTA_COMMON_BSUB_H
#define ROTA_COMMON_BSUB_H

struct rota_error;

/* The sbatch words ("--job-name=x", ...) for the #BSUB words of a script (as
 * jobscript_directives gives them).  0 and *ret (strv_free), or -EINVAL with
 * err in Slurm's words ("Unrecognized command line parameter z"). */
int bsub_translate(char *const *words, char ***ret, struct rota_error *err);

/* The script's #BSUB lines, up to its 100th line that is not a comment, as
 * a text of those lines alone (for jobscript_directives); caller frees. */
char *bsub_lines(const char *script);

#endif
