#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "proto/frame.h"
#include "proto/messages.h"
#include "stepd/msglink.h"
#include "common/common.h"

#define MSGLINK_READ_CHUNK 65536

struct bytes {
	char *p;
	size_t off, len, cap; /* valid data is p[off..len) */
};

struct msglink {
	int fd;
	char *name;
	int paused;
	int dead;
	struct bytes in, out;
};

static void bytes_add(struct bytes *b, const void *data, size_t n)
{
	if (b->off && b->off == b->len)
		b->off = b->len = 0;
	if (b->len + n > b->cap) {
		if (b->off) { /* compact before growing */
			memmove(b->p, b->p + b->off, b->len - b->off);
			b->len -= b->off;
			b->off = 0;
		}
		while (b->len + n > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

struct msglink *msglink_create(int fd, const char *name)
{
	struct msglink *l = xcalloc(1, sizeof(*l));

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	l->fd = fd;
	l->name = xstrdup(name);
	return l;
}

void msglink_destroy(struct msglink *l)
{
	if (!l)
		return;
	close(l->fd);
	free(l->in.p);
	free(l->out.p);
	free(l->name);
	free(l);
}

int msglink_fd(const struct msglink *l)
{
	return l->fd;
}

short msglink_events(const struct msglink *l)
{
	short ev = l->paused ? 0 : POLLIN;
	if (l->out.len > l->out.off)
		ev |= POLLOUT;
	return ev;
}

void msglink_pause(struct msglink *l, int paused)
{
	l->paused = paused;
}

size_t msglink_pending(const struct msglink *l)
{
	return l->out.len - l->out.off;
}

int msglink_send(struct msglink *l, uint16_t type, const void *body)
{
	char *buf;
	size_t len;
	int rc;

	if (l->dead)
		return -EPIPE;
	rc = frame_pack(type, body, &buf, &len);
	if (rc < 0)
		return rc;
	bytes_add(&l->out, buf, len);
	free(buf);
	return 0;
}

static int msglink_write(struct msglink *l)
{
	while (l->out.len > l->out.off) {
		ssize_t n = send(l->fd, l->out.p + l->out.off, l->out.len - l->out.off,
		                 MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return -errno;
		l->out.off += (size_t)n;
	}
	l->out.off = l->out.len = 0;
	return 0;
}

/* Dispatch every whole frame in the input buffer. */
static int msglink_dispatch(struct msglink *l, msglink_msg_f on_msg, void *arg)
{
	struct rota_error err = {""};

	while (!l->dead && l->in.len - l->in.off >= FRAME_HDR_LEN) {
		const uint8_t *hdr = (const uint8_t *)l->in.p + l->in.off;
		uint16_t type;
		uint32_t blen;
		void *body = NULL;

		if (frame_parse_header(hdr, &type, &blen, &err) < 0) {
			log_err("refused frame from %s: %s", l->name, err.text);
			return -EPROTO;
		}
		if (l->in.len - l->in.off < FRAME_HDR_LEN + (size_t)blen)
			break;
		if (frame_decode_body(type, l->in.p + l->in.off + FRAME_HDR_LEN, blen,
		                      &body, &err) < 0) {
			log_err("refused %s from %s: %s", msg_name(type), l->name,
			        err.text);
			return -EPROTO;
		}
		l->in.off += FRAME_HDR_LEN + (size_t)blen;
		on_msg(l, type, body, arg);
		msg_body_free(type, body);
	}
	return 0;
}

static int msglink_read(struct msglink *l, msglink_msg_f on_msg, void *arg)
{
	char buf[MSGLINK_READ_CHUNK];
	ssize_t n;

	do
		n = recv(l->fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	bytes_add(&l->in, buf, (size_t)n);
	return msglink_dispatch(l, on_msg, arg);
}

int msglink_handle(struct msglink *l, short revents, msglink_msg_f on_msg, void *arg)
{
	int rc = 0;

	if (l->dead)
		return -EPIPE;
	if (revents & POLLOUT)
		rc = msglink_write(l);
	if (rc == 0 && (revents & (POLLIN | POLLHUP | POLLERR)) && !l->paused)
		rc = msglink_read(l, on_msg, arg);
	else if (rc == 0 && (revents & (POLLHUP | POLLERR)))
		rc = -ECONNRESET;
	if (rc < 0)
		l->dead = 1;
	return rc;
}

static long msglink_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

int msglink_flush(struct msglink *l, int timeout_ms)
{
	long deadline = msglink_now_ms() + timeout_ms;

	while (!l->dead && msglink_pending(l)) {
		struct pollfd p = {.fd = l->fd, .events = POLLOUT};
		long left = deadline - msglink_now_ms();
		int rc;

		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&p, 1, (int)left);
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc > 0 && msglink_write(l) < 0) {
			l->dead = 1;
			return -EPIPE;
		}
	}
	return l->dead ? -EPIPE : 0;
}
