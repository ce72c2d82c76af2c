/* admin_ops.c - scontrol's smaller requests (see admin_ops.h). */
#include <errno.h>
#include <string.h>
#include <syslog.h>
#include "common/log.h"
#include "common/states.h"
#include "ctld/admin_ops.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "proto/messages.h"
#include "common/common.h"

/* Job id, when who may act on it (its user or an operator); else NULL, the
 * error sent. */
static struct job *owned_job(struct ctld *ctld, const struct caller *who, uint32_t id,
                             struct chan *ch)
{
	struct job *job = job_find(ctld->jobs, id);

	if (!job)
		chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
	else if (who->uid != job->owner->uid && !caller_is_operator(who))
		chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
	else
		return job;
	return NULL;
}

void admin_job_script(struct ctld *ctld, const struct caller *who,
                      const struct job_script_req *req, struct chan *ch)
{
	const struct job *job = owned_job(ctld, who, req->job_id, ch);
	struct job_script_resp r;

	if (!job)
		return;
	if (!job->desc.script || (job->desc.flags & JOB_F_INTERACTIVE)) {
		chan_send_rc(ch, -ESLURM_JOB_SCRIPT_MISSING, NULL);
		return;
	}
	r.script = job->desc.script;
	chan_send(ch, MSG_JOB_SCRIPT_RESP, &r);
}

void admin_job_notify(struct ctld *ctld, const struct caller *who,
                      const struct job_notify_req *req, struct chan *ch)
{
	struct job *job = owned_job(ctld, who, req->job_id, ch);
	struct signal_req sig = {.job_id = req->job_id,
	                         .step_id = STEP_BATCH,
	                         .flags = SIGNAL_F_NOTIFY,
	                         .message = req->message};
	struct user_msg um = {.message = req->message};

	if (!job)
		return;
	if (!req->message || strlen(req->message) > JOB_NOTIFY_MAX) {
		chan_send_rc(ch, -EINVAL, "the message is empty or too long");
		return;
	}
	if (job_is_finished(job)) {
		chan_send_rc(ch, -ESLURM_ALREADY_DONE, NULL);
		return;
	}
	if (job->alloc_client) { /* salloc's or srun's, pending or not */
		chan_send(job->alloc_client, MSG_USER_MSG, &um);
	} else if (job_is_running(job) && !(job->desc.flags & JOB_F_INTERACTIVE) &&
	           job->run->nnodes) { /* the batch script's error output */
		node_send(node_mgr_get(ctld->nodes, job_batch_node(job)), MSG_SIGNAL_REQ,
		          &sig);
	} else {
		chan_send_rc(ch, -ESLURM_DISABLED, NULL);
		return;
	}
	chan_send_rc(ch, 0, NULL);
}

/* Slurm's debug levels 0 (quiet) .. 9 (debug5), as syslog's. */
static int syslog_level(int32_t level)
{
	static const int map[] = {LOG_CRIT,  LOG_CRIT,  LOG_ERR,   LOG_INFO,  LOG_INFO,
	                          LOG_DEBUG, LOG_DEBUG, LOG_DEBUG, LOG_DEBUG, LOG_DEBUG};

	return level >= 0 && level <= 9 ? map[level] : -1;
}

void admin_set_debug(struct ctld *ctld, const struct caller *who,
                     const struct set_debug_req *req, struct chan *ch)
{
	int level;

	(void)ctld;
	(void)who;
	switch (req->what) {
	case SET_DEBUG_LEVEL:
		if ((level = syslog_level(req->level)) < 0) {
			chan_send_rc(ch, -EINVAL, "invalid debug level");
			return;
		}
		/* said first: a quieter level would not say it */
		log_info("Set debug level to %d", (int)req->level);
		log_set_level(level);
		break;
	case SET_DEBUG_FLAGS: /* Rota's messages have no per-subsystem flags */
		log_info("Set DebugFlags to %s", req->flags ? req->flags : "none");
		break;
	case SET_DEBUG_SCHED: /* the scheduler's decisions are in the log already */
		log_info("sched: Set scheduler log level to %d", (int)req->level);
		break;
	default:
		chan_send_rc(ch, -EINVAL, NULL);
		return;
	}
	chan_send_rc(ch, 0, NULL);
}
