/* launch.c - build the launch and signal requests sent to nodes; each launch
 * carries a job credential signed for its node (proto/cred.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/taskdist.h"
#include "ctld/part_mem.h"
#include "ctld/hetjob.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "proto/cred.h"
#include "common/common.h"

/* Fill the job-wide part of a launch request (pointers borrowed from job). */
static void launch_fill_job(struct ctld *ctld, struct job *job, struct launch_req *l)
{
	struct part_mem_req mr;
	const struct job_desc *d = &job->desc;
	const struct job_desc_ext *x = job_desc_X(d);

	l->job_id = job->job_id;
	l->uid = job->owner->uid;
	l->gid = job->owner->gid;
	l->user = job->owner->user;
	l->job_name = d->name;
	l->partition = job_part_name(job);
	l->account = d->account;
	l->qos = d->qos;
	/* SLURM_JOB_RESERVATION: of a list, the one it runs in */
	l->reservation = job->run->resv ? job->run->resv : x->reservation;
	l->comment = x->comment;
	l->constraints = d->features;
	l->gpus = x->gpus;
	l->gpus_per_node = x->gpus_per_node;
	l->gpus_per_task = x->gpus_per_task;
	l->cpus_per_gpu = x->cpus_per_gpu;
	l->mem_per_gpu = x->mem_per_gpu == NO_VAL64 ? 0 : x->mem_per_gpu;
	l->gpu_bind = x->gpu_bind;
	l->cluster_name = ctld->conf->cluster_name;
	l->work_dir = d->work_dir;
	l->job_nodes = job->run->nodes_str;
	l->job_cpus_per_node = (struct rota_u32v){job->run->cpus, job->run->nnodes};
	l->job_num_tasks = job_num_tasks_asked(job);
	l->job_ntasks_per_node = d->ntasks_per_node;
	l->ntasks_per_core = x->ntasks_per_core;
	l->ntasks_per_socket = x->ntasks_per_socket;
	l->threads_per_core = x->threads_per_core;
	l->cpus_per_task = d->cpus_per_task;
	l->mem_per_node = d->mem_per_node;
	l->mem_per_cpu = d->mem_per_cpu;
	if (((d->flags & JOB_F_MEM_DEFAULT) || job_multi_part(job)) && job->part &&
	    part_mem_job(ctld, job->part, job, &mr) == 0) {
		l->mem_per_node = mr.mem_per_node;
		l->mem_per_cpu = mr.mem_per_cpu;
		l->cpus_per_task = mr.cpus_per_task;
	}
	l->time_limit = job->time_limit;
	l->submit_dir = (char *)strv_getenv(d->env, "SLURM_SUBMIT_DIR");
	if (!l->submit_dir)
		l->submit_dir = d->work_dir;
	l->submit_host = d->submit_host;
	l->umask = d->umask;
	l->start_time = job->run->start_time;
	l->ctld_host = ctld->hostname;
	l->flags = d->flags;
	l->restart_cnt = job->restart_cnt;
	if (job->array_job_id && d->array_inx) {
		/* SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP describe the whole array */
		struct arrayspec a;
		l->array_job_id = job->array_job_id;
		l->array_task_id = job->array_task_id;
		if (arrayspec_parse(d->array_inx, ARRAYSPEC_LIMIT, &a, NULL) == 0) {
			l->array_task_count = a.count;
			l->array_task_min = (uint32_t)arrayspec_first(&a);
			l->array_task_max = (uint32_t)arrayspec_last(&a);
			l->array_task_step = arrayspec_step(&a);
			arrayspec_release(&a);
		}
	}
}

/* The container the tasks run in (common/ctrspec.h), borrowed from the job's
 * request or the step's. */
static void launch_container_from_job(struct launch_req *to, const struct job_desc *d)
{
	const struct job_desc_ext *from = job_desc_X(d);

	CONTAINER_FIELDS(CONTAINER_COPY_F, _)
}

static void launch_container_from_step(struct launch_req *to,
                                       const struct step_create_req *from)
{
	CONTAINER_FIELDS(CONTAINER_COPY_F, _)
}

/* Sign l for its node (proto/cred.h) and send it.  Returns node_send()'s result,
 * or -EIO when it cannot be signed (logged). */
static int launch_send(struct ctld *ctld, struct node *n, struct launch_req *l)
{
	struct rota_error err = {""};
	int rc;

	if (cred_sign(ctld->auth, l, time(NULL), &err) < 0) {
		log_err("JobId=%u StepId=%u cannot sign the launch for %s: %s", l->job_id,
		        l->step_id, n->cfg->name, err.text);
		free(l->cred_sig.data);
		l->cred_sig = (struct rota_bin){0};
		return -EIO;
	}
	rc = node_send(n, MSG_LAUNCH_REQ, l);
	free(l->cred_sig.data);
	l->cred_sig = (struct rota_bin){0};
	return rc;
}

void launch_batch(struct ctld *ctld, struct job *job)
{
	struct launch_req l = {0};
	uint32_t b = job->run->batch_node;
	struct node *n = node_mgr_get(ctld->nodes, job_batch_node(job));
	const struct job_desc *d = &job->desc;

	launch_fill_job(ctld, job, &l);
	l.step_id = STEP_BATCH;
	l.node_name = (char *)n->cfg->name;
	l.node_index =
	    b; /* its place in the job (the script still sees SLURM_NODEID 0) */
	l.script = d->script;
	l.argv = d->argv;
	l.env = d->env;
	l.std_out = d->std_out;
	l.std_err = d->std_err;
	l.std_in = job_desc_X(d)->std_in;
	l.step_nodes = job->run->nodes_str;
	l.step_tasks_per_node = (struct rota_u32v){job->run->tasks, job->run->nnodes};
	l.step_num_tasks = l.job_num_tasks;
	l.cores = (struct rota_u32v){job->run->cores[b], job->run->cpus[b]};
	l.gres = job->run->gres ? job->run->gres[b] : NULL;
	launch_container_from_job(&l, d);
	l.het_env = hetjob_batch_env(ctld, job);
	if (launch_send(ctld, n, &l) < 0) {
		log_err("JobId=%u: cannot reach node %s to launch", job->job_id,
		        n->cfg->name);
		job_end(ctld, job, JOB_NODE_FAIL, FAIL_DOWN_NODE, 0);
	}
	strv_free(l.het_env);
}

/* Launch one step: one request per node of the step. */
int launch_step(struct ctld *ctld, struct job *job, const struct step *st,
                const struct step_create_req *req, const uint32_t *tasks,
                const char *nodes, const struct step_het_view *het)
{
	struct launch_req l = {0};
	uint32_t *cores, maxcpus = 1;
	int rc = 0;

	launch_fill_job(ctld, job, &l);
	l.step_id = st->step_id;
	l.argv = req->argv;
	l.env = req->env;
	if (req->cwd)
		l.work_dir = req->cwd;
	l.std_out = req->std_out;
	l.std_err = req->std_err;
	l.std_in = req->std_in;
	l.step_nodes = (char *)nodes;
	l.step_tasks_per_node = (struct rota_u32v){(uint32_t *)tasks, st->nnodes};
	l.step_num_tasks = 0;
	for (uint32_t i = 0; i < st->nnodes; i++)
		l.step_num_tasks += tasks[i];
	l.task_dist = req->task_dist;
	l.task_map = (struct rota_u32v){st->task_map, st->ntask_map};
	l.io_host = req->io_host;
	l.io_port = req->io_port;
	l.io_key = req->io_key;
	l.flags = req->flags;
	l.cpu_bind = req->cpu_bind;
	l.mem_bind = req->mem_bind;
	l.task_prolog = req->task_prolog;
	l.slurmd_debug = req->slurmd_debug;
	l.resv_ports = st->resv_ports;
	l.task_epilog = req->task_epilog;
	if (req->gpu_bind) /* the step's own, else the job's */
		l.gpu_bind = req->gpu_bind;
	if (req->gpus_per_task)
		l.gpus_per_task = req->gpus_per_task;
	if (req->container_image || req->container)
		launch_container_from_step(&l, req);
	else if (job->desc.flags & JOB_F_INTERACTIVE) /* salloc's: its steps' default */
		launch_container_from_job(&l, &job->desc);
	if (req->cpus_per_task != NO_VAL)
		l.cpus_per_task = req->cpus_per_task;
	if (het) { /* the tasks see one step over every component */
		l.het_leader = het->leader;
		l.het_step_id = het->step_id;
		l.step_nodes = (char *)het->nodes;
		l.step_tasks_per_node = het->tasks;
		l.step_num_tasks = het->map.n;
		l.task_dist = TASKDIST_ARBITRARY;
		l.task_map = het->map;
		l.het_job_nodes = (char *)het->job_nodes;
		l.het_job_cpus = het->job_cpus;
		l.job_num_tasks = het->map.n;
	}
	for (uint32_t k = 0; k < job->run->nnodes; k++)
		if (job->run->cpus[k] > maxcpus)
			maxcpus = job->run->cpus[k];
	cores = xcalloc(maxcpus, sizeof(uint32_t));
	for (uint32_t i = 0; i < st->nnodes; i++) {
		struct node *n = node_mgr_get(ctld->nodes, st->node_idx[i]);
		l.node_name = (char *)n->cfg->name;
		l.node_index = het ? het->at[i] : i;
		l.step_cores = (struct rota_u32v){NULL, 0};
		l.step_mem = st->mem ? st->mem[i] : 0;
		/* "": the step holds none of the job's GRES here */
		l.step_gres = st->gres ? (st->gres[i] ? st->gres[i] : "") : NULL;
		for (uint32_t k = 0; k < job->run->nnodes; k++) {
			if (job->run->node_idx[k] != st->node_idx[i])
				continue;
			l.cores =
			    (struct rota_u32v){job->run->cores[k], job->run->cpus[k]};
			l.gres = job->run->gres ? job->run->gres[k] : NULL;
			if (st->nslots && st->nslots[i] < job->run->cpus[k]) {
				for (uint32_t c = 0; c < st->nslots[i]; c++)
					cores[c] = job->run->cores[k][st->slots[i][c]];
				l.step_cores = (struct rota_u32v){cores, st->nslots[i]};
			}
		}
		if (launch_send(ctld, n, &l) < 0)
			rc = -1;
	}
	free(cores);
	return rc;
}

void job_signal_batch_step(struct ctld *ctld, struct job *job, uint32_t sig)
{
	struct signal_req r = {
	    .job_id = job->job_id, .step_id = STEP_BATCH, .signal = sig, .flags = 0};

	node_send(node_mgr_get(ctld->nodes, job_batch_node(job)), MSG_SIGNAL_REQ, &r);
}

void job_signal_nodes(struct ctld *ctld, struct job *job, uint32_t step_id, uint32_t sig,
                      uint32_t flags)
{
	struct signal_req r = {
	    .job_id = job->job_id, .step_id = step_id, .signal = sig, .flags = flags};

	for (uint32_t i = 0; i < job->run->nnodes; i++) {
		if ((flags & SIGNAL_F_BATCH_ONLY) && i > 0)
			break;
		if (flags & SIGNAL_F_BATCH_ONLY)
			r.step_id = STEP_BATCH;
		node_send(node_mgr_get(ctld->nodes, job->run->node_idx[i]),
		          MSG_SIGNAL_REQ, &r);
	}
}
