/* strv.c - NULL-terminated string vectors (argv, environ). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/strv.h"
#include "common/common.h"

size_t strv_len(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char **strv_dup(char *const *v)
{
	size_t n = strv_len(v);
	char **d = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		d[i] = xstrdup(v[i]);
	return d;
}

char **strv_split(const char *s, const char *seps)
{
	char **v = xcalloc(1, sizeof(char *));

	while (s && *s) {
		size_t n = strcspn(s, seps);
		if (n) {
			char *piece = xstrndup(s, n);
			v = strv_append(v, piece);
			free(piece);
		}
		s += n;
		if (*s)
			s++;
	}
	return v;
}

void strv_remove(char **v, const char *s)
{
	size_t w = 0;

	for (size_t i = 0; v && v[i]; i++) {
		if (!strcasecmp(v[i], s))
			free(v[i]);
		else
			v[w++] = v[i];
	}
	if (v)
		v[w] = NULL;
}

char **strv_append(char **v, const char *s)
{
	size_t n = strv_len(v);
	v = xrealloc(v, (n + 2) * sizeof(char *));
	v[n] = xstrdup(s);
	v[n + 1] = NULL;
	return v;
}

const char *strv_getenv(char *const *env, const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

char **strv_setenv(char **env, const char *name, const char *value)
{
	size_t len = strlen(name);
	char *kv = xasprintf("%s=%s", name, value);
	for (size_t i = 0; env && env[i]; i++) {
		if (!strncmp(env[i], name, len) && env[i][len] == '=') {
			free(env[i]);
			env[i] = kv;
			return env;
		}
	}
	env = strv_append(env, kv);
	free(kv);
	return env;
}

char **strv_setenv_from(char **env, char *const *from, const char *prefix)
{
	size_t pl = strlen(prefix);

	for (size_t i = 0; from && from[i]; i++) {
		const char *e = from[i], *eq = strchr(e, '=');
		char *name;
		if (!eq || strncmp(e, prefix, pl) || (size_t)(eq - e) < pl)
			continue;
		name = xstrndup(e, (size_t)(eq - e));
		env = strv_setenv(env, name, eq + 1);
		free(name);
	}
	return env;
}

char **strv_setenv_take(char **env, const char *name, char *value)
{
	if (!value)
		fatal("out of memory");
	env = strv_setenv(env, name, value);
	free(value);
	return env;
}

char **strv_setenvf(char **env, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *v = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("out of memory");
	env = strv_setenv(env, name, v);
	free(v);
	return env;
}

int strv_has(char *const *v, const char *s, int nocase)
{
	if (!s)
		return 0;
	for (size_t i = 0; v && v[i]; i++)
		if (nocase ? !strcasecmp(v[i], s) : !strcmp(v[i], s))
			return 1;
	return 0;
}

/* The item of list at *p (advanced past it and its comma): its length. */
static size_t list_next(const char **p)
{
	size_t n = strcspn(*p, ",");

	*p += n;
	*p += **p == ',';
	return n;
}

int list_has(const char *list, const char *word, int nocase)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *item = p;
		size_t n = list_next(&p);
		if (n == len &&
		    !(nocase ? strncasecmp(item, word, len) : strncmp(item, word, len)))
			return 1;
	}
	return 0;
}

char *list_value(const char *list, const char *key, int nocase)
{
	size_t len = strlen(key);

	for (const char *p = list; p && *p;) {
		const char *item = p;
		size_t n = list_next(&p);
		if (n > len && item[len] == '=' &&
		    !(nocase ? strncasecmp(item, key, len) : strncmp(item, key, len)))
			return xstrndup(item + len + 1, n - len - 1);
	}
	return NULL;
}

char **strv_unsetenv(char **env, const char *name)
{
	size_t len = strlen(name), w = 0;

	for (size_t r = 0; env && env[r]; r++) {
		if (!strncmp(env[r], name, len) && env[r][len] == '=') {
			free(env[r]);
			continue;
		}
		env[w++] = env[r];
	}
	if (env)
		env[w] = NULL;
	return env;
}
