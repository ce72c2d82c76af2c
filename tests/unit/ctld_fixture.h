/* ctld_fixture.h - a controller in-process for unit tests of its operations
 * and journal: the real modules over a real journal in a directory, with a
 * chan that records what it is sent.  Only the scheduler's kicks do nothing
 * (a test runs sched_pass itself when it wants jobs started).
 *
 * Included once by a test program: it defines what rotactld's main.c
 * provides to the modules. */
#ifndef ROTA_TEST_CTLD_FIXTURE_H
#define ROTA_TEST_CTLD_FIXTURE_H

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctld/assoc.h"
#include "ctld/mcs_label.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/node_mgr.h"
#include "ctld/ops.h"
#include "ctld/sched_pass.h"
#include "ctld/step_stat.h"
#include "proto/auth.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/states.h"
#include "proto/messages.h"
#include "common/common.h"

int ctld_is_admin(const struct ctld *ctld, uid_t uid)
{
	return uid == 0 || uid == ctld->slurm_uid;
}

void ctld_sched_kick(struct ctld *ctld)
{
}

void ctld_backfill_kick(struct ctld *ctld)
{
}

/* ---- a chan that keeps what it is sent (the last REC_MAX messages) ---- */

#define REC_MAX 16

struct rec_chan {
	struct chan chan;
	int n;      /* messages kept */
	long total; /* messages sent */
	uint16_t type[REC_MAX];
	int rc[REC_MAX];          /* MSG_RC */
	uint32_t job_id[REC_MAX]; /* MSG_SUBMIT_RESP, MSG_ALLOC_PENDING */
	uint32_t term[REC_MAX];   /* MSG_NODE_ACK */
	int released;
};

static int rec_send(struct chan *ch, uint16_t type, const void *body)
{
	struct rec_chan *r = (struct rec_chan *)ch;

	r->total++;
	if (r->n == REC_MAX)
		r->n = 0; /* a node's link: only the count matters */
	r->type[r->n] = type;
	if (type == MSG_RC)
		r->rc[r->n] = ((const struct rc_msg *)body)->rc;
	if (type == MSG_SUBMIT_RESP || type == MSG_ALLOC_PENDING)
		r->job_id[r->n] = ((const struct submit_resp *)body)->job_id;
	if (type == MSG_NODE_ACK)
		r->term[r->n] = ((const struct node_ack *)body)->term;
	r->n++;
	return 0;
}

static void rec_release(struct chan *ch)
{
	((struct rec_chan *)ch)->released = 1;
}

static const struct chan_ops rec_ops = {.send = rec_send, .release = rec_release};

static inline void rec_init(struct rec_chan *r)
{
	memset(r, 0, sizeof(*r));
	chan_init(&r->chan, &rec_ops);
}

/* The last message's rc (it must be an MSG_RC). */
static inline int rec_last_rc(const struct rec_chan *r)
{
	if (r->n <= 0 || r->type[r->n - 1] != MSG_RC)
		return -1;
	return r->rc[r->n - 1];
}

/* ---- the controller ---- */

/* Set up ctld over StateSaveLocation dir (which must exist) with conf_text
 * (its StateSaveLocation is added).  Returns 0 or -1. */
static inline int fixture_open(struct ctld *ctld, const char *dir, const char *conf_text)
{
	struct rota_error err = {""};
	struct conf *conf;
	char *key = xasprintf("%s/slurm.key", dir);
	char *text =
	    xasprintf("%sStateSaveLocation=%s\nAuthInfo=key=%s\n", conf_text, dir, key);
	FILE *f = fopen(key, "w");
	int rc = conf_load_string(text, "t.conf", &conf, &err);

	/* the key the controller signs launches with */
	if (f) {
		fputs("0123456789abcdef0123456789abcdef", f);
		fclose(f);
	}
	free(key);
	free(text);
	if (rc < 0 || !f)
		return -1;
	memset(ctld, 0, sizeof(*ctld));
	ctld->conf = conf;
	ctld->base = event_base_new();
	ctld->start_time = time(NULL);
	ctld->hostname = xstrdup("test");
	ctld->assoc = assoc_mgr_create();
	if (node_mgr_create(ctld, &ctld->nodes) < 0 ||
	    job_mgr_create(ctld, &ctld->jobs) < 0 ||
	    journal_open(ctld->base, dir, &ctld->journal, &err) < 0 ||
	    auth_create(conf, AUTH_NEED_KEY, &ctld->auth, &err) < 0)
		return -1;
	return 0;
}

static inline void fixture_close(struct ctld *ctld)
{
	backfill_abandon(ctld); /* a backfill pass sched_pass left for later */
	mcs_ctld_release(ctld); /* MCSPlugin's settings, read when first asked */
	step_stats_destroy(ctld->step_stats);
	journal_destroy(ctld->journal);
	auth_destroy(ctld->auth);
	job_mgr_destroy(ctld->jobs);
	node_mgr_destroy(ctld->nodes);
	assoc_mgr_destroy(ctld->assoc);
	event_base_free(ctld->base);
	conf_destroy((struct conf *)ctld->conf);
	free(ctld->hostname);
	free(ctld->pass_jobs); /* sched_pass's list, kept between passes */
}

/* rm -rf dir (a test's journal directory): system()'s status. */
static inline int fixture_rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);

	free(cmd);
	return rc;
}

/* Run what waits on the loop and the journal's flush: answers deferred until
 * their record is durable are sent. */
static inline void settle(struct ctld *ctld)
{
	event_base_loop(ctld->base, EVLOOP_NONBLOCK);
	journal_flush(ctld->journal);
	event_base_loop(ctld->base, EVLOOP_NONBLOCK);
}

/* A batch job's description as sbatch sends it with no options. */
static inline struct job_desc *desc_new(void)
{
	struct job_desc *d = xmalloc(sizeof(*d));

	job_desc_init(d);
	d->script = xstrdup("#!/bin/sh\ntrue\n");
	return d;
}

/* Call an operation with body (taken) and return the last rc it answered
 * (-1 when its last answer was not an MSG_RC), after settling. */
static inline int op_rc(struct ctld *ctld, struct caller *who, uint16_t type, void *body)
{
	struct rec_chan r;
	int rc;

	rec_init(&r);
	ops_call(ctld, who, type, &body, &r.chan);
	settle(ctld);
	msg_body_free(type, body);
	rc = rec_last_rc(&r);
	chan_unref(&r.chan);
	return rc;
}

#endif
