/* srun_bcast.h - srun --bcast: the step's command copied to the job's nodes
 * before the step is created, as Slurm 22.05's srun does before it launches
 * the tasks (Rota's controller starts the tasks when it creates the step).
 *
 * The command is found as Slurm finds it (a name without '/' through PATH,
 * then the working directory; else relative to the working directory) and
 * sent with sbcast's code (cli/bcast_send.h) to every node of the job, -f
 * and -p, to the --bcast path: absolute as given; relative, under
 * BcastParameters' DestDir or the working directory; ending in '/' or not
 * given, that directory (or DestDir, or the working directory) and the
 * name slurm_bcast_<jobid>_<srun's pid>.  Slurm names it
 * slurm_bcast_<jobid>.<stepid>_<node>: the step id is not known before the
 * step, and every node gets the same path here.  --send-libs (or
 * BcastParameters send_libs) also sends the shared libraries into
 * <path>_libs/, less --bcast-exclude's (or BcastExclude's) directories.
 */
#ifndef ROTA_CLI_SRUN_BCAST_H
#define ROTA_CLI_SRUN_BCAST_H

#include <stdint.h>
#include "cli/jobopt.h"

/* Copy argv[0] (owned by the caller: replaced, the old one freed, by the
 * copy's path) to job_id's nodes as o says.  When libraries were sent,
 * *ret_libdir is their directory (caller frees; else NULL), for the tasks'
 * LD_LIBRARY_PATH.  Returns 0, or -1 when it said why (Slurm's "Failed to
 * broadcast" or "Can not execute"). */
int srun_bcast(const struct jobopt *o, uint32_t job_id, char **argv, char **ret_libdir);

/* env's LD_LIBRARY_PATH with libdir (borrowed; NULL: env as it is) put
 * first, as Slurm's node daemon does for the tasks.  Returns env. */
char **srun_bcast_env(char **env, const char *libdir);

#endif
