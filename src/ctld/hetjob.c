/* hetjob.c - heterogeneous jobs (see hetjob.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/jobfmt.h"
#include "common/states.h"
#include "common/strv.h"
#include "ctld/assoc_limits.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/hetjob.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/licenses.h"
#include "ctld/sched_pass.h"
#include "proto/messages.h"
#include "sched/topo.h"
#include "sched/view.h"
#include "common/common.h"

int hetjob_follower(const struct job *job)
{
	return job_x(job)->het_job_id && HET_OFFSET(job_x(job)->het_offset) > 0;
}

size_t hetjob_components(struct ctld *ctld, const struct job *leader, struct job **out)
{
	uint32_t id = job_x(leader)->het_job_id,
	         size = HET_SIZE(job_x(leader)->het_offset);
	size_t n = 0;

	if (!id || size > HET_MAX)
		return 0;
	memset(out, 0, size * sizeof(*out));
	/* the components' ids follow the leader's (one submission) */
	for (uint32_t k = 0; k < size; k++) {
		struct job *j = job_find(ctld->jobs, id + k);
		if (j && job_x(j)->het_job_id == id &&
		    HET_OFFSET(job_x(j)->het_offset) == k)
			out[n++] = j;
	}
	return n;
}

/* ---- submission ---- */

struct submit_reply {
	struct ctld *ctld;
	struct chan *ch;
	uint32_t job_id, n;
	int alloc;
};

/* The journal could not record it: refused, and what was kept goes (never
 * acknowledged, so no one knows its ids). */
static void submit_failed(struct submit_reply *r)
{
	struct ctld *ctld = r->ctld;

	if (r->alloc && r->ch->alloc_job_id == r->job_id)
		r->ch->alloc_job_id = 0;
	for (uint32_t k = 0; k < r->n; k++) {
		struct job *j = job_find(ctld->jobs, r->job_id + k);
		if (!j || job_x(j)->het_job_id != r->job_id)
			continue;
		if (j->alloc_client) {
			chan_unref(j->alloc_client);
			j->alloc_client = NULL;
		}
		if (job_is_pending(j))
			job_mgr_remove(ctld->jobs, j);
		else if (!job_is_finished(j))
			job_end(ctld, j, JOB_CANCELLED, 0, 0);
	}
	chan_send_rc(r->ch, -ESLURM_WRITING_TO_FILE, NULL);
}

static void submit_durable(void *arg, int rc)
{
	struct submit_reply *r = arg;

	if (rc < 0) {
		submit_failed(r);
	} else if (!r->alloc) {
		struct submit_resp resp = {.job_id = r->job_id};
		chan_send(r->ch, MSG_SUBMIT_RESP, &resp);
	} else { /* as one allocation: the leader's */
		job_mgr_alloc_recorded(r->ctld, r->job_id, r->ch);
	}
	ctld_sched_kick(r->ctld);
	chan_unref(r->ch);
	free(r);
}

/* Components never share a node (hetjob_start): the nodes one requires
 * (-w) are excluded from every other, as Slurm does, so that none waits for a
 * node another holds; two requiring one node are refused (-w and -x). */
static void exclude_required(struct submit_het *req)
{
	uint32_t n = req->jobs_count;
	char **add = xcalloc(n, sizeof(*add));

	for (uint32_t k = 0; k < n; k++)
		for (uint32_t o = 0; o < n; o++) {
			const char *w = req->jobs[o].req_nodes;
			char *more;
			if (o == k || !w || !*w)
				continue;
			more = add[k] ? xasprintf("%s,%s", add[k], w) : xstrdup(w);
			free(add[k]);
			add[k] = more;
		}
	for (uint32_t k = 0; k < n; k++) {
		struct job_desc *d = &req->jobs[k];
		if (!add[k])
			continue;
		if (d->exc_nodes && *d->exc_nodes) {
			char *both = xasprintf("%s,%s", d->exc_nodes, add[k]);
			free(add[k]);
			add[k] = both;
		}
		free(d->exc_nodes);
		d->exc_nodes = add[k];
	}
	free(add);
}

void hetjob_submit_request(struct ctld *ctld, const struct caller *who,
                           struct submit_het *req, int alloc, struct chan *ch)
{
	struct job_submit_prep *prep;
	struct submit_reply *r;
	uint32_t n = req->jobs_count, leader = 0;
	int rc = 0;
	char *msg = NULL;

	if (n < 2 || n > HET_MAX) {
		chan_send_rc(ch, -ESLURM_INVALID_ARGUMENT,
		             n < 2 ? "a heterogeneous job needs two components or more"
		                   : "too many components in a heterogeneous job");
		return;
	}
	if (alloc && ch->alloc_job_id) {
		chan_send_rc(ch, -ESLURM_INVALID_ARGUMENT,
		             "this connection holds an allocation already");
		return;
	}
	exclude_required(req);
	prep = xcalloc(n, sizeof(*prep));
	uint32_t as_uid = req->jobs_count ? job_desc_X(&req->jobs[0])->as_uid : 0,
	         as_gid = req->jobs_count ? job_desc_X(&req->jobs[0])->as_gid : 0;

	for (uint32_t k = 0; k < n && !rc; k++) {
		struct job_desc *d = &req->jobs[k];

		/* one user's: root's --uid/--gid of the leader is every one's */
		if (k && (as_uid || as_gid)) {
			job_desc_x_mut(d)->as_uid = as_uid;
			job_desc_x_mut(d)->as_gid = as_gid;
		}
		/* one job: the leader's script, name and files for all */
		if (k && !alloc) {
			free(d->script);
			d->script =
			    xstrdup(req->jobs[0].script ? req->jobs[0].script : "");
		}
		/* no component is an array (Slurm's wording) */
		if (d->array_inx) {
			rc = -ESLURM_INVALID_ARRAY;
			break;
		}
		if (job_desc_X(d)->cron_spec) {
			rc = -ESLURM_INVALID_ARGUMENT;
			msg = xstrdup("invalid request");
			break;
		}
		if (!alloc) /* an allocation's are (job_submit_prepare) */
			d->flags &= ~(uint32_t)JOB_F_INTERACTIVE;
		ctld->submit_extra = k;
		rc = job_submit_prepare(ctld, who, d, alloc ? JOB_SUBMIT_ALLOC : 0,
		                        &prep[k], &msg);
		ctld->submit_extra = 0;
		if (!rc && k && prep[k].ev.job_id != prep[k - 1].ev.job_id + 1) {
			/* the ids must follow each other: those after the
			 * leader's were taken (a wrap of MaxJobId) */
			rc = -ESLURM_INVALID_JOB_ID;
			msg = xstrdup("no consecutive job ids free for the components");
		}
		if (!rc && !k)
			leader = prep[0].ev.job_id;
	}
	if (rc) {
		chan_send_rc(ch, rc, msg);
		free(msg);
		free(prep);
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		struct job_desc *d = &req->jobs[k];
		job_desc_x_mut(d)->het_job_id = leader;
		job_desc_x_mut(d)->het_offset = k | n << 16;
		/* held together: the leader's hold and priority decide */
		prep[k].ev.hold = prep[0].ev.hold;
		if (ev_submit_commit(ctld, &prep[k].ev) < 0) {
			chan_send_rc(ch, SLURM_ERROR, "internal error recording the job");
			free(prep);
			return;
		}
	}
	if (alloc) { /* the allocation lives on this connection (job_ops.c) */
		struct job *lead = job_find(ctld->jobs, leader);
		lead->alloc_client = ch;
		chan_ref(ch);
		ch->alloc_job_id = leader;
	}
	log_info("JobId=%u submitted by uid %u (heterogeneous %s, %u components)", leader,
	         (unsigned)who->uid, alloc ? "allocation" : "batch", n);
	free(prep);
	r = xcalloc(1, sizeof(*r));
	r->ctld = ctld;
	r->ch = ch;
	r->job_id = leader;
	r->n = n;
	r->alloc = alloc;
	chan_ref(ch);
	ctld_sched_kick(ctld);
	journal_when_durable(ctld->journal, submit_durable, r);
}

/* ---- starting ---- */

static void alloc_copy(struct sched_alloc *to, const struct sched_alloc *from)
{
	memset(to, 0, sizeof(*to));
	if (sched_alloc_dup(to, from) < 0)
		fatal("out of memory");
}

/* Place comp on what the snapshot has left, on none of the nodes of the
 * components before it (before[nbefore]); 0 and *out, or -EAGAIN. */
static int place(struct sched_pass *ps, struct job *comp,
                 const struct sched_alloc *before, size_t nbefore,
                 struct sched_alloc *out, uint32_t *ret_share)
{
	struct sched_job sj = {0};

	sched_pass_job(ps, comp, &sj);
	*ret_share = sj.req.share;
	for (size_t alt = 0; alt < sj.nalts; alt++) {
		int rc;

		sched_pass_mark_nodes(ps, comp, alt);
		for (size_t k = 0; k < nbefore; k++)
			sched_alloc_avoid(ps->snap.nodes, ps->snap.nnodes, &before[k]);
		sched_snap_mask(&ps->snap); /* nodes kept for jobs before it */
		rc = sched_select_topo(ps->snap.nodes, ps->snap.nnodes, &sj.req,
		                       ps->snap.topo, &ps->snap.out);
		sched_snap_unmask(&ps->snap);
		if (rc == 0) {
			alloc_copy(out, &ps->snap.out);
			return 0;
		}
	}
	return -EAGAIN;
}

/* A component that was started while another then could not be: back to
 * the queue at once (it ran nothing: only the leader runs the script). */
static void unstart(struct ctld *ctld, struct job *c)
{
	struct ev_requeue ev = {.job_id = c->job_id, .time = time(NULL)};

	if (job_is_running(c))
		ev_requeue_commit(ctld, &ev);
}

/* The leader's partition, and each component's, wait for it: no job after
 * it takes their nodes in this pass (as a job that does not fit blocks). */
static void block_parts(struct sched_pass *ps, struct job **comps, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		size_t p = sched_pass_part_index(ps->ctld, comps[k]->part);
		/* one in a reservation blocks nobody (main_admit) */
		if (p < ps->snap.nparts && !job_x(comps[k])->reservation)
			sched_snap_block(&ps->snap, (uint32_t)p);
	}
}

int hetjob_start_placed(struct sched_pass *ps, struct job **comps,
                        const struct sched_alloc *a, size_t n)
{
	size_t started = 1;
	int rc = 0;

	/* the others first: the leader's script is told where they run; all
	 * of them, or none (what started goes back) */
	for (; started < n; started++)
		if (sched_pass_start_job(ps, comps[started], &a[started]) < 0 ||
		    !job_is_running(comps[started]))
			break;
	if (started == n)
		rc = sched_pass_start_job(ps, comps[0], &a[0]);
	if (started < n || rc < 0 || !job_is_running(comps[0])) {
		for (size_t k = 1; k < n; k++)
			unstart(ps->ctld, comps[k]);
		sched_pass_set_reason(comps[0], WAIT_RESOURCES, NULL);
		return -EAGAIN;
	}
	return rc;
}

int hetjob_start(struct sched_pass *ps, struct job *leader, const struct sched_alloc *a)
{
	struct job *comps[HET_MAX];
	struct sched_alloc lead = {0}, got[HET_MAX];
	uint32_t share[HET_MAX] = {0}, size = HET_SIZE(job_x(leader)->het_offset),
	         why = 0;
	size_t n = hetjob_components(ps->ctld, leader, comps), placed = 1;
	int rc = 0;

	memset(got, 0, sizeof(got));
	if (n != size || comps[0] != leader) {
		sched_pass_set_reason(leader, WAIT_RESOURCES,
		                      xstrdup("a component of the job is missing"));
		return -EAGAIN;
	}
	/* a (the snapshot's own out) is reused for each component below */
	alloc_copy(&lead, a);
	alloc_copy(&got[0], a); /* where the others may not go */
	{
		struct sched_job sj = {0};
		sched_pass_job(ps, leader, &sj);
		share[0] = sj.req.share;
	}
	sched_snap_take(&ps->snap, &lead, share[0]);
	for (; placed < n; placed++) {
		struct job *c = comps[placed];
		/* each component's own limits and licenses, as the leader's */
		if (!job_is_pending(c) || (why = assoc_limits_check(ps->limits, c)) ||
		    (why = lic_pool_check(ps->lics, c)) ||
		    place(ps, c, got, placed, &got[placed], &share[placed]) < 0) {
			rc = -EAGAIN;
			break;
		}
		sched_snap_take(&ps->snap, &got[placed], share[placed]);
	}
	/* the pass takes the leader's itself once it started */
	sched_snap_give(&ps->snap, &lead, share[0]);
	if (rc) {
		for (size_t k = 1; k < placed; k++)
			sched_snap_give(&ps->snap, &got[k], share[k]);
		sched_pass_set_reason(leader, why ? why : WAIT_RESOURCES, NULL);
		block_parts(ps, comps, placed < n ? placed + 1 : n);
	} else {
		rc = hetjob_start_placed(ps, comps, got, n);
	}
	for (size_t k = 0; k < n; k++)
		sched_alloc_free(&got[k]);
	/* the pass reads the leader's allocation from the snapshot's out */
	memcpy(ps->snap.out.node_idx, lead.node_idx, lead.nnodes * sizeof(uint32_t));
	memcpy(ps->snap.out.cpus, lead.cpus, lead.nnodes * sizeof(uint32_t));
	memcpy(ps->snap.out.tasks, lead.tasks, lead.nnodes * sizeof(uint32_t));
	memcpy(ps->snap.out.mem, lead.mem, lead.nnodes * sizeof(uint64_t));
	if (lead.gres && ps->snap.out.gres)
		memcpy(ps->snap.out.gres, lead.gres,
		       (size_t)lead.nnodes * SCHED_GRES_KINDS * sizeof(uint32_t));
	ps->snap.out.nnodes = lead.nnodes;
	ps->snap.out.ntasks = lead.ntasks;
	sched_alloc_free(&lead);
	return rc;
}

/* ---- the batch script's environment ---- */

static char **put(char **env, const char *name, uint32_t k, const char *value)
{
	char *key;

	if (!value)
		return env;
	key = xasprintf("%s_HET_GROUP_%u", name, k);
	env = strv_setenv(env, key, value);
	free(key);
	return env;
}

static char **putu(char **env, const char *name, uint32_t k, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	return put(env, name, k, num);
}

char **hetjob_batch_env(struct ctld *ctld, const struct job *leader)
{
	struct job *comps[HET_MAX];
	size_t n;
	char **env = NULL;

	if (!job_x(leader)->het_job_id || hetjob_follower(leader))
		return NULL;
	n = hetjob_components(ctld, leader, comps);
	for (uint32_t k = 0; k < n; k++) {
		const struct job *j = comps[k];
		const struct job_desc *d = &j->desc;
		const struct job_run *run = j->run;
		char *s;
		uint32_t ntasks = 0;

		env = putu(env, "SLURM_JOB_ID", k, j->job_id);
		env = putu(env, "SLURM_JOBID", k, j->job_id);
		env = put(env, "SLURM_JOB_NAME", k, d->name);
		env = put(env, "SLURM_JOB_PARTITION", k, job_part_name(j));
		env = put(env, "SLURM_JOB_ACCOUNT", k, d->account);
		env = put(env, "SLURM_JOB_QOS", k, d->qos);
		env = put(env, "SLURM_JOB_RESERVATION", k, job_desc_X(d)->reservation);
		if (d->mem_per_node != NO_VAL64)
			env = putu(env, "SLURM_MEM_PER_NODE", k, d->mem_per_node);
		if (d->mem_per_cpu != NO_VAL64)
			env = putu(env, "SLURM_MEM_PER_CPU", k, d->mem_per_cpu);
		if (!run->nnodes)
			continue; /* not started (cannot be: all start together) */
		env = put(env, "SLURM_JOB_NODELIST", k, run->nodes_str);
		env = put(env, "SLURM_NODELIST", k, run->nodes_str);
		env = putu(env, "SLURM_JOB_NUM_NODES", k, run->nnodes);
		env = putu(env, "SLURM_NNODES", k, run->nnodes);
		env = put(env, "SLURM_JOB_CPUS_PER_NODE", k,
		          s = jobfmt_counts(run->cpus, run->nnodes));
		free(s);
		env = put(env, "SLURM_TASKS_PER_NODE", k,
		          s = jobfmt_counts(run->tasks, run->nnodes));
		free(s);
		for (uint32_t i = 0; i < run->nnodes; i++)
			ntasks += run->tasks[i];
		/* srun --het-group=k reads these (cli/srun.c) */
		env = putu(env, "SLURM_NTASKS", k, ntasks);
		env = putu(env, "SLURM_NPROCS", k, ntasks);
		if (d->cpus_per_task != NO_VAL)
			env = putu(env, "SLURM_CPUS_PER_TASK", k, d->cpus_per_task);
		if (d->ntasks_per_node != NO_VAL)
			env = putu(env, "SLURM_NTASKS_PER_NODE", k, d->ntasks_per_node);
	}
	{
		char num[16];
		snprintf(num, sizeof(num), "%zu", n);
		env = strv_setenv(env, "SLURM_HET_SIZE", num);
	}
	return env;
}

/* ---- ending ---- */

void hetjob_ended(struct ctld *ctld, struct job *job, uint32_t state, uint32_t reason,
                  uint32_t by)
{
	struct job *comps[HET_MAX], *leader;
	size_t n;

	if (!job_x(job)->het_job_id)
		return;
	/* a running component cancelled by itself ends alone (Slurm; the
	 * leader's end, or a cancel with whole_hetjob, ends all) */
	if (hetjob_follower(job) && state == JOB_CANCELLED && by)
		return;
	leader = job_find(ctld->jobs, job_x(job)->het_job_id);
	if (!leader)
		return;
	n = hetjob_components(ctld, leader, comps);
	for (size_t k = 0; k < n; k++) {
		struct job *c = comps[k];
		if (c == job || job_is_finished(c))
			continue;
		if (state == JOB_CANCELLED && by)
			job_cancel(ctld, c, reason, (uid_t)(by - 1));
		else
			job_end(ctld, c, state, reason, 0);
	}
}
