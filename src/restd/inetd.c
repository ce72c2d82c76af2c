/* inetd.c - rotarestd with nothing to listen on: one client on standard
 * input and output, as slurmrestd's inetd mode (inetd, xinetd, systemd's
 * Accept=yes, a pipe).  libevent's HTTP server serves only connections it
 * accepts itself, so the bytes are carried between fds 0/1 and a
 * connection to a private listener (an abstract unix socket the kernel
 * names) that it serves; the listener goes once that connection is in.
 *
 * Who asks: a unix socket's peer on stdin; on a TCP socket, the token's
 * user; through a pipe or a terminal, the user running rotarestd.  It
 * exits once the client has gone: its connection ended, or its input
 * ended and every answer has been written. */
#include <errno.h>
#include <fcntl.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "restd/restd.h"
#include "common/common.h"

#define QUIET_TICK_US 20000      /* how often an ended input looks for the end */
#define FILE_IN_MAX   (16 << 20) /* what is read of a file on stdin */

struct inetd {
	struct restd *r;
	struct bufferevent *in, *out; /* fds 0 and 1; NULL: a file, read or
	                               * written at once (epoll takes no files) */
	struct bufferevent *peer;     /* to evhttp, through the private listener */
	struct event *quiet;          /* input ended: waiting for the answers */
	int in_done;
	int flags[2]; /* fds 0 and 1's, given back at the end (shared with
	               * whoever else has them: a terminal, say) */
};

static void stop(struct inetd *d)
{
	event_base_loopexit(d->r->base, NULL);
}

static int unread(int fd)
{
	int n = 0;

	return fd >= 0 && ioctl(fd, FIONREAD, &n) == 0 ? n : 0;
}

/* Can epoll watch fd?  Not a regular file, nor /dev/null. */
static int pollable(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
	                               (S_ISCHR(st.st_mode) && isatty(fd)));
}

/* What evhttp wrote, to the client. */
static void to_out(struct inetd *d, struct evbuffer *from)
{
	if (d->out) {
		bufferevent_write_buffer(d->out, from);
		return;
	}
	while (evbuffer_get_length(from))
		if (evbuffer_write(from, 1) < 0 && errno != EINTR) {
			evbuffer_drain(from, evbuffer_get_length(from));
			stop(d);
		}
}

static size_t out_pending(const struct inetd *d)
{
	return d->out ? evbuffer_get_length(bufferevent_get_output(d->out)) : 0;
}

static void quiet_cb(evutil_socket_t fd, short what, void *arg)
{
	struct inetd *d = arg;

	if (evbuffer_get_length(bufferevent_get_output(d->peer)) ||
	    evbuffer_get_length(bufferevent_get_input(d->peer)) ||
	    unread((int)bufferevent_getfd(d->peer)) || out_pending(d) ||
	    !restd_conns_idle(d->r))
		return;
	stop(d);
}

static void input_ended(struct inetd *d)
{
	struct timeval tick = {0, QUIET_TICK_US};

	/* no half-close towards evhttp: it would drop the answers */
	d->in_done = 1;
	event_add(d->quiet, &tick);
}

/* A file on stdin: all of it (up to FILE_IN_MAX) at once. */
static void read_file_in(struct inetd *d)
{
	struct evbuffer *b = evbuffer_new();
	size_t total = 0;
	int n;

	if (!b)
		fatal("out of memory");
	while (total < FILE_IN_MAX && (n = evbuffer_read(b, 0, 65536)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		total += (size_t)n;
	}
	bufferevent_write_buffer(d->peer, b);
	evbuffer_free(b);
	input_ended(d);
}

static void in_read(struct bufferevent *bev, void *arg)
{
	struct inetd *d = arg;

	bufferevent_write_buffer(d->peer, bufferevent_get_input(bev));
}

static void in_event(struct bufferevent *bev, short what, void *arg)
{
	struct inetd *d = arg;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) || d->in_done)
		return;
	bufferevent_disable(bev, EV_READ);
	input_ended(d);
}

static void peer_read(struct bufferevent *bev, void *arg)
{
	to_out(arg, bufferevent_get_input(bev));
}

static void out_written(struct bufferevent *bev, void *arg)
{
	stop(arg);
}

static void peer_event(struct bufferevent *bev, short what, void *arg)
{
	struct inetd *d = arg;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	/* evhttp ended the connection: what it wrote goes out, then stop */
	to_out(d, bufferevent_get_input(bev));
	bufferevent_disable(bev, EV_READ);
	if (!out_pending(d))
		stop(d);
	else
		bufferevent_setcb(d->out, NULL, out_written, NULL, d);
}

static void out_event(struct bufferevent *bev, short what, void *arg)
{
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		stop(arg); /* nobody reads the answers */
}

/* Who asks through stdin: its peer, nobody (a token), or this process's
 * user. */
static void stdin_who(struct restd *r)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss), clen = sizeof(r->inetd_cred);

	struct stat s0, s2;
	int null;

	/* inetd gives the socket as stderr too: the log must not go to the
	 * client */
	if (fstat(0, &s0) == 0 && fstat(2, &s2) == 0 && S_ISSOCK(s0.st_mode) &&
	    s0.st_dev == s2.st_dev && s0.st_ino == s2.st_ino &&
	    (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0) {
		dup2(null, 2);
		close(null);
	}
	r->inetd = 1;
	r->inetd_cred.pid = getpid();
	r->inetd_cred.uid = getuid();
	r->inetd_cred.gid = getgid();
	r->inetd_local = 1;
	if (getsockname(0, (struct sockaddr *)&ss, &len) < 0)
		return; /* a pipe, a terminal, a file */
	if (ss.ss_family == AF_UNIX &&
	    getsockopt(0, SOL_SOCKET, SO_PEERCRED, &r->inetd_cred, &clen) == 0)
		return;
	r->inetd_local = 0; /* TCP: a token says who */
}

/* The private listener, served by evhttp; its address in *sa, *salen. */
static int private_listener(struct restd *r, struct sockaddr_un *sa, socklen_t *salen)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	sa->sun_family = AF_UNIX;
	*salen = sizeof(*sa);
	/* an address of sun_family alone: the kernel picks an abstract name */
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof(sa_family_t)) < 0 ||
	    listen(fd, 1) < 0 || getsockname(fd, (struct sockaddr *)sa, salen) < 0) {
		log_err("inetd mode: cannot make a private listener: %s",
		        strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	r->inetd_bound = evhttp_accept_socket_with_handle(r->http, fd);
	if (!r->inetd_bound) {
		close(fd);
		return -1;
	}
	return 0;
}

int restd_inetd(struct restd *r)
{
	struct inetd *d = xcalloc(1, sizeof(*d));
	struct sockaddr_un sa;
	socklen_t salen;
	int fd;

	stdin_who(r);
	if (private_listener(r, &sa, &salen) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, salen) < 0) {
		log_err("inetd mode: cannot connect to the private listener: %s",
		        strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	evutil_make_socket_nonblocking(fd);
	d->r = r;
	d->flags[0] = fcntl(0, F_GETFL);
	d->flags[1] = fcntl(1, F_GETFL);
	d->peer = bufferevent_socket_new(r->base, fd, BEV_OPT_CLOSE_ON_FREE);
	d->quiet = event_new(r->base, -1, EV_PERSIST, quiet_cb, d);
	if (!d->peer || !d->quiet)
		fatal("out of memory");
	bufferevent_setcb(d->peer, peer_read, NULL, peer_event, d);
	bufferevent_enable(d->peer, EV_READ);
	if (pollable(1)) {
		evutil_make_socket_nonblocking(1);
		if (!(d->out = bufferevent_socket_new(r->base, 1, 0)))
			fatal("out of memory");
		bufferevent_setcb(d->out, NULL, NULL, out_event, d);
		bufferevent_enable(d->out, EV_WRITE);
	}
	r->inetd_state = d;
	if (!pollable(0)) {
		read_file_in(d);
		return 0;
	}
	evutil_make_socket_nonblocking(0);
	if (!(d->in = bufferevent_socket_new(r->base, 0, 0)))
		fatal("out of memory");
	bufferevent_setcb(d->in, in_read, NULL, in_event, d);
	bufferevent_enable(d->in, EV_READ);
	return 0;
}

void restd_inetd_stop(struct restd *r)
{
	struct inetd *d = r->inetd_state;

	if (!d)
		return;
	if (d->in)
		bufferevent_free(d->in);
	if (d->out)
		bufferevent_free(d->out);
	bufferevent_free(d->peer);
	event_free(d->quiet);
	for (int fd = 0; fd < 2; fd++)
		if (d->flags[fd] >= 0)
			fcntl(fd, F_SETFL, d->flags[fd]);
	free(d);
	r->inetd_state = NULL;
}
