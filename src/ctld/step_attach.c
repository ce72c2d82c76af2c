/* step_attach.c - sattach's request fanned out to a step's nodes (see
 * step_attach.h). */
#include "common/states.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/owner.h"
#include "ctld/step_attach.h"
#include "proto/messages.h"
#include "common/common.h"

void step_attach_request(struct ctld *ctld, const struct caller *who,
                         const struct step_attach *req, struct chan *ch)
{
	struct job *job = job_find(ctld->jobs, req->job_id);
	struct step_attach_resp r = {.job_id = req->job_id, .step_id = req->step_id};
	const struct step *st = NULL;

	if (!job) {
		chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	if (who->uid != job->owner->uid && !caller_is_operator(who)) {
		chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
		return;
	}
	if (job_is_running(job))
		for (st = job->run->steps; st && st->step_id != req->step_id;
		     st = st->next)
			;
	if (!st) {
		chan_send_rc(ch,
		             job_is_finished(job) ? -ESLURM_ALREADY_DONE
		                                  : -ESLURM_INVALID_JOB_ID,
		             NULL);
		return;
	}
	if (!st->tasks) {
		chan_send_rc(ch, -ESLURM_NOT_SUPPORTED,
		             "the step's task layout is not known (it started before an "
		             "upgrade)");
		return;
	}
	if (!(req->flags & STEP_ATTACH_F_LAYOUT)) {
		if (!req->io_host || !req->io_port || !req->io_key.len) {
			chan_send_rc(ch, -ESLURM_INVALID_ARGUMENT, NULL);
			return;
		}
		for (uint32_t k = 0; k < st->nnodes; k++)
			node_send(node_mgr_get(ctld->nodes, st->node_idx[k]),
			          MSG_STEP_ATTACH_REQ, req);
	}
	r.nodes = st->nodes;
	r.tasks_per_node = (struct rota_u32v){st->tasks, st->nnodes};
	r.task_dist = st->task_dist;
	r.task_map = (struct rota_u32v){st->task_map, st->ntask_map};
	chan_send(ch, MSG_STEP_ATTACH_RESP, &r);
}
