/* test_ops - the controller's operations called with no socket: a caller
 * (who asks) and a chan that records the answers (src/ctld/ops.c, caller.c,
 * chan.c).  Real modules, a real journal in a temporary directory; only the
 * scheduler is left out, so jobs stay pending (ctld_fixture.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>
#include "ctld_fixture.h"

#define ADMIN_UID 0
#define ALICE     1001
#define BOB       1002

struct fixture {
	struct ctld ctld;
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	log_init("test_ops", LOG_CRIT, NULL);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_ops.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(fixture_open(&f->ctld, f->dir,
	                              "ClusterName=t\nNodeName=node[01-02] CPUs=4\n"
	                              "PartitionName=debug Nodes=ALL Default=YES\n"),
	                 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	fixture_close(&f->ctld);
	assert_int_equal(fixture_rm_rf(f->dir), 0);
	free(f);
	return 0;
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

	req->job_id = id;
	req->step_id = NO_VAL;
	return op_rc(ctld, who, MSG_CANCEL_REQ, req);
}

static int update(struct ctld *ctld, struct caller *who, uint32_t id, uint32_t op)
{
	struct job_update_req *req = xcalloc(1, sizeof(*req));

	req->job_id = id;
	req->op = op;
	return op_rc(ctld, who, MSG_JOB_UPDATE_REQ, req);
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
	assert_int_equal(job->owner->uid, ALICE);
	assert_int_equal(job->owner->gid, ALICE);
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

	req->nodes = xstrdup("node01");
	req->state = xstrdup(state);
	req->reason = reason ? xstrdup(reason) : NULL;
	return op_rc(ctld, who, MSG_NODE_UPDATE_REQ, req);
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
	assert_int_equal(rec_last_rc(&r), ESLURM_ACCESS_DENIED);
	assert_int_equal(node_mgr_get(ctld->nodes, 0)->free_mem, 0);
	/* and taken from the node */
	ping->free_memory = 1234;
	r.n = 0;
	ops_call(ctld, &node, MSG_NODE_PING, &body, &r.chan);
	/* heard, with the controller's term (the node leaves a silent one) */
	assert_int_equal(r.n, 1);
	assert_int_equal(r.type[0], MSG_NODE_ACK);
	assert_int_equal(node_mgr_get(ctld->nodes, 0)->free_mem, 1234);
	msg_body_free(MSG_NODE_PING, body);
	chan_unref(&r.chan);
}

/* Fencing: a node that has obeyed a controller of a newer term is not taken
 * by one of an older term (a primary that came back after a takeover); one
 * of the same or an older term is, and is told this controller's term. */
static int node_register(struct ctld *ctld, struct caller *node, uint32_t term,
                         struct rec_chan *r)
{
	struct node_register *reg = xcalloc(1, sizeof(*reg));
	void *body = reg;

	reg->name = xstrdup(node_mgr_get(ctld->nodes, 0)->cfg->name);
	reg->cpus = 1;
	reg->term = term;
	rec_init(r);
	ops_call(ctld, node, MSG_NODE_REGISTER, &body, &r->chan);
	msg_body_free(MSG_NODE_REGISTER, body);
	return r->n ? r->type[r->n - 1] : 0;
}

static void test_node_of_a_newer_term_is_fenced(void **state)
{
	struct fixture *f = *state;
	struct ctld *ctld = &f->ctld;
	struct caller node;
	struct rec_chan r;

	caller_init_node(&node, 0, ADMIN_UID, 0);
	ctld->term = 2;
	assert_int_equal(node_register(ctld, &node, 3, &r), MSG_RC);
	assert_int_equal(rec_last_rc(&r), ESLURM_IN_STANDBY_MODE);
	assert_null(node_mgr_get(ctld->nodes, 0)->link);
	chan_unref(&r.chan);
	assert_int_equal(node_register(ctld, &node, 1, &r), MSG_NODE_ACK);
	assert_int_equal(r.term[r.n - 1], 2);
	assert_ptr_equal(node_mgr_get(ctld->nodes, 0)->link, &r.chan);
	node_mgr_link_lost(ctld, &node, &r.chan);
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
	assert_int_equal(job_find(ctld->jobs, a)->owner->uid, ALICE);
	assert_int_equal(cancel(ctld, &as_alice, b), ESLURM_ACCESS_DENIED);
	assert_true(job_is_pending(job_find(ctld->jobs, b)));
	assert_int_equal(cancel(ctld, &as_bob, b), 0);
	assert_int_equal(cancel(ctld, &alice, a), 0);
}

/* sstat: an unknown job is Slurm's invalid job id; a job that runs nothing
 * (pending here: no scheduler) is answered at once with no step; a node's
 * answer is taken from nodes only, and one nobody waits for is dropped. */
static void test_step_stat(void **state)
{
	struct fixture *f = *state;
	struct ctld *ctld = &f->ctld;
	struct caller alice, bob, node;
	struct node_stat_resp *nr = xcalloc(1, sizeof(*nr));
	struct step_stat_req *req;
	struct rec_chan r;
	void *body;
	uint32_t id;
	int rc;

	caller_init_user(&alice, ctld, ALICE, ALICE);
	caller_init_user(&bob, ctld, BOB, BOB);
	caller_init_node(&node, 0, ADMIN_UID, 0);
	req = xcalloc(1, sizeof(*req));
	req->job_id = 4242;
	req->step_id = NO_VAL;
	assert_int_equal(op_rc(ctld, &alice, MSG_STEP_STAT_REQ, req),
	                 ESLURM_INVALID_JOB_ID);
	id = submit(ctld, &alice, 0, &rc);
	assert_true(id > 0);
	for (int i = 0; i < 2; i++) { /* the owner and another user alike */
		req = xcalloc(1, sizeof(*req));
		req->job_id = id;
		req->step_id = NO_VAL;
		body = req;
		rec_init(&r);
		ops_call(ctld, i ? &bob : &alice, MSG_STEP_STAT_REQ, &body, &r.chan);
		assert_int_equal(r.n, 1);
		assert_int_equal(r.type[0], MSG_STEP_STAT_RESP);
		msg_body_free(MSG_STEP_STAT_REQ, body);
		chan_unref(&r.chan);
		assert_true(r.released); /* no request left waiting */
	}
	/* a node's answer from a user is refused; from a node, dropped */
	nr->req_id = 77;
	body = nr;
	rec_init(&r);
	ops_call(ctld, &alice, MSG_NODE_STAT_RESP, &body, &r.chan);
	assert_int_equal(rec_last_rc(&r), ESLURM_ACCESS_DENIED);
	r.n = 0;
	ops_call(ctld, &node, MSG_NODE_STAT_RESP, &body, &r.chan);
	assert_int_equal(r.n, 0);
	msg_body_free(MSG_NODE_STAT_RESP, body);
	chan_unref(&r.chan);
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
	assert_int_equal(rec_last_rc(&r), ESLURM_NOT_SUPPORTED);
	chan_unref(&r.chan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_submit_is_answered_when_durable, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_cancel_only_own_jobs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_release_and_nice, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_node_of_a_newer_term_is_fenced, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_admin_only_and_node_only, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_relayed_caller, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_step_stat, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_operation, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
