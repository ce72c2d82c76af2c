/* usage.c - what a step's processes use while they run.
 *
 * DESIGN: the kernel keeps the step's totals in its cgroup (memory peak,
 * cpu.stat); where it does not (no cgroup, v1 memory without a peak, or
 * jobacct_gather/linux) the step daemon sums /proc over the step's processes.
 * A sample is cheap (a few small reads per process), taken every
 * JobAcctGatherFrequency seconds from the poll loop and whenever sstat asks;
 * the high-water marks it keeps also raise what the step's end reports.  No
 * threads: everything runs in rotastepd's one loop.
 *
 * A step that holds GPUs also has them sampled through NVML (loaded at the
 * first sample, after the tasks are forked; no library: no GPU figures, said
 * once at debug level): the GPU memory its processes hold and the GPUs'
 * busy percentage (common/nvml_dl.h), at the highest and on average over
 * the samples.  The node's GPU index k is the NVML device whose minor
 * number the file of the node's k-th GPU names (/dev/nvidiaN), else NVML's
 * index k.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "common/acctg.h"
#include "common/conf.h"
#include "common/gres_req.h"
#include "common/nvml_dl.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "stepd/cgroup.h"
#include "stepd/msglink.h"
#include "stepd/stepd.h"
#include "common/common.h"

/* Processes looked at per sample: a step that forks more is measured by its
 * cgroup's totals, and /proc sums over the first ones only. */
#define USAGE_MAX_PIDS 4096
/* Tasks told apart on a node: past this, only the node's figures (each
 * process's task is found by a walk over the tasks). */
#define USAGE_TASKS_MAX 256

void usage_init(struct stepd *st)
{
	struct stepd_usage *u = &st->usage;
	const char *env = strv_getenv(st->req->env, "SLURM_ACCTG_FREQ");
	enum acctg_type type = ACCTG_CGROUP;
	uint32_t secs = ACCTG_FREQ_DEFAULT;

	if (acctg_type_parse(st->conf->acctg_type, &type) < 0)
		log_err("JobAcctGatherType=%s unknown, using jobacct_gather/cgroup",
		        st->conf->acctg_type);
	if (acctg_freq_parse(st->conf->acctg_freq, &secs) < 0) {
		log_err("JobAcctGatherFrequency=%s invalid, sampling every %u s",
		        st->conf->acctg_freq, ACCTG_FREQ_DEFAULT);
		secs = ACCTG_FREQ_DEFAULT;
	}
	/* srun/sbatch --acctg-freq: checked by the command, again here */
	if (env && acctg_freq_parse(env, &secs) < 0)
		log_err("JobId=%u StepId=%u SLURM_ACCTG_FREQ=%s invalid, ignored",
		        st->req->job_id, st->req->step_id, env);
	u->none = type == ACCTG_NONE;
	u->proc_only = type == ACCTG_LINUX;
	u->period = u->none ? 0 : secs;
	u->next = u->period ? time(NULL) + 1 : 0; /* a first look soon after start */
}

/* Read a small /proc file; returns its length or -1. */
static ssize_t proc_read(pid_t pid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

struct proc_sum {
	uint64_t rss_kib, vsize_kib, cpu_ticks, read_bytes, write_bytes;
};

/* One process's figures into one: statm (pages), stat (its and its
 * waited-for children's CPU ticks), io (the bytes it passed through read()
 * and write(), rchar and wchar, as Slurm's jobacct_gather counts them, page
 * cache or not).  Returns its process group, 0 when unknown. */
static pid_t proc_read_one(pid_t pid, struct proc_sum *one, uint64_t page_kib)
{
	char buf[1024], *p;
	unsigned long long size, res, ut, stt, cut, cst, v;
	int pgrp = 0;

	if (proc_read(pid, "statm", buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "%llu %llu", &size, &res) == 2) {
		one->vsize_kib = size * page_kib;
		one->rss_kib = res * page_kib;
	}
	/* the command name may hold spaces and parentheses: fields follow the
	 * last ')' (pgrp is the 5th field, utime the 14th) */
	if (proc_read(pid, "stat", buf, sizeof(buf)) > 0 && (p = strrchr(buf, ')')) &&
	    sscanf(p + 1,
	           " %*c %*d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
	           &pgrp, &ut, &stt, &cut, &cst) == 5)
		one->cpu_ticks = ut + stt + cut + cst;
	if (proc_read(pid, "io", buf, sizeof(buf)) > 0) {
		if ((p = strstr(buf, "rchar: ")) && sscanf(p + 7, "%llu", &v) == 1)
			one->read_bytes = v;
		if ((p = strstr(buf, "wchar: ")) && sscanf(p + 7, "%llu", &v) == 1)
			one->write_bytes = v;
	}
	return (pid_t)pgrp;
}

static void sum_add(struct proc_sum *sum, const struct proc_sum *one)
{
	sum->rss_kib += one->rss_kib;
	sum->vsize_kib += one->vsize_kib;
	sum->cpu_ticks += one->cpu_ticks;
	sum->read_bytes += one->read_bytes;
	sum->write_bytes += one->write_bytes;
}

/* The local task whose process group pgrp is; what left its group (setsid,
 * daemons) counts for the first. */
static uint32_t task_of(const struct stepd *st, pid_t pgrp)
{
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].pgid == pgrp)
			return i;
	return 0;
}

/* The step's processes: its cgroup's, else the tasks still running. */
static void find_pids(struct stepd *st)
{
	struct stepd_usage *u = &st->usage;

	if (!u->pids)
		u->pids = xcalloc(USAGE_MAX_PIDS, sizeof(*u->pids));
	u->npids = cgroup_procs(st->cg, u->pids, USAGE_MAX_PIDS);
	if (u->npids)
		return;
	for (uint32_t i = 0; i < st->ntasks && u->npids < USAGE_MAX_PIDS; i++)
		if (st->tasks[i].pid > 0 && !st->tasks[i].exited)
			u->pids[u->npids++] = st->tasks[i].pid;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* CPU time of the tasks this daemon has reaped, which /proc no longer has. */
static uint64_t reaped_usec(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static void tasks_update(struct stepd_usage *u, const struct proc_sum *per_task,
                         uint32_t n, long hz)
{
	for (uint32_t i = 0; i < n; i++) {
		struct task_use *t = &u->task[i];
		const struct proc_sum *p = &per_task[i];
		t->rss_kib = p->rss_kib;
		t->vsize_kib = p->vsize_kib;
		t->max_rss_kib = max_u64(t->max_rss_kib, p->rss_kib);
		t->max_vsize_kib = max_u64(t->max_vsize_kib, p->vsize_kib);
		/* what has exited leaves /proc: keep the figures from falling */
		t->cpu_usec = max_u64(t->cpu_usec, p->cpu_ticks * 1000000 /
		                                       (uint64_t)(hz > 0 ? hz : 100));
		t->read_bytes = max_u64(t->read_bytes, p->read_bytes);
		t->write_bytes = max_u64(t->write_bytes, p->write_bytes);
	}
}

/* Sum /proc over the step's processes into sum, and each task's share. */
static void walk_procs(struct stepd *st, struct proc_sum *sum, long hz)
{
	struct stepd_usage *u = &st->usage;
	struct proc_sum *per_task = NULL;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t page_kib = page > 0 ? (uint64_t)page / 1024 : 4;

	find_pids(st);
	if (st->ntasks > 1 && st->ntasks <= USAGE_TASKS_MAX) {
		if (!u->task)
			u->task = xcalloc(st->ntasks, sizeof(*u->task));
		per_task = xcalloc(st->ntasks, sizeof(*per_task));
	}
	for (size_t i = 0; i < u->npids; i++) {
		struct proc_sum one = {0};
		pid_t pgrp = proc_read_one(u->pids[i], &one, page_kib);
		sum_add(sum, &one);
		if (per_task)
			sum_add(&per_task[task_of(st, pgrp)], &one);
	}
	if (per_task)
		tasks_update(u, per_task, st->ntasks, hz);
	free(per_task);
}

/* The minor number a GPU's device file names ("/dev/nvidia3": 3), or -1. */
static int gpu_minor(const char *file)
{
	const char *base = file ? strrchr(file, '/') : NULL;
	char *end;
	long v;

	base = base ? base + 1 : file;
	if (!base || strncmp(base, "nvidia", 6) || base[6] < '0' || base[6] > '9')
		return -1;
	v = strtol(base + 6, &end, 10);
	return *end || v > 0xfffff ? -1 : (int)v;
}

/* The step's GPUs on this node (its "gpu" device indexes) into refs
 * (GRES_DEVS_MAX); returns how many. */
static size_t gpu_refs(const struct stepd *st, struct nvml_gpu_ref *refs)
{
	const struct launch_req *r = st->req;
	struct gres_alloc_item items[GRES_MAX_ITEMS];
	size_t nitems = 0, n = 0;

	if (gres_alloc_parse(r->step_gres ? r->step_gres : r->gres, items, GRES_MAX_ITEMS,
	                     &nitems) < 0)
		return 0;
	for (size_t i = 0; i < nitems; i++) {
		if (strcmp(items[i].name, "gpu"))
			continue;
		for (uint32_t k = 0; k < items[i].nidx && n < GRES_DEVS_MAX; k++) {
			uint32_t idx = items[i].idx[k], seen = 0;

			refs[n] = (struct nvml_gpu_ref){.index = idx, .minor = -1};
			for (uint32_t d = 0; d < r->node_gres_devs_count; d++) {
				const struct gres_dev_info *dev = &r->node_gres_devs[d];
				if (!dev->name || strcmp(dev->name, "gpu"))
					continue;
				if (seen++ == idx) {
					refs[n].minor = gpu_minor(dev->file);
					break;
				}
			}
			n++;
		}
	}
	return n;
}

static void gpu_open(struct stepd *st)
{
	struct stepd_usage *u = &st->usage;
	struct nvml_gpu_ref refs[GRES_DEVS_MAX];
	struct rota_error err = {{0}};
	size_t n = st->req->gres ? gpu_refs(st, refs) : 0;

	u->gpu_state = -1;
	if (!n)
		return;
	if (nvml_watch_create(refs, n, &u->gpu, &err) < 0) {
		log_debug("JobId=%u StepId=%u no GPU usage: %s", st->req->job_id,
		          st->req->step_id, err.text);
		return;
	}
	u->gpu_state = 1;
	u->ngpus = (uint32_t)n;
}

static void gpu_sample(struct stepd *st)
{
	struct stepd_usage *u = &st->usage;
	struct nvml_use use;

	if (!u->gpu_state)
		gpu_open(st);
	if (u->gpu_state < 0 || nvml_watch_sample(u->gpu, u->pids, u->npids, &use) < 0)
		return;
	u->gpu_mem = use.mem_bytes;
	u->gpu_util = use.util;
	u->max_gpu_mem = max_u64(u->max_gpu_mem, use.mem_bytes);
	if (use.util > u->max_gpu_util)
		u->max_gpu_util = use.util;
	u->gpu_samples++;
	u->gpu_mem_sum += use.mem_bytes;
	u->gpu_util_sum += use.util;
}

void usage_gpu_report(const struct stepd *st, struct step_complete *sc)
{
	const struct stepd_usage *u = &st->usage;
	uint64_t n = u->gpu_samples;

	sc->gpus = u->gpu_state > 0 ? u->ngpus : 0;
	sc->max_gpu_mem = u->max_gpu_mem;
	sc->max_gpu_util = u->max_gpu_util;
	sc->ave_gpu_mem = n ? u->gpu_mem_sum / n : 0;
	sc->ave_gpu_util = n ? (uint32_t)(u->gpu_util_sum / n) : 0;
}

void usage_tasks_report(const struct stepd *st, struct step_complete *sc)
{
	const struct stepd_usage *u = &st->usage;
	uint32_t n = st->ntasks ? st->ntasks : 1;
	uint64_t cpu = st->user_usec + st->sys_usec, seen = 0;

	if (u->none)
		return;
	sc->tasks = xcalloc(n, sizeof(*sc->tasks));
	sc->tasks_count = n;
	for (uint32_t i = 0; u->task && i < n; i++)
		seen += u->task[i].cpu_usec;
	for (uint32_t i = 0; i < n; i++) {
		struct task_used *t = &sc->tasks[i];
		t->gtid = st->gtid_base + i;
		if (!u->task) { /* not told apart: the node's, shared evenly */
			t->max_rss_kib = st->max_rss_kib / n;
			t->max_vsize_kib = u->max_vsize_kib / n;
			t->cpu_usec = cpu / n;
			t->read_bytes = u->read_bytes / n;
			t->write_bytes = u->write_bytes / n;
			continue;
		}
		t->gtid = st->tasks[i].gtid;
		t->max_rss_kib = u->task[i].max_rss_kib;
		t->max_vsize_kib = u->task[i].max_vsize_kib;
		/* the node's CPU time (its cgroup's) in proportion to what /proc
		 * saw each use */
		t->cpu_usec = seen
		                  ? (uint64_t)((double)cpu * (double)u->task[i].cpu_usec /
		                               (double)seen)
		                  : cpu / n;
		t->read_bytes = u->task[i].read_bytes;
		t->write_bytes = u->task[i].write_bytes;
	}
}

void usage_sample(struct stepd *st)
{
	struct stepd_usage *u = &st->usage;
	struct proc_sum sum = {0};
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t user, sys, peak;

	if (u->none)
		return;
	walk_procs(st, &sum, hz);
	gpu_sample(st);
	u->rss_kib = sum.rss_kib;
	u->vsize_kib = sum.vsize_kib;
	u->max_rss_kib = max_u64(u->max_rss_kib, sum.rss_kib);
	u->max_vsize_kib = max_u64(u->max_vsize_kib, sum.vsize_kib);
	/* live processes only: what has exited is gone from /proc */
	u->read_bytes = max_u64(u->read_bytes, sum.read_bytes);
	u->write_bytes = max_u64(u->write_bytes, sum.write_bytes);
	if (!u->proc_only && (peak = cgroup_max_rss(st->cg)))
		u->max_rss_kib = max_u64(u->max_rss_kib, peak >> 10);
	if (!u->proc_only && cgroup_cpu_usage(st->cg, &user, &sys) == 0) {
		u->user_usec = user;
		u->sys_usec = sys;
		return;
	}
	/* /proc does not split user from system time in the children's
	 * figures: all of it counts as user time */
	user = sum.cpu_ticks * 1000000 / (uint64_t)(hz > 0 ? hz : 100) + reaped_usec();
	if (user > u->user_usec + u->sys_usec)
		u->user_usec = user - u->sys_usec;
}

int usage_tick(struct stepd *st, time_t now)
{
	struct stepd_usage *u = &st->usage;

	if (!u->next)
		return -1;
	if (now >= u->next) {
		usage_sample(st);
		u->next = now + (time_t)u->period;
	}
	return (int)(u->next - now) * 1000;
}

void usage_answer(struct stepd *st, const struct step_stat_req *req)
{
	struct stepd_usage *u = &st->usage;
	struct node_stat ns = {0};
	struct node_stat_resp r = {
	    .req_id = req->req_id,
	    .tag = req->tag,
	    .job_id = st->req->job_id,
	    .step_id = st->req->step_id,
	    .node_stats = &ns,
	    .node_stats_count = 1,
	};

	if (!st->ctl)
		return;
	usage_sample(st);
	ns.node_name = st->req->node_name;
	ns.ntasks = st->ntasks;
	ns.gtid_base = st->gtid_base;
	ns.rss_kib = u->rss_kib;
	ns.max_rss_kib = u->max_rss_kib;
	ns.vsize_kib = u->vsize_kib;
	ns.max_vsize_kib = u->max_vsize_kib;
	ns.user_usec = u->user_usec;
	ns.sys_usec = u->sys_usec;
	ns.read_bytes = u->read_bytes;
	ns.write_bytes = u->write_bytes;
	if (u->gpu_state > 0) {
		struct step_complete gu = {0};
		struct node_stat *to = &ns;
		const struct step_complete *from = &gu;

		usage_gpu_report(st, &gu);
		GPU_USE_FIELDS(GPU_USE_COPY_F, _)
		ns.gpu_mem = u->gpu_mem;
		ns.gpu_util = u->gpu_util;
	}
	ns.pids.v = xcalloc(u->npids + 1, sizeof(uint32_t));
	for (size_t i = 0; i < u->npids; i++)
		ns.pids.v[i] = (uint32_t)u->pids[i];
	ns.pids.n = (uint32_t)u->npids;
	if (u->task) {
		ns.tasks = xcalloc(st->ntasks, sizeof(*ns.tasks));
		ns.tasks_count = st->ntasks;
		for (uint32_t i = 0; i < st->ntasks; i++)
			ns.tasks[i] =
			    (struct task_stat){.gtid = st->tasks[i].gtid,
			                       .rss_kib = u->task[i].rss_kib,
			                       .max_rss_kib = u->task[i].max_rss_kib,
			                       .vsize_kib = u->task[i].vsize_kib,
			                       .max_vsize_kib = u->task[i].max_vsize_kib,
			                       .cpu_usec = u->task[i].cpu_usec,
			                       .read_bytes = u->task[i].read_bytes,
			                       .write_bytes = u->task[i].write_bytes};
	}
	if (msglink_send(st->ctl, MSG_NODE_STAT_RESP, &r) < 0)
		log_debug("JobId=%u StepId=%u could not answer sstat", st->req->job_id,
		          st->req->step_id);
	free(ns.pids.v);
	free(ns.tasks);
}

void usage_release(struct stepd *st)
{
	free(st->usage.pids);
	free(st->usage.task);
	nvml_watch_destroy(st->usage.gpu);
	st->usage.gpu = NULL;
	st->usage.task = NULL;
	st->usage.pids = NULL;
	st->usage.npids = 0;
}
