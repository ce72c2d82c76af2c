/* env.c - the SLURM_* environment of batch scripts and step tasks, as Slurm
 * 22.05 sets it (see /work/shared/COMPAT.md): programs such as mpirun, torch
 * and snakemake read these names and formats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/gpubind.h"
#include "common/taskdist.h"
#include "common/gres_inv.h"
#include "common/gres_req.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/jobfmt.h"
#include "proto/messages.h"
#include "stepd/stepd.h"
#include "common/common.h"

static char **set_opt(char **env, const char *name, const char *val)
{
	return val && *val ? strv_setenv(env, name, val) : env;
}

/* Remove NAME=... for every name starting with prefix ("SLURM_STEP"). */
static void unset_prefix(char **env, const char *prefix)
{
	size_t j = 0, pl = strlen(prefix);

	for (size_t i = 0; env && env[i]; i++) {
		if (!strncmp(env[i], prefix, pl) && strchr(env[i], '=')) {
			free(env[i]);
			continue;
		}
		env[j++] = env[i];
	}
	if (env)
		env[j] = NULL;
}

/* The job's cpus on each of its n nodes (the vector may hold one value for all). */
static uint32_t *job_cpus(const struct launch_req *req, size_t n)
{
	uint32_t *cpus = xcalloc(n ? n : 1, sizeof(*cpus));

	jobfmt_node_cpus(req->job_cpus_per_node.v, req->job_cpus_per_node.n, cpus, n);
	return cpus;
}

/* A step over several components: the job's nodes are every component's. */
static char **env_het_job(char **env, const struct launch_req *req)
{
	char **names = NULL;
	size_t n = 0;
	uint32_t *cpus;

	if (hostlist_expand(req->het_job_nodes, &names, &n, NULL) < 0 || !n) {
		hostlist_free(names);
		return env;
	}
	hostlist_free(names);
	cpus = xcalloc(n, sizeof(*cpus));
	jobfmt_node_cpus(req->het_job_cpus.v, req->het_job_cpus.n, cpus, n);
	env = strv_setenv(env, "SLURM_JOB_NODELIST", req->het_job_nodes);
	env = strv_setenv(env, "SLURM_NODELIST", req->het_job_nodes);
	env = strv_setenvf(env, "SLURM_JOB_NUM_NODES", "%zu", n);
	env = strv_setenvf(env, "SLURM_NNODES", "%zu", n);
	env = strv_setenv_take(env, "SLURM_JOB_CPUS_PER_NODE", jobfmt_counts(cpus, n));
	free(cpus);
	return env;
}

/* Variables that describe the job's allocation (batch and steps alike). */
static char **env_job_alloc(char **env, const struct stepd *st)
{
	const struct launch_req *req = st->req;
	const struct jobfmt_tasks t = {.num_tasks = req->job_num_tasks,
	                               .ntasks_per_node = req->job_ntasks_per_node,
	                               .cpus_per_task = req->cpus_per_task};
	char **names = NULL;
	size_t n = 0, me = 0;
	uint32_t *cpus;

	if (req->job_nodes && hostlist_expand(req->job_nodes, &names, &n, NULL) < 0)
		n = 0;
	for (size_t i = 0; i < n; i++)
		if (req->node_name && !strcmp(names[i], req->node_name))
			me = i;
	hostlist_free(names);
	cpus = job_cpus(req, n);
	env = set_opt(env, "SLURM_JOB_NODELIST", req->job_nodes);
	env = set_opt(env, "SLURM_NODELIST", req->job_nodes);
	if (n) {
		env = strv_setenvf(env, "SLURM_JOB_NUM_NODES", "%zu", n);
		env = strv_setenvf(env, "SLURM_NNODES", "%zu", n);
		env = strv_setenv_take(env, "SLURM_JOB_CPUS_PER_NODE",
		                       jobfmt_counts(cpus, n));
		/* this component's CPUs here, over several as well */
		env = strv_setenvf(env, "SLURM_CPUS_ON_NODE", "%u", cpus[me]);
		if (st->batch)
			env = strv_setenv_take(env, "SLURM_TASKS_PER_NODE",
			                       jobfmt_tasks_per_node(&t, cpus, n));
	}
	free(cpus);
	if (req->het_leader && req->het_job_nodes)
		env = env_het_job(env, req);
	return env;
}

static char **env_job_ids(char **env, const struct stepd *st)
{
	const struct launch_req *req = st->req;
	const char *cluster =
	    req->cluster_name ? req->cluster_name : st->conf->cluster_name;

	/* a step over several components: the leader's, as Slurm */
	uint32_t id = stepd_seen_job(req);

	env = strv_setenvf(env, "SLURM_JOB_ID", "%u", id);
	if (req->array_job_id) {
		env = strv_setenvf(env, "SLURM_ARRAY_JOB_ID", "%u", req->array_job_id);
		env = strv_setenvf(env, "SLURM_ARRAY_TASK_ID", "%u", req->array_task_id);
		env = strv_setenvf(env, "SLURM_ARRAY_TASK_COUNT", "%u",
		                   req->array_task_count);
		env =
		    strv_setenvf(env, "SLURM_ARRAY_TASK_MIN", "%u", req->array_task_min);
		env =
		    strv_setenvf(env, "SLURM_ARRAY_TASK_MAX", "%u", req->array_task_max);
		env = strv_setenvf(env, "SLURM_ARRAY_TASK_STEP", "%u",
		                   req->array_task_step);
	}
	env = strv_setenvf(env, "SLURM_JOBID", "%u", id);
	/* only in a job that was requeued, as Slurm does */
	if (req->restart_cnt)
		env = strv_setenvf(env, "SLURM_RESTART_COUNT", "%u", req->restart_cnt);
	env = set_opt(env, "SLURM_JOB_NAME", req->job_name);
	env = set_opt(env, "SLURM_JOB_PARTITION", req->partition);
	env = set_opt(env, "SLURM_JOB_ACCOUNT", req->account);
	env = set_opt(env, "SLURM_JOB_QOS", req->qos);
	env = set_opt(env, "SLURM_JOB_RESERVATION", req->reservation);
	env = set_opt(env, "SLURM_CLUSTER_NAME", cluster);
	env = set_opt(env, "SLURM_JOB_USER", st->user);
	env = strv_setenvf(env, "SLURM_JOB_UID", "%u", (unsigned)st->uid);
	env = strv_setenvf(env, "SLURM_JOB_GID", "%u", (unsigned)st->gid);
	env = set_opt(env, "SLURM_SUBMIT_DIR",
	              req->submit_dir ? req->submit_dir : req->work_dir);
	env = set_opt(env, "SLURM_SUBMIT_HOST", req->submit_host);
	env = set_opt(env, "SLURMD_NODENAME", req->node_name);
	env = set_opt(env, "SLURM_TOPOLOGY_ADDR", req->node_name);
	env = strv_setenv(env, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
	env = set_opt(env, "SLURM_CONF", st->conf_path);
	if (req->mem_per_node && req->mem_per_node != NO_VAL64)
		env = strv_setenvf(env, "SLURM_MEM_PER_NODE", "%llu",
		                   (unsigned long long)req->mem_per_node);
	if (req->mem_per_cpu && req->mem_per_cpu != NO_VAL64)
		env = strv_setenvf(env, "SLURM_MEM_PER_CPU", "%llu",
		                   (unsigned long long)req->mem_per_cpu);
	if (req->cpus_per_task && req->cpus_per_task != NO_VAL)
		env = strv_setenvf(env, "SLURM_CPUS_PER_TASK", "%u", req->cpus_per_task);
	if (req->job_ntasks_per_node && req->job_ntasks_per_node != NO_VAL)
		env = strv_setenvf(env, "SLURM_NTASKS_PER_NODE", "%u",
		                   req->job_ntasks_per_node);
	if (req->ntasks_per_core)
		env = strv_setenvf(env, "SLURM_NTASKS_PER_CORE", "%u",
		                   req->ntasks_per_core);
	if (req->ntasks_per_socket)
		env = strv_setenvf(env, "SLURM_NTASKS_PER_SOCKET", "%u",
		                   req->ntasks_per_socket);
	if (req->threads_per_core)
		env = strv_setenvf(env, "SLURM_THREADS_PER_CORE", "%u",
		                   req->threads_per_core);
	return env;
}

static char **env_batch(char **env, const struct stepd *st)
{
	const struct launch_req *req = st->req;

	/* OpenMPI decides it runs under srun when it sees SLURM_STEP_ID. */
	unset_prefix(env, "SLURM_STEP_");
	unset_prefix(env, "SLURM_STEPID=");
	if (req->job_num_tasks && req->job_num_tasks != NO_VAL) {
		env = strv_setenvf(env, "SLURM_NTASKS", "%u", req->job_num_tasks);
		env = strv_setenvf(env, "SLURM_NPROCS", "%u", req->job_num_tasks);
	}
	/* 0 wherever the script runs (sbatch --batch too), as Slurm's */
	env = strv_setenv(env, "SLURM_NODEID", "0");
	env = strv_setenv(env, "SLURM_PROCID", "0");
	env = strv_setenv(env, "SLURM_LOCALID", "0");
	env = strv_setenv(env, "SLURM_GTIDS", "0");
	env = strv_setenv(env, "ENVIRONMENT", "BATCH");
	env = set_opt(env, "HOSTNAME", req->node_name);
	/* a heterogeneous job's: every component's SLURM_*_HET_GROUP_n (the
	 * controller's, ctld/hetjob.h) */
	return strv_setenv_from(env, req->het_env, "SLURM_");
}

static uint32_t step_total_tasks(const struct launch_req *req)
{
	uint32_t sum = 0;

	if (req->step_num_tasks && req->step_num_tasks != NO_VAL)
		return req->step_num_tasks;
	for (uint32_t i = 0; i < req->step_tasks_per_node.n; i++)
		sum += req->step_tasks_per_node.v[i];
	return sum;
}

/* The step's nodes for its variables: over several components the list
 * of every component's nodes in order ("a,b,c"), compressed (caller frees). */
static char *step_node_list(const struct launch_req *req)
{
	char **names = NULL, *s;
	size_t n = 0;

	if (!req->step_nodes)
		return NULL;
	if (!req->het_leader || hostlist_expand(req->step_nodes, &names, &n, NULL) < 0)
		return xstrdup(req->step_nodes);
	/* in order (ctld/step_het.c); a node of two components twice, as
	 * SLURM_NNODES and SLURM_NODEID count it (Slurm keeps the repeats) */
	s = hostlist_compress(names, n);
	hostlist_free(names);
	return s;
}

static char **env_step(char **env, const struct stepd *st)
{
	const struct launch_req *req = st->req;
	const struct rota_u32v *tpn = &req->step_tasks_per_node;
	uint32_t ntasks = step_total_tasks(req);
	char *gtids = xstrdup(""), *nodes = step_node_list(req);

	env = strv_setenvf(env, "SLURM_STEP_ID", "%u", stepd_seen_step(req));
	env = strv_setenvf(env, "SLURM_STEPID", "%u", stepd_seen_step(req));
	env = set_opt(env, "SLURM_STEP_NODELIST", nodes);
	/* SLURM_NODELIST stays the job's (or the heterogeneous job's), as in
	 * Slurm, where srun passes the allocation's list on */
	free(nodes);
	env = strv_setenvf(env, "SLURM_STEP_NUM_NODES", "%u", tpn->n);
	env = strv_setenvf(env, "SLURM_NNODES", "%u", tpn->n);
	env = strv_setenvf(env, "SLURM_STEP_NUM_TASKS", "%u", ntasks);
	if (req->resv_ports) /* MpiParams ports (ctld/resv_ports.h) */
		env = strv_setenv(env, "SLURM_STEP_RESV_PORTS", req->resv_ports);
	else /* not the batch script's, which srun passed on */
		strv_unsetenv(env, "SLURM_STEP_RESV_PORTS");
	env = strv_setenvf(env, "SLURM_NTASKS", "%u", ntasks);
	env = strv_setenvf(env, "SLURM_NPROCS", "%u", ntasks);
	env = strv_setenv_take(env, "SLURM_STEP_TASKS_PER_NODE",
	                       jobfmt_counts(tpn->v, tpn->n));
	env =
	    strv_setenv_take(env, "SLURM_TASKS_PER_NODE", jobfmt_counts(tpn->v, tpn->n));
	env = strv_setenvf(env, "SLURM_NODEID", "%u", st->node_id);
	for (uint32_t i = 0; i < st->ntasks; i++) {
		char *s = xasprintf("%s%s%u", gtids, i ? "," : "", st->tasks[i].gtid);
		free(gtids);
		gtids = s;
	}
	env = strv_setenv(env, "SLURM_GTIDS", gtids);
	free(gtids);
	/* over several components the layout is a map: no -m said so */
	if (req->task_dist && !req->het_leader &&
	    !strv_getenv(env, "SLURM_DISTRIBUTION")) {
		env =
		    strv_setenv(env, "SLURM_DISTRIBUTION", taskdist_name(req->task_dist));
		if (TASKDIST_TYPE(req->task_dist) == TASKDIST_PLANE)
			env = strv_setenvf(env, "SLURM_DIST_PLANESIZE", "%u",
			                   TASKDIST_PLANE_SIZE(req->task_dist));
	}
	if (req->io_host && req->io_port) {
		env = strv_setenv(env, "SLURM_SRUN_COMM_HOST", req->io_host);
		env = strv_setenv(env, "SLURM_LAUNCH_NODE_IPADDR", req->io_host);
		env = strv_setenvf(env, "SLURM_SRUN_COMM_PORT", "%u", req->io_port);
		env = strv_setenvf(env, "SLURM_STEP_LAUNCHER_PORT", "%u", req->io_port);
	}
	return env;
}

/* The base of a batch job's environment: with SLURM_GET_USER_ENV=1 (sbatch
 * --get-user-env), the user's login environment on this node overridden by the
 * submitted one, as slurmd does; without it, or when the login environment
 * cannot be read, the submitted environment alone (Slurm's default, unless
 * SchedulerParameters=requeue_setup_env_fail). */
static char **env_base(const struct stepd *st)
{
	struct rota_error err = {""};
	const char *want = strv_getenv(st->req->env, "SLURM_GET_USER_ENV");
	char **env = NULL;

	if (st->batch && want && !strcmp(want, "1") && userenv_load(st, &env, &err) < 0) {
		log_err("JobId=%u cannot read the login environment of %s (%s): "
		        "running with the submitted environment only",
		        st->req->job_id, st->user, err.text);
		env = NULL;
	}
	if (!env)
		return strv_dup(st->req->env);
	for (size_t i = 0; st->req->env && st->req->env[i]; i++) {
		const char *e = st->req->env[i], *eq = strchr(e, '=');
		char *name;

		if (!eq)
			continue;
		name = xstrndup(e, (size_t)(eq - e));
		env = strv_setenv(env, name, eq + 1);
		free(name);
	}
	return env;
}

/* GPUs: what the job (and the step) holds on this node.  The indexes are
 * the node's (no device cgroup renumbers them yet). */
/* "0,1,...,n-1" (caller frees). */
static char *local_indexes(uint32_t n)
{
	size_t cap = (size_t)n * 11 + 1, len = 0;
	char *s = xcalloc(cap, 1);

	for (uint32_t i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s%u", i ? "," : "", i);
	return s;
}

static char **env_gpus(char **env, const struct stepd *st)
{
	const struct launch_req *req = st->req;
	const char *mine = req->step_gres ? req->step_gres : req->gres;
	char *job_idx = gres_alloc_indexes(req->gres, "gpu");
	char *idx = gres_alloc_indexes(mine, "gpu");

	env = set_opt(env, "SLURM_GPUS", req->gpus);
	env = set_opt(env, "SLURM_GPUS_PER_NODE", req->gpus_per_node);
	env = set_opt(env, "SLURM_GPUS_PER_TASK", req->gpus_per_task);
	env = set_opt(env, "SLURM_GPU_BIND", req->gpu_bind);
	if (req->cpus_per_gpu)
		env = strv_setenvf(env, "SLURM_CPUS_PER_GPU", "%u", req->cpus_per_gpu);
	if (req->mem_per_gpu)
		env = strv_setenvf(env, "SLURM_MEM_PER_GPU", "%llu",
		                   (unsigned long long)req->mem_per_gpu);
	if (job_idx)
		env = strv_setenv(env, "SLURM_JOB_GPUS", job_idx);
	if (!idx) { /* none here: not the batch script's, which srun passed on */
		static const char *const gone[] = {
		    "SLURM_STEP_GPUS", "SLURM_GPUS_ON_NODE", "CUDA_VISIBLE_DEVICES",
		    "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES"};
		for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
			strv_unsetenv(env, gone[i]);
	}
	if (idx) {
		if (!st->batch)
			env = strv_setenv(env, "SLURM_STEP_GPUS", idx);
		env = strv_setenvf(env, "SLURM_GPUS_ON_NODE", "%u",
		                   gres_alloc_count(mine, "gpu"));
		const char *visible = idx;
		char *local = NULL;

		/* as Slurm: under a device cgroup the tasks see only their GPUs,
		 * which a CUDA program numbers 0..n-1 */
		if (req->node_flags & LAUNCH_NF_CONSTRAIN_DEVICES)
			visible = local = local_indexes(gres_alloc_count(mine, "gpu"));
		env = strv_setenv(env, "CUDA_VISIBLE_DEVICES", visible);
		env = strv_setenv(env, "GPU_DEVICE_ORDINAL", visible);
		env = strv_setenv(env, "ROCR_VISIBLE_DEVICES", visible);
		free(local);
	}
	free(job_idx);
	free(idx);
	return env;
}

char **env_build(const struct stepd *st)
{
	char **env = env_base(st);

	if (!env)
		env = xcalloc(1, sizeof(char *));
	unset_prefix(env, RLIMITS_ENV_PREFIX); /* given to the tasks as limits */
	env = env_job_ids(env, st);
	env = env_job_alloc(env, st);
	if (st->req->gres)
		env = env_gpus(env, st);
	if (st->batch)
		env = env_batch(env, st);
	else
		env = env_step(env, st);
	/* srun -E: the counts of srun's environment, not the step's */
	if (!st->batch && (st->req->flags & STEP_F_PRESERVE_ENV)) {
		static const char *const kept[] = {"SLURM_NTASKS", "SLURM_NPROCS",
		                                   "SLURM_NNODES",
		                                   "SLURM_TASKS_PER_NODE"};
		for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
			const char *v = strv_getenv(st->req->env, kept[i]);
			if (v)
				env = strv_setenv(env, kept[i], v);
		}
	}
	return env;
}

char **env_add_task(char **env, const struct stepd *st, const struct stepd_task *t)
{
	env = strv_setenvf(env, "SLURM_TASK_PID", "%d", (int)getpid());
	if (st->batch)
		return env;
	env = strv_setenvf(env, "SLURM_PROCID", "%u", t->gtid);
	env = strv_setenvf(env, "SLURM_LOCALID", "%u", t->ltid);
	return env;
}

/* The step's GPUs here, bit p for idx[p], near the CPUs of local task ltid:
 * its equal share of the step's cores (as stepd/cgroup.c binds it), against
 * gres.conf Cores= of each.  0 when no device says. */
static uint64_t task_close(const struct stepd *st, uint32_t ltid, const uint32_t *idx,
                           uint32_t ngpus)
{
	const struct launch_req *req = st->req;
	const struct rota_u32v *sc = req->step_cores.n ? &req->step_cores : &req->cores;
	uint64_t mine[GRES_CORE_WORDS] = {0}, close = 0;
	uint32_t per = st->ntasks && sc->n / st->ntasks ? sc->n / st->ntasks : 1;

	for (uint32_t j = 0; sc->n && j < per; j++) {
		uint32_t c = sc->v[((uint64_t)ltid * per + j) % sc->n];
		if (c < GRES_CORES_MAX)
			mine[c / 64] |= 1ull << (c % 64);
	}
	for (uint32_t d = 0, k = 0; d < req->node_gres_devs_count; d++) {
		const struct gres_dev_info *g = &req->node_gres_devs[d];
		uint64_t near[GRES_CORE_WORDS];
		if (!g->name || strcmp(g->name, "gpu"))
			continue;
		for (uint32_t p = 0; p < ngpus && p < GPUBIND_MAX_GPUS; p++) {
			if (idx[p] != k || !g->cores ||
			    gres_cores_parse(g->cores, near) < 0)
				continue;
			for (size_t w = 0; w < GRES_CORE_WORDS; w++)
				if (near[w] & mine[w])
					close |= 1ull << p;
		}
		k++;
	}
	return close;
}

char *env_task_gpus(const struct stepd *st, const struct stepd_task *t, char **ret_say)
{
	const struct launch_req *req = st->req;
	char *list = NULL, *vis = NULL, type[GRES_NAME_MAX];
	struct gpubind b = {0};
	uint32_t idx[GPUBIND_MAX_GPUS], n = 0, per_task;
	struct gpubind_node node = {
	    .idx = idx, .relative = !!(req->node_flags & LAUNCH_NF_CONSTRAIN_DEVICES)};
	uint64_t bits;

	*ret_say = NULL;
	if (st->batch || !req->gres ||
	    !(list =
	          gres_alloc_indexes(req->step_gres ? req->step_gres : req->gres, "gpu")))
		return NULL;
	for (char *p = list; *p && n < GPUBIND_MAX_GPUS; p += *p == ',')
		idx[n++] = (uint32_t)strtoul(p, &p, 10);
	free(list);
	node.ngpus = n;
	/* srun checked it; what a node cannot read binds nothing */
	if (req->gpu_bind && gpubind_parse(req->gpu_bind, &b, NULL) < 0)
		return NULL;
	if (b.type == GPUBIND_DEFAULT && req->gpus_per_task &&
	    gres_gpu_parse(req->gpus_per_task, type, &per_task, NULL) == 0) {
		b.type = GPUBIND_PER_TASK;
		b.n = per_task;
	}
	if (b.type == GPUBIND_DEFAULT || b.type == GPUBIND_NONE) {
		gpubind_release(&b);
		return NULL;
	}
	bits = gpubind_task(&b, &node, t->ltid, task_close(st, t->ltid, idx, n));
	vis = gpubind_list(&node, bits, node.relative);
	if (b.verbose) {
		char *global = gpubind_list(&node, bits, 0),
		     *local = gpubind_list(&node, bits, 1);
		*ret_say =
		    xasprintf("gpu-bind: usable_gres=0x%llx; bit_alloc=0x%llx; "
		              "local_inx=%u; global_list=%s; local_list=%s\n",
		              (unsigned long long)bits,
		              (unsigned long long)(n >= 64 ? ~0ull : (1ull << n) - 1),
		              t->ltid, global, local);
		free(global);
		free(local);
	}
	gpubind_release(&b);
	return vis;
}
