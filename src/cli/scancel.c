/* scancel.c - cancel or signal jobs and steps, as Slurm's scancel.
 *
 * Ids are "N", "N.S", "N.batch" and "N_T" (an array task; there are no arrays
 * yet, so such an id never names a job and is skipped like any unknown id).
 * Filters (-n -u -t -p -A -w -q -R --me) select among the non-finished jobs
 * of one MSG_JOB_INFO_REQ; with ids they narrow those ids.  Each target gets one
 * MSG_CANCEL_REQ.  As COMPAT.md requires, an unknown or finished job is not an
 * error (silent, exit 0); other refusals print Slurm's "Kill job error" line and
 * make the exit status 1.
 */
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/strv.h"
#include "common/arrayspec.h"
#include "common/hostlist.h"
#include "common/signame.h"
#include "common/states.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "common/common.h"

#define SCANCEL_MAX_IDS 65536

struct target {
	uint32_t job_id;
	uint32_t het_job_id; /* N of N+K (job_id is then N+K); 0: none */
	uint32_t array_task; /* NO_VAL: none */
	uint32_t step_id;    /* NO_VAL: the whole job */
	char *array_spec;    /* N_[spec]: these tasks (borrowed from text) */
	char *text;          /* as written, for messages */
	int gone;            /* not among the active jobs: skipped */
};

struct scancel_opts {
	int batch, full, interactive, quiet, verbose, have_filter;
	uint32_t signal; /* 0: cancel */
	char *name, *partition, *account, *qos, *reservation;
	int wckey; /* --wckey given: no job has one (no TrackWCKey) */
	char **nodes;
	const char *nodes_arg, *wckey_arg; /* as given (borrowed), for messages */
	int state;                         /* -1: any */
	int have_uid;
	uid_t uid;
	struct target *targets;
	size_t ntargets;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: scancel [-A account] [--batch] [--full] [--interactive] "
	           "[-n job_name]\n"
	           "               [-p partition] [-Q] [-q qos] [-R reservation] "
	           "[-s signal | integer]\n"
	           "               [-t PENDING | RUNNING | SUSPENDED] [--usage] "
	           "[-u user_name]\n"
	           "               [--me] [-V] [-v] [-w hosts...] [--help]\n"
	           "               [job_id[_array_id][.step_id]]\n");
}

static void __attribute__((noreturn)) help(void)
{
	printf("Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]\n"
	       "  -A, --account=account    only jobs charged to this account\n"
	       "  -b, --batch              signal the batch shell only\n"
	       "  -f, --full               signal the batch shell and all steps\n"
	       "  -i, --interactive        ask before each job\n"
	       "      --me                 only my jobs\n"
	       "  -n, --name=job_name      only jobs with this name\n"
	       "  -p, --partition=part     only jobs in this partition\n"
	       "  -Q, --quiet              say nothing about finished jobs\n"
	       "  -q, --qos=qos            only jobs with this QOS\n"
	       "  -R, --reservation=resv   only jobs in this reservation\n"
	       "  -s, --signal=signal      send this signal instead of cancelling\n"
	       "  -t, --state=state        only PENDING, RUNNING or SUSPENDED jobs\n"
	       "  -u, --user=user          only this user's jobs\n"
	       "  -w, --nodelist=hosts     only jobs on these nodes\n"
	       "  -v, --verbose            say what is done\n"
	       "  -V, --version            print the version\n"
	       "\nHelp options:\n"
	       "      --help               show this help message\n"
	       "      --usage              display brief usage message\n");
	exit(0);
}

/* "N", "N+K", "N_T", "N.S", "N_T.S", "N.batch".  Returns 0 or -1. */
static int parse_target(const char *s, struct target *t)
{
	char *end;
	unsigned long v;

	t->array_task = NO_VAL;
	t->step_id = NO_VAL;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtoul(s, &end, 10);
	if (!v || v >= NO_VAL)
		return -1;
	t->job_id = (uint32_t)v;
	if (*end == '+') { /* N+K: a heterogeneous job's component K */
		s = end + 1;
		if (!isdigit((unsigned char)*s))
			return -1;
		v = strtoul(s, &end, 10);
		if (v >= HET_MAX || t->job_id + v >= NO_VAL)
			return -1;
		t->het_job_id = t->job_id;
		t->job_id += (uint32_t)v;
	}
	if (*end == '_' && end[1] == '[') {
		/* N_[5-7] or N_[3-9%2] as squeue prints it: the listed tasks */
		char *close = strchr(end, ']');
		if (!close || close[1])
			return -1;
		t->array_spec = end + 2;
		return 0;
	}
	if (*end == '_') {
		s = end + 1;
		if (!isdigit((unsigned char)*s))
			return -1;
		v = strtoul(s, &end, 10);
		if (v >= NO_VAL)
			return -1;
		t->array_task = (uint32_t)v;
	}
	if (*end == '.') {
		s = end + 1;
		if (!strcmp(s, "batch")) {
			t->step_id = STEP_BATCH;
			end = (char *)s + 5;
		} else {
			if (!isdigit((unsigned char)*s))
				return -1;
			v = strtoul(s, &end, 10);
			if (v >= STEP_BATCH)
				return -1;
			t->step_id = (uint32_t)v;
		}
	}
	return *end ? -1 : 0;
}

/* N_[spec]: one target per listed task. */
static void add_array_targets(struct scancel_opts *o, const struct target *t,
                              const char *arg)
{
	char *spec = xstrdup(t->array_spec);
	struct arrayspec a;

	spec[strlen(spec) - 1] = '\0'; /* the closing bracket */
	if (arrayspec_parse(spec, ARRAYSPEC_LIMIT, &a, NULL) < 0) {
		cli_error("Invalid job id %s", arg);
		exit(1);
	}
	free(spec);
	if (o->ntargets + a.count > SCANCEL_MAX_IDS) {
		cli_error("more than %d job ids", SCANCEL_MAX_IDS);
		exit(1);
	}
	o->targets = xrealloc(o->targets, (o->ntargets + a.count) * sizeof(*o->targets));
	for (int64_t k = arrayspec_first(&a); k >= 0; k = arrayspec_next(&a, k)) {
		struct target one = *t;
		one.array_spec = NULL;
		one.array_task = (uint32_t)k;
		one.text = xasprintf("%u_%u", t->job_id, (uint32_t)k);
		o->targets[o->ntargets++] = one;
	}
	arrayspec_release(&a);
}

static void add_target(struct scancel_opts *o, const char *arg)
{
	struct target t = {0};

	if (parse_target(arg, &t) < 0) {
		cli_error("Invalid job id %s", arg);
		exit(1);
	}
	if (o->ntargets == SCANCEL_MAX_IDS) {
		cli_error("more than %d job ids", SCANCEL_MAX_IDS);
		exit(1);
	}
	if (t.array_spec) {
		add_array_targets(o, &t, arg);
		return;
	}
	t.text = xstrdup(arg);
	o->targets = xrealloc(o->targets, (o->ntargets + 1) * sizeof(*o->targets));
	o->targets[o->ntargets++] = t;
}

static void set_user(struct scancel_opts *o, const char *user)
{
	if (name_to_uid(user, &o->uid) < 0) {
		cli_error("Invalid user name: %s", user);
		exit(1);
	}
	o->have_uid = 1;
	o->have_filter = 1;
}

static void set_state(struct scancel_opts *o, const char *s)
{
	int st = job_state_parse(s);

	if (st != JOB_PENDING && st != JOB_RUNNING && st != JOB_SUSPENDED) {
		cli_error("Invalid job state specified: %s", s);
		fprintf(stderr, "Valid job states are PENDING, RUNNING, and SUSPENDED\n");
		exit(1);
	}
	o->state = st;
	o->have_filter = 1;
}

static char *set_str(char *old, const char *arg, int *have_filter)
{
	free(old);
	*have_filter = 1;
	return xstrdup(arg);
}

enum { OPT_CTLD = 1000, OPT_ME, OPT_SIBLING, OPT_USAGE, OPT_HELP, OPT_WCKEY };

static void parse_env(struct scancel_opts *o)
{
	const char *v;

	if ((v = getenv("SCANCEL_ACCOUNT")) && *v)
		o->account = set_str(o->account, v, &o->have_filter);
	if ((v = getenv("SCANCEL_NAME")) && *v)
		o->name = set_str(o->name, v, &o->have_filter);
	if ((v = getenv("SCANCEL_PARTITION")) && *v)
		o->partition = set_str(o->partition, v, &o->have_filter);
	if ((v = getenv("SCANCEL_QOS")) && *v)
		o->qos = set_str(o->qos, v, &o->have_filter);
	if ((v = getenv("SCANCEL_STATE")) && *v)
		set_state(o, v);
	if ((v = getenv("SCANCEL_USER")) && *v)
		set_user(o, v);
	if (getenv("SCANCEL_BATCH"))
		o->batch = 1;
	if (getenv("SCANCEL_FULL"))
		o->full = 1;
	if (getenv("SCANCEL_INTERACTIVE"))
		o->interactive = 1;
	if (getenv("SCANCEL_VERBOSE"))
		o->verbose = 1;
	if ((v = getenv("SCANCEL_WCKEY")) && *v) {
		o->wckey = o->have_filter = 1;
		o->wckey_arg = v;
	}
	/* SCANCEL_CTLD, SCANCEL_HURRY: as --ctld and --hurry, nothing to do */
}

static void parse_args(struct scancel_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"account", required_argument, 0, 'A'},
	    {"batch", no_argument, 0, 'b'},
	    {"clusters", required_argument, 0, 'M'},
	    {"ctld", no_argument, 0, OPT_CTLD},
	    {"full", no_argument, 0, 'f'},
	    {"help", no_argument, 0, OPT_HELP},
	    {"hurry", no_argument, 0, 'H'},
	    {"interactive", no_argument, 0, 'i'},
	    {"jobname", required_argument, 0, 'n'},
	    {"me", no_argument, 0, OPT_ME},
	    {"name", required_argument, 0, 'n'},
	    {"nodelist", required_argument, 0, 'w'},
	    {"partition", required_argument, 0, 'p'},
	    {"qos", required_argument, 0, 'q'},
	    {"quiet", no_argument, 0, 'Q'},
	    {"reservation", required_argument, 0, 'R'},
	    {"sibling", required_argument, 0, OPT_SIBLING},
	    {"signal", required_argument, 0, 's'},
	    {"state", required_argument, 0, 't'},
	    {"usage", no_argument, 0, OPT_USAGE},
	    {"user", required_argument, 0, 'u'},
	    {"verbose", no_argument, 0, 'v'},
	    {"version", no_argument, 0, 'V'},
	    {"wckey", required_argument, 0, OPT_WCKEY},
	    {0, 0, 0, 0},
	};
	int c, sig;

	while ((c = getopt_long(argc, argv, "A:bfHiM:n:p:q:QR:s:t:u:vVw:", longopts,
	                        NULL)) != -1) {
		switch (c) {
		case 'A':
			o->account = set_str(o->account, optarg, &o->have_filter);
			break;
		case 'b':
			o->batch = 1;
			break;
		case 'f':
			o->full = 1;
			break;
		case 'i':
			o->interactive = 1;
			break;
		case 'n':
			o->name = set_str(o->name, optarg, &o->have_filter);
			break;
		case 'p':
			o->partition = set_str(o->partition, optarg, &o->have_filter);
			break;
		case 'q':
			o->qos = set_str(o->qos, optarg, &o->have_filter);
			break;
		case 'Q':
			o->quiet = 1;
			break;
		case 'R':
			o->reservation = set_str(o->reservation, optarg, &o->have_filter);
			break;
		case OPT_WCKEY:
			o->wckey = o->have_filter = 1;
			o->wckey_arg = optarg;
			break;
		case 's':
			if ((sig = signal_parse(optarg)) < 0) {
				cli_error("Invalid job signal: %s", optarg);
				exit(1);
			}
			o->signal = (uint32_t)sig;
			break;
		case 't':
			set_state(o, optarg);
			break;
		case 'u':
			set_user(o, optarg);
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			fmt_print_version();
		case 'w':
			fmt_parse_nodes(&o->nodes, optarg);
			o->nodes_arg = optarg;
			o->have_filter = 1;
			break;
		case OPT_ME: {
			char uid[32];

			snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
			set_user(o, uid);
			break;
		}
		case OPT_USAGE:
			usage(stdout);
			exit(0);
		case OPT_HELP:
			help();
		case 'M':
			cli_clusters_check(optarg, 0);
			break;
		case 'H':
		case OPT_CTLD:
		case OPT_SIBLING:
			break;
		default:
			fmt_bad_option();
		}
	}
	for (; optind < argc; optind++)
		add_target(o, argv[optind]);
	if (o->quiet && o->verbose) {
		cli_error("--quiet and --verbose cannot be used together");
		exit(1);
	}
}

static int node_listed(const char *name, void *nodes)
{
	return strv_has(nodes, name, 0);
}

static int job_matches(const struct scancel_opts *o, const struct job_info *j)
{
	uint32_t base = j->state & JOB_STATE_BASE;

	if (job_state_is_finished(j->state) || (j->state & JOB_COMPLETING))
		return 0;
	if (o->state >= 0 && base != (uint32_t)o->state)
		return 0;
	if (o->name && strcmp(o->name, j->name ? j->name : ""))
		return 0;
	if (o->have_uid && j->uid != o->uid)
		return 0;
	if (o->partition) {
		char **want = fmt_split(o->partition, ","),
		     **have = fmt_split(j->partition, ",");
		int hit = 0;

		for (size_t i = 0; have[i] && !hit; i++)
			hit = strv_has(want, have[i], 0);
		fmt_strv_free(want);
		fmt_strv_free(have);
		if (!hit)
			return 0;
	}
	if (o->account && strcasecmp(o->account, j->account ? j->account : ""))
		return 0;
	if (o->qos && strcasecmp(o->qos, j->qos ? j->qos : "normal"))
		return 0;
	if (o->reservation &&
	    strcmp(o->reservation, j->reservation ? j->reservation : ""))
		return 0;
	if (o->wckey)
		return 0; /* no job has a wckey */
	if (o->nodes && !hostlist_overlaps(j->nodes, node_listed, o->nodes))
		return 0;
	return 1;
}

static struct job_info_resp *load_jobs(void)
{
	struct job_info_req req = {0};
	char *msg = NULL;
	void *body = NULL;

	if (call_ctld(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, &body, &msg)) {
		cli_error("slurm_load_jobs error: %s", msg);
		exit(1);
	}
	return body;
}

static int job_active(const struct job_info *j)
{
	return !job_state_is_finished(j->state) && !(j->state & JOB_COMPLETING);
}

/* The active (not finished) job target t names: N is a job or a whole
 * array, N_T one of array N's tasks.  NULL when there is none. */
static const struct job_info *find_job(const struct job_info_resp *jobs,
                                       const struct target *t)
{
	for (uint32_t i = 0; jobs && i < jobs->jobs_count; i++) {
		const struct job_info *j = &jobs->jobs[i];
		int hit;

		if (!job_active(j))
			continue;
		if (t->array_task == NO_VAL)
			hit = j->job_id == t->job_id ||
			      (j->array_job_id == t->job_id && t->step_id == NO_VAL);
		else
			hit = j->array_job_id == t->job_id &&
			      (j->array_task_id == t->array_task || j->array_task_str);
		if (hit)
			return j;
	}
	return NULL;
}

/* With the job list loaded (-i or a filter), as Slurm's scancel: an id that
 * names no active job is an error (unless -Q), and is skipped. */
static int check_targets(struct scancel_opts *o, const struct job_info_resp *jobs)
{
	int rc = 0;

	for (size_t i = 0; i < o->ntargets; i++) {
		struct target *t = &o->targets[i];

		if (find_job(jobs, t))
			continue;
		t->gone = 1;
		rc = 1;
		if (!o->quiet)
			cli_error("Kill job error on job %sid %s: %s",
			          t->step_id != NO_VAL ? "step " : "", t->text,
			          slurm_strerror(ESLURM_INVALID_JOB_ID));
	}
	return rc;
}

/* Add "key=value " to *line (a malloc'd string, replaced). */
static void add_filter(char **line, const char *key, const char *value)
{
	char *next = xasprintf("%s%s=%s ", *line, key, value);

	free(*line);
	*line = next;
}

/* -v and filters no active job passes: Slurm's notice naming them. */
static void report_no_match(const struct scancel_opts *o)
{
	char *line = xstrdup(""), user[256];

	if (o->account)
		add_filter(&line, "account", o->account);
	if (o->name)
		add_filter(&line, "job_name", o->name);
	if (o->nodes)
		add_filter(&line, "nodelist", o->nodes_arg);
	if (o->partition)
		add_filter(&line, "partition", o->partition);
	if (o->qos)
		add_filter(&line, "qos", o->qos);
	if (o->reservation)
		add_filter(&line, "reservation", o->reservation);
	if (o->state >= 0)
		add_filter(&line, "state", job_state_name((uint32_t)o->state));
	if (o->have_uid) {
		if (uid_to_name(o->uid, user, sizeof(user)) < 0)
			snprintf(user, sizeof(user), "%u", (unsigned)o->uid);
		add_filter(&line, "user_name", user);
	}
	if (o->wckey)
		add_filter(&line, "wckey", o->wckey_arg);
	cli_error("No active jobs match ALL job filters, including: %s", line);
	free(line);
}

/* -i: ask until the answer starts with y or n (end of input: no). */
static int confirm(const struct target *t, const struct job_info *j)
{
	char line[128];

	for (;;) {
		printf("Cancel %s=%s name=%s partition=%s [y/n]? ",
		       t->step_id != NO_VAL ? "step_id" : "job_id", t->text,
		       j && j->name ? j->name : "",
		       j && j->partition ? j->partition : "");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 0;
		if (line[0] == 'y' || line[0] == 'Y')
			return 1;
		if (line[0] == 'n' || line[0] == 'N')
			return 0;
	}
}

/* Send one request.  Returns 0, or 1 after printing a real error. */
static int cancel_one(const struct scancel_opts *o, const struct target *t)
{
	struct cancel_req req = {.job_id = t->job_id,
	                         .het_job_id = t->het_job_id,
	                         .step_id = t->step_id,
	                         .signal = o->signal,
	                         .flags = (o->full    ? CANCEL_F_FULL
	                                   : o->batch ? CANCEL_F_BATCH
	                                              : 0)};
	int is_step = t->step_id != NO_VAL;
	char *msg = NULL;
	void *body = NULL;
	int rc;

	if (o->verbose) {
		/* Slurm's words: "Signal 19 to batch job 5", "Terminating step 5.0" */
		const char *what = is_step    ? "step"
		                   : o->full  ? "full job"
		                   : o->batch ? "batch job"
		                              : "job";
		if (o->signal)
			fprintf(stderr, "%s: Signal %u to %s %s\n", cli_prog, o->signal,
			        what, t->text);
		else
			fprintf(stderr, "%s: Terminating %s %s\n", cli_prog, what,
			        t->text);
	}
	if (t->array_task != NO_VAL) {
		req.flags |= CANCEL_F_ARRAY_TASK;
		req.array_task_id = t->array_task;
	}
	rc = call_ctld(MSG_CANCEL_REQ, &req, MSG_RC, &body, &msg);
	if (rc == ESLURM_INVALID_JOB_ID || rc == ESLURM_ALREADY_DONE) {
		if (o->verbose)
			cli_error("Kill job error on job %sid %s: %s",
			          is_step ? "step " : "", t->text, msg);
		rc = 0;
	} else if (rc) {
		cli_error("Kill job error on job %sid %s: %s", is_step ? "step " : "",
		          t->text, msg);
		rc = 1;
	}
	free(msg);
	return rc;
}

int cmd_scancel(int argc, char **argv)
{
	struct scancel_opts o = {.state = -1};
	struct job_info_resp *jobs = NULL;
	int rc = 0;

	parse_env(&o);
	parse_args(&o, argc, argv);
	if (!o.ntargets && !o.have_filter) {
		cli_error("No job identification provided");
		exit(1);
	}
	if (o.have_filter || o.interactive) {
		jobs = load_jobs();
		rc = check_targets(&o, jobs);
	}
	if (o.have_filter) {
		size_t given = o.ntargets, matched = 0;

		for (uint32_t i = 0; i < jobs->jobs_count; i++) {
			char id[16];

			if (!job_matches(&o, &jobs->jobs[i]))
				continue;
			matched++;
			if (given)
				continue;
			snprintf(id, sizeof(id), "%u", jobs->jobs[i].job_id);
			add_target(&o, id);
		}
		if (!matched && o.verbose)
			report_no_match(&o);
	}
	for (size_t i = 0; i < o.ntargets; i++) {
		const struct target *t = &o.targets[i];
		const struct job_info *j = jobs ? find_job(jobs, t) : NULL;

		if (t->gone || (o.have_filter && (!j || !job_matches(&o, j))))
			continue;
		if (o.interactive && !confirm(t, j))
			continue;
		if (cancel_one(&o, t))
			rc = 1;
	}
	if (jobs)
		msg_body_free(MSG_JOB_INFO_RESP, jobs);
	for (size_t i = 0; i < o.ntargets; i++)
		free(o.targets[i].text);
	free(o.targets);
	free(o.name);
	free(o.partition);
	free(o.account);
	free(o.qos);
	free(o.reservation);
	hostlist_free(o.nodes);
	return rc;
}
