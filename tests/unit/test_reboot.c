/* test_reboot - scontrol reboot and cancel_reboot in the controller
 * (ctld/reboot.h), on a controller in-process (ctld_fixture.h): who may ask,
 * the states a node goes through and the words Slurm shows for them, what
 * counts as rebooted, ResumeTimeout, and a restart (journal replay and
 * compaction) keeping a reboot that waits or is under way. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>
#include "ctld/job_event.h"
#include "ctld/reboot.h"
#include "ctld/state.h"
#include "ctld_fixture.h"

#define ADMIN 0
#define USER  1001

static const char conf_text[] =
    "ClusterName=t\nNodeName=node[01-02] CPUs=4 RealMemory=4000\n"
    "PartitionName=debug Nodes=ALL Default=YES\n"
    "RebootProgram=/sbin/reboot\nResumeTimeout=30\nAuthType=auth/slurm\n";

struct world {
	struct ctld ctld;
	char dir[64];
	struct caller admin, user, nodes[2];
	struct rec_chan links[2];
	time_t started; /* the node daemons' start */
};

static struct node *node(struct world *w, int k)
{
	return node_mgr_get(w->ctld.nodes, (size_t)k);
}

/* Node k's rotad registers, started at start_time, with the batch scripts
 * of the jobs running there. */
static void node_registers(struct world *w, int k, time_t start_time)
{
	struct node_register *reg = xcalloc(1, sizeof(*reg));
	void *body = reg;
	size_t n = 0;

	for (struct job *j = job_first_active(w->ctld.jobs); j; j = j->lnext)
		n++;
	reg->job_ids.v = xcalloc(n + 1, sizeof(uint32_t));
	reg->step_ids.v = xcalloc(n + 1, sizeof(uint32_t));
	for (struct job *j = job_first_active(w->ctld.jobs); j; j = j->lnext)
		if (job_is_running(j) && j->run->node_idx[0] == (uint32_t)k) {
			reg->job_ids.v[reg->job_ids.n++] = j->job_id;
			reg->step_ids.v[reg->step_ids.n++] = STEP_BATCH;
		}
	reg->name = xstrdup(node(w, k)->cfg->name);
	reg->cpus = 4;
	reg->boot_time = (int64_t)(w->started - 1000);
	reg->start_time = (int64_t)start_time;
	ops_call(&w->ctld, &w->nodes[k], MSG_NODE_REGISTER, &body, &w->links[k].chan);
	msg_body_free(MSG_NODE_REGISTER, body);
	settle(&w->ctld);
}

/* Open the controller over w->dir (made already) and bring its nodes in. */
static void world_open(struct world *w)
{
	struct rota_error err = {""};

	assert_int_equal(fixture_open(&w->ctld, w->dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&w->ctld, &err), 0);
	caller_init_user(&w->admin, &w->ctld, ADMIN, 0);
	caller_init_user(&w->user, &w->ctld, USER, USER);
	for (int k = 0; k < 2; k++) {
		caller_init_node(&w->nodes[k], k, ADMIN, 0);
		rec_init(&w->links[k]);
		node_registers(w, k, w->started);
	}
}

static void world_close(struct world *w)
{
	fixture_close(&w->ctld);
}

static int setup(void **state)
{
	struct world *w = xcalloc(1, sizeof(*w));

	snprintf(w->dir, sizeof(w->dir), "/tmp/test_reboot.XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	w->started = time(NULL) - 100;
	world_open(w);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	world_close(w);
	assert_int_equal(fixture_rm_rf(w->dir), 0);
	free(w);
	return 0;
}

static int reboot_rc(struct world *w, struct caller *who, const char *nodes,
                     uint32_t flags, const char *next, const char *reason)
{
	struct reboot_req *r = xcalloc(1, sizeof(*r));

	r->nodes = xstrdup(nodes);
	r->flags = flags;
	r->next_state = xstrdup(next);
	r->reason = xstrdup(reason);
	return op_rc(&w->ctld, who, MSG_REBOOT_REQ, r);
}

static int cancel_rc(struct world *w, const char *nodes)
{
	struct node_update_req *r = xcalloc(1, sizeof(*r));

	r->nodes = xstrdup(nodes);
	r->state = xstrdup("CANCEL_REBOOT");
	return op_rc(&w->ctld, &w->admin, MSG_NODE_UPDATE_REQ, r);
}

/* How many reboot orders node k's rotad got (of its last REC_MAX messages). */
static int orders(struct world *w, int k)
{
	int n = 0;

	for (int i = 0; i < w->links[k].n; i++)
		n += w->links[k].type[i] == MSG_REBOOT_REQ;
	return n;
}

/* scontrol's State= of node k, and sinfo's %t and %T. */
static const char *upper(struct world *w, int k)
{
	static char buf[192];
	return node_state_upper(node_state(node(w, k)), buf, sizeof(buf));
}

static const char *short_name(struct world *w, int k)
{
	static char buf[64];
	return node_state_short(node_state(node(w, k)), buf, sizeof(buf));
}

static const char *long_name(struct world *w, int k)
{
	static char buf[64];
	return node_state_long(node_state(node(w, k)), buf, sizeof(buf));
}

/* A batch job of the user on node k, running. */
static uint32_t job_on(struct world *w, int k)
{
	struct job_desc *d = desc_new();
	uint32_t id = job_mgr_next_id(w->ctld.jobs);

	d->req_nodes = xstrdup(node(w, k)->cfg->name);
	assert_int_equal(op_rc(&w->ctld, &w->user, MSG_SUBMIT_REQ, d), -1);
	sched_pass(&w->ctld, time(NULL), SCHED_PASS_FULL);
	settle(&w->ctld);
	assert_true(job_is_running(job_find(w->ctld.jobs, id)));
	return id;
}

/* Its batch script ends, and the node confirms it gone. */
static void job_ends(struct world *w, int k, uint32_t id)
{
	uint32_t flags[] = {0, STEP_DONE_JOB_GONE}, steps[] = {STEP_BATCH, NO_VAL};

	for (int i = 0; i < 2; i++) {
		struct step_complete *m = xcalloc(1, sizeof(*m));
		void *body = m;
		m->job_id = id;
		m->step_id = steps[i];
		m->node_name = xstrdup(node(w, k)->cfg->name);
		m->flags = flags[i];
		m->start_time = (int64_t)job_find(w->ctld.jobs, id)->run->start_time;
		ops_call(&w->ctld, &w->nodes[k], MSG_STEP_COMPLETE, &body,
		         &w->links[k].chan);
		msg_body_free(MSG_STEP_COMPLETE, body);
		settle(&w->ctld);
	}
}

static void test_only_admins(void **state)
{
	struct world *w = *state;

	/* EACCES: Slurm's "Permission denied" */
	assert_int_equal(reboot_rc(w, &w->user, "node01", 0, NULL, NULL), 13);
	assert_int_equal(node(w, 0)->reboot, 0);
	assert_string_equal(upper(w, 0), "IDLE");
	assert_int_equal(reboot_rc(w, &w->admin, "node09", 0, NULL, NULL),
	                 ESLURM_INVALID_NODE_NAME);
	assert_int_equal(reboot_rc(w, &w->admin, "node01", 0, "UP", NULL),
	                 ESLURM_INVALID_NODE_STATE);
	assert_int_equal(node(w, 0)->reboot, 0);
}

/* An idle node goes at once: DOWN+REBOOT_ISSUED until a rotad started since
 * registers, then IDLE with no reason. */
static void test_idle_node_reboots(void **state)
{
	struct world *w = *state;
	struct node *n = node(w, 0);

	assert_int_equal(reboot_rc(w, &w->admin, "node01", 0, NULL, NULL), 0);
	assert_int_equal(orders(w, 0), 1);
	assert_int_equal(orders(w, 1), 0);
	assert_string_equal(upper(w, 0), "DOWN+REBOOT_ISSUED");
	assert_string_equal(short_name(w, 0), "boot^");
	assert_string_equal(long_name(w, 0), "reboot^");
	assert_string_equal(n->reason, "reboot requested : reboot issued");
	assert_false(node_usable(n));
	/* the daemon that was told comes back: not rebooted yet */
	node_registers(w, 0, w->started);
	assert_string_equal(upper(w, 0), "DOWN+REBOOT_ISSUED");
	/* a fresh one */
	node_registers(w, 0, time(NULL));
	assert_string_equal(upper(w, 0), "IDLE");
	assert_null(n->reason);
	assert_int_equal(n->reboot, 0);
	assert_true(node_usable(n));
	assert_int_equal(orders(w, 0), 1);
}

/* ASAP on a busy node: drained, no order until its job is gone; then
 * resumed after the reboot (RESUME is ASAP's next state). */
static void test_asap_waits_for_jobs(void **state)
{
	struct world *w = *state;
	struct node *n = node(w, 1);
	uint32_t id = job_on(w, 1);

	assert_int_equal(reboot_rc(w, &w->admin, "node02", REBOOT_F_ASAP, NULL, NULL), 0);
	reboot_tick(&w->ctld, time(NULL));
	assert_int_equal(orders(w, 1), 0);
	assert_string_equal(upper(w, 1), "MIXED+DRAIN+REBOOT_REQUESTED");
	assert_string_equal(short_name(w, 1), "drng@");
	assert_string_equal(long_name(w, 1), "draining@");
	assert_string_equal(n->reason, "Reboot ASAP");
	assert_string_equal(reboot_next_state(n), "RESUME");
	assert_false(node_usable(n));
	job_ends(w, 1, id);
	reboot_tick(&w->ctld, time(NULL));
	assert_int_equal(orders(w, 1), 1);
	assert_string_equal(upper(w, 1), "DOWN+DRAIN+REBOOT_ISSUED");
	assert_string_equal(short_name(w, 1), "boot^");
	assert_string_equal(n->reason, "Reboot ASAP : reboot issued");
	node_registers(w, 1, time(NULL));
	assert_string_equal(upper(w, 1), "IDLE");
	assert_null(n->reason);
}

/* Without ASAP a busy node keeps taking jobs ("mix@") until it is free. */
static void test_plain_request_waits(void **state)
{
	struct world *w = *state;
	uint32_t id = job_on(w, 0);

	assert_int_equal(reboot_rc(w, &w->admin, "node01", 0, NULL, "new kernel"), 0);
	assert_string_equal(upper(w, 0), "MIXED+REBOOT_REQUESTED");
	assert_string_equal(short_name(w, 0), "mix@");
	assert_string_equal(node(w, 0)->reason, "new kernel");
	assert_true(node_usable(node(w, 0)));
	/* asked again meanwhile: left as it is */
	assert_int_equal(reboot_rc(w, &w->admin, "ALL", REBOOT_F_ASAP, NULL, NULL), 0);
	assert_string_equal(upper(w, 0), "MIXED+REBOOT_REQUESTED");
	job_ends(w, 0, id);
	reboot_tick(&w->ctld, time(NULL));
	assert_int_equal(orders(w, 0), 1);
	assert_string_equal(node(w, 0)->reason, "new kernel : reboot issued");
}

static void test_nextstate_down(void **state)
{
	struct world *w = *state;
	struct node *n = node(w, 0);

	assert_int_equal(reboot_rc(w, &w->admin, "node01", 0, "DOWN", "disk"), 0);
	assert_string_equal(reboot_next_state(n), "DOWN");
	node_registers(w, 0, time(NULL));
	assert_string_equal(upper(w, 0), "DOWN");
	assert_string_equal(n->reason, "disk : reboot issued : reboot complete");
	assert_int_equal(n->reason_uid, w->ctld.slurm_uid);
	assert_true(n->admin_down);
	/* a later registration does not bring it back */
	node_registers(w, 0, time(NULL) + 1);
	assert_string_equal(upper(w, 0), "DOWN");
}

/* cancel_reboot takes back a reboot that waits, with ASAP's drain; not one
 * under way, nor where none was asked. */
static void test_cancel(void **state)
{
	struct world *w = *state;
	struct node *n = node(w, 1);
	uint32_t id = job_on(w, 1);

	assert_int_equal(reboot_rc(w, &w->admin, "node02", REBOOT_F_ASAP, NULL, NULL), 0);
	assert_int_equal(cancel_rc(w, "node02"), 0);
	assert_string_equal(upper(w, 1), "MIXED");
	assert_null(n->reason);
	assert_true(node_usable(n));
	assert_int_equal(cancel_rc(w, "node02"), ESLURM_INVALID_NODE_STATE);
	job_ends(w, 1, id);
	reboot_tick(&w->ctld, time(NULL));
	assert_int_equal(orders(w, 1), 0);
	/* one under way (an idle node goes at once) stays so */
	assert_int_equal(reboot_rc(w, &w->admin, "node01", 0, NULL, NULL), 0);
	assert_int_equal(cancel_rc(w, "node01"), ESLURM_INVALID_NODE_STATE);
	assert_string_equal(upper(w, 0), "DOWN+REBOOT_ISSUED");
	assert_int_equal(orders(w, 0), 1);
}

/* scontrol power down takes back a reboot to come. */
static void test_power_down_cancels(void **state)
{
	struct world *w = *state;
	struct node_update_req *r = xcalloc(1, sizeof(*r));

	job_on(w, 1);
	assert_int_equal(reboot_rc(w, &w->admin, "node02", REBOOT_F_ASAP, NULL, NULL), 0);
	r->nodes = xstrdup("node02");
	r->state = xstrdup("POWER_DOWN");
	assert_int_equal(op_rc(&w->ctld, &w->admin, MSG_NODE_UPDATE_REQ, r), 0);
	assert_int_equal(node(w, 1)->reboot, 0);
	assert_string_equal(upper(w, 1), "MIXED+POWER_DOWN");
}

static void test_timeout(void **state)
{
	struct world *w = *state;
	struct node *n = node(w, 0);
	time_t now = time(NULL);

	assert_int_equal(reboot_rc(w, &w->admin, "node01", REBOOT_F_ASAP, NULL, NULL), 0);
	assert_string_equal(upper(w, 0), "DOWN+DRAIN+REBOOT_ISSUED");
	reboot_tick(&w->ctld, now + 30);
	assert_string_equal(upper(w, 0), "DOWN+DRAIN+REBOOT_ISSUED");
	reboot_tick(&w->ctld, now + 32);
	assert_string_equal(upper(w, 0), "DOWN");
	assert_string_equal(n->reason, "Reboot ASAP : reboot issued : reboot timed out");
	node_registers(w, 0, time(NULL) + 40);
	assert_string_equal(upper(w, 0), "DOWN");
}

/* A restarted controller: from the journal, then from its compaction. */
static void restart(struct world *w, int compact)
{
	struct rota_error err = {""};

	if (compact)
		assert_int_equal(ctld_state_rewrite(&w->ctld, &err), 0);
	settle(&w->ctld);
	world_close(w);
	world_open(w);
}

static void test_restart_keeps_reboots(void **state)
{
	struct world *w = *state;
	time_t issued;

	/* node02 waits for its job; node01 is told at once */
	job_on(w, 1);
	assert_int_equal(reboot_rc(w, &w->admin, "node02", REBOOT_F_ASAP, "DOWN", NULL),
	                 0);
	assert_int_equal(reboot_rc(w, &w->admin, "node01", 0, NULL, NULL), 0);
	issued = node(w, 0)->reboot_time;
	assert_true(issued > 0);
	for (int compact = 0; compact < 2; compact++) {
		restart(w, compact);
		assert_string_equal(upper(w, 1), "MIXED+DRAIN+REBOOT_REQUESTED");
		assert_string_equal(node(w, 1)->reason, "Reboot ASAP");
		assert_string_equal(reboot_next_state(node(w, 1)), "DOWN");
		/* told before: not told again, waited for from then */
		assert_string_equal(upper(w, 0), "DOWN+REBOOT_ISSUED");
		assert_int_equal(node(w, 0)->reboot_time, issued);
		assert_string_equal(node(w, 0)->reason,
		                    "reboot requested : reboot issued");
		reboot_tick(&w->ctld, time(NULL));
		assert_int_equal(orders(w, 0), 0);
		assert_int_equal(orders(w, 1), 0);
	}
	node_registers(w, 0, time(NULL));
	assert_string_equal(upper(w, 0), "IDLE");
	/* cancelled, which a restart keeps too: the drain ASAP made goes */
	assert_int_equal(cancel_rc(w, "node02"), 0);
	restart(w, 0);
	assert_string_equal(upper(w, 1), "MIXED");
	assert_int_equal(node(w, 1)->reboot, 0);
}

/* The words of each state, as Slurm's sinfo and scontrol print them. */
static void test_state_names(void **state)
{
	char b[192];

	(void)state;
	assert_string_equal(node_state_short(NODE_IDLE | NODE_REBOOT_REQUESTED, b, 64),
	                    "boot");
	assert_string_equal(node_state_long(NODE_IDLE | NODE_REBOOT_REQUESTED, b, 64),
	                    "reboot");
	assert_string_equal(
	    node_state_short(NODE_IDLE | NODE_REBOOT_REQUESTED | NODE_NO_RESPOND, b, 64),
	    "boot*");
	assert_string_equal(
	    node_state_short(NODE_IDLE | NODE_DRAIN | NODE_REBOOT_REQUESTED, b, 64),
	    "boot");
	assert_string_equal(
	    node_state_short(NODE_ALLOCATED | NODE_REBOOT_REQUESTED, b, 64), "alloc@");
	assert_string_equal(node_state_long(NODE_MIXED | NODE_REBOOT_REQUESTED, b, 64),
	                    "mixed@");
	assert_string_equal(
	    node_state_short(NODE_DOWN | NODE_REBOOT_ISSUED | NODE_NO_RESPOND, b, 64),
	    "boot^");
	assert_string_equal(node_state_upper(NODE_DOWN | NODE_DRAIN | NODE_REBOOT_ISSUED |
	                                         NODE_NO_RESPOND,
	                                     b, sizeof(b)),
	                    "DOWN+DRAIN+REBOOT_ISSUED+NOT_RESPONDING");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_only_admins, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_idle_node_reboots, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_asap_waits_for_jobs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_plain_request_waits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nextstate_down, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_power_down_cancels, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_restart_keeps_reboots, setup, teardown),
	    cmocka_unit_test(test_state_names),
	};

	log_init("test_reboot", LOG_ERR, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
