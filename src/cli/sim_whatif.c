/* sim_whatif.c - replay a cluster's history under a configuration and
 * compare with what happened (sim_whatif.h). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/sim_history.h"
#include "cli/sim_whatif.h"
#include "common/conf.h"
#include "common/constraint.h"
#include "cli/sim_whatif_nodes.h"
#include "common/schedparams.h"
#include "sched/replay.h"
#include "common/common.h"

/* One job's two runs: real, and replayed (start filled in by the replay). */
struct wjob {
	const struct sim_hjob *h;
	int pool; /* -1: left out */
	int64_t sim_start;
};

/* Sums for one partition, one account, or all. */
struct figures {
	const char *name; /* borrowed */
	size_t jobs;
	double wait[2], bsld[2], cpu_s; /* [0] real, [1] replayed */
	size_t earlier, later;          /* moved by more than the tolerance */
	uint64_t cpus; /* a partition's CPUs (utilization); 0: not a partition */
};

struct whatif {
	const struct conf *conf;
	struct sched_node *nodes; /* [conf->node_count] */
	struct sched_group *groups;
	uint32_t *members; /* all partitions' node indexes, end to end */
	uint32_t *part_factor, *part_tier;
	struct wn_cluster cluster;
	/* the node masks of the jobs' distinct --constraint strings */
	const char **mask_key; /* borrowed from the history */
	uint8_t **mask;
	size_t nmasks;
	struct wn_opts opts;
	struct wn_stats stats;
	struct wjob *w;
	size_t n;
	size_t no_part, too_big; /* left out */
	struct figures *parts, *accts, all;
	size_t naccts;
	int64_t span[2][2]; /* [real/sim][first submit, last end] */
	int64_t tolerance;
};

/* The configured nodes and partitions as the passes see them, and the
 * scheduler's parameters. */
static void cluster_build(struct whatif *wf)
{
	const struct conf *c = wf->conf;
	struct sched_params sp;
	size_t total = 0, m = 0;
	uint32_t max_factor = 0;
	uint64_t cpus = 0;
	int type;

	wf->nodes = xcalloc(c->node_count + 1, sizeof(*wf->nodes));
	for (size_t k = 0; k < c->node_count; k++) {
		wf->nodes[k] = (struct sched_node){.cpus = c->nodes[k].cpus,
		                                   .mem = c->nodes[k].real_memory,
		                                   .usable = 1,
		                                   .weight = c->nodes[k].weight};
		cpus += c->nodes[k].cpus;
	}
	for (size_t p = 0; p < c->part_count; p++)
		total += c->parts[p].node_count;
	wf->members = xcalloc(total + 1, sizeof(*wf->members));
	wf->groups = xcalloc(c->part_count + 1, sizeof(*wf->groups));
	wf->part_factor = xcalloc(c->part_count + 1, sizeof(uint32_t));
	wf->part_tier = xcalloc(c->part_count + 1, sizeof(uint32_t));
	for (size_t p = 0; p < c->part_count; p++) {
		size_t first = m;

		for (size_t k = 0; k < c->parts[p].node_count; k++) {
			const struct conf_node *cn =
			    conf_node_find(c, c->parts[p].node_names[k]);
			if (cn)
				wf->members[m++] = (uint32_t)(cn - c->nodes);
		}
		wf->groups[p] = (struct sched_group){&wf->members[first], m - first};
		wf->part_factor[p] = c->parts[p].priority_job_factor;
		wf->part_tier[p] = c->parts[p].priority_tier;
		if (c->parts[p].priority_job_factor > max_factor)
			max_factor = c->parts[p].priority_job_factor;
	}
	wf->cluster = (struct wn_cluster){.nodes = wf->nodes,
	                                  .nnodes = c->node_count,
	                                  .parts = wf->groups,
	                                  .nparts = c->part_count,
	                                  .part_factor = wf->part_factor,
	                                  .part_tier = wf->part_tier,
	                                  .mem_consumable = conf_mem_consumable(c)};
	sched_params_parse(c->scheduler_params, &sp);
	type = priority_type_parse(c->priority_type);
	wf->opts = (struct wn_opts){
	    .prio = {.type = type < 0 ? PRIORITY_BASIC : (enum priority_type)type,
	             .weight_age = c->prio_weight_age,
	             .weight_job_size = c->prio_weight_job_size,
	             .weight_partition = c->prio_weight_partition,
	             .max_age = c->prio_max_age * 60,
	             .favor_small = c->prio_favor_small,
	             .cluster_cpus = (uint32_t)cpus,
	             .cluster_nodes = (uint32_t)c->node_count,
	             .max_part_job_factor = max_factor},
	    .backfill =
	        !c->scheduler_type || !strcmp(c->scheduler_type, "sched/backfill"),
	    .bf_interval = sp.bf_interval,
	    .bf_max_job_test = sp.bf_max_job_test,
	    .bf_window = (int64_t)sp.bf_window * 60,
	    .bf_resolution = sp.bf_resolution,
	    .bf_predict = sp.bf_predict,
	    .part_reserve = sp.bf_part_reserve,
	    .saf_aged = sp.sched_order == SCHED_ORDER_SAF_AGED};
}

static const char *estimate_name(const struct wn_opts *o)
{
	return o->bf_predict == BF_ESTIMATE_PREDICT   ? "predict"
	       : o->bf_predict == BF_ESTIMATE_LEARNED ? "learned"
	                                              : "requested";
}

static int memchr_u32(const uint32_t *a, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] == v)
			return 1;
	return 0;
}

static uint64_t part_cpus(const struct whatif *wf, size_t p)
{
	uint64_t cpus = 0;

	for (size_t k = 0; k < wf->groups[p].count; k++)
		cpus += wf->nodes[wf->groups[p].members[k]].cpus;
	return cpus;
}

/* Which jobs are replayed; the others (counted) have pool -1. */
static void jobs_assign(struct whatif *wf, const struct sim_history *h)
{
	wf->w = xcalloc(h->n ? h->n : 1, sizeof(*wf->w));
	wf->n = h->n;
	for (size_t i = 0; i < h->n; i++) {
		const struct conf_part *p =
		    conf_part_find(wf->conf, h->jobs[i].partition);
		struct wjob *w = &wf->w[i];
		size_t pi;

		w->h = &h->jobs[i];
		w->pool = -1;
		if (!p) {
			wf->no_part++;
			continue;
		}
		pi = (size_t)(p - wf->conf->parts);
		w->pool = (int)pi;
		if (h->jobs[i].cpus > part_cpus(wf, pi) ||
		    h->jobs[i].nodes > wf->groups[pi].count) {
			w->pool = -1;
			wf->too_big++;
		}
	}
}

/* The nodes whose Features= satisfy the constraint spec (borrowed), shared
 * by every job that asks the same; NULL: any node (an expression rotactld
 * would have refused is not held against the job). */
static const uint8_t *features_mask(struct whatif *wf, const char *spec)
{
	struct rota_error err = {{0}};
	struct constraint *ct = NULL;
	uint8_t *m;

	if (!spec)
		return NULL;
	for (size_t i = 0; i < wf->nmasks; i++)
		if (!strcmp(wf->mask_key[i], spec))
			return wf->mask[i];
	if (constraint_parse(spec, &ct, &err) < 0)
		return NULL;
	m = xcalloc(wf->conf->node_count + 1, 1);
	for (size_t k = 0; k < wf->conf->node_count; k++)
		m[k] = (uint8_t)constraint_match_any(ct, wf->conf->nodes[k].features);
	constraint_destroy(ct);
	wf->mask_key = xrealloc(wf->mask_key, (wf->nmasks + 1) * sizeof(*wf->mask_key));
	wf->mask = xrealloc(wf->mask, (wf->nmasks + 1) * sizeof(*wf->mask));
	wf->mask_key[wf->nmasks] = spec;
	wf->mask[wf->nmasks++] = m;
	return m;
}

/* Users numbered for the predictor: ids[i] for jobs[i], equal names equal
 * numbers. */
static int user_cmp(const void *a, const void *b, void *ctx)
{
	const struct wjob *w = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return strcmp(w[x].h->user, w[y].h->user);
}

static int64_t *users_number(const struct whatif *wf)
{
	int64_t *ids = xcalloc(wf->n + 1, sizeof(*ids));
	size_t *ix = xcalloc(wf->n + 1, sizeof(*ix));
	int64_t next = -1;

	for (size_t i = 0; i < wf->n; i++)
		ix[i] = i;
	qsort_r(ix, wf->n, sizeof(*ix), user_cmp, wf->w);
	for (size_t k = 0; k < wf->n; k++) {
		if (!k || strcmp(wf->w[ix[k]].h->user, wf->w[ix[k - 1]].h->user))
			next++;
		ids[ix[k]] = next;
	}
	free(ix);
	return ids;
}

/* Replay the jobs on the nodes.  0 or -1 (printed). */
static int jobs_replay(struct whatif *wf)
{
	struct wn_job *wj = xcalloc(wf->n ? wf->n : 1, sizeof(*wj));
	size_t *idx = xcalloc(wf->n ? wf->n : 1, sizeof(*idx));
	int64_t *user = users_number(wf);
	size_t m = 0;
	int rc = 0;

	for (size_t i = 0; i < wf->n; i++) {
		const struct sim_hjob *j = wf->w[i].h;
		int64_t run = j->end - j->start;

		if (wf->w[i].pool < 0)
			continue;
		run = run > 0 ? run : 1;
		wj[m] = (struct wn_job){.id = j->id,
		                        .order = j->order,
		                        .submit = j->submit,
		                        .run = run,
		                        .limit = j->limit,
		                        .part = (uint32_t)wf->w[i].pool,
		                        .cpus = j->cpus ? j->cpus : 1,
		                        .nodes = j->nodes,
		                        .mask = features_mask(wf, j->features),
		                        .mem_per_node = j->mem_per_node,
		                        .mem_per_cpu = j->mem_per_cpu,
		                        .exclusive = j->exclusive,
		                        .user = user[i]};
		idx[m++] = i;
	}
	if (wn_replay(&wf->cluster, &wf->opts, wj, m, &wf->stats) < 0) {
		fprintf(stderr, "rota sim: error: out of memory\n");
		rc = -1;
	}
	for (size_t k = 0; k < m && !rc; k++) {
		wf->w[idx[k]].sim_start = wj[k].start;
		if (wj[k].start < 0) { /* it fits no node set of its partition */
			wf->w[idx[k]].pool = -1;
			wf->too_big++;
		}
	}
	free(wj);
	free(idx);
	free(user);
	return rc;
}

static double bsld(int64_t wait, int64_t run)
{
	double r = (double)(wait + run) /
	           (double)(run > REPLAY_BSLD_BOUND ? run : REPLAY_BSLD_BOUND);
	return r > 1 ? r : 1;
}

static void figures_add(struct figures *f, const struct wjob *w, int64_t tolerance)
{
	const struct sim_hjob *j = w->h;
	int64_t run = j->end - j->start,
	        wait[2] = {j->start - j->submit, w->sim_start - j->submit};

	f->jobs++;
	f->earlier += w->sim_start < j->start - tolerance;
	f->later += w->sim_start > j->start + tolerance;
	for (int k = 0; k < 2; k++) {
		f->wait[k] += (double)wait[k];
		f->bsld[k] += bsld(wait[k], run);
	}
	f->cpu_s += (double)run * j->cpus;
}

static struct figures *acct_figures(struct whatif *wf, const char *name)
{
	for (size_t i = 0; i < wf->naccts; i++)
		if (!strcmp(wf->accts[i].name, name))
			return &wf->accts[i];
	wf->accts = xrealloc(wf->accts, (wf->naccts + 1) * sizeof(*wf->accts));
	wf->accts[wf->naccts] = (struct figures){.name = name};
	return &wf->accts[wf->naccts++];
}

static void span_add(int64_t span[2], int first, int64_t submit, int64_t end)
{
	if (first || submit < span[0])
		span[0] = submit;
	if (first || end > span[1])
		span[1] = end;
}

static void figures_build(struct whatif *wf)
{
	const struct conf *c = wf->conf;
	int first = 1;

	wf->parts = xcalloc(c->part_count ? c->part_count : 1, sizeof(*wf->parts));
	for (size_t p = 0; p < c->part_count; p++) {
		wf->parts[p].name = c->parts[p].name;
		wf->parts[p].cpus = part_cpus(wf, p);
	}
	wf->all.name = "all";
	for (size_t k = 0; k < c->node_count; k++) /* the nodes of some partition */
		for (size_t p = 0; p < c->part_count; p++)
			if (memchr_u32(wf->groups[p].members, wf->groups[p].count,
			               (uint32_t)k)) {
				wf->all.cpus += wf->nodes[k].cpus;
				break;
			}
	for (size_t i = 0; i < wf->n; i++) {
		const struct wjob *w = &wf->w[i];
		const struct sim_hjob *j = w->h;
		const struct conf_part *p;
		int64_t run = j->end - j->start;

		if (w->pool < 0)
			continue;
		p = conf_part_find(c, j->partition);
		figures_add(&wf->parts[p - c->parts], w, wf->tolerance);
		figures_add(acct_figures(wf, j->account), w, wf->tolerance);
		figures_add(&wf->all, w, wf->tolerance);
		span_add(wf->span[0], first, j->submit, j->end);
		span_add(wf->span[1], first, j->submit, w->sim_start + run);
		first = 0;
	}
}

static double util(const struct whatif *wf, const struct figures *f, int k)
{
	int64_t span = wf->span[k][1] - wf->span[k][0];

	if (!f->cpus || span <= 0)
		return 0;
	return f->cpu_s / ((double)f->cpus * (double)span);
}

static double mean(double sum, size_t n)
{
	return n ? sum / (double)n : 0;
}

/* Moved jobs, largest moves first (then by id). */
static int moved_cmp(const void *a, const void *b)
{
	const struct wjob *x = *(const struct wjob *const *)a;
	const struct wjob *y = *(const struct wjob *const *)b;
	int64_t dx = llabs(x->sim_start - x->h->start);
	int64_t dy = llabs(y->sim_start - y->h->start);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x->h->id < y->h->id ? -1 : x->h->id > y->h->id;
}

struct moved {
	const struct wjob **list; /* moved jobs, sorted */
	size_t n, earlier, later, same;
};

static void moved_build(const struct whatif *wf, int64_t tolerance, struct moved *mv)
{
	mv->list = xcalloc(wf->n ? wf->n : 1, sizeof(*mv->list));
	for (size_t i = 0; i < wf->n; i++) {
		const struct wjob *w = &wf->w[i];
		int64_t d = w->sim_start - w->h->start;

		if (w->pool < 0)
			continue;
		if (d > tolerance)
			mv->later++;
		else if (d < -tolerance)
			mv->earlier++;
		else {
			mv->same++;
			continue;
		}
		mv->list[mv->n++] = w;
	}
	qsort(mv->list, mv->n, sizeof(*mv->list), moved_cmp);
}

static json_t *figures_json(const struct whatif *wf, const struct figures *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(f->name));
	json_object_set_new(o, "jobs", json_integer((json_int_t)f->jobs));
	json_object_set_new(o, "avg_wait_real", json_real(mean(f->wait[0], f->jobs)));
	json_object_set_new(o, "avg_wait", json_real(mean(f->wait[1], f->jobs)));
	json_object_set_new(o, "avg_bsld_real", json_real(mean(f->bsld[0], f->jobs)));
	json_object_set_new(o, "avg_bsld", json_real(mean(f->bsld[1], f->jobs)));
	json_object_set_new(o, "earlier", json_integer((json_int_t)f->earlier));
	json_object_set_new(o, "later", json_integer((json_int_t)f->later));
	if (f->cpus) {
		json_object_set_new(o, "cpus", json_integer((json_int_t)f->cpus));
		json_object_set_new(o, "utilization_real", json_real(util(wf, f, 0)));
		json_object_set_new(o, "utilization", json_real(util(wf, f, 1)));
	}
	return o;
}

static json_t *wjob_json(const struct wjob *w)
{
	json_t *o = json_object();

	json_object_set_new(o, "job_id", json_integer(w->h->id));
	json_object_set_new(o, "partition", json_string(w->h->partition));
	json_object_set_new(o, "account", json_string(w->h->account));
	json_object_set_new(o, "submit", json_integer(w->h->submit));
	json_object_set_new(o, "real_start", json_integer(w->h->start));
	json_object_set_new(o, "sim_start", json_integer(w->sim_start));
	json_object_set_new(o, "delta", json_integer(w->sim_start - w->h->start));
	return o;
}

/* What the replay modelled of the configuration's scheduler. */
static json_t *scheduler_json(const struct whatif *wf)
{
	json_t *o = json_object();

	json_object_set_new(o, "nodes", json_integer((json_int_t)wf->conf->node_count));
	json_object_set_new(o, "priority",
	                    json_string(wf->opts.prio.type == PRIORITY_MULTIFACTOR
	                                    ? "multifactor"
	                                    : "basic"));
	json_object_set_new(o, "backfill", json_boolean(wf->opts.backfill));
	json_object_set_new(o, "bf_interval", json_integer(wf->opts.bf_interval));
	json_object_set_new(o, "bf_window", json_integer(wf->opts.bf_window));
	json_object_set_new(o, "bf_resolution", json_integer(wf->opts.bf_resolution));
	json_object_set_new(o, "bf_max_job_test", json_integer(wf->opts.bf_max_job_test));
	json_object_set_new(o, "bf_estimate", json_string(estimate_name(&wf->opts)));
	json_object_set_new(o, "bf_job_part_count_reserve",
	                    json_integer(wf->opts.part_reserve));
	json_object_set_new(o, "sched_order",
	                    json_string(wf->opts.saf_aged ? "saf_aged" : "priority"));
	json_object_set_new(o, "passes", json_integer((json_int_t)wf->stats.passes));
	json_object_set_new(o, "bf_runs", json_integer((json_int_t)wf->stats.bf_runs));
	return o;
}

static void print_json(const struct sim_whatif_opts *o, const struct whatif *wf,
                       const struct sim_history *h, const struct moved *mv)
{
	json_t *j = json_object(), *a, *m;
	char *text;

	json_object_set_new(j, "source", json_string(o->source));
	json_object_set_new(j, "conf", json_string(o->conf_path));
	json_object_set_new(j, "policy", json_string("controller"));
	json_object_set_new(j, "scheduler", scheduler_json(wf));
	json_object_set_new(j, "jobs", json_integer((json_int_t)wf->all.jobs));
	json_object_set_new(j, "unfinished", json_integer((json_int_t)h->unfinished));
	json_object_set_new(j, "no_partition", json_integer((json_int_t)wf->no_part));
	json_object_set_new(j, "too_large", json_integer((json_int_t)wf->too_big));
	json_object_set_new(j, "total", figures_json(wf, &wf->all));
	a = json_array();
	for (size_t p = 0; p < wf->conf->part_count; p++)
		if (wf->parts[p].jobs)
			json_array_append_new(a, figures_json(wf, &wf->parts[p]));
	json_object_set_new(j, "partitions", a);
	a = json_array();
	for (size_t i = 0; i < wf->naccts; i++)
		json_array_append_new(a, figures_json(wf, &wf->accts[i]));
	json_object_set_new(j, "accounts", a);
	m = json_object();
	json_object_set_new(m, "tolerance", json_integer(o->tolerance));
	json_object_set_new(m, "earlier", json_integer((json_int_t)mv->earlier));
	json_object_set_new(m, "later", json_integer((json_int_t)mv->later));
	json_object_set_new(m, "unchanged", json_integer((json_int_t)mv->same));
	a = json_array();
	for (size_t i = 0; i < mv->n && i < o->top; i++)
		json_array_append_new(a, wjob_json(mv->list[i]));
	json_object_set_new(m, "top", a);
	json_object_set_new(j, "moved", m);
	a = json_array();
	for (size_t i = 0; i < wf->n; i++)
		if (wf->w[i].pool >= 0)
			json_array_append_new(a, wjob_json(&wf->w[i]));
	json_object_set_new(j, "replayed", a);
	text = json_dumps(j, JSON_COMPACT);
	if (text)
		printf("%s\n", text);
	free(text);
	json_decref(j);
}

static void figures_print(const struct whatif *wf, const char *kind,
                          const struct figures *f)
{
	printf("%-9s %-12s %6zu %9.1f %9.1f %8.3f %8.3f %7zu %7zu", kind, f->name,
	       f->jobs, mean(f->wait[0], f->jobs), mean(f->wait[1], f->jobs),
	       mean(f->bsld[0], f->jobs), mean(f->bsld[1], f->jobs), f->earlier,
	       f->later);
	if (f->cpus)
		printf(" %7.3f %7.3f", util(wf, f, 0), util(wf, f, 1));
	printf("\n");
}

static void print_plain(const struct sim_whatif_opts *o, const struct whatif *wf,
                        const struct sim_history *h, const struct moved *mv)
{
	printf("history:          %s\n", o->source);
	printf("configuration:    %s\n", o->conf_path);
	printf("policy:           controller (rotactld's pass and backfill) on "
	       "%zu nodes\n",
	       wf->conf->node_count);
	printf("priority:         %s\n",
	       wf->opts.prio.type == PRIORITY_MULTIFACTOR
	           ? "multifactor (age, job size, partition; no fairshare, no QOS)"
	           : "basic (first come, first served)");
	if (wf->opts.backfill)
		printf("backfill:         every %" PRIu32 " s (bf_interval), "
		       "bf_window=%" PRId64 " min, bf_resolution=%" PRId64
		       " s, bf_max_job_test=%" PRIu32 ", bf_estimate=%s, "
		       "bf_job_part_count_reserve=%" PRIu32
		       ", sched_order=%s; %zu runs\n",
		       wf->opts.bf_interval, wf->opts.bf_window / 60,
		       wf->opts.bf_resolution, wf->opts.bf_max_job_test,
		       estimate_name(&wf->opts), wf->opts.part_reserve,
		       wf->opts.saf_aged ? "saf_aged" : "priority", wf->stats.bf_runs);
	else
		printf("backfill:         none (SchedulerType is not sched/backfill)\n");
	printf("jobs:             %zu replayed (left out: %zu unfinished, %zu of "
	       "unknown partitions, %zu too large)\n",
	       wf->all.jobs, h->unfinished, wf->no_part, wf->too_big);
	printf("%-22s %6s %9s %9s %8s %8s %7s %7s %7s %7s\n", "", "jobs", "wait", "wait",
	       "bsld", "bsld", "started", "started", "util", "util");
	printf("%-22s %6s %9s %9s %8s %8s %7s %7s %7s %7s\n", "", "", "real(s)", "sim(s)",
	       "real", "sim", "earlier", "later", "real", "sim");
	for (size_t p = 0; p < wf->conf->part_count; p++)
		if (wf->parts[p].jobs)
			figures_print(wf, "partition", &wf->parts[p]);
	for (size_t i = 0; i < wf->naccts; i++)
		figures_print(wf, "account", &wf->accts[i]);
	figures_print(wf, "total", &wf->all);
	printf("moved:            %zu earlier, %zu later, %zu unchanged (within "
	       "%" PRId64 " s)\n",
	       mv->earlier, mv->later, mv->same, o->tolerance);
	for (size_t i = 0; i < mv->n && i < o->top; i++) {
		const struct wjob *w = mv->list[i];
		int64_t d = w->sim_start - w->h->start;

		printf("  JobId=%u %s by %" PRId64 " s (partition %s, account %s)\n",
		       w->h->id, d > 0 ? "later" : "earlier", d > 0 ? d : -d,
		       w->h->partition, *w->h->account ? w->h->account : "-");
	}
}

int sim_whatif_run(const struct sim_whatif_opts *o, const struct sim_history *h,
                   const struct conf *conf)
{
	struct whatif wf = {.conf = conf, .tolerance = o->tolerance};
	struct moved mv = {0};
	int rc = 1;

	cluster_build(&wf);
	jobs_assign(&wf, h);
	if (jobs_replay(&wf) < 0)
		goto out;
	figures_build(&wf);
	moved_build(&wf, o->tolerance, &mv);
	if (o->json)
		print_json(o, &wf, h, &mv);
	else
		print_plain(o, &wf, h, &mv);
	rc = 0;
out:
	free(mv.list);
	free(wf.nodes);
	free(wf.groups);
	free(wf.members);
	free(wf.part_factor);
	free(wf.part_tier);
	for (size_t i = 0; i < wf.nmasks; i++)
		free(wf.mask[i]);
	free(wf.mask);
	free(wf.mask_key);
	free(wf.w);
	free(wf.parts);
	free(wf.accts);
	return rc;
}
