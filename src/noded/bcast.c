/* bcast.c - writing sbcast's blocks as the job's user (see bcast.h). */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "noded/bcast.h"
#include "noded/ctld_link.h"
#include "proto/messages.h"
#include "common/common.h"

struct write_job {
	struct ctld_link *link;
	struct event *ev;
	pid_t pid;
	uint32_t req_id;
};

/* The child: never returns; its errno (0: written) goes to fd. */
static void write_child(const struct file_bcast *req, int fd)
{
	struct stat sb;
	int err = 0, out = -1;
	int flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW;
	const uint8_t *p = req->data.data;
	size_t left = req->data.len;
	off_t off = (off_t)req->offset;

	signal(SIGPIPE, SIG_DFL);
	if (getuid() == 0 &&
	    (initgroups(req->user ? req->user : "", (gid_t)req->gid) < 0 ||
	     setgid((gid_t)req->gid) < 0 || setuid((uid_t)req->uid) < 0)) {
		err = errno ? errno : EPERM;
		goto out;
	}
	if ((req->flags & (BCAST_F_FIRST | BCAST_F_MKDIR)) ==
	    (BCAST_F_FIRST | BCAST_F_MKDIR)) {
		char *dir = strdup(req->path), *slash = dir ? strrchr(dir, '/') : NULL;
		if (slash && slash != dir) {
			*slash = '\0';
			if (mkdir(dir, 0700) < 0 && errno != EEXIST)
				err = errno;
		}
		free(dir);
		if (err)
			goto out;
	}
	if (req->flags & BCAST_F_FIRST) {
		/* -f truncates in place: several node daemons sharing one
		 * file system (or one host) may open the same path at once,
		 * and all write the same bytes */
		flags |= O_CREAT | ((req->flags & BCAST_F_FORCE) ? O_TRUNC : O_EXCL);
	}
	/* O_NONBLOCK: a FIFO put there does not hang the writer; a regular
	 * file only */
	if ((out = open(req->path, flags | O_NONBLOCK, 0700)) < 0) {
		err = errno;
		goto out;
	}
	if (fstat(out, &sb) < 0 ||
	    fcntl(out, F_SETFL, fcntl(out, F_GETFL) & ~O_NONBLOCK) < 0) {
		err = errno;
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		err = EINVAL;
		goto out;
	}
	while (left) {
		ssize_t n = pwrite(out, p, left, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			goto out;
		}
		p += n;
		left -= (size_t)n;
		off += n;
	}
	if ((req->flags & BCAST_F_LAST) && fchmod(out, (mode_t)(req->mode & 07777)) < 0)
		err = errno;
	if (!err && (req->flags & BCAST_F_LAST) && (req->flags & BCAST_F_PRESERVE)) {
		struct timespec ts[2] = {{.tv_sec = (time_t)req->atime},
		                         {.tv_sec = (time_t)req->mtime}};
		if (futimens(out, ts) < 0)
			err = errno;
	}
	if (close(out) < 0 && !err)
		err = errno;
out:
	while (write(fd, &err, sizeof(err)) < 0 && errno == EINTR)
		;
	_exit(0);
}

static void on_done(evutil_socket_t fd, short what, void *arg)
{
	struct write_job *w = arg;
	struct file_bcast_resp r = {.req_id = w->req_id};
	int err = 0;
	ssize_t n;

	while ((n = read(fd, &err, sizeof(err))) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(err))
		err = EIO; /* the child died before it could say */
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	r.rc = err;
	if (err)
		r.msg = strerror(err);
	ctld_link_reply(w->link, MSG_FILE_BCAST_RESP, &r);
	event_free(w->ev);
	close(fd);
	free(w);
}

void node_bcast_write(struct event_base *base, struct ctld_link *link,
                      const struct file_bcast *req)
{
	struct file_bcast_resp r = {.req_id = req->req_id};
	struct write_job *w;
	int pfd[2];

	if (!req->path || req->path[0] != '/' || req->data.len > FILE_BCAST_BLOCK_MAX) {
		r.rc = EINVAL;
		r.msg = strerror(EINVAL);
		ctld_link_reply(link, MSG_FILE_BCAST_RESP, &r);
		return;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		r.rc = errno;
		r.msg = strerror(errno);
		ctld_link_reply(link, MSG_FILE_BCAST_RESP, &r);
		return;
	}
	w = xcalloc(1, sizeof(*w));
	w->link = link;
	w->req_id = req->req_id;
	w->pid = fork();
	if (w->pid == 0) {
		close(pfd[0]);
		write_child(req, pfd[1]);
	}
	close(pfd[1]);
	if (w->pid < 0) {
		r.rc = errno;
		r.msg = strerror(errno);
		ctld_link_reply(link, MSG_FILE_BCAST_RESP, &r);
		close(pfd[0]);
		free(w);
		return;
	}
	w->ev = event_new(base, pfd[0], EV_READ, on_done, w);
	event_add(w->ev, NULL);
}
