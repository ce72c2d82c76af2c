#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "proto/codec.h"
#include "noded/here_file.h"
#include "common/common.h"

#define HERE_FILE_MAX (1u << 20) /* bytes: the job-wide fields only */

static void here_name(uint32_t job_id, char *buf, size_t len)
{
	snprintf(buf, len, "job%u.here", job_id);
}

int here_file_write(const struct launch_req *req)
{
	struct launch_req c = *req;
	char name[32], tmp[40], *buf = NULL;
	size_t len = 0;
	ssize_t w;
	int fd, rc = 0;

	/* the job's, not this launch's bulk */
	c.script = NULL;
	c.argv = NULL;
	c.env = NULL;
	c.het_env = NULL;
	c.node_gres_devs = NULL;
	c.node_gres_devs_count = 0;
	c.cred_sig = (struct rota_bin){0};
	c.io_key = (struct rota_bin){0};
	if (codec_encode(&launch_req_type, &c, &buf, &len) < 0)
		return -ENOMEM;
	here_name(req->job_id, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	w = write(fd, buf, len);
	if (w != (ssize_t)len)
		rc = w < 0 ? -errno : -EIO;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, name) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	free(buf);
	return rc;
}

void here_file_remove(uint32_t job_id)
{
	char name[32];

	here_name(job_id, name, sizeof(name));
	unlink(name);
}

/* One file: decoded into *req (zeroed by the caller); 0 or -1. */
static int here_read(const char *name, struct launch_req *req)
{
	struct rota_error err = {""};
	struct stat sb;
	char *buf;
	ssize_t got;
	int fd = open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
	    sb.st_size <= HERE_FILE_MAX) {
		buf = xmalloc((size_t)sb.st_size);
		got = read(fd, buf, (size_t)sb.st_size);
		if (got == sb.st_size &&
		    codec_decode(&launch_req_type, buf, (size_t)got, req, &err) == 0)
			rc = 0;
		free(buf);
	}
	close(fd);
	return rc;
}

void here_file_each(void (*fn)(void *arg, const struct launch_req *req),
                    int (*keep)(void *arg, uint32_t job_id), void *arg)
{
	DIR *d = opendir(".");
	struct dirent *e;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct launch_req req = {0};
		struct stat sb;
		unsigned job;
		int end = 0;

		if (sscanf(e->d_name, "job%u.here%n", &job, &end) != 1 ||
		    e->d_name[end] != '\0')
			continue;
		if (here_read(e->d_name, &req) < 0 || req.job_id != job) {
			log_warn("spool: %s cannot be read: removed", e->d_name);
			unlink(e->d_name);
		} else if (stat(e->d_name, &sb) == 0 &&
		           now - sb.st_mtime > HERE_FILE_STALE_S && !keep(arg, job)) {
			unlink(e->d_name);
		} else {
			fn(arg, &req);
		}
		codec_release(&launch_req_type, &req);
	}
	closedir(d);
}
