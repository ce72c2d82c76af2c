/* test_replay - the journal rebuilds the state that wrote it.
 *
 * A controller (ctld_fixture.h) runs a long random mix of what happens to a
 * cluster: submissions (arrays, holds, limits), scheduling passes, steps,
 * batch scripts ending well or badly, cancels by owners, strangers and
 * admins, holds and releases, time-limit updates, requeues, node drains and
 * resumes, array tasks split off, partitions changed, made and deleted.  Then a second
 * controller replays the journal (ctld_state_restore, as rotactld starts) and a third
 * replays the compacted journal the second wrote; each state must equal the live one,
 * field by field.  Also: the journal's sequence numbers (journal_follow).
 *
 * Not compared: what the journal does not hold by design and the scheduler
 * or the nodes rebuild (a pending job's reason and backfill plan, node
 * liveness, a step's per-node completion marks, when a node last freed a CPU).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>
#include <zlib.h>
#include "common/arrayspec.h"
#include "common/recframe.h"
#include "common/strv.h"
#include "ctld/job_event.h"
#include "ctld/state.h"
#include "ctld_fixture.h"

#define NODES  "node[01-04]"
#define NNODES 4
#define STEPS  6000
#define ADMIN  0
#define NUSERS 3

static const char conf_text[] =
    "ClusterName=t\nNodeName=" NODES " CPUs=8 RealMemory=8000\n"
    "PartitionName=debug Nodes=ALL Default=YES\n";

static uint32_t rnd_state = 12345;

static uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

/* ---- the state as text, one line per fact ---- */

struct text {
	char *buf;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->len + n + 2 > t->cap) {
		t->cap = (t->len + n + 2) * 2;
		t->buf = xrealloc(t->buf, t->cap);
	}
	va_start(ap, fmt);
	vsnprintf(t->buf + t->len, n + 1, fmt, ap);
	va_end(ap);
	t->len += n;
	t->buf[t->len++] = '\n';
	t->buf[t->len] = '\0';
}

static void put_u32v(struct text *t, const char *what, const uint32_t *v, uint32_t n)
{
	struct text line = {0};

	put(&line, "%s", what);
	line.len--; /* no newline */
	for (uint32_t i = 0; v && i < n; i++)
		put(&line, " %u", v[i]), line.len--;
	put(t, "%s", line.buf ? line.buf : what);
	free(line.buf);
}

static void dump_job(struct text *t, struct job *j)
{
	char *desc, *rem = j->array_rem ? arrayspec_format(j->array_rem, 0) : NULL;
	size_t dlen;

	assert_int_equal(codec_encode(&job_desc_type, &j->desc, &desc, &dlen), 0);
	put(t, "job %u uid %u gid %u user %s group %s part %s", j->job_id, j->owner->uid,
	    j->owner->gid, j->owner->user, j->owner->group,
	    j->part ? j->part->cfg->name : "-");
	put(t, "  desc %zu bytes, crc %08x", dlen,
	    (unsigned)crc32(0, (const Bytef *)desc, (uInt)dlen));
	put(t, "  state %#x priority %u prio_set %d hold %u", j->state, j->priority,
	    j->prio_set, j->hold);
	if (!job_is_pending(j))
		put(t, "  reason %u exit %u derived %u", j->reason, j->run->exit_code,
		    j->run->derived_exit);
	put(t, "  times submit %ld eligible %ld start %ld end %ld limit %u",
	    (long)j->submit_time, (long)j->eligible_time, (long)j->run->start_time,
	    (long)j->run->end_time, j->time_limit);
	put(t, "  min_nodes %u restart %u next_step %u share %u", job_min_nodes(j),
	    j->restart_cnt, j->run->next_step_id, j->run->share);
	put(t, "  array %u task %u rem %s", j->array_job_id, j->array_task_id,
	    rem ? rem : "-");
	put(t, "  nodes %s nnodes %u", j->run->nodes_str ? j->run->nodes_str : "-",
	    j->run->nnodes);
	put_u32v(t, "  node_idx", j->run->node_idx, j->run->nnodes);
	put_u32v(t, "  cpus", j->run->cpus, j->run->nnodes);
	put_u32v(t, "  tasks", j->run->tasks, j->run->nnodes);
	for (uint32_t k = 0; k < j->run->nnodes; k++) {
		put(t, "  node %u mem %llu held %u", k,
		    (unsigned long long)j->run->mem[k],
		    j->run->held ? j->run->held[k] : 0);
		put_u32v(t, "    cores", j->run->cores ? j->run->cores[k] : NULL,
		         j->run->cpus[k]);
	}
	for (struct step *st = j->run->steps; st; st = st->next) {
		put(t, "  step %u name %s nodes %s tasks %u cpus %u start %ld overlap %d",
		    st->step_id, st->name ? st->name : "-", st->nodes ? st->nodes : "-",
		    st->num_tasks, st->num_cpus, (long)st->start_time, st->overlap);
		put_u32v(t, "    node_idx", st->node_idx, st->nnodes);
		for (uint32_t i = 0; i < st->nnodes; i++) {
			put(t, "    mem %llu", (unsigned long long)st->mem[i]);
			put_u32v(t, "    slots", st->slots[i], st->nslots[i]);
		}
	}
	free(rem);
	free(desc);
}

static char *dump(struct ctld *ctld)
{
	struct text t = {0};

	put(&t, "next job id %u, jobs %zu", job_mgr_next_id(ctld->jobs),
	    job_count(ctld->jobs));
	for (struct job *j = job_first(ctld->jobs); j; j = j->next)
		dump_job(&t, j);
	for (size_t i = 0; i < node_mgr_part_count(ctld->nodes); i++) {
		struct part *p = node_mgr_part(ctld->nodes, i);
		char **kv = conf_part_format(p->cfg);
		put(&t, "partition %s changed %d nodes %zu cpus %u", p->cfg->name,
		    p->changed, p->nnodes, p->total_cpus);
		for (size_t k = 0; kv[k]; k++)
			put(&t, "  %s", kv[k]);
		strv_free(kv);
	}
	for (size_t i = 0; i < node_mgr_count(ctld->nodes); i++) {
		struct node *n = node_mgr_get(ctld->nodes, i);
		put(&t, "node %s alloc %u shared %u mem %llu run %u completing %u",
		    n->cfg->name, n->alloc_cpus, n->shared_cpus,
		    (unsigned long long)n->alloc_mem, n->run_jobs, n->completing);
		put(&t, "  drain %d admin_down %d reason %s uid %u time %ld",
		    !!(n->flags & NODE_DRAIN), n->admin_down, n->reason ? n->reason : "-",
		    n->reason_uid, (long)n->reason_time);
		for (uint32_t c = 0; c < n->cpus; c++)
			put(&t, "  core %u %u", c, n->core_used[c]);
	}
	return t.buf;
}

/* The first line where a and b differ, for the failure message. */
static void assert_same(const char *what, const char *a, const char *b)
{
	size_t line = 1;
	const char *pa = a, *pb = b;

	if (!strcmp(a, b))
		return;
	while (*pa && *pa == *pb) {
		if (*pa == '\n')
			line++, a = pa + 1, b = pb + 1;
		pa++, pb++;
	}
	print_error("%s differs at line %zu:\n  live:     %.*s\n  replayed: %.*s\n", what,
	            line, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
	fail();
}

/* ---- the workload ---- */

struct world {
	struct ctld *ctld;
	struct caller users[NUSERS], admin, nodes[NNODES];
	struct rec_chan links[NNODES];
	struct rec_chan srun; /* where the steps' sruns listen */
};

static void node_says(struct world *w, int k, uint32_t job_id, uint32_t step_id,
                      uint32_t status, uint32_t flags)
{
	struct step_complete *m = xcalloc(1, sizeof(*m));
	void *body = m;

	m->job_id = job_id;
	m->step_id = step_id;
	m->node_name = xstrdup(node_mgr_get(w->ctld->nodes, k)->cfg->name);
	m->status = status;
	m->flags = flags;
	m->start_time = (int64_t)job_find(w->ctld->jobs, job_id)->run->start_time;
	ops_call(w->ctld, &w->nodes[k], MSG_STEP_COMPLETE, &body, &w->links[k].chan);
	msg_body_free(MSG_STEP_COMPLETE, body);
	settle(w->ctld);
}

/* Every node of an ended job confirms that nothing of it is left. */
static void confirm_gone(struct world *w, struct job *j)
{
	for (uint32_t k = 0; (j->state & JOB_COMPLETING) && k < j->run->nnodes; k++)
		node_says(w, (int)j->run->node_idx[k], j->job_id, NO_VAL, 0,
		          STEP_DONE_JOB_GONE);
}

static struct job *pick(struct world *w, int (*want)(const struct job *))
{
	size_t n = job_count(w->ctld->jobs), i = n ? rnd((uint32_t)n) : 0;
	struct job *j = job_first(w->ctld->jobs);

	while (j && i--)
		j = j->next;
	for (size_t tries = 0; j && tries < n; tries++) {
		if (want(j))
			return j;
		j = j->next ? j->next : job_first(w->ctld->jobs);
	}
	return NULL;
}

static int any_job(const struct job *j)
{
	return 1;
}

static int running_batch(const struct job *j)
{
	return job_is_running(j) && !(j->state & JOB_CONFIGURING);
}

static int pending_array(const struct job *j)
{
	return job_is_pending(j) && j->array_rem;
}

static struct caller *someone(struct world *w, const struct job *j)
{
	uint32_t r = rnd(10);

	if (r < 6)
		for (int i = 0; i < NUSERS; i++)
			if (w->users[i].uid == j->owner->uid)
				return &w->users[i];
	return r < 8 ? &w->admin : &w->users[rnd(NUSERS)];
}

/* One of a few environments (k), as sbatch sends them. */
static char **env_new(uint32_t k)
{
	char **env = xcalloc(4, sizeof(char *));

	env[0] = xasprintf("HOME=/home/u%u", k);
	env[1] = xstrdup("PATH=/usr/bin:/bin");
	if (k == 2)
		env[2] = xstrdup("SLURM_TEST=1");
	return env;
}

static void do_submit(struct world *w)
{
	struct job_desc *d = desc_new();
	struct caller *who = &w->users[rnd(NUSERS)];
	uint32_t r = rnd(100);

	d->num_tasks = 1 + rnd(6);
	if (r < 15)
		d->array_inx = xstrdup(rnd(2) ? "0-3" : "1-7%2");
	if (r >= 15 && r < 25)
		d->hold = 1;
	if (rnd(3) == 0)
		d->time_limit = 1 + rnd(100);
	if (rnd(4) == 0)
		d->min_nodes = 1 + rnd(2);
	d->name = xstrdup(rnd(2) ? "a" : "train");
	/* environments and scripts repeat, as a workflow's do: the journal
	 * writes each once (ctld/jtext.h) */
	d->env = env_new(rnd(3));
	if (rnd(2)) {
		free(d->script);
		d->script = xasprintf("#!/bin/sh\nsleep %u\n", rnd(3));
	}
	(void)op_rc(w->ctld, who, MSG_SUBMIT_REQ, d);
}

static void do_step(struct world *w)
{
	struct job *j = pick(w, running_batch);
	struct step_create_req *req;
	void *body;

	if (!j)
		return;
	req = xcalloc(1, sizeof(*req));
	req->job_id = j->job_id;
	req->min_nodes = NO_VAL;
	req->num_tasks = 1;
	req->ntasks_per_node = NO_VAL;
	req->cpus_per_task = 1;
	req->relative = NO_VAL;
	req->name = xstrdup("step");
	req->argv = xcalloc(2, sizeof(char *));
	req->argv[0] = xstrdup("true");
	body = req;
	ops_call(w->ctld, someone(w, j), MSG_STEP_CREATE_REQ, &body, &w->srun.chan);
	msg_body_free(MSG_STEP_CREATE_REQ, body);
	settle(w->ctld);
}

static void do_step_end(struct world *w)
{
	struct job *j = pick(w, running_batch);
	struct step *st;

	if (!j || !(st = j->run->steps))
		return;
	for (uint32_t i = 0; i < st->nnodes; i++) {
		uint32_t id = st->step_id, job_id = j->job_id;
		node_says(w, (int)st->node_idx[i], job_id, id, rnd(3) ? 0 : 2 << 8, 0);
		if (!(j = job_find(w->ctld->jobs, job_id)) || !(st = j->run->steps) ||
		    st->step_id != id)
			break;
	}
}

static void do_batch_end(struct world *w)
{
	struct job *j = pick(w, running_batch);
	uint32_t id;

	if (!j)
		return;
	id = j->job_id;
	node_says(w, (int)j->run->node_idx[0], id, STEP_BATCH, rnd(4) ? 0 : 1 << 8, 0);
	if (rnd(5) && (j = job_find(w->ctld->jobs, id)))
		confirm_gone(w, j); /* else later, or never (the restore settles it) */
}

/* scancel of j (of one task of its pending remainder when task != NO_VAL) by
 * its owner, someone else or an admin. */
static void cancel_by_someone(struct world *w, struct job *j, uint32_t task)
{
	struct cancel_req *req = xcalloc(1, sizeof(*req));

	req->job_id = j->job_id;
	req->step_id = NO_VAL;
	if (task != NO_VAL) {
		req->flags = CANCEL_F_ARRAY_TASK;
		req->array_task_id = task;
	}
	(void)op_rc(w->ctld, someone(w, j), MSG_CANCEL_REQ, req);
}

static void do_cancel(struct world *w)
{
	struct job *j = pick(w, any_job);

	if (j)
		cancel_by_someone(w, j, NO_VAL);
}

static void do_array_task(struct world *w)
{
	struct job *j = pick(w, pending_array);

	if (j)
		cancel_by_someone(w, j, (uint32_t)arrayspec_first(j->array_rem));
}

static void do_update(struct world *w)
{
	static const uint32_t ops[] = {JOB_OP_HOLD,    JOB_OP_UHOLD,  JOB_OP_RELEASE,
	                               JOB_OP_RELEASE, JOB_OP_UPDATE, JOB_OP_REQUEUE,
	                               JOB_OP_TOP};
	struct job *j = pick(w, any_job);
	struct job_update_req *req;

	if (!j)
		return;
	req = xcalloc(1, sizeof(*req));
	req->job_id = j->job_id;
	req->op = ops[rnd(sizeof(ops) / sizeof(ops[0]))];
	if (req->op == JOB_OP_UPDATE) {
		req->kv = xcalloc(2, sizeof(char *));
		req->kv[0] =
		    xasprintf(rnd(2) ? "TimeLimit=%u" : "Priority=%u", 1 + rnd(500));
	}
	(void)op_rc(w->ctld, someone(w, j), MSG_JOB_UPDATE_REQ, req);
}

static void do_node(struct world *w)
{
	static const char *const states[] = {"DRAIN", "RESUME", "DOWN", "RESUME"};
	struct node_update_req *req = xcalloc(1, sizeof(*req));

	req->nodes = xstrdup(node_mgr_get(w->ctld->nodes, rnd(NNODES))->cfg->name);
	req->state = xstrdup(states[rnd(4)]);
	req->reason = xasprintf("maintenance %u", rnd(100));
	(void)op_rc(w->ctld, &w->admin, MSG_NODE_UPDATE_REQ, req);
}

/* scontrol update|create|delete partition by an admin: a partition of its
 * own made, changed (its state, nodes) and deleted, and the default one's
 * nodes and limits changed. */
static void do_part(struct world *w)
{
	static const char *const extra_kv[] = {"State=DOWN", "State=DRAIN",
	                                       "State=UP",   "Nodes=node04",
	                                       "Nodes=ALL",  "Hidden=YES"};
	static const char *const debug_kv[] = {"Nodes=node[01-03]", "Nodes=ALL",
	                                       "PriorityTier=2", "MaxTime=UNLIMITED"};
	struct part_update_req *req = xcalloc(1, sizeof(*req));
	int extra = node_mgr_part_find(w->ctld->nodes, "extra") != NULL;
	uint32_t r = rnd(4);

	req->settings = xcalloc(1, sizeof(char *));
	req->name = xstrdup(r == 3 ? "debug" : "extra");
	if (r == 3) {
		req->op = PART_OP_UPDATE;
		req->settings = strv_append(req->settings, debug_kv[rnd(4)]);
	} else if (!extra) {
		req->op = PART_OP_CREATE;
		req->settings = strv_append(req->settings, "Nodes=node[02-03]");
	} else if (r == 0) {
		req->op = PART_OP_DELETE;
	} else {
		req->op = PART_OP_UPDATE;
		req->settings = strv_append(req->settings, extra_kv[rnd(6)]);
	}
	(void)op_rc(w->ctld, &w->admin, MSG_PART_UPDATE_REQ, req);
}

static void world_init(struct world *w, struct ctld *ctld)
{
	memset(w, 0, sizeof(*w));
	w->ctld = ctld;
	for (int i = 0; i < NUSERS; i++)
		caller_init_user(&w->users[i], ctld, 1001 + i, 1001 + i);
	caller_init_user(&w->admin, ctld, ADMIN, 0);
	rec_init(&w->srun);
	for (int k = 0; k < NNODES; k++) {
		struct node_register *reg = xcalloc(1, sizeof(*reg));
		void *body = reg;

		caller_init_node(&w->nodes[k], k, ADMIN, 0);
		rec_init(&w->links[k]);
		reg->name = xstrdup(node_mgr_get(ctld->nodes, k)->cfg->name);
		reg->cpus = 8;
		ops_call(ctld, &w->nodes[k], MSG_NODE_REGISTER, &body, &w->links[k].chan);
		msg_body_free(MSG_NODE_REGISTER, body);
		assert_int_equal(w->links[k].type[w->links[k].n - 1], MSG_NODE_ACK);
	}
}

static void world_run(struct world *w, int steps)
{
	for (int i = 0; i < steps; i++) {
		uint32_t r = rnd(100);
		if (r < 25)
			do_submit(w);
		else if (r < 40)
			sched_pass(w->ctld, time(NULL), SCHED_PASS_FULL);
		else if (r < 52)
			do_batch_end(w);
		else if (r < 60)
			do_step(w);
		else if (r < 67)
			do_step_end(w);
		else if (r < 75)
			do_cancel(w);
		else if (r < 88)
			do_update(w);
		else if (r < 93)
			do_node(w);
		else if (r < 95)
			do_part(w);
		else
			do_array_task(w);
		settle(w->ctld);
	}
}

static int count_events(union job_event *ev, void *arg)
{
	(*(size_t *)arg)++;
	return 0;
}

static void rm_rf(const char *dir)
{
	assert_int_equal(fixture_rm_rf(dir), 0);
}

static void test_replay_rebuilds_live_state(void **state)
{
	struct ctld live, again, third;
	struct rota_error err = {""};
	struct world w;
	char dir[] = "/tmp/test_replay.XXXXXX", *a, *b, *c;
	size_t events = 0;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(fixture_open(&live, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&live, &err), 0);
	world_init(&w, &live);
	world_run(&w, STEPS);
	print_message("%llu events, %zu jobs\n",
	              (unsigned long long)journal_last_seq(live.journal),
	              job_count(live.jobs));
	/* a workload worth the name went through */
	assert_true(journal_last_seq(live.journal) > STEPS / 2);
	assert_true(job_count(live.jobs) > 200);
	a = dump(&live);
	/* what the nodes never confirmed, a restart settles: so does the live
	 * state before it is compared */
	for (struct job *j = job_first(live.jobs); j; j = j->next)
		if (j->state & JOB_COMPLETING)
			job_release_all(&live, j, j->run->end_time);
	free(a);
	a = dump(&live);
	settle(&live);
	assert_int_equal(journal_follow(live.journal, 0, count_events, &events, &err), 0);
	assert_int_equal(events, journal_last_seq(live.journal));

	/* a controller restarted on this journal */
	assert_int_equal(fixture_open(&again, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&again, &err), 0);
	b = dump(&again);
	assert_same("state replayed from the journal", a, b);
	/* a compaction keeps the numbering: followers below it must start over */
	assert_int_equal(ctld_state_rewrite(&again, &err), 0);
	assert_int_equal(journal_base_seq(again.journal), journal_last_seq(live.journal));
	events = 0;
	assert_int_equal(journal_follow(again.journal, 0, count_events, &events, &err),
	                 -ESTALE);
	assert_int_equal(journal_follow(again.journal, journal_base_seq(again.journal),
	                                count_events, &events, &err),
	                 0);
	assert_int_equal(events, 0);
	fixture_close(&again);

	/* and again, from the compacted journal */
	assert_int_equal(fixture_open(&third, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&third, &err), 0);
	c = dump(&third);
	assert_same("state replayed from the compacted journal", a, c);
	fixture_close(&third);

	fixture_close(&live);
	free(a);
	free(b);
	free(c);
	rm_rf(dir);
}

/* After a compaction new events are numbered on from the snapshot, and a
 * follower that holds everything to the snapshot gets exactly them. */
static void test_follow_after_compaction(void **state)
{
	struct ctld ctld;
	struct rota_error err = {""};
	struct caller alice;
	char dir[] = "/tmp/test_replay.XXXXXX";
	uint64_t base;
	size_t events = 0;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(fixture_open(&ctld, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&ctld, &err), 0);
	caller_init_user(&alice, &ctld, 1001, 1001);
	/* the new history's META (its lineage), then five submissions */
	for (int i = 0; i < 5; i++)
		assert_int_equal(op_rc(&ctld, &alice, MSG_SUBMIT_REQ, desc_new()), -1);
	assert_int_equal(journal_last_seq(ctld.journal), 6);
	fixture_close(&ctld);

	assert_int_equal(fixture_open(&ctld, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&ctld, &err), 0);
	/* a start replays; it does not compact (that waits for growth) */
	assert_int_equal(journal_base_seq(ctld.journal), 0);
	assert_int_equal(ctld_state_rewrite(&ctld, &err), 0);
	base = journal_base_seq(ctld.journal);
	assert_int_equal(base, 6);
	caller_init_user(&alice, &ctld, 1001, 1001);
	assert_int_equal(op_rc(&ctld, &alice, MSG_SUBMIT_REQ, desc_new()), -1);
	assert_int_equal(journal_last_seq(ctld.journal), 7);
	assert_int_equal(journal_follow(ctld.journal, base, count_events, &events, &err),
	                 0);
	assert_int_equal(events, 1);
	assert_int_equal(
	    journal_follow(ctld.journal, base - 1, count_events, &events, &err), -ESTALE);
	fixture_close(&ctld);
	rm_rf(dir);
}

/* A compaction in its own process while the controller goes on: what was
 * appended meanwhile is in the result, and followers see the numbering go on. */
static void test_compaction_while_serving(void **state)
{
	struct ctld live, again;
	struct rota_error err = {""};
	struct world w;
	char dir[] = "/tmp/test_replay.XXXXXX", *a, *b;
	uint64_t before;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(fixture_open(&live, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&live, &err), 0);
	world_init(&w, &live);
	world_run(&w, STEPS / 4);
	before = journal_last_seq(live.journal);
	assert_int_equal(ctld_state_compact_start(&live, &err), 0);
	assert_true(journal_compacting(live.journal));
	assert_int_equal(ctld_state_compact_start(&live, &err), -EBUSY);
	/* the loop goes on: requests are answered, their events journaled */
	world_run(&w, STEPS / 8);
	assert_true(journal_last_seq(live.journal) > before);
	while (journal_compacting(live.journal))
		event_base_loop(live.base, EVLOOP_ONCE);
	settle(&live);
	assert_int_equal(journal_base_seq(live.journal), before);
	for (struct job *j = job_first(live.jobs); j; j = j->next)
		if (j->state & JOB_COMPLETING)
			job_release_all(&live, j, j->run->end_time);
	a = dump(&live);

	assert_int_equal(fixture_open(&again, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&again, &err), 0);
	b = dump(&again);
	assert_same("state replayed after a compaction while serving", a, b);
	fixture_close(&again);
	fixture_close(&live);
	free(a);
	free(b);
	rm_rf(dir);
}

/* ---- texts written once ---- */

struct rec_count {
	const uint8_t *map;
	size_t texts, submits, refs;
	size_t text_off[8]; /* where each TEXT record begins */
};

static int count_rec(void *arg, const uint8_t *body, size_t len)
{
	struct rec_count *c = arg;
	struct rota_error err = {""};
	union job_event ev;

	assert_int_equal(job_event_decode((const char *)body, len, &ev, &err), 0);
	if (ev.head.type == EV_TEXT) {
		if (c->texts < 8)
			c->text_off[c->texts] = (size_t)(body - c->map) - RECFRAME_HDR;
		c->texts++;
	} else if (ev.head.type == EV_SUBMIT) {
		c->submits++;
		if (ev.submit.env_text && ev.submit.script_text)
			c->refs++;
	}
	job_event_release(&ev);
	return 0;
}

static struct rec_count count_file(const char *dir)
{
	char *path = xasprintf("%s/journal", dir);
	struct rec_count c = {0};
	struct recframe_result res = {0};
	FILE *f = fopen(path, "rb");
	uint8_t *buf = xmalloc(1 << 20);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	c.map = buf;
	assert_int_equal(recframe_walk(buf, n, count_rec, NULL, &c, &res), 0);
	free(buf);
	free(path);
	return c;
}

/* Submit a held job with environment k, as who. */
static void submit_held(struct ctld *ctld, struct caller *who, uint32_t k)
{
	struct job_desc *d = desc_new();

	d->hold = 1;
	d->env = env_new(k);
	assert_int_equal(op_rc(ctld, who, MSG_SUBMIT_REQ, d), -1);
}

static int has_env(const struct job *j, uint32_t k)
{
	char **want = env_new(k);
	int same = strv_len(j->desc.env) == strv_len(want);

	for (size_t i = 0; same && want[i]; i++)
		same = !strcmp(j->desc.env[i], want[i]);
	strv_free(want);
	return same;
}

/* Eleven submissions from two environments with one script: the journal
 * holds each text once and the SUBMITs refer to them; a restart gives every
 * job its own back; a rewrite holds them once again and goes on referring to
 * them; a damaged TEXT costs the jobs that use it, and only them. */
static void test_texts_written_once(void **state)
{
	struct ctld ctld;
	struct rota_error err = {""};
	struct caller alice;
	char dir[] = "/tmp/test_replay.XXXXXX", *path;
	struct rec_count c;
	size_t with_env1 = 0;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(fixture_open(&ctld, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&ctld, &err), 0);
	caller_init_user(&alice, &ctld, 1001, 1001);
	for (int i = 0; i < 11; i++)
		submit_held(&ctld, &alice, i == 5 ? 1 : 0);
	fixture_close(&ctld);
	c = count_file(dir);
	assert_int_equal(c.submits, 11);
	assert_int_equal(c.refs, 11);
	assert_int_equal(c.texts, 3); /* two environments, one script */

	assert_int_equal(fixture_open(&ctld, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&ctld, &err), 0);
	assert_int_equal(job_count(ctld.jobs), 11);
	for (struct job *j = job_first(ctld.jobs); j; j = j->next) {
		assert_string_equal(j->desc.script, "#!/bin/sh\ntrue\n");
		assert_true(has_env(j, j->job_id == 6 ? 1 : 0));
	}
	/* written again whole: the texts once more, and still referred to */
	assert_int_equal(ctld_state_rewrite(&ctld, &err), 0);
	caller_init_user(&alice, &ctld, 1001, 1001);
	submit_held(&ctld, &alice, 0);
	fixture_close(&ctld);
	c = count_file(dir);
	assert_int_equal(c.submits, 12);
	assert_int_equal(c.refs, 12);
	assert_int_equal(c.texts, 3);

	/* damage each TEXT in turn: find the one of the second environment */
	path = xasprintf("%s/journal", dir);
	for (size_t t = 0; t < c.texts && !with_env1; t++) {
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "cp %s/journal %s/keep", dir, dir);
		assert_int_equal(system(cmd), 0);
		f = fopen(path, "r+b");
		assert_non_null(f);
		fseek(f, (long)(c.text_off[t] + RECFRAME_HDR + 4), SEEK_SET);
		fputc(0xc1, f); /* a byte msgpack never uses, in the body */
		fclose(f);
		assert_int_equal(fixture_open(&ctld, dir, conf_text), 0);
		assert_int_equal(ctld_state_restore(&ctld, &err), 0);
		if (job_count(ctld.jobs) == 11 && !job_find(ctld.jobs, 6)) {
			with_env1 = 1; /* the others all kept theirs */
			for (struct job *j = job_first(ctld.jobs); j; j = j->next)
				assert_true(has_env(j, 0));
		}
		fixture_close(&ctld);
		snprintf(cmd, sizeof(cmd), "rm -f %s/journal*; mv %s/keep %s/journal",
		         dir, dir, dir);
		assert_int_equal(system(cmd), 0);
	}
	assert_true(with_env1);
	free(path);
	rm_rf(dir);
}

/* A backup that is sent a snapshot clears its state (a new job table, with
 * new kept texts): what the journal writes next refers to those, in a rewrite
 * and in appends (under ASan, the old table's would be read after free). */
static void test_texts_after_state_clear(void **state)
{
	struct ctld ctld;
	struct rota_error err = {""};
	struct caller alice;
	char dir[] = "/tmp/test_replay.XXXXXX";
	struct rec_count c;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(fixture_open(&ctld, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&ctld, &err), 0);
	caller_init_user(&alice, &ctld, 1001, 1001);
	for (int i = 0; i < 2; i++)
		submit_held(&ctld, &alice, 0);
	ctld_state_clear(&ctld);
	caller_init_user(&alice, &ctld, 1001, 1001);
	submit_held(&ctld, &alice, 0);
	assert_int_equal(ctld_state_rewrite(&ctld, &err), 0);
	fixture_close(&ctld);
	c = count_file(dir);
	assert_int_equal(c.submits, 1); /* the state after the clear */
	assert_int_equal(c.texts, 2);
	assert_int_equal(fixture_open(&ctld, dir, conf_text), 0);
	assert_int_equal(ctld_state_restore(&ctld, &err), 0);
	assert_int_equal(job_count(ctld.jobs), 1);
	assert_true(has_env(job_first(ctld.jobs), 0));
	fixture_close(&ctld);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_replay_rebuilds_live_state),
	    cmocka_unit_test(test_follow_after_compaction),
	    cmocka_unit_test(test_compaction_while_serving),
	    cmocka_unit_test(test_texts_written_once),
	    cmocka_unit_test(test_texts_after_state_clear),
	};

	log_init("test_replay", LOG_CRIT, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
