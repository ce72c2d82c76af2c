/* job_event.c - apply one job event to the controller's state. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/conf.h"
#include "common/intern.h"
#include "common/arrayspec.h"
#include "common/constraint.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/uid.h"
#include "ctld/assoc.h"
#include "ctld/ctld.h"
#include "ctld/gang.h"
#include "ctld/hetjob.h"
#include "ctld/fairshare.h"
#include "ctld/job_event.h"
#include "ctld/mcs_label.h"
#include "ctld/resv.h"
#include "ctld/crontab.h"
#include "ctld/trigger.h"
#include "ctld/suspend.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/node_gres.h"
#include "ctld/node_mgr.h"
#include "ctld/node_feat.h"
#include "ctld/part_update.h"
#include "ctld/nokill.h"
#include "ctld/sched_pass.h"
#include "ctld/stats.h"
#include "sched/predict.h"
#include "sched/priority.h"
#include "common/common.h"

#define COMMIT_DEF(name, num, m)                                                         \
	int ev_##m##_commit(struct ctld *ctld, const struct ev_##m *ev)                  \
	{                                                                                \
		union job_event u = {.m = *ev};                                          \
		u.head.type = name;                                                      \
		return job_event_commit(ctld, &u);                                       \
	}
ROTA_JOB_EVENTS(COMMIT_DEF)

/* The array part of a submission: a fresh one is all remainder; one written
 * by compaction says what it had become. */
static int submit_array(const struct ev_submit *ev, struct job *job)
{
	struct arrayspec a;

	job->array_task_id = NO_VAL;
	if (!ev->desc[0].array_inx)
		return 0;
	if (!ev->array_job_id) {
		if (arrayspec_parse(ev->desc[0].array_inx, ARRAYSPEC_LIMIT, &a, NULL) < 0)
			return -EINVAL;
		job->array_job_id = ev->job_id;
	} else {
		job->array_job_id = ev->array_job_id;
		job->array_task_id = ev->array_task_id;
		if (!ev->array_pending || !*ev->array_pending)
			return 0;
		if (arrayspec_parse(ev->array_pending, ARRAYSPEC_LIMIT, &a, NULL) < 0)
			return -EINVAL;
		a.throttle = ev->throttle;
	}
	job->array_rem = xmalloc(sizeof(a));
	*job->array_rem = a;
	return 0;
}

/* The reason a pending job shows before the next scheduling pass looks at it,
 * so that what a command just did is visible at once. */
static uint32_t first_reason(const struct job *job, time_t now)
{
	if (job->hold)
		return job_hold_reason(job);
	if (job->eligible_time > now)
		return WAIT_TIME;
	if (job->desc.dependency && job->desc.dependency[0])
		return WAIT_DEPENDENCY;
	return WAIT_NO_REASON;
}

/* A hold as the job keeps it (one byte): 0 none, 1 user, 2 admin,
 * JOB_HOLD_RESV, JOB_HOLD_SPECIAL_EXIT, JOB_HOLD_LAUNCH_FAILED; any other
 * value a damaged record may hold is an admin's. */
static uint8_t hold_kind(uint32_t hold)
{
	return hold <= JOB_HOLD_LAUNCH_FAILED ? (uint8_t)hold : 2;
}

static int apply_submit(struct ctld *ctld, const struct ev_submit *ev,
                        struct job_desc *take, const struct owner *owner)
{
	struct job *job;
	struct job probe = {0};
	char name[64], *user;

	/* texts by reference are the journal's to resolve (ctld/jtext.h) */
	if (ev->desc_count != 1 || ev->env_text || ev->script_text ||
	    job_find(ctld->jobs, ev->job_id))
		return -EINVAL;
	if (submit_array(ev, &probe) < 0)
		return -EINVAL;
	job = job_mgr_insert(ctld->jobs, ev->job_id);
	job->array_job_id = probe.array_job_id;
	job->array_task_id = probe.array_task_id;
	job->array_rem = probe.array_rem;
	if (take) { /* the event's own, about to be released: moved */
		job->desc = *take;
		memset(take, 0, sizeof(*take));
	} else {
		codec_copy(&job_desc_type, &job->desc, &ev->desc[0]);
	}
	if (owner) {
		/* a loader's: it counts the texts itself (intern_hold_*) */
		job_owner_use(ctld->jobs, job, owner);
	} else {
		job_desc_share(ctld->jobs, &job->desc);
		/* names resolved when the job was submitted; a journal written
		 * before events carried them has them looked up */
		if (!ev->user)
			uid_to_name(ev->uid, name, sizeof(name));
		user = xstrdup(ev->user ? ev->user : name);
		if (!ev->group)
			gid_to_name(ev->gid, name, sizeof(name));
		job_owner_set(ctld->jobs, job, ev->uid, ev->gid, user,
		              xstrdup(ev->group ? ev->group : name));
	}
	if (job->desc.partition)
		job->part = job_part_first(ctld->nodes, job->desc.partition);
	job->state = JOB_PENDING | (ev->state & JOB_REQUEUE_FLAG);
	job->priority = ev->priority;
	job->prio_set = !!(ev->flags & SUBMIT_EV_PRIO_SET);
	job->hold = hold_kind(ev->hold);
	job->submit_time = job->eligible_time = ev->time;
	if (job->desc.begin_time > ev->time)
		job->eligible_time = job->desc.begin_time;
	if (ev->eligible_time > job->eligible_time)
		job->eligible_time = ev->eligible_time;
	job->time_limit = ev->time_limit;
	job->restart_cnt = ev->restart_cnt;
	job->reason = first_reason(job, ev->time);
	/* its place among the waiting jobs, until the next full pass */
	if (!ctld->replaying)
		job_priority_refresh(ctld, job, ev->time);
	if (ev->job_id >= job_mgr_next_id(ctld->jobs))
		job_mgr_set_next_id(ctld->jobs, ev->job_id + 1);
	return 0;
}

static int apply_start(struct ctld *ctld, const struct ev_start *ev, struct job *job)
{
	char **names = NULL;
	size_t count = 0;
	uint64_t total = 0;
	struct job_run *run;
	int pack;

	if (!job_is_pending(job) || !ev->nodes ||
	    hostlist_expand(ev->nodes, &names, &count, NULL) < 0)
		return -EINVAL;
	if (count != ev->cpus_per_node.n || count != ev->tasks_per_node.n ||
	    count != ev->mem_per_node.n) {
		hostlist_free(names);
		return -EINVAL;
	}
	/* no more CPUs on a node than it has (a damaged or crafted record) */
	for (size_t i = 0; i < count; i++) {
		int idx = node_mgr_find(ctld->nodes, names[i]);
		if (idx >= 0 &&
		    ev->cpus_per_node.v[i] > node_mgr_get(ctld->nodes, idx)->cpus) {
			hostlist_free(names);
			return -EINVAL;
		}
	}
	run = job_run_mut(job);
	run->nnodes = count;
	run->node_idx = xcalloc(count, sizeof(uint32_t));
	run->cpus = xcalloc(count, sizeof(uint32_t));
	run->tasks = xcalloc(count, sizeof(uint32_t));
	run->mem = xcalloc(count, sizeof(uint64_t));
	run->cores = xcalloc(count, sizeof(uint32_t *));
	run->held = xcalloc(count, 1);
	if (ev->gres && strv_len(ev->gres) == count) {
		run->gres = xcalloc(count, sizeof(char *));
		for (size_t i = 0; i < count; i++)
			run->gres[i] = *ev->gres[i] ? xstrdup(ev->gres[i]) : NULL;
	}
	if (ev->reservation && *ev->reservation) /* of its list, the one */
		run->resv = xstrdup(ev->reservation);
	if (ev->partition) { /* of its list, the one it starts in */
		struct part *p = node_mgr_part_find(ctld->nodes, ev->partition);
		if (p)
			job->part = p;
	}
	run->share = job->part ? part_job_share(job->part, job->desc.flags) : 1;
	run->excl_user = (job->desc.flags & JOB_F_EXCLUSIVE_USER) ||
	                 (job->part && job->part->cfg->exclusive_user);
	run->mcs_select = ev->mcs_select && job_x(job)->mcs_label;
	pack = !gang_enabled(ctld->conf); /* time slicing: free cores first */
	/* a snapshot says which cores the job holds; a live start picks them */
	for (size_t i = 0; i < count; i++)
		total += ev->cpus_per_node.v[i];
	if (ev->slots.n != total)
		total = 0;
	for (size_t i = 0, at = 0; i < count; i++) {
		int idx = node_mgr_find(ctld->nodes, names[i]);
		struct node *n = node_mgr_get(ctld->nodes, idx < 0 ? 0 : idx);
		uint64_t near[GRES_CORE_WORDS];
		run->node_idx[i] = idx < 0 ? 0 : idx;
		run->cpus[i] = ev->cpus_per_node.v[i];
		run->tasks[i] = ev->tasks_per_node.v[i];
		run->mem[i] = ev->mem_per_node.v[i];
		run->cores[i] = xcalloc(run->cpus[i] + 1, sizeof(uint32_t));
		if (idx >= 0) {
			node_alloc(n, run->cpus[i], run->mem[i], run->share, ev->time);
			/* the first one's user (excl_uid_find when it goes) */
			if (run->excl_user && !n->excl_user_jobs++)
				n->excl_uid = job->owner->uid;
			if (run->mcs_select)
				mcs_node_take(n, job_x(job)->mcs_label);
			if (run->gres)
				gres_use_claim(node_mgr_gres_kinds(ctld->nodes),
				               &n->gres_use, run->gres[i]);
			if (total)
				node_cores_claim(n, run->cpus[i], run->share, pack,
				                 ev->slots.v + at, run->cores[i]);
			else
				node_cores_take_near(
				    n, run->cpus[i], run->share, pack,
				    run->gres &&
				            !(job_x(job)->gres_flags &
				              GRES_F_DISABLE_BINDING) &&
				            node_gres_near(n, run->gres[i], near)
				        ? near
				        : NULL,
				    run->cores[i]);
			run->held[i] = 1;
		}
		at += run->cpus[i];
	}
	hostlist_free(names);
	run->nodes_str = xstrdup(ev->nodes);
	run->batch_node = ev->batch_node < count ? ev->batch_node : 0;
	job->state = JOB_RUNNING | (ev->state & JOB_CONFIGURING);
	ctld->res_gen++;
	job->reason = WAIT_NO_REASON;
	job_sched_clear(job);
	run->start_time = ev->time;
	if (ev->time_limit)
		job->time_limit = ev->time_limit;
	run->warn_sent = 0;
	run->next_step_id = ev->next_step_id;
	run->derived_exit = ev->derived_exit;
	return 0;
}

static int apply_end(struct ctld *ctld, const struct ev_end *ev, struct job *job)
{
	uint32_t to = ev->state & JOB_STATE_BASE;

	/* a record that "ends" a job as pending or running is damaged: applied,
	 * it would keep the resources of a job that could start again */
	if (job_is_finished(job) || to < JOB_COMPLETE || to >= JOB_END)
		return -EINVAL;
	int was_running = job_is_running(job);
	struct job_run *run = job_run_mut(job); /* a job ends with its times */

	suspend_end(ctld, job);
	if (!was_running)
		run->start_time =
		    ev->time; /* Slurm shows StartTime=EndTime when never run */
	if (was_running)
		backfill_job_ended(ctld, job, ev->time - run->start_time);
	if (was_running && !ctld->restoring)
		fairshare_charge(ctld, job, ev->time);
	job->state = ev->state;
	/* the nodes confirm that nothing of the job is left (STEP_DONE_JOB_GONE);
	 * until then it is COMPLETING and keeps its resources.  Their
	 * confirmations are not journaled: after a replay, the jobs still
	 * COMPLETING are released (ctld_state_restore). */
	if (was_running) {
		job->state |= JOB_COMPLETING;
		for (uint32_t k = 0; k < run->nnodes; k++)
			if (run->held[k])
				node_mgr_get(ctld->nodes, run->node_idx[k])->completing++;
	}
	if (ev->derived_exit > run->derived_exit)
		run->derived_exit = ev->derived_exit;
	job->reason = ev->reason;
	run->exit_code = ev->exit_code;
	run->end_time = ev->time;
	job_sched_clear(job);
	step_free_all(job);
	return 0;
}

/* The user of the --exclusive=user jobs that still hold node n (index idx)
 * once gone goes: a restart replays the starts of jobs that ended too, so the
 * last start's user need not be theirs. */
static void excl_uid_find(struct ctld *ctld, const struct job *gone, uint32_t idx,
                          struct node *n)
{
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext) {
		if (j == gone || !j->run->excl_user || !j->run->held)
			continue;
		for (uint32_t k = 0; k < j->run->nnodes; k++)
			if (j->run->held[k] && j->run->node_idx[k] == idx) {
				n->excl_uid = j->owner->uid;
				return;
			}
	}
}

void job_release_node(struct ctld *ctld, struct job *job, uint32_t k, time_t now)
{
	struct node *n;
	int sus;

	if (!job->run->held || k >= job->run->nnodes || !job->run->held[k])
		return;
	n = node_mgr_get(ctld->nodes, job->run->node_idx[k]);
	if ((job->state & JOB_COMPLETING) && n->completing)
		n->completing--;
	/* a suspended job gave its CPUs up already (not one time-sliced) */
	sus = suspend_cpus_given_up(job);
	node_release(n, sus ? 0 : job->run->cpus[k], job->run->mem[k], job->run->share,
	             now);
	if (job->run->excl_user && n->excl_user_jobs && --n->excl_user_jobs)
		excl_uid_find(ctld, job, job->run->node_idx[k], n);
	if (job->run->mcs_select)
		mcs_node_give(n);
	if (job->run->gres)
		gres_use_release(node_mgr_gres_kinds(ctld->nodes), &n->gres_use,
		                 job->run->gres[k]);
	if (!sus)
		node_cores_give(n, job->run->cpus[k], job->run->cores[k]);
	job->run->held[k] = 0;
	ctld->res_gen++;
	for (uint32_t i = 0; i < job->run->nnodes; i++)
		if (job->run->held[i])
			return;
	job->state &= ~JOB_COMPLETING;
}

void job_release_all(struct ctld *ctld, struct job *job, time_t now)
{
	for (uint32_t i = 0; i < job->run->nnodes; i++)
		job_release_node(ctld, job, i, now);
	job->state &= ~JOB_COMPLETING;
}

static int apply_split(struct ctld *ctld, const struct ev_array_split *ev,
                       struct job *meta)
{
	struct arrayspec *rem = meta->array_rem;
	struct job *t;

	if (!rem || !job_is_pending(meta) || !arrayspec_test(rem, ev->array_task_id))
		return -EINVAL;
	if (!ev->new_job_id) {
		/* the last pending task: the record itself becomes it */
		if (rem->count != 1)
			return -EINVAL;
		arrayspec_release(rem);
		free(rem);
		meta->array_rem = NULL;
		meta->array_task_id = ev->array_task_id;
		return 0;
	}
	if (job_find(ctld->jobs, ev->new_job_id))
		return -EINVAL;
	arrayspec_clear(rem, ev->array_task_id);
	t = job_mgr_insert(ctld->jobs, ev->new_job_id);
	codec_copy(&job_desc_type, &t->desc, &meta->desc);
	job_desc_share(ctld->jobs, &t->desc);
	job_owner_share(t, meta);
	t->part = meta->part;
	t->state = JOB_PENDING;
	t->priority = meta->priority;
	t->hold = meta->hold;
	t->submit_time = meta->submit_time;
	t->eligible_time = meta->eligible_time;
	t->time_limit = meta->time_limit;
	t->reason = meta->reason; /* what the array waits on, until a pass looks */
	t->array_job_id = meta->array_job_id;
	t->array_task_id = ev->array_task_id;
	if (ev->new_job_id >= job_mgr_next_id(ctld->jobs))
		job_mgr_set_next_id(ctld->jobs, ev->new_job_id + 1);
	return 0;
}

static int apply_requeue(struct ctld *ctld, const struct ev_requeue *ev, struct job *job)
{
	int was_running;

	/* an allocation is not requeued, but salloc's components other than
	 * the leader go back when the others cannot start (hetjob.c) */
	if (job_is_pending(job) ||
	    ((job->desc.flags & JOB_F_INTERACTIVE) && !hetjob_follower(job)) ||
	    (job->desc.partition && /* deleted since */
	     !job_part_first(ctld->nodes, job->desc.partition)))
		return -EINVAL;
	was_running = job_is_running(job);
	job_release_all(ctld, job, ev->time);
	job_run_clear(job); /* its times, steps and exit too: made again at its start */
	/* back to its list (-p a,b), or its partition as it is now */
	job->part = job_part_first(ctld->nodes, job->desc.partition);
	job->reason = WAIT_TIME;
	job->restart_cnt++;
	if (ev->begin_time) { /* a crontab's entry: its next run */
		/* a dependency was met by the first run (Slurm clears it) */
		intern_drop_str(job_mgr_texts(ctld->jobs), job->desc.dependency);
		job->desc.dependency = NULL;
		job->desc.begin_time = ev->begin_time;
		job->eligible_time =
		    ev->begin_time > ev->time ? (time_t)ev->begin_time : (time_t)ev->time;
		/* a run that is being killed (scontrol requeue) first goes */
		job->state = JOB_PENDING | (was_running ? JOB_REQUEUE_FLAG : 0);
		return 0;
	}
	/* REQUEUED until the old run is gone (eligible again), then PENDING;
	 * one that had ended has nothing left to go: PENDING at once (Slurm) */
	job->state = JOB_PENDING | (was_running ? JOB_REQUEUE_FLAG : 0);
	job->eligible_time = ev->time;
	return 0;
}

/* EV_UPDATE with a request: it replaces the job's, all but the script, the
 * environment and the arguments, which no update changes and the event does
 * not carry.  A new begin time makes the job eligible then (now at the
 * earliest). */
static void apply_update_desc(struct ctld *ctld, const struct ev_update *ev,
                              struct job *job)
{
	struct job_desc nd = {0}, drop = {0};
	int64_t old_begin = job->desc.begin_time;
	int32_t old_nice = job_nice(job);
	uint32_t old_site = job_x(job)->site_factor;
	char *script = job->desc.script;
	char **env = job->desc.env, **argv = job->desc.argv;

	/* the script, environment and arguments stay the job's (kept copies) */
	job->desc.script = NULL;
	job->desc.env = job->desc.argv = NULL;
	job_desc_unshare(ctld->jobs, &job->desc);
	codec_release(&job_desc_type, &job->desc);
	codec_copy(&job_desc_type, &nd, &ev->desc[0]);
	drop.script = nd.script;
	drop.env = nd.env;
	drop.argv = nd.argv;
	codec_release(&job_desc_type, &drop);
	nd.script = NULL;
	nd.env = nd.argv = NULL;
	job_desc_share(ctld->jobs, &nd);
	nd.script = script;
	nd.env = env;
	nd.argv = argv;
	job->desc = nd;
	if (job->sched) { /* parsed again from the new -C, --gres, ... */
		constraint_destroy(job->sched->constraint);
		job->sched->constraint = NULL;
		constraint_destroy(job->sched->prefer);
		job->sched->prefer = NULL;
		free(job->sched->req);
		job->sched->req = NULL;
	}
	job_clear_plan(job);
	if (job_is_pending(job)) /* one that runs stays where it runs */
		job->part = job_part_first(ctld->nodes, job->desc.partition);
	/* priority/basic: a new nice value moves it (multifactor's passes
	 * compute it again anyway) */
	if (job_is_pending(job) && job->priority && !job->prio_set &&
	    job_nice(job) != old_nice &&
	    priority_type_parse(ctld->conf->priority_type) == PRIORITY_BASIC)
		job->priority = priority_basic(job->job_id, job_nice(job));
	/* a new SiteFactor counts at once, as in Slurm */
	if (job_is_pending(job) && job_x(job)->site_factor != old_site &&
	    !ctld->replaying)
		job_priority_refresh(ctld, job, ev->time);
	if (job_is_pending(job) && job->desc.begin_time != old_begin)
		job->eligible_time = job->desc.begin_time > ev->time
		                         ? (time_t)job->desc.begin_time
		                         : (time_t)ev->time;
}

static int apply_hold(const struct ev_hold *ev, struct job *job)
{
	if (!job_is_pending(job))
		return -EINVAL;
	/* a held job waited on its hold, not on the scheduler: eligible from
	 * its release (what accounting's Eligible and the age factor count) */
	if (job->hold && !ev->hold && ev->time > job->eligible_time)
		job->eligible_time = (time_t)ev->time;
	job->hold = hold_kind(ev->hold);
	job->priority = ev->priority;
	job->prio_set = 0;
	/* shown at once, not only after the next scheduling pass (which does
	 * not look at held jobs: job_mgr_classify) */
	job->reason = first_reason(job, ev->time);
	job_sched_clear(job);
	return 0;
}

static int apply_update(struct ctld *ctld, const struct ev_update *ev, struct job *job)
{
	if (ev->desc_count > 1 || (ev->desc_count && job_is_finished(job)))
		return -EINVAL;
	if (ev->desc_count)
		apply_update_desc(ctld, ev, job);
	if (ev->time_limit != NO_VAL)
		job->time_limit = ev->time_limit;
	if (ev->priority != NO_VAL) {
		job->priority = ev->priority;
		job->prio_set = 1;
	}
	return 0;
}

static int apply_to_job(struct ctld *ctld, const union job_event *ev, struct job *job)
{
	switch (ev->head.type) {
	case EV_START:
		return apply_start(ctld, &ev->start, job);
	case EV_END:
		return apply_end(ctld, &ev->end, job);
	case EV_REQUEUE:
		return apply_requeue(ctld, &ev->requeue, job);
	case EV_ARRAY_SPLIT:
		return apply_split(ctld, &ev->array_split, job);
	case EV_CONFIGURED:
		if (!job_is_running(job) || !(job->state & JOB_CONFIGURING))
			return -EINVAL;
		job->state &= ~JOB_CONFIGURING;
		return 0;
	case EV_STEP_START:
		return step_apply_start(ctld, job, &ev->step_start);
	case EV_STEP_END:
		return step_apply_end(job, &ev->step_end);
	case EV_ARRAY_THROTTLE:
		if (!job->array_rem)
			return -EINVAL;
		job->array_rem->throttle = ev->array_throttle.throttle;
		return 0;
	case EV_HOLD:
		return apply_hold(&ev->hold, job);
	case EV_USAGE: /* rotadbd's */
		return 0;
	case EV_UPDATE:
		return apply_update(ctld, &ev->update, job);
	case EV_SUSPEND:
		return suspend_apply(ctld, &ev->suspend, job);
	case EV_EXCISE:
		return nokill_apply(ctld, &ev->excise, job);
	case EV_STEP_LIMIT:
		return step_apply_limit(job, &ev->step_limit);
	default:
		return -EINVAL;
	}
}

static int apply(struct ctld *ctld, const union job_event *ev, struct job_desc *take)
{
	struct job *job, *split;
	int rc;

	switch (ev->head.type) {
	case EV_META:
		if (ev->meta.next_job_id > job_mgr_next_id(ctld->jobs))
			job_mgr_set_next_id(ctld->jobs, ev->meta.next_job_id);
		if (ev->meta.term > ctld->term)
			ctld->term = ev->meta.term;
		if (ev->meta.lineage)
			ctld->lineage = ev->meta.lineage;
		return 0;
	case EV_SUBMIT:
		rc = apply_submit(ctld, &ev->submit, take, NULL);
		if (rc == 0)
			job_mgr_classify(ctld->jobs,
			                 job_find(ctld->jobs, ev->submit.job_id));
		return rc;
	case EV_TEXT: /* the journal's, not a change of state */
		return -EINVAL;
	case EV_ASSOC:
		return assoc_apply(ctld->assoc, &ev->assoc);
	case EV_RESV:
		return resv_apply(ctld, &ev->resv);
	case EV_TRIGGER:
		return trigger_apply(ctld, &ev->trigger);
	case EV_CRONTAB:
		return crontab_apply(ctld, &ev->crontab);
	case EV_PART:
		return part_apply(ctld, &ev->part);
	case EV_NODE_STATE:
		return node_mgr_apply_state(ctld, &ev->node_state);
	case EV_NODE_FEATURES:
		return node_feat_apply(ctld, &ev->node_features);
	default:
		break;
	}
	if (!job_event_type_of(ev->head.type))
		return -ENOENT;
	job = job_find(ctld->jobs, ev->job.job_id);
	if (!job)
		return -ENOENT;
	rc = apply_to_job(ctld, ev, job);
	/* its state, hold or partition may have changed: the lists follow */
	job_mgr_classify(ctld->jobs, job);
	if (rc == 0 && ev->head.type == EV_ARRAY_SPLIT && ev->array_split.new_job_id &&
	    (split = job_find(ctld->jobs, ev->array_split.new_job_id)))
		job_mgr_classify(ctld->jobs, split);
	return rc;
}

int job_event_apply(struct ctld *ctld, const union job_event *ev)
{
	return apply(ctld, ev, NULL);
}

int job_event_apply_owned(struct ctld *ctld, union job_event *ev)
{
	return apply(ctld, ev,
	             ev->head.type == EV_SUBMIT && ev->submit.desc_count == 1
	                 ? &ev->submit.desc[0]
	                 : NULL);
}

int job_event_apply_submit_as(struct ctld *ctld, struct ev_submit *ev,
                              const struct owner *owner)
{
	int rc;

	if (ev->desc_count != 1)
		return -EINVAL;
	rc = apply_submit(ctld, ev, &ev->desc[0], owner);
	if (rc == 0)
		job_mgr_classify(ctld->jobs, job_find(ctld->jobs, ev->job_id));
	return rc;
}

int job_event_commit(struct ctld *ctld, const union job_event *ev)
{
	int rc = job_event_apply(ctld, ev);
	if (rc == 0) {
		journal_append(ctld->journal, ev);
		if (ctld->stats)
			stats_job_event(ctld->stats, ev);
	}
	return rc;
}
