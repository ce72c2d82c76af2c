#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "noded/spawner.h"
#include "common/log.h"
#include "common/common.h"

/* spawner -> rotad */
struct spawn_event {
	uint32_t job_id, step_id;
	int32_t pid;
	int32_t wstatus; /* -1: started (or failed to, pid < 0) */
};

/* The spawner's children: whose each pid is, to report its end. */
struct child {
	pid_t pid;
	uint32_t job_id, step_id;
};

struct spawner {
	struct spawner_opts o;
	int fd; /* rotad's end, -1 once the spawner is gone */
	pid_t pid;
	struct event *ev;
};

/* ---- in the spawner ---- */

static void send_event(int fd, uint32_t job, uint32_t step, pid_t pid, int wstatus)
{
	struct spawn_event e = {job, step, (int32_t)pid, (int32_t)wstatus};

	while (send(fd, &e, sizeof(e), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

static void reap(int fd, struct child **kids, size_t *nkids)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (size_t i = 0; i < *nkids; i++) {
			if ((*kids)[i].pid != pid)
				continue;
			send_event(fd, (*kids)[i].job_id, (*kids)[i].step_id, pid,
			           status);
			(*kids)[i] = (*kids)[--*nkids];
			break;
		}
	}
}

/* One request: a spawn_req and a descriptor.  Returns 0, or -1 at EOF. */
static int serve_one(int fd, const struct spawner_opts *o, struct spawn_req *req,
                     struct child **kids, size_t *nkids, size_t *cap)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {req, sizeof(*req)};
	struct msghdr mh = {.msg_iov = &iov,
	                    .msg_iovlen = 1,
	                    .msg_control = cbuf,
	                    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	int child_fd = -1;
	ssize_t n;
	pid_t pid;

	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&child_fd, CMSG_DATA(cm), sizeof(int));
	if (child_fd < 0 || (size_t)n < offsetof(struct spawn_req, gids) ||
	    req->ngids > SPAWN_MAX_GIDS ||
	    (size_t)n < offsetof(struct spawn_req, gids) + req->ngids * sizeof(gid_t)) {
		if (child_fd >= 0)
			close(child_fd);
		return 0; /* not from rotad as it is built: nothing to answer */
	}
	req->user[SPAWN_USER_MAX - 1] = '\0';
	if (*nkids == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*kids = xrealloc(*kids, *cap * sizeof(**kids));
	}
	pid = fork();
	if (pid == 0) {
		close(fd);
		o->child(o->arg, child_fd, req); /* never returns */
		_exit(127);
	}
	close(child_fd);
	if (pid < 0) {
		send_event(fd, req->job_id, req->step_id, -errno, -1);
		return 0;
	}
	(*kids)[(*nkids)++] = (struct child){pid, req->job_id, req->step_id};
	send_event(fd, req->job_id, req->step_id, pid, -1);
	return 0;
}

static void spawner_title(const struct spawner_opts *o)
{
	if (o->title && o->title_len > 1) {
		memset(o->title, 0, o->title_len);
		snprintf(o->title, o->title_len - 1, "rotad: spawner");
	}
	prctl(PR_SET_NAME, "rotad-spawner", 0, 0, 0);
}

/* The spawner's loop; never returns. */
static void spawner_main(int fd, const struct spawner_opts *o)
{
	struct spawn_req *req = xcalloc(1, sizeof(*req));
	struct child *kids = NULL;
	size_t nkids = 0, cap = 0;
	struct pollfd pfd[2];
	sigset_t chld;

	/* rotad's libevent handlers are not ours: default actions, but SIGCHLD
	 * read from a signalfd; SIGPIPE is ignored (rotad gone: send fails) */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_SETMASK, &chld, NULL);
	pfd[0] = (struct pollfd){.fd = fd, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK),
	                         .events = POLLIN};
	if (pfd[1].fd < 0)
		_exit(1);
	spawner_title(o);
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (pfd[1].revents) {
			struct signalfd_siginfo si;
			while (read(pfd[1].fd, &si, sizeof(si)) > 0)
				;
			reap(fd, &kids, &nkids);
		}
		if (pfd[0].revents && serve_one(fd, o, req, &kids, &nkids, &cap) < 0)
			_exit(0); /* rotad is gone; the step daemons go on */
	}
}

/* ---- in rotad ---- */

static void on_event(evutil_socket_t fd, short what, void *arg)
{
	struct spawner *s = arg;
	struct spawn_event e;
	ssize_t n;

	for (;;) {
		n = recv(fd, &e, sizeof(e), MSG_DONTWAIT);
		if (n == (ssize_t)sizeof(e)) {
			s->o.event(s->o.arg, e.job_id, e.step_id, e.pid, e.wstatus);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n > 0)
			continue; /* not a spawn_event: ignored */
		log_err(
		    "the step daemon spawner (pid %d) is gone: rotad forks them itself",
		    (int)s->pid);
		event_del(s->ev);
		close(s->fd);
		s->fd = -1;
		s->o.event(s->o.arg, 0, 0, 0, SPAWNER_GONE);
		return;
	}
}

struct spawner *spawner_create(struct event_base *base, const struct spawner_opts *o)
{
	struct spawner *s;
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return NULL;
	pid = fork();
	if (pid == 0) {
		log_forget_file(); /* rotad's; errors go to stderr */
		if (dup2(sv[1], 3) < 0 || close_range(4, ~0U, 0) < 0)
			_exit(1);
		spawner_main(3, o);
	}
	close(sv[1]);
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		errno = e;
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->o = *o;
	s->fd = sv[0];
	s->pid = pid;
	evutil_make_socket_nonblocking(s->fd);
	s->ev = event_new(base, s->fd, EV_READ | EV_PERSIST, on_event, s);
	if (!s->ev || event_add(s->ev, NULL) < 0)
		fatal("cannot watch the spawner's socket");
	return s;
}

void spawner_destroy(struct spawner *s)
{
	if (!s)
		return;
	if (s->ev)
		event_free(s->ev);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

int spawner_alive(const struct spawner *s)
{
	return s && s->fd >= 0;
}

int spawner_spawn(struct spawner *s, const struct spawn_req *req, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {(void *)req, offsetof(struct spawn_req, gids) +
	                                     req->ngids * sizeof(gid_t)};
	struct msghdr mh = {.msg_iov = &iov,
	                    .msg_iovlen = 1,
	                    .msg_control = cbuf,
	                    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	if (!spawner_alive(s))
		return -ENOTCONN;
	if (req->ngids > SPAWN_MAX_GIDS)
		return -EINVAL;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	while (sendmsg(s->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}
