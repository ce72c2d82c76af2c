/* squeue.c - list jobs as Slurm's squeue does.
 *
 * One MSG_JOB_INFO_REQ (for just that job when a single -j id is given), then
 * filter, sort and print here.  Without -t or -j only jobs that are not finished
 * are shown.  The default sort is Slurm's "P,t,-p": partition, state code (so
 * "CG" < "PD" < "R"), then priority high to low; job id breaks ties.  As in
 * Slurm, the pending tasks split off an array are shown in its pending row
 * unless -r or --array-unique; -P ranks p and Q by partition PriorityTier
 * first.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/ranksort.h"
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/fmtspec.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "proto/jsonw.h"
#include "proto/slurm_json.h"
#include "proto/joblist.h"
#include "common/common.h"

#define SQUEUE_STEPS_FMT "%.15i %.8j %.9P %.8u %.9M %N"

/* The -i step format needs "STEPID" under %i. */
static const struct fmt_field step_fields[] = {
    {'i', 'i', NULL, "STEPID", 0},     {'j', 'j', NULL, "NAME", 0},
    {'P', 'P', NULL, "PARTITION", 0},  {'u', 'u', NULL, "USER", 0},
    {'M', 'M', NULL, "TIME", 0},       {'N', 'N', NULL, "NODELIST", FMTSPEC_NOCUT},
    {'l', 'l', NULL, "TIME_LIMIT", 0}, {'A', 'A', NULL, "NTASKS", 0},
    {'U', 'U', NULL, "UID", 0},        {'S', 'S', NULL, "START_TIME", 0},
};

struct squeue_opts {
	int noheader, long_list, start, steps, json, verbose, all_states;
	int array_expand; /* -r: one line per pending array task */
	int array_unique; /* --array-unique: split pending tasks apart */
	int part_prio;    /* -P: a row per partition, PriorityTier ranks */
	unsigned iterate;
	const char *format, *long_format, *sort;
	int job_flag;
	uint32_t *job_ids;
	size_t njob_ids;
	uint32_t *uids;
	size_t nuids;
	char **names, **parts, **accounts, **qos, **nodes, **licenses;
	uint32_t *states;
	size_t nstates;
	char *reservation; /* -R: jobs of this reservation */
	/* parsing SQUEUE_* (cli_env_argv); the lists they set, which the
	 * command line then replaces rather than adds to */
	int in_env, env_users, env_states;
};

struct squeue_ctx {
	time_t now;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
	    "              [-n name] [-o format] [-O fields] [-p partitions]\n"
	    "              [--qos qos] [-R reservation] [--sort fields] [--start]\n"
	    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
	    "              [-L licenses] [-w nodes] [--json|--yaml] [-ahjlrsv]\n");
}

static void __attribute__((noreturn)) help(void)
{
	usage(stdout);
	printf("\n"
	       "  -A, --account=accounts   only jobs charged to these accounts\n"
	       "  -h, --noheader           no header line\n"
	       "  -i, --iterate=seconds    repeat every so many seconds\n"
	       "  -j, --jobs=job_ids       only these jobs (comma-separated)\n"
	       "      --json               the whole answer as JSON\n"
	       "      --yaml               the same as YAML\n"
	       "  -l, --long               more columns\n"
	       "      --me                 only my jobs\n"
	       "  -n, --name=names         only jobs with these names\n"
	       "  -o, --format=format      columns as %%[.][size]type[suffix]\n"
	       "  -O, --Format=fields      columns as Field[:[.][size][suffix]],...\n"
	       "  -p, --partition=parts    only jobs in these partitions\n"
	       "  -q, --qos=qos            only jobs with these QOS\n"
	       "  -P, --priority           a pending job once per partition; -S p, Q\n"
	       "                           rank by the partition's PriorityTier first\n"
	       "  -r, --array              one array task per line\n"
	       "      --array-unique       split-off pending array tasks on own lines\n"
	       "  -s, --steps              job steps instead of jobs\n"
	       "  -S, --sort=fields        sort order, e.g. \"P,t,-p\"\n"
	       "      --start              expected start times of pending jobs\n"
	       "  -t, --states=states      only jobs in these states, or \"all\"\n"
	       "  -u, --user=users         only jobs of these users (names or uids)\n"
	       "  -w, --nodelist=hosts     only jobs on these nodes\n"
	       "  -v, --verbose            say more\n"
	       "  -V, --version            print the version\n"
	       "\nHelp options:\n"
	       "      --help               show this help message\n"
	       "      --usage              display brief usage message\n");
	exit(0);
}

static const char *str_or_null(const char *s)
{
	return s ? s : "(null)";
}

/* "name = a,b,c" ((null) when unset). */
static void print_strv(const char *name, char *const *v)
{
	printf("%-11s =", name);
	for (size_t i = 0; v && v[i]; i++)
		printf("%s%s", i ? "," : " ", v[i]);
	printf("%s\n", v && v[0] ? "" : " (null)");
}

static void print_u32s(const char *name, const uint32_t *v, size_t n)
{
	printf("%-11s =", name);
	for (size_t i = 0; i < n; i++)
		printf("%s%u", i ? "," : " ", v[i]);
	printf("%s\n", n ? "" : " (null)");
}

/* -v: the options in effect before the report, one "name = value" a line,
 * in the layout of Slurm's squeue. */
static void print_options(const struct squeue_opts *o)
{
	printf("-----------------------------\n");
	printf("array       = %s\n", o->array_expand ? "true" : "false");
	printf("format      = %s\n", str_or_null(o->format ? o->format : o->long_format));
	printf("iterate     = %u\n", o->iterate);
	printf("job_flag    = %d\n", o->job_flag);
	print_u32s("jobs", o->job_ids, o->njob_ids);
	print_strv("licenses", o->licenses);
	print_strv("names", o->names);
	print_strv("nodes", o->nodes);
	print_strv("partitions", o->parts);
	printf("priority    = %s\n", o->part_prio ? "true" : "false");
	printf("reservation = %s\n", str_or_null(o->reservation));
	printf("sort        = %s\n", str_or_null(o->sort));
	printf("start_flag  = %d\n", o->start);
	printf("states      =");
	for (size_t i = 0; i < o->nstates; i++)
		printf("%s%s", i ? "," : " ", job_state_name(o->states[i]));
	printf("%s\n", o->all_states ? " all" : o->nstates ? "" : " (null)");
	printf("step_flag   = %d\n", o->steps);
	print_u32s("users", o->uids, o->nuids);
	printf("verbose     = %d\n", o->verbose);
	printf("-----------------------------\n\n\n");
}

/* -w names as Slurm's squeue takes them: a node's name or its NodeHostname
 * ("localhost": this host's short name), each replaced by the node's name;
 * a name no node has is an error. */
static void map_nodes(struct squeue_opts *o)
{
	struct empty_msg req = {0};
	struct node_info_resp *r;
	void *body = NULL;
	char *msg = NULL, host[256];

	if (!o->nodes)
		return;
	if (call_ctld(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO_RESP, &body, &msg)) {
		cli_error("slurm_load_node error: %s", msg);
		exit(1);
	}
	r = body;
	for (size_t i = 0; o->nodes[i]; i++) {
		const char *want = o->nodes[i], *found = NULL;

		if (!strcasecmp(want, "localhost") && !gethostname(host, sizeof(host))) {
			host[sizeof(host) - 1] = '\0';
			host[strcspn(host, ".")] = '\0';
			want = host;
		}
		for (uint32_t k = 0; k < r->nodes_count && !found; k++)
			if (!strcmp(want, r->nodes[k].name) ||
			    (r->nodes[k].hostname && !strcmp(want, r->nodes[k].hostname)))
				found = r->nodes[k].name;
		if (!found) {
			cli_error("Invalid node name %s", o->nodes[i]);
			exit(1);
		}
		if (strcmp(found, o->nodes[i])) {
			free(o->nodes[i]);
			o->nodes[i] = xstrdup(found);
		}
	}
	msg_body_free(MSG_NODE_INFO_RESP, body);
}

/* ---- options ---- */

static void parse_jobs(struct squeue_opts *o, const char *arg)
{
	char **ids = fmt_split(arg, ", ");
	size_t n = fmt_strv_len(ids);

	o->job_ids = xrealloc(o->job_ids, (o->njob_ids + n + 1) * sizeof(*o->job_ids));
	for (size_t i = 0; i < n; i++) {
		char *plus = strchr(ids[i], '+');
		/* N+K: N, every component (Slurm's squeue reads the number) */
		if (plus && plus[1] && strspn(plus + 1, "0123456789") == strlen(plus + 1))
			*plus = '\0';
		if (fmt_parse_job_id(ids[i], &o->job_ids[o->njob_ids]) < 0) {
			cli_error("Invalid job id: %s", ids[i]);
			exit(1);
		}
		o->njob_ids++;
	}
	fmt_strv_free(ids);
}

static void parse_users(struct squeue_opts *o, const char *arg)
{
	char **users = fmt_split(arg, ",");
	size_t n = fmt_strv_len(users);

	o->uids = xrealloc(o->uids, (o->nuids + n + 1) * sizeof(*o->uids));
	for (size_t i = 0; i < n; i++) {
		if (name_to_uid(users[i], &o->uids[o->nuids]) < 0) {
			cli_error("Invalid user: %s", users[i]);
			exit(1);
		}
		o->nuids++;
	}
	fmt_strv_free(users);
}

static void parse_states(struct squeue_opts *o, const char *arg)
{
	char **states = fmt_split(arg, ",");
	size_t n = fmt_strv_len(states);

	o->states = xrealloc(o->states, (o->nstates + n + 1) * sizeof(*o->states));
	for (size_t i = 0; i < n; i++) {
		int st;

		if (!strcasecmp(states[i], "all")) {
			o->all_states = 1;
			continue;
		}
		if ((st = job_state_parse(states[i])) < 0) {
			cli_error("Invalid job state specified: %s", states[i]);
			exit(1);
		}
		o->states[o->nstates++] = (uint32_t)st;
	}
	if (o->all_states)
		o->nstates = 0;
	fmt_strv_free(states);
}

static char **replace_list(char **old, const char *arg)
{
	fmt_strv_free(old);
	return fmt_split(arg, ",");
}

enum {
	OPT_JSON = 1000,
	OPT_START,
	OPT_ME,
	OPT_USAGE,
	OPT_HELP,
	OPT_IGNORE,
	OPT_IGNORE_ARG,
	OPT_YAML,
	OPT_ARRAY_UNIQUE,
};

static void parse_args(struct squeue_opts *o, int argc, char **argv);

/* Slurm's SQUEUE_* input variables: as their options, before the command
 * line's. */
static void parse_env(struct squeue_opts *o, const char *argv0)
{
	static const struct cli_env_opt vars[] = {
	    {"SQUEUE_ACCOUNT", "account", 0},
	    {"SQUEUE_ALL", "all", 1},
	    {"SQUEUE_ARRAY", "array", 1},
	    {"SQUEUE_ARRAY_UNIQUE", "array-unique", 1},
	    {"SQUEUE_FEDERATION", "federation", 1},
	    {"SQUEUE_LICENSES", "licenses", 0},
	    {"SQUEUE_LOCAL", "local", 1},
	    {"SQUEUE_NAMES", "name", 0},
	    {"SQUEUE_PARTITION", "partition", 0},
	    {"SQUEUE_PRIORITY", "priority", 1},
	    {"SQUEUE_QOS", "qos", 0},
	    {"SQUEUE_SIBLING", "sibling", 1},
	    {"SQUEUE_STATES", "states", 0},
	    {"SQUEUE_USERS", "users", 0},
	};
	int n;
	char **v = cli_env_argv(argv0, vars, sizeof(vars) / sizeof(vars[0]), &n);

	o->in_env = 1;
	if (n > 1)
		parse_args(o, n, v);
	o->in_env = 0;
	cli_env_argv_free(v);
}

static void parse_args(struct squeue_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"account", required_argument, 0, 'A'},
	    {"all", no_argument, 0, 'a'},
	    {"array", no_argument, 0, 'r'},
	    {"array-unique", no_argument, 0, OPT_ARRAY_UNIQUE},
	    {"clusters", required_argument, 0, 'M'},
	    {"federation", no_argument, 0, OPT_IGNORE},
	    {"format", required_argument, 0, 'o'},
	    {"Format", required_argument, 0, 'O'},
	    {"help", no_argument, 0, OPT_HELP},
	    {"hide", no_argument, 0, OPT_IGNORE},
	    {"iterate", required_argument, 0, 'i'},
	    {"jobs", optional_argument, 0, 'j'},
	    {"json", no_argument, 0, OPT_JSON},
	    {"licenses", required_argument, 0, 'L'},
	    {"local", no_argument, 0, OPT_IGNORE},
	    {"long", no_argument, 0, 'l'},
	    {"me", no_argument, 0, OPT_ME},
	    {"name", required_argument, 0, 'n'},
	    {"noconvert", no_argument, 0, OPT_IGNORE},
	    {"nodelist", required_argument, 0, 'w'},
	    {"noheader", no_argument, 0, 'h'},
	    {"only-job-state", no_argument, 0, OPT_IGNORE},
	    {"partition", required_argument, 0, 'p'},
	    {"partitions", required_argument, 0, 'p'},
	    {"priority", no_argument, 0, 'P'},
	    {"qos", required_argument, 0, 'q'},
	    {"reservation", required_argument, 0, 'R'},
	    {"sibling", no_argument, 0, OPT_IGNORE},
	    {"sort", required_argument, 0, 'S'},
	    {"start", no_argument, 0, OPT_START},
	    {"steps", optional_argument, 0, 's'},
	    {"states", required_argument, 0, 't'},
	    {"usage", no_argument, 0, OPT_USAGE},
	    {"user", required_argument, 0, 'u'},
	    {"users", required_argument, 0, 'u'},
	    {"verbose", no_argument, 0, 'v'},
	    {"version", no_argument, 0, 'V'},
	    {"yaml", no_argument, 0, OPT_YAML},
	    {0, 0, 0, 0},
	};
	int c;

	optind = 0; /* the environment's, then the command line's */
	while ((c = getopt_long(argc, argv, "A:ahi:j::lL:M:n:o:O:p:Pq:rR:s::S:t:u:vVw:",
	                        longopts, NULL)) != -1) {
		switch (c) {
		case 'A':
			o->accounts = replace_list(o->accounts, optarg);
			break;
		case 'h':
			o->noheader = 1;
			break;
		case 'i':
			o->iterate = fmt_parse_iterate(optarg);
			break;
		case 'j':
			o->job_flag = 1;
			if (optarg)
				parse_jobs(o, optarg);
			break;
		case 'l':
			o->long_list = 1;
			break;
		case 'L':
			o->licenses = replace_list(o->licenses, optarg);
			break;
		case 'R':
			free(o->reservation);
			o->reservation = xstrdup(optarg);
			break;
		case 'n':
			o->names = replace_list(o->names, optarg);
			break;
		case 'o':
			o->format = optarg;
			break;
		case 'O':
			o->long_format = optarg;
			break;
		case 'p':
			o->parts = replace_list(o->parts, optarg);
			break;
		case 'q':
			o->qos = replace_list(o->qos, optarg);
			break;
		case 's':
			o->steps = 1;
			break;
		case 'S':
			o->sort = optarg;
			break;
		case 't':
			if (!o->in_env && o->env_states) /* the command line's instead */
				o->nstates = o->all_states = o->env_states = 0;
			o->env_states |= o->in_env;
			parse_states(o, optarg);
			break;
		case 'u':
			if (!o->in_env && o->env_users)
				o->nuids = o->env_users = 0;
			o->env_users |= o->in_env;
			parse_users(o, optarg);
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			fmt_print_version();
		case 'w':
			fmt_parse_nodes(&o->nodes, optarg);
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_YAML:
			o->json = CLI_DOC_YAML;
			break;
		case OPT_START:
			o->start = 1;
			break;
		case OPT_ME: {
			char uid[32];

			snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
			parse_users(o, uid);
			break;
		}
		case OPT_USAGE:
			usage(stdout);
			exit(0);
		case OPT_HELP:
			help();
		case 'r':
			o->array_expand = 1;
			break;
		case OPT_ARRAY_UNIQUE:
			o->array_unique = 1;
			break;
		case 'P':
			o->part_prio = 1;
			break;
		case 'a': /* every partition: none is hidden from anyone */
		case 'M':
			cli_clusters_check(optarg, 0);
			break;
		case OPT_IGNORE:
			break;
		default:
			fmt_bad_option();
		}
	}
	/* "-j 123" and "-s 123.0": Slurm takes the next word as the list */
	if (optind < argc && (o->job_flag || o->steps)) {
		if (o->job_flag)
			parse_jobs(o, argv[optind]);
		optind++;
	}
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		usage(stderr);
		exit(1);
	}
}

static const char *pick_format(const struct squeue_opts *o, enum fmt_syntax *syntax)
{
	const char *env;

	*syntax = FMT_SHORT;
	if (o->format)
		return o->format;
	if (o->long_format) {
		*syntax = FMT_LONG;
		return o->long_format;
	}
	if (o->steps)
		return SQUEUE_STEPS_FMT;
	if ((env = getenv("SQUEUE_FORMAT")) && *env)
		return env;
	if ((env = getenv("SQUEUE_FORMAT2")) && *env) {
		*syntax = FMT_LONG;
		return env;
	}
	if (o->start)
		return JOBLIST_START_FMT;
	return o->long_list ? JOBLIST_LONG_FMT : JOBLIST_DEFAULT_FMT;
}

/* Every field of the jobs (of one job for a single -j id).  An unknown id is
 * Slurm's "slurm_load_jobs error", exit 1; for a single id that no job
 * answers, the error is printed and NULL returned. */
static struct job_info_resp *load_jobs(const struct squeue_opts *o)
{
	struct job_info_req req = {0};
	struct job_info_resp *resp;
	char *msg = NULL;
	void *body = NULL;
	uint32_t id;

	if (o->njob_ids == 1) {
		id = o->job_ids[0];
		req.job_ids.v = &id;
		req.job_ids.n = 1;
	}
	if (call_ctld(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, &body, &msg)) {
		fprintf(stderr, "slurm_load_jobs error: %s\n", msg);
		exit(1);
	}
	resp = body;
	if (o->njob_ids != 1)
		return resp;
	for (uint32_t i = 0; i < resp->jobs_count; i++)
		if (resp->jobs[i].job_id == id || resp->jobs[i].array_job_id == id)
			return resp;
	fprintf(stderr, "slurm_load_jobs error: %s\n",
	        slurm_strerror(ESLURM_INVALID_JOB_ID));
	msg_body_free(MSG_JOB_INFO_RESP, resp);
	return NULL;
}

/* The date line (-l, -i, -v) and the header, as the options ask. */
static void print_head(const struct squeue_opts *o, const struct fmt_layout *layout,
                       time_t now)
{
	if (!o->noheader && (o->iterate || o->verbose || o->long_list))
		fmt_print_date(stdout, now);
	if (!o->noheader)
		fmt_print_header(stdout, layout);
}

static const char *step_value(const struct fmt_col *col, const void *rec, void *vctx,
                              char *buf, size_t len)
{
	const struct step_info *s = rec;
	const struct squeue_ctx *ctx = vctx;

	switch (col->field->id) {
	case 'i':
		if (s->step_id == STEP_BATCH)
			snprintf(buf, len, "%u.batch", s->job_id);
		else
			snprintf(buf, len, "%u.%u", s->job_id, s->step_id);
		return buf;
	case 'j':
		return str_or_null(s->name);
	case 'P':
		return str_or_null(s->partition);
	case 'u':
		return str_or_null(s->user);
	case 'U':
		snprintf(buf, len, "%u", s->uid);
		return buf;
	case 'M':
		return timefmt_elapsed(
		    ctx->now > s->start_time ? (long)(ctx->now - s->start_time) : 0, buf,
		    len);
	case 'N':
		return str_or_null(s->nodes);
	case 'l':
		return timefmt_limit(s->time_limit, buf, len);
	case 'A':
		snprintf(buf, len, "%u", s->num_tasks);
		return buf;
	case 'S':
		return timefmt_iso((time_t)s->start_time, buf, len);
	default:
		return "";
	}
}

/* squeue -s: one line per running step (N.batch for batch scripts). */
static int print_steps(struct squeue_opts *o, const struct fmt_layout *layout)
{
	struct squeue_ctx ctx = {.now = time(NULL)};
	struct job_info_req req = {0};
	struct step_info_resp *resp;
	void *body = NULL;
	char *msg = NULL;
	int rc;

	if (o->njob_ids) {
		req.job_ids.v = o->job_ids;
		req.job_ids.n = (uint32_t)o->njob_ids;
	}
	rc = call_ctld(MSG_STEP_INFO_REQ, &req, MSG_STEP_INFO_RESP, &body, &msg);
	if (rc == ESLURM_INVALID_JOB_ID && o->njob_ids) { /* none of them known */
		free(msg);
		if (!o->noheader)
			fmt_print_header(stdout, layout);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "slurm_get_job_steps error: %s\n", msg);
		return 1;
	}
	resp = body;
	if (resp->now > 0)
		ctx.now = (time_t)resp->now;
	if (!o->noheader)
		fmt_print_header(stdout, layout);
	for (uint32_t i = 0; i < resp->steps_count; i++) {
		const struct step_info *s = &resp->steps[i];
		int keep = !o->nuids;
		for (size_t k = 0; k < o->nuids; k++)
			keep |= o->uids[k] == s->uid;
		if (keep)
			fmt_print_row(stdout, layout, step_value, s, &ctx);
	}
	msg_body_free(MSG_STEP_INFO_RESP, body);
	return 0;
}

/* volatile: a store the compiler may not drop, so that a leak checker finds
 * the listing still reachable at exit */
static void *volatile kept_until_exit;

/* --json: Slurm's v0.0.38 document, the one rotarestd's GET jobs answers
 * (proto/slurm_json.h). */
static int print_json(const struct squeue_opts *o)
{
	struct job_info_resp *resp = load_jobs(o);
	const char *cluster = cli_conf()->cluster_name;
	struct jsonw w = {0};
	json_t *head;
	char *text;
	size_t len;

	if (!resp)
		return 1;
	if (o->json == CLI_DOC_YAML) { /* a tree, read back from the text */
		json_t *doc = sj_response(), *jobs = json_array();
		for (uint32_t i = 0; i < resp->jobs_count; i++)
			json_array_append_new(jobs, sj_job(&resp->jobs[i], cluster));
		json_object_set_new(doc, "jobs", jobs);
		cli_print_doc(doc, CLI_DOC_YAML);
		json_decref(doc);
		msg_body_free(MSG_JOB_INFO_RESP, resp);
		return 0;
	}
	/* the head as jansson writes it, then the jobs one by one (a deep
	 * queue is never a tree of JSON values) */
	head = sj_response();
	text = json_dumps(head, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!text || (len = strlen(text)) < 2)
		fatal("out of memory");
	while (len && text[len - 1] != '}')
		len--;
	jsonw_raw(&w, text, len - 1);
	jsonw_lit(&w, ",\n  \"jobs\": [");
	for (uint32_t i = 0; i < resp->jobs_count; i++) {
		if (i)
			jsonw_lit(&w, ",");
		jsonw_lit(&w, "\n    ");
		sj_job_write(&w, &resp->jobs[i], cluster);
		if (w.len > (1u << 20)) {
			fwrite_unlocked(w.p, 1, w.len, stdout);
			w.len = 0;
		}
	}
	jsonw_lit(&w, "\n  ]\n}\n");
	fwrite_unlocked(w.p, 1, w.len, stdout);
	jsonw_free(&w);
	free(text);
	json_decref(head);
	msg_body_free(MSG_JOB_INFO_RESP, resp);
	return 0;
}

static void flush_stdout(struct joblist_sink *s)
{
	if (s->buf.len)
		fwrite_unlocked(s->buf.data, 1, s->buf.len, stdout);
	s->buf.len = 0;
}

static int cmp_array_id(const void *a, const void *b)
{
	uint32_t x = (*(const struct job_info *const *)a)->array_job_id;
	uint32_t y = (*(const struct job_info *const *)b)->array_job_id;

	return x < y ? -1 : x > y;
}

/* Fold the listed pending tasks split off an array into the row of its
 * remainder, as the controller does (proto/joblist.h): folds[i] says what
 * record i's row took, gone[i] that record i went into another's. */
static void fold_here(const struct joblist_query *q, struct job_info_resp *resp,
                      struct joblist_fold *folds, uint8_t *gone)
{
	struct job_info *all = resp->jobs, **rems;
	size_t nrems = 0;

	rems = xcalloc(resp->jobs_count + 1, sizeof(*rems));
	for (uint32_t i = 0; i < resp->jobs_count; i++)
		if (all[i].array_task_str && joblist_selected(q, &all[i]))
			rems[nrems++] = &all[i];
	qsort(rems, nrems, sizeof(*rems), cmp_array_id);
	for (uint32_t i = 0; i < resp->jobs_count && nrems; i++) {
		struct job_info *t = &all[i], **m;

		if (!t->array_job_id || t->array_task_str ||
		    !(m = bsearch(&t, rems, nrems, sizeof(*rems), cmp_array_id)) ||
		    !joblist_folds(*m, t) || !joblist_selected(q, t))
			continue;
		gone[i] = joblist_fold_add(&folds[*m - all], *m, t) == 0;
	}
	for (uint32_t i = 0; i < resp->jobs_count; i++) {
		if (!folds[i].n)
			continue;
		free(all[i].array_task_str);
		all[i].array_task_str = joblist_fold_ids(&folds[i]);
	}
	free(rems);
}

/* A row of a listing made here: its record, copied (first: the row reads
 * as a job_info). */
struct here_row {
	struct job_info j;   /* its pointers the record's, but for partition */
	char *partition;     /* owned: j.partition (a -P row names one of its) */
	const char *reasons; /* a folded row's (borrowed), else NULL */
};

static uint64_t sort_tiebreak(const void *row)
{
	return ((const struct here_row *)row)->j.job_id;
}

struct here_rows {
	struct here_row **v;
	size_t n, cap;
	const char *reasons; /* those of the record being read */
};

static int keep_here(const struct job_info *j, void *arg)
{
	struct here_rows *h = arg;
	struct here_row *r = xcalloc(1, sizeof(*r));

	r->j = *j;
	if (j->partition)
		r->j.partition = r->partition = xstrdup(j->partition);
	r->reasons = h->reasons;
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->v = xrealloc(h->v, h->cap * sizeof(*h->v));
	}
	h->v[h->n++] = r;
	return 0;
}

/* -P: the partitions' PriorityTier (1 for one not known, as Slurm). */
static uint32_t part_tier(const char *name, void *arg)
{
	const struct part_info_resp *parts = arg;

	for (uint32_t i = 0; parts && name && i < parts->parts_count; i++)
		if (!strcmp(parts->parts[i].name, name))
			return parts->parts[i].priority_tier;
	return 1;
}

/* A format wider than the controller prints: the listing made here, from the
 * job records, by the same code. */
static int print_here(const struct squeue_opts *o, const struct fmt_layout *layout,
                      const struct job_list_req *req)
{
	struct rota_error err = {""};
	struct joblist_sink sink = {.flush_at = 1 << 16, .flush = flush_stdout};
	struct joblist_query q;
	struct joblist_sort sort;
	struct joblist_ctx ctx = {.cluster = cli_conf()->cluster_name,
	                          .time_format = req->time_format};
	struct joblist_sort_arg sarg = {&sort, 0};
	struct here_rows rows = {0};
	struct job_info_resp *resp;
	struct joblist_fold *folds;
	struct empty_msg none = {0};
	void *parts = NULL;
	char *msg = NULL;
	uint8_t *gone;

	if ((req->flags & JOB_LIST_F_PART_PRIO) &&
	    call_ctld(MSG_PART_INFO_REQ, &none, MSG_PART_INFO_RESP, &parts, &msg)) {
		fprintf(stderr, "slurm_load_partitions error: %s\n", msg);
		free(msg);
		return 1;
	}
	if (parts) {
		sarg.part_tier = part_tier;
		sarg.tier_arg = parts;
	}
	if (!(resp = load_jobs(o))) {
		msg_body_free(MSG_PART_INFO_RESP, parts);
		return 1;
	}
	if (joblist_sort_parse(req->sort, &sort, &err) < 0 ||
	    joblist_query_init(&q, req, &err) < 0)
		fatal("%s", err.text);
	ctx.now = sarg.now = resp->now > 0 ? (time_t)resp->now : time(NULL);
	print_head(o, layout, ctx.now);
	folds = xcalloc(resp->jobs_count + 1, sizeof(*folds));
	gone = xcalloc(resp->jobs_count + 1, 1);
	if (joblist_folding(req->flags))
		fold_here(&q, resp, folds, gone);
	for (uint32_t i = 0; i < resp->jobs_count; i++) {
		rows.reasons = folds[i].reasons;
		if (!gone[i])
			joblist_rows(&q, &resp->jobs[i], keep_here, &rows);
	}
	if (rank_sort((const void **)rows.v, rows.n, sort.rank, sort.n,
	              joblist_sort_value, sort_tiebreak, &sarg) < 0)
		fatal("out of memory");
	for (size_t i = 0; i < rows.n; i++) {
		ctx.reasons = rows.v[i]->reasons;
		joblist_append(&sink, layout, &rows.v[i]->j, req->flags, &ctx);
		free(rows.v[i]->partition);
		free(rows.v[i]);
	}
	flush_stdout(&sink);
	fmtbuf_release(&sink.buf);
	free(rows.v);
	for (uint32_t i = 0; i < resp->jobs_count; i++)
		joblist_fold_release(&folds[i]);
	free(folds);
	free(gone);
	joblist_query_release(&q);
	msg_body_free(MSG_JOB_INFO_RESP, resp);
	msg_body_free(MSG_PART_INFO_RESP, parts);
	return 0;
}

struct stream_out {
	const struct squeue_opts *o;
	const struct fmt_layout *layout;
	int head_done;
};

/* One frame of the listing, printed as it comes (the header before the
 * first: it carries the controller's time). */
static void print_frame(const struct job_list_resp *r, void *arg)
{
	struct stream_out *so = arg;

	if (!so->head_done) {
		print_head(so->o, so->layout, r->now > 0 ? (time_t)r->now : time(NULL));
		so->head_done = 1;
	}
	if (r->text.len)
		fwrite_unlocked(r->text.data, 1, r->text.len, stdout);
}

/* SLURM_TIME_FORMAT, for the controller to print with: an invalid one is
 * said here, as Slurm's squeue says it, and the standard form used. */
static char *time_style(void)
{
	char *style = getenv("SLURM_TIME_FORMAT");

	if (timefmt_style_ok(style))
		return style;
	cli_error("invalid SLURM_TIME_FORMAT = '%s'", style);
	return NULL;
}

/* The listing, printed by the controller: the header here, then its lines. */
static int print_once(const struct squeue_opts *o, const struct fmt_layout *layout,
                      const char *fmt, enum fmt_syntax syntax, const char *sort)
{
	struct job_list_req req = {
	    .format = (char *)fmt,
	    .sort = (char *)sort,
	    .flags = (syntax == FMT_LONG ? JOB_LIST_F_LONG : 0) |
	             (o->all_states ? JOB_LIST_F_ALL_STATES : 0) |
	             (o->array_expand ? JOB_LIST_F_ARRAY_TASKS : 0) |
	             (o->array_unique ? JOB_LIST_F_ARRAY_UNIQUE : 0) |
	             (o->part_prio ? JOB_LIST_F_PART_PRIO : 0),
	    .job_ids = {o->job_ids, (uint32_t)o->njob_ids},
	    .states = {o->states, (uint32_t)o->nstates},
	    .uids = {o->uids, (uint32_t)o->nuids},
	    .names = o->names,
	    .partitions = o->parts,
	    .accounts = o->accounts,
	    .qos = o->qos,
	    .nodes = o->nodes,
	    .licenses = o->licenses,
	    .time_format = time_style(),
	    .reservation = o->reservation,
	};
	struct stream_out so = {o, layout, 0};
	struct job_list_resp *resp;
	void *body = NULL;
	char *msg = NULL;
	int rc;

	if (joblist_line_width(layout) > JOBLIST_MAX_LINE)
		return print_here(o, layout, &req);
	call_text_sink(print_frame, &so);
	rc = call_ctld(MSG_JOB_LIST_REQ, &req, MSG_JOB_LIST_RESP, &body, &msg);
	call_text_sink(NULL, NULL);
	if (rc) {
		fflush(stdout); /* what came before a cut is out first */
		fprintf(stderr, "slurm_load_jobs error: %s\n", msg);
		free(msg);
		return 1;
	}
	resp = body;
	if (o->iterate) {
		msg_body_free(MSG_JOB_LIST_RESP, resp);
	} else {
		/* the process exits next (kept reachable, so a leak checker does
		 * not count it) */
		kept_until_exit = resp;
	}
	return 0;
}

int cmd_squeue(int argc, char **argv)
{
	struct squeue_opts o = {0};
	struct rota_error err = {""};
	struct joblist_sort keys;
	struct fmt_layout *layout;
	enum fmt_syntax syntax;
	const char *fmt, *env, *sort;
	int rc;

	if ((env = getenv("SQUEUE_SORT")) && *env)
		o.sort = env;
	parse_env(&o, argv[0]);
	parse_args(&o, argc, argv);
	map_nodes(&o);
	if (o.verbose)
		print_options(&o);
	if (o.start && !o.nstates && !o.all_states) {
		o.states = xrealloc(o.states, sizeof(*o.states));
		o.states[o.nstates++] = JOB_PENDING;
	}
	sort = o.sort ? o.sort : o.start ? "S" : JOBLIST_SORT;
	if (joblist_sort_parse(sort, &keys, &err) < 0) {
		cli_error("Invalid sort specification: %s", err.text);
		exit(1);
	}
	fmt = pick_format(&o, &syntax);
	if (o.steps && !o.format && !o.long_format)
		layout = fmt_layout_create(fmt, syntax, step_fields,
		                           sizeof(step_fields) / sizeof(step_fields[0]),
		                           "job");
	else
		layout = fmt_layout_create(fmt, syntax, joblist_fields, joblist_nfields,
		                           "job");
	for (;;) {
		if (o.steps)
			rc = print_steps(&o, layout);
		else if (o.json)
			rc = print_json(&o);
		else
			rc = print_once(&o, layout, fmt, syntax, sort);
		if (!o.iterate || rc)
			break;
		fflush(stdout);
		sleep(o.iterate);
		putchar('\n');
	}
	fmt_layout_destroy(layout);
	fmt_strv_free(o.names);
	free(o.reservation);
	fmt_strv_free(o.parts);
	fmt_strv_free(o.accounts);
	fmt_strv_free(o.qos);
	hostlist_free(o.nodes);
	free(o.job_ids);
	free(o.uids);
	free(o.states);
	return rc;
}
