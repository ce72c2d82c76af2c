/* sched_pass.c - the controller's driver of the scheduling core: snapshot the
 * nodes, walk pending jobs in priority order, start what fits, and keep every
 * pending job's reason current. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "ctld/client.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "sched/priority.h"
#include "sched/select.h"
#include "common/common.h"

struct pass {
	struct ctld *ctld;
	struct sched_node *nodes;
	size_t nnodes;
	struct sched_alloc out;
	uint8_t *blocked; /* per partition: a higher-priority job waits */
};

static int cmp_prio(const void *a, const void *b)
{
	const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static void set_reason(struct job *job, uint32_t reason, char *detail)
{
	job->reason = reason;
	free(job->reason_detail);
	job->reason_detail = detail;
}

static size_t part_index(struct ctld *ctld, const struct part *p)
{
	for (size_t i = 0; i < node_mgr_part_count(ctld->nodes); i++)
		if (node_mgr_part(ctld->nodes, i) == p)
			return i;
	return 0;
}

/* Limits that keep a job waiting whatever the nodes do. */
static int job_blocked_by_limits(struct ctld *ctld, struct job *job, time_t now)
{
	const struct conf_part *cp = job->part->cfg;

	if (job->hold) {
		set_reason(job, job->hold == 1 ? WAIT_HELD_USER : WAIT_HELD, NULL);
		return 1;
	}
	if (job->eligible_time > now) {
		set_reason(job, WAIT_TIME, NULL);
		return 1;
	}
	switch (depend_test(ctld, job, NO_VAL, now)) {
	case DEPEND_OK:
		break;
	case DEPEND_WAIT:
		set_reason(job, WAIT_DEPENDENCY, NULL);
		return 1;
	case DEPEND_NEVER:
		if (depend_kill_invalid(ctld)) {
			log_info("JobId=%u: dependency can never be satisfied, "
			         "cancelling it (kill_invalid_depend)",
			         job->job_id);
			job_end(ctld, job, JOB_CANCELLED, WAIT_DEP_INVALID, 0);
		} else {
			set_reason(job, WAIT_DEP_INVALID, NULL);
		}
		return 1;
	}
	if (cp->state != CONF_PART_UP) {
		set_reason(job, WAIT_PART_DOWN, NULL);
		return 1;
	}
	if (cp->max_time != TIME_INFINITE &&
	    (job->time_limit == INFINITE32 || job->time_limit > cp->max_time)) {
		set_reason(job, WAIT_PART_TIME_LIMIT, NULL);
		return 1;
	}
	if (cp->max_nodes != UINT32_MAX && job->min_nodes > cp->max_nodes) {
		set_reason(job, WAIT_PART_NODE_LIMIT, NULL);
		return 1;
	}
	return 0;
}

static void mark_nodes(struct pass *ps, struct job *job)
{
	struct ctld *ctld = ps->ctld;
	char **req = NULL, **exc = NULL;
	size_t nreq = 0, nexc = 0;

	if (job->desc.req_nodes)
		hostlist_expand(job->desc.req_nodes, &req, &nreq, NULL);
	if (job->desc.exc_nodes)
		hostlist_expand(job->desc.exc_nodes, &exc, &nexc, NULL);
	for (size_t i = 0; i < ps->nnodes; i++) {
		struct node *n = node_mgr_get(ctld->nodes, i);
		ps->nodes[i].usable = node_usable(n) && part_has_node(job->part, i);
		ps->nodes[i].required = 0;
		for (size_t k = 0; k < nreq; k++)
			if (!strcmp(req[k], n->cfg->name))
				ps->nodes[i].required = 1;
		for (size_t k = 0; k < nexc; k++)
			if (!strcmp(exc[k], n->cfg->name))
				ps->nodes[i].usable = 0;
	}
	hostlist_free(req);
	hostlist_free(exc);
}

static void req_from_job(const struct job *job, struct sched_req *r)
{
	const struct job_desc *d = &job->desc;

	r->min_nodes = job->min_nodes;
	r->max_nodes = d->max_nodes == NO_VAL ? SCHED_UNSET : d->max_nodes;
	r->num_tasks = d->num_tasks == NO_VAL ? SCHED_UNSET : d->num_tasks;
	r->ntasks_per_node =
	    d->ntasks_per_node == NO_VAL ? SCHED_UNSET : d->ntasks_per_node;
	r->cpus_per_task = d->cpus_per_task == NO_VAL ? 1 : d->cpus_per_task;
	r->mem_per_node = d->mem_per_node == NO_VAL64 ? 0 : d->mem_per_node;
	r->mem_per_cpu = d->mem_per_cpu == NO_VAL64 ? 0 : d->mem_per_cpu;
	r->exclusive = !!(d->flags & JOB_F_EXCLUSIVE);
}

static void job_start(struct pass *ps, struct job *job, time_t now)
{
	struct ctld *ctld = ps->ctld;
	struct sched_alloc *a = &ps->out;
	char **names = xcalloc(a->nnodes + 1, sizeof(char *));
	uint32_t *mem32 = xcalloc(a->nnodes, sizeof(uint32_t));
	struct job_event ev = {.type = EV_START, .job_id = job->job_id, .time = now};

	for (uint32_t i = 0; i < a->nnodes; i++) {
		names[i] = node_mgr_get(ctld->nodes, a->node_idx[i])->cfg->name;
		mem32[i] = (uint32_t)a->mem[i];
		ps->nodes[a->node_idx[i]].alloc_cpus += a->cpus[i];
		ps->nodes[a->node_idx[i]].alloc_mem += a->mem[i];
	}
	ev.nodes = hostlist_compress(names, a->nnodes);
	ev.cpus_per_node = (struct rota_u32v){a->cpus, a->nnodes};
	ev.tasks_per_node = (struct rota_u32v){a->tasks, a->nnodes};
	ev.mem_per_node = (struct rota_u32v){mem32, a->nnodes};
	/* a batch job is CONFIGURING until its node has run the Prolog */
	if (ctld->conf->prolog && !(job->desc.flags & JOB_F_INTERACTIVE))
		ev.state = JOB_CONFIGURING;
	if (job_event_commit(ctld, &ev) == 0) {
		log_info("JobId=%u started on %s", job->job_id, ev.nodes);
		if (job->alloc_client) {
			struct alloc_resp r = {.job_id = job->job_id,
			                       .nodes = ev.nodes,
			                       .cpus_per_node = ev.cpus_per_node,
			                       .num_tasks = a->ntasks,
			                       .partition = job->desc.partition};
			client_send(job->alloc_client, MSG_ALLOC_RESP, &r);
		} else {
			launch_batch(ctld, job);
		}
	}
	free(ev.nodes);
	free(names);
	free(mem32);
}

static char *wait_detail(struct pass *ps, struct job *job, const struct sched_req *r)
{
	uint32_t per_node = r->ntasks_per_node != SCHED_UNSET
	                        ? r->ntasks_per_node * r->cpus_per_task
	                        : r->cpus_per_task;
	size_t fit = 0, exist = 0;

	for (size_t i = 0; i < ps->nnodes; i++) {
		if (!part_has_node(job->part, i))
			continue;
		if (ps->nodes[i].cpus >= per_node)
			exist++;
		if (ps->nodes[i].usable &&
		    ps->nodes[i].cpus - ps->nodes[i].alloc_cpus >= per_node)
			fit++;
	}
	return xasprintf(
	    "needs %u node%s with %u free CPU%s; %zu such node%s free now, %zu "
	    "exist in partition %s",
	    r->min_nodes, r->min_nodes == 1 ? "" : "s", per_node,
	    per_node == 1 ? "" : "s", fit, fit == 1 ? " is" : "s are", exist,
	    job->part->cfg->name);
}

/* An array's pending remainder: start tasks while they fit and the throttle
 * allows, each split off as its own record first. */
static void consider_array(struct pass *ps, struct job *meta, time_t now)
{
	struct ctld *ctld = ps->ctld;
	uint32_t running = job_array_running(ctld->jobs, meta->array_job_id);
	struct sched_req r;

	while (meta->array_rem) {
		uint32_t throttle = meta->array_rem->throttle;
		int64_t t = arrayspec_first(meta->array_rem);
		struct job *task;

		if (throttle && running >= throttle) {
			set_reason(meta, WAIT_ARRAY_TASK_LIMIT, NULL);
			return;
		}
		/* aftercorr: each task waits for its own counterpart */
		if (t >= 0 && depend_test(ctld, meta, (uint32_t)t, now) != DEPEND_OK) {
			set_reason(meta, WAIT_DEPENDENCY, NULL);
			return;
		}
		mark_nodes(ps, meta);
		req_from_job(meta, &r);
		if (t < 0 || sched_select(ps->nodes, ps->nnodes, &r, &ps->out) != 0) {
			ps->blocked[part_index(ctld, meta->part)] = 1;
			set_reason(meta,
			           meta->desc.req_nodes ? WAIT_NODE_NOT_AVAIL
			                                : WAIT_RESOURCES,
			           wait_detail(ps, meta, &r));
			return;
		}
		task = job_array_split(ctld, meta, (uint32_t)t);
		if (!task)
			return;
		job_start(ps, task, now);
		running++;
		if (task == meta)
			return;
	}
}

static void consider(struct pass *ps, struct job *job, time_t now)
{
	struct ctld *ctld = ps->ctld;
	size_t pi = part_index(ctld, job->part);
	struct sched_req r;
	int rc;

	if (job_blocked_by_limits(ctld, job, now))
		return;
	if (ps->blocked[pi]) {
		set_reason(job, WAIT_PRIORITY, NULL);
		return;
	}
	if (job->array_rem) {
		consider_array(ps, job, now);
		return;
	}
	mark_nodes(ps, job);
	req_from_job(job, &r);
	rc = sched_select(ps->nodes, ps->nnodes, &r, &ps->out);
	if (rc == 0) {
		job_start(ps, job, now);
		return;
	}
	ps->blocked[pi] = 1;
	set_reason(job, job->desc.req_nodes ? WAIT_NODE_NOT_AVAIL : WAIT_RESOURCES,
	           wait_detail(ps, job, &r));
}

/* priority/multifactor: each pending job's priority follows its factors, except
 * where an admin set it.  Derived state, so not journaled: every pass and every
 * restart computes it again. */
static void recompute_priorities(struct ctld *ctld, struct job **pending, size_t n,
                                 time_t now)
{
	struct priority_params pp;
	struct priority_factors f;

	job_priority_params(ctld, &pp);
	if (pp.type != PRIORITY_MULTIFACTOR)
		return;
	for (size_t i = 0; i < n; i++) {
		if (pending[i]->prio_set || !pending[i]->priority)
			continue;
		job_priority_factors(&pp, pending[i], now, &f);
		pending[i]->priority = f.priority;
	}
}

void sched_pass(struct ctld *ctld, time_t now)
{
	struct pass ps = {.ctld = ctld};
	size_t n = 0, cap = job_count(ctld->jobs);
	struct job **pending = xcalloc(cap ? cap : 1, sizeof(*pending));
	uint32_t *u32;

	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		if (!job_is_pending(j) || !j->part)
			continue;
		if (j->hold) /* held: nothing to decide, keep it out of the sort */
			set_reason(j, j->hold == 1 ? WAIT_HELD_USER : WAIT_HELD, NULL);
		else
			pending[n++] = j;
	}
	if (!n)
		goto out;
	recompute_priorities(ctld, pending, n, now);
	qsort(pending, n, sizeof(*pending), cmp_prio);
	ps.nnodes = node_mgr_count(ctld->nodes);
	ps.nodes = xcalloc(ps.nnodes + 1, sizeof(*ps.nodes));
	for (size_t i = 0; i < ps.nnodes; i++) {
		struct node *nd = node_mgr_get(ctld->nodes, i);
		ps.nodes[i].cpus = nd->cpus;
		ps.nodes[i].alloc_cpus = nd->alloc_cpus;
		ps.nodes[i].mem = nd->mem;
		ps.nodes[i].alloc_mem = nd->alloc_mem;
	}
	u32 = xcalloc(3 * (ps.nnodes + 1), sizeof(uint32_t));
	ps.out.node_idx = u32;
	ps.out.cpus = u32 + ps.nnodes + 1;
	ps.out.tasks = u32 + 2 * (ps.nnodes + 1);
	ps.out.mem = xcalloc(ps.nnodes + 1, sizeof(uint64_t));
	ps.blocked = xcalloc(node_mgr_part_count(ctld->nodes) + 1, 1);
	for (size_t i = 0; i < n; i++)
		consider(&ps, pending[i], now);
	free(u32);
	free(ps.out.mem);
	free(ps.blocked);
	free(ps.nodes);
out:
	free(pending);
}
