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
#include "common/timefmt.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "common/common.h"

/* Display form of an output path: relative to WorkDir, %j %x %u %% expanded. */
static char *display_path(const struct job *job, const char *pattern)
{
	const char *pat = pattern             ? pattern
	                  : job->array_job_id ? "slurm-%A_%a.out"
	                                      : "slurm-%j.out";
	size_t cap = strlen(pat) + 256, len = 0;
	char *out = xmalloc(cap + 1);

	if (pat[0] != '/' && job->desc.work_dir)
		len = snprintf(out, cap, "%s/", job->desc.work_dir);
	for (const char *p = pat; *p && len < cap - 64; p++) {
		if (*p != '%' || !p[1]) {
			out[len++] = *p;
			continue;
		}
		p++;
		if (*p == 'j' || (*p == 'A' && !job->array_job_id))
			len += snprintf(out + len, cap - len, "%u", job->job_id);
		else if (*p == 'A')
			len += snprintf(out + len, cap - len, "%u", job->array_job_id);
		else if (*p == 'a')
			len += snprintf(out + len, cap - len, "%u", job->array_task_id);
		else if (*p == 'x')
			len += snprintf(out + len, cap - len, "%s",
			                job->desc.name ? job->desc.name : "");
		else if (*p == 'u')
			len += snprintf(out + len, cap - len, "%s", job->user);
		else if (*p == '%')
			out[len++] = '%';
		else {
			out[len++] = '%';
			out[len++] = *p;
		}
	}
	out[len] = '\0';
	return out;
}

/* Plain words for a pending job: what it waits for and, when backfill has
 * planned it, when and where it is expected to start.  Caller frees. */
static char *pending_detail(const struct job *job)
{
	char when[64];
	const char *why = job->reason_detail;
	char *own = NULL, *out;

	if (!job_is_pending(job))
		return xstrdup(job->reason_detail);
	if (!why && job->reason == WAIT_PRIORITY && job->part)
		why = own = xasprintf("waits for higher-priority jobs in partition %s",
		                      job->part->cfg->name);
	if (!job->est_start)
		return own ? own : xstrdup(why);
	timefmt_iso(job->est_start, when, sizeof(when));
	out = xasprintf("%s%sexpected to start at %s on %s", why ? why : "",
	                why ? "; " : "", when, job->sched_nodes ? job->sched_nodes : "?");
	free(own);
	return out;
}

static void job_fill_info(struct ctld *ctld, const struct job *job, struct job_info *o)
{
	const struct job_desc *d = &job->desc;
	uint32_t cpt = d->cpus_per_task == NO_VAL ? 1 : d->cpus_per_task;

	o->job_id = job->job_id;
	o->name = xstrdup(d->name);
	o->uid = job->uid;
	o->gid = job->gid;
	o->user = xstrdup(job->user);
	o->group = xstrdup(job->group);
	o->partition = xstrdup(d->partition);
	o->account = xstrdup(d->account);
	o->state = job->state;
	o->reason = job->reason;
	o->reason_detail = pending_detail(job);
	o->priority = job->priority;
	o->hold = job->hold;
	o->submit_time = job->submit_time;
	o->eligible_time = job->eligible_time;
	o->start_time = job_is_pending(job) ? job->est_start : job->start_time;
	o->end_time = job->end_time;
	if (job_is_pending(job)) {
		o->sched_nodes = xstrdup(job->sched_nodes);
		o->unavail_nodes = xstrdup(job->unavail_nodes);
	}
	if (job_is_running(job) && job->time_limit != INFINITE32)
		o->end_time = job->start_time + (time_t)job->time_limit * 60;
	o->time_limit = job->time_limit;
	o->min_nodes = job->min_nodes;
	o->num_nodes = job->nnodes ? job->nnodes : job->min_nodes;
	o->num_tasks = d->num_tasks != NO_VAL         ? d->num_tasks
	               : d->ntasks_per_node != NO_VAL ? d->ntasks_per_node * o->num_nodes
	                                              : o->num_nodes;
	o->ntasks_per_node = d->ntasks_per_node;
	o->cpus_per_task = d->cpus_per_task;
	o->mem_per_node = d->mem_per_node;
	o->mem_per_cpu = d->mem_per_cpu;
	if (job->nnodes) {
		o->cpus_per_node.v = xcalloc(job->nnodes, sizeof(uint32_t));
		o->cpus_per_node.n = job->nnodes;
		for (uint32_t i = 0; i < job->nnodes; i++) {
			o->cpus_per_node.v[i] = job->cpus[i];
			o->num_cpus += job->cpus[i];
		}
		o->nodes = xstrdup(job->nodes_str);
		o->batch_host =
		    xstrdup(node_mgr_get(ctld->nodes, job->node_idx[0])->cfg->name);
	} else {
		uint32_t tasks = d->num_tasks != NO_VAL ? d->num_tasks
		                 : d->ntasks_per_node != NO_VAL
		                     ? d->ntasks_per_node * job->min_nodes
		                     : job->min_nodes;
		o->num_cpus = tasks * cpt;
	}
	o->req_nodes = xstrdup(d->req_nodes);
	o->exc_nodes = xstrdup(d->exc_nodes);
	o->features = xstrdup(d->features);
	o->pn_min_cpus = d->pn_min_cpus;
	o->batch_flag = !(d->flags & JOB_F_INTERACTIVE);
	o->work_dir = xstrdup(d->work_dir);
	o->command = xstrdup(d->command);
	if (o->batch_flag) {
		o->std_out = display_path(job, d->std_out);
		o->std_err = display_path(job, d->std_err ? d->std_err : d->std_out);
		o->std_in = xstrdup(d->std_in ? d->std_in : "/dev/null");
	}
	o->exit_code = job->exit_code;
	o->restart_cnt = job->restart_cnt;
	o->derived_exit_code = job->derived_exit;
	o->flags = d->flags;
	o->submit_host = xstrdup(d->submit_host);
	o->comment = xstrdup(d->comment);
	/* what is still outstanding, as Slurm shows it; nothing once it ran */
	if (job_is_pending(job))
		o->dependency = depend_show(ctld, job, time(NULL));
	o->nice = d->nice;
	o->array_job_id = job->array_job_id;
	o->array_task_id = job->array_task_id;
	if (job->array_rem) {
		o->array_task_str = arrayspec_format(job->array_rem, 1);
		o->array_max_tasks = job->array_rem->throttle;
	}
}

#define JOB_INFO_CHUNK 4096

void job_mgr_info(struct ctld *ctld, struct caller *who, const struct job_info_req *req,
                  struct chan *ch)
{
	struct job_info_resp r = {.now = time(NULL)};
	size_t n = 0, cap = job_count(ctld->jobs) + req->job_ids.n;

	r.jobs = xcalloc(cap ? cap : 1, sizeof(struct job_info));
	if (req->job_ids.n) {
		for (uint32_t i = 0; i < req->job_ids.n; i++) {
			uint32_t id = req->job_ids.v[i];
			struct job *job = job_find(ctld->jobs, id);
			if (job)
				job_fill_info(ctld, job, &r.jobs[n++]);
			/* an array's id stands for all its tasks */
			for (struct job *t = job_first(ctld->jobs); t && n < cap;
			     t = t->next)
				if (t->array_job_id == id && t->job_id != id)
					job_fill_info(ctld, t, &r.jobs[n++]);
		}
		if (!n) {
			free(r.jobs);
			chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
			return;
		}
	} else {
		/* a frame holds at most JOB_INFO_CHUNK jobs; "more" says another follows
		 */
		for (struct job *job = job_first(ctld->jobs); job; job = job->next) {
			job_fill_info(ctld, job, &r.jobs[n++]);
			if (n == JOB_INFO_CHUNK && job->next) {
				r.jobs_count = n;
				r.more = 1;
				chan_send(ch, MSG_JOB_INFO_RESP, &r);
				for (size_t i = 0; i < n; i++)
					codec_release(&job_info_type, &r.jobs[i]);
				memset(r.jobs, 0, n * sizeof(struct job_info));
				n = 0;
			}
		}
	}
	r.jobs_count = n;
	r.more = 0;
	chan_send(ch, MSG_JOB_INFO_RESP, &r);
	codec_release(&job_info_resp_type, &r);
}

/* The job is ending: its sruns' steps are aborted, and an srun/salloc that
 * still holds the allocation learns that it is gone. */
static void tell_clients_end(struct job *job)
{
	char *text;

	for (struct step *st = job->steps; st; st = st->next)
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

void job_end(struct ctld *ctld, struct job *job, uint32_t state, uint32_t reason,
             uint32_t exit_code)
{
	int was_running = job_is_running(job);
	struct ev_end ev = {.job_id = job->job_id,
	                    .time = time(NULL),
	                    .state = state,
	                    .reason = reason,
	                    .exit_code = exit_code};

	/* before the nodes act: each srun of the job says its step is aborted */
	tell_clients_end(job);
	if (was_running) {
		/* the nodes tell the user why ("*** JOB N ON ... CANCELLED AT") */
		uint32_t why = state == JOB_CANCELLED ? SIGNAL_F_CANCELLED
		               : state == JOB_TIMEOUT ? SIGNAL_F_TIME_LIMIT
		                                      : 0;
		job_signal_nodes(ctld, job, NO_VAL, SIGKILL, SIGNAL_F_TERMINATE | why);
	}
	if (ev_end_commit(ctld, &ev) < 0)
		return;
	/* a node we cannot reach will not confirm: do not wait for it */
	for (uint32_t k = 0; was_running && k < job->nnodes; k++)
		if (!node_mgr_get(ctld->nodes, job->node_idx[k])->link)
			job_release_node(ctld, job, k, ev.time);
	if (job->alloc_client) {
		job->alloc_client->alloc_job_id = 0;
		chan_unref(job->alloc_client);
		job->alloc_client = NULL;
	}
	log_info("JobId=%u ended: %s", job->job_id, job_state_name(state));
	ctld_sched_kick(ctld);
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
	return who->uid == job->uid || caller_is_admin(who);
}

/* Cancel or signal one record; returns 0 or -ESLURM_*. */
static int cancel_one(struct ctld *ctld, struct caller *who, struct job *job,
                      const struct cancel_req *req)
{
	if (!job_may_touch(who, job))
		return -ESLURM_ACCESS_DENIED;
	if (job_is_finished(job))
		return -ESLURM_ALREADY_DONE;
	if (req->signal && req->signal != SIGKILL) {
		if (!job_is_running(job))
			return -ESLURM_JOB_PENDING;
		/* Slurm: a signal goes to the steps, not the batch shell, unless
		 * --batch (only the shell) or --full (everything) */
		job_signal_nodes(ctld, job, req->step_id, req->signal,
		                 (req->flags & CANCEL_F_BATCH)  ? SIGNAL_F_BATCH_ONLY
		                 : (req->flags & CANCEL_F_FULL) ? 0
		                 : req->step_id == NO_VAL       ? SIGNAL_F_NO_BATCH
		                                                : 0);
		return 0;
	}
	if (req->step_id != NO_VAL) {
		/* the srun first, so that it says "aborted" before the notices */
		for (struct step *st = job->steps; st; st = st->next)
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
	job_end(ctld, job, JOB_CANCELLED, WAIT_NO_REASON, 0);
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

/* scontrol requeue: a batch job goes back to the queue; what runs is killed.
 * It becomes eligible again after KillWait, so its old processes are gone. */
int job_requeue(struct ctld *ctld, struct job *job)
{
	struct ev_requeue ev = {.job_id = job->job_id,
	                        .time = time(NULL) + ctld->conf->kill_wait + 2};

	if (job->desc.flags & (JOB_F_INTERACTIVE | JOB_F_NO_REQUEUE))
		return -ESLURM_DISABLED;
	if (job_is_pending(job))
		return -ESLURM_JOB_PENDING;
	if (job_is_running(job)) {
		job_signal_nodes(ctld, job, NO_VAL, SIGKILL, SIGNAL_F_TERMINATE);
		/* the requeue frees the resources at once: the nodes that hold
		 * the old run are not scheduled until they confirm it gone */
		for (uint32_t k = 0; k < job->nnodes; k++) {
			struct node *n = node_mgr_get(ctld->nodes, job->node_idx[k]);
			if (n->link)
				node_mgr_orphan_add(n, job->job_id);
		}
	}
	if (ev_requeue_commit(ctld, &ev) < 0)
		return -ESLURM_TRANSITION_STATE_NO_UPDATE;
	log_info("JobId=%u requeued", job->job_id);
	return 0;
}

void job_node_failed(struct ctld *ctld, struct job *job, const char *node_name)
{
	if (!(job->desc.flags & (JOB_F_INTERACTIVE | JOB_F_NO_REQUEUE)) &&
	    job_requeue(ctld, job) == 0) {
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
	/* its own steps are over: no "aborted" notice for them */
	for (struct step *st = job->steps; st; st = st->next)
		if (st->client == ch) {
			chan_unref(ch);
			st->client = NULL;
		}
	/* an srun whose task the memory limit killed: OUT_OF_MEMORY, as Slurm */
	if (!job_is_finished(job) && (req->status & 0xff) == TASK_STATUS_OOM)
		job_end(ctld, job, JOB_OOM, FAIL_OOM, req->status);
	else if (!job_is_finished(job))
		job_end(ctld, job, req->status ? JOB_FAILED : JOB_COMPLETE,
		        req->status ? FAIL_EXIT_CODE : WAIT_NO_REASON, req->status);
	chan_send_rc(ch, 0, NULL);
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
		job_end(ctld, job, JOB_CANCELLED, WAIT_NO_REASON, 0);
	}
}

void job_mgr_tick(struct ctld *ctld, time_t now)
{
	time_t min_age = ctld->conf->min_job_age;

	/* only what has started: a queue of held jobs costs nothing here */
	for (struct job *j = job_first_active(ctld->jobs), *nx; j; j = nx) {
		nx = j->anext;
		if (job_is_running(j) && j->desc.warn_signal && !j->warn_sent &&
		    j->time_limit != INFINITE32 &&
		    now + (time_t)j->desc.warn_time >=
		        j->start_time + (time_t)j->time_limit * 60) {
			j->warn_sent = 1;
			log_info("JobId=%u: sending signal %u before its time limit",
			         j->job_id, j->desc.warn_signal);
			job_signal_nodes(ctld, j, NO_VAL, j->desc.warn_signal,
			                 (j->desc.warn_flags & WARN_F_BATCH_ONLY)
			                     ? SIGNAL_F_BATCH_ONLY
			                     : SIGNAL_F_NO_BATCH);
		}
		if (job_is_running(j) && j->time_limit != INFINITE32 &&
		    now >= j->start_time + (time_t)j->time_limit * 60) {
			log_info("JobId=%u reached its time limit", j->job_id);
			job_end(ctld, j, JOB_TIMEOUT, FAIL_TIMEOUT, 0);
		} else if ((j->state & JOB_COMPLETING) &&
		           now >= j->end_time + (time_t)ctld->conf->kill_wait + 30) {
			log_warn("JobId=%u: nodes never confirmed the end; releasing",
			         j->job_id);
			job_release_all(ctld, j, now);
		} else if (job_is_finished(j) && !(j->state & JOB_COMPLETING) &&
		           now >= j->end_time + min_age) {
			job_mgr_remove(ctld->jobs, j);
		}
	}
}
