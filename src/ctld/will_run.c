/* will_run.c - sbatch/srun --test-only (will_run.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/conf.h"
#include "common/schedparams.h"
#include "common/states.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/resv.h"
#include "ctld/sched_pass.h"
#include "ctld/will_run.h"
#include "proto/messages.h"
#include "sched/backfill.h"
#include "sched/bf_run.h"
#include "common/common.h"

/* One query: the would-be job (not in the table) and what the plan said. */
struct will_run {
	struct sched_pass ps;
	struct sched_params sp;
	struct job *job;
	int found;
	int64_t start;
	uint32_t cpus;
	char *nodes; /* owned */
};

static int wr_next(void *ctx, size_t i, struct sched_job *ret)
{
	struct will_run *w = ctx;

	(void)i;
	sched_pass_job(&w->ps, w->job, ret);
	ret->dur = backfill_job_estimate(w->ps.ctld, &w->sp, w->job);
	return SCHED_TRY;
}

static void wr_mark(void *ctx, size_t i, size_t alt, struct sched_node *nodes)
{
	struct will_run *w = ctx;

	(void)i;
	(void)nodes; /* w->ps.snap.nodes */
	sched_pass_mark_nodes(&w->ps, w->job, alt);
}

/* The job would start at t on a: remember where. */
static void wr_plan(void *ctx, size_t i, int64_t t, const struct sched_alloc *a)
{
	struct will_run *w = ctx;

	(void)i;
	w->cpus = 0;
	for (uint32_t k = 0; k < a->nnodes; k++)
		w->cpus += a->cpus[k];
	free(w->nodes);
	w->nodes = node_mgr_hostlist(w->ps.ctld->nodes, a->node_idx, a->nnodes);
	w->start = t;
	w->found = 1;
}

/* A start now is only noted: nothing starts. */
static int wr_start(void *ctx, size_t i, const struct sched_alloc *a)
{
	struct will_run *w = ctx;

	wr_plan(ctx, i, w->ps.now, a);
	return SCHED_STARTED;
}

static void wr_unplan(void *ctx, size_t i)
{
	struct will_run *w = ctx;

	(void)i;
	w->found = 0;
}

static const struct sched_ops wr_ops = {
    .next = wr_next,
    .mark = wr_mark,
    .start = wr_start,
    .plan = wr_plan,
    .unplan = wr_unplan,
};

/* Plan w->job alone over the nodes and the running jobs at now: 0 with w's
 * start and nodes, or -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE (it never
 * fits). */
static int will_run_plan(struct will_run *w, time_t now)
{
	struct ctld *ctld = w->ps.ctld;
	struct bf_run_params p = {
	    .window = BF_FOREVER, .resolution = w->sp.bf_resolution, .max_job_test = 1};
	struct sched_hold *holds = NULL;
	size_t n = 0, cap = 0;
	struct bf_run *run = bf_run_create(&p, &wr_ops, w, 1);
	int rc = -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;

	if (!run)
		fatal("out of memory");
	w->ps.backfill = 1; /* reservations are holds over their windows */
	w->ps.now = now;
	backfill_holds(ctld, &w->sp, now, &holds, &n, &cap);
	resv_holds(ctld, now, &holds, &n, &cap);
	if (bf_run_rebuild(run, &w->ps.snap, holds, n, now) < 0)
		fatal("out of memory");
	bf_run_step(run);
	if (w->found)
		rc = 0;
	bf_run_destroy(run);
	free(holds);
	return rc;
}

/* The plan of job in partition part: 0 and *w filled, or -ESLURM_*. */
static int will_run_in(struct ctld *ctld, struct job *job, struct part *part, time_t now,
                       struct will_run *w)
{
	int rc;

	uint32_t own = job->time_limit;

	job->part = part;
	/* -p a,b without --time: the limit it would have there */
	if (job_multi_part(job))
		job->time_limit = job_desc_time_limit(part, &job->desc);
	*w = (struct will_run){.job = job};
	sched_params_parse(ctld->conf->scheduler_params, &w->sp);
	sched_pass_init(&w->ps, ctld);
	rc = will_run_plan(w, now);
	sched_pass_release(&w->ps);
	job_sched_clear(job);
	job->time_limit = own;
	return rc;
}

void will_run_query(struct ctld *ctld, struct caller *who, struct job_desc *d,
                    struct chan *ch)
{
	struct job_submit_prep prep;
	struct owner owner = {0};
	struct job job = {0};
	struct will_run w = {.job = &job};
	struct part *parts[JOB_PARTS_MAX], *best_part = NULL;
	size_t nparts;
	time_t now = time(NULL);
	char *msg = NULL;
	int rc;

	if (d->ext && d->ext->cron_spec) { /* scrontab's own request */
		free(d->ext->cron_spec);
		d->ext->cron_spec = NULL;
	}
	rc = job_submit_prepare(ctld, who, d,
	                        JOB_SUBMIT_PROBE |
	                            (d->flags & JOB_F_INTERACTIVE ? JOB_SUBMIT_ALLOC : 0),
	                        &prep, &msg);
	if (rc)
		goto out;
	owner = (struct owner){
	    .uid = who->uid, .gid = who->gid, .user = prep.user, .group = prep.group};
	job = (struct job){.job_id = prep.ev.job_id,
	                   .state = JOB_PENDING,
	                   .time_limit = prep.ev.time_limit,
	                   .array_task_id = NO_VAL,
	                   .owner = &owner,
	                   .part = job_part_first(ctld->nodes, d->partition),
	                   .run = &job_run_none,
	                   .submit_time = now,
	                   .eligible_time = now,
	                   .desc = *d}; /* borrowed: never released */
	/* of several partitions (-p a,b), the earliest start, as the
	 * scheduler takes the first that gives it resources */
	nparts = job_parts_of(ctld->nodes, d->partition, parts, JOB_PARTS_MAX);
	rc = nparts ? -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE
	            : -ESLURM_INVALID_PARTITION_NAME;
	for (size_t k = 0; k < nparts; k++) {
		struct will_run one;
		if (will_run_in(ctld, &job, parts[k], now, &one) < 0) {
			free(one.nodes);
			continue;
		}
		if (!best_part || one.start < w.start) {
			free(w.nodes);
			w = one;
			best_part = parts[k];
			rc = 0;
		} else {
			free(one.nodes);
		}
	}
	if (rc)
		goto out;
	job.part = best_part;
	if (d->begin_time > w.start)
		w.start = d->begin_time;
	chan_send(ch, MSG_WILL_RUN_RESP,
	          &(struct will_run_resp){.job_id = prep.ev.job_id,
	                                  .start_time = w.start,
	                                  .proc_cnt = w.cpus,
	                                  .node_list = w.nodes,
	                                  .part_name = job.part->cfg->name});
	log_debug("will-run: JobId=%u would start at %lld on %s", prep.ev.job_id,
	          (long long)w.start, w.nodes);
out:
	if (rc) {
		char *detail = job_submit_detail(ctld, d, rc);
		chan_send_rc_detail(ch, rc, msg, detail);
		free(detail);
	}
	free(msg);
	free(w.nodes);
}
