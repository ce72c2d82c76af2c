/* nokill.c - a job that loses a node goes on without it (see nokill.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/states.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/nokill.h"
#include "proto/messages.h"
#include "common/common.h"

/* The node's position in the job's allocation, or -1. */
static int64_t position(struct ctld *ctld, const struct job *job, const char *node_name)
{
	int idx = node_name ? node_mgr_find(ctld->nodes, node_name) : -1;

	for (uint32_t k = 0; idx >= 0 && k < job->run->nnodes; k++)
		if (job->run->node_idx[k] == (uint32_t)idx)
			return k;
	return -1;
}

int nokill_keeps(struct ctld *ctld, const struct job *job, const char *node_name)
{
	int64_t k;

	if (!(job->desc.flags & JOB_F_NO_KILL) || !job_is_running(job) ||
	    job->run->nnodes < 2 || (job->state & (JOB_CONFIGURING | JOB_COMPLETING)) ||
	    job_x(job)->het_job_id)
		return 0;
	k = position(ctld, job, node_name);
	/* a batch script's node (its batch host): lost with it */
	return k >= 0 && ((job->desc.flags & JOB_F_INTERACTIVE) ||
	                  (uint32_t)k != job->run->batch_node);
}

static int step_on(const struct step *st, uint32_t idx)
{
	for (uint32_t i = 0; i < st->nnodes; i++)
		if (st->node_idx[i] == idx && !st->node_done[i])
			return 1;
	return 0;
}

int job_excise_node(struct ctld *ctld, struct job *job, const char *node_name,
                    int whole_steps)
{
	int idx = node_mgr_find(ctld->nodes, node_name);
	struct ev_excise ev = {
	    .job_id = job->job_id, .time = time(NULL), .node = (char *)node_name};
	struct signal_req kill = {.job_id = job->job_id,
	                          .step_id = NO_VAL,
	                          .signal = SIGKILL,
	                          .flags = SIGNAL_F_TERMINATE};
	int64_t k = position(ctld, job, node_name);
	uint32_t *ids = NULL;
	size_t n = 0;
	struct node *nd;

	if (idx < 0 || k < 0)
		return -1;
	ev.cpus = job->run->cpus[k];
	/* its steps there end (with whole_steps, their tasks elsewhere killed
	 * too); the job's extern step goes on elsewhere */
	for (struct step *st = job->run->steps; st; st = st->next)
		if (step_on(st, (uint32_t)idx)) {
			ids = xrealloc(ids, (n + 1) * sizeof(*ids));
			ids[n++] = st->step_id;
		}
	for (size_t i = 0; i < n; i++) {
		struct step_complete gone = {.job_id = job->job_id,
		                             .step_id = ids[i],
		                             .node_name = (char *)node_name,
		                             .status = SIGKILL};
		if (whole_steps && ids[i] != STEP_EXTERN)
			job_signal_nodes(ctld, job, ids[i], SIGKILL, 0);
		step_complete(ctld, &gone);
	}
	free(ids);
	if (!job_is_running(job) || ev_excise_commit(ctld, &ev) < 0)
		return -1;
	/* a node still there kills what is left of the job, and is not
	 * scheduled until it confirms (as on its registration) */
	nd = node_mgr_get(ctld->nodes, idx);
	if (nd->link) {
		node_mgr_orphan_add(nd, job->job_id);
		node_send(nd, MSG_SIGNAL_REQ, &kill);
	}
	ctld_sched_kick(ctld);
	return 0;
}

void nokill_excise(struct ctld *ctld, struct job *job, const char *node_name)
{
	if (job_excise_node(ctld, job, node_name, 1) == 0)
		log_err("Removing failed node %s from JobId=%u", node_name, job->job_id);
}

int job_shrink(struct ctld *ctld, struct job *job, uint32_t nodes)
{
	uint32_t from = job->run->nnodes;

	if (!job_is_running(job) || (job->state & (JOB_CONFIGURING | JOB_COMPLETING)))
		return -ESLURM_JOB_NOT_RUNNING;
	if (job_x(job)->het_job_id)
		return -ESLURM_NOT_SUPPORTED;
	if (!nodes)
		return -ESLURM_INVALID_NODE_COUNT;
	if (nodes > from)
		return -ESLURM_NOT_SUPPORTED; /* growing: not in Slurm 22.05 either */
	while (job->run->nnodes > nodes) {
		uint32_t k = job->run->nnodes - 1;
		char *name;
		/* the last nodes go, but never the batch script's */
		if (k == job->run->batch_node && !(job->desc.flags & JOB_F_INTERACTIVE))
			k--;
		name =
		    xstrdup(node_mgr_get(ctld->nodes, job->run->node_idx[k])->cfg->name);
		int rc = job_excise_node(ctld, job, name, 0);

		free(name);
		if (rc < 0)
			return SLURM_ERROR;
	}
	if (from != nodes)
		log_info("JobId=%u resized from %u to %u node(s): %s", job->job_id, from,
		         nodes, job->run->nodes_str);
	return 0;
}

/* Is node idx in names[0..n)? */
static int named(struct ctld *ctld, char **names, size_t n, uint32_t idx)
{
	for (size_t i = 0; i < n; i++)
		if (node_mgr_find(ctld->nodes, names[i]) == (int)idx)
			return 1;
	return 0;
}

int job_shrink_check(struct ctld *ctld, const struct job *job, const char *list)
{
	char **names = NULL;
	size_t n = 0;
	int rc = 0;

	if (!list || !*list || hostlist_expand(list, &names, &n, NULL) < 0 || !n)
		return -ESLURM_INVALID_NODE_NAME;
	for (size_t i = 0; i < n && !rc; i++)
		if (position(ctld, job, names[i]) < 0)
			rc = -ESLURM_INVALID_NODE_NAME; /* not one of the job's */
	/* the batch host cannot leave a job while resizing */
	if (!rc && !(job->desc.flags & JOB_F_INTERACTIVE) &&
	    !named(ctld, names, n, job_batch_node(job)))
		rc = -ESLURM_INVALID_NODE_NAME;
	hostlist_free(names);
	return rc;
}

int job_shrink_to(struct ctld *ctld, struct job *job, const char *list)
{
	uint32_t from = job->run->nnodes;
	char **names = NULL;
	size_t n = 0;
	int rc;

	if (!job_is_running(job) || (job->state & (JOB_CONFIGURING | JOB_COMPLETING)))
		return -ESLURM_JOB_NOT_RUNNING;
	if (job_x(job)->het_job_id)
		return -ESLURM_NOT_SUPPORTED;
	if ((rc = job_shrink_check(ctld, job, list)) != 0)
		return rc;
	if (hostlist_expand(list, &names, &n, NULL) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	for (uint32_t k = job->run->nnodes; k-- > 0 && !rc;) {
		char *name;
		if (named(ctld, names, n, job->run->node_idx[k]))
			continue;
		name =
		    xstrdup(node_mgr_get(ctld->nodes, job->run->node_idx[k])->cfg->name);
		if (job_excise_node(ctld, job, name, 0) < 0)
			rc = SLURM_ERROR;
		free(name);
	}
	hostlist_free(names);
	if (!rc && from != job->run->nnodes)
		log_info("JobId=%u resized from %u to %u node(s): %s", job->job_id, from,
		         job->run->nnodes, job->run->nodes_str);
	return rc;
}

/* Drop element k of an array of n elements of size sz. */
static void drop(void *arr, uint32_t n, uint32_t k, size_t sz)
{
	if (arr)
		memmove((char *)arr + k * sz, (char *)arr + (k + 1) * sz,
		        (n - k - 1) * sz);
}

int nokill_apply(struct ctld *ctld, const struct ev_excise *ev, struct job *job)
{
	int64_t k = job_is_running(job) ? position(ctld, job, ev->node) : -1;
	struct job_run *run;

	if (k < 0 || job->run->nnodes < 2)
		return -EINVAL;
	run = job_run_mut(job);
	job_release_node(ctld, job, (uint32_t)k, ev->time);
	free(run->cores[k]);
	if (run->gres)
		free(run->gres[k]);
	drop(run->node_idx, run->nnodes, (uint32_t)k, sizeof(*run->node_idx));
	drop(run->cpus, run->nnodes, (uint32_t)k, sizeof(*run->cpus));
	drop(run->tasks, run->nnodes, (uint32_t)k, sizeof(*run->tasks));
	drop(run->mem, run->nnodes, (uint32_t)k, sizeof(*run->mem));
	drop(run->cores, run->nnodes, (uint32_t)k, sizeof(*run->cores));
	drop(run->held, run->nnodes, (uint32_t)k, sizeof(*run->held));
	drop(run->gres, run->nnodes, (uint32_t)k, sizeof(*run->gres));
	run->nnodes--;
	if (run->batch_node > (uint32_t)k) /* it keeps its batch host */
		run->batch_node--;
	else if (run->batch_node == (uint32_t)k) /* an allocation's: no script */
		run->batch_node = 0;
	free(run->nodes_str);
	run->nodes_str = node_mgr_hostlist(ctld->nodes, run->node_idx, run->nnodes);
	ctld->res_gen++;
	return 0;
}
