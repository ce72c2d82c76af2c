#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/recframe.h"
#include "common/schedparams.h"
#include "common/states.h"
#include "ctld/acct.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/listener.h"
#include "ctld/node_mgr.h"
#include "ctld/repl.h"
#include "ctld/trigger.h"
#include "common/trigtype.h"
#include "ctld/state.h"
#include "proto/client.h"
#include "proto/conn.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define SNAPSHOT_CHUNK      (1u << 20) /* bytes of records per MSG_REPL_DATA */
#define RETRY_S             1
#define JOB_ID_TAKEOVER_GAP 1000u /* ids skipped at a takeover */
#define STEP_DOWN_CHECK_S   10    /* between two looks for a newer controller */

/* ---- the primary: followers ---- */

static void on_durable(void *arg, const char *recs, size_t len, uint64_t upto);

struct follower {
	struct chan *ch;
	uint32_t kind;  /* FOLLOW_BACKUP, FOLLOW_ACCOUNTING */
	uint64_t sent;  /* events up to here are on their way */
	uint64_t acked; /* events up to here are in its journal */
	struct follower *next;
};

struct repl {
	struct follower *followers;
	/* backup side */
	struct conn *conn;
	struct event *retry_ev;
	time_t last_contact;
	int in_snapshot;
	int told_down;            /* "cannot reach the primary" logged */
	struct chan *takeover_ch; /* scontrol takeover waits here */
	time_t leader_checked;    /* repl_step_down's last look */
	time_t last_tick;         /* serving: when the loop last ran (boot clock) */
};

/* Seconds since boot, a stop (SIGSTOP, a suspended machine) included. */
static time_t boot_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec;
}

static struct repl *repl_of(struct ctld *ctld)
{
	if (!ctld->repl)
		ctld->repl = xcalloc(1, sizeof(struct repl));
	return ctld->repl;
}

/* SchedulerParameters=replicate_sync: answers wait for the backups too. */
static int sync_wanted(const struct ctld *ctld)
{
	struct sched_params sp;

	sched_params_parse(ctld->conf->scheduler_params, &sp);
	return sp.replicate_sync;
}

/* journal_set_gate: the events every follower holds (no follower: all). */
static uint64_t repl_gate(void *arg)
{
	struct ctld *ctld = arg;
	uint64_t min = UINT64_MAX;

	for (struct follower *f = ctld->repl ? ctld->repl->followers : NULL; f;
	     f = f->next)
		if (f->kind == FOLLOW_BACKUP && f->acked < min)
			min = f->acked;
	return min;
}

static void gate_update(struct ctld *ctld)
{
	struct repl *r = ctld->repl;

	if (r && r->followers && sync_wanted(ctld))
		journal_set_gate(ctld->journal, repl_gate, ctld);
	else
		journal_set_gate(ctld->journal, NULL, NULL);
}

static void follower_drop(struct follower **pp)
{
	struct follower *f = *pp;

	*pp = f->next;
	chan_unref(f->ch);
	free(f);
}

static void send_data(struct chan *ch, uint32_t flags, uint64_t seq, const char *data,
                      size_t len)
{
	struct repl_data d = {.flags = flags, .seq = seq};

	d.data.data = (uint8_t *)data;
	d.data.len = (uint32_t)len;
	chan_send(ch, MSG_REPL_DATA, &d);
}

/* Records collected for one MSG_REPL_DATA. */
struct batch {
	struct chan *ch;
	char *buf;
	size_t len, cap;
	uint32_t flags; /* of the frames still to send */
	int first;
};

static void batch_add(struct batch *b, const union job_event *ev)
{
	journal_frame_append(ev, &b->buf, &b->len, &b->cap);
}

static void snapshot_emit(void *arg, union job_event *ev)
{
	struct batch *b = arg;

	batch_add(b, ev);
	if (b->len >= SNAPSHOT_CHUNK) {
		send_data(b->ch, b->flags | (b->first ? REPL_F_SNAPSHOT_BEGIN : 0), 0,
		          b->buf, b->len);
		b->first = 0;
		b->len = 0;
	}
}

static int journal_emit(union job_event *ev, void *arg)
{
	batch_add(arg, ev);
	return 0;
}

static const char *follower_name(uint32_t kind)
{
	return kind == FOLLOW_ACCOUNTING ? "rotadbd" : "a backup controller";
}

/* strigger: rotadbd (--primary_slurmdbd_failure) or a backup
 * (--backup_slurmctld_failure) stopped following. */
static void note_gone(struct ctld *ctld, uint32_t kind)
{
	/* another of that kind still follows (a reconnect seen first) */
	for (struct follower *f = ctld->repl->followers; f; f = f->next)
		if (f->kind == kind)
			return;
	if (kind == FOLLOW_ACCOUNTING) {
		ctld->dbd_lost = 1;
		trigger_note(ctld, TRIG_T_PRI_DBD_FAIL);
	} else if (ctld->ctld_index == 0) { /* the primary's followers are backups */
		ctld->backup_lost = 1;
		trigger_note(ctld, TRIG_T_BU_CTLD_FAIL);
	}
}

/* ...and follows again: its "resumed operation" triggers. */
static void note_back(struct ctld *ctld, uint32_t kind)
{
	if (kind == FOLLOW_ACCOUNTING && ctld->dbd_lost) {
		ctld->dbd_lost = 0;
		trigger_note(ctld, TRIG_T_PRI_DBD_RES_OP);
	} else if (kind != FOLLOW_ACCOUNTING && ctld->backup_lost) {
		ctld->backup_lost = 0;
		trigger_note(ctld, TRIG_T_BU_CTLD_RES_OP);
	}
}

void repl_follow(struct ctld *ctld, struct caller *who, const struct follow_req *req,
                 struct chan *ch)
{
	struct repl *r = repl_of(ctld);
	struct rota_error err = {""};
	struct batch b = {.ch = ch, .first = 1};
	uint64_t last;
	struct follower *f;
	int rc = -ESTALE;

	/* the batches go to the followers from now on; setting that makes
	 * everything appended so far durable, so what the backup is sent now
	 * is all of it */
	journal_on_durable(ctld->journal, on_durable, ctld);
	last = journal_last_seq(ctld->journal);

	/* the same history (no takeover between us; rotadbd follows any) and
	 * events we still have */
	if ((req->term == ctld->term || req->kind == FOLLOW_ACCOUNTING) &&
	    req->after <= last)
		rc = journal_follow(ctld->journal, req->after, journal_emit, &b, &err);
	if (rc == 0) {
		/* the durable events it lacks; the rest follow as they are synced */
		send_data(ch, 0, last, b.buf, b.len);
		/* what rotadbd asks after it has stored (the acknowledgment of it
		 * may have been lost with a controller killed before saving it) */
		if (req->kind == FOLLOW_ACCOUNTING)
			acct_stored(ctld, req->after);
		log_info("%s follows from event %llu (%llu to send)",
		         follower_name(req->kind), (unsigned long long)req->after,
		         (unsigned long long)(last - req->after));
	} else {
		/* compacted away, or a history that is not ours: the whole state,
		 * which holds every event appended so far */
		last = journal_next_seq(ctld->journal) - 1;
		b.len = 0;
		b.flags = REPL_F_SNAPSHOT;
		ctld_state_snapshot(ctld, snapshot_emit, &b);
		send_data(ch,
		          REPL_F_SNAPSHOT | REPL_F_SNAPSHOT_END |
		              (b.first ? REPL_F_SNAPSHOT_BEGIN : 0),
		          last, b.buf, b.len);
		log_info(
		    "%s asked for events after %llu: sent the state as of event %llu",
		    follower_name(req->kind), (unsigned long long)req->after,
		    (unsigned long long)last);
	}
	free(b.buf);
	note_back(ctld, req->kind);
	f = xcalloc(1, sizeof(*f));
	f->ch = ch;
	f->kind = req->kind;
	f->sent = last;
	f->acked = rc == 0 ? req->after : 0;
	chan_ref(ch);
	f->next = r->followers;
	r->followers = f;
	gate_update(ctld);
}

void repl_ack(struct ctld *ctld, struct chan *ch, uint64_t seq)
{
	for (struct follower *f = ctld->repl ? ctld->repl->followers : NULL; f;
	     f = f->next)
		if (f->ch == ch && seq > f->acked) {
			f->acked = seq;
			if (f->kind == FOLLOW_ACCOUNTING)
				acct_stored(ctld, seq);
		}
	gate_update(ctld);
}

void repl_chan_gone(struct ctld *ctld, struct chan *ch)
{
	struct repl *r = ctld->repl;

	for (struct follower **pp = r ? &r->followers : NULL; pp && *pp;) {
		if ((*pp)->ch == ch) {
			uint32_t kind = (*pp)->kind;
			log_info("%s went away", follower_name(kind));
			follower_drop(pp);
			note_gone(ctld, kind);
		} else {
			pp = &(*pp)->next;
		}
	}
	if (r && !r->followers) /* no copies of the batches for nobody */
		journal_on_durable(ctld->journal, NULL, NULL);
	gate_update(ctld); /* nobody to wait for: answer what waits */
}

/* journal_on_durable: every follower gets the batch (it skips what it has). */
static void on_durable(void *arg, const char *recs, size_t len, uint64_t upto)
{
	struct ctld *ctld = arg;
	struct repl *r = ctld->repl;

	for (struct follower **pp = r ? &r->followers : NULL; pp && *pp;) {
		struct follower *f = *pp;
		if (upto > f->sent) {
			/* on the wire before the writers are answered (run_waiters
			 * comes after): an acknowledged event reaches a live
			 * backup even if we are killed right after */
			send_data(f->ch, 0, upto, recs, len);
			chan_write_now(f->ch);
			f->sent = upto;
		}
		pp = &f->next;
	}
}

void repl_serve_start(struct ctld *ctld)
{
	repl_of(ctld)->last_tick = boot_seconds();
}

void repl_tick(struct ctld *ctld, time_t now)
{
	struct repl *r = repl_of(ctld);
	time_t t = boot_seconds();
	time_t gap = t - (r->last_tick ? r->last_tick : t);

	r->last_tick = t;
	/* stopped (SIGSTOP, a hung disk, a paused VM) for longer than a backup
	 * waits: one may have taken over */
	if (gap > (time_t)ctld->conf->slurmctld_timeout) {
		char why[128];
		snprintf(why, sizeof(why), "this controller was stopped for %ld s",
		         (long)gap);
		repl_step_down(ctld, why);
	}
	for (struct follower *f = r->followers; f; f = f->next)
		send_data(f->ch, 0, f->sent, NULL, 0);
}

/* ---- the backup ---- */

struct apply {
	struct ctld *ctld;
	int snapshot;
	size_t applied;
};

static int apply_rec(void *arg, const uint8_t *body, size_t len)
{
	struct apply *a = arg;
	struct rota_error err = {""};
	union job_event ev;

	if (job_event_decode((const char *)body, len, &ev, &err) < 0) {
		log_err("replication: an event that does not decode: %s", err.text);
		return 0;
	}
	if (a->snapshot) {
		a->ctld->restoring = 1;
		job_event_apply(a->ctld, &ev);
		a->ctld->restoring = 0;
	} else if (ev.head.seq >= journal_next_seq(a->ctld->journal)) {
		/* as the primary applied it; kept under the same number */
		job_event_apply(a->ctld, &ev);
		journal_append_at(a->ctld->journal, &ev, ev.head.seq);
		a->applied++;
	}
	job_event_release(&ev);
	return 0;
}

static void send_ack(struct ctld *ctld, uint64_t seq)
{
	struct follow_ack a = {.seq = seq};

	if (ctld->repl && ctld->repl->conn)
		conn_send(ctld->repl->conn, MSG_FOLLOW_ACK, &a);
}

/* Our journal holds the events to upto: tell the primary (replicate_sync). */
static void ack_durable(void *arg, const char *recs, size_t len, uint64_t upto)
{
	send_ack(arg, upto);
}

static void follow_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct ctld *ctld = arg;
	struct repl *r = ctld->repl;
	struct rota_error err = {""};
	const struct repl_data *d = *body;
	struct apply a = {.ctld = ctld};
	struct recframe_result res = {0};

	r->last_contact = time(NULL);
	if (type == MSG_RC) {
		/* 0: the answer to a takeover's shutdown request */
		if (((struct rc_msg *)*body)->rc)
			log_err("the primary refused to be followed: %s",
			        slurm_strerror(((struct rc_msg *)*body)->rc));
		return;
	}
	if (type != MSG_REPL_DATA)
		return;
	if (d->flags & REPL_F_SNAPSHOT_BEGIN) {
		log_info("loading the primary's state");
		ctld_state_clear(ctld);
	}
	a.snapshot = !!(d->flags & REPL_F_SNAPSHOT);
	if (d->data.len)
		recframe_walk(d->data.data, d->data.len, apply_rec, NULL, &a, &res);
	if (d->flags & REPL_F_SNAPSHOT_END) {
		/* our journal: that state, numbered as the primary's */
		journal_set_next_seq(ctld->journal, d->seq + 1);
		if (ctld_state_rewrite(ctld, &err) < 0)
			log_err("replication: writing the state: %s", err.text);
		else
			send_ack(ctld, d->seq);
		log_info("following the primary from event %llu (%zu jobs)",
		         (unsigned long long)d->seq, job_count(ctld->jobs));
	}
}

static void follow_schedule(struct ctld *ctld, int secs);

static void takeover(struct ctld *ctld, time_t now);

static void follow_closed(struct conn *c, void *arg)
{
	struct ctld *ctld = arg;

	ctld->repl->conn = NULL;
	if (ctld->repl->takeover_ch) {
		/* it stopped as asked, after sending what it had */
		takeover(ctld, time(NULL));
		return;
	}
	log_warn("lost the primary controller");
	follow_schedule(ctld, RETRY_S);
}

static void follow_connect(evutil_socket_t fd_unused, short what, void *arg)
{
	struct ctld *ctld = arg;
	struct repl *r = ctld->repl;
	struct rota_error err = {""};
	struct follow_req req = {0};
	int fd;

	if (!ctld->standby || r->conn)
		return;
	fd = client_connect_to(ctld->conf, ctld->auth, CTLD_PEER_NAME, ctld->leader_index,
	                       &err);
	if (fd < 0) {
		if (!r->told_down)
			log_warn("cannot reach the primary controller: %s", err.text);
		r->told_down = 1;
		follow_schedule(ctld, RETRY_S);
		return;
	}
	r->told_down = 0;
	r->last_contact = time(NULL);
	r->conn = conn_create(ctld->base, fd, "primary controller", follow_msg,
	                      follow_closed, ctld);
	req.after = journal_next_seq(ctld->journal) - 1;
	req.term = ctld->term;
	conn_send(r->conn, MSG_FOLLOW_REQ, &req);
}

static void follow_schedule(struct ctld *ctld, int secs)
{
	struct repl *r = ctld->repl;
	struct timeval tv = {secs, 0};

	if (!r->retry_ev)
		r->retry_ev = evtimer_new(ctld->base, follow_connect, ctld);
	evtimer_add(r->retry_ev, &tv);
}

int repl_find_leader(struct ctld *ctld)
{
	for (size_t i = 0; i < conf_ctld_count(ctld->conf); i++) {
		struct rota_error err = {""};
		struct empty_msg req = {0};
		struct ping_resp *resp = NULL;
		uint16_t type = 0;
		int fd, serving;

		if (i == ctld->ctld_index)
			continue;
		fd = client_connect_to(ctld->conf, ctld->auth, CTLD_PEER_NAME, i, &err);
		if (fd < 0)
			continue;
		serving = net_rpc(fd, MSG_PING_REQ, &req, &type, (void **)&resp, 5000,
		                  &err) == 0 &&
		          type == MSG_PING_RESP && !resp->standby;
		msg_body_free(type, resp);
		close(fd);
		if (serving)
			return (int)i;
	}
	return -1;
}

void repl_standby_start(struct ctld *ctld)
{
	struct repl *r = repl_of(ctld);

	r->last_contact = time(NULL);
	log_info("standing by: following the controller at %s",
	         conf_ctld_addr(ctld->conf, ctld->leader_index));
	journal_on_durable(ctld->journal, ack_durable, ctld);
	follow_schedule(ctld, 0);
}

/* The primary is gone: serve. */
static void takeover(struct ctld *ctld, time_t now)
{
	struct repl *r = ctld->repl;
	struct rota_error err = {""};
	uint32_t next = job_mgr_next_id(ctld->jobs);

	repl_serve_start(ctld);
	if (r->takeover_ch)
		log_info("taking over, as asked");
	else
		log_warn("taking over: the primary controller has not answered for %ld s",
		         (long)(now - r->last_contact));
	if (r->conn) {
		conn_close(r->conn);
		r->conn = NULL;
	}
	if (r->retry_ev) {
		event_free(r->retry_ev);
		r->retry_ev = NULL;
	}
	ctld->standby = 0;
	journal_on_durable(ctld->journal, NULL, NULL); /* no acks to anybody */
	/* ids the primary handed out but we never heard of stay handed out */
	job_mgr_set_next_id(ctld->jobs, next + JOB_ID_TAKEOVER_GAP);
	job_mgr_id_restore(ctld, NULL);
	ctld_state_settle(ctld);
	/* the nodes come to us now; they have SlurmdTimeout to do so */
	for (size_t i = 0; i < node_mgr_count(ctld->nodes); i++) {
		struct node *n = node_mgr_get(ctld->nodes, i);
		n->last_seen = now;
		n->flags |= NODE_NO_RESPOND;
	}
	ctld->res_gen++;
	/* a new term: a controller that comes back with the old history learns
	 * it is behind, and starts again from our state */
	ctld->term++;
	ctld_state_mark(ctld, now);
	if (listener_serve_clients(ctld->listener, &err) < 0)
		log_err("takeover: %s", err.text);
	log_info("now the controller (term %u, next job id %u)", ctld->term,
	         job_mgr_next_id(ctld->jobs));
	/* strigger -C, and -a when the primary stopped answering; -b when the
	 * primary (the first SlurmctldHost) takes control back */
	trigger_note(ctld, ctld->ctld_index == 0
	                       ? TRIG_T_PRI_CTLD_RES_CTRL | TRIG_T_PRI_CTLD_RES_OP
	                       : TRIG_T_BU_CTLD_AS_CTRL |
	                             (r->takeover_ch ? 0 : TRIG_T_PRI_CTLD_FAIL));
	if (r->takeover_ch) {
		chan_send_rc(r->takeover_ch, 0, NULL);
		chan_unref(r->takeover_ch);
		r->takeover_ch = NULL;
	}
	ctld_sched_kick(ctld);
}

void repl_standby_tick(struct ctld *ctld, time_t now)
{
	struct repl *r = ctld->repl;
	time_t timeout =
	    ctld->conf->slurmctld_timeout ? ctld->conf->slurmctld_timeout : 120;

	if (!r || !ctld->standby)
		return;
	/* connected but silent (a hung primary) counts as gone too */
	if (now - r->last_contact >= timeout)
		takeover(ctld, now);
}

void repl_takeover_request(struct ctld *ctld, struct chan *ch)
{
	struct repl *r = repl_of(ctld);
	struct shutdown_req req = {.flags = SHUTDOWN_F_CTLD_ONLY};

	if (!ctld->standby) {
		chan_send_rc(ch, 0, NULL); /* serving already */
		return;
	}
	if (r->takeover_ch) {
		chan_send_rc(ch, -ESLURM_TRANSITION_STATE_NO_UPDATE,
		             "a takeover is under way");
		return;
	}
	r->takeover_ch = ch;
	chan_ref(ch);
	if (!r->conn) {
		/* the one we follow is not there: take over now */
		takeover(ctld, time(NULL));
		return;
	}
	log_info("takeover asked: telling the controller we follow to stop");
	conn_send(r->conn, MSG_SHUTDOWN_REQ, &req);
}

void repl_step_down(struct ctld *ctld, const char *why)
{
	time_t now = time(NULL);
	struct repl *r;
	int leader;

	if (ctld->standby || ctld->step_down || conf_ctld_count(ctld->conf) < 2)
		return;
	r = repl_of(ctld);
	if (now - r->leader_checked < STEP_DOWN_CHECK_S)
		return;
	r->leader_checked = now;
	leader = repl_find_leader(ctld); /* blocks: rare, and on evidence only */
	if (leader < 0) {
		log_err("%s, yet no other controller serves: going on", why);
		return;
	}
	log_warn("%s: the controller at %s serves; stepping down to stand by", why,
	         conf_ctld_addr(ctld->conf, (size_t)leader));
	ctld->step_down = 1;
	event_base_loopbreak(ctld->base);
}

void repl_destroy(struct ctld *ctld)
{
	struct repl *r = ctld->repl;

	if (!r)
		return;
	while (r->followers)
		follower_drop(&r->followers);
	if (r->conn)
		conn_close(r->conn);
	if (r->retry_ev)
		event_free(r->retry_ev);
	chan_unref(r->takeover_ch);
	free(r);
	ctld->repl = NULL;
}
