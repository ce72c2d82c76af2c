#include <assert.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "proto/conn.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "common/common.h"
#include "common/ratelimit.h"
#include "common/states.h"
#include "common/timefmt.h"

/* Frames up to this size never wait for the budget (one read's worth). */
#define CONN_BUDGET_FREE (16u << 10)
/* A peer holding budget must keep sending: no byte for this long closes it. */
#define CONN_STALL_SEC 30
/* After a frame this large, hand freed memory back to the system. */
#define CONN_TRIM_AFTER (1u << 20)

struct conn_budget {
	int refs;
	size_t max, used;
	struct conn *wait_head, *wait_tail; /* FIFO of conns waiting for room */
};

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
	int closing;          /* close once output drains */
	uint32_t max_body;    /* 0: frame_max_body() of each type */
	conn_accept_f accept; /* NULL: every type */
	uint32_t discard;     /* bytes of a refused frame still to skip */
	struct conn_budget *budget;
	size_t reserved; /* budget bytes held for the frame being read */
	size_t want;     /* waiting: what the next frame needs */
	struct conn *wait_next;
	int waiting;
	struct event *deadline_ev;
	conn_timeout_f on_timeout;
	void *timeout_arg;
	size_t out_max; /* 0: no limit; else stop reading while more waits to go */
	int out_paused; /* reading stopped until the peer reads its replies */
};

/* Refusals can be provoked by anyone who can connect: log a few. */
static struct ratelimit refuse_log = RATELIMIT_INIT(10, 10);

static void log_refusal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_refusal(const char *fmt, ...)
{
	unsigned long held;
	char buf[512];
	va_list ap;

	if (!ratelimit_pass(&refuse_log, time_mono(), &held))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (held)
		log_err("%lu more frames refused (not logged)", held);
	log_err("%s", buf);
}

/* ---- input budget ---- */

struct conn_budget *conn_budget_create(size_t max)
{
	struct conn_budget *b = xcalloc(1, sizeof(*b));
	b->refs = 1;
	b->max = max;
	return b;
}

void conn_budget_unref(struct conn_budget *b)
{
	if (b && --b->refs == 0)
		free(b);
}

size_t conn_budget_used(const struct conn_budget *b)
{
	return b->used;
}

/* c now holds n bytes of budget (0: none): a stalled peer must not keep them. */
static void budget_hold(struct conn *c, size_t n)
{
	struct timeval tv = {CONN_STALL_SEC, 0};

	c->reserved = n;
	bufferevent_set_timeouts(c->bev, n ? &tv : NULL, NULL);
}

static int budget_fits(const struct conn_budget *b, size_t n)
{
	return b->used == 0 || b->used + n <= b->max;
}

static void budget_unwait(struct conn *c)
{
	struct conn_budget *b = c->budget;
	struct conn **pp = &b->wait_head, *prev = NULL;

	if (!c->waiting)
		return;
	while (*pp && *pp != c) {
		prev = *pp;
		pp = &(*pp)->wait_next;
	}
	if (*pp)
		*pp = c->wait_next;
	if (b->wait_tail == c)
		b->wait_tail = prev;
	c->wait_next = NULL;
	c->waiting = 0;
}

/* Give c's reservation back and let waiting conns in, oldest first, while
 * their frames fit. */
static void budget_release(struct conn *c)
{
	struct conn_budget *b = c->budget;
	struct conn *w;

	if (!b || !c->reserved)
		return;
	b->used -= c->reserved;
	budget_hold(c, 0);
	while ((w = b->wait_head) && budget_fits(b, w->want)) {
		budget_unwait(w);
		b->used += w->want;
		budget_hold(w, w->want);
		if (w->out_paused)
			continue; /* its write callback resumes it */
		bufferevent_enable(w->bev, EV_READ);
		/* what it already holds may complete the frame */
		bufferevent_trigger(w->bev, EV_READ,
		                    BEV_TRIG_IGNORE_WATERMARKS |
		                        BEV_TRIG_DEFER_CALLBACKS);
	}
}

/* Reserve room for a frame of n bytes; 0 if c must wait (reading stops). */
static int budget_reserve(struct conn *c, size_t n)
{
	struct conn_budget *b = c->budget;

	if (!b || c->reserved || n <= CONN_BUDGET_FREE)
		return 1;
	if (!b->wait_head && budget_fits(b, n)) {
		b->used += n;
		budget_hold(c, n);
		return 1;
	}
	if (!c->waiting) {
		c->want = n;
		c->waiting = 1;
		if (b->wait_tail)
			b->wait_tail->wait_next = c;
		else
			b->wait_head = c;
		b->wait_tail = c;
	}
	bufferevent_disable(c->bev, EV_READ);
	return 0;
}

static void conn_free(struct conn *c)
{
	if (c->budget) {
		budget_unwait(c);
		budget_release(c);
		conn_budget_unref(c->budget);
	}
	if (c->deadline_ev)
		event_free(c->deadline_ev);
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

/* Skip what arrived of a refused frame; 1 when it is all gone. */
static int conn_skip(struct conn *c, struct evbuffer *in)
{
	size_t n = evbuffer_get_length(in);

	if (n > c->discard)
		n = c->discard;
	evbuffer_drain(in, n);
	c->discard -= (uint32_t)n;
	return c->discard == 0;
}

/* A frame over the limit or of a type not served here: an authenticated peer
 * is told (rc, in Slurm's words) and the body skipped as it comes, without
 * buffering it; anyone else is cut off. */
static int conn_refuse(struct conn *c, struct evbuffer *in, uint32_t len, int rc)
{
	if (c->uid == (uid_t)-1)
		return -1;
	evbuffer_drain(in, FRAME_HDR_LEN);
	c->discard = len;
	conn_send_rc(c, rc, NULL);
	return conn_skip(c, in);
}

/* Returns 1 if a frame was consumed, 0 if more bytes are needed, -1 on error. */
static int conn_read_one(struct conn *c, struct evbuffer *in)
{
	struct rota_error err = {""};
	uint8_t hdr[FRAME_HDR_LEN];
	uint16_t type;
	uint32_t len, max;
	void *body = NULL;
	char *data;

	if (c->discard)
		return conn_skip(c, in);
	if (evbuffer_get_length(in) < FRAME_HDR_LEN)
		return 0;
	evbuffer_copyout(in, hdr, FRAME_HDR_LEN);
	if (frame_parse_header(hdr, &type, &len, &err) < 0) {
		log_refusal("refused frame from %s: %s", c->name, err.text);
		return -1;
	}
	if (c->accept && !c->accept(type)) {
		log_refusal("refused %s from %s: not served here", msg_name(type),
		            c->name);
		return conn_refuse(c, in, len, ESLURM_NOT_SUPPORTED);
	}
	max = c->max_body ? c->max_body : frame_max_body(type);
	if (len > max) {
		log_refusal("refused %s of %u bytes from %s: limit %u", msg_name(type),
		            len, c->name, max);
		return conn_refuse(c, in, len, ESLURM_PATHNAME_TOO_LONG);
	}
	if (evbuffer_get_length(in) < FRAME_HDR_LEN + (size_t)len) {
		if (!budget_reserve(c, FRAME_HDR_LEN + (size_t)len))
			return 0;
		/* ask libevent to wake us only when the whole frame is here */
		bufferevent_setwatermark(c->bev, EV_READ, FRAME_HDR_LEN + (size_t)len, 0);
		return 0;
	}
	bufferevent_setwatermark(c->bev, EV_READ, 0, 0);
	evbuffer_drain(in, FRAME_HDR_LEN);
	data = (char *)evbuffer_pullup(in, len);
	if (frame_decode_body(type, data, len, &body, &err) < 0) {
		log_refusal("refused %s from %s: %s", msg_name(type), c->name, err.text);
		return -1;
	}
	evbuffer_drain(in, len);
	budget_release(c);
	c->on_msg(c, type, &body, c->arg);
	msg_body_free(type, body);
	if (len >= CONN_TRIM_AFTER)
		malloc_trim(0); /* the frame, its copy and its decoding are freed */
	return 1;
}

static void conn_read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	int rc = 0;

	c->in_callback++;
	while (!c->dead && !c->closing && !c->out_paused &&
	       (rc = conn_read_one(c, in)) > 0) {
		/* a peer that does not read its replies gets no more of them */
		if (c->out_max &&
		    evbuffer_get_length(bufferevent_get_output(bev)) > c->out_max) {
			c->out_paused = 1;
			bufferevent_disable(bev, EV_READ);
		}
	}
	c->in_callback--;
	if (c->dead) {
		if (!c->in_callback)
			conn_free(c);
		return;
	}
	if (rc < 0)
		conn_fail(c);
}

/* The replies a paused peer had waiting are written: serve what it sent
 * meanwhile. */
static void out_resume(struct conn *c)
{
	if (!c->out_paused || c->closing || c->dead ||
	    evbuffer_get_length(bufferevent_get_output(c->bev)))
		return;
	c->out_paused = 0;
	if (c->waiting)
		return; /* budget_release() resumes it */
	bufferevent_enable(c->bev, EV_READ);
	bufferevent_trigger(c->bev, EV_READ,
	                    BEV_TRIG_IGNORE_WATERMARKS | BEV_TRIG_DEFER_CALLBACKS);
}

static void conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	if (c->closing && !evbuffer_get_length(bufferevent_get_output(bev))) {
		c->dead = 1;
		if (!c->in_callback)
			conn_free(c);
		return;
	}
	/* the callback runs when the output is empty */
	out_resume(c);
}

static void conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;
	if (what & BEV_EVENT_TIMEOUT) {
		log_refusal("%s sent nothing of a %zu-byte frame for %d s", c->name,
		            c->reserved, CONN_STALL_SEC);
		what |= BEV_EVENT_ERROR;
	}
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
	/* emptied here, the write callback will not run for it */
	out_resume(c);
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

void conn_set_budget(struct conn *c, struct conn_budget *b)
{
	assert(!c->budget && b);
	b->refs++;
	c->budget = b;
}

void conn_set_out_max(struct conn *c, size_t max)
{
	c->out_max = max;
}

void conn_set_max_body(struct conn *c, uint32_t max)
{
	c->max_body = max;
}

void conn_set_accept(struct conn *c, conn_accept_f accept)
{
	c->accept = accept;
}

static void conn_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	conn_timeout_f cb = c->on_timeout;

	if (c->dead || !cb)
		return;
	c->on_timeout = NULL;
	c->in_callback++;
	cb(c, c->timeout_arg);
	c->in_callback--;
	if (c->dead && !c->in_callback)
		conn_free(c);
}

void conn_set_deadline(struct conn *c, double secs, conn_timeout_f cb, void *arg)
{
	struct timeval tv;

	if (!cb) {
		c->on_timeout = NULL;
		if (c->deadline_ev)
			event_del(c->deadline_ev);
		return;
	}
	if (!c->deadline_ev)
		c->deadline_ev =
		    evtimer_new(bufferevent_get_base(c->bev), conn_deadline_cb, c);
	if (!c->deadline_ev)
		fatal("out of memory");
	c->on_timeout = cb;
	c->timeout_arg = arg;
	tv.tv_sec = (time_t)secs;
	tv.tv_usec = (suseconds_t)((secs - (double)tv.tv_sec) * 1e6);
	evtimer_add(c->deadline_ev, &tv);
}

size_t conn_pending_output(const struct conn *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}
