/* srun_pty.h - srun --pty on our side: the terminal in raw mode while the step
 * runs (keys, ^C included, go to the remote terminal as they are typed), and
 * its size for the remote one (SLURM_PTY_WIN_ROW / SLURM_PTY_WIN_COL, as in
 * Slurm).  Nothing happens when stdin is not a terminal. */
#ifndef ROTA_CLI_SRUN_PTY_H
#define ROTA_CLI_SRUN_PTY_H

/* Append the window size to env (a NULL-terminated, xmalloc'd array that
 * this may grow); returns the array. */
char **srun_pty_env(char **env);

/* Raw mode now, restored by srun_pty_end() and at exit. */
void srun_pty_begin(void);
void srun_pty_end(void);

#endif
