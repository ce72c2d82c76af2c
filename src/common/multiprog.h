/* multiprog.h - srun --multi-prog configuration files.
 *
 * Each line: TASKS PROGRAM [ARGS...] where TASKS is "*" or a comma list of task
 * ids and ranges ("0-3,5").  In the program and its arguments "%t" becomes the
 * task id and "%o" the task's offset among the line's tasks.  '#' starts a
 * comment; words may be quoted with '' or ""; a line ending in '\\' goes on
 * in the next.  The first line that names a task wins.
 */
#ifndef ROTA_MULTIPROG_H
#define ROTA_MULTIPROG_H

#include <stdint.h>
#include "common/error.h"

#define MULTIPROG_MAX_BYTES (1u << 20)

/* The argv for task (NULL-terminated, caller strv_free()s).  Returns 0, or -1
 * with err when the text is malformed or names no program for the task. */
int multiprog_argv(const char *text, uint32_t task, char ***ret_argv,
                   struct rota_error *err);

/* Check the whole file for ntasks tasks (every task has a line).  0 or -1. */
int multiprog_check(const char *text, uint32_t ntasks, struct rota_error *err);

#endif
