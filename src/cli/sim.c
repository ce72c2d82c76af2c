/* sim.c - `rota sim TRACE.swf`: replay a Standard Workload Format trace (plain
 * or gzip) through src/sched in virtual time and print what the users would
 * have seen: utilization, wait, bounded slowdown, makespan.
 *
 * DESIGN: this file only does the I/O.  Lines are read with zlib's gzgets
 * (which reads plain files as they are) and parsed by sched/swf.c; jobs are
 * cleaned as the literature does unless --no-filter; sched/replay.c runs the
 * events; the figures and the optional simulated SWF are written here.
 * Unfiltered, a job without a requested time (synthetic traces such as
 * Lublin's have none) is planned as if it had asked for its runtime.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <time.h>
#include "cli/acct_time.h"
#include "cli/sim.h"
#include "cli/sim_history.h"
#include "cli/sim_whatif.h"
#include "common/conf.h"
#include "common/schedparams.h"
#include "sched/replay.h"
#include "sched/topo.h"
#include "sched/swf.h"
#include "common/common.h"

#define SIM_MAX_JOBS 50000000 /* a trace larger than this is refused */

struct sim_opts {
	const char *trace;
	const char *out;
	int64_t procs; /* 0: the header's MaxProcs */
	enum policy_kind policy;
	const char *policy_name; /* as given: "easy-pred" is easy + user-mean2 */
	enum predict_kind estimates;
	enum predict_correction correction;
	int estimates_set;
	int correction_set;
	int json;
	int no_filter;
	const char *topology; /* --topology FILE */
	uint32_t node_cpus;   /* --node-cpus, 1 */
	int by_index;         /* --placement index */
	/* what-if on this cluster's history (sim_whatif.h) */
	const char *journal_dir;  /* --from-journal STATE_DIR */
	int from_acct;            /* --from-accounting */
	const char *acct_start;   /* -S, --starttime (sacct's forms) */
	const char *acct_end;     /* -E, --endtime */
	const char *export_swf;   /* --export-swf FILE */
	const char *conf_path;    /* --conf FILE; NULL: the cluster's own */
	size_t top;               /* --top N moved jobs listed */
	int64_t tolerance;        /* --tolerance S */
	const char *sched_params; /* --scheduler-params (controller policy) */
	uint32_t part_reserve;    /* from it: bf_job_part_count_reserve */
	int saf_aged;             /* from it: sched_order=saf_aged */
};

struct sim_trace {
	struct swf_job *jobs;
	size_t n, cap;
	int64_t max_procs; /* header MaxProcs, else MaxNodes, else 0 */
	int64_t max_nodes;
	size_t dropped[SWF_DROP_COUNT];
};

static void sim_usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: rota sim TRACE.swf[.gz] [--procs P] [--policy POLICY]\n"
	    "                [--estimates requested|exact|user-mean2|learned]\n"
	    "                [--correction double|requested|increment] [--json]\n"
	    "                [--out FILE] [--no-filter]\n"
	    "                [--topology FILE [--node-cpus C] [--placement P]]\n"
	    "Replay a Standard Workload Format trace through Rota's scheduler in\n"
	    "virtual time.\n"
	    "  -p, --procs P        machine size (default: the trace's MaxProcs)\n"
	    "  -P, --policy POLICY  fcfs, easy (default), conservative, easy-sjbf\n"
	    "                       (EASY, shortest backfill candidate first),\n"
	    "                       controller (rotactld's backfill: conservative\n"
	    "                       on one-processor nodes; slower);\n"
	    "                       easy-pred and easy++ are easy and easy-sjbf\n"
	    "                       with --estimates user-mean2; easy-saf, easy-sjf,\n"
	    "                       easy-wfp3, easy-unicef, easy-f1, easy-saf-aged:\n"
	    "                       EASY with the queue ordered by a priority from\n"
	    "                       the estimates (see policy.h); best (recommended)\n"
	    "                       is easy-saf-aged with --estimates learned\n"
	    "                       --correction requested; best-sjbf the same with\n"
	    "                       easy-sjbf (best before 2026-12-03)\n"
	    "  -e, --estimates E    what the scheduler plans with: requested (the\n"
	    "                       user's requested time, default), exact (the real\n"
	    "                       runtime), user-mean2 (mean of the user's last two\n"
	    "                       runtimes), learned (on-line regression)\n"
	    "  -c, --correction C   when a job outlives its estimate: double it\n"
	    "                       (default), use the requested time, or add\n"
	    "                       1 min, 5 min, 15 min ... (increment)\n"
	    "  -j, --json           print one JSON object\n"
	    "  -o, --out FILE       write the simulated schedule as SWF (field 3 = "
	    "wait)\n"
	    "  -n, --no-filter      replay the trace as it is (no cleaning)\n"
	    "  -T, --topology FILE  controller policy on nodes n1..nN placed by\n"
	    "                       switch (a topology.conf: SwitchName= or\n"
	    "                       BlockName= lines); reports leaf switches per\n"
	    "                       multi-node job\n"
	    "  -C, --node-cpus C    with --topology: nodes of C processors\n"
	    "                       (procs / C nodes; default 1)\n"
	    "      --placement P    with --topology: switch (default) or index\n"
	    "                       (as without a topology; leaves still counted)\n"
	    "  -s, --scheduler-params S  with --policy controller: what rotactld\n"
	    "                       does under SchedulerParameters=S:\n"
	    "                       bf_job_part_count_reserve, sched_order and\n"
	    "                       bf_estimate (for the estimates, unless\n"
	    "                       --estimates is given); bf_estimate=best is\n"
	    "                       --policy best's rule on the controller's passes\n"
	    "\n"
	    "       rota sim --from-journal STATE_DIR | --from-accounting [-S T] [-E T]\n"
	    "                [--conf slurm.conf] [--json]\n"
	    "                [--top N] [--tolerance S] [--export-swf FILE]\n"
	    "Replay this cluster's own finished jobs (read from the controller's\n"
	    "journal, offline, or asked of rotadbd) through rotactld's scheduling\n"
	    "pass under a configuration, and compare with what happened: per\n"
	    "partition and per account waits, bounded slowdown, utilization, and\n"
	    "which jobs would have started earlier or later.\n"
	    "  -J, --from-journal DIR  the controller's StateSaveLocation\n"
	    "  -A, --from-accounting   the jobs sacct -X lists for the period:\n"
	    "  -S, --starttime T    (sacct's time forms; default today 00:00)\n"
	    "  -E, --endtime T      (default now)\n"
	    "  -f, --conf FILE      the configuration to replay under (nodes and\n"
	    "                       their CPUs, memory, features; partitions;\n"
	    "                       priority weights; SchedulerType and bf_*\n"
	    "                       parameters; default: the cluster's slurm.conf)\n"
	    "  -t, --top N          moved jobs listed, largest moves first (10)\n"
	    "      --tolerance S    a start moved by at most S seconds is unchanged\n"
	    "                       (default 1: the controller's time resolution)\n"
	    "  -X, --export-swf FILE  also write the history as SWF\n");
}

/* Policies that also choose the estimates (and the correction, unless
 * --correction is given): EASY planning with predictions.  "best" is the one
 * doc/sim-results.md recommends; rotactld plans with its estimates under
 * SchedulerParameters=bf_estimate=learned, in its own queue order. */
static const struct {
	const char *name;
	enum policy_kind policy;
	enum predict_kind estimates;
	enum predict_correction correction;
} predicting[] = {
    {"easy-pred", POLICY_EASY, PREDICT_USER_MEAN2, PREDICT_CORRECT_DOUBLE},
    {"easy++", POLICY_EASY_SJBF, PREDICT_USER_MEAN2, PREDICT_CORRECT_DOUBLE},
    {"best", POLICY_EASY_SAF_AGED, PREDICT_LEARNED, PREDICT_CORRECT_REQUESTED},
    {"best-sjbf", POLICY_EASY_SJBF, PREDICT_LEARNED, PREDICT_CORRECT_REQUESTED},
};

static int parse_policy(const char *s, struct sim_opts *o)
{
	for (size_t i = 0; i < sizeof(predicting) / sizeof(predicting[0]); i++) {
		if (strcmp(s, predicting[i].name))
			continue;
		if (o->estimates_set && o->estimates != predicting[i].estimates)
			return -EINVAL;
		o->policy = predicting[i].policy;
		o->estimates = predicting[i].estimates;
		o->estimates_set = 1;
		if (!o->correction_set)
			o->correction = predicting[i].correction;
		return 0;
	}
	return policy_kind_parse(s, &o->policy);
}

/* --scheduler-params: what rotactld's passes do under these
 * SchedulerParameters, for --policy controller.  0 or -1 (printed). */
static int sim_sched_params(struct sim_opts *o)
{
	struct sched_params sp;

	if (o->policy != POLICY_CONTROLLER) {
		fprintf(stderr, "rota sim: error: --scheduler-params goes with --policy "
		                "controller\n");
		return -1;
	}
	sched_params_parse(o->sched_params, &sp);
	o->part_reserve = sp.bf_part_reserve;
	o->saf_aged = sp.sched_order == SCHED_ORDER_SAF_AGED;
	if (o->estimates_set)
		return 0;
	/* rotactld's estimates (src/ctld/backfill.c): corrected to the limit
	 * when outlived for bf_estimate=learned (as --policy best); doubled
	 * for predict (its predictor's own correction) */
	if (sp.bf_predict == BF_ESTIMATE_LEARNED) {
		o->estimates = PREDICT_LEARNED;
		if (!o->correction_set)
			o->correction = PREDICT_CORRECT_REQUESTED;
	} else if (sp.bf_predict == BF_ESTIMATE_PREDICT) {
		o->estimates = PREDICT_USER_MEAN2;
	}
	return 0;
}

/* 0 to run, 1 for --help (exit 0), -1 on a usage error (message printed). */
static int sim_parse_args(int argc, char **argv, struct sim_opts *o)
{
	static const struct option lopts[] = {
	    {"procs", required_argument, NULL, 'p'},
	    {"policy", required_argument, NULL, 'P'},
	    {"estimates", required_argument, NULL, 'e'},
	    {"correction", required_argument, NULL, 'c'},
	    {"json", no_argument, NULL, 'j'},
	    {"out", required_argument, NULL, 'o'},
	    {"no-filter", no_argument, NULL, 'n'},
	    {"topology", required_argument, NULL, 'T'},
	    {"node-cpus", required_argument, NULL, 'C'},
	    {"placement", required_argument, NULL, 'L'},
	    {"from-journal", required_argument, NULL, 'J'},
	    {"from-accounting", no_argument, NULL, 'A'},
	    {"starttime", required_argument, NULL, 'S'},
	    {"endtime", required_argument, NULL, 'E'},
	    {"export-swf", required_argument, NULL, 'X'},
	    {"conf", required_argument, NULL, 'f'},
	    {"top", required_argument, NULL, 't'},
	    {"tolerance", required_argument, NULL, 'O'},
	    {"scheduler-params", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *policy = NULL;
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:P:e:c:jo:nT:C:J:AS:E:X:f:t:s:h", lopts,
	                        NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			o->procs = strtoll(optarg, &end, 10);
			if (errno || *end || o->procs < 1 || o->procs > UINT32_MAX) {
				fprintf(stderr, "rota sim: error: invalid --procs '%s'\n",
				        optarg);
				return -1;
			}
			break;
		case 'P':
			policy = optarg;
			break;
		case 'e':
			if (predict_kind_parse(optarg, &o->estimates) < 0) {
				fprintf(stderr,
				        "rota sim: error: invalid --estimates '%s'\n",
				        optarg);
				return -1;
			}
			o->estimates_set = 1;
			break;
		case 'c':
			if (predict_correction_parse(optarg, &o->correction) < 0) {
				fprintf(stderr,
				        "rota sim: error: invalid --correction '%s'\n",
				        optarg);
				return -1;
			}
			o->correction_set = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'n':
			o->no_filter = 1;
			break;
		case 'T':
			o->topology = optarg;
			break;
		case 'L':
			if (strcmp(optarg, "switch") && strcmp(optarg, "index")) {
				fprintf(stderr,
				        "rota sim: error: invalid --placement '%s'\n",
				        optarg);
				return -1;
			}
			o->by_index = !strcmp(optarg, "index");
			break;
		case 'C':
			errno = 0;
			o->node_cpus = (uint32_t)strtoul(optarg, &end, 10);
			if (errno || *end || !o->node_cpus || o->node_cpus > 4096) {
				fprintf(stderr,
				        "rota sim: error: invalid --node-cpus '%s'\n",
				        optarg);
				return -1;
			}
			break;
		case 'J':
			o->journal_dir = optarg;
			break;
		case 'A':
			o->from_acct = 1;
			break;
		case 'S':
			o->acct_start = optarg;
			break;
		case 'E':
			o->acct_end = optarg;
			break;
		case 'X':
			o->export_swf = optarg;
			break;
		case 'f':
			o->conf_path = optarg;
			break;
		case 's':
			o->sched_params = optarg;
			break;
		case 't':
		case 'O': {
			long long v;
			errno = 0;
			v = strtoll(optarg, &end, 10);
			if (errno || *end || v < 0 || v > INT32_MAX) {
				fprintf(stderr, "rota sim: error: invalid --%s '%s'\n",
				        c == 't' ? "top" : "tolerance", optarg);
				return -1;
			}
			if (c == 't')
				o->top = (size_t)v;
			else
				o->tolerance = v;
			break;
		}
		case 'h':
			return 1;
		default:
			return -1;
		}
	}
	if (policy)
		o->policy_name = policy;
	if (policy && parse_policy(policy, o) < 0) {
		fprintf(
		    stderr,
		    "rota sim: error: invalid --policy '%s' (with these --estimates)\n",
		    policy);
		return -1;
	}
	if (o->sched_params && sim_sched_params(o) < 0)
		return -1;
	if ((o->acct_start || o->acct_end) && !o->from_acct) {
		fprintf(stderr, "rota sim: error: -S and -E go with --from-accounting\n");
		return -1;
	}
	if (o->journal_dir || o->from_acct) {
		if (optind != argc || (o->journal_dir && o->from_acct)) {
			fprintf(stderr, "rota sim: error: --from-journal or "
			                "--from-accounting, and no trace file\n");
			return -1;
		}
		return 0;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rota sim: error: expected exactly one trace file\n");
		return -1;
	}
	o->trace = argv[optind];
	return 0;
}

static int trace_add(struct sim_trace *t, const struct swf_job *job)
{
	if (t->n == t->cap) {
		if (t->cap >= SIM_MAX_JOBS)
			return -E2BIG;
		t->cap = t->cap ? t->cap * 2 : 4096;
		t->jobs = xrealloc(t->jobs, t->cap * sizeof(*t->jobs));
	}
	t->jobs[t->n++] = *job;
	return 0;
}

/* Read every job line and the MaxProcs/MaxNodes headers.  0 or -1 (printed). */
static int trace_read(const char *path, struct sim_trace *t)
{
	char line[SWF_MAX_LINE];
	struct rota_error err = {{0}};
	gzFile f = gzopen(path, "rbe");
	long lineno = 0;
	int rc = -1;

	if (!f) {
		fprintf(stderr, "rota sim: error: %s: %s\n", path,
		        strerror(errno ? errno : EIO));
		return -1;
	}
	while (gzgets(f, line, sizeof(line))) {
		struct swf_job job;
		size_t len = strlen(line);
		int r;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			fprintf(stderr, "rota sim: error: %s:%ld: line too long\n", path,
			        lineno);
			goto out;
		}
		if (swf_header_int(line, "MaxProcs", &t->max_procs) ||
		    swf_header_int(line, "MaxNodes", &t->max_nodes))
			continue;
		r = swf_parse_line(line, &job, &err);
		if (r < 0) {
			fprintf(stderr, "rota sim: error: %s:%ld: %s\n", path, lineno,
			        err.text);
			goto out;
		}
		if (r > 0 && trace_add(t, &job) < 0) {
			fprintf(stderr, "rota sim: error: %s: more than %d jobs\n", path,
			        SIM_MAX_JOBS);
			goto out;
		}
	}
	if (!gzeof(f)) {
		int zerr;
		fprintf(stderr, "rota sim: error: %s: %s\n", path, gzerror(f, &zerr));
		goto out;
	}
	rc = 0;
out:
	gzclose(f);
	return rc;
}

/* Clean (unless --no-filter) and keep the runnable jobs at the front. */
static void trace_clean(struct sim_trace *t, int64_t procs, int no_filter)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++) {
		enum swf_drop why = no_filter ? SWF_KEEP : swf_clean(&t->jobs[i], procs);

		t->dropped[why]++;
		if (why == SWF_KEEP)
			t->jobs[k++] = t->jobs[i];
	}
	t->n = k;
}

static struct replay_job *trace_to_replay(const struct sim_trace *t)
{
	struct replay_job *rj = xcalloc(t->n ? t->n : 1, sizeof(*rj));

	for (size_t i = 0; i < t->n; i++) {
		const struct swf_job *j = &t->jobs[i];
		int64_t procs = swf_procs(j);

		rj[i] = (struct replay_job){
		    .id = j->id,
		    .submit = j->submit,
		    .run = j->run,
		    .req = j->req_time > 0 ? j->req_time : j->run, /* unfiltered only */
		    .user = j->user,
		    .procs = procs > 0 && procs <= UINT32_MAX ? (uint32_t)procs : 0,
		};
	}
	return rj;
}

static int write_out(const char *path, const struct sim_opts *o, struct sim_trace *t,
                     const struct replay_job *rj)
{
	char line[SWF_MAX_LINE];
	FILE *f = fopen(path, "we");

	if (!f) {
		fprintf(stderr, "rota sim: error: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "; Computer: rota sim (policy %s, estimates %s)\n",
	        policy_kind_name(o->policy), predict_kind_name(o->estimates));
	fprintf(f, "; MaxProcs: %" PRId64 "\n; MaxJobs: %zu\n", o->procs, t->n);
	fprintf(f, "; Note: field 3 is the simulated wait time\n");
	for (size_t i = 0; i < t->n; i++) {
		t->jobs[i].wait = rj[i].start - rj[i].submit;
		swf_format_line(&t->jobs[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	if (fclose(f)) {
		fprintf(stderr, "rota sim: error: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static size_t dropped_total(const struct sim_trace *t)
{
	size_t dropped = 0;

	for (int i = 1; i < SWF_DROP_COUNT; i++)
		dropped += t->dropped[i];
	return dropped;
}

/* One JSON object: the keys the issue names first, then the extras. */
static void print_json(const struct sim_opts *o, const struct sim_trace *t,
                       const struct replay_stats *st)
{
	json_t *j = json_object();
	char *text;

	json_object_set_new(j, "jobs", json_integer((json_int_t)st->jobs));
	json_object_set_new(j, "utilization", json_real(st->utilization));
	json_object_set_new(j, "avg_wait", json_real(st->avg_wait));
	json_object_set_new(j, "avg_bsld", json_real(st->avg_bsld));
	json_object_set_new(j, "makespan", json_integer(st->makespan));
	json_object_set_new(j, "avg_response", json_real(st->avg_response));
	json_object_set_new(j, "max_wait", json_real(st->max_wait));
	json_object_set_new(j, "dropped", json_integer((json_int_t)dropped_total(t)));
	json_object_set_new(j, "procs", json_integer(o->procs));
	json_object_set_new(j, "policy", json_string(o->policy_name));
	json_object_set_new(j, "estimates", json_string(predict_kind_name(o->estimates)));
	json_object_set_new(j, "correction",
	                    json_string(predict_correction_name(o->correction)));
	json_object_set_new(j, "corrections", json_integer((json_int_t)st->corrections));
	json_object_set_new(j, "passes", json_integer((json_int_t)st->passes));
	if (o->topology) {
		json_object_set_new(j, "placement",
		                    json_string(o->by_index ? "index" : "switch"));
		json_object_set_new(j, "multi_node_jobs",
		                    json_integer((json_int_t)st->multi_jobs));
		json_object_set_new(j, "avg_leaf_switches",
		                    json_real(st->multi_jobs ? (double)st->multi_leaves /
		                                                   (double)st->multi_jobs
		                                             : 0));
	}
	text = json_dumps(j, JSON_COMPACT);
	if (text)
		printf("%s\n", text);
	free(text);
	json_decref(j);
}

static void print_plain(const struct sim_opts *o, const struct sim_trace *t,
                        const struct replay_stats *st)
{
	printf("trace:            %s\n", o->trace);
	printf("policy:           %s (%s; estimates: %s, correction: %s)\n",
	       o->policy_name, policy_kind_name(o->policy),
	       predict_kind_name(o->estimates), predict_correction_name(o->correction));
	printf("processors:       %" PRId64 "\n", o->procs);
	printf("jobs:             %zu (%zu dropped by cleaning", st->jobs,
	       dropped_total(t));
	for (int i = 1; i < SWF_DROP_COUNT; i++) {
		if (t->dropped[i])
			printf("; %s: %zu", swf_drop_name((enum swf_drop)i),
			       t->dropped[i]);
	}
	printf(")\n");
	printf("utilization:      %.4f\n", st->utilization);
	printf("average wait:     %.1f s\n", st->avg_wait);
	printf("average response: %.1f s (wait + run)\n", st->avg_response);
	printf("average bsld:     %.4f (bounded slowdown, %d s)\n", st->avg_bsld,
	       REPLAY_BSLD_BOUND);
	printf("makespan:         %" PRId64 " s\n", st->makespan);
	if (o->topology)
		printf("leaf switches:    %.3f per multi-node job (%" PRIu64
		       " jobs; %s, placed by %s)\n",
		       st->multi_jobs ? (double)st->multi_leaves / (double)st->multi_jobs
		                      : 0,
		       st->multi_jobs, o->topology, o->by_index ? "index" : "switch");
}

static int sim_run(struct sim_opts *o, struct sim_trace *t)
{
	struct rota_error err = {{0}};
	struct replay_opts ro;
	struct replay_stats st;
	struct replay_job *rj;
	struct sched_topo *topo = NULL;
	int rc = 1;

	if (trace_read(o->trace, t) < 0)
		return 1;
	if (!o->procs)
		o->procs = t->max_procs > 0 ? t->max_procs : t->max_nodes;
	if (o->procs < 1 || o->procs > UINT32_MAX) {
		fprintf(stderr,
		        "rota sim: error: %s has no MaxProcs header; give --procs\n",
		        o->trace);
		return 2;
	}
	trace_clean(t, o->procs, o->no_filter);
	if (o->topology) {
		uint32_t c = o->node_cpus ? o->node_cpus : 1;
		if (o->policy != POLICY_CONTROLLER || o->procs % c) {
			fprintf(stderr,
			        "rota sim: error: --topology needs --policy "
			        "controller and --procs a multiple of --node-cpus\n");
			return 2;
		}
		if (!(topo = sim_topo_load(o->topology, (size_t)(o->procs / c))))
			return 2;
	}
	rj = trace_to_replay(t);
	ro = (struct replay_opts){.procs = o->procs,
	                          .policy = o->policy,
	                          .estimates = o->estimates,
	                          .correction = o->correction,
	                          .topo = topo,
	                          .node_cpus = o->node_cpus,
	                          .topo_blind = o->by_index,
	                          .part_reserve = o->part_reserve,
	                          .saf_aged = o->saf_aged};
	if (replay_run(&ro, rj, t->n, &st, &err) < 0) {
		fprintf(stderr, "rota sim: error: %s%s\n", err.text,
		        o->no_filter ? " (try without --no-filter)" : "");
		goto out;
	}
	if (o->out && write_out(o->out, o, t, rj) < 0)
		goto out;
	if (o->json)
		print_json(o, t, &st);
	else
		print_plain(o, t, &st);
	rc = 0;
out:
	free(rj);
	sched_topo_destroy(topo);
	return rc;
}

/* The partition a job without one went to: the configuration's default. */
static void history_resolve(struct sim_history *h, const struct conf *conf)
{
	const struct conf_part *def = conf_part_default(conf);

	for (size_t i = 0; i < h->n; i++)
		if (!h->jobs[i].partition)
			h->jobs[i].partition = xstrdup(def ? def->name : "(default)");
}

static int export_swf(const char *path, const struct sim_history *h,
                      const struct conf *conf)
{
	FILE *f = fopen(path, "we");
	int64_t cpus = 0;
	int rc;

	if (!f) {
		fprintf(stderr, "rota sim: error: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < conf->node_count; i++)
		cpus += conf->nodes[i].cpus;
	rc = sim_history_write_swf(h, cpus, f);
	if (fclose(f) || rc < 0) {
		fprintf(stderr, "rota sim: error: %s: %s\n", path, strerror(EIO));
		return -1;
	}
	return 0;
}

static char *history_source(const struct sim_opts *o)
{
	if (!o->from_acct)
		return xasprintf("journal %s", o->journal_dir);
	return xasprintf("accounting, -S %s -E %s",
	                 o->acct_start ? o->acct_start : "today",
	                 o->acct_end ? o->acct_end : "now");
}

/* --from-journal or --from-accounting: read, export, replay under the
 * configuration. */
static int sim_run_history(const struct sim_opts *o)
{
	struct rota_error err = {{0}};
	struct sim_history h = {0};
	struct conf *conf = NULL;
	const char *conf_path = o->conf_path ? o->conf_path : conf_default_path();
	char *source = history_source(o);
	struct sim_whatif_opts wo = {.source = source,
	                             .conf_path = conf_path,
	                             .json = o->json,
	                             .top = o->top,
	                             .tolerance = o->tolerance};
	int rc = 1;

	if (conf_load(conf_path, &conf, &err) < 0) {
		fprintf(stderr, "rota sim: error: %s\n", err.text);
		goto out;
	}
	if (o->from_acct) {
		time_t now = time(NULL);
		int64_t start =
		    acct_time_arg("start", o->acct_start ? o->acct_start : "today", now);
		int64_t end = o->acct_end ? acct_time_arg("end", o->acct_end, now) : 0;

		if (sim_history_from_accounting(start, end, &h))
			goto out;
	} else if (sim_history_from_journal(o->journal_dir, &h, &err) < 0) {
		fprintf(stderr, "rota sim: error: %s\n", err.text);
		goto out;
	}
	history_resolve(&h, conf);
	if (o->export_swf && export_swf(o->export_swf, &h, conf) < 0)
		goto out;
	rc = sim_whatif_run(&wo, &h, conf);
out:
	sim_history_release(&h);
	conf_destroy(conf);
	free(source);
	return rc;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o = {.policy = POLICY_EASY,
	                     .policy_name = "easy",
	                     .estimates = PREDICT_REQUESTED,
	                     .top = 10,
	                     .tolerance = 1};
	struct sim_trace t = {0};
	int rc = sim_parse_args(argc, argv, &o);

	if (rc > 0) {
		sim_usage(stdout);
		return 0;
	}
	if (rc < 0) {
		if (argc <= 1)
			sim_usage(stderr);
		else
			fprintf(stderr, "Try 'rota sim --help' for more information.\n");
		return 2;
	}
	if (o.journal_dir || o.from_acct)
		return sim_run_history(&o);
	rc = sim_run(&o, &t);
	free(t.jobs);
	return rc;
}
