/* test_part_update - scontrol create|update|delete partition in the
 * controller (src/ctld/part_update.c): who may, all or nothing, what a
 * partition in use keeps, and that the journal (replayed, or compacted
 * first) and a reconfigure's reset give the partitions back as they were
 * (ctld_fixture.h: the real modules over a real journal). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>
#include "common/strv.h"
#include "common/timefmt.h"
#include "ctld/job_event.h"
#include "ctld/part_update.h"
#include "ctld/state.h"
#include "ctld_fixture.h"

static const char conf_text[] = "ClusterName=t\nNodeName=node[01-04] CPUs=4\n"
                                "PartitionName=debug Nodes=ALL Default=YES\n"
                                "PartitionName=small Nodes=node01 MaxTime=60\n";

struct fixture {
	struct ctld ctld;
	struct caller admin, alice;
	char dir[64];
};

static void open_ctld(struct fixture *f)
{
	struct rota_error err = {""};

	assert_int_equal(fixture_open(&f->ctld, f->dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&f->ctld, &err), 0);
	caller_init_user(&f->admin, &f->ctld, 0, 0);
	caller_init_user(&f->alice, &f->ctld, 1001, 1001);
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	log_init("test_part_update", LOG_CRIT, NULL);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_part_update.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	open_ctld(f);
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

/* The controller as it would start again on its journal. */
static void restart(struct fixture *f)
{
	fixture_close(&f->ctld);
	open_ctld(f);
}

/* Ask for op on name with the settings (NULL-terminated); 0 when answered
 * with the partition, else the rc of the MSG_RC. */
static int ask(struct fixture *f, struct caller *who, uint32_t op, const char *name, ...)
{
	struct part_update_req *r = xcalloc(1, sizeof(*r));
	struct rec_chan ch;
	void *body = r;
	const char *kv;
	va_list ap;
	int rc;

	r->op = op;
	r->name = xstrdup(name);
	r->settings = xcalloc(1, sizeof(char *));
	va_start(ap, name);
	while ((kv = va_arg(ap, const char *)))
		r->settings = strv_append(r->settings, kv);
	va_end(ap);
	rec_init(&ch);
	ops_call(&f->ctld, who, MSG_PART_UPDATE_REQ, &body, &ch.chan);
	settle(&f->ctld);
	msg_body_free(MSG_PART_UPDATE_REQ, body);
	assert_int_equal(ch.n, 1);
	rc = ch.type[0] == MSG_PART_UPDATE_RESP ? 0 : ch.rc[0];
	if (rc == 0)
		assert_int_equal(ch.type[0], MSG_PART_UPDATE_RESP);
	chan_unref(&ch.chan);
	return rc;
}

static struct part *part(struct fixture *f, const char *name)
{
	return node_mgr_part_find(f->ctld.nodes, name);
}

/* The partition's settings as one line, to compare (malloc'd). */
static char *settings(struct fixture *f, const char *name)
{
	struct part *p = part(f, name);
	char **kv, *s;

	if (!p)
		return xstrdup("(none)");
	kv = conf_part_format(p->cfg);
	s = xstrdup("");
	for (size_t i = 0; kv[i]; i++) {
		char *t = xasprintf("%s %s", s, kv[i]);
		free(s);
		s = t;
	}
	strv_free(kv);
	return s;
}

static uint32_t submit_to(struct fixture *f, const char *partition)
{
	struct job_desc *d = desc_new();
	struct rec_chan ch;
	void *body = d;
	uint32_t id;

	d->partition = xstrdup(partition);
	rec_init(&ch);
	ops_call(&f->ctld, &f->alice, MSG_SUBMIT_REQ, &body, &ch.chan);
	settle(&f->ctld);
	msg_body_free(MSG_SUBMIT_REQ, body);
	id = ch.type[0] == MSG_SUBMIT_RESP ? ch.job_id[0] : 0;
	chan_unref(&ch.chan);
	return id;
}

static void test_admins_only(void **state)
{
	struct fixture *f = *state;

	/* Slurm answers others "Invalid user id" */
	assert_int_equal(ask(f, &f->alice, PART_OP_UPDATE, "debug", "State=DOWN", NULL),
	                 ESLURM_USER_ID_MISSING);
	assert_int_equal(ask(f, &f->alice, PART_OP_CREATE, "mine", NULL),
	                 ESLURM_USER_ID_MISSING);
	assert_int_equal(ask(f, &f->alice, PART_OP_DELETE, "small", NULL),
	                 ESLURM_USER_ID_MISSING);
	assert_int_equal(part(f, "debug")->cfg->state, CONF_PART_UP);
	assert_null(part(f, "mine"));
	assert_non_null(part(f, "small"));
}

static void test_all_or_nothing(void **state)
{
	struct fixture *f = *state;
	char *before = settings(f, "small"), *after;

	/* a good value and a node that is none: nothing changes */
	assert_int_equal(ask(f, &f->admin, PART_OP_UPDATE, "small", "State=DOWN",
	                     "Nodes=node[01-09]", NULL),
	                 ESLURM_INVALID_NODE_NAME);
	assert_int_equal(ask(f, &f->admin, PART_OP_UPDATE, "small", "Hidden=YES",
	                     "MaxNodes=lots", NULL),
	                 ESLURM_INVALID_ARGUMENT);
	assert_int_equal(
	    ask(f, &f->admin, PART_OP_UPDATE, "small", "DefaultTime=120", NULL),
	    ESLURM_INVALID_TIME_LIMIT);
	assert_int_equal(
	    ask(f, &f->admin, PART_OP_UPDATE, "small", "TRESBillingWeights=CPU=x", NULL),
	    ESLURM_INVALID_TRES_BILLING_WEIGHTS);
	assert_int_equal(ask(f, &f->admin, PART_OP_UPDATE, "small", "QOS=nosuch", NULL),
	                 ESLURM_INVALID_QOS);
	assert_int_equal(ask(f, &f->admin, PART_OP_UPDATE, "nosuch", "State=UP", NULL),
	                 ESLURM_INVALID_PARTITION_NAME);
	after = settings(f, "small");
	assert_string_equal(before, after);
	assert_int_equal(part(f, "small")->changed, 0);
	free(before);
	free(after);
	/* names a job's -p and a K=V could not carry */
	assert_int_equal(ask(f, &f->admin, PART_OP_CREATE, "a,b", NULL),
	                 ESLURM_INVALID_PARTITION_NAME);
	assert_int_equal(ask(f, &f->admin, PART_OP_CREATE, "default", NULL),
	                 ESLURM_INVALID_PARTITION_NAME);
	assert_int_equal(ask(f, &f->admin, PART_OP_CREATE, "debug", NULL),
	                 ESLURM_INVALID_PARTITION_NAME);
	assert_int_equal(node_mgr_part_count(f->ctld.nodes), 2);
}

static void test_create_update_delete(void **state)
{
	struct fixture *f = *state;
	struct part *p;
	uint32_t job;

	assert_int_equal(ask(f, &f->admin, PART_OP_CREATE, "new", "Nodes=node[02-03]",
	                     "MaxTime=30", NULL),
	                 0);
	p = part(f, "new");
	assert_non_null(p);
	assert_int_equal(p->nnodes, 2);
	assert_int_equal(p->total_cpus, 8);
	assert_int_equal(p->cfg->max_time, 30);
	assert_true(part_has_node(p, 1) && part_has_node(p, 2) && !part_has_node(p, 0));
	/* its nodes moved: the same struct part, so jobs keep pointing at it */
	assert_int_equal(ask(f, &f->admin, PART_OP_UPDATE, "new", "Nodes=node04", NULL),
	                 0);
	assert_ptr_equal(part(f, "new"), p);
	assert_true(part_has_node(p, 3) && !part_has_node(p, 1));
	assert_int_equal(p->cfg->max_time, 30); /* what was not named stays */
	/* one default partition */
	assert_int_equal(ask(f, &f->admin, PART_OP_UPDATE, "new", "Default=YES", NULL),
	                 0);
	assert_ptr_equal(node_mgr_part_default(f->ctld.nodes), p);
	assert_false(part(f, "debug")->cfg->is_default);
	/* a job in it: the partition stays until the job ends */
	job = submit_to(f, "new");
	assert_int_not_equal(job, 0);
	assert_ptr_equal(job_find(f->ctld.jobs, job)->part, p);
	assert_int_equal(ask(f, &f->admin, PART_OP_DELETE, "new", NULL),
	                 ESLURM_PARTITION_IN_USE);
	assert_int_equal(ask(f, &f->admin, PART_OP_DELETE, "nosuch", NULL),
	                 ESLURM_INVALID_PARTITION_NAME);
	{
		struct cancel_req *c = xcalloc(1, sizeof(*c));
		c->job_id = job;
		c->step_id = NO_VAL;
		assert_int_equal(op_rc(&f->ctld, &f->alice, MSG_CANCEL_REQ, c), 0);
	}
	assert_int_equal(ask(f, &f->admin, PART_OP_DELETE, "new", NULL), 0);
	assert_null(part(f, "new"));
	assert_null(job_find(f->ctld.jobs, job)->part); /* the ended job lets go */
	/* the default one deleted: there is none */
	assert_null(node_mgr_part_default(f->ctld.nodes));
	assert_int_equal(submit_to(f, "debug") != 0, 1);
}

/* DRAIN and INACTIVE take no new jobs, unless to their Alternate. */
static void test_drain_alternate(void **state)
{
	struct fixture *f = *state;
	uint32_t job;

	assert_int_equal(ask(f, &f->admin, PART_OP_UPDATE, "small", "State=DRAIN", NULL),
	                 0);
	assert_int_equal(submit_to(f, "small"), 0);
	assert_int_equal(
	    ask(f, &f->admin, PART_OP_UPDATE, "small", "Alternate=debug", NULL), 0);
	job = submit_to(f, "small");
	assert_int_not_equal(job, 0);
	assert_string_equal(job_find(f->ctld.jobs, job)->desc.partition, "debug");
	assert_int_equal(ask(f, &f->admin, PART_OP_UPDATE, "small", "State=DOWN", NULL),
	                 0);
	job = submit_to(f, "small"); /* DOWN takes them; they wait */
	assert_string_equal(job_find(f->ctld.jobs, job)->desc.partition, "small");
}

/* The journal gives back what scontrol did; so does its compaction. */
static void test_restart(void **state)
{
	struct fixture *f = *state;
	char *debug, *created, *again;

	assert_int_equal(ask(f, &f->admin, PART_OP_UPDATE, "debug", "State=DOWN",
	                     "AllowAccounts=physics", "Nodes=node[01-02]", NULL),
	                 0);
	assert_int_equal(ask(f, &f->admin, PART_OP_CREATE, "made", "Nodes=node03",
	                     "Hidden=YES", "Default=YES", NULL),
	                 0);
	assert_int_equal(ask(f, &f->admin, PART_OP_DELETE, "small", NULL), 0);
	debug = settings(f, "debug");
	created = settings(f, "made");
	restart(f);
	again = settings(f, "debug");
	assert_string_equal(again, debug);
	free(again);
	again = settings(f, "made");
	assert_string_equal(again, created);
	free(again);
	assert_null(part(f, "small")); /* slurm.conf's, deleted: stays deleted */
	assert_int_equal(part(f, "debug")->nnodes, 2);
	assert_ptr_equal(node_mgr_part_default(f->ctld.nodes), part(f, "made"));
	/* the same from the compacted journal (its snapshot) */
	{
		struct rota_error err = {""};
		assert_int_equal(ctld_state_rewrite(&f->ctld, &err), 0);
	}
	restart(f);
	again = settings(f, "debug");
	assert_string_equal(again, debug);
	free(again);
	assert_non_null(part(f, "made"));
	assert_null(part(f, "small"));
	assert_false(part(f, "debug")->cfg->is_default);
	free(debug);
	free(created);
}

/* scontrol reconfigure's reset: slurm.conf's partitions again, also after a
 * restart. */
static void test_reset(void **state)
{
	struct fixture *f = *state;
	struct ev_part ev = {.del = PART_EV_RESET};

	assert_int_equal(
	    ask(f, &f->admin, PART_OP_UPDATE, "debug", "State=INACTIVE", NULL), 0);
	assert_int_equal(ask(f, &f->admin, PART_OP_CREATE, "made", NULL), 0);
	assert_int_equal(ask(f, &f->admin, PART_OP_DELETE, "small", NULL), 0);
	assert_int_equal(ev_part_commit(&f->ctld, &ev), 0);
	settle(&f->ctld);
	assert_int_equal(part(f, "debug")->cfg->state, CONF_PART_UP);
	assert_null(part(f, "made"));
	assert_non_null(part(f, "small"));
	assert_string_equal(node_mgr_part(f->ctld.nodes, 0)->cfg->name, "debug");
	assert_string_equal(node_mgr_part(f->ctld.nodes, 1)->cfg->name, "small");
	assert_ptr_equal(node_mgr_part_default(f->ctld.nodes), part(f, "debug"));
	restart(f);
	assert_int_equal(part(f, "debug")->cfg->state, CONF_PART_UP);
	assert_null(part(f, "made"));
	assert_non_null(part(f, "small"));
	assert_int_equal(part(f, "small")->changed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_admins_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_all_or_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_update_delete, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_drain_alternate, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_restart, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
