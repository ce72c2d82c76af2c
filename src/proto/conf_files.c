#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/conf_file.h"
#include "common/sha256.h"
#include "proto/conf_files.h"
#include "common/common.h"

/* The files beside slurm.conf that a node reads when they are there. */
static const char *const beside[] = {"gres.conf", "cgroup.conf", "topology.conf"};

void conf_servers_free(struct conf_server *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i].host);
	free(s);
}

/* One "HOST[:PORT]" or "[V6]:PORT" of len bytes at p into *s. */
static int server_parse(const char *p, size_t len, uint16_t default_port,
                        struct conf_server *s, struct rota_error *err)
{
	const char *host = p, *port = NULL, *end = p + len;
	size_t hlen;

	if (len && *p == '[') {
		const char *close = memchr(p, ']', len);
		if (!close || (close + 1 < end && close[1] != ':'))
			return errprintf(err,
			                 "bad server '%.*s': expected [ADDRESS]:PORT",
			                 (int)len, p);
		host = p + 1;
		hlen = (size_t)(close - host);
		if (close + 1 < end)
			port = close + 2;
	} else {
		const char *colon = memchr(p, ':', len);
		if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1)))
			return errprintf(err,
			                 "bad server '%.*s': write an IPv6 address "
			                 "as [ADDRESS]:PORT",
			                 (int)len, p);
		hlen = colon ? (size_t)(colon - p) : len;
		if (colon)
			port = colon + 1;
	}
	if (!hlen)
		return errprintf(err, "bad server '%.*s': no host", (int)len, p);
	s->port = default_port;
	if (port) {
		unsigned long v = 0;
		const char *q = port;
		for (; q < end && *q >= '0' && *q <= '9' && v <= 65535; q++)
			v = v * 10 + (unsigned long)(*q - '0');
		if (q == port || q != end || v < 1 || v > 65535)
			return errprintf(err, "bad server '%.*s': bad port", (int)len, p);
		s->port = (uint16_t)v;
	}
	s->host = xstrndup(host, hlen);
	return 0;
}

int conf_servers_parse(const char *spec, uint16_t default_port, struct conf_server **ret,
                       struct rota_error *err)
{
	struct conf_server *s = xcalloc(CONF_SERVERS_MAX, sizeof(*s));
	const char *p = spec ? spec : "";
	size_t n = 0;
	int rc = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (n == CONF_SERVERS_MAX) {
			rc = errprintf(err, "more than %d servers", CONF_SERVERS_MAX);
			goto out;
		}
		if ((rc = server_parse(p, len, default_port, &s[n], err)) < 0)
			goto out;
		n++;
		p += strcspn(p, ",");
		if (!*p)
			break;
		p++;
	}
out:
	if (rc < 0) {
		conf_servers_free(s, n);
		return -EINVAL;
	}
	*ret = s;
	return (int)n;
}

int conf_file_name_ok(const char *name)
{
	const char *p = name;

	if (!name || !*name || *name == '/' || strlen(name) > 255)
		return 0;
	for (const char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return 0;
	while (*p) {
		size_t len = strcspn(p, "/");
		if (len == 0 || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += len;
		if (*p == '/' && !*++p)
			return 0; /* a trailing '/' */
	}
	return 1;
}

static void file_add(struct conf_files *r, const char *name, char *text)
{
	r->files = xrealloc(r->files, (r->files_count + 1) * sizeof(*r->files));
	r->files[r->files_count] =
	    (struct conf_file){.name = xstrdup(name), .text = text};
	r->files_count++;
}

static int file_add_read(struct conf_files *r, const char *path, const char *name,
                         struct rota_error *err)
{
	char *text = NULL;
	int rc;

	for (size_t i = 0; i < r->files_count; i++)
		if (!strcmp(r->files[i].name, name))
			return 0; /* Included twice, or named beside too */
	if (r->files_count == CONF_FILES_MAX)
		return errprintf(err, "more than %d configuration files", CONF_FILES_MAX),
		       -E2BIG;
	if ((rc = conf_file_read(path, CONF_FILE_MAX, &text, err)) < 0)
		return rc;
	file_add(r, name, text);
	return 0;
}

int conf_files_collect(const struct conf *conf, struct conf_files *ret,
                       struct rota_error *err)
{
	struct conf_files r = {0};
	char *dup = xstrdup(conf->path), *dir = dirname(dup), *path = NULL;
	size_t dlen = strlen(dir);
	int rc;

	if ((rc = file_add_read(&r, conf->path, "slurm.conf", err)) < 0)
		goto out;
	/* conf->files[0] is slurm.conf itself */
	for (size_t i = 1; i < conf->file_count; i++) {
		const char *f = conf->files[i], *name = f;
		if (f[0] == '/') {
			if (strncmp(f, dir, dlen) || f[dlen] != '/')
				continue; /* outside slurm.conf's directory */
			name = f + dlen + 1;
		}
		if (!conf_file_name_ok(name))
			continue;
		if ((rc = file_add_read(&r, f, name, err)) < 0)
			goto out;
	}
	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		free(path);
		path = conf_file_beside(conf->path, beside[i]);
		if (!path || access(path, F_OK) < 0)
			continue;
		if ((rc = file_add_read(&r, path, beside[i], err)) < 0)
			goto out;
	}
out:
	free(path);
	free(dup);
	if (rc < 0) {
		codec_release(&conf_files_type, &r);
		return rc;
	}
	*ret = r;
	return 0;
}

/* mkdir -p path (mode 0755). */
static int mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; !rc; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			rc = -errno;
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

static int file_write_atomic(const char *path, const char *text, struct rota_error *err)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	size_t len = strlen(text);
	int fd, rc = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		errprintf(err, "create %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fchmod(fd, 0644) < 0 || (len && write(fd, text, len) != (ssize_t)len) ||
	    fsync(fd) < 0) {
		rc = errno ? -errno : -EIO;
		errprintf(err, "write %s: %s", tmp, strerror(-rc));
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		rc = -errno;
		errprintf(err, "rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
	}
out:
	free(tmp);
	return rc;
}

/* Remove the top-level regular files of dir that files does not name. */
static void stale_remove(const char *dir, const struct conf_files *files)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		int keep = e->d_name[0] == '.';
		struct stat st;
		char *path;

		for (size_t i = 0; !keep && i < files->files_count; i++)
			keep = !strcmp(files->files[i].name, e->d_name);
		if (keep)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			unlink(path);
		free(path);
	}
	closedir(d);
}

int conf_files_write(const char *dir, const struct conf_files *files,
                     struct rota_error *err)
{
	int rc;

	if (!files->files_count || strcmp(files->files[0].name, "slurm.conf"))
		return errprintf(err, "the answer does not start with slurm.conf"),
		       -EPROTO;
	for (size_t i = 0; i < files->files_count; i++)
		if (!conf_file_name_ok(files->files[i].name) || !files->files[i].text)
			return errprintf(err, "bad file name '%.64s' in the answer",
			                 files->files[i].name ? files->files[i].name
			                                      : ""),
			       -EPROTO;
	if ((rc = mkdirs(dir)) < 0)
		return errprintf(err, "create %s: %s", dir, strerror(-rc)), rc;
	for (size_t i = 0; i < files->files_count; i++) {
		char *path = xasprintf("%s/%s", dir, files->files[i].name);
		char *slash = strrchr(path, '/');

		*slash = '\0';
		rc = mkdirs(path);
		*slash = '/';
		if (rc < 0)
			errprintf(err, "create the directory of %s: %s", path,
			          strerror(-rc));
		else
			rc = file_write_atomic(path, files->files[i].text, err);
		free(path);
		if (rc < 0)
			return rc;
	}
	stale_remove(dir, files);
	return 0;
}

int conf_files_link(const char *link_path, const char *dir, struct rota_error *err)
{
	char *dup = xstrdup(link_path), *parent = dirname(dup);
	char *tmp = xasprintf("%s.tmp.%d", link_path, (int)getpid());
	int rc = mkdirs(parent);

	if (rc < 0) {
		errprintf(err, "create %s: %s", parent, strerror(-rc));
		goto out;
	}
	unlink(tmp);
	if (symlink(dir, tmp) < 0 || rename(tmp, link_path) < 0) {
		rc = -errno;
		errprintf(err, "link %s to %s: %s", link_path, dir, strerror(errno));
		unlink(tmp);
	}
out:
	free(tmp);
	free(dup);
	return rc;
}

void conf_files_digest(const struct conf_files *files, uint8_t out[32])
{
	struct sha256 c;

	sha256_init(&c);
	for (uint32_t i = 0; i < files->files_count; i++) {
		const char *parts[2] = {files->files[i].name, files->files[i].text};
		for (int k = 0; k < 2; k++) {
			uint64_t len = parts[k] ? strlen(parts[k]) : 0;
			sha256_update(&c, &len, sizeof(len));
			sha256_update(&c, parts[k] ? parts[k] : "", len);
		}
	}
	sha256_final(&c, out);
}
