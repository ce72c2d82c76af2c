/* names.c - the cluster's node names for the step's processes (stepd.h).
 *
 * The file is rendered by every step daemon (cheap: the host's /etc/hosts and
 * one line per node) but written only when its text changed, by rename, so
 * the steps of one node share it and a step that raced a reconfigure keeps
 * the file it bound. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/hostsfile.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "stepd/stepd.h"
#include "common/common.h"

#define HOSTS_PATH "/etc/hosts"
#define HOSTS_MAX  (4 << 20) /* larger than any /etc/hosts we bother with */

/* Whether the node names need our help here (1, with the hostsfile flags in
 * *ret_flags) or not (0). */
static int names_wanted(const struct stepd *st, unsigned *ret_flags)
{
	const struct conf_node *n = conf_node_find(st->conf, st->req->node_name);
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;

	if (!st->as_root || !n)
		return 0;
	if (hostsfile_is_loopback(n->addr)) { /* a virtual node: rota up */
		*ret_flags = HOSTSFILE_F_LOCAL;
		return 1;
	}
	/* a real node whose own name resolves: the site's resolver knows them */
	if (getaddrinfo(n->name, NULL, &hints, &ai) == 0) {
		freeaddrinfo(ai);
		return 0;
	}
	*ret_flags = 0;
	return 1;
}

/* path's text, at most HOSTS_MAX bytes; NULL (errno set) when unreadable. */
static char *read_small(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 8192;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap + 1);
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap && cap < HOSTS_MAX)
			buf = xrealloc(buf, (cap *= 2) + 1);
		else if (len == cap)
			break;
	}
	close(fd);
	if (n < 0 || len == cap) {
		free(buf);
		errno = n < 0 ? errno : EFBIG;
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* <spool>/etc_hosts holding text, written unless it already does. */
static int write_hosts(const char *path, const char *text)
{
	char *old = read_small(path), *tmp;
	int fd, rc = 0;

	if (old && !strcmp(old, text)) {
		free(old);
		return 0;
	}
	free(old);
	tmp = xasprintf("%s.%ld", path, (long)getpid());
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fchmod(fd, 0644) < 0)
		rc = -errno;
	else if ((rc = net_write_all(fd, text, strlen(text))) == 0 && fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0 && close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

void names_setup(const struct stepd *st)
{
	char *base = NULL, *text = NULL, *path = NULL;
	const char *what = "";
	unsigned flags = 0;
	int rc;

	if (!names_wanted(st, &flags))
		return;
	path = xasprintf("%s/etc_hosts", st->spool);
	if (!(base = read_small(HOSTS_PATH)) && errno != ENOENT)
		what = "read " HOSTS_PATH;
	else if (hostsfile_render(base, st->conf, flags, &text) < 0)
		fatal("out of memory");
	else if ((rc = write_hosts(path, text)) < 0) {
		errno = -rc;
		what = "write";
	} else if (unshare(CLONE_NEWNS) < 0)
		what = "unshare";
	/* slave: the host's later mounts (autofs homes) still reach the job,
	 * nothing of ours reaches the host */
	else if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		what = "make / a slave mount";
	else if (mount(path, HOSTS_PATH, NULL, MS_BIND, NULL) < 0)
		what = "bind " HOSTS_PATH;
	/* the steps of this node share the file: a root job must not write it */
	else if (mount(NULL, HOSTS_PATH, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) <
	         0)
		what = "remount " HOSTS_PATH " read-only";
	if (*what)
		log_debug("JobId=%u StepId=%u cannot name the nodes in %s: %s: %s",
		          st->req->job_id, st->req->step_id, path, what, strerror(errno));
	free(base);
	free(text);
	free(path);
}
