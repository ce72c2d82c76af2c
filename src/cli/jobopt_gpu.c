/* jobopt_gpu.c - --ntasks-per-gpu: tasks for each GPU, the GPUs from the
 * tasks or the tasks from the GPUs (see jobopt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/jobopt.h"
#include "common/gres.h"
#include "common/gres_req.h"
#include "proto/messages.h"
#include "common/common.h"

/* The GPUs a "[type:]count" names; 0: none, or not such a count. */
static uint32_t gpus_of(const char *spec)
{
	char type[GRES_NAME_MAX];
	uint32_t n = 0;

	if (!spec || gres_gpu_parse(spec, type, &n, NULL) < 0)
		return 0;
	return n;
}

/* The GPUs on each node --gres names ("gpu:2", "nic:1,gpu:a100:4"); 0:
 * none. */
static uint32_t gres_gpus(const char *gres)
{
	char *copy, *save = NULL;
	uint32_t n = 0;

	if (!gres)
		return 0;
	copy = xstrdup(gres);
	for (char *item = strtok_r(copy, ",", &save); item && !n;
	     item = strtok_r(NULL, ",", &save))
		if (!strncmp(item, "gpu:", 4))
			n = gpus_of(item + 4);
		else if (!strcmp(item, "gpu"))
			n = 1;
	free(copy);
	return n;
}

void jobopt_gpu_finish(struct jobopt *o)
{
	struct job_desc *d = &o->desc;
	struct job_desc_ext *x;
	uint64_t gpus = 0;
	uint32_t per_node;
	int tasks_given;

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
	/* an allocation's, from the environment of a step, gives way */
	if (d->ntasks_per_node != NO_VAL && o->ntpn_src != JOBOPT_SRC_ENV)
		jobopt_die(JOBOPT_EXIT_FATAL,
		           "--ntasks-per-node is mutually exclusive with "
		           "--ntasks-per-gpu and SLURM_NTASKS_PER_GPU");
	d->ntasks_per_node = NO_VAL;
	if (d->max_nodes != NO_VAL && d->min_nodes != NO_VAL &&
	    d->max_nodes > d->min_nodes && o->nodes_src != JOBOPT_SRC_ENV)
		jobopt_die(JOBOPT_EXIT_FATAL,
		           "--ntasks-per-gpu is not compatible with a node range");
	/* a step's count from its allocation's environment is its own */
	tasks_given =
	    d->num_tasks != NO_VAL && (o->tasks_src != JOBOPT_SRC_ENV ||
	                               (o->cmd == JOBOPT_SRUN && o->jobid != NO_VAL));
	per_node = x->gpus_per_node ? gpus_of(x->gpus_per_node) : gres_gpus(x->gres);
	if (x->gpus)
		gpus = gpus_of(x->gpus);
	else
		gpus = (uint64_t)per_node * (d->min_nodes == NO_VAL ? 1 : d->min_nodes);
	if (!gpus && !tasks_given && d->min_nodes != NO_VAL &&
	    o->nodes_src != JOBOPT_SRC_ENV) {
		/* -N alone: n tasks on each node, a GPU each n */
		if ((uint64_t)d->min_nodes * o->ntasks_per_gpu > 0xfffffff0u)
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --ntasks-per-gpu");
		d->num_tasks = d->min_nodes * o->ntasks_per_gpu;
		o->tasks_src = JOBOPT_SRC_ARGV;
		tasks_given = 1;
	}
	if (gpus && !tasks_given) { /* the tasks from the GPUs */
		uint64_t t = gpus * o->ntasks_per_gpu;
		if (t > 0xfffffff0u)
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid --ntasks-per-gpu");
		d->num_tasks = (uint32_t)t;
		o->tasks_src = JOBOPT_SRC_ARGV;
	} else if (!gpus && tasks_given && !x->gpus && !x->gpus_per_node) {
		/* the GPUs from the tasks, a whole number of them */
		if (d->num_tasks % o->ntasks_per_gpu)
			jobopt_die(
			    JOBOPT_EXIT_FATAL,
			    "-n/--ntasks has to be a multiple of --ntasks-per-gpu");
		x->gpus = xasprintf("%u", d->num_tasks / o->ntasks_per_gpu);
	} else if (!gpus && !x->gpus && !x->gpus_per_node) {
		jobopt_die(JOBOPT_EXIT_FATAL,
		           "Invalid generic resource (gres) specification: "
		           "--ntasks-per-gpu needs -n, -N or GPUs");
	}
	if (!x->gpu_bind) /* as Slurm: each task one GPU of the node */
		x->gpu_bind = xasprintf("single:%u", o->ntasks_per_gpu);
}
