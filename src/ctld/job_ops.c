/* job_ops.c - requests that act on existing jobs, job ends, periodic duties. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/schedparams.h"
#include "ctld/hetjob.h"
#include "ctld/preempt.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/mail.h"
#include "common/mailtype.h"
#include "ctld/crontab.h"
#include "ctld/suspend.h"
#include "ctld/node_mgr.h"
#include "ctld/nokill.h"
#include "common/common.h"

/* The job is ending: its sruns' steps are aborted, and an srun/salloc that
 * still holds the allocation learns that it is gone. */
static void tell_clients_end(struct job *job)
{
	char *text;

	for (struct step *st = job->run->steps; st; st = st->next)
		if (st->client && st->client != job->alloc_client) {
			chan_send_rc(st->client, -ESLURM_ALREADY_DONE, NULL);
			chan_write_now(st->client); /* before the nodes' notices */
		}
	if (!job->alloc_client)
		return;
	text = xasprintf("Job allocation %u has been revoked.", job->job_id);
	chan_send_rc(job->alloc_client, -ESLURM_ALREADY_DONE, text);
	chan_write_now(job->alloc_client);
	free(text);
}

static void job_end_by(struct ctld *ctld, struct job *job, uint32_t state,
                       uint32_t reason, uint32_t exit_code, uint32_t by)
{
	int was_running = job_is_running(job);
	struct ev_end ev = {.job_id = job->job_id,
	                    .time = time(NULL),
	                    .state = state,
	                    .reason = reason,
	                    .exit_code = exit_code,
	                    /* the steps' highest, for the accounting */
	                    .derived_exit = job->run ? job->run->derived_exit : 0,
	                    .cancel_by = by};

	/* before the nodes act: each srun of the job says its step is aborted */
	tell_clients_end(job);
	if (was_running) {
		/* the nodes tell the user why ("*** JOB N ON ... CANCELLED AT") */
		uint32_t why = state == JOB_CANCELLED   ? SIGNAL_F_CANCELLED
		               : state == JOB_TIMEOUT   ? SIGNAL_F_TIME_LIMIT
		               : state == JOB_PREEMPTED ? SIGNAL_F_PREEMPTED
		                                        : 0;
		/* stopped processes take their SIGTERM once continued */
		if (job->state & JOB_SUSPEND_FLAG)
			job_signal_nodes(ctld, job, NO_VAL, SIGCONT, 0);
		job_signal_nodes(ctld, job, NO_VAL, SIGKILL, SIGNAL_F_TERMINATE | why);
	}
	if (ev_end_commit(ctld, &ev) < 0)
		return;
	mail_job(ctld, job, MAIL_END, state, exit_code, ev.time);
	/* a node we cannot reach will not confirm: do not wait for it */
	for (uint32_t k = 0; was_running && k < job->run->nnodes; k++)
		if (!node_mgr_get(ctld->nodes, job->run->node_idx[k])->link)
			job_release_node(ctld, job, k, ev.time);
	if (job->alloc_client) {
		job->alloc_client->alloc_job_id = 0;
		chan_unref(job->alloc_client);
		job->alloc_client = NULL;
	}
	log_info("JobId=%u ended: %s", job->job_id, job_state_name(state));
	hetjob_ended(ctld, job, state, reason, by); /* the others with it */
	ctld_sched_kick(ctld);
}

void job_end(struct ctld *ctld, struct job *job, uint32_t state, uint32_t reason,
             uint32_t exit_code)
{
	job_end_by(ctld, job, state, reason, exit_code, 0);
}

void job_cancel(struct ctld *ctld, struct job *job, uint32_t reason, uid_t uid)
{
	job_end_by(ctld, job, JOB_CANCELLED, reason, 0, (uint32_t)uid + 1);
}

int job_array_task_lookup(struct ctld *ctld, const struct caller *who, uint32_t array_id,
                          uint32_t task, struct job **ret_job, struct job **ret_meta)
{
	struct job *job = job_array_task_find(ctld->jobs, array_id, task);
	struct job *meta;

	if (job) {
		*ret_job = job;
		*ret_meta = NULL;
		return 0;
	}
	meta = job_find(ctld->jobs, array_id);
	if (!meta || !meta->array_rem || !arrayspec_test(meta->array_rem, task))
		return -ESLURM_INVALID_JOB_ID;
	if (!job_may_touch(who, meta))
		return -ESLURM_ACCESS_DENIED;
	*ret_job = NULL;
	*ret_meta = meta;
	return 0;
}

int job_may_touch(const struct caller *who, const struct job *job)
{
	return who->uid == job->owner->uid || caller_is_admin(who);
}

/* Cancel or signal one record; returns 0 or -ESLURM_*. */
static int cancel_one(struct ctld *ctld, struct caller *who, struct job *job,
                      const struct cancel_req *req)
{
	if (req->het_job_id && job_x(job)->het_job_id != req->het_job_id)
		return -ESLURM_INVALID_JOB_ID; /* N+K names N's component only */
	if (!job_may_touch(who, job))
		return -ESLURM_ACCESS_DENIED;
	if (job_is_finished(job))
		return -ESLURM_ALREADY_DONE;
	if (req->signal && req->signal != SIGKILL) {
		if (!job_is_running(job))
			return -ESLURM_JOB_PENDING;
		/* Slurm: a signal goes to the steps, not the batch shell, unless
		 * --batch (only the shell) or --full: every process of the
		 * batch script's, whose sruns pass it on to their steps (a
		 * step's tasks get it once) */
		if ((req->flags & CANCEL_F_FULL) && req->step_id == NO_VAL &&
		    !(job->desc.flags & JOB_F_INTERACTIVE)) {
			job_signal_batch_step(ctld, job, req->signal);
			return 0;
		}
		job_signal_nodes(ctld, job, req->step_id, req->signal,
		                 (req->flags & CANCEL_F_BATCH)  ? SIGNAL_F_BATCH_ONLY
		                 : (req->flags & CANCEL_F_FULL) ? 0
		                 : req->step_id == NO_VAL       ? SIGNAL_F_NO_BATCH
		                                                : 0);
		return 0;
	}
	if (req->step_id != NO_VAL) {
		/* the srun first, so that it says "aborted" before the notices */
		for (struct step *st = job->run->steps; st; st = st->next)
			if (st->step_id == req->step_id && st->client) {
				chan_send_rc(st->client, -ESLURM_ALREADY_DONE, NULL);
				chan_write_now(st->client);
			}
		job_signal_nodes(ctld, job, req->step_id, SIGKILL,
		                 SIGNAL_F_TERMINATE |
		                     ((req->flags & CANCEL_F_TASK_FAILURE)
		                          ? SIGNAL_F_TASK_FAILURE
		                          : SIGNAL_F_CANCELLED));
		return 0;
	}
	/* a heterogeneous job's component alone, as Slurm: the whole job with
	 * SchedulerParameters=whole_hetjob, else that one once it runs */
	if (hetjob_follower(job)) {
		struct sched_params sp;
		struct job *lead = job_find(ctld->jobs, job_x(job)->het_job_id);
		sched_params_parse(ctld->conf->scheduler_params, &sp);
		if (sp.whole_hetjob && lead && !job_is_finished(lead))
			job = lead;
		else if (job_is_pending(job))
			return -ESLURM_NOT_WHOLE_HET_JOB;
	}
	job_cancel(ctld, job, WAIT_NO_REASON, who->uid);
	return 0;
}

/* N_T: the task's record; a task still in the remainder is split off first
 * (so that it shows as cancelled), unless only signalled. */
static int cancel_array_task(struct ctld *ctld, struct caller *who,
                             const struct cancel_req *req)
{
	struct job *job, *meta;
	int rc = job_array_task_lookup(ctld, who, req->job_id, req->array_task_id, &job,
	                               &meta);

	if (rc)
		return rc;
	if (job)
		return cancel_one(ctld, who, job, req);
	if (job_is_finished(meta))
		return -ESLURM_ALREADY_DONE;
	if (req->signal && req->signal != SIGKILL)
		return -ESLURM_JOB_PENDING;
	job = job_array_split(ctld, meta, req->array_task_id);
	return job ? cancel_one(ctld, who, job, req) : SLURM_ERROR;
}

void job_mgr_cancel(struct ctld *ctld, struct caller *who, const struct cancel_req *req,
                    struct chan *ch)
{
	int rc = -ESLURM_INVALID_JOB_ID, any = 0;

	if (req->flags & CANCEL_F_ARRAY_TASK) {
		chan_send_rc(ch, cancel_array_task(ctld, who, req), NULL);
		return;
	}
	/* the record with this id and, for an array, every task of it */
	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		int one;
		if (j->job_id != req->job_id && j->array_job_id != req->job_id)
			continue;
		one = cancel_one(ctld, who, j, req);
		if (!one)
			any = 1;
		else if (rc == -ESLURM_INVALID_JOB_ID)
			rc = one;
	}
	chan_send_rc(ch, any ? 0 : rc, NULL);
}

static int requeue_one(struct ctld *ctld, struct job *job, uint32_t ended);

/* scontrol requeue: a batch job goes back to the queue; what runs is killed.
 * It becomes eligible again after KillWait, so its old processes are gone.
 * A heterogeneous job goes back whole, from its leader (Slurm). */
int job_requeue(struct ctld *ctld, struct job *job)
{
	return job_requeue_as(ctld, job, 0);
}

int job_requeue_as(struct ctld *ctld, struct job *job, uint32_t ended)
{
	struct job *comps[HET_MAX];
	size_t n;
	int rc;

	if (!job_x(job)->het_job_id)
		return requeue_one(ctld, job, ended);
	if (hetjob_follower(job))
		return -ESLURM_NOT_HET_JOB_LEADER;
	if ((rc = requeue_one(ctld, job, ended)))
		return rc;
	n = hetjob_components(ctld, job, comps);
	for (size_t k = 1; k < n; k++)
		if (!job_is_pending(comps[k]))
			requeue_one(ctld, comps[k], ended);
	return 0;
}

static int requeue_one(struct ctld *ctld, struct job *job, uint32_t ended)
{
	struct ev_requeue ev = {.job_id = job->job_id,
	                        .time = time(NULL) + ctld->conf->kill_wait + 2,
	                        .ended = ended};

	if (job->desc.flags & (JOB_F_INTERACTIVE | JOB_F_NO_REQUEUE))
		return -ESLURM_DISABLED;
	if (job_is_pending(job))
		return -ESLURM_JOB_PENDING;
	if (job->desc.partition && !job_part_first(ctld->nodes, job->desc.partition))
		return -ESLURM_INVALID_PARTITION_NAME; /* deleted since it ran */
	/* a crontab's entry comes back at its next start, not at once */
	if (crontab_listed(ctld, job)) {
		time_t next = crontab_next_start(job, time(NULL));
		if (next > ev.time)
			ev.begin_time = next;
	}
	if (job_is_running(job)) {
		job_signal_nodes(ctld, job, NO_VAL, SIGKILL, SIGNAL_F_TERMINATE);
		/* the requeue frees the resources at once: the nodes that hold
		 * the old run are not scheduled until they confirm it gone */
		for (uint32_t k = 0; k < job->run->nnodes; k++) {
			struct node *n = node_mgr_get(ctld->nodes, job->run->node_idx[k]);
			if (n->link)
				node_mgr_orphan_add(n, job->job_id);
		}
	}
	/* told while the run it ends is still the job's: "Run time" in it */
	mail_job(ctld, job, MAIL_REQUEUE, job->state, 0, time(NULL));
	if (ev_requeue_commit(ctld, &ev) < 0)
		return -ESLURM_TRANSITION_STATE_NO_UPDATE;
	log_info("JobId=%u requeued", job->job_id);
	return 0;
}

void job_node_failed(struct ctld *ctld, struct job *job, const char *node_name)
{
	/* a heterogeneous job goes back (or ends) whole, from its leader */
	if (hetjob_follower(job)) {
		struct job *lead = job_find(ctld->jobs, job_x(job)->het_job_id);
		if (lead && !job_is_finished(lead) && !job_is_pending(lead))
			job = lead;
	}
	if (nokill_keeps(ctld, job, node_name)) {
		nokill_excise(ctld, job, node_name);
		return;
	}
	if (!(job->desc.flags & (JOB_F_INTERACTIVE | JOB_F_NO_REQUEUE)) &&
	    job_requeue_as(ctld, job, JOB_NODE_FAIL) == 0) {
		log_info("Requeuing JobId=%u due to failure of node %s", job->job_id,
		         node_name ? node_name : "?");
		ctld_sched_kick(ctld);
		return;
	}
	job_end(ctld, job, JOB_NODE_FAIL, FAIL_DOWN_NODE, 0);
}

void job_mgr_complete_req(struct ctld *ctld, struct caller *who,
                          const struct job_complete_req *req, struct chan *ch)
{
	struct job *job = job_find(ctld->jobs, req->job_id);

	if (!job) {
		chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	if (!job_may_touch(who, job)) {
		chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
		return;
	}
	if (job->alloc_client == ch) {
		job->alloc_client = NULL;
		ch->alloc_job_id = 0;
		chan_unref(ch);
	}
	/* its own steps are over (and, srun's heterogeneous allocation, those
	 * over every component): no "aborted" notice for them */
	{
		struct job *comps[HET_MAX];
		size_t n = hetjob_components(ctld, job, comps);
		if (!n) {
			comps[0] = job;
			n = 1;
		}
		for (size_t k = 0; k < n; k++)
			for (struct step *st = comps[k]->run->steps; st; st = st->next)
				if (st->client == ch) {
					chan_unref(ch);
					st->client = NULL;
				}
	}
	/* an srun whose task the memory limit killed: OUT_OF_MEMORY, as Slurm */
	if (!job_is_finished(job) && (req->status & 0xff) == TASK_STATUS_OOM)
		job_end(ctld, job, JOB_OOM, FAIL_OOM, req->status);
	else if (!job_is_finished(job))
		job_end(ctld, job, req->status ? JOB_FAILED : JOB_COMPLETE,
		        req->status ? FAIL_EXIT_CODE : WAIT_NO_REASON, req->status);
	chan_send_rc(ch, 0, NULL);
}

void job_alloc_granted(struct ctld *ctld, struct job *job, const struct alloc_resp *r)
{
	struct chan *ch = job->alloc_client;

	chan_send(ch, MSG_ALLOC_RESP, r);
	if (!(job->desc.flags & JOB_F_NO_SHELL))
		return;
	/* salloc --no-shell: the job is no longer its connection's */
	if (ch->alloc_job_id == job->job_id)
		ch->alloc_job_id = 0;
	job->alloc_client = NULL;
	chan_unref(ch);
	(void)ctld;
}

void job_mgr_chan_gone(struct ctld *ctld, struct chan *ch)
{
	struct job *job;

	if (!ch->alloc_job_id)
		return;
	job = job_find(ctld->jobs, ch->alloc_job_id);
	ch->alloc_job_id = 0;
	if (!job || job->alloc_client != ch)
		return;
	job->alloc_client = NULL;
	chan_unref(ch);
	if (!job_is_finished(job)) {
		log_info("JobId=%u: its srun/salloc went away, ending the job",
		         job->job_id);
		job_cancel(ctld, job, WAIT_NO_REASON, job->owner->uid);
	}
}

/* Whether running job j is past its time limit and the OverTimeLimit
 * minutes of its partition (or, where that has none, of the cluster). */
static int past_time_limit(const struct ctld *ctld, const struct job *j, time_t now)
{
	uint32_t over = ctld->conf->over_time_limit;

	if (j->part && j->part->cfg->over_time_limit != NO_VAL)
		over = j->part->cfg->over_time_limit;
	if (over == INFINITE32)
		return 0;
	return job_run_secs(j, now) >= ((long)j->time_limit + (long)over) * 60;
}

void job_mgr_tick(struct ctld *ctld, time_t now)
{
	time_t min_age = ctld->conf->min_job_age;

	/* only what has started: a queue of held jobs costs nothing here */
	for (struct job *j = job_first_active(ctld->jobs), *nx; j; j = nx) {
		nx = j->lnext;
		/* a suspended job's clock stands still (ctld/suspend.h) */
		int ticking = job_is_running(j) && !(j->state & JOB_SUSPEND_FLAG) &&
		              j->time_limit != INFINITE32;
		if (ticking && job_x(j)->warn_signal && !j->run->warn_sent &&
		    job_run_secs(j, now) + (long)job_x(j)->warn_time >=
		        (long)j->time_limit * 60) {
			job_run_mut(j)->warn_sent = 1;
			log_info("JobId=%u: sending signal %u before its time limit",
			         j->job_id, job_x(j)->warn_signal);
			job_signal_nodes(ctld, j, NO_VAL, job_x(j)->warn_signal,
			                 (job_x(j)->warn_flags & WARN_F_BATCH_ONLY)
			                     ? SIGNAL_F_BATCH_ONLY
			                     : SIGNAL_F_NO_BATCH);
		}
		if (j->run->preempt_at)
			preempt_tick(ctld, j, now);
		if (job_is_running(j) && !(j->state & JOB_SUSPEND_FLAG) && j->run->steps)
			step_limits_tick(ctld, j, now);
		if (ticking && past_time_limit(ctld, j, now)) {
			log_info("JobId=%u reached its time limit", j->job_id);
			mail_time_limit(ctld, j, now);
			job_end(ctld, j, JOB_TIMEOUT, FAIL_TIMEOUT, 0);
		} else if ((j->state & JOB_COMPLETING) &&
		           now >= j->run->end_time + (time_t)ctld->conf->kill_wait + 30) {
			log_warn("JobId=%u: nodes never confirmed the end; releasing",
			         j->job_id);
			job_release_all(ctld, j, now);
		} else if (job_is_finished(j) && !(j->state & JOB_COMPLETING) &&
		           now >= j->run->end_time + min_age &&
		           !crontab_listed(ctld, j)) { /* it recurs (crontab.h) */
			job_mgr_remove(ctld->jobs, j);
		}
	}
}
