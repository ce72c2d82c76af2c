/* conf_file.c - files beside slurm.conf (see conf_file.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf_file.h"

char *conf_file_beside(const char *slurm_conf_path, const char *name)
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

int conf_file_read(const char *path, size_t max, char **ret, struct rota_error *err)
{
	FILE *f = fopen(path, "re");
	char *text;
	size_t len = 0;
	int rc = 0;

	if (!f && errno != ENOENT)
		return errprintf(err, "%s: %s", path, strerror(errno)), -errno;
	if (!(text = malloc(max + 1))) {
		if (f)
			fclose(f);
		return errprintf(err, "out of memory"), -ENOMEM;
	}
	if (f) {
		len = fread(text, 1, max + 1, f);
		rc = ferror(f) ? -EIO : len > max ? -EFBIG : 0;
		fclose(f);
	}
	if (rc == -EIO)
		errprintf(err, "%s: read error", path);
	else if (rc < 0)
		errprintf(err, "%s: larger than %zu bytes", path, max);
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

int conf_line_split(char *line, conf_kv_f apply, void *arg, const char *where,
                    struct rota_error *err)
{
	char *hash = strchr(line, '#');
	int n = 0;

	if (hash)
		*hash = '\0';
	for (char *tok = line, *next; *tok; tok = next) {
		char *eq;
		int rc;

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
		*eq = '\0';
		if ((rc = apply(arg, tok, eq + 1, where, err)) < 0)
			return rc;
		n++;
	}
	return n;
}
