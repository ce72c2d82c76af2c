/* suspend.c - scontrol suspend|resume (see suspend.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/states.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/gang.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/suspend.h"
#include "proto/messages.h"
#include "common/common.h"

/* The job's CPUs on its nodes given up (take 0) or taken again (1). */
static void cpus_move(struct ctld *ctld, struct job *job, int take)
{
	struct job_run *run = job_run_mut(job);

	for (uint32_t k = 0; k < run->nnodes; k++) {
		struct node *n;
		uint32_t c = run->cpus[k];
		if (!run->held || !run->held[k])
			continue;
		n = node_mgr_get(ctld->nodes, run->node_idx[k]);
		if (take) {
			uint32_t *want = xcalloc(c + 1, sizeof(uint32_t));
			memcpy(want, run->cores[k], c * sizeof(uint32_t));
			n->alloc_cpus += c;
			if (run->share > 1)
				n->shared_cpus += c;
			node_cores_claim(n, c, run->share, !gang_enabled(ctld->conf),
			                 want, run->cores[k]);
			free(want);
		} else {
			n->alloc_cpus = n->alloc_cpus > c ? n->alloc_cpus - c : 0;
			if (run->share > 1)
				n->shared_cpus =
				    n->shared_cpus > c ? n->shared_cpus - c : 0;
			node_cores_give(n, c, run->cores[k]);
		}
	}
	ctld->res_gen++;
}

long job_run_secs(const struct job *job, time_t now)
{
	const struct job_run *run = job->run;
	time_t to = (job->state & JOB_SUSPEND_FLAG) ? run->suspend_time : now;
	long secs = (long)(to - run->start_time) - (long)run->sus_secs;

	return secs > 0 ? secs : 0;
}

int suspend_apply(struct ctld *ctld, const struct ev_suspend *ev, struct job *job)
{
	int sus = (job->state & JOB_SUSPEND_FLAG) != 0;
	struct job_run *run;

	if (!job_is_running(job) || (job->state & JOB_COMPLETING) ||
	    sus == (ev->suspend != 0))
		return -EINVAL;
	run = job_run_mut(job);
	if (ev->suspend) {
		run->pre_sus_secs = (uint32_t)job_run_secs(job, (time_t)ev->time);
		/* time slicing keeps the cores: the job is in their rotation */
		if (!ev->gang)
			cpus_move(ctld, job, 0);
		job->state |= JOB_SUSPEND_FLAG;
		run->sus_preempted = ev->preempted != 0;
		run->sus_gang = ev->gang != 0;
	} else {
		run->sus_preempted = 0;
		if (ev->time > run->suspend_time)
			run->sus_secs += (uint32_t)(ev->time - run->suspend_time);
		if (!run->sus_gang)
			cpus_move(ctld, job, 1);
		run->sus_gang = 0;
		job->state &= ~JOB_SUSPEND_FLAG;
	}
	run->suspend_time = (time_t)ev->time;
	return 0;
}

int suspend_cpus_given_up(const struct job *job)
{
	return (job->state & JOB_SUSPEND_FLAG) && !job->run->sus_gang;
}

void suspend_end(struct ctld *ctld, struct job *job)
{
	if (!(job->state & JOB_SUSPEND_FLAG))
		return;
	if (!job->run->sus_gang)
		cpus_move(ctld, job, 1);
	job_run_mut(job)->sus_gang = 0;
	job->state &= ~JOB_SUSPEND_FLAG;
}

int suspend_by_preemption(struct ctld *ctld, struct job *job)
{
	struct ev_suspend ev = {
	    .job_id = job->job_id, .time = time(NULL), .suspend = 1, .preempted = 1};

	/* stopped by time slicing: now its CPUs go to the preemptor */
	if ((job->state & JOB_SUSPEND_FLAG) && job->run->sus_gang) {
		struct ev_suspend back = {.job_id = job->job_id, .time = ev.time};
		if (ev_suspend_commit(ctld, &back) < 0)
			return -1;
	}
	if (ev_suspend_commit(ctld, &ev) < 0)
		return -1;
	job_signal_nodes(ctld, job, NO_VAL, SIGSTOP, 0);
	return 0;
}

/* May job take its CPUs again without taking any from others? */
static int cpus_free_again(struct ctld *ctld, const struct job *job)
{
	const struct job_run *run = job->run;

	for (uint32_t k = 0; k < run->nnodes; k++) {
		const struct node *n = node_mgr_get(ctld->nodes, run->node_idx[k]);
		if (run->held && run->held[k] &&
		    (n->alloc_cpus > n->cpus || n->cpus - n->alloc_cpus < run->cpus[k]))
			return 0;
	}
	return 1;
}

void suspend_tick(struct ctld *ctld, time_t now)
{
	if (now < ctld->preempt_until) /* its CPUs are a preemptor's to take */
		return;
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext) {
		struct ev_suspend ev = {.job_id = j->job_id, .time = now};
		if (!(j->state & JOB_SUSPEND_FLAG) || !j->run->sus_preempted ||
		    (j->state & JOB_COMPLETING) || !cpus_free_again(ctld, j))
			continue;
		if (ev_suspend_commit(ctld, &ev) < 0)
			continue;
		log_info("JobId=%u resumed: its CPUs are free again", j->job_id);
		job_signal_nodes(ctld, j, NO_VAL, SIGCONT, 0);
	}
}

/* Suspend (or resume) one running record; 0 or -ESLURM_*. */
static int suspend_one(struct ctld *ctld, struct job *job, int suspend)
{
	struct ev_suspend ev = {
	    .job_id = job->job_id, .time = time(NULL), .suspend = suspend ? 1 : 0};

	if (job_is_finished(job) || job->array_rem)
		return -ESLURM_INVALID_JOB_ID;
	if (!job_is_running(job) || (job->state & (JOB_COMPLETING | JOB_CONFIGURING)))
		return job_is_pending(job) ? -ESLURM_JOB_PENDING
		                           : -ESLURM_JOB_NOT_RUNNING;
	if (suspend && (job->state & JOB_SUSPEND_FLAG))
		return -ESLURM_JOB_SUSPENDED;
	if (!suspend && !(job->state & JOB_SUSPEND_FLAG))
		return -ESLURM_JOB_NOT_SUSPENDED;
	if (ev_suspend_commit(ctld, &ev) < 0)
		return SLURM_ERROR;
	log_info("JobId=%u %s", job->job_id, suspend ? "suspended" : "resumed");
	job_signal_nodes(ctld, job, NO_VAL, suspend ? SIGSTOP : SIGCONT, 0);
	return 0;
}

/* An array's id stands for every task of it (Slurm's job_suspend2): each
 * running one done, the first refusal told when none was. */
static int suspend_array(struct ctld *ctld, uint32_t id, int suspend)
{
	int rc = -ESLURM_INVALID_JOB_ID, any = 0;

	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		int one;
		if (j->job_id != id && j->array_job_id != id)
			continue;
		if (!(one = suspend_one(ctld, j, suspend)))
			any = 1;
		else if (rc == -ESLURM_INVALID_JOB_ID)
			rc = one;
	}
	return any ? 0 : rc;
}

void suspend_request(struct ctld *ctld, struct caller *who,
                     const struct job_suspend_req *r, struct chan *ch)
{
	struct job *job = NULL, *meta = NULL;
	int rc;

	if (r->flags & JOB_UPDATE_F_ARRAY_TASK) { /* N_T: that task alone */
		rc = job_array_task_lookup(ctld, who, r->job_id, r->array_task_id, &job,
		                           &meta);
		if (!rc)
			rc = job ? suspend_one(ctld, job, r->suspend)
			         : -ESLURM_JOB_PENDING;
	} else {
		job = job_find(ctld->jobs, r->job_id);
		/* a job of its own, or a task known by its own id */
		if (job && (!job->array_job_id || job->array_job_id != r->job_id))
			rc = suspend_one(ctld, job, r->suspend);
		else
			rc = suspend_array(ctld, r->job_id, r->suspend);
	}
	chan_send_rc(ch, rc,
	             rc == SLURM_ERROR ? "internal error recording the change" : NULL);
	if (rc)
		return;
	if (r->suspend)
		ctld_sched_kick(ctld); /* its CPUs are free */
	else
		ctld->res_gen++; /* time slicing looks again (gang.h) */
}
