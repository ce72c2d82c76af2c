/* feed.c - rotadbd follows the controller's journal (ctld/repl.h, as
 * FOLLOW_ACCOUNTING): it asks for the events after the last it stored, stores
 * the batches it is sent in one transaction with the last one's number, and
 * only then acknowledges them.  The controller keeps in its journal what is
 * not acknowledged (ctld/acct.h).
 *
 * Group commit: the controller sends a batch per journal sync, two or three
 * per job; a commit per batch (a WAL append and an fsync each) cost rotadbd
 * more CPU than the job's own step daemon.  Batches now gather in the open
 * transaction for up to GROUP_MS, or GROUP_MAX events, and commit together:
 * sacct (the same connection) sees them at once, the controller's journal
 * keeps them until the commit, and a rotadbd killed meanwhile asks again from
 * the last committed event. */
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
#include "dbd/report_cache.h"
#include "dbd/store.h"
#include "proto/client.h"
#include "proto/conn.h"
#include "proto/messages.h"
#include "common/common.h"

#define RETRY_S   1
#define GROUP_MS  100
#define GROUP_MAX 4096

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
	/* sreport's copy of this job's runs is read again before its next use */
	if (b->d->report && ev.head.type != EV_META && ev.head.type != EV_NODE_STATE &&
	    ev.head.type != EV_ASSOC && ev.head.type != EV_RESV &&
	    ev.head.type != EV_TRIGGER && ev.head.type != EV_CRONTAB &&
	    ev.head.type != EV_PART && ev.head.type != EV_NODE_FEATURES)
		report_cache_touch(b->d->report, ev.job.job_id);
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
 * committed one, a little later. */
static void feed_restart(struct dbd *d, const char *why)
{
	store_rollback(d->store);
	if (d->report)
		report_cache_forget(d->report); /* it may hold what was rolled back */
	d->txn_open = 0;
	d->txn_events = 0;
	if (d->commit_ev)
		evtimer_del(d->commit_ev);
	log_err("feed: %s; following again from event %llu", why,
	        (unsigned long long)store_last_seq(d->store));
	if (d->ctld)
		conn_close(d->ctld);
	d->ctld = NULL;
	schedule(d, RETRY_S);
}

/* Commit the open transaction (reset: it ends a snapshot) and acknowledge
 * it.  Returns -1 when it could not be committed (the feed restarts). */
static int feed_commit(struct dbd *d, int reset)
{
	struct rota_error err = {""};
	uint64_t upto = d->txn_upto;

	if (!d->txn_open)
		return 0;
	if (d->commit_ev)
		evtimer_del(d->commit_ev);
	d->txn_open = 0;
	if (store_commit(d->store, upto, reset, &err) < 0) {
		feed_restart(d, err.text);
		return -1;
	}
	d->stored_events += d->txn_events;
	d->txn_events = 0;
	d->txn_upto = 0;
	if (upto && d->ctld)
		send_ack(d, upto);
	return 0;
}

int dbd_feed_flush(struct dbd *d)
{
	if (d->in_snapshot)
		return -EAGAIN;
	return feed_commit(d, 0) < 0 ? -EIO : 0;
}

static void on_commit_timer(evutil_socket_t fd_unused, short what, void *arg)
{
	feed_commit(arg, 0);
}

static void on_data(struct dbd *d, const struct repl_data *r)
{
	struct batch b = {.d = d, .err = {""}};
	struct recframe_result res = {0};

	if (r->flags & REPL_F_SNAPSHOT_BEGIN) {
		log_info("feed: the controller sends its state (what was asked for is "
		         "compacted away)");
		if (feed_commit(d, 0) < 0)
			return;
		d->in_snapshot = 1;
	}
	if (!r->data.len && !(r->flags & REPL_F_SNAPSHOT_END))
		return; /* a heartbeat */
	if (!d->txn_open) {
		if (store_begin(d->store, &b.err) < 0) {
			feed_restart(d, b.err.text);
			return;
		}
		d->txn_open = 1;
	}
	if (r->data.len)
		recframe_walk(r->data.data, r->data.len, store_rec, NULL, &b, &res);
	if (b.failed) {
		feed_restart(d, b.err.text);
		return;
	}
	d->txn_events += b.events;
	/* a snapshot stands for its events once it is whole, and is committed
	 * batch by batch as before */
	if (r->flags & REPL_F_SNAPSHOT) {
		if (r->flags & REPL_F_SNAPSHOT_END)
			d->txn_upto = r->seq;
		if (feed_commit(d, !!(r->flags & REPL_F_SNAPSHOT_END)) < 0)
			return;
		if (r->flags & REPL_F_SNAPSHOT_END) {
			d->in_snapshot = 0;
			log_info("feed: stored the controller's state as of event %llu",
			         (unsigned long long)r->seq);
		}
		return;
	}
	d->txn_upto = r->seq;
	if (d->txn_events >= GROUP_MAX) {
		feed_commit(d, 0);
		return;
	}
	if (!d->commit_ev)
		d->commit_ev = evtimer_new(d->base, on_commit_timer, d);
	if (!evtimer_pending(d->commit_ev, NULL)) {
		struct timeval tv = {0, GROUP_MS * 1000};
		evtimer_add(d->commit_ev, &tv);
	}
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
	if (feed_commit(d, 0) < 0) /* what came is stored; asked for after it */
		return;
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
	if (feed_commit(d, 0) < 0)
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
	feed_commit(d, 0);
	if (d->commit_ev)
		event_free(d->commit_ev);
	d->commit_ev = NULL;
	if (d->ctld)
		conn_close(d->ctld);
	d->ctld = NULL;
	if (d->retry_ev)
		event_free(d->retry_ev);
	d->retry_ev = NULL;
}
