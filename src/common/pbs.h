/* pbs.h - a batch script's "#PBS" directives (Torque, PBS Pro) as sbatch
 * options, as Slurm's sbatch reads them unless --ignore-pbs.
 *
 * What is translated: -a (--begin), -A, -e, -o, -h (-H), -J and -t
 * (--array), -l (nodes=N[:ppn=P][:gpus=G][+...] or host names, select=N,
 * ncpus=N, mpiprocs=N, walltime/cput/pcput (-t), mem (--mem), file (--tmp),
 * naccelerators=N or accelerator=true (--gres=gpu:N), nice, proc (-C)),
 * -m (a: FAIL, b: BEGIN, e: END, n: NONE), -M, -N (-J), -p (--nice), -q
 * (-p), -v (--export, every -v's variables), -W depend=... (-d).  The
 * others (-c -C -I -j -k -r -S -u -V -z, other -l and -W keys) are read and
 * left alone.  Pure: no I/O, no globals. */
#ifndef ROTA_COMMON_PBS_H
#define ROTA_COMMON_PBS_H

struct rota_error;

/* The sbatch words ("--job-name=x", ...) for the #PBS words of a script (as
 * jobscript_directives gives them).  0 and *ret (strv_free), or -EINVAL with
 * err naming what is wrong. */
int pbs_translate(char *const *words, char ***ret, struct rota_error *err);

/* The script's #PBS lines, up to its 100th line that is not a comment (as
 * Slurm reads them, past its first command), as a text of those lines
 * alone (for jobscript_directives); caller frees. */
char *pbs_lines(const char *script);
/* The same for lines starting with another magic word ("#BSUB"). */
char *pbs_magic_lines(const char *script, const char *magic);

#endif
