/* part_mem.c - a partition's memory defaults and limits (part_mem.h). */
#include "common/conf.h"
#include "common/states.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/part_mem.h"
#include "proto/messages.h"
#include "common/common.h"

void part_mem_req_of(const struct job_desc *d, struct part_mem_req *r)
{
	*r = (struct part_mem_req){.mem_per_node = d->mem_per_node,
	                           .mem_per_cpu = d->mem_per_cpu,
	                           .cpus_per_task = d->cpus_per_task,
	                           .num_tasks = d->num_tasks,
	                           .ntasks_per_node = d->ntasks_per_node,
	                           .max_nodes = d->max_nodes,
	                           .pn_min_cpus = d->pn_min_cpus,
	                           .exclusive = !!(d->flags & JOB_F_EXCLUSIVE)};
}

void part_mem_default(const struct conf *conf, const struct part *p, uint64_t *ret_node,
                      uint64_t *ret_cpu)
{
	const struct conf_part *cp = p ? p->cfg : NULL;

	*ret_node = *ret_cpu = NO_VAL64;
	if (cp && cp->def_mem_per_cpu)
		*ret_cpu = cp->def_mem_per_cpu;
	else if (cp && cp->def_mem_per_node)
		*ret_node = cp->def_mem_per_node;
	else if (conf->def_mem_per_cpu)
		*ret_cpu = conf->def_mem_per_cpu;
	else if (conf->def_mem_per_node)
		*ret_node = conf->def_mem_per_node;
}

/* The most memory, and the most CPUs, of a node of p (--mem=0 asks a whole
 * node's; a whole-node job holds its CPUs). */
static void part_node_max(struct ctld *ctld, const struct part *p, uint64_t *ret_mem,
                          uint32_t *ret_cpus)
{
	*ret_mem = 0;
	*ret_cpus = 0;
	for (size_t i = 0; i < p->nnodes; i++) {
		const struct node *n = node_mgr_get(ctld->nodes, p->node_idx[i]);
		if (n->mem > *ret_mem)
			*ret_mem = n->mem;
		if (n->cpus > *ret_cpus)
			*ret_cpus = n->cpus;
	}
}

static int given(uint32_t v)
{
	return v != NO_VAL && v != 0;
}

/* The CPUs a node gives the job, as _valid_pn_min_mem counts them to compare
 * a per-node figure with a per-CPU one: a whole node's when it takes whole
 * nodes, else its tasks a node times its CPUs a task, at least --mincpus. */
static uint64_t cpus_per_node(struct ctld *ctld, const struct part *p,
                              const struct part_mem_req *r)
{
	uint64_t mem, c;
	uint32_t ncpus, jobs;

	if (r->exclusive || part_oversub(p, &jobs) == PART_OVERSUB_EXCLUSIVE) {
		part_node_max(ctld, p, &mem, &ncpus);
		return ncpus ? ncpus : 1;
	}
	c = given(r->ntasks_per_node) ? r->ntasks_per_node : 1;
	if (given(r->num_tasks) && given(r->max_nodes) &&
	    (r->num_tasks + (uint64_t)r->max_nodes - 1) / r->max_nodes > c)
		c = (r->num_tasks + (uint64_t)r->max_nodes - 1) / r->max_nodes;
	if (given(r->cpus_per_task))
		c *= r->cpus_per_task;
	if (given(r->pn_min_cpus) && r->pn_min_cpus > c)
		c = r->pn_min_cpus;
	return c;
}

int part_mem_check(struct ctld *ctld, const struct part *p, struct part_mem_req *r)
{
	const struct conf_part *cp = p->cfg;
	uint64_t job, sys, c;
	uint32_t ncpus;

	if (!cp->max_mem_per_cpu && !cp->max_mem_per_node)
		return 0;
	if (r->mem_per_cpu != NO_VAL64 && r->mem_per_cpu && cp->max_mem_per_cpu) {
		uint64_t ratio;
		if (r->mem_per_cpu <= cp->max_mem_per_cpu)
			return 0;
		/* spread over more CPUs a task, as Slurm: -c and --mem-per-cpu
		 * scaled by the same factor */
		ratio = (r->mem_per_cpu + cp->max_mem_per_cpu - 1) / cp->max_mem_per_cpu;
		c = (given(r->cpus_per_task) ? r->cpus_per_task : 1) * ratio;
		if (c > UINT16_MAX)
			return -ESLURM_INVALID_TASK_MEMORY;
		r->cpus_per_task = (uint32_t)c;
		r->mem_per_cpu = (r->mem_per_cpu + ratio - 1) / ratio;
		if (!given(r->num_tasks))
			r->pn_min_cpus = r->cpus_per_task;
		return 0;
	}
	if (r->mem_per_cpu != NO_VAL64 && r->mem_per_cpu) {
		job = r->mem_per_cpu * cpus_per_node(ctld, p, r);
	} else {
		job = r->mem_per_node;
		if (job == NO_VAL64)
			return 0; /* no memory asked, none by default: unlimited */
		if (!job)         /* --mem=0: a whole node's */
			part_node_max(ctld, p, &job, &ncpus);
	}
	if (!cp->max_mem_per_cpu) /* MaxMemPerNode */
		return job <= cp->max_mem_per_node ? 0 : -ESLURM_INVALID_TASK_MEMORY;
	/* a per-node request under MaxMemPerCPU: the CPUs that many MB need */
	sys = cp->max_mem_per_cpu;
	c = (job + sys - 1) / sys;
	if (!given(r->pn_min_cpus) || r->pn_min_cpus < c) {
		if (c > UINT16_MAX)
			return -ESLURM_INVALID_TASK_MEMORY;
		r->pn_min_cpus = (uint32_t)c;
		if (given(r->ntasks_per_node))
			r->cpus_per_task = (r->pn_min_cpus + r->ntasks_per_node - 1) /
			                   r->ntasks_per_node;
	}
	return 0;
}

static void req_apply(const struct part_mem_req *r, struct job_desc *d)
{
	d->mem_per_node = r->mem_per_node;
	d->mem_per_cpu = r->mem_per_cpu;
	d->cpus_per_task = r->cpus_per_task;
	d->pn_min_cpus = r->pn_min_cpus;
}

void part_mem_submit(struct ctld *ctld, const struct part *p, struct job_desc *d)
{
	struct part_mem_req r;

	d->flags &= ~JOB_F_MEM_DEFAULT; /* the controller's to say */
	if (d->mem_per_node == NO_VAL64 && d->mem_per_cpu == NO_VAL64 &&
	    (!job_desc_X(d)->mem_per_gpu || job_desc_X(d)->mem_per_gpu == NO_VAL64)) {
		part_mem_default(ctld->conf, p, &d->mem_per_node, &d->mem_per_cpu);
		if (d->mem_per_node != NO_VAL64 || d->mem_per_cpu != NO_VAL64)
			d->flags |= JOB_F_MEM_DEFAULT;
	}
	if (!p)
		return;
	part_mem_req_of(d, &r);
	if (part_mem_check(ctld, p, &r) == 0)
		req_apply(&r, d);
}

int part_mem_job(struct ctld *ctld, const struct part *p, const struct job *job,
                 struct part_mem_req *r)
{
	part_mem_req_of(&job->desc, r);
	if (job->desc.flags & JOB_F_MEM_DEFAULT)
		part_mem_default(ctld->conf, p, &r->mem_per_node, &r->mem_per_cpu);
	return part_mem_check(ctld, p, r);
}
