/* step_het.c - a step over several components of a heterogeneous job
 * (`srun a : b`, `srun --het-group=0,1`): one step in each component's job,
 * all with one step id, made together or not at all, whose tasks form one
 * MPI_COMM_WORLD.
 *
 * DESIGN: each component's step is an ordinary step of its job (its record,
 * its EV_STEP_START and EV_STEP_END, its accounting); only the launch differs.
 * Every node is told the whole step (struct step_het_view): the nodes of all
 * components one after another, the tasks numbered across them (component
 * k's after component k-1's) as an arbitrary map, so that the step daemons
 * number their tasks, set SLURM_PROCID, SLURM_NTASKS and SLURM_NODELIST, lay
 * out PMI and connect to srun as the nodes of one step.  The step id is the
 * next that is free in every component: a component's ids may then have gaps,
 * as in Slurm.  A component that must wait (ESLURM_NODES_BUSY) makes the whole
 * request wait: nothing is recorded until every component has its layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/taskdist.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/step_alloc.h"
#include "proto/messages.h"
#include "common/common.h"

struct het_step {
	size_t n;
	int one_job; /* every part a step of one job (not a heterogeneous one) */
	struct job **jobs;
	struct step_layout *l;
	struct step **st;
	char **names; /* the whole step's nodes */
	struct rota_u32v tasks, map;
	uint32_t *base; /* [n] where component k's nodes begin in at */
	uint32_t *at;   /* each component's nodes' places in names */
	char **job_names;
	uint32_t *job_cpus;
	size_t njob;
};

/* The request's jobs, that who may use and that run now: components of one
 * heterogeneous job, each once; or (Slurm's heterogeneous steps) one job
 * that is not heterogeneous, a step of it on nodes of its own for each
 * part.  0 or -ESLURM_*. */
static int het_jobs(struct ctld *ctld, const struct caller *who,
                    const struct step_het_create_req *req, struct het_step *h)
{
	uint32_t leader = 0;

	h->one_job = 1;
	for (size_t k = 0; k < h->n; k++) {
		struct job *job = job_find(ctld->jobs, req->steps[k].job_id);
		int rc = step_may_create(who, job);

		if (rc)
			return rc;
		h->jobs[k] = job;
		if (k && job != h->jobs[0])
			h->one_job = 0;
	}
	if (h->one_job && !job_x(h->jobs[0])->het_job_id)
		return 0;
	h->one_job = 0;
	for (size_t k = 0; k < h->n; k++) {
		const struct job *job = h->jobs[k];
		if (!job_x(job)->het_job_id || (k && job_x(job)->het_job_id != leader))
			return -ESLURM_INVALID_JOB_ID;
		leader = job_x(job)->het_job_id;
		for (size_t j = 0; j < k; j++)
			if (h->jobs[j] == job)
				return -ESLURM_INVALID_JOB_ID;
	}
	return 0;
}

/* Lay out every part: over one job, each on nodes the others do not use. */
static int het_layouts(struct ctld *ctld, struct het_step *h,
                       struct step_het_create_req *req)
{
	uint8_t *taken = h->one_job ? xcalloc(h->jobs[0]->run->nnodes + 1, 1) : NULL;
	int rc = 0;

	for (size_t k = 0; !rc && k < h->n; k++) {
		rc = step_layout_for(ctld, h->jobs[k], &req->steps[k], taken, &h->l[k]);
		for (uint32_t i = 0; !rc && taken && i < h->l[k].n; i++)
			taken[h->l[k].pos[i]] = 1;
	}
	free(taken);
	return rc;
}

struct view_node {
	uint32_t node_idx, comp, i;
};

static int by_node(const void *a, const void *b)
{
	const struct view_node *x = a, *y = b;

	if (x->node_idx != y->node_idx)
		return x->node_idx < y->node_idx ? -1 : 1;
	return x->comp < y->comp ? -1 : x->comp > y->comp;
}

/* The whole step: every component's nodes in the cluster's order (as
 * Slurm sorts them, for the MPI libraries), the tasks numbered component
 * after component; at[base[k] + i]: where component k's node i is. */
static void het_view(struct ctld *ctld, struct het_step *h)
{
	uint32_t nn = 0, nt = 0, task0 = 0;
	struct view_node *v;

	for (size_t k = 0; k < h->n; k++) {
		h->base[k] = nn;
		nn += h->l[k].n;
		nt += h->l[k].num_tasks;
	}
	v = xcalloc(nn + 1, sizeof(*v));
	for (size_t k = 0; k < h->n; k++)
		for (uint32_t i = 0; i < h->l[k].n; i++)
			v[h->base[k] + i] =
			    (struct view_node){h->st[k]->node_idx[i], (uint32_t)k, i};
	qsort(v, nn, sizeof(*v), by_node);
	h->at = xcalloc(nn + 1, sizeof(uint32_t));
	h->names = xcalloc(nn + 1, sizeof(char *));
	h->tasks = (struct rota_u32v){xcalloc(nn + 1, sizeof(uint32_t)), nn};
	h->map = (struct rota_u32v){xcalloc(nt + 1, sizeof(uint32_t)), nt};
	for (uint32_t p = 0; p < nn; p++) {
		h->at[h->base[v[p].comp] + v[p].i] = p;
		h->names[p] = (char *)node_mgr_get(ctld->nodes, v[p].node_idx)->cfg->name;
		h->tasks.v[p] = h->l[v[p].comp].tasks[v[p].i];
	}
	free(v);
	for (size_t k = 0; k < h->n; k++) {
		const struct step *st = h->st[k];
		const struct step_layout *l = &h->l[k];
		uint32_t *gtids = xcalloc(l->num_tasks + 1, sizeof(uint32_t)), g = 0;

		taskdist_gtids_map(st->task_dist, l->tasks, l->n, st->task_map,
		                   st->ntask_map, gtids);
		for (uint32_t i = 0; i < l->n; i++)
			for (uint32_t t = 0; t < l->tasks[i]; t++, g++)
				if (gtids[g] < l->num_tasks)
					h->map.v[task0 + gtids[g]] =
					    h->at[h->base[k] + i];
		free(gtids);
		task0 += l->num_tasks;
	}
}

/* Every component's allocation as one, in the cluster's order: each node
 * once, its CPUs summed. */
static void het_job_nodes(struct ctld *ctld, struct het_step *h)
{
	size_t count = node_mgr_count(ctld->nodes), cap = 0;
	uint32_t *cpus = xcalloc(count + 1, sizeof(uint32_t));
	uint8_t *has = xcalloc(count + 1, 1);

	for (size_t k = 0; k < h->n; k++) {
		const struct job_run *run = h->jobs[k]->run;
		for (uint32_t i = 0; i < run->nnodes; i++)
			if (run->node_idx[i] < count) {
				cap += !has[run->node_idx[i]];
				has[run->node_idx[i]] = 1;
				cpus[run->node_idx[i]] += run->cpus[i];
			}
	}
	h->job_names = xcalloc(cap + 1, sizeof(char *));
	h->job_cpus = xcalloc(cap + 1, sizeof(uint32_t));
	for (size_t idx = 0; idx < count; idx++)
		if (has[idx]) {
			h->job_names[h->njob] =
			    (char *)node_mgr_get(ctld->nodes, (uint32_t)idx)->cfg->name;
			h->job_cpus[h->njob++] = cpus[idx];
		}
	free(cpus);
	free(has);
}

/* "a,b,a": the whole step's nodes in order, repeats kept (caller frees). */
static char *het_node_list(const struct het_step *h)
{
	size_t len = 1, off = 0;
	char *s;

	for (uint32_t i = 0; i < h->tasks.n; i++)
		len += strlen(h->names[i]) + 1;
	s = xcalloc(len, 1);
	for (uint32_t i = 0; i < h->tasks.n; i++) {
		size_t l = strlen(h->names[i]);
		if (i)
			s[off++] = ',';
		memcpy(s + off, h->names[i], l);
		off += l;
	}
	return s;
}

static void het_release(struct het_step *h)
{
	for (size_t k = 0; k < h->n; k++)
		if (h->l[k].n)
			step_layout_release(&h->l[k]);
	free(h->jobs);
	free(h->l);
	free(h->st);
	free(h->names);
	free(h->tasks.v);
	free(h->map.v);
	free(h->base);
	free(h->at);
	free(h->job_names);
	free(h->job_cpus);
}

/* The journal refused component k's record: the ones before it end. */
static void het_unrecord(struct ctld *ctld, struct het_step *h, size_t k)
{
	for (size_t j = 0; j < k; j++) {
		struct ev_step_end ev = {.job_id = h->jobs[j]->job_id,
		                         .step_id = h->st[j]->step_id,
		                         .exit_code = 1 << 8,
		                         .time = time(NULL)};
		if (ev_step_end_commit(ctld, &ev) < 0)
			log_err("JobId=%u StepId=%u: cannot end the step of a "
			        "heterogeneous step refused (node registration will)",
			        ev.job_id, ev.step_id);
	}
}

static void het_reply(const struct het_step *h, struct chan *ch)
{
	struct step_het_create_resp resp = {0};

	resp.steps_count = (uint32_t)h->n;
	resp.steps = xcalloc(h->n, sizeof(*resp.steps));
	for (size_t k = 0; k < h->n; k++) {
		struct step_create_resp *r = &resp.steps[k];
		const struct step *st = h->st[k];
		r->job_id = h->jobs[k]->job_id;
		r->step_id = st->step_id;
		r->nodes = st->nodes;
		r->tasks_per_node = (struct rota_u32v){h->l[k].tasks, h->l[k].n};
		r->task_dist = st->task_dist;
		r->task_map = (struct rota_u32v){st->task_map, st->ntask_map};
	}
	resp.nodes = h->names;
	resp.tasks = h->tasks;
	resp.task_map = h->map;
	chan_send(ch, MSG_STEP_HET_CREATE_RESP, &resp);
	free(resp.steps);
}

void step_het_create(struct ctld *ctld, struct caller *who,
                     struct step_het_create_req *req, struct chan *ch)
{
	struct het_step h = {.n = req->steps_count};
	uint32_t step_id = 0;
	char *nodes, *job_nodes;
	int rc;

	if (!h.n || h.n > HET_MAX) {
		chan_send_rc(ch, -ESLURM_INVALID_ARGUMENT, "no component or too many");
		return;
	}
	h.jobs = xcalloc(h.n, sizeof(*h.jobs));
	h.l = xcalloc(h.n, sizeof(*h.l));
	h.st = xcalloc(h.n, sizeof(*h.st));
	h.base = xcalloc(h.n, sizeof(*h.base));
	rc = het_jobs(ctld, who, req, &h);
	if (!rc)
		rc = het_layouts(ctld, &h, req);
	for (size_t k = 0; !rc && k < h.n; k++)
		if (h.jobs[k]->run->next_step_id > step_id)
			step_id = h.jobs[k]->run->next_step_id;
	if (rc) {
		chan_send_rc(ch, rc, NULL);
		het_release(&h);
		return;
	}
	for (size_t k = 0; k < h.n; k++) {
		/* one job: its parts' ids follow each other (Slurm numbers them
		 * N.S+k, one id) */
		h.st[k] = step_record(ctld, h.jobs[k], &req->steps[k], &h.l[k],
		                      step_id + (h.one_job ? (uint32_t)k : 0), ch);
		if (!h.st[k]) {
			het_unrecord(ctld, &h, k);
			chan_send_rc(ch, SLURM_ERROR, "step record refused");
			het_release(&h);
			return;
		}
	}
	het_view(ctld, &h);
	het_job_nodes(ctld, &h);
	het_reply(&h, ch);
	nodes = het_node_list(&h);
	job_nodes = hostlist_compress(h.job_names, h.njob);
	for (size_t k = 0; k < h.n; k++) {
		struct step_het_view v = {
		    .leader =
		        h.one_job ? h.jobs[0]->job_id : job_x(h.jobs[0])->het_job_id,
		    .step_id = step_id,
		    .nodes = nodes,
		    .tasks = h.tasks,
		    .map = h.map,
		    .at = h.at + h.base[k],
		    .job_nodes = job_nodes,
		    .job_cpus = {h.job_cpus, (uint32_t)h.njob},
		};
		if (launch_step(ctld, h.jobs[k], h.st[k], &req->steps[k], h.l[k].tasks,
		                h.st[k]->nodes, &v) < 0)
			chan_send_rc(ch, -ESLURM_NODES_BUSY,
			             "step launch failed: a node is not reachable");
	}
	free(nodes);
	free(job_nodes);
	het_release(&h);
}
