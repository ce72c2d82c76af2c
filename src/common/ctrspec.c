/* ctrspec.c - the container options, checked and parsed (ctrspec.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/ctrspec.h"

static int bad_chars(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

static int check_path(const char *what, const char *path, struct rota_error *err)
{
	if (path[0] != '/')
		return errprintf(err, "%s: `%s' is not an absolute path", what, path);
	if (strlen(path) > CTRSPEC_PATH_MAX)
		return errprintf(err, "%s: path longer than %d characters", what,
		                 CTRSPEC_PATH_MAX);
	if (bad_chars(path))
		return errprintf(err, "%s: control character in path", what);
	return 0;
}

/* FLAGS of one mount: words joined by '+'. */
static int mount_flags(char *flags, unsigned *ret, struct rota_error *err)
{
	unsigned f = 0;
	char *save = NULL;

	for (char *w = strtok_r(flags, "+", &save); w; w = strtok_r(NULL, "+", &save)) {
		if (!strcmp(w, "ro"))
			f |= CTR_MOUNT_RO;
		else if (!strcmp(w, "rw"))
			f &= ~(unsigned)CTR_MOUNT_RO;
		else if (strcmp(w, "rbind") && strcmp(w, "bind") &&
		         strcmp(w, "private") && strcmp(w, "rprivate") &&
		         strcmp(w, "nosuid") && strcmp(w, "nodev"))
			return errprintf(err, "--container-mounts: unknown flag `%s'", w);
	}
	*ret = f;
	return 0;
}

/* Is a component of path ".."? */
static int has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return 1;
	return 0;
}

/* One entry SRC[:DST[:FLAGS]], split in place. */
static int mount_one(char *item, struct ctr_mount *m, struct rota_error *err)
{
	char *dst = strchr(item, ':'), *flags = NULL;

	m->flags = 0;
	if (dst) {
		*dst++ = '\0';
		if ((flags = strchr(dst, ':')))
			*flags++ = '\0';
	}
	if (!dst || !*dst)
		dst = item;
	m->src = item;
	m->dst = dst;
	if (check_path("--container-mounts", m->src, err) < 0 ||
	    check_path("--container-mounts", m->dst, err) < 0)
		return -1;
	if (has_dotdot(m->dst))
		return errprintf(err, "--container-mounts: `..' in `%s'", m->dst);
	return flags ? mount_flags(flags, &m->flags, err) : 0;
}

int ctrspec_mounts_parse(const char *arg, struct ctr_mounts *ret, struct rota_error *err)
{
	struct ctr_mounts m = {0};
	char *save = NULL;
	size_t cap = 1;
	int rc = 0;

	if (!arg || !*arg) {
		*ret = m;
		return 0;
	}
	for (const char *p = arg; *p; p++)
		cap += *p == ',';
	if (cap > CTRSPEC_MOUNTS_MAX) {
		return errprintf(err, "--container-mounts: more than %d mounts",
		                 CTRSPEC_MOUNTS_MAX);
	}
	m.buf = strdup(arg);
	m.v = calloc(cap, sizeof(*m.v));
	if (!m.buf || !m.v) {
		rc = -ENOMEM;
		goto out;
	}
	for (char *it = strtok_r(m.buf, ",", &save); it;
	     it = strtok_r(NULL, ",", &save)) {
		if ((rc = mount_one(it, &m.v[m.n], err)) < 0)
			goto out;
		m.n++;
	}
out:
	if (rc < 0) {
		ctrspec_mounts_release(&m);
		return rc;
	}
	*ret = m;
	return 0;
}

void ctrspec_mounts_release(struct ctr_mounts *m)
{
	if (!m)
		return;
	free(m->buf);
	free(m->v);
	*m = (struct ctr_mounts){0};
}

int ctrspec_check_mounts(const char *mounts, struct rota_error *err)
{
	struct ctr_mounts m;
	int rc = ctrspec_mounts_parse(mounts, &m, err);

	if (rc == -ENOMEM)
		return errprintf(err, "out of memory");
	if (rc == 0)
		ctrspec_mounts_release(&m);
	return rc;
}

int ctrspec_check_image(const char *image, struct rota_error *err)
{
	if (!image)
		return 0;
	if (!*image)
		return errprintf(err, "--container-image: empty image name");
	if (strlen(image) > CTRSPEC_IMAGE_MAX)
		return errprintf(err, "--container-image: longer than %d characters",
		                 CTRSPEC_IMAGE_MAX);
	if (bad_chars(image))
		return errprintf(err,
		                 "--container-image: control character in image name");
	return 0;
}

int ctrspec_check_bundle(const char *path, struct rota_error *err)
{
	if (!path)
		return 0;
	if (!*path || strlen(path) > CTRSPEC_PATH_MAX || bad_chars(path))
		return errprintf(err, "--container: a path of 1 to %d characters",
		                 CTRSPEC_PATH_MAX);
	return 0;
}

int ctrspec_check_workdir(const char *dir, struct rota_error *err)
{
	return dir ? check_path("--container-workdir", dir, err) : 0;
}

int ctrspec_check_name(const char *name, struct rota_error *err)
{
	size_t n;

	if (!name)
		return 0;
	n = strlen(name);
	if (n == 0 || n > CTRSPEC_NAME_MAX)
		return errprintf(err, "--container-name: 1 to %d characters",
		                 CTRSPEC_NAME_MAX);
	if (name[0] == '.' ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                 "0123456789_.-") != n)
		return errprintf(
		    err,
		    "--container-name: `%s': only letters, digits, `_', `.' and "
		    "`-' (not first)",
		    name);
	return 0;
}

int ctrspec_check_env(const char *names, struct rota_error *err)
{
	size_t count = 0;
	const char *p = names;

	if (!names)
		return 0;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == 0 || n > CTRSPEC_ENVNAME_MAX ||
		    strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz012345"
		              "6789_") < n ||
		    (p[0] >= '0' && p[0] <= '9'))
			return errprintf(err,
			                 "--container-env: invalid variable name `%.*s'",
			                 (int)(n > 64 ? 64 : n), p);
		if (++count > CTRSPEC_ENV_MAX)
			return errprintf(err, "--container-env: more than %d names",
			                 CTRSPEC_ENV_MAX);
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

int ctrspec_env_has(const char *list, const char *name, size_t name_len)
{
	const char *p = list;

	while (p && *p) {
		size_t n = strcspn(p, ",");
		if (n == name_len && !strncmp(p, name, n))
			return 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}
