/* jobscript.h - what sbatch/srun/salloc make of a user's request before it is
 * sent: the batch script's "#SBATCH" directives, the --wrap script, the
 * --export environment (the --begin time: common/time_parse.h).  Pure functions: no I/O,
 * no logging, no globals (the environment is passed in).
 *
 * Limits (each has a clear error): a script holds at most JOBSCRIPT_MAX bytes,
 * the directives at most JOBSCRIPT_WORDS_MAX words, a job environment at most
 * JOBSCRIPT_ENV_MAX entries, script arguments at most JOBSCRIPT_ARGV_MAX.
 */
#ifndef ROTA_JOBSCRIPT_H
#define ROTA_JOBSCRIPT_H

#include <stddef.h>
#include <time.h>
#include "common/error.h"

#define JOBSCRIPT_MAX       (4u << 20) /* bytes of batch script */
#define JOBSCRIPT_WORDS_MAX 4096       /* words in all #SBATCH lines */
#define JOBSCRIPT_ENV_MAX   65536      /* entries of the job environment */
#define JOBSCRIPT_ARGV_MAX  16384      /* script arguments */

/* 1 if the script's first line starts with "#!", else 0. */
int jobscript_has_interpreter(const char *text);

/* 1 if the script holds a DOS line break ("\r\n"), else 0. */
int jobscript_has_crlf(const char *text);

/* The script sbatch --wrap=CMD submits.  Caller frees; aborts on ENOMEM. */
char *jobscript_wrap(const char *cmd);

/* The words of the directive lines (prefix "#SBATCH") of a script, in order,
 * ready for getopt.  Directives are read from the start of the script up to the
 * first line that is neither blank nor a comment (a line whose first non-blank
 * character is '#'); a directive must start at column 0.  Words split at blanks;
 * "double" and 'single' quotes group (and are removed), a backslash makes the
 * next quote literal, and an unquoted '#' ends the line.
 * Returns 0 and sets *ret_words (NULL-terminated, caller frees with strv_free;
 * an empty vector when there are none), or -EINVAL with err "line N: Unmatched
 * `\"` in [...]", or -E2BIG past JOBSCRIPT_WORDS_MAX words. */
int jobscript_directives(const char *text, const char *prefix, char ***ret_words,
                         struct rota_error *err);

/* The environment a job gets for an --export specification, from env (the
 * caller's environ, borrowed), as Slurm builds it:
 *   NULL or "ALL"   every variable of env;
 *   "NONE"          only the SLURM_* variables of env;
 *   a list          the SLURM_* variables of env, then each item in order:
 *                   "ALL" adds every variable of env, "NAME" adds NAME with its
 *                   value from env (if set), "NAME=value" sets NAME (a later
 *                   item replaces an earlier one: "ALL,FOO=bar" gives FOO=bar).
 * Keywords are case-insensitive; commas inside quotes do not split, and one
 * pair of quotes around a value is removed.  Returns 0 and sets *ret_env
 * (caller frees with strv_free), -EINVAL with err for a malformed name, or
 * -E2BIG past JOBSCRIPT_ENV_MAX entries. */
/* sbatch --bbf: text put after the script's first line when that is a "#!"
 * (or any '#') line, else before it, ended with a newline, as Slurm splices
 * it.  Returns the new script (caller frees), or NULL past JOBSCRIPT_MAX
 * bytes or without memory. */
char *jobscript_prepend(const char *script, const char *text);

int jobscript_export_env(const char *spec, char *const *env, char ***ret_env,
                         struct rota_error *err);

#endif
