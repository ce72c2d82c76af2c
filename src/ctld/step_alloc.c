/* step_alloc.c - which of its job's CPUs and memory a new step gets. */
#include <stdlib.h>
#include <string.h>
#include "common/jobfmt.h"
#include "common/taskdist.h"
#include "common/states.h"
#include "ctld/step_alloc.h"
#include "common/common.h"

struct want {
	uint32_t cpt;   /* CPUs per task */
	int exact;      /* only ntasks x cpt CPUs, not whole nodes */
	int overlap;    /* holds nothing, may use anything */
	int overcommit; /* more tasks than CPUs */
	uint64_t mem_node, mem_cpu;
};

static int given(uint32_t v)
{
	return v != NO_VAL && v != 0;
}

static uint64_t mem_need(const struct want *w, uint32_t cpus)
{
	return w->mem_node ? w->mem_node : w->mem_cpu * cpus;
}

/* Mark in used[] the cores of job node k that the job's steps hold, and add up
 * the memory they hold there. */
static void node_usage(const struct job *job, uint32_t k, uint8_t *used, uint64_t *mem)
{
	*mem = 0;
	memset(used, 0, job->run->cpus[k]);
	for (const struct step *s = job->run->steps; s; s = s->next) {
		if (s->overlap || !s->nslots)
			continue;
		for (uint32_t i = 0; i < s->nnodes; i++) {
			if (s->node_idx[i] != job->run->node_idx[k])
				continue;
			for (uint32_t c = 0; c < s->nslots[i]; c++)
				if (s->slots[i][c] < job->run->cpus[k])
					used[s->slots[i][c]] = 1;
			*mem += s->mem[i];
		}
	}
}

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Could the step fit in the allocation with no other step running? */
static int ever_fits(const struct job *job, const struct want *w, const uint32_t *cand,
                     uint32_t ncand, uint32_t nodes, uint32_t ntasks)
{
	uint32_t *cap = xcalloc(ncand, sizeof(uint32_t));
	uint64_t room = 0, mem_max = 0;
	int unlimited = 0;

	for (uint32_t i = 0; i < ncand; i++) {
		cap[i] = job->run->cpus[cand[i]] / w->cpt;
		if (!job->run->mem[cand[i]])
			unlimited = 1;
		else if (job->run->mem[cand[i]] > mem_max)
			mem_max = job->run->mem[cand[i]];
	}
	qsort(cap, ncand, sizeof(uint32_t), cmp_desc);
	for (uint32_t i = 0; i < nodes && i < ncand; i++)
		room += cap[i];
	free(cap);
	if (!room || (!w->overcommit && room < ntasks))
		return -ESLURM_TOO_MANY_REQUESTED_CPUS;
	if (!unlimited && mem_need(w, w->exact ? w->cpt : 1) > mem_max)
		return -ESLURM_INVALID_TASK_MEMORY;
	return 0;
}

/* Give node i of the layout its cores: the free ones first. */
static void take_slots(const struct job *job, const struct want *w, struct step_layout *l,
                       uint32_t i, const uint8_t *used)
{
	uint32_t k = l->pos[i], need, got = 0;

	need = w->exact ? l->tasks[i] * w->cpt : job->run->cpus[k];
	if (need > job->run->cpus[k])
		need = job->run->cpus[k];
	l->slots[i] = xcalloc(need ? need : 1, sizeof(uint32_t));
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t c = 0; c < job->run->cpus[k] && got < need; c++)
			if (used[c] == pass && (!pass || w->overlap))
				l->slots[i][got++] = c;
	l->nslots[i] = got;
}

static void layout_alloc(struct step_layout *l, uint32_t n)
{
	l->n = n;
	l->pos = xcalloc(n, sizeof(uint32_t));
	l->tasks = xcalloc(n, sizeof(uint32_t));
	l->nslots = xcalloc(n, sizeof(uint32_t));
	l->slots = xcalloc(n, sizeof(uint32_t *));
	l->mem = xcalloc(n, sizeof(uint64_t));
}

int step_alloc(const struct job *job, const struct step_create_req *req,
               const uint32_t *cand, uint32_t ncand, int fixed, const uint32_t *counts,
               struct step_layout *out)
{
	struct want w = {
	    .cpt = given(req->cpus_per_task) ? req->cpus_per_task : 1,
	    .exact = (req->flags & STEP_F_EXACT) || given(req->cpus_per_task),
	    .overlap = !!(req->flags & STEP_F_OVERLAP),
	    .overcommit = !!(req->flags & STEP_F_OVERCOMMIT),
	    .mem_node = req->mem_per_node == NO_VAL64 ? 0 : req->mem_per_node,
	    .mem_cpu = req->mem_per_cpu == NO_VAL64 ? 0 : req->mem_per_cpu,
	};
	uint32_t nodes, total, maxcpus = 1, *cap, np = 0;
	uint64_t room = 0;
	uint8_t *used;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!ncand)
		return -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	if (fixed)
		nodes = ncand;
	else if (given(req->min_nodes) && req->min_nodes > ncand &&
	         given(req->relative) && (req->flags & STEP_F_NODES_ENV))
		nodes = ncand; /* -r wins over the allocation's node count */
	else if (given(req->min_nodes))
		nodes = req->min_nodes;
	else if (given(req->num_tasks) && req->num_tasks < ncand)
		nodes = req->num_tasks;
	else
		nodes = ncand;
	if (nodes > ncand)
		return -ESLURM_INVALID_NODE_COUNT;
	if (given(req->num_tasks))
		total = req->num_tasks;
	else if (given(req->ntasks_per_node))
		total = req->ntasks_per_node * nodes;
	else
		total = nodes;
	if (total < nodes)
		return -ESLURM_BAD_DIST;
	if ((rc = ever_fits(job, &w, cand, ncand, nodes, total)))
		return rc;
	for (uint32_t i = 0; counts && !w.overcommit && i < ncand; i++)
		if ((uint64_t)counts[i] * w.cpt > job->run->cpus[cand[i]])
			return -ESLURM_BAD_DIST; /* -m arbitrary: more than it has */

	for (uint32_t i = 0; i < ncand; i++)
		if (job->run->cpus[cand[i]] > maxcpus)
			maxcpus = job->run->cpus[cand[i]];
	used = xcalloc(maxcpus, 1);
	cap = xcalloc(nodes, sizeof(uint32_t));
	layout_alloc(out, nodes);
	/* the first candidates with room for a task now */
	for (uint32_t i = 0; i < ncand && np < nodes; i++) {
		uint32_t k = cand[i], nfree = 0;
		uint64_t mem_used;
		int ok;

		node_usage(job, k, used, &mem_used);
		for (uint32_t c = 0; c < job->run->cpus[k]; c++)
			nfree += !used[c];
		if (w.overlap)
			nfree = job->run->cpus[k];
		ok = w.exact ? nfree >= w.cpt : nfree == job->run->cpus[k];
		if (ok && !w.overlap && job->run->mem[k] &&
		    mem_used + mem_need(&w, w.exact ? w.cpt : job->run->cpus[k]) >
		        job->run->mem[k])
			ok = 0;
		if (!ok && fixed)
			break;
		if (!ok)
			continue;
		out->pos[np] = k;
		cap[np] = nfree / w.cpt;
		room += cap[np++];
	}
	rc = np < nodes || (!w.overcommit && room < total) ? -ESLURM_NODES_BUSY : 0;
	if (!rc && counts) {
		/* arbitrary: each node the tasks the list names on it, as far
		 * as it has room now (or ever, else the layout cannot be) */
		for (uint32_t i = 0; i < nodes && !rc; i++) {
			out->tasks[i] = counts[i];
			if (!w.overcommit && counts[i] > cap[i])
				rc = counts[i] * w.cpt > job->run->cpus[out->pos[i]]
				         ? -ESLURM_BAD_DIST
				         : -ESLURM_NODES_BUSY;
		}
	} else if (!rc && TASKDIST_TYPE(req->task_dist) == TASKDIST_PLANE) {
		/* -m plane=N: one task on each node, then N to each node in
		 * turn as far as it has room (common/taskdist.h) */
		taskdist_plane_counts(req->task_dist, total, nodes, cap, out->tasks);
	} else if (!rc) {
		jobfmt_spread_tasks(total, cap, nodes, out->tasks);
	}
	for (uint32_t i = 0; !rc && i < nodes; i++) {
		uint32_t k = out->pos[i];
		uint64_t mem_used;

		node_usage(job, k, used, &mem_used);
		take_slots(job, &w, out, i, used);
		/* an --overlap step's memory is its own limit, not taken from the
		 * others (node_usage skips it) */
		out->mem[i] = mem_need(&w, out->nslots[i]);
		if (job->run->mem[k] && out->mem[i] + mem_used > job->run->mem[k] &&
		    !w.overlap)
			rc = -ESLURM_NODES_BUSY;
		out->num_cpus += out->nslots[i];
	}
	out->num_tasks = total;
	free(cap);
	free(used);
	if (rc)
		step_layout_release(out);
	return rc;
}

void step_layout_release(struct step_layout *l)
{
	for (uint32_t i = 0; l->slots && i < l->n; i++)
		free(l->slots[i]);
	free(l->pos);
	free(l->tasks);
	free(l->nslots);
	free(l->slots);
	free(l->mem);
	for (uint32_t i = 0; l->gres && i < l->n; i++)
		free(l->gres[i]);
	free(l->gres);
	free(l->task_map);
	free(l->resv_ports);
	memset(l, 0, sizeof(*l));
}
