/* step_mgr.c - job steps: srun inside an allocation. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/taskdist.h"
#include "common/jobfmt.h"
#include "common/strv.h"
#include "common/states.h"
#include "common/schedparams.h"
#include "ctld/mcs_label.h"
#include "ctld/resv_ports.h"
#include "ctld/acct.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/step_alloc.h"
#include "common/common.h"

static void step_free(struct step *st)
{
	if (st->client)
		chan_unref(st->client);
	free(st->name);
	free(st->nodes);
	free(st->resv_ports);
	free(st->node_idx);
	free(st->tasks);
	for (uint32_t i = 0; st->slots && i < st->nnodes; i++)
		free(st->slots[i]);
	free(st->slots);
	free(st->nslots);
	free(st->mem);
	for (uint32_t i = 0; st->gres && i < st->nnodes; i++)
		free(st->gres[i]);
	free(st->gres);
	free(st->node_done);
	free(st->task_map);
	free(st);
}

void step_free_all(struct job *job)
{
	if (!job->run->steps)
		return;
	for (struct step *s = job->run->steps, *n; s; s = n) {
		n = s->next;
		step_free(s);
	}
	job_run_mut(job)->steps = NULL;
}

/* The job position of node name, or -1 when the job has no such node. */
static int job_node_pos(struct ctld *ctld, const struct job *job, const char *name)
{
	int idx = node_mgr_find(ctld->nodes, name);

	for (uint32_t k = 0; idx >= 0 && k < job->run->nnodes; k++)
		if ((int)job->run->node_idx[k] == idx)
			return (int)k;
	return -1;
}

static int pos_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* -N more than -w names (the allocation's node count from the environment
 * counts, as Slurm's srun): the names and the job's first others, not -x
 * ones, in the job's order. */
static uint32_t listed_and_more(struct ctld *ctld, const struct job *job, uint32_t want,
                                char **excluded, uint32_t *pos, uint32_t n)
{
	uint8_t *in = xcalloc(job->run->nnodes, 1);

	for (uint32_t i = 0; i < n; i++)
		in[pos[i]] = 1;
	for (uint32_t k = 0; k < job->run->nnodes && n < want && n < job->run->nnodes;
	     k++)
		if (!in[k] &&
		    !strv_has(excluded,
		              node_mgr_get(ctld->nodes, job->run->node_idx[k])->cfg->name,
		              0))
			pos[n++] = k;
	free(in);
	qsort(pos, n, sizeof(*pos), pos_cmp);
	return n;
}

/* Those -w names' job node positions, and more when -N asks more. */
static int listed_candidates(struct ctld *ctld, const struct job *job,
                             const struct step_create_req *req, uint32_t *pos)
{
	char **names = NULL, **excluded = NULL;
	size_t count = 0, nexcluded = 0;
	uint8_t *seen;
	uint32_t n = 0;
	int rc = 0;

	if (hostlist_expand(req->nodelist, &names, &count, NULL) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	if (req->exc_nodes && req->exc_nodes[0] &&
	    hostlist_expand(req->exc_nodes, &excluded, &nexcluded, NULL) < 0) {
		hostlist_free(names);
		return -ESLURM_INVALID_NODE_NAME;
	}
	for (size_t i = 0; i < count && !rc; i++) /* both -w and -x: nowhere to run */
		if (strv_has(excluded, names[i], 0))
			rc = -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	seen = xcalloc(job->run->nnodes, 1);
	for (size_t i = 0; i < count && !rc && n < job->run->nnodes; i++) {
		int k = job_node_pos(ctld, job, names[i]);
		if (k < 0)
			rc = -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		else if (!seen[k]) /* a name given twice is one node */
			pos[n++] = (uint32_t)k;
		if (k >= 0)
			seen[k] = 1;
	}
	free(seen);
	if (!rc && req->min_nodes != NO_VAL && req->min_nodes > n &&
	    TASKDIST_TYPE(req->task_dist) != TASKDIST_ARBITRARY)
		n = listed_and_more(ctld, job, req->min_nodes, excluded, pos, n);
	if (!rc && req->min_nodes != NO_VAL && req->min_nodes > n &&
	    !(req->flags & STEP_F_NODES_ENV) &&
	    TASKDIST_TYPE(req->task_dist) != TASKDIST_ARBITRARY)
		rc = -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE; /* -N more than there are
		                                                 */
	hostlist_free(names);
	hostlist_free(excluded);
	return rc ? rc : (int)n;
}

/* The job node positions the step may use, in order: those -w names, or from
 * the -r'th on but those -x names.  Returns how many, or -ESLURM_*. */
static int step_candidates(struct ctld *ctld, struct job *job,
                           const struct step_create_req *req, uint32_t *pos)
{
	uint32_t n = 0;
	char **excluded = NULL;
	size_t nexcluded = 0;

	if (req->nodelist && req->nodelist[0])
		return listed_candidates(ctld, job, req, pos);
	if (req->relative != NO_VAL && req->relative >= job->run->nnodes)
		return -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	if (req->exc_nodes && req->exc_nodes[0] &&
	    hostlist_expand(req->exc_nodes, &excluded, &nexcluded, NULL) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	for (uint32_t k = req->relative == NO_VAL ? 0 : req->relative;
	     k < job->run->nnodes; k++) {
		const char *name =
		    node_mgr_get(ctld->nodes, job->run->node_idx[k])->cfg->name;
		if (!strv_has(excluded, name, 0)) /* -x: not these */
			pos[n++] = k;
	}
	hostlist_free(excluded);
	return (int)n;
}

/* -m arbitrary: the job positions of the nodes req->task_hosts names, in job
 * order, into pos (the count returned, or -ESLURM_*); *ret_counts: the tasks
 * each gets; *ret_map: each task's index in pos. */
static int arbitrary_layout(struct ctld *ctld, const struct job *job,
                            const struct step_create_req *req, uint32_t *pos,
                            uint32_t **ret_counts, uint32_t **ret_map)
{
	uint32_t nn = job->run->nnodes, n = 0, *at, *counts, *map, *jpos;
	size_t count = 0, all = node_mgr_count(ctld->nodes);
	char **names = NULL;

	if (hostlist_expand(req->task_hosts, &names, &count, NULL) < 0 || !count)
		return hostlist_free(names), -ESLURM_INVALID_NODE_NAME;
	if (req->num_tasks != count)
		return hostlist_free(names), -ESLURM_BAD_DIST;
	at = xcalloc(nn + 1, sizeof(*at)); /* job position -> 1 + index in pos */
	counts = xcalloc(nn + 1, sizeof(*counts));
	map = xcalloc(count + 1, sizeof(*map));
	jpos = xcalloc(all + 1, sizeof(*jpos)); /* node index -> 1 + job position */
	for (uint32_t k = 0; k < nn; k++)
		if (job->run->node_idx[k] < all)
			jpos[job->run->node_idx[k]] = k + 1;
	for (size_t t = 0; t < count; t++) {
		int idx = node_mgr_find(ctld->nodes, names[t]);
		int k = idx >= 0 && (size_t)idx < all ? (int)jpos[idx] - 1 : -1;
		if (k < 0) {
			hostlist_free(names);
			free(at);
			free(counts);
			free(map);
			free(jpos);
			return -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		}
		map[t] = (uint32_t)k; /* a job position for now */
		at[k] = 1;
	}
	hostlist_free(names);
	free(jpos);
	for (uint32_t k = 0; k < nn; k++)
		if (at[k]) {
			pos[n] = k;
			at[k] = ++n;
		}
	for (size_t t = 0; t < count; t++) {
		map[t] = at[map[t]] - 1;
		counts[map[t]]++;
	}
	free(at);
	*ret_counts = counts;
	*ret_map = map;
	return (int)n;
}

int step_may_create(const struct caller *who, const struct job *job)
{
	int rc = 0;

	if (!job)
		rc = -ESLURM_INVALID_JOB_ID;
	else if (!job_may_touch(who, job))
		rc = -ESLURM_ACCESS_DENIED;
	else if (!job_is_running(job))
		rc = job_is_pending(job) ? -ESLURM_JOB_PENDING : -ESLURM_ALREADY_DONE;
	else if (job->state & JOB_SUSPEND_FLAG) /* srun asks again */
		rc = -ESLURM_NODES_BUSY;
	return rc;
}

/* A step record holding what the layout gives it (taken from l), not yet one
 * of the job's: step_create journals it as EV_STEP_START first. */
static struct step *step_new(struct ctld *ctld, struct job *job,
                             const struct step_create_req *req, struct step_layout *l,
                             uint32_t step_id)
{
	struct step *st = xcalloc(1, sizeof(*st));
	char **names = xcalloc(l->n + 1, sizeof(char *));

	st->step_id = step_id;
	st->nnodes = l->n;
	st->node_idx = xcalloc(l->n, sizeof(uint32_t));
	for (uint32_t i = 0; i < l->n; i++) {
		st->node_idx[i] = job->run->node_idx[l->pos[i]];
		names[i] = node_mgr_get(ctld->nodes, st->node_idx[i])->cfg->name;
	}
	st->nodes = hostlist_compress(names, l->n);
	free(names);
	st->nslots = l->nslots;
	st->slots = l->slots;
	st->mem = l->mem;
	st->gres = l->gres;
	st->resv_ports = l->resv_ports;
	l->resv_ports = NULL;
	l->nslots = NULL;
	l->slots = NULL;
	l->mem = NULL;
	l->gres = NULL;
	st->overlap = !!(req->flags & STEP_F_OVERLAP);
	st->name = xstrdup(req->name                   ? req->name
	                   : req->argv && req->argv[0] ? req->argv[0]
	                                               : "(null)");
	st->num_tasks = l->num_tasks;
	st->num_cpus = l->num_cpus;
	st->tasks = memcpy(xcalloc(l->n + 1, sizeof(uint32_t)), l->tasks,
	                   l->n * sizeof(uint32_t));
	st->task_dist = req->task_dist;
	if (l->task_map) {
		st->task_map = l->task_map;
		st->ntask_map = l->num_tasks;
		l->task_map = NULL;
	}
	st->start_time = time(NULL);
	st->time_limit = req->time_limit == NO_VAL ? 0 : req->time_limit;
	st->sus_at_start = job->run->sus_secs;
	return st;
}

struct step *step_find(const struct job *job, uint32_t step_id)
{
	for (struct step *st = job->run->steps; st; st = st->next)
		if (st->step_id == step_id)
			return st;
	return NULL;
}

void step_event_fill(const struct job *job, const struct step *st,
                     struct ev_step_start *ev)
{
	uint32_t total = 0, off = 0;

	ev->type = EV_STEP_START;
	ev->job_id = job->job_id;
	ev->time = st->start_time;
	ev->step_id = st->step_id;
	ev->nodes = xstrdup(st->nodes);
	ev->text = xstrdup(st->name);
	ev->num_tasks = st->num_tasks;
	ev->num_cpus = st->num_cpus;
	ev->flags = st->overlap ? STEP_EV_OVERLAP : 0;
	ev->time_limit = st->time_limit;
	ev->resv_ports = st->resv_ports ? xstrdup(st->resv_ports) : NULL;
	ev->cpus_per_node.v = xcalloc(st->nnodes, sizeof(uint32_t));
	ev->mem_per_node.v = xcalloc(st->nnodes, sizeof(uint32_t));
	ev->cpus_per_node.n = ev->mem_per_node.n = st->nnodes;
	for (uint32_t i = 0; i < st->nnodes; i++) {
		ev->cpus_per_node.v[i] = st->nslots[i];
		ev->mem_per_node.v[i] = (uint32_t)st->mem[i];
		total += st->nslots[i];
	}
	ev->slots.v = xcalloc(total + 1, sizeof(uint32_t));
	ev->slots.n = total;
	for (uint32_t i = 0; i < st->nnodes; i++)
		for (uint32_t c = 0; c < st->nslots[i]; c++)
			ev->slots.v[off++] = st->slots[i][c];
	if (st->tasks) {
		ev->tasks_per_node.v = memcpy(xcalloc(st->nnodes + 1, sizeof(uint32_t)),
		                              st->tasks, st->nnodes * sizeof(uint32_t));
		ev->tasks_per_node.n = st->nnodes;
		ev->task_dist = st->task_dist;
	}
	if (st->task_map) {
		ev->task_map.v = memcpy(xcalloc(st->ntask_map + 1, sizeof(uint32_t)),
		                        st->task_map, st->ntask_map * sizeof(uint32_t));
		ev->task_map.n = st->ntask_map;
	}
	if (st->gres) {
		ev->gres = xcalloc(st->nnodes + 1, sizeof(char *));
		for (uint32_t i = 0; i < st->nnodes; i++)
			ev->gres[i] = xstrdup(st->gres[i] ? st->gres[i] : "");
	}
}

/* Take node i of the step from the event: its node and the cores it holds
 * there (from ev->slots at *off).  0, or -EINVAL when they are not the job's. */
static int step_node_from_event(struct ctld *ctld, const struct job *job, struct step *st,
                                uint32_t i, const char *name,
                                const struct ev_step_start *ev, uint32_t *off)
{
	int k = job_node_pos(ctld, job, name);
	uint32_t n = ev->cpus_per_node.v[i];

	if (k < 0 || n > job->run->cpus[k] || ev->slots.n - *off < n)
		return -EINVAL;
	st->node_idx[i] = job->run->node_idx[k];
	st->nslots[i] = n;
	st->slots[i] = xcalloc(n + 1, sizeof(uint32_t));
	for (uint32_t c = 0; c < n; c++) {
		uint32_t slot = ev->slots.v[(*off)++];
		if (slot >= job->run->cpus[k])
			return -EINVAL;
		st->slots[i][c] = slot;
	}
	st->mem[i] = ev->mem_per_node.v[i];
	return 0;
}

int step_apply_start(struct ctld *ctld, struct job *job, const struct ev_step_start *ev)
{
	char **names = NULL;
	size_t count = 0;
	uint32_t off = 0;
	struct step *st;
	struct job_run *run;
	int rc = 0;

	if (!job_is_running(job) || !ev->nodes || step_find(job, ev->step_id) ||
	    hostlist_expand(ev->nodes, &names, &count, NULL) < 0)
		return -EINVAL;
	if (!count || count != ev->cpus_per_node.n || count != ev->mem_per_node.n) {
		hostlist_free(names);
		return -EINVAL;
	}
	st = xcalloc(1, sizeof(*st));
	st->step_id = ev->step_id;
	st->nnodes = st->pending_nodes = (uint32_t)count;
	st->node_idx = xcalloc(count, sizeof(uint32_t));
	st->node_done = xcalloc(count, 1);
	st->nslots = xcalloc(count, sizeof(uint32_t));
	st->slots = xcalloc(count, sizeof(uint32_t *));
	st->mem = xcalloc(count, sizeof(uint64_t));
	for (uint32_t i = 0; i < count && !rc; i++)
		rc = step_node_from_event(ctld, job, st, i, names[i], ev, &off);
	hostlist_free(names);
	if (rc) {
		step_free(st);
		return rc;
	}
	if (ev->gres && strv_len(ev->gres) == count) {
		st->gres = xcalloc(count, sizeof(char *));
		for (size_t i = 0; i < count; i++)
			st->gres[i] = xstrdup(ev->gres[i]);
	}
	if (ev->tasks_per_node.n == count)
		st->tasks = memcpy(xcalloc(count + 1, sizeof(uint32_t)),
		                   ev->tasks_per_node.v, count * sizeof(uint32_t));
	st->task_dist = ev->task_dist;
	if (ev->task_map.n && ev->task_map.n == ev->num_tasks) {
		st->task_map = memcpy(xcalloc(ev->task_map.n + 1, sizeof(uint32_t)),
		                      ev->task_map.v, ev->task_map.n * sizeof(uint32_t));
		st->ntask_map = ev->task_map.n;
	}
	st->nodes = xstrdup(ev->nodes);
	st->name = xstrdup(ev->text ? ev->text : "(null)");
	st->overlap = !!(ev->flags & STEP_EV_OVERLAP);
	st->num_tasks = ev->num_tasks;
	st->num_cpus = ev->num_cpus;
	st->start_time = ev->time;
	st->time_limit = ev->time_limit;
	st->resv_ports = ev->resv_ports ? xstrdup(ev->resv_ports) : NULL;
	st->sus_at_start = job->run->sus_secs; /* replayed in order: as it was */
	run = job_run_mut(job);
	st->next = run->steps;
	run->steps = st;
	if (ev->step_id >= run->next_step_id)
		run->next_step_id = ev->step_id + 1;
	return 0;
}

int step_apply_end(struct job *job, const struct ev_step_end *ev)
{
	struct job_run *run;

	if (!job->run->steps)
		return -ENOENT;
	run = job_run_mut(job);
	for (struct step **pp = &run->steps; *pp; pp = &(*pp)->next) {
		struct step *st = *pp;
		if (st->step_id != ev->step_id)
			continue;
		/* scontrol's DerivedExitCode: the highest of the steps' */
		if (ev->exit_code > run->derived_exit)
			run->derived_exit = ev->exit_code;
		*pp = st->next;
		step_free(st);
		return 0;
	}
	return -ENOENT;
}

/* Leave out of cand[0..n) the job node positions taken[] marks; -ESLURM_*
 * when the request named one (fixed).  The count left. */
static int step_untaken(uint32_t *cand, int n, const uint8_t *taken, int fixed)
{
	int m = 0;

	for (int i = 0; i < n; i++) {
		if (!taken[cand[i]])
			cand[m++] = cand[i];
		else if (fixed)
			return -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	return m;
}

int step_layout_for(struct ctld *ctld, struct job *job, struct step_create_req *req,
                    const uint8_t *taken, struct step_layout *l)
{
	uint32_t *cand = xcalloc(job->run->nnodes, sizeof(uint32_t));
	uint32_t *counts = NULL, *map = NULL;
	int n, rc;

	memset(l, 0, sizeof(*l));
	if ((req->flags & STEP_F_NODES_ENV) && req->min_nodes != NO_VAL &&
	    req->min_nodes > job->run->nnodes)
		req->min_nodes = job->run->nnodes;
	if (TASKDIST_TYPE(req->task_dist) == TASKDIST_ARBITRARY && req->task_hosts &&
	    *req->task_hosts) {
		/* the list is the tasks: no other count (step_alloc) */
		req->ntasks_per_node = NO_VAL;
		n = arbitrary_layout(ctld, job, req, cand, &counts, &map);
	} else {
		n = step_candidates(ctld, job, req, cand);
	}
	if (n > 0 && taken)
		n = step_untaken(cand, n, taken,
		                 counts || (req->nodelist && req->nodelist[0]));
	if (n <= 0) {
		free(cand);
		free(counts);
		free(map);
		return n < 0 ? n : -ESLURM_INVALID_NODE_COUNT;
	}
	rc = step_alloc(job, req, cand, (uint32_t)n,
	                counts || (req->nodelist && req->nodelist[0]), counts, l);
	free(cand);
	free(counts);
	if (!rc && map && l->num_tasks != req->num_tasks)
		rc = -ESLURM_BAD_DIST; /* cannot be: the counts add up to it */
	if (!rc) {
		l->task_map = map;
	} else {
		free(map);
		if (l->n)
			step_layout_release(l);
	}
	for (uint32_t i = 0; !rc && i < l->n; i++)
		if (l->tasks[i] > ctld->conf->max_tasks_per_node) {
			rc = -ESLURM_BAD_TASK_COUNT;
			step_layout_release(l);
		}
	if (!rc && (rc = step_gres_alloc(job, req, l)))
		step_layout_release(l);
	if (!rc && (rc = resv_ports_alloc(ctld, job, req, l)))
		step_layout_release(l);
	if (rc)
		log_debug("JobId=%u step request: %s", job->job_id, slurm_strerror(-rc));
	return rc;
}

struct step *step_record(struct ctld *ctld, struct job *job,
                         const struct step_create_req *req, struct step_layout *l,
                         uint32_t step_id, struct chan *ch)
{
	struct ev_step_start ev = {0};
	struct step *st = step_new(ctld, job, req, l, step_id);
	int rc;

	step_event_fill(job, st, &ev);
	step_free(st);
	rc = ev_step_start_commit(ctld, &ev);
	codec_release(&ev_step_start_type, &ev);
	st = rc ? NULL : step_find(job, step_id);
	if (!st) {
		log_err("JobId=%u: step record refused (%d)", job->job_id, rc);
		return NULL;
	}
	st->client = ch;
	chan_ref(ch);
	log_info("JobId=%u StepId=%u created on %s (%u CPUs)", job->job_id, st->step_id,
	         st->nodes, st->num_cpus);
	return st;
}

void step_create(struct ctld *ctld, struct caller *who, struct step_create_req *req,
                 struct chan *ch)
{
	struct job *job = job_find(ctld->jobs, req->job_id);
	struct step_create_resp resp = {0};
	struct step_layout l;
	struct step *st;
	int rc;

	if ((rc = step_may_create(who, job))) {
		chan_send_rc(ch, rc, NULL);
		return;
	}
	rc = step_layout_for(ctld, job, req, NULL, &l);
	if (rc) {
		chan_send_rc(ch, rc, NULL);
		return;
	}
	st = step_record(ctld, job, req, &l, job->run->next_step_id, ch);
	if (!st) {
		chan_send_rc(ch, SLURM_ERROR, "step record refused");
		step_layout_release(&l);
		return;
	}
	resp.job_id = job->job_id;
	resp.step_id = st->step_id;
	resp.nodes = st->nodes;
	resp.tasks_per_node = (struct rota_u32v){l.tasks, l.n};
	resp.task_dist = req->task_dist;
	resp.task_map = (struct rota_u32v){st->task_map, st->ntask_map};
	chan_send(ch, MSG_STEP_CREATE_RESP, &resp);
	if (launch_step(ctld, job, st, req, l.tasks, st->nodes, NULL) < 0)
		chan_send_rc(ch, -ESLURM_NODES_BUSY,
		             "step launch failed: a node is not reachable");
	step_layout_release(&l);
}

/* A batch job requeued because its Prolog failed is held as well, by a user's
 * hold (as Slurm; released with scontrol release), unless SchedulerParameters
 * has nohold_on_prolog_fail. */
static void prolog_failed_hold(struct ctld *ctld, struct job *job)
{
	struct sched_params sp;

	sched_params_parse(ctld->conf->scheduler_params, &sp);
	if (!sp.nohold_on_prolog_fail)
		job_hold_requeued(ctld, job, JOB_HOLD_LAUNCH_FAILED);
}

/* A report about an earlier run of the job (requeued since), re-sent by a node
 * after a reconnect. */
static int step_report_stale(const struct job *job, const struct step_complete *msg)
{
	if (!msg->start_time || msg->start_time == (int64_t)job->run->start_time)
		return 0;
	log_debug("JobId=%u StepId=%u: ignoring a report from %s about the run "
	          "started at %lld",
	          job->job_id, msg->step_id, msg->node_name ? msg->node_name : "?",
	          (long long)msg->start_time);
	return 1;
}

/* Mark the step's node as reported; 1 if it already was. */
static int step_node_seen(struct ctld *ctld, struct step *st, const char *node_name)
{
	int idx = node_name ? node_mgr_find(ctld->nodes, node_name) : -1;

	for (uint32_t i = 0; idx >= 0 && i < st->nnodes; i++) {
		if ((int)st->node_idx[i] != idx)
			continue;
		if (st->node_done[i])
			return 1;
		st->node_done[i] = 1;
		return 0;
	}
	return 0;
}

/* For rotadbd: what the step used on the node that reports its end (before
 * the job's end, which the batch step's report may bring). */
static void usage_commit(struct ctld *ctld, const struct job *job,
                         const struct step_complete *msg)
{
	struct ev_usage ev = {.job_id = job->job_id,
	                      .step_id = msg->step_id,
	                      .node = msg->node_name,
	                      .max_rss = msg->max_rss,
	                      .user_usec = msg->user_usec,
	                      .sys_usec = msg->sys_usec,
	                      .tasks = msg->tasks,
	                      .tasks_count = msg->tasks_count};
	struct ev_usage *to = &ev;
	const struct step_complete *from = msg;

	GPU_USE_FIELDS(GPU_USE_COPY_F, _)
	ev_usage_commit(ctld, &ev);
}

void step_complete(struct ctld *ctld, const struct step_complete *msg)
{
	struct job *job = job_find(ctld->jobs, msg->job_id);
	struct step **pp;

	/* a node confirms it killed a job that was no longer its: whatever run
	 * of the job that was, the node may be scheduled again */
	if (msg->step_id == NO_VAL && (msg->flags & STEP_DONE_JOB_GONE) &&
	    node_mgr_orphan_gone(ctld, msg->node_name, msg->job_id)) {
		/* a requeued job's old run is over on all its nodes: PENDING
		 * (Slurm's requeue ends its COMPLETING there), eligible at the
		 * time its requeue set */
		if (job && job_is_pending(job) && (job->state & JOB_REQUEUE_FLAG) &&
		    !node_mgr_orphan_held(ctld, job->job_id))
			job->state &= ~JOB_REQUEUE_FLAG;
		ctld_sched_kick(ctld);
	}
	if (job && step_report_stale(job, msg))
		return;
	if (job && acct_enabled(ctld) &&
	    (msg->max_rss || msg->user_usec || msg->sys_usec || msg->gpus))
		usage_commit(ctld, job, msg);
	if (msg->flags & STEP_DONE_PROLOG_FAILED)
		node_mgr_drain(ctld, msg->node_name, "Prolog error");
	if (msg->flags & STEP_DONE_EPILOG_FAILED)
		node_mgr_drain(ctld, msg->node_name, "Epilog error");
	if (job && msg->step_id == STEP_BATCH && (msg->flags & STEP_DONE_PROLOG_FAILED) &&
	    job_is_running(job) && job_requeue(ctld, job) == 0) {
		prolog_failed_hold(ctld, job);
		log_info("JobId=%u requeued: prolog failed on %s", job->job_id,
		         msg->node_name ? msg->node_name : "?");
		ctld_sched_kick(ctld);
		return;
	}
	if (job && msg->step_id == NO_VAL && (msg->flags & STEP_DONE_JOB_GONE)) {
		int idx =
		    msg->node_name ? node_mgr_find(ctld->nodes, msg->node_name) : -1;
		for (uint32_t k = 0; idx >= 0 && k < job->run->nnodes; k++)
			if ((int)job->run->node_idx[k] == idx)
				job_release_node(ctld, job, k, time(NULL));
		if (!(job->state & JOB_COMPLETING))
			ctld_sched_kick(ctld);
		return;
	}
	if (!job || !job_is_running(job))
		return;
	if (msg->step_id == STEP_BATCH) {
		if (msg->flags & STEP_DONE_LAUNCH_FAILED)
			job_end(ctld, job, JOB_FAILED, FAIL_LAUNCH, msg->status);
		else if (msg->flags & STEP_DONE_STEPD_LOST)
			job_node_failed(ctld, job, msg->node_name);
		else if (msg->flags & STEP_DONE_OOM)
			job_end(ctld, job, JOB_OOM, FAIL_OOM, msg->status);
		else
			job_end(ctld, job, msg->status ? JOB_FAILED : JOB_COMPLETE,
			        msg->status ? FAIL_EXIT_CODE : WAIT_NO_REASON,
			        msg->status);
		return;
	}
	if (!job->run->steps)
		return;
	for (pp = &job_run_mut(job)->steps; *pp; pp = &(*pp)->next) {
		struct step *st = *pp;
		if (st->step_id != msg->step_id)
			continue;
		if (step_node_seen(ctld, st, msg->node_name))
			return; /* a node re-sent it (after a reconnect) */
		if (msg->status > st->status)
			st->status = msg->status;
		if ((msg->flags & STEP_DONE_LAUNCH_FAILED) && st->client) {
			char *text = xasprintf("task launch failed on node %s: %s",
			                       msg->node_name ? msg->node_name : "?",
			                       msg->msg ? msg->msg : "unknown error");
			chan_send_rc(st->client, -ESLURM_NODES_BUSY, text);
			free(text);
		}
		if (st->pending_nodes && --st->pending_nodes == 0) {
			struct ev_step_end ev = {.job_id = job->job_id,
			                         .step_id = st->step_id,
			                         .exit_code = st->status,
			                         .time = time(NULL),
			                         .state =
			                             st->limit_sent ? JOB_TIMEOUT : 0};
			ev_step_end_commit(ctld, &ev);
		}
		return;
	}
}

static int step_listed(const struct node_register *reg, uint32_t job_id, uint32_t step_id)
{
	for (uint32_t i = 0; i < reg->job_ids.n && i < reg->step_ids.n; i++)
		if (reg->job_ids.v[i] == job_id && reg->step_ids.v[i] == step_id)
			return 1;
	return 0;
}

void step_mgr_reconcile(struct ctld *ctld, uint32_t node_idx,
                        const struct node_register *reg)
{
	struct step_complete *gone = NULL;
	size_t n = 0;

	/* the started jobs only: a node registering (each of 10,000 after a
	 * restart) must not walk every pending job */
	for (struct job *job = job_first_active(ctld->jobs); job; job = job->lnext) {
		if (!job_is_running(job))
			continue;
		for (struct step *st = job->run->steps; st; st = st->next)
			for (uint32_t i = 0; i < st->nnodes; i++)
				if (st->node_idx[i] == node_idx && !st->node_done[i] &&
				    !step_listed(reg, job->job_id, st->step_id)) {
					gone = xrealloc(gone, (n + 1) * sizeof(*gone));
					gone[n++] = (struct step_complete){
					    .job_id = job->job_id,
					    .step_id = st->step_id,
					    .node_name = reg->name,
					    .status = SIGKILL}; /* as a lost stepd */
				}
	}
	for (size_t i = 0; i < n; i++) {
		log_info("JobId=%u StepId=%u: nothing of it is left on %s",
		         gone[i].job_id, gone[i].step_id, reg->name);
		step_complete(ctld, &gone[i]);
	}
	free(gone);
}

void job_mgr_prolog_complete(struct ctld *ctld, const struct step_complete *msg)
{
	struct job *job = job_find(ctld->jobs, msg->job_id);
	struct ev_configured ev = {.job_id = msg->job_id};

	if (!job || !job_is_running(job) || !(job->state & JOB_CONFIGURING) ||
	    step_report_stale(job, msg))
		return;
	ev.time = time(NULL);
	if (ev_configured_commit(ctld, &ev) == 0)
		log_info("JobId=%u: prolog done on %s, RUNNING", job->job_id,
		         msg->node_name ? msg->node_name : "?");
}

static void step_fill(struct ctld *ctld, const struct job *job, const struct step *st,
                      struct step_info *o)
{
	o->job_id = job->job_id;
	o->uid = job->owner->uid;
	o->user = xstrdup(job->owner->user);
	o->partition = xstrdup(job_part_name(job));
	o->time_limit = st && st->time_limit ? st->time_limit : job->time_limit;
	o->state = JOB_RUNNING;
	if (!st) { /* the batch step */
		o->step_id = STEP_BATCH;
		o->name = xstrdup("batch");
		o->nodes =
		    xstrdup(node_mgr_get(ctld->nodes, job_batch_node(job))->cfg->name);
		o->num_nodes = 1;
		o->num_tasks = 1;
		o->num_cpus = job->run->cpus[job->run->batch_node];
		o->start_time = job->run->start_time;
		return;
	}
	o->step_id = st->step_id;
	o->name = xstrdup(st->name);
	o->nodes = xstrdup(st->nodes);
	o->num_nodes = st->nnodes;
	o->num_tasks = st->num_tasks;
	o->num_cpus = st->num_cpus;
	o->start_time = st->start_time;
	o->resv_ports = st->resv_ports ? xstrdup(st->resv_ports) : NULL;
	for (uint32_t i = 0; st->mem && i < st->nnodes; i++)
		o->mem += st->mem[i];
}

static int wanted(const struct job_info_req *req, const struct job *job)
{
	if (!req->job_ids.n)
		return 1;
	for (uint32_t i = 0; i < req->job_ids.n; i++)
		if (req->job_ids.v[i] == job->job_id ||
		    (job->array_job_id && req->job_ids.v[i] == job->array_job_id))
			return 1;
	return 0;
}

/* Asked for particular jobs and none of them is known (as Slurm, a job
 * without steps is not an error, an unknown one is). */
static int none_known(struct ctld *ctld, const struct job_info_req *req)
{
	if (!req->job_ids.n || !job_count(ctld->jobs))
		return 0;
	for (uint32_t i = 0; i < req->job_ids.n; i++)
		if (job_find(ctld->jobs, req->job_ids.v[i]))
			return 0;
	return 1;
}

void step_info(struct ctld *ctld, struct caller *who, const struct job_info_req *req,
               struct chan *ch)
{
	struct step_info_resp r = {.now = time(NULL)};
	size_t n = 0, cap = 16;

	if (none_known(ctld, req)) {
		chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	r.steps = xcalloc(cap, sizeof(struct step_info));
	for (struct job *job = job_first_active(ctld->jobs); job; job = job->lnext) {
		/* MCS privatedata: what squeue does not show (mcs_label.h) */
		if (!job_is_running(job) || !wanted(req, job) ||
		    mcs_job_hidden(ctld, who, job))
			continue;
		for (struct step *st = job->run->steps;; st = st->next) {
			int batch = st == NULL;
			if (batch && (job->desc.flags & JOB_F_INTERACTIVE))
				break;
			if (n == cap) {
				cap *= 2;
				r.steps =
				    xrealloc(r.steps, cap * sizeof(struct step_info));
			}
			memset(&r.steps[n], 0, sizeof(struct step_info));
			step_fill(ctld, job, st, &r.steps[n++]);
			if (batch)
				break;
		}
	}
	r.steps_count = n;
	chan_send(ch, MSG_STEP_INFO_RESP, &r);
	codec_release(&step_info_resp_type, &r);
}
