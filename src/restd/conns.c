/* conns.c - the clients' connections (restd.h): at most r->max_conns at a
 * time (at the limit the listeners stop accepting, and new clients wait in
 * the kernel's backlog until one ends), and none may take longer than
 * r->timeout seconds to send a whole request, counted from its connection
 * or from its last answer: a client that trickles its headers a byte at a
 * time, which evhttp's inactivity timeout never catches, is cut off.
 *
 * evhttp tells nothing of its connections' ends, so each one's bufferevent
 * is a filter over the socket's, made here (evhttp_set_bevcb): its free
 * callback is the end (and evhttp must never close a connection itself:
 * restd_conn_request).  The filter also tells TLS from plain HTTP by the
 * first byte (a handshake record is 0x16), as slurmrestd does, and then
 * decrypts and encrypts (tls.c); an https:// listener's connection that
 * does not start with TLS is closed. */
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <event2/buffer.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include "restd/restd.h"
#include "common/common.h"

enum conn_mode { M_UNDECIDED, M_PLAIN, M_TLS };

struct rconn {
	struct restd *r;
	struct bufferevent *bev;  /* evhttp's: the filter */
	struct bufferevent *sock; /* under it */
	enum conn_mode mode;
	struct tls_conn *tls;
	struct event *kick; /* output added while writing was off: flush */
	time_t since;       /* connected, or last answered */
	unsigned busy;      /* requests being answered */
	int cut;            /* shut down by the sweep */
	struct rconn *prev, *next;
};

static time_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void accepting(struct restd *r, int on)
{
	for (int i = 0; i < r->nbound; i++) {
		struct evconnlistener *l = evhttp_bound_socket_get_listener(r->bound[i]);

		if (on)
			evconnlistener_enable(l);
		else
			evconnlistener_disable(l);
	}
}

static void conn_freed(void *arg)
{
	struct rconn *c = arg;
	struct restd *r = c->r;

	if (c->prev)
		c->prev->next = c->next;
	else
		r->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (r->nconns-- == r->max_conns)
		accepting(r, 1);
	tls_conn_free(c->tls);
	event_free(c->kick);
	free(c);
}

/* The connection must end: evhttp sees its end and frees it. */
static void cut_off(struct rconn *c)
{
	if (!c->cut)
		shutdown((int)bufferevent_getfd(c->bev), SHUT_RDWR);
	c->cut = 1;
}

/* Came c through an https:// listener? */
static int tls_required(const struct rconn *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint16_t port;

	if (!c->r->nhttps ||
	    getsockname((int)bufferevent_getfd(c->bev), (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6)
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	else
		return 0;
	for (int i = 0; i < c->r->nhttps; i++)
		if (c->r->https_ports[i] == port)
			return 1;
	return 0;
}

static enum bufferevent_filter_result conn_in(struct evbuffer *src, struct evbuffer *dst,
                                              ev_ssize_t limit,
                                              enum bufferevent_flush_mode mode, void *arg)
{
	struct rconn *c = arg;
	unsigned char first;
	int n;

	if (c->cut) {
		evbuffer_drain(src, evbuffer_get_length(src));
		return BEV_NEED_MORE;
	}
	if (c->mode == M_UNDECIDED) {
		if (evbuffer_copyout(src, &first, 1) < 1)
			return BEV_NEED_MORE;
		if (first == 0x16 && c->r->tls_ctx) {
			c->tls = tls_conn_new(c->r);
			c->mode = M_TLS;
		} else if (tls_required(c)) {
			log_debug("a client spoke plain HTTP to an https:// listener");
			cut_off(c);
			return BEV_NEED_MORE;
		} else {
			c->mode = M_PLAIN;
		}
	}
	if (c->mode == M_PLAIN) {
		evbuffer_add_buffer(dst, src);
		return BEV_OK;
	}
	n = tls_conn_read(c->tls, src, dst, bufferevent_get_output(c->sock));
	if (n < 0) {
		cut_off(c);
		return BEV_NEED_MORE;
	}
	return n > 0 ? BEV_OK : BEV_NEED_MORE;
}

static enum bufferevent_filter_result conn_out(struct evbuffer *src, struct evbuffer *dst,
                                               ev_ssize_t limit,
                                               enum bufferevent_flush_mode mode,
                                               void *arg)
{
	struct rconn *c = arg;

	if (c->mode != M_TLS) {
		evbuffer_add_buffer(dst, src);
		return BEV_OK;
	}
	if (tls_conn_write(c->tls, src, dst) < 0) {
		cut_off(c);
		return BEV_ERROR;
	}
	return BEV_OK;
}

/* inetd mode: the private listener's one connection is in; nobody else
 * may come that way */
static void close_private(evutil_socket_t fd, short what, void *arg)
{
	struct restd *r = arg;

	if (r->inetd_bound)
		evhttp_del_accept_socket(r->http, r->inetd_bound);
	r->inetd_bound = NULL;
}

static void kick(evutil_socket_t fd, short what, void *arg)
{
	struct rconn *c = arg;
	bufferevent_event_cb ecb = NULL;

	/* not once evhttp has let go of it (bufferevent_free clears them) */
	bufferevent_getcb(c->bev, NULL, NULL, &ecb, NULL);
	if (ecb)
		bufferevent_flush(c->bev, EV_WRITE, BEV_NORMAL);
}

static void output_added(struct evbuffer *buf, const struct evbuffer_cb_info *info,
                         void *arg)
{
	struct rconn *c = arg;

	if (info->n_added && !(bufferevent_get_enabled(c->bev) & EV_WRITE))
		event_active(c->kick, EV_TIMEOUT, 0);
}

static struct bufferevent *conn_new(struct event_base *base, void *arg)
{
	struct restd *r = arg;
	struct bufferevent *sock =
	    bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	struct rconn *c;

	if (!sock)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->sock = sock;
	c->bev = bufferevent_filter_new(sock, conn_in, conn_out, BEV_OPT_CLOSE_ON_FREE,
	                                conn_freed, c);
	if (!c->bev) {
		bufferevent_free(sock);
		free(c);
		return NULL;
	}
	/* evhttp adds its answer, then enables writing: a filter acts on
	 * what is added only while writing is enabled, so it is told again
	 * from the loop (evbuffer_defer_callbacks would do it, but libevent
	 * 2.1 then frees the bufferevent twice when evhttp closes it from
	 * that callback) */
	c->kick = event_new(base, -1, 0, kick, c);
	if (!c->kick)
		fatal("out of memory");
	evbuffer_add_cb(bufferevent_get_output(c->bev), output_added, c);
	c->r = r;
	c->since = now();
	c->next = r->conns;
	if (r->conns)
		r->conns->prev = c;
	r->conns = c;
	if (r->inetd_bound)
		event_base_once(base, -1, EV_TIMEOUT, close_private, r, NULL);
	if (++r->nconns == r->max_conns) {
		log_info("%u connections: not accepting more until one ends", r->nconns);
		accepting(r, 0);
	}
	return c->bev;
}

static struct rconn *conn_of(struct restd *r, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;

	for (struct rconn *c = r->conns; bev && c; c = c->next)
		if (c->bev == bev)
			return c;
	return NULL;
}

static void answered(struct evhttp_request *req, void *arg)
{
	struct rconn *c = arg;

	c->busy--;
	c->since = now();
}

void restd_conn_request(struct restd *r, struct evhttp_request *req)
{
	struct rconn *c = conn_of(r, req);
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);

	/* evhttp closes a connection as soon as the filter has taken the
	 * last of an answer, before the socket has written it: the client
	 * closes instead ("Connection: close" is not honoured by us; every
	 * answer has its length) */
	evhttp_remove_header(in, "Connection");
	evhttp_add_header(in, "Connection", "keep-alive");
	if (!c)
		return;
	c->busy++;
	evhttp_request_set_on_complete_cb(req, answered, c);
}

static int bev_idle(struct bufferevent *bev)
{
	int n = 0;

	return !evbuffer_get_length(bufferevent_get_input(bev)) &&
	       !evbuffer_get_length(bufferevent_get_output(bev)) &&
	       (ioctl((int)bufferevent_getfd(bev), FIONREAD, &n) < 0 || n == 0);
}

int restd_conns_idle(struct restd *r)
{
	for (struct rconn *c = r->conns; c; c = c->next)
		if (c->busy || !bev_idle(c->bev) || !bev_idle(c->sock))
			return 0;
	return 1;
}

static void sweep(evutil_socket_t fd, short what, void *arg)
{
	struct restd *r = arg;
	time_t t = now();

	for (struct rconn *c = r->conns; c; c = c->next) {
		if (c->busy || c->cut || t - c->since < r->timeout)
			continue;
		/* evhttp sees the end and frees the connection (conn_freed) */
		log_debug("a client sent no whole request in %u s: cut off", r->timeout);
		cut_off(c);
	}
}

void restd_conns_init(struct restd *r)
{
	struct timeval tick = {1, 0};

	evhttp_set_bevcb(r->http, conn_new, r);
	r->sweep = event_new(r->base, -1, EV_PERSIST, sweep, r);
	if (!r->sweep)
		fatal("out of memory");
	event_add(r->sweep, &tick);
}

void restd_conns_stop(struct restd *r)
{
	if (r->sweep)
		event_free(r->sweep);
	r->sweep = NULL;
}
