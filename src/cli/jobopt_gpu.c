/* jobopt_gpu.c - --ntasks-per-gpu: tasks for each GPU, the GPUs from the
 * tasks or the tasks from the GPUs (see jobopt.h). */
#include <stdio.h>
#include <stdlib.h>
#include "cli/cli.h"
#include "cli/jobopt.h"
#include "common/gres.h"
#include "common/gres_req.h"
#include "proto/messages.h"
#include "common/common.h"

/* The GPUs a "[type:]count" names, and its type ("" none). */
static uint32_t gpus_of(const char *spec, char type[GRES_NAME_MAX])
{
	uint32_t n = 0;

	type[0] = '\0';
	if (!spec || gres_gpu_parse(spec, type, &n, NULL) < 0)
		return 0;
	return n;
}

void jobopt_gpu_finish(struct jobopt *o)
{
	struct job_desc *d = &o->desc;
	struct job_desc_ext *x;
	char type[GRES_NAME_MAX];
	uint64_t gpus = 0;
	uint32_t nodes;

	if (!o->ntasks_per_gpu)
		return;
	x = job_desc_x_mut(d);
	/* Slurm's words */
	if (x->gpus_per_task)
		jobopt_die(JOBOPT_EXIT_FATAL,
		           "--gpus-per-task is mutually exclusive with "
		           "--ntasks-per-gpu and SLURM_NTASKS_PER_GPU");
	if (x->gpus_per_socket)
		jobopt_die(JOBOPT_EXIT_FATAL,
		           "--gpus-per-socket is mutually exclusive with "
		           "--ntasks-per-gpu and SLURM_NTASKS_PER_GPU");
	/* (a step in an allocation drops the allocation's, from its
	 * environment) */
	if (d->ntasks_per_node != NO_VAL && (o->cmd != JOBOPT_SRUN || o->jobid == NO_VAL))
		jobopt_die(JOBOPT_EXIT_FATAL,
		           "--ntasks-per-node is mutually exclusive with "
		           "--ntasks-per-gpu and SLURM_NTASKS_PER_GPU");
	d->ntasks_per_node = NO_VAL;
	if (d->max_nodes != NO_VAL && d->min_nodes != NO_VAL &&
	    d->max_nodes > d->min_nodes)
		jobopt_die(JOBOPT_EXIT_FATAL,
		           "--ntasks-per-gpu is not compatible with a node range");
	nodes = d->min_nodes == NO_VAL ? 1 : d->min_nodes;
	if (x->gpus)
		gpus = gpus_of(x->gpus, type);
	else if (x->gpus_per_node)
		gpus = (uint64_t)gpus_of(x->gpus_per_node, type) * nodes;
	if (gpus && (o->tasks_src == JOBOPT_SRC_NONE || o->tasks_src == JOBOPT_SRC_ENV)) {
		/* the tasks from the GPUs */
		uint64_t t = gpus * o->ntasks_per_gpu;
		if (t > 0xfffffff0u)
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --ntasks-per-gpu");
		d->num_tasks = (uint32_t)t;
		o->tasks_src = JOBOPT_SRC_ARGV;
	} else if (!gpus && !x->gres && d->num_tasks != NO_VAL) {
		/* the GPUs from the tasks: a type-less count, rounded up */
		uint32_t g = (d->num_tasks + o->ntasks_per_gpu - 1) / o->ntasks_per_gpu;
		free(x->gpus);
		x->gpus = xasprintf("%u", g);
	}
	if (!x->gpu_bind) /* as Slurm: each task one GPU of the node */
		x->gpu_bind = xasprintf("single:%u", o->ntasks_per_gpu);
}
