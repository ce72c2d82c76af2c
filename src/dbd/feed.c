/* feed.c - rotadbd follows the controller's journal (ctld/repl.h, as
 * FOLLOW_ACCOUNTING): it asks for the events after the last it stored, stores
 * each batch it is sent in one transaction with that batch's last number,
 * and only then acknowledges it.  The controller keeps in its journal what is
 * not acknowledged (ctld/acct.h). */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/recframe.h"
#include "common/states.h"
#include "ctld/job_event.h"
#include "dbd/dbd.h"
#include "dbd/store.h"
#include "proto/client.h"
#include "proto/conn.h"
#include "proto/messages.h"
#include "common/common.h"

#define RETRY_S 1

struct batch {
	struct dbd *d;
	struct rota_error err;
	int failed;
	size_t events;
};

static int store_rec(void *arg, const uint8_t *body, size_t len)
{
	struct batch *b = arg;
	struct rota_error err = {""};
	union job_event ev;

	if (job_event_decode((const char *)body, len, &ev, &err) < 0) {
		log_err("feed: an event that does not decode: %s", err.text);
		return 0;
	}
	if (store_event(b->d->store, &ev, &b->err) < 0) {
		job_event_release(&ev);
		b->failed = 1;
		return -EIO;
	}
	b->events++;
	job_event_release(&ev);
	return 0;
}

static void send_ack(struct dbd *d, uint64_t seq)
{
	struct follow_ack a = {.seq = seq};

	conn_send(d->ctld, MSG_FOLLOW_ACK, &a);
}

static void schedule(struct dbd *d, int secs);

/* A batch that cannot be stored (a full disk): start over from the last
 * stored one, a little later. */
static void feed_restart(struct dbd *d, const char *why)
{
	log_err("feed: %s; following again from event %llu", why,
	        (unsigned long long)store_last_seq(d->store));
	conn_close(d->ctld);
	d->ctld = NULL;
	schedule(d, RETRY_S);
}

static void on_data(struct dbd *d, const struct repl_data *r)
{
	struct batch b = {.d = d, .err = {""}};
	struct recframe_result res = {0};
	uint64_t upto = 0;

	if (r->flags & REPL_F_SNAPSHOT_BEGIN) {
		log_info("feed: the controller sends its state (what was asked for is "
		         "compacted away)");
		d->in_snapshot = 1;
	}
	if (!r->data.len && !(r->flags & REPL_F_SNAPSHOT_END))
		return; /* a heartbeat */
	if (store_begin(d->store, &b.err) < 0) {
		feed_restart(d, b.err.text);
		return;
	}
	if (r->data.len)
		recframe_walk(r->data.data, r->data.len, store_rec, NULL, &b, &res);
	if (b.failed) {
		store_rollback(d->store);
		feed_restart(d, b.err.text);
		return;
	}
	/* a snapshot stands for its events once it is whole */
	if (!(r->flags & REPL_F_SNAPSHOT) || (r->flags & REPL_F_SNAPSHOT_END))
		upto = r->seq;
	if (store_commit(d->store, upto, !!(r->flags & REPL_F_SNAPSHOT_END), &b.err) <
	    0) {
		feed_restart(d, b.err.text);
		return;
	}
	d->stored_events += b.events;
	if (r->flags & REPL_F_SNAPSHOT_END) {
		d->in_snapshot = 0;
		log_info("feed: stored the controller's state as of event %llu",
		         (unsigned long long)r->seq);
	}
	if (upto)
		send_ack(d, upto);
}

static void feed_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct dbd *d = arg;

	if (type == MSG_RC) {
		int rc = ((struct rc_msg *)*body)->rc;
		log_warn("feed: the controller refused to be followed: %s",
		         slurm_strerror(rc));
		conn_close(c);
		d->ctld = NULL;
		d->ctld_next++;
		schedule(d, RETRY_S);
		return;
	}
	if (type == MSG_REPL_DATA)
		on_data(d, *body);
}

static void feed_closed(struct conn *c, void *arg)
{
	struct dbd *d = arg;

	d->ctld = NULL;
	log_warn("feed: lost the controller");
	schedule(d, RETRY_S);
}

static void feed_connect(evutil_socket_t fd_unused, short what, void *arg)
{
	struct dbd *d = arg;
	struct rota_error err = {""};
	struct follow_req req = {.kind = FOLLOW_ACCOUNTING};
	size_t idx = 0;
	int fd;

	if (d->ctld)
		return;
	fd = client_connect_from(d->conf, d->auth, DBD_PEER_NAME,
	                         d->ctld_next % conf_ctld_count(d->conf), &idx, &err);
	if (fd < 0) {
		if (!d->told_down)
			log_warn("feed: cannot reach the controller: %s", err.text);
		d->told_down = 1;
		schedule(d, RETRY_S);
		return;
	}
	d->told_down = 0;
	d->ctld_next = idx;
	d->ctld = conn_create(d->base, fd, "controller", feed_msg, feed_closed, d);
	req.after = store_last_seq(d->store);
	conn_send(d->ctld, MSG_FOLLOW_REQ, &req);
	log_info("feed: following the controller at %s from event %llu",
	         conf_ctld_addr(d->conf, idx), (unsigned long long)req.after);
}

static void schedule(struct dbd *d, int secs)
{
	struct timeval tv = {secs, 0};

	if (!d->retry_ev)
		d->retry_ev = evtimer_new(d->base, feed_connect, d);
	evtimer_add(d->retry_ev, &tv);
}

void dbd_feed_start(struct dbd *d)
{
	schedule(d, 0);
}

void dbd_feed_stop(struct dbd *d)
{
	if (d->ctld)
		conn_close(d->ctld);
	d->ctld = NULL;
	if (d->retry_ev)
		event_free(d->retry_ev);
	d->retry_ev = NULL;
}
