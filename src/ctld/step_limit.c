/* step_limit.c - a step's own time limit (srun -t inside an allocation,
 * scontrol update StepId= TimeLimit=), as Slurm's: the job's limit still
 * ends everything; a step past its own is killed alone, its nodes saying
 * "*** STEP J.S ON node CANCELLED AT ... DUE TO TIME LIMIT ***". */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "common/states.h"
#include "proto/messages.h"
#include "common/common.h"

int step_apply_limit(struct job *job, const struct ev_step_limit *ev)
{
	struct step *st = job_is_running(job) ? step_find(job, ev->step_id) : NULL;

	if (!st || !ev->time_limit)
		return -ENOENT;
	st->time_limit = ev->time_limit;
	st->limit_sent = 0; /* a longer limit gives it its time again */
	return 0;
}

static int limit_one(struct ctld *ctld, struct job *job, struct step *st,
                     uint32_t minutes)
{
	struct ev_step_limit ev = {
	    .job_id = job->job_id, .step_id = st->step_id, .time_limit = minutes};

	if (ev_step_limit_commit(ctld, &ev) < 0)
		return -1;
	log_info("JobId=%u StepId=%u time limit set to %u minute(s)", job->job_id,
	         st->step_id, minutes);
	return 0;
}

void step_update(struct ctld *ctld, struct caller *who, const struct step_update_req *req,
                 struct chan *ch)
{
	struct job *job = job_find(ctld->jobs, req->job_id);
	int found = 0, failed = 0;

	if (!job) {
		chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	if (who->uid != job->owner->uid && !caller_is_operator(who)) {
		log_err(
		    "security violation: MSG_STEP_UPDATE_REQ from uid %u for JobId=%u",
		    (unsigned)who->uid, job->job_id);
		chan_send_rc(ch, -ESLURM_USER_ID_MISSING, NULL);
		return;
	}
	if (!req->time_limit) {
		chan_send_rc(ch, -ESLURM_INVALID_TIME_LIMIT, NULL);
		return;
	}
	for (struct step *st = job_is_running(job) ? job->run->steps : NULL, *nx; st;
	     st = nx) {
		nx = st->next;
		if (req->step_id != NO_VAL && st->step_id != req->step_id)
			continue;
		found = 1;
		failed |= limit_one(ctld, job, st, req->time_limit) < 0;
	}
	if (!found && req->step_id != NO_VAL)
		chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
	else if (failed)
		chan_send_rc(ch, SLURM_ERROR, "the journal refused the change");
	else
		chan_send_rc(ch, 0, NULL);
}

void step_limits_tick(struct ctld *ctld, struct job *job, time_t now)
{
	for (struct step *st = job->run->steps; st; st = st->next) {
		/* time the job spent suspended does not count (as the job's) */
		long ran = (long)(now - st->start_time) -
		           (long)(job->run->sus_secs - st->sus_at_start);
		if (!st->time_limit || st->time_limit == INFINITE32 || st->limit_sent ||
		    ran < (long)st->time_limit * 60)
			continue;
		st->limit_sent = 1;
		log_info("JobId=%u StepId=%u reached its time limit", job->job_id,
		         st->step_id);
		/* its srun hears the nodes' notice, then the step's end */
		job_signal_nodes(ctld, job, st->step_id, SIGKILL,
		                 SIGNAL_F_TERMINATE | SIGNAL_F_TIME_LIMIT);
	}
}
