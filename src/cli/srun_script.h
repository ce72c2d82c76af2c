/* srun_script.h - srun's own prolog and epilog (--prolog, --epilog,
 * SrunProlog, SrunEpilog): programs srun runs where it is, with the step's
 * command and arguments as theirs and SLURM_SCRIPT_CONTEXT=prolog_srun or
 * epilog_srun in the environment, waiting for them.  "none" runs nothing. */
#ifndef ROTA_CLI_SRUN_SCRIPT_H
#define ROTA_CLI_SRUN_SCRIPT_H

#include <stdint.h>

/* Run path (NULL, "" or "none": nothing) with the arguments cmd; the job's
 * id in SLURM_JOB_ID when known (not NO_VAL).  Its exit status, 0 when it
 * could not be run (Slurm's: an unreadable program is skipped), 1 when it did
 * not exit normally. */
int srun_script_run(const char *path, char *const *cmd, const char *context,
                    uint32_t job_id);

#endif
