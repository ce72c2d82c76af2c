#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "proto/conn.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "common/common.h"

struct conn {
	struct bufferevent *bev;
	char *name;
	conn_msg_f on_msg;
	conn_close_f on_close;
	void *arg;
	void *data;
	uid_t uid;
	gid_t gid;
	int in_callback;
	int dead;
	int closing; /* close once output drains */
};

static void conn_free(struct conn *c)
{
	bufferevent_free(c->bev);
	free(c->name);
	free(c);
}

static void conn_fail(struct conn *c)
{
	conn_close_f cb = c->on_close;
	if (c->dead)
		return;
	c->dead = 1;
	c->in_callback++;
	if (cb)
		cb(c, c->arg);
	c->in_callback--;
	if (!c->in_callback)
		conn_free(c);
}

/* Returns 1 if a frame was consumed, 0 if more bytes are needed, -1 on error. */
static int conn_read_one(struct conn *c, struct evbuffer *in)
{
	struct rota_error err = {""};
	uint8_t hdr[FRAME_HDR_LEN];
	uint16_t type;
	uint32_t len;
	void *body = NULL;
	char *data;

	if (evbuffer_get_length(in) < FRAME_HDR_LEN)
		return 0;
	evbuffer_copyout(in, hdr, FRAME_HDR_LEN);
	if (frame_parse_header(hdr, &type, &len, &err) < 0) {
		log_err("refused frame from %s: %s", c->name, err.text);
		return -1;
	}
	if (evbuffer_get_length(in) < FRAME_HDR_LEN + (size_t)len) {
		/* ask libevent to wake us only when the whole frame is here */
		bufferevent_setwatermark(c->bev, EV_READ, FRAME_HDR_LEN + (size_t)len, 0);
		return 0;
	}
	bufferevent_setwatermark(c->bev, EV_READ, 0, 0);
	evbuffer_drain(in, FRAME_HDR_LEN);
	data = (char *)evbuffer_pullup(in, len);
	if (frame_decode_body(type, data, len, &body, &err) < 0) {
		log_err("refused %s from %s: %s", msg_name(type), c->name, err.text);
		return -1;
	}
	evbuffer_drain(in, len);
	c->on_msg(c, type, &body, c->arg);
	msg_body_free(type, body);
	return 1;
}

static void conn_read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	int rc;

	c->in_callback++;
	while (!c->dead && !c->closing && (rc = conn_read_one(c, in)) > 0)
		;
	c->in_callback--;
	if (c->dead) {
		if (!c->in_callback)
			conn_free(c);
		return;
	}
	if (rc < 0)
		conn_fail(c);
}

static void conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	if (c->closing && !evbuffer_get_length(bufferevent_get_output(bev))) {
		c->dead = 1;
		if (!c->in_callback)
			conn_free(c);
	}
}

static void conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		if (c->closing) {
			c->dead = 1;
			if (!c->in_callback)
				conn_free(c);
			return;
		}
		conn_fail(c);
	}
}

struct conn *conn_create(struct event_base *base, int fd, const char *name,
                         conn_msg_f on_msg, conn_close_f on_close, void *arg)
{
	struct conn *c = xcalloc(1, sizeof(*c));
	struct ucred cred;
	socklen_t cl = sizeof(cred);

	evutil_make_socket_nonblocking(fd);
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev)
		fatal("bufferevent_socket_new failed");
	c->name = xstrdup(name);
	c->on_msg = on_msg;
	c->on_close = on_close;
	c->arg = arg;
	c->uid = (uid_t)-1;
	c->gid = (gid_t)-1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0 && cred.pid > 0) {
		c->uid = cred.uid;
		c->gid = cred.gid;
	}
	bufferevent_setcb(c->bev, conn_read_cb, conn_write_cb, conn_event_cb, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	return c;
}

int conn_send(struct conn *c, uint16_t type, const void *body)
{
	char *buf;
	size_t len;
	int rc;

	if (c->dead)
		return -EPIPE;
	rc = frame_pack(type, body, &buf, &len);
	if (rc < 0) {
		log_err("cannot encode %s for %s", msg_name(type), c->name);
		return rc;
	}
	rc = bufferevent_write(c->bev, buf, len);
	free(buf);
	return rc < 0 ? -ENOMEM : 0;
}

int conn_send_rc(struct conn *c, int rc, const char *msg)
{
	struct rc_msg m = {.rc = rc, .msg = (char *)msg};
	return conn_send(c, MSG_RC, &m);
}

void conn_write_now(struct conn *c)
{
	struct evbuffer *out;

	if (c->dead || c->closing) /* closing: its write callback closes it */
		return;
	out = bufferevent_get_output(c->bev);
	/* a socket bufferevent keeps the start of its output frozen but for its
	 * own writes: thaw it for ours */
	evbuffer_unfreeze(out, 1);
	while (evbuffer_get_length(out) > 0 &&
	       evbuffer_write(out, bufferevent_getfd(c->bev)) > 0)
		;
	evbuffer_freeze(out, 1);
}

void conn_close(struct conn *c)
{
	if (c->dead)
		return;
	c->dead = 1;
	if (!c->in_callback)
		conn_free(c);
}

void conn_close_after_flush(struct conn *c)
{
	if (c->dead)
		return;
	c->closing = 1;
	bufferevent_disable(c->bev, EV_READ);
	if (!evbuffer_get_length(bufferevent_get_output(c->bev)))
		conn_close(c);
}

void conn_set_handlers(struct conn *c, conn_msg_f on_msg, conn_close_f on_close,
                       void *arg)
{
	c->on_msg = on_msg;
	c->on_close = on_close;
	c->arg = arg;
}

uid_t conn_uid(const struct conn *c)
{
	return c->uid;
}

gid_t conn_gid(const struct conn *c)
{
	return c->gid;
}

void conn_set_identity(struct conn *c, uid_t uid, gid_t gid)
{
	c->uid = uid;
	c->gid = gid;
}

const char *conn_name(const struct conn *c)
{
	return c->name;
}

void conn_set_data(struct conn *c, void *data)
{
	c->data = data;
}

void *conn_data(const struct conn *c)
{
	return c->data;
}

size_t conn_pending_output(const struct conn *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}
