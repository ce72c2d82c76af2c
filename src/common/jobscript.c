/* jobscript.c - batch script directives, --wrap and --export. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/jobscript.h"
#include "common/common.h"

/* ---- a growable NULL-terminated string vector ---- */

struct vec {
	char **v;
	size_t n, cap, max;
};

static int vec_push(struct vec *a, char *s)
{
	if (!s)
		return -ENOMEM;
	if (a->n >= a->max) {
		free(s);
		return -E2BIG;
	}
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		char **v = realloc(a->v, cap * sizeof(*v));
		if (!v) {
			free(s);
			return -ENOMEM;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

static void vec_free(struct vec *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* Hand the vector over (an empty one when nothing was pushed). */
static int vec_take(struct vec *a, char ***ret)
{
	if (!a->v) {
		a->v = calloc(1, sizeof(*a->v));
		if (!a->v)
			return -ENOMEM;
	}
	*ret = a->v;
	a->v = NULL;
	a->n = a->cap = 0;
	return 0;
}

/* ---- the script ---- */

int jobscript_has_interpreter(const char *text)
{
	return text && text[0] == '#' && text[1] == '!';
}

int jobscript_has_crlf(const char *text)
{
	return text && strstr(text, "\r\n") != NULL;
}

char *jobscript_wrap(const char *cmd)
{
	static const char head[] =
	    "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n";
	size_t n = strlen(cmd);
	char *s = malloc(sizeof(head) + n + 1);

	if (!s)
		return NULL;
	memcpy(s, head, sizeof(head) - 1);
	memcpy(s + sizeof(head) - 1, cmd, n);
	s[sizeof(head) - 1 + n] = '\n';
	s[sizeof(head) + n] = '\0';
	return s;
}

char *jobscript_prepend(const char *script, const char *text)
{
	size_t sl = strlen(script), tl = strlen(text), head = 0, n;
	const char *eol;
	char *s;

	if (!tl)
		return strdup(script);
	if (script[0] == '#') /* after the first line */
		head = (eol = strchr(script, '\n')) ? (size_t)(eol - script) + 1 : sl;
	if (sl + tl + 2 > JOBSCRIPT_MAX || !(s = malloc(sl + tl + 3)))
		return NULL;
	memcpy(s, script, head);
	n = head;
	if (head && s[head - 1] != '\n')
		s[n++] = '\n'; /* a script of one line */
	memcpy(s + n, text, tl);
	n += tl;
	if (text[tl - 1] != '\n')
		s[n++] = '\n';
	memcpy(s + n, script + head, sl - head);
	n += sl - head;
	s[n] = '\0';
	return s;
}

/* Is line [p, end) blank or a comment (first non-blank is '#')? */
static int line_is_comment(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == end || *p == '#';
}

/* Split one directive's text [p, end) into words appended to out. */
static int split_directive(const char *p, const char *end, int lineno, struct vec *out,
                           struct rota_error *err)
{
	const char *start = p;
	size_t cap = (size_t)(end - p) + 1, len = 0;
	char *word = malloc(cap);
	int in_word = 0, rc = 0;
	char quote = 0;

	if (!word)
		return -ENOMEM;
	for (; p < end; p++) {
		char c = *p;

		if (quote) {
			if (c == quote) {
				quote = 0;
			} else if (quote == '"' && c == '\\' && p + 1 < end) {
				word[len++] = *++p;
			} else {
				word[len++] = c;
			}
			continue;
		}
		if (c == '"' || c == '\'') {
			quote = c;
			in_word = 1;
		} else if (c == '\\' && p + 1 < end && (p[1] == '"' || p[1] == '\'')) {
			word[len++] = *++p;
			in_word = 1;
		} else if (c == '\\') {
			continue; /* dropped; the next character counts as itself */
		} else if (c == '#') {
			break;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			if (in_word) {
				word[len] = '\0';
				if ((rc = vec_push(out, strdup(word))) < 0)
					goto out;
				len = 0;
				in_word = 0;
			}
		} else {
			word[len++] = c;
			in_word = 1;
		}
	}
	if (quote) {
		rc = -EINVAL;
		errprintf(err, "line %d: Unmatched `%c` in [%.*s]", lineno, quote,
		          (int)(end - start > 128 ? 128 : end - start), start);
		goto out;
	}
	if (in_word) {
		word[len] = '\0';
		rc = vec_push(out, strdup(word));
	}
out:
	free(word);
	return rc;
}

int jobscript_directives(const char *text, const char *prefix, char ***ret_words,
                         struct rota_error *err)
{
	struct vec out = {.max = JOBSCRIPT_WORDS_MAX};
	size_t plen = strlen(prefix);
	const char *p = text;
	int lineno = 0, rc = 0;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);

		lineno++;
		if (lineno == 1 && p[0] == '#' && p[1] == '!') {
			/* the interpreter line */
		} else if ((size_t)(end - p) >= plen && !strncmp(p, prefix, plen)) {
			rc = split_directive(p + plen, end, lineno, &out, err);
			if (rc == -E2BIG)
				errprintf(err, "line %d: more than %d words in %s lines",
				          lineno, JOBSCRIPT_WORDS_MAX, prefix);
			if (rc < 0)
				goto fail;
		} else if (!line_is_comment(p, end)) {
			break;
		}
		p = nl ? nl + 1 : end;
	}
	if ((rc = vec_take(&out, ret_words)) < 0)
		goto fail;
	return 0;
fail:
	vec_free(&out);
	return rc;
}

/* ---- --export ---- */

/* Any non-empty name, as Slurm takes it: the environment holds names a shell
 * could not declare (TEST_ENV_17.14, A-B, 1X), and programs read them. */
static int env_name_valid(const char *s, size_t n)
{
	(void)s;
	return n > 0;
}

/* Index of NAME (n bytes) in out, or -1. */
static long vec_find(const struct vec *a, const char *name, size_t n)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strncmp(a->v[i], name, n) && a->v[i][n] == '=')
			return (long)i;
	return -1;
}

static const char *env_get(char *const *env, const char *name, size_t n)
{
	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, n) && env[i][n] == '=')
			return env[i];
	return NULL;
}

/* Add or replace one NAME=value entry. */
static int vec_setenv(struct vec *a, const char *entry, size_t name_len)
{
	long i = vec_find(a, entry, name_len);
	char *s = strdup(entry);

	if (i < 0)
		return vec_push(a, s);
	if (!s)
		return -ENOMEM;
	free(a->v[i]);
	a->v[i] = s;
	return 0;
}

/* One NAME or NAME=value item [item, item+len) of an --export list. */
static int export_item(struct vec *out, char *const *env, const char *item, size_t len,
                       struct rota_error *err)
{
	const char *eq = memchr(item, '=', len);
	size_t nlen = eq ? (size_t)(eq - item) : len;
	const char *cur, *val;
	size_t vlen;
	char *entry;
	int rc;

	if (!env_name_valid(item, nlen))
		return errprintf(err, "invalid variable name in --export: %.*s", (int)len,
		                 item),
		       -EINVAL;
	if (!eq) {
		cur = env_get(env, item, nlen);
		return cur ? vec_setenv(out, cur, nlen) : 0;
	}
	val = eq + 1;
	vlen = len - nlen - 1;
	if (vlen >= 2 && (val[0] == '"' || val[0] == '\'') && val[vlen - 1] == val[0]) {
		val++; /* A="x,y": the quotes only protect the commas */
		vlen -= 2;
	}
	if (!(entry = malloc(nlen + vlen + 2)))
		return -ENOMEM;
	memcpy(entry, item, nlen);
	entry[nlen] = '=';
	memcpy(entry + nlen + 1, val, vlen);
	entry[nlen + 1 + vlen] = '\0';
	rc = vec_setenv(out, entry, nlen);
	free(entry);
	return rc;
}

/* Add every entry of env (only SLURM_* ones when slurm_only), replacing. */
static int export_merge(struct vec *out, char *const *env, int slurm_only)
{
	int fresh = out->n == 0, rc;

	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');

		if (!eq || (slurm_only && strncmp(env[i], "SLURM_", 6)))
			continue;
		/* into an empty vector (the common ALL case) names cannot clash:
		 * skip the lookup, which would make large environments quadratic */
		rc = fresh ? vec_push(out, strdup(env[i]))
		           : vec_setenv(out, env[i], (size_t)(eq - env[i]));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Length of the next comma-separated item; commas inside quotes do not count. */
static size_t item_len(const char *p)
{
	char quote = 0;
	size_t i;

	for (i = 0; p[i]; i++) {
		if (quote && p[i] == quote)
			quote = 0;
		else if (!quote && (p[i] == '"' || p[i] == '\''))
			quote = p[i];
		else if (!quote && p[i] == ',')
			break;
	}
	return i;
}

int jobscript_export_env(const char *spec, char *const *env, char ***ret_env,
                         struct rota_error *err)
{
	struct vec out = {.max = JOBSCRIPT_ENV_MAX};
	int rc;

	if (!spec || !strcasecmp(spec, "ALL")) {
		rc = export_merge(&out, env, 0);
		goto done;
	}
	if ((rc = export_merge(&out, env, 1)) < 0)
		goto done;
	for (const char *p = spec; *p;) {
		size_t len = item_len(p);

		if (len == 3 && !strncasecmp(p, "ALL", 3))
			rc = export_merge(&out, env, 0);
		else if (len && !(len == 4 && !strncasecmp(p, "NONE", 4)))
			rc = export_item(&out, env, p, len, err);
		if (rc < 0)
			goto done;
		p += len;
		if (*p == ',')
			p++;
	}
done:
	if (rc == 0)
		rc = vec_take(&out, ret_env);
	if (rc < 0) {
		if (rc == -E2BIG)
			errprintf(err, "more than %d environment variables",
			          JOBSCRIPT_ENV_MAX);
		vec_free(&out);
	}
	return rc;
}
