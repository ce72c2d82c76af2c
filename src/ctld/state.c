/* state.c - the controller's state and its journal: rebuilt at start-up by
 * replaying it, written again whole (compaction) when it has grown or after a
 * write failure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/arrayspec.h"
#include "common/entropy.h"
#include "common/conf.h"
#include "common/schedparams.h"
#include "common/states.h"
#include "ctld/acct.h"
#include "ctld/assoc.h"
#include "ctld/ctld.h"
#include "ctld/image.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/node_mgr.h"
#include "ctld/node_feat.h"
#include "ctld/power.h"
#include "ctld/crontab.h"
#include "ctld/part_update.h"
#include "ctld/resv.h"
#include "ctld/trigger.h"
#include "ctld/sched_pass.h"
#include "ctld/state.h"
#include "common/common.h"

static int replay_one(union job_event *ev, void *arg)
{
	struct ctld *ctld = arg;
	int rc;

	ctld->restoring = ev->head.seq == 0; /* a snapshot's */
	rc = job_event_apply_owned(ctld, ev);
	ctld->restoring = 0;
	if (rc < 0)
		log_debug("journal: skipped %s event %llu (%d)",
		          job_event_name(ev->head.type), (unsigned long long)ev->head.seq,
		          rc);
	return 0;
}

/* ---- compaction: the live state as a minimal list of events ---- */

struct compact {
	struct ctld *ctld;
	struct job *cur;
	int phase; /* 0 meta, 1 assocs, 7 partitions, 2 jobs (submit/start/end per
	            * job), 3 nodes, 4 reservations, 5 triggers, 6 crontabs */
	int sub;
	struct step *step; /* sub 4: the running job's next step */
	size_t node;
	size_t resv;
	size_t trig;
	size_t cron;
	size_t part;
	int susp; /* sub 3: the suspension events of the job so far */
	/* ctld_state_walk: each job's SUBMIT is the job handed here instead */
	void (*on_job)(void *arg, const struct job *j);
	void *arg;
};

void ctld_state_submit_fields(const struct job *j, struct ev_submit *ev)
{
	ev->type = EV_SUBMIT;
	ev->job_id = j->job_id;
	ev->time = j->submit_time;
	ev->uid = j->owner->uid;
	ev->gid = j->owner->gid;
	ev->priority = j->priority;
	ev->hold = j->hold;
	ev->time_limit = j->time_limit;
	ev->restart_cnt = j->restart_cnt;
	ev->state = j->state & JOB_REQUEUE_FLAG;
	ev->flags = j->prio_set ? SUBMIT_EV_PRIO_SET : 0;
	if (j->eligible_time > j->submit_time)
		ev->eligible_time = j->eligible_time;
	ev->array_job_id = j->array_job_id;
	ev->array_task_id = j->array_task_id;
	if (j->array_rem) {
		ev->array_pending = arrayspec_format(j->array_rem, 0);
		ev->throttle = j->array_rem->throttle;
	}
}

static void gen_submit(const struct job *j, struct ev_submit *ev)
{
	ctld_state_submit_fields(j, ev);
	ev->user = xstrdup(j->owner->user);
	ev->group = xstrdup(j->owner->group);
	ev->desc = xcalloc(1, sizeof(struct job_desc));
	codec_copy(&job_desc_type, ev->desc, &j->desc);
	ev->desc_count = 1;
}

static void gen_start(const struct job *j, struct ev_start *ev)
{
	ev->type = EV_START;
	ev->job_id = j->job_id;
	ev->time = j->run->start_time;
	ev->state = j->state & JOB_CONFIGURING;
	ev->next_step_id = j->run->next_step_id;
	ev->derived_exit = j->run->derived_exit;
	ev->mcs_select = j->run->mcs_select ? 1 : 0;
	ev->nodes = xstrdup(j->run->nodes_str);
	ev->batch_node = j->run->batch_node;
	if (job_multi_part(j) && j->part)
		ev->partition = xstrdup(j->part->cfg->name);
	if (j->run->resv)
		ev->reservation = xstrdup(j->run->resv);
	ev->cpus_per_node.v = xcalloc(j->run->nnodes, sizeof(uint32_t));
	ev->tasks_per_node.v = xcalloc(j->run->nnodes, sizeof(uint32_t));
	ev->mem_per_node.v = xcalloc(j->run->nnodes, sizeof(uint32_t));
	ev->cpus_per_node.n = ev->tasks_per_node.n = ev->mem_per_node.n = j->run->nnodes;
	/* the cores it holds, so that it holds the same ones */
	for (uint32_t i = 0; i < j->run->nnodes; i++)
		ev->slots.n += j->run->cpus[i];
	ev->slots.v = xcalloc(ev->slots.n + 1, sizeof(uint32_t));
	for (uint32_t i = 0, at = 0; i < j->run->nnodes; at += j->run->cpus[i], i++)
		memcpy(ev->slots.v + at, j->run->cores[i],
		       j->run->cpus[i] * sizeof(uint32_t));
	for (uint32_t i = 0; i < j->run->nnodes; i++) {
		ev->cpus_per_node.v[i] = j->run->cpus[i];
		ev->tasks_per_node.v[i] = j->run->tasks[i];
		ev->mem_per_node.v[i] = (uint32_t)j->run->mem[i];
	}
	if (j->run->gres) { /* and the same devices */
		ev->gres = xcalloc(j->run->nnodes + 1, sizeof(char *));
		for (uint32_t i = 0; i < j->run->nnodes; i++)
			ev->gres[i] = xstrdup(j->run->gres[i] ? j->run->gres[i] : "");
	}
}

static void gen_end(const struct job *j, struct ev_end *ev)
{
	ev->type = EV_END;
	ev->job_id = j->job_id;
	ev->time = j->run->end_time;
	ev->derived_exit = j->run->derived_exit;
	ev->state = j->state;
	ev->reason = j->reason;
	ev->exit_code = j->run->exit_code;
}

/* A job suspended or resumed before: events that give it the same times
 * back (suspended at its start for the seconds it has been, resumed; then,
 * when it is suspended now, suspended again then).  cp->susp counts them. */
static int gen_suspend(struct compact *cp, const struct job *j, struct ev_suspend *ev)
{
	const struct job_run *run = j->run;
	int now_sus = (j->state & JOB_SUSPEND_FLAG) != 0;

	if (!job_is_running(j) || !run->suspend_time)
		return 0;
	ev->type = EV_SUSPEND;
	ev->job_id = j->job_id;
	switch (cp->susp) {
	case 0:
		if (!run->sus_secs)
			cp->susp = 2; /* straight to the current one */
		else {
			ev->suspend = 1;
			ev->time = run->start_time;
			cp->susp = 1;
			return 1;
		}
		/* fall through */
	case 2:
		cp->susp = 3;
		if (!now_sus)
			return 0;
		ev->suspend = 1;
		ev->time = run->suspend_time;
		ev->preempted = (uint32_t)run->sus_preempted;
		ev->gang = (uint32_t)run->sus_gang;
		return 1;
	case 1:
		ev->suspend = 0;
		ev->time = run->start_time + run->sus_secs;
		cp->susp = 2;
		return 1;
	default:
		return 0;
	}
}

static int gen_job(struct compact *cp, struct job *j, union job_event *ev)
{
	switch (cp->sub) {
	case 0:
		if (cp->on_job) {
			cp->on_job(cp->arg, j);
			return 0;
		}
		gen_submit(j, &ev->submit);
		return 1;
	case 1:
		if (!j->run->nnodes)
			return 0;
		gen_start(j, &ev->start);
		return 1;
	case 4: /* the running job's steps, one event each */
		if (!cp->step)
			return 0;
		step_event_fill(j, cp->step, &ev->step_start);
		cp->step = cp->step->next;
		return 1;
	case 3: /* suspensions (the priority an admin set is in the SUBMIT) */
		return gen_suspend(cp, j, &ev->suspend);
	default:
		if (!job_is_finished(j))
			return 0;
		gen_end(j, &ev->end);
		return 1;
	}
}

static int compact_gen(void *arg, size_t i, union job_event *ev)
{
	struct compact *cp = arg;

	if (cp->phase == 0) {
		cp->phase = 1;
		ev->meta.type = EV_META;
		ev->meta.next_job_id = job_mgr_next_id(cp->ctld->jobs);
		ev->meta.term = cp->ctld->term;
		ev->meta.lineage = cp->ctld->lineage;
		return 1;
	}
	if (cp->phase == 1) { /* accounts, users, associations, QOS: one record */
		cp->phase = 7;
		assoc_snapshot(cp->ctld->assoc, &ev->assoc);
		return 1;
	}
	/* the partitions scontrol changed, before the jobs that name them */
	if (cp->phase == 7) {
		if (part_snapshot(cp->ctld, cp->part, &ev->part)) {
			cp->part++;
			return 1;
		}
		cp->phase = 2;
		cp->cur = job_first(cp->ctld->jobs);
	}
	while (cp->phase == 2 && cp->cur) {
		int got = gen_job(cp, cp->cur, ev);
		if (got && (cp->sub == 4 || cp->sub == 3))
			return 1; /* more steps, or suspensions, may follow */
		if (++cp->sub > 4) {
			cp->sub = 0;
			cp->susp = 0;
			cp->cur = cp->cur->next;
		} else if (cp->sub == 4) {
			cp->step = job_is_running(cp->cur) ? cp->cur->run->steps : NULL;
		}
		if (got)
			return 1;
	}
	cp->phase = 3;
	while (cp->node < node_mgr_count(cp->ctld->nodes)) {
		struct node *n = node_mgr_get(cp->ctld->nodes, cp->node);
		/* sub 0: its features set by scontrol (ctld/node_feat.h), then
		 * its state */
		if (cp->sub == 0) {
			cp->sub = 1;
			if (node_feat_snapshot(n, &ev->node_features))
				return 1;
		}
		cp->sub = 0;
		cp->node++;
		if (!(n->flags & (NODE_DRAIN | NODE_FAIL)) && !n->admin_down &&
		    n->power != NODE_POWER_OFF && n->power != NODE_POWER_GOING_DOWN &&
		    n->power != NODE_POWER_GOING_UP && !n->reboot)
			continue;
		node_mgr_state_event(n, &ev->node_state);
		return 1;
	}
	cp->phase = 4;
	if (resv_snapshot(cp->ctld->resvs, cp->resv, &ev->resv)) {
		cp->resv++;
		return 1;
	}
	cp->phase = 5;
	if (trigger_snapshot(cp->ctld->triggers, cp->trig, &ev->trigger)) {
		cp->trig++;
		return 1;
	}
	cp->phase = 6;
	return crontab_snapshot(cp->ctld->crontabs, cp->cron++, &ev->crontab);
}

int ctld_state_restore(struct ctld *ctld, struct rota_error *err)
{
	int new_lineage = 0;

	struct journal_mark mark;
	int rc;

	ctld->replaying = 1;
	journal_set_texts(ctld->journal, job_mgr_texts(ctld->jobs));
	/* the image of a clean stop, then what the journal holds after it;
	 * else the journal whole */
	if (image_load(ctld, &mark) > 0)
		rc = journal_replay_from(ctld->journal, &mark, replay_one, ctld, err);
	else
		rc = journal_replay(ctld->journal, replay_one, ctld, err);
	if (rc < 0)
		return -1;
	ctld->replaying = 0;
	ctld_state_settle(ctld);
	/* a new history (or one older than lineages) gets its own: nodes
	 * compare controllers' terms only within one */
	if (!ctld->lineage && !ctld->standby) {
		if (entropy_fill(&ctld->lineage, sizeof(ctld->lineage)) < 0 ||
		    !ctld->lineage)
			ctld->lineage = (uint64_t)time(NULL) << 20 | (uint64_t)getpid();
		new_lineage = 1;
	}
	/* ids already handed out stay handed out, whatever the journal lost */
	job_mgr_id_restore(ctld, journal_damaged(ctld->journal) ? "journal damaged"
	                         : journal_torn(ctld->journal)  ? "journal tail torn"
	                                                        : NULL);
	/* purge what aged out while we were down.  A journal that was damaged
	 * (or is of the old format) is written again whole now; any other is
	 * served at once, and compacted in a child process once it has grown
	 * (ctld_state_tick): the first request waits for the replay alone.  On
	 * a full disk start anyway (a journal that must be rewritten first
	 * stays failed: tick_cb retries) */
	job_mgr_tick(ctld, time(NULL));
	if (journal_needs_rewrite(ctld->journal) && ctld_state_rewrite(ctld, err) < 0)
		log_err("journal compaction skipped: %s", err->text);
	/* and an event that says so, for a backup that follows from a number */
	if (new_lineage)
		ctld_state_mark(ctld, time(NULL));
	log_info("restored %zu jobs; next job id %u", job_count(ctld->jobs),
	         job_mgr_next_id(ctld->jobs));
	return 0;
}

/* The journal failed (full disk, I/O error): try to write the whole state
 * again, after 1, 2, 4 s... (at most JOURNAL_RETRY_MAX s) between tries. */
#define JOURNAL_RETRY_MAX 4

void ctld_state_retry(struct ctld *ctld, time_t now, int now_or_never)
{
	struct rota_error err = {""};

	if (!now_or_never && now < ctld->journal_retry_at)
		return;
	if (ctld_state_rewrite(ctld, &err) < 0) {
		ctld->journal_retry_wait =
		    ctld->journal_retry_wait ? ctld->journal_retry_wait * 2 : 1;
		if (ctld->journal_retry_wait > JOURNAL_RETRY_MAX)
			ctld->journal_retry_wait = JOURNAL_RETRY_MAX;
		ctld->journal_retry_at = now + ctld->journal_retry_wait;
		log_debug("journal still not writable: %s", err.text);
		return;
	}
	ctld->journal_retry_wait = 0;
	ctld->journal_retry_at = 0;
}

int ctld_state_compact_start(struct ctld *ctld, struct rota_error *err)
{
	/* the child process gets its own copy of cp, with the state */
	struct compact cp = {.ctld = ctld};

	return journal_compact_start(ctld->journal, compact_gen, &cp, err);
}

/* SchedulerParameters=journal_compact_mb (common/schedparams.h). */
static size_t ctld_compact_bytes(const struct ctld *ctld)
{
	struct sched_params sp;

	sched_params_parse(ctld->conf->scheduler_params, &sp);
	return (size_t)sp.journal_compact_mb << 20;
}

void ctld_state_maybe_compact(struct ctld *ctld)
{
	struct rota_error err = {""};

	/* compact when the log has grown well past the live state it last
	 * held, and rotadbd has what it would drop: in a child process, the
	 * loop goes on */
	if (journal_error(ctld->journal) || journal_compacting(ctld->journal) ||
	    journal_size(ctld->journal) <= ctld_compact_bytes(ctld) ||
	    journal_size(ctld->journal) <= 2 * journal_compacted_size(ctld->journal) ||
	    !acct_may_compact(ctld))
		return;
	if (ctld_state_compact_start(ctld, &err) < 0)
		log_err("journal compaction not started: %s", err.text);
}

void ctld_state_tick(struct ctld *ctld, time_t now)
{
	if (journal_error(ctld->journal))
		ctld_state_retry(ctld, now, 0);
	else
		ctld_state_maybe_compact(ctld);
}

void ctld_state_snapshot(struct ctld *ctld, void (*emit)(void *arg, union job_event *ev),
                         void *arg)
{
	ctld_state_walk(ctld, NULL, emit, arg);
}

void ctld_state_walk(struct ctld *ctld, void (*on_job)(void *arg, const struct job *j),
                     void (*emit)(void *arg, union job_event *ev), void *arg)
{
	struct compact cp = {.ctld = ctld, .on_job = on_job, .arg = arg};
	union job_event ev;

	for (size_t i = 0;; i++) {
		memset(&ev, 0, sizeof(ev));
		if (!compact_gen(&cp, i, &ev))
			break;
		emit(arg, &ev);
		job_event_release(&ev);
	}
}

void ctld_state_mark(struct ctld *ctld, time_t now)
{
	ev_meta_commit(ctld, &(struct ev_meta){.time = now,
	                                       .next_job_id = job_mgr_next_id(ctld->jobs),
	                                       .term = ctld->term,
	                                       .lineage = ctld->lineage});
}

/* Which GRES devices jobs hold, from the jobs that hold nodes: a replay
 * claims an ended job's devices until the end (its release is not
 * journaled), so a later job's claim of the same device would be undone by
 * that release. */
static void gres_reclaim(struct ctld *ctld)
{
	const struct gres_kinds *gk = node_mgr_gres_kinds(ctld->nodes);

	for (size_t i = 0; i < node_mgr_count(ctld->nodes); i++) {
		struct gres_use *u = &node_mgr_get(ctld->nodes, i)->gres_use;
		memset(u->alloc, 0, sizeof(u->alloc));
		memset(u->used, 0, sizeof(u->used));
	}
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext)
		for (uint32_t k = 0; j->run->gres && j->run->held && k < j->run->nnodes;
		     k++)
			if (j->run->held[k])
				gres_use_claim(
				    gk,
				    &node_mgr_get(ctld->nodes, j->run->node_idx[k])
				         ->gres_use,
				    j->run->gres[k]);
}

void ctld_state_settle(struct ctld *ctld)
{
	/* the nodes' confirmations that ended jobs are gone are not journaled:
	 * a job still COMPLETING gives its resources back now (a node that
	 * still runs something of it reports it when it registers) */
	for (struct job *j = job_first_active(ctld->jobs), *nx; j; j = nx) {
		nx = j->lnext;
		if (j->state & JOB_COMPLETING)
			job_release_all(ctld, j, j->run->end_time);
	}
	gres_reclaim(ctld);
	power_restore(ctld);
}

void ctld_state_clear(struct ctld *ctld)
{
	backfill_abandon(ctld);
	job_mgr_destroy(ctld->jobs);
	node_mgr_destroy(ctld->nodes);
	node_mgr_create(ctld, &ctld->nodes);
	resv_mgr_clear(ctld->resvs);
	trigger_mgr_clear(ctld->triggers);
	crontab_mgr_clear(ctld->crontabs);
	job_mgr_create(ctld, &ctld->jobs);
	/* the texts the journal notes went with the old table */
	journal_set_texts(ctld->journal, job_mgr_texts(ctld->jobs));
	ctld->res_gen++;
}

int ctld_state_rewrite(struct ctld *ctld, struct rota_error *err)
{
	struct compact cp = {.ctld = ctld};

	return journal_rewrite(ctld->journal, compact_gen, &cp, err);
}
