/* strv.h - NULL-terminated string vectors (char **: argv, environ). */
#ifndef ROTA_COMMON_STRV_H
#define ROTA_COMMON_STRV_H

#include <stddef.h>

size_t strv_len(char *const *v);
void strv_free(char **v);
char **strv_dup(char *const *v);
/* Append a copy of s; returns the (possibly moved) vector.  Aborts on ENOMEM. */
char **strv_append(char **v, const char *s);
/* Value of NAME in an environ-style vector, or NULL. */
/* 1 if v (NULL allowed) holds s (strcmp, or strcasecmp when nocase); 0 for NULL s. */
int strv_has(char *const *v, const char *s, int nocase);
/* A comma-separated list ("a,b=1,c") without splitting it: 1 if it holds word
 * as an item (list NULL allowed; strcmp, or strcasecmp when nocase). */
int list_has(const char *list, const char *word, int nocase);
/* The value of the first item key=VALUE (key as list_has matches it),
 * malloc'd; NULL when there is none. */
char *list_value(const char *list, const char *key, int nocase);
/* The non-empty pieces of s between any of seps (a vector even when none). */
char **strv_split(const char *s, const char *seps);
/* Remove every entry equal to s (case-insensitive), in place. */
void strv_remove(char **v, const char *s);
const char *strv_getenv(char *const *env, const char *name);
/* Set NAME=value in an environ-style vector (replacing); returns the vector. */
char **strv_setenv(char **env, const char *name, const char *value);
/* Drop every NAME=... from env, in place; returns env. */
char **strv_unsetenv(char **env, const char *name);
/* Every NAME=value of from whose NAME starts with prefix set in env
 * (replacing); returns env. */
char **strv_setenv_from(char **env, char *const *from, const char *prefix);
/* strv_setenv() taking ownership of value (freed here); a NULL value is an
 * allocation that failed: fatal("out of memory"). */
char **strv_setenv_take(char **env, const char *name, char *value);
/* strv_setenv() with a printf-formatted value. */
char **strv_setenvf(char **env, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
