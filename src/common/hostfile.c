/* hostfile.c - Slurm hostfiles (see hostfile.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/hostfile.h"
#include "common/hostlist.h"
#include "common/common.h"

struct names {
	char **v;
	size_t n, cap;
};

/* One entry ("node[1-2]*3"): its names pushed onto l. */
static int push_entry(char *e, struct names *l, size_t max, struct rota_error *err)
{
	char *star = strrchr(e, '*'), **names = NULL;
	size_t count = 0;
	long reps = 1;

	if (star && !strchr(star, ']')) {
		char *end;
		reps = strtol(star + 1, &end, 10);
		if (end == star + 1 || *end || reps < 1 || reps > HOSTLIST_MAX)
			return errprintf(err, "Invalid repeat count in %s", e), -1;
		*star = '\0';
	}
	if (hostlist_expand(e, &names, &count, err) < 0)
		return -1;
	for (long r = 0; r < reps; r++)
		for (size_t i = 0; i < count && (!max || l->n < max); i++) {
			if (l->n >= HOSTLIST_MAX) {
				hostlist_free(names);
				return errprintf(err, "more than %d names", HOSTLIST_MAX),
				       -1;
			}
			if (l->n + 1 >= l->cap) {
				l->cap = l->cap ? l->cap * 2 : 64;
				l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
			}
			l->v[l->n++] = xstrdup(names[i]);
			l->v[l->n] = NULL;
		}
	hostlist_free(names);
	return 0;
}

/* The entries of one line (a comment cut off), commas outside brackets
 * apart. */
static int parse_line(char *line, struct names *l, size_t max, struct rota_error *err)
{
	char *w = line;
	int depth = 0;

	for (char *r = line; *r; r++) { /* "\#" is a '#'; '#' starts a comment */
		if (*r == '\\' && r[1] == '#') {
			*w++ = '#';
			r++;
			continue;
		}
		if (*r == '#')
			break;
		*w++ = *r;
	}
	*w = '\0';
	for (char *p = line, *start = line;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth)
			depth--;
		if ((*p == ',' && !depth) || !*p) {
			int last = !*p;
			*p = '\0';
			start += strspn(start, " \t\r");
			for (char *e = start + strlen(start);
			     e > start && strchr(" \t\r", e[-1]); e--)
				e[-1] = '\0';
			if (*start && push_entry(start, l, max, err) < 0)
				return -1;
			if (last || (max && l->n >= max))
				return 0;
			start = p + 1;
		}
	}
}

int hostfile_parse(const char *text, const char *path, size_t max, char ***ret_names,
                   size_t *ret_n, struct rota_error *err)
{
	char *copy = xstrdup(text), *next = NULL;
	struct names l = {0};
	size_t lineno = 0;
	int rc = 0;

	for (char *line = copy; line && !rc && (!max || l.n < max); line = next) {
		const char *p = line + strspn(line, " \t\r");
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (!*p || *p == '#')
			continue;
		if (!isalnum((unsigned char)*p)) {
			errprintf(err, "Invalid hostfile %s contents on line %zu", path,
			          lineno);
			rc = -1;
			break;
		}
		rc = parse_line(line, &l, max, err);
	}
	free(copy);
	if (!rc && max && l.n < max) {
		errprintf(err, "%s holds %zu node names, fewer than the %zu asked", path,
		          l.n, max);
		rc = -1;
	}
	if (!rc && !l.n) {
		errprintf(err, "%s holds no node names", path);
		rc = -1;
	}
	if (rc) {
		hostlist_free(l.v);
		return -1;
	}
	*ret_names = l.v;
	*ret_n = l.n;
	return 0;
}

int hostfile_read(const char *path, size_t max, char ***ret_names, size_t *ret_n,
                  struct rota_error *err)
{
	FILE *f = fopen(path, "re");
	char *text;
	size_t len;
	int rc;

	if (!f)
		return errprintf(err, "Unable to open %s: %s", path, strerror(errno)), -1;
	text = xmalloc(HOSTFILE_MAX_BYTES + 1);
	len = fread(text, 1, HOSTFILE_MAX_BYTES + 1, f);
	fclose(f);
	if (len > HOSTFILE_MAX_BYTES) {
		free(text);
		return errprintf(err, "%s is larger than %u bytes", path,
		                 HOSTFILE_MAX_BYTES),
		       -1;
	}
	text[len] = '\0';
	rc = hostfile_parse(text, path, max, ret_names, ret_n, err);
	free(text);
	return rc;
}
