/* sched_scale.c - the controller's scheduling passes at scale.
 *
 * Builds rotactld's real state in memory (the controller's own modules, no
 * daemons): 10,000 nodes of 64 CPUs, every CPU busy with running jobs whose
 * ends spread over the next day, and 100,000 pending jobs (serial, multi-core,
 * whole-node and wide jobs, 100 arrays of 100 tasks, random priorities, time
 * limits from 30 minutes to 2 days).  Then it times one main scheduling pass
 * (sched/builtin) and one backfill pass (sched/backfill with bf_max_job_test
 * 100, 500 (Slurm's default) and 2,000), and prints the heap the pending jobs
 * take.  With -g G, the first G nodes have 8 GPUs each (gpu:h100:8), the jobs
 * running there hold them, and a sixth of the pending jobs want GPUs (1-8 on
 * one node, or 8 per node on 2-16 nodes).
 *
 *   build/bench/sched_scale [-n nodes] [-j pending jobs] [-t bf_max_job_test,...]
 *                           [-g GPU nodes] [-s SchedulerParameters]
 *                           [-T leaf]   (topology/tree: leaf switches of `leaf`
 *                                        nodes, 32 leaves a spine, one top)
 *
 * -s adds SchedulerParameters to every pass (e.g. sched_order=saf_aged,
 * bf_job_part_count_reserve=1, bf_estimate=best: the learned model is made
 * as rotactld makes it, untrained, so it answers the time limits).
 */
#include <errno.h>
#include <event2/event.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/states.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/node_mgr.h"
#include "ctld/sched_pass.h"
#include "ctld/topo.h"
#include "sched/predict.h"
#include "common/common.h"

#define CPUS 64
#define GPUS 8

static size_t gpu_nodes; /* the first gpu_nodes nodes have GPUS GPUs */

/* What rotactld's main.c provides to the modules. */
int ctld_is_admin(const struct ctld *ctld, uid_t uid)
{
	return uid == 0;
}

void ctld_sched_kick(struct ctld *ctld)
{
}

void ctld_backfill_kick(struct ctld *ctld)
{
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Drive a backfill pass as rotactld's loop does, in slices of the default
 * bf_yield_interval, or all at once (slice 0); returns slices, and the
 * longest one in *longest. */
static unsigned backfill_drive(struct ctld *ctld, time_t now, double slice, int rebuild,
                               double *longest)
{
	unsigned n = 0;

	*longest = 0;
	for (int done = 0; !done; n++) {
		double t0 = now_s(), t;
		if (rebuild) /* as if something changed before each slice */
			ctld->res_gen++;
		done = backfill_continue(ctld, now, slice > 0 ? slice : 1e9);
		t = now_s() - t0;
		if (t > *longest)
			*longest = t;
	}
	return n;
}

static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

/* A typical batch job's environment: 40 variables. */
static char **make_env(void)
{
	char **env = xcalloc(41, sizeof(char *));
	for (int i = 0; i < 40; i++)
		env[i] =
		    xasprintf("VARIABLE_%02d=/some/typical/value/of/a/user/env/%d", i, i);
	return env;
}

static void submit(struct ctld *ctld, uint32_t id, struct job_desc *d, uint32_t limit,
                   time_t t)
{
	union job_event ev = {.submit = {.type = EV_SUBMIT,
	                                 .job_id = id,
	                                 .time = t,
	                                 .uid = 1000 + rnd(200),
	                                 .gid = 1000,
	                                 .desc = d,
	                                 .desc_count = 1,
	                                 .priority = 0xffff0000u - id,
	                                 .time_limit = limit}};
	if (job_event_apply(ctld, &ev) < 0)
		fatal("submit of job %u failed", id);
}

static void desc_init(struct job_desc *d, char **env)
{
	memset(d, 0, sizeof(*d));
	d->name = "bench";
	d->partition = "batch";
	d->script = "#!/bin/bash\n#SBATCH --time=1:00:00\nmodule load x\nsrun ./a.out "
	            "input.dat > output.dat\n";
	d->work_dir = "/home/user/project/run";
	d->env = env;
	d->min_nodes = NO_VAL;
	d->max_nodes = NO_VAL;
	d->num_tasks = NO_VAL;
	d->ntasks_per_node = NO_VAL;
	d->cpus_per_task = NO_VAL;
	d->mem_per_node = NO_VAL64;
	d->mem_per_cpu = NO_VAL64;
	d->time_limit = NO_VAL;
	d->nice = NO_VAL;
	d->pn_min_cpus = NO_VAL;
}

/* Two 32-CPU jobs on each node, or one whole node of a 10-node job, each
 * started at some point in the last 23 hours with a 24 hour limit. */
static uint32_t fill_running(struct ctld *ctld, size_t nnodes, time_t now, char **env)
{
	uint32_t id = 1;
	struct job_desc d;

	desc_init(&d, env);
	for (size_t i = 0; i < nnodes;) {
		size_t span = (i % 100 == 0 && i + 10 <= nnodes) ? 10 : 1;
		int per_node = span == 10 ? 1 : 2;
		for (int k = 0; k < per_node; k++) {
			uint32_t cpus[10], tasks[10], mem[10];
			char first[32], last[32], *nodes, *gres[11] = {0};
			union job_event u = {.start = {.type = EV_START, .job_id = id}};
			struct ev_start *ev = &u.start;
			time_t start = now - 60 - rnd(23 * 3600);

			for (size_t j = 0; j < span; j++) {
				cpus[j] = CPUS / per_node;
				tasks[j] = cpus[j];
				mem[j] = 1000;
			}
			submit(ctld, id, &d, 24 * 60, start - 10);
			snprintf(first, sizeof(first), "%05zu", i + 1);
			snprintf(last, sizeof(last), "%05zu", i + span);
			nodes = span == 1 ? xasprintf("n%s", first)
			                  : xasprintf("n[%s-%s]", first, last);
			ev->time = start;
			ev->nodes = nodes;
			ev->cpus_per_node = (struct rota_u32v){cpus, span};
			ev->tasks_per_node = (struct rota_u32v){tasks, span};
			ev->mem_per_node = (struct rota_u32v){mem, span};
			if (i < gpu_nodes) { /* its share of the node's GPUs */
				for (size_t j = 0; j < span; j++)
					gres[j] =
					    per_node == 1
					        ? xasprintf("gpu:h100:%d(IDX:0-%d)", GPUS,
					                    GPUS - 1)
					        : xasprintf("gpu:h100:%d(IDX:%d-%d)",
					                    GPUS / 2, k * GPUS / 2,
					                    k * GPUS / 2 + GPUS / 2 - 1);
				ev->gres = gres;
			}
			if (job_event_apply(ctld, &u) < 0)
				fatal("start of job %u on %s failed", id, nodes);
			for (size_t j = 0; j < span; j++)
				free(gres[j]);
			free(nodes);
			id++;
		}
		i += span;
	}
	return id;
}

/* The pending mix; returns how many jobs (array tasks counted) it queued. */
static size_t fill_pending(struct ctld *ctld, uint32_t *id, size_t njobs, time_t now,
                           char **env)
{
	static const uint32_t limits[] = {30, 60, 120, 240, 480, 720, 1440, 2880};
	size_t queued = 0;

	while (queued < njobs) {
		struct job_desc d;
		uint32_t r = rnd(100), limit = limits[rnd(8)];
		struct job *job;
		char spec[32];

		desc_init(&d, env);
		if (gpu_nodes && r >= 84 && r < 98) { /* GPU jobs: a sixth */
			if (r < 94) {                 /* 1-8 GPUs on one node */
				uint32_t g = 1 + rnd(GPUS);
				snprintf(spec, sizeof(spec), "gpu:h100:%u", g);
				job_desc_x_mut(&d)->gres = xstrdup(spec);
				d.num_tasks = g;
				d.min_nodes = d.max_nodes = 1;
			} else { /* 2-16 nodes of 8 */
				job_desc_x_mut(&d)->gpus_per_node = xstrdup("8");
				d.min_nodes = 2 + rnd(15);
				d.ntasks_per_node = GPUS;
			}
			queued++;
		} else if (queued % 900 == 0 && njobs - queued >= 100) {
			snprintf(spec, sizeof(spec), "0-99%%%u", 5 + rnd(20));
			d.array_inx = spec; /* 100 tasks, throttled */
			d.num_tasks = 1;
			queued += 100;
		} else if (r < 55) { /* serial */
			d.num_tasks = 1;
			d.mem_per_cpu = 2000;
			queued++;
		} else if (r < 75) { /* multi-core, one node */
			d.num_tasks = 2 + rnd(15);
			d.min_nodes = 1;
			d.max_nodes = 1;
			queued++;
		} else if (r < 90) { /* 1-4 whole nodes */
			d.min_nodes = 1 + rnd(4);
			d.ntasks_per_node = CPUS;
			queued++;
		} else if (r < 98) { /* 8-64 nodes */
			d.min_nodes = 8 + rnd(57);
			d.ntasks_per_node = CPUS;
			queued++;
		} else { /* 128-1024 nodes */
			d.min_nodes = 128 + rnd(897);
			d.ntasks_per_node = CPUS;
			queued++;
		}
		submit(ctld, *id, &d, limit, now - rnd(3600));
		if (d.ext) { /* this loop's own (the rest of d is borrowed) */
			free(d.ext->gres);
			free(d.ext->gpus_per_node);
			free(d.ext);
		}
		job = job_find(ctld->jobs, *id);
		job->priority = 1 + rnd(1000000);
		job->prio_set = 1;
		(*id)++;
	}
	return queued;
}

/* A digest of every pending job's planned start and nodes. */
static uint64_t plan_digest(struct ctld *ctld)
{
	uint64_t h = 1469598103934665603ull;

	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		if (!job_is_pending(j))
			continue;
		const struct job_sched *s = j->sched;
		h = (h ^ j->job_id ^ ((uint64_t)(s ? s->est_start : 0) << 20)) *
		    1099511628211ull;
		for (const char *c = s ? s->sched_nodes : NULL; c && *c; c++)
			h = (h ^ (uint8_t)*c) * 1099511628211ull;
	}
	return h;
}

static size_t count_planned(struct ctld *ctld, size_t *ret_pending)
{
	size_t planned = 0, pending = 0;

	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		if (!job_is_pending(j))
			continue;
		pending++;
		if (j->sched && j->sched->est_start)
			planned++;
	}
	*ret_pending = pending;
	return planned;
}

/* topology.conf in dir: leaf switches of `leaf` nodes, spines over 32 leaves,
 * one switch over the spines; loaded as rotactld does. */
static void topology_write(struct ctld *ctld, struct conf *conf, const char *dir,
                           size_t nnodes, size_t leaf)
{
	char *path = xasprintf("%s/topology.conf", dir);
	size_t nleaves = (nnodes + leaf - 1) / leaf, nspines = (nleaves + 31) / 32;
	struct rota_error err = {""};
	FILE *f = fopen(path, "we");

	if (!f)
		fatal("%s: %m", path);
	for (size_t l = 0; l < nleaves; l++) {
		size_t last = (l + 1) * leaf < nnodes ? (l + 1) * leaf : nnodes;
		fprintf(f, "SwitchName=l%zu Nodes=n[%05zu-%05zu]\n", l, l * leaf + 1,
		        last);
	}
	for (size_t s = 0; s < nspines; s++) {
		size_t last = (s + 1) * 32 < nleaves ? (s + 1) * 32 : nleaves;
		fprintf(f, "SwitchName=s%zu Switches=l[%zu-%zu]\n", s, s * 32, last - 1);
	}
	fprintf(f, "SwitchName=top Switches=s[0-%zu]\n", nspines - 1);
	fclose(f);
	free(conf->path);
	conf->path = xasprintf("%s/slurm.conf", dir);
	conf->topology_plugin = xstrdup("topology/tree");
	if (ctld_topo_load(conf, ctld->nodes, &ctld->topo, &err) < 0)
		fatal("%s", err.text);
	printf("topology/tree: %zu leaf switches of %zu nodes, %zu spines\n", nleaves,
	       leaf, nspines);
	free(path);
}

int main(int argc, char **argv)
{
	size_t nnodes = 10000, njobs = 100000, leaf = 0;
	const char *tests = "100,500,2000", *extra = "";
	char dir[] = "/tmp/rota-sched-scale-XXXXXX";
	struct rota_error err = {""};
	struct ctld ctld = {0};
	struct conf *conf;
	char *text, **env;
	size_t before, after, queued, pending, records, planned;
	uint32_t id;
	time_t now = time(NULL);
	double t0, t_main;
	int ch;

	while ((ch = getopt(argc, argv, "n:j:t:g:T:s:")) != -1) {
		if (ch == 'g')
			gpu_nodes = strtoul(optarg, NULL, 10);
		else if (ch == 'n')
			nnodes = strtoul(optarg, NULL, 10);
		else if (ch == 'j')
			njobs = strtoul(optarg, NULL, 10);
		else if (ch == 't')
			tests = optarg;
		else if (ch == 'T')
			leaf = strtoul(optarg, NULL, 10);
		else if (ch == 's')
			extra = optarg;
		else
			fatal("usage: sched_scale [-n nodes] [-j pending jobs] [-t N,N] "
			      "[-g GPU nodes] [-s SchedulerParameters]");
	}
	if (nnodes < 10 || nnodes > 99999 || njobs < 1 || gpu_nodes > nnodes)
		fatal("nodes must be 10..99999, jobs >= 1, GPU nodes <= nodes");
	log_init("sched_scale", getenv("BENCH_DEBUG") ? LOG_DEBUG : LOG_WARNING, NULL);
	if (!mkdtemp(dir))
		fatal("mkdtemp: %m");
	if (gpu_nodes && gpu_nodes < nnodes)
		text = xasprintf(
		    "ClusterName=bench\nStateSaveLocation=%s\nMaxJobCount=1000000\n"
		    "SchedulerType=sched/"
		    "builtin\nSchedulerParameters=bf_max_job_test=500\n"
		    "GresTypes=gpu\n"
		    "NodeName=n[00001-%05zu] CPUs=%d RealMemory=256000 Gres=gpu:h100:%d\n"
		    "NodeName=n[%05zu-%05zu] CPUs=%d RealMemory=256000\n"
		    "PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE\n",
		    dir, gpu_nodes, CPUS, GPUS, gpu_nodes + 1, nnodes, CPUS);
	else
		text = xasprintf(
		    "ClusterName=bench\nStateSaveLocation=%s\nMaxJobCount=1000000\n"
		    "SchedulerType=sched/"
		    "builtin\nSchedulerParameters=bf_max_job_test=500\n"
		    "%sNodeName=n[00001-%05zu] CPUs=%d RealMemory=256000%s\n"
		    "PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE\n",
		    dir, gpu_nodes ? "GresTypes=gpu\n" : "", nnodes, CPUS,
		    gpu_nodes ? " Gres=gpu:h100:8" : "");
	if (conf_load_string(text, "bench.conf", &conf, &err) < 0)
		fatal("%s", err.text);
	ctld.conf = conf;
	ctld.base = event_base_new();
	ctld.hostname = xstrdup("bench");
	node_mgr_create(&ctld, &ctld.nodes);
	if (leaf)
		topology_write(&ctld, conf, dir, nnodes, leaf);
	job_mgr_create(&ctld, &ctld.jobs);
	ctld.predict = predict_create(PREDICT_USER_MEAN2);
	ctld.learned = predict_create(PREDICT_LEARNED);
	predict_set_correction(ctld.learned, PREDICT_CORRECT_REQUESTED);
	if (*extra) {
		free(conf->scheduler_params);
		conf->scheduler_params = xasprintf("bf_max_job_test=500,%s", extra);
	}
	if (journal_open(ctld.base, dir, &ctld.journal, &err) < 0)
		fatal("%s", err.text);
	for (size_t i = 0; i < nnodes; i++) {
		struct node *n = node_mgr_get(ctld.nodes, i);
		n->registered = 1;
		n->down = 0;
		n->flags = 0;
	}
	env = make_env();
	t0 = now_s();
	id = fill_running(&ctld, nnodes, now, env);
	printf("cluster: %zu nodes x %d CPUs (%zu with %d GPUs), %u running jobs on "
	       "every CPU (set up in %.2f s)\n",
	       nnodes, CPUS, gpu_nodes, GPUS, id - 1, now_s() - t0);
	before = heap_used();
	t0 = now_s();
	queued = fill_pending(&ctld, &id, njobs, now, env);
	after = heap_used();
	count_planned(&ctld, &records);
	printf("pending: %zu jobs (%zu records: arrays are one record until a task "
	       "starts), queued in %.2f s\n",
	       queued, records, now_s() - t0);
	printf("memory: %.0f bytes per pending job record, %.0f per pending job "
	       "(heap, with a 40-variable environment and script each)\n",
	       (double)(after - before) / records, (double)(after - before) / queued);

	t0 = now_s();
	sched_pass(&ctld, now, SCHED_PASS_FULL);
	t_main = now_s() - t0;
	printf("main pass (sched/builtin): %.3f s for %zu pending records\n", t_main,
	       records);
	t0 = now_s();
	sched_pass(&ctld, now, SCHED_PASS_FULL);
	printf("main pass again:           %.3f s\n", now_s() - t0);

	conf->scheduler_type = xstrdup("sched/backfill");
	for (const char *p = tests; p && *p;) {
		unsigned long n = strtoul(p, NULL, 10);
		double t, longest;
		unsigned slices;
		uint64_t digest;
		free(conf->scheduler_params);
		conf->scheduler_params =
		    xasprintf("bf_max_job_test=%lu%s%s", n, *extra ? "," : "", extra);
		ctld.bf_last = 0;
		t0 = now_s();
		sched_pass(&ctld, now, SCHED_PASS_FULL);
		backfill_drive(&ctld, now, 0, 0, &longest);
		t = now_s() - t0;
		planned = count_planned(&ctld, &pending);
		digest = plan_digest(&ctld);
		printf(
		    "main + backfill pass, bf_max_job_test=%lu: %.3f s (backfill %.3f s; "
		    "%zu jobs with a planned start)\n",
		    n, t, t - t_main, planned);
		/* the same pass in slices, as the controller runs it */
		ctld.bf_last = 0;
		sched_pass(&ctld, now, SCHED_PASS_FULL);
		slices = backfill_drive(&ctld, now, 0.05, 0, &longest);
		printf("  in slices of bf_yield_interval=50000: %u slices, the longest "
		       "%.3f s (the controller answers requests between them); same "
		       "plan: %s\n",
		       slices, longest, plan_digest(&ctld) == digest ? "yes" : "NO");
		ctld.bf_last = 0;
		sched_pass(&ctld, now, SCHED_PASS_FULL);
		slices = backfill_drive(&ctld, now, 0.05, 1, &longest);
		printf("  rebuilding the plan before each slice: %u slices, the longest "
		       "%.3f s; same plan: %s\n",
		       slices, longest, plan_digest(&ctld) == digest ? "yes" : "NO");
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 0;
}
