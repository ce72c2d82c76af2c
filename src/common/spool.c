#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/spool.h"
#include "common/common.h"

char *spool_dir_expand(const char *pattern, const char *node_name, const char *host)
{
	size_t cap = strlen(pattern) + 1, len = 0;
	char *out;

	for (const char *p = pattern; *p; p++)
		if (p[0] == '%' && (p[1] == 'n' || p[1] == 'h'))
			cap += strlen(p[1] == 'n' ? node_name : host);
	out = malloc(cap);
	if (!out)
		return NULL;
	for (const char *p = pattern; *p; p++) {
		if (p[0] == '%' && (p[1] == 'n' || p[1] == 'h')) {
			const char *s = p[1] == 'n' ? node_name : host;
			memcpy(out + len, s, strlen(s));
			len += strlen(s);
			p++;
			continue;
		}
		out[len++] = *p;
	}
	out[len] = '\0';
	return out;
}

int spool_mkdir(const char *path)
{
	char *p = strdup(path);
	int rc = 0;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s && rc == 0; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			rc = -errno;
		*s = '/';
	}
	if (rc == 0 && mkdir(p, 0755) < 0 && errno != EEXIST)
		rc = -errno;
	free(p);
	return rc;
}

char *spool_stepd_name(const char *node_name, uint32_t job_id, uint32_t step_id)
{
	char *s = NULL;
	if (asprintf(&s, "%s_%" PRIu32 ".%" PRIu32, node_name, job_id, step_id) < 0)
		return NULL;
	return s;
}

/* Parse a decimal u32 at *p, advancing it.  Returns 0 or -EINVAL. */
static int parse_u32(const char **p, uint32_t *ret)
{
	uint64_t v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	*ret = (uint32_t)v;
	*p = s;
	return 0;
}

int spool_stepd_parse(const char *entry, const char *node_name, uint32_t *ret_job,
                      uint32_t *ret_step)
{
	size_t nl = strlen(node_name);
	const char *p = entry + nl + 1;
	uint32_t job, step;
	int kind;

	if (strncmp(entry, node_name, nl) || entry[nl] != '_')
		return 0;
	if (parse_u32(&p, &job) < 0 || *p++ != '.' || parse_u32(&p, &step) < 0)
		return 0;
	if (!*p)
		kind = 1;
	else if (!strcmp(p, ".done"))
		kind = 2;
	else if (!strcmp(p, SPOOL_PIDS_SUFFIX))
		kind = 3;
	else
		return 0;
	*ret_job = job;
	*ret_step = step;
	return kind;
}

char *spool_cgroup_name(const char *node_name, const char *spool)
{
	uint32_t hash = 2166136261u; /* FNV-1a */
	char *s;

	for (const char *p = spool ? spool : ""; *p; p++)
		hash = (hash ^ (uint8_t)*p) * 16777619u;
	s = xasprintf("%s_%08x", node_name && *node_name ? node_name : "node", hash);
	for (char *p = s; *p; p++)
		if (*p == '/' || *p == '.')
			*p = '_';
	return s;
}
