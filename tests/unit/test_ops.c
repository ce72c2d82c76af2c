/* test_ops - the controller's operations called with no socket: a caller
 * (who asks) and a chan that records the answers (src/ctld/ops.c, caller.c,
 * chan.c).  Real modules, a real journal in a temporary directory; only the
 * scheduler is left out (ctld_sched_kick does nothing), so jobs stay pending.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/node_mgr.h"
#include "ctld/ops.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/states.h"
#include "proto/messages.h"
#include "common/common.h"

#define ADMIN_UID 0
#define ALICE     1001
#define BOB       1002

/* What rotactld's main.c provides to the modules. */
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

/* ---- a chan that keeps what it is sent ---- */

#define SEEN_MAX 16

struct rec_chan {
	struct chan chan;
	int n;
	uint16_t type[SEEN_MAX];
	int rc[SEEN_MAX];          /* MSG_RC */
	uint32_t job_id[SEEN_MAX]; /* MSG_SUBMIT_RESP, MSG_ALLOC_PENDING */
	int released;
};

static int rec_send(struct chan *ch, uint16_t type, const void *body)
{
	struct rec_chan *r = (struct rec_chan *)ch;

	if (r->n == SEEN_MAX)
		return -ENOSPC;
	r->type[r->n] = type;
	if (type == MSG_RC)
		r->rc[r->n] = ((const struct rc_msg *)body)->rc;
	if (type == MSG_SUBMIT_RESP || type == MSG_ALLOC_PENDING)
		r->job_id[r->n] = ((const struct submit_resp *)body)->job_id;
	r->n++;
	return 0;
}

static void rec_release(struct chan *ch)
{
	((struct rec_chan *)ch)->released = 1;
}

static const struct chan_ops rec_ops = {.send = rec_send, .release = rec_release};

static void rec_init(struct rec_chan *r)
{
	memset(r, 0, sizeof(*r));
	chan_init(&r->chan, &rec_ops);
}

/* The answer the operation gave (the last message), after the journal's
 * flush has run for answers that wait for it. */
static void settle(struct ctld *ctld)
{
	event_base_loop(ctld->base, EVLOOP_NONBLOCK);
	journal_flush(ctld->journal);
	event_base_loop(ctld->base, EVLOOP_NONBLOCK);
}

static int last_rc(const struct rec_chan *r)
{
	assert_true(r->n > 0);
	assert_int_equal(r->type[r->n - 1], MSG_RC);
	return r->rc[r->n - 1];
}

/* ---- the controller ---- */

struct fixture {
	struct ctld ctld;
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct ctld *ctld = &f->ctld;
	struct conf *conf;
	struct rota_error err = {""};
	char *text;

	log_init("test_ops", LOG_CRIT, NULL);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_ops.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	text = xasprintf("ClusterName=t\nStateSaveLocation=%s\n"
	                 "NodeName=node[01-02] CPUs=4\n"
	                 "PartitionName=debug Nodes=ALL Default=YES\n",
	                 f->dir);
	assert_int_equal(conf_load_string(text, "t.conf", &conf, &err), 0);
	free(text);
	ctld->conf = conf;
	ctld->slurm_uid = 0;
	ctld->base = event_base_new();
	ctld->start_time = time(NULL);
	ctld->hostname = xstrdup("test");
	assert_int_equal(node_mgr_create(ctld, &ctld->nodes), 0);
	assert_int_equal(job_mgr_create(ctld, &ctld->jobs), 0);
	assert_int_equal(journal_open(ctld->base, f->dir, &ctld->journal, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct ctld *ctld = &f->ctld;
	char *cmd = xasprintf("rm -rf '%s'", f->dir);

	journal_destroy(ctld->journal);
	job_mgr_destroy(ctld->jobs);
	node_mgr_destroy(ctld->nodes);
	event_base_free(ctld->base);
	conf_destroy((struct conf *)ctld->conf);
	free(ctld->hostname);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f);
	return 0;
}

/* A batch job's description as sbatch sends it with no options. */
static struct job_desc *desc_new(void)
{
	struct job_desc *d = xcalloc(1, sizeof(*d));

	d->script = xstrdup("#!/bin/sh\ntrue\n");
	d->min_nodes = d->max_nodes = NO_VAL;
	d->num_tasks = d->ntasks_per_node = d->cpus_per_task = NO_VAL;
	d->mem_per_node = d->mem_per_cpu = NO_VAL64;
	d->time_limit = NO_VAL;
	d->umask = NO_VAL;
	d->pn_min_cpus = NO_VAL;
	return d;
}

/* Submit a batch job as who; returns its id (0: refused, *rc says why). */
static uint32_t submit(struct ctld *ctld, struct caller *who, int32_t nice, int *rc)
{
	struct job_desc *d = desc_new();
	struct rec_chan r;
	void *body = d;
	uint32_t id = 0;

	d->nice = (uint32_t)nice;
	rec_init(&r);
	ops_call(ctld, who, MSG_SUBMIT_REQ, &body, &r.chan);
	settle(ctld);
	msg_body_free(MSG_SUBMIT_REQ, body);
	assert_int_equal(r.n, 1);
	if (r.type[0] == MSG_SUBMIT_RESP)
		id = r.job_id[0];
	*rc = r.type[0] == MSG_RC ? r.rc[0] : 0;
	chan_unref(&r.chan);
	assert_true(r.released); /* nothing kept a reference */
	return id;
}

static int cancel(struct ctld *ctld, struct caller *who, uint32_t id)
{
	struct cancel_req *req = xcalloc(1, sizeof(*req));
	struct rec_chan r;
	void *body = req;
	int rc;

	req->job_id = id;
	req->step_id = NO_VAL;
	rec_init(&r);
	ops_call(ctld, who, MSG_CANCEL_REQ, &body, &r.chan);
	settle(ctld);
	msg_body_free(MSG_CANCEL_REQ, body);
	rc = last_rc(&r);
	chan_unref(&r.chan);
	return rc;
}

static int update(struct ctld *ctld, struct caller *who, uint32_t id, uint32_t op)
{
	struct job_update_req *req = xcalloc(1, sizeof(*req));
	struct rec_chan r;
	void *body = req;
	int rc;

	req->job_id = id;
	req->op = op;
	rec_init(&r);
	ops_call(ctld, who, MSG_JOB_UPDATE_REQ, &body, &r.chan);
	settle(ctld);
	msg_body_free(MSG_JOB_UPDATE_REQ, body);
	rc = last_rc(&r);
	chan_unref(&r.chan);
	return rc;
}

static void test_submit_is_answered_when_durable(void **state)
{
	struct fixture *f = *state;
	struct ctld *ctld = &f->ctld;
	struct caller alice;
	struct job_desc *d = desc_new();
	struct rec_chan r;
	void *body = d;
	struct job *job;

	caller_init_user(&alice, ctld, ALICE, ALICE);
	rec_init(&r);
	ops_call(ctld, &alice, MSG_SUBMIT_REQ, &body, &r.chan);
	/* not before the journal holds it */
	assert_int_equal(r.n, 0);
	settle(ctld);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.type[0], MSG_SUBMIT_RESP);
	job = job_find(ctld->jobs, r.job_id[0]);
	assert_non_null(job);
	assert_int_equal(job->uid, ALICE);
	assert_int_equal(job->gid, ALICE);
	assert_true(job_is_pending(job));
	msg_body_free(MSG_SUBMIT_REQ, body);
	chan_unref(&r.chan);
	assert_true(r.released);
}

static void test_cancel_only_own_jobs(void **state)
{
	struct fixture *f = *state;
	struct ctld *ctld = &f->ctld;
	struct caller alice, bob, root;
	uint32_t a, b;
	int rc;

	caller_init_user(&alice, ctld, ALICE, ALICE);
	caller_init_user(&bob, ctld, BOB, BOB);
	caller_init_user(&root, ctld, ADMIN_UID, 0);
	assert_false(caller_is_admin(&alice));
	assert_true(caller_is_admin(&root));
	a = submit(ctld, &alice, 0, &rc);
	b = submit(ctld, &bob, 0, &rc);
	assert_true(a && b);
	/* Bob may not cancel Alice's job: it stays pending */
	assert_int_equal(cancel(ctld, &bob, a), ESLURM_ACCESS_DENIED);
	assert_true(job_is_pending(job_find(ctld->jobs, a)));
	/* Alice may cancel her own */
	assert_int_equal(cancel(ctld, &alice, a), 0);
	assert_int_equal(job_find(ctld->jobs, a)->state, JOB_CANCELLED);
	/* an admin may cancel anyone's */
	assert_int_equal(cancel(ctld, &root, b), 0);
	assert_int_equal(job_find(ctld->jobs, b)->state, JOB_CANCELLED);
	/* no such job */
	assert_int_equal(cancel(ctld, &root, 999999), ESLURM_INVALID_JOB_ID);
}

static void test_hold_release_and_nice(void **state)
{
	struct fixture *f = *state;
	struct ctld *ctld = &f->ctld;
	struct caller alice, bob, root;
	uint32_t a;
	int rc;

	caller_init_user(&alice, ctld, ALICE, ALICE);
	caller_init_user(&bob, ctld, BOB, BOB);
	caller_init_user(&root, ctld, ADMIN_UID, 0);
	/* only an operator may raise a priority (negative nice) */
	assert_int_equal(submit(ctld, &alice, -10, &rc), 0);
	assert_int_equal(rc, ESLURM_ACCESS_DENIED);
	assert_int_not_equal(submit(ctld, &root, -10, &rc), 0);
	a = submit(ctld, &alice, 0, &rc);
	assert_int_equal(update(ctld, &bob, a, JOB_OP_HOLD), ESLURM_ACCESS_DENIED);
	assert_int_equal(job_find(ctld->jobs, a)->priority != 0, 1);
	assert_int_equal(update(ctld, &alice, a, JOB_OP_UHOLD), 0);
	assert_int_equal(job_find(ctld->jobs, a)->priority, 0);
	assert_int_equal(update(ctld, &alice, a, JOB_OP_RELEASE), 0);
	assert_int_not_equal(job_find(ctld->jobs, a)->priority, 0);
	/* a job an admin held, its user cannot release */
	assert_int_equal(update(ctld, &root, a, JOB_OP_HOLD), 0);
	assert_int_not_equal(update(ctld, &alice, a, JOB_OP_RELEASE), 0);
	assert_int_equal(job_find(ctld->jobs, a)->priority, 0);
	assert_int_equal(update(ctld, &root, a, JOB_OP_RELEASE), 0);
}

static int node_update(struct ctld *ctld, struct caller *who, const char *state,
                       const char *reason)
{
	struct node_update_req *req = xcalloc(1, sizeof(*req));
	struct rec_chan r;
	void *body = req;
	int rc;

	req->nodes = xstrdup("node01");
	req->state = xstrdup(state);
	req->reason = reason ? xstrdup(reason) : NULL;
	rec_init(&r);
	ops_call(ctld, who, MSG_NODE_UPDATE_REQ, &body, &r.chan);
	settle(ctld);
	msg_body_free(MSG_NODE_UPDATE_REQ, body);
	rc = last_rc(&r);
	chan_unref(&r.chan);
	return rc;
}

static void test_admin_only_and_node_only(void **state)
{
	struct fixture *f = *state;
	struct ctld *ctld = &f->ctld;
	struct caller alice, root, node;
	struct node_ping *ping = xcalloc(1, sizeof(*ping));
	struct rec_chan r;
	void *body = ping;

	caller_init_user(&alice, ctld, ALICE, ALICE);
	caller_init_user(&root, ctld, ADMIN_UID, 0);
	caller_init_node(&node, 0, ADMIN_UID, 0);
	/* scontrol update NodeName=: admins only */
	assert_int_equal(node_update(ctld, &alice, "DRAIN", "x"), ESLURM_ACCESS_DENIED);
	assert_false(node_mgr_get(ctld->nodes, 0)->flags & NODE_DRAIN);
	assert_int_equal(node_update(ctld, &root, "DRAIN", "maintenance"), 0);
	assert_true(node_mgr_get(ctld->nodes, 0)->flags & NODE_DRAIN);
	/* a node's report from a user, even root, is refused */
	rec_init(&r);
	ops_call(ctld, &root, MSG_NODE_PING, &body, &r.chan);
	assert_int_equal(last_rc(&r), ESLURM_ACCESS_DENIED);
	assert_int_equal(node_mgr_get(ctld->nodes, 0)->free_mem, 0);
	/* and taken from the node */
	ping->free_memory = 1234;
	r.n = 0;
	ops_call(ctld, &node, MSG_NODE_PING, &body, &r.chan);
	assert_int_equal(r.n, 0);
	assert_int_equal(node_mgr_get(ctld->nodes, 0)->free_mem, 1234);
	msg_body_free(MSG_NODE_PING, body);
	chan_unref(&r.chan);
}

static void test_relayed_caller(void **state)
{
	struct fixture *f = *state;
	struct ctld *ctld = &f->ctld;
	struct caller alice, bob, root, as_alice, as_bob;
	uint32_t a, b;
	int rc;

	caller_init_user(&alice, ctld, ALICE, ALICE);
	caller_init_user(&bob, ctld, BOB, BOB);
	caller_init_user(&root, ctld, ADMIN_UID, 0);
	/* a user's daemon cannot speak for someone else */
	assert_int_equal(caller_init_relayed(&as_alice, ctld, &bob, ALICE, ALICE),
	                 -EPERM);
	/* a trusted one (root, SlurmUser) is then that user for every check */
	assert_int_equal(caller_init_relayed(&as_alice, ctld, &root, ALICE, ALICE), 0);
	assert_int_equal(caller_init_relayed(&as_bob, ctld, &root, BOB, BOB), 0);
	assert_false(caller_is_admin(&as_alice));
	assert_int_equal(as_alice.via, ADMIN_UID);
	a = submit(ctld, &as_alice, 0, &rc);
	b = submit(ctld, &bob, 0, &rc);
	assert_int_equal(job_find(ctld->jobs, a)->uid, ALICE);
	assert_int_equal(cancel(ctld, &as_alice, b), ESLURM_ACCESS_DENIED);
	assert_true(job_is_pending(job_find(ctld->jobs, b)));
	assert_int_equal(cancel(ctld, &as_bob, b), 0);
	assert_int_equal(cancel(ctld, &alice, a), 0);
}

static void test_unknown_operation(void **state)
{
	struct fixture *f = *state;
	struct caller root;
	struct rec_chan r;
	void *body = NULL;

	caller_init_user(&root, &f->ctld, ADMIN_UID, 0);
	assert_false(ops_serves(MSG_SUBMIT_RESP));
	assert_true(ops_serves(MSG_SUBMIT_REQ));
	rec_init(&r);
	ops_call(&f->ctld, &root, MSG_SUBMIT_RESP, &body, &r.chan);
	assert_int_equal(last_rc(&r), ESLURM_NOT_SUPPORTED);
	chan_unref(&r.chan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_submit_is_answered_when_durable, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_cancel_only_own_jobs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_release_and_nice, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_admin_only_and_node_only, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_relayed_caller, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_operation, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
