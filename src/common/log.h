/* log.h - process-wide logger (one of the two allowed globals).
 * Messages go to stderr or to a file, one line each, with time, program and level.
 * Control characters in a message (a newline in a job name, an escape sequence)
 * are written as \n, \t, \r or \xNN: no string can forge a line of its own.
 * Libraries log at debug only; callers log once. */
#ifndef ROTA_LOG_H
#define ROTA_LOG_H

#include <syslog.h>

/* prog: borrowed, kept. file: NULL for stderr. level: LOG_ERR..LOG_DEBUG. */
int log_init(const char *prog, int level, const char *file);
/* From now on log at level (scontrol setdebug). */
void log_set_level(int level);
/* In a forked child that closes its parent's descriptors: log to stderr and
 * forget the file without closing its descriptor (the child's number for it
 * may be another file by then). */
void log_forget_file(void);
/* Open the log file again (after logrotate moved it); 0 or -1. */
int log_reopen(void);
/* Messages at level or more severe go to fn as well, whatever the log's level
 * (msg: escaped as in the log, without time or program); fn NULL: to no one.
 * What fn logs itself goes to the log only. */
typedef void (*log_tee_fn)(int level, const char *msg, void *arg);
void log_set_tee(int level, log_tee_fn fn, void *arg);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Slurm's log levels by number (quiet, fatal, error, info, verbose, debug,
 * debug2 ... debug5): the name of n (NULL past the last), and the number a
 * name or number names (any case; -1: none). */
const char *log_slurm_level_name(unsigned n);
int log_slurm_level_parse(const char *s);

#define log_err(...)   log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
