#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/multiprog.h"
#include "common/strv.h"
#include "common/common.h"

/* Split one line into words (quotes group, # outside quotes ends the line). */
static char **split_words(const char *line, struct rota_error *err)
{
	char **v = NULL;
	const char *p = line;

	for (;;) {
		char *w;
		size_t n = 0, cap = strlen(p) + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			break;
		w = xmalloc(cap);
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '\'' || *p == '"') {
				char q = *p++;
				while (*p && *p != q)
					w[n++] = *p++;
				if (*p != q) {
					free(w);
					strv_free(v);
					errprintf(err, "unbalanced quote");
					return NULL;
				}
				p++;
			} else {
				w[n++] = *p++;
			}
		}
		w[n] = '\0';
		v = strv_append(v, w);
		free(w);
	}
	return v ? v : xcalloc(1, sizeof(char *));
}

/* Does spec ("*", "0-3,5") name task?  *offset: task's place among the tasks
 * the spec names, in their order ("0,3": task 3 is at 1). */
static int ranks_match(const char *spec, uint32_t task, uint32_t *offset, int *bad)
{
	const char *p = spec;
	uint32_t before = 0;

	if (!strcmp(spec, "*")) {
		*offset = task;
		return 1;
	}
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < lo)
				goto bad;
		}
		if (task >= lo && task <= hi) {
			*offset = before + (task - (uint32_t)lo);
			return 1;
		}
		before += (uint32_t)(hi - lo + 1);
		if (*end && *end != ',')
			goto bad;
		p = *end ? end + 1 : end;
	}
	return 0;
bad:
	*bad = 1;
	return 0;
}

static char *substitute(const char *word, uint32_t task, uint32_t offset)
{
	size_t cap = strlen(word) * 10 + 1, n = 0;
	char *out = xmalloc(cap);

	for (const char *p = word; *p; p++) {
		if (p[0] == '%' && (p[1] == 't' || p[1] == 'o')) {
			n += (size_t)snprintf(out + n, cap - n, "%u",
			                      p[1] == 't' ? task : offset);
			p++;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return out;
}

/* The next line of text at *p, lines ending in '\\' joined to the next
 * (the backslash and the newline dropped, as Slurm reads them); *p moves past
 * it, *lines counts what it took. */
static char *next_line(const char **p, int *lines)
{
	char *line = xstrdup("");

	for (;;) {
		const char *nl = strchr(*p, '\n');
		size_t n = nl ? (size_t)(nl - *p) : strlen(*p);
		int more = n && (*p)[n - 1] == '\\' && nl;
		char *joined = xasprintf("%s%.*s", line, (int)(more ? n - 1 : n), *p);

		free(line);
		line = joined;
		(*lines)++;
		*p = nl ? nl + 1 : *p + n;
		if (!more)
			return line;
	}
}

/* Find task's line; 1 found (argv set), 0 none, -1 error. */
static int find_line(const char *text, uint32_t task, char ***ret_argv,
                     struct rota_error *err)
{
	const char *p = text;
	int lineno = 0;

	while (*p) {
		char *line = next_line(&p, &lineno);
		char **w = split_words(line, err);
		uint32_t offset = 0;
		int bad = 0, match;

		free(line);
		if (!w)
			return errprintf(err, "line %d: unbalanced quote", lineno);
		if (!w[0]) {
			strv_free(w);
			continue;
		}
		match = ranks_match(w[0], task, &offset, &bad);
		if (bad || !w[1]) {
			strv_free(w);
			return errprintf(err, "line %d: expected TASKS PROGRAM [ARGS]",
			                 lineno);
		}
		if (match) {
			char **argv = NULL;
			for (size_t i = 1; w[i]; i++) {
				char *s = substitute(w[i], task, offset);
				argv = strv_append(argv, s);
				free(s);
			}
			strv_free(w);
			*ret_argv = argv;
			return 1;
		}
		strv_free(w);
	}
	return 0;
}

int multiprog_argv(const char *text, uint32_t task, char ***ret_argv,
                   struct rota_error *err)
{
	int rc = find_line(text, task, ret_argv, err);

	if (rc < 0)
		return -1;
	if (rc == 0)
		return errprintf(err, "No executable program specified for this task");
	return 0;
}

int multiprog_check(const char *text, uint32_t ntasks, struct rota_error *err)
{
	if (strlen(text) > MULTIPROG_MAX_BYTES)
		return errprintf(err, "configuration file is too large");
	for (uint32_t t = 0; t < ntasks; t++) {
		char **argv = NULL;
		int rc = find_line(text, t, &argv, err);
		strv_free(argv);
		if (rc < 0)
			return -1;
		if (rc == 0)
			return errprintf(err,
			                 "Configuration file does not specify a program "
			                 "for task %u",
			                 t);
	}
	return 0;
}
