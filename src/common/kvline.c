#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/kvline.h"

int kvline_split(char *s, char **kv, size_t max_pairs, size_t *ret_n, const char *where,
                 struct rota_error *err)
{
	char *hash = strchr(s, '#');
	size_t n = 0;

	if (hash)
		*hash = '\0';
	for (char *tok = s, *next; *tok; tok = next) {
		char *eq;
		tok += strspn(tok, " \t\r");
		if (!*tok)
			break;
		next = tok + strcspn(tok, " \t\r");
		if (*next)
			*next++ = '\0';
		eq = strchr(tok, '=');
		if (!eq || eq == tok || !eq[1])
			return errprintf(err, "%s: expected Key=Value, found '%.64s'",
			                 where, tok),
			       -EINVAL;
		if (n == 2 * max_pairs)
			return errprintf(err, "%s: more than %zu keys on the line", where,
			                 max_pairs),
			       -EINVAL;
		*eq = '\0';
		kv[n++] = tok;
		kv[n++] = eq + 1;
	}
	*ret_n = n;
	return 0;
}

int kvline_read_file(const char *path, size_t max, char **ret, struct rota_error *err)
{
	FILE *f = fopen(path, "re");
	char *text;
	size_t len;
	int rc;

	if (!f) {
		rc = -errno;
		if (rc != -ENOENT)
			errprintf(err, "%s: %s", path, strerror(-rc));
		return rc;
	}
	text = malloc(max + 1);
	if (!text) {
		fclose(f);
		return errprintf(err, "out of memory"), -ENOMEM;
	}
	len = fread(text, 1, max + 1, f);
	rc = ferror(f) ? -EIO : len > max ? -EFBIG : 0;
	fclose(f);
	if (rc < 0)
		errprintf(err, "%s: %s", path,
		          rc == -EIO ? "read error" : "larger than the limit");
	else if (memchr(text, '\0', len))
		rc = (errprintf(err, "%s: a NUL byte in the file", path), -EINVAL);
	if (rc < 0) {
		free(text);
		return rc;
	}
	text[len] = '\0';
	*ret = text;
	return 0;
}

char *kvline_sibling(const char *slurm_conf_path, const char *name)
{
	const char *slash = strrchr(slurm_conf_path, '/');
	char *p = NULL;

	if (!slash)
		return strdup(name);
	if (asprintf(&p, "%.*s/%s", (int)(slash - slurm_conf_path), slurm_conf_path,
	             name) < 0)
		return NULL;
	return p;
}
