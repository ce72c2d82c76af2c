/* taskprolog.h - slurm.conf TaskProlog: run as the user in each task just before
 * the task's program, and apply what it prints:
 *   export NAME=value   set NAME in the task's environment
 *   unset NAME          remove NAME
 *   print TEXT          write TEXT to the task's standard output
 * Other lines are ignored.  Called in the task's child process, after it has
 * become the user. */
#ifndef ROTA_TASKPROLOG_H
#define ROTA_TASKPROLOG_H

/* Run path with env; returns env changed as the output says (env is taken and
 * may be reallocated).  out_fd receives "print" lines.  Never fails: a prolog
 * that cannot run changes nothing. */
char **task_prolog_apply(const char *path, char **env, int out_fd);

#endif
