/* admin_ops.c - scontrol's smaller requests (see admin_ops.h). */
#include <errno.h>
#include <syslog.h>
#include "common/log.h"
#include "common/states.h"
#include "ctld/admin_ops.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "proto/messages.h"
#include "common/common.h"

void admin_job_script(struct ctld *ctld, const struct caller *who,
                      const struct job_script_req *req, struct chan *ch)
{
	const struct job *job = job_find(ctld->jobs, req->job_id);
	struct job_script_resp r;

	if (!job) {
		chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	if (who->uid != job->owner->uid && !caller_is_operator(who)) {
		chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
		return;
	}
	if (!job->desc.script || (job->desc.flags & JOB_F_INTERACTIVE)) {
		chan_send_rc(ch, -ESLURM_JOB_SCRIPT_MISSING, NULL);
		return;
	}
	r.script = job->desc.script;
	chan_send(ch, MSG_JOB_SCRIPT_RESP, &r);
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
