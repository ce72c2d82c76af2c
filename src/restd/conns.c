/* conns.c - the clients' connections (restd.h): at most r->max_conns at a
 * time (at the limit the listeners stop accepting, and new clients wait in
 * the kernel's backlog until one ends), and none may take longer than
 * r->timeout seconds to send a whole request, counted from its connection
 * or from its last answer: a client that trickles its headers a byte at a
 * time, which evhttp's inactivity timeout never catches, is cut off.
 *
 * evhttp tells nothing of its connections' ends, so each one's bufferevent
 * is a pass-through filter over the socket's, made here (evhttp_set_bevcb):
 * its free callback is the end. */
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <event2/buffer.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include "restd/restd.h"
#include "common/common.h"

struct rconn {
	struct restd *r;
	struct bufferevent *bev; /* evhttp's: the filter */
	time_t since;            /* connected, or last answered */
	unsigned busy;           /* requests being answered */
	int cut;                 /* shut down by the sweep */
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
	free(c);
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

static struct bufferevent *conn_new(struct event_base *base, void *arg)
{
	struct restd *r = arg;
	struct bufferevent *sock =
	    bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	struct rconn *c;

	if (!sock)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->bev = bufferevent_filter_new(sock, NULL, NULL, BEV_OPT_CLOSE_ON_FREE,
	                                conn_freed, c);
	if (!c->bev) {
		bufferevent_free(sock);
		free(c);
		return NULL;
	}
	/* evhttp adds its answer, then enables writing: a filter acts on
	 * what is added only while writing is enabled, so it must look later */
	evbuffer_defer_callbacks(bufferevent_get_output(c->bev), base);
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
		if (c->busy || !bev_idle(c->bev) ||
		    !bev_idle(bufferevent_get_underlying(c->bev)))
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
		shutdown((int)bufferevent_getfd(c->bev), SHUT_RDWR);
		c->cut = 1;
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
