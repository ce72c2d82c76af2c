/* sacct.c - job accounting, as Slurm 22.05's sacct prints it.  The records
 * come from rotadbd (its unix socket, MSG_ACCT_QUERY), which holds every job
 * the controller has had, pending, running and finished. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/acct_client.h"
#include "cli/acct_time.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/pfields.h"
#include "proto/sacct.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

#define SACCT_JOBS_MAX   10000 /* -j entries */
#define SACCT_FIELDS_MAX 200
#define SACCT_WIDTH_MAX  4096

#define DEFAULT_FORMAT "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"
#define BRIEF_FORMAT   "JobID,State,ExitCode"
#define LONG_FORMAT                                                                      \
	"JobID,JobIDRaw,JobName,Partition,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,"        \
	"AveVMSize,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,"           \
	"MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,AllocCPUS,"    \
	"Elapsed,State,ExitCode,AveCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov,"   \
	"ReqMem,ConsumedEnergy,MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,AveDiskRead," \
	"MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,ReqTRES,AllocTRES," \
	"TRESUsageInAve,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,"           \
	"TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,"           \
	"TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask,TRESUsageOutAve,"       \
	"TRESUsageOutTot"

struct column {
	const struct sacct_field *f;
};

/* A step asked for with -j N.S: only it is printed of job N. */
struct step_pick {
	char *job; /* "N" or "N_T" */
	uint32_t step_id;
};

struct sacct_opts {
	struct column *cols;
	struct pf_col *pcols; /* how each is printed */
	size_t ncols;
	int parsable; /* 1: -p (trailing |), 2: -P */
	int noheader;
	int all_users;
	int allocations; /* -X: the jobs' lines alone */
	int verbose;     /* -v */
	int json;        /* --json */
	struct acct_query q;
	struct step_pick *picks;
	size_t npicks;
	struct sacct_ctx x; /* the configuration, and now */
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: sacct [<OPTION>]\n"
	    "  Valid <OPTION> values are:\n"
	    "  -a, --allusers        all users' jobs\n"
	    "  -A, --accounts=LIST   jobs of these accounts\n"
	    "  -b, --brief           JobID, State and ExitCode only\n"
	    "  -D, --duplicates      every run of a requeued job\n"
	    "  -e, --helpformat      list the fields -o accepts\n"
	    "  -E, --endtime=TIME    jobs that existed before TIME\n"
	    "  -g, --gid, --group=LIST jobs of these groups\n"
	    "  -j, --jobs=LIST       these jobs (N, N_T, N.S)\n"
	    "      --json            the records as JSON (Slurm's data_parser v0.0.38)\n"
	    "      --yaml            the same as YAML\n"
	    "  -l, --long            the long format\n"
	    "  -n, --noheader        no header\n"
	    "  -N, --nodelist=NODES  jobs that ran on these nodes\n"
	    "      --name=LIST       jobs of these names\n"
	    "  -o, --format=LIST     fields, each FIELD[%%WIDTH]\n"
	    "  -p, --parsable        fields separated by |, one at the end\n"
	    "  -P, --parsable2       fields separated by |\n"
	    "  -r, --partition=LIST  jobs of these partitions\n"
	    "  -s, --state=LIST      jobs in these states\n"
	    "  -S, --starttime=TIME  jobs that existed after TIME\n"
	    "  -u, --user=LIST       jobs of these users\n"
	    "  -v, --verbose         say the time window and the states asked for\n"
	    "  -X, --allocations     no steps\n");
}

static void help_format(void)
{
	for (size_t i = 0; i < sacct_field_count; i++)
		printf("%-20s%s", sacct_fields[i].name,
		       i % 4 == 3 || i + 1 == sacct_field_count ? "\n" : "");
}

static void parse_format(struct sacct_opts *o, const char *fmt)
{
	char **w = fmt_split(fmt, ", ");

	for (size_t i = 0; w[i]; i++) {
		char *pct = strchr(w[i], '%');
		const struct sacct_field *f;
		int width = -1;
		if (pct) {
			long n = cli_parse_long(pct + 1);
			if (n < 0 || n > SACCT_WIDTH_MAX) {
				cli_error("Invalid field width: \"%s\"", w[i]);
				exit(1);
			}
			width = (int)n;
			*pct = '\0';
		}
		if (!(f = sacct_field_find(w[i]))) {
			cli_error("Invalid field requested: \"%s\"", w[i]);
			exit(1);
		}
		if (o->ncols >= SACCT_FIELDS_MAX) {
			cli_error("more than %d fields", SACCT_FIELDS_MAX);
			exit(1);
		}
		o->cols = xrealloc(o->cols, (o->ncols + 1) * sizeof(*o->cols));
		o->pcols = xrealloc(o->pcols, (o->ncols + 1) * sizeof(*o->pcols));
		o->cols[o->ncols].f = f;
		o->pcols[o->ncols] =
		    (struct pf_col){f->name, width >= 0 ? width : f->width, f->left};
		o->ncols++;
	}
	fmt_strv_free(w);
}

static uint32_t parse_step(const char *s)
{
	if (!strcmp(s, "batch"))
		return STEP_BATCH;
	if (!strcmp(s, "extern"))
		return STEP_EXTERN;
	long n = cli_parse_long(s);
	return n < 0 || n >= (long)STEP_EXTERN ? NO_VAL : (uint32_t)n;
}

static void parse_jobs(struct sacct_opts *o, const char *arg)
{
	char **w = fmt_split(arg, ",");

	for (size_t i = 0; w[i]; i++) {
		char *dot = strchr(w[i], '.'), *under, *end;
		unsigned long id;
		if (strv_len(o->q.jobs) >= SACCT_JOBS_MAX) {
			cli_error("more than %d job ids", SACCT_JOBS_MAX);
			exit(1);
		}
		if (dot)
			*dot = '\0';
		id = strtoul(w[i], &end, 10);
		under = end;
		if (*under == '_' || *under == '+') { /* N_T, N+K */
			strtoul(under + 1, &end, 10);
			if (end == under + 1)
				end = under;
		}
		if (end == w[i] || *end || !id || id > UINT32_MAX - 2 ||
		    (dot && parse_step(dot + 1) == NO_VAL)) {
			cli_error("Invalid job id: %s%s%s", w[i], dot ? "." : "",
			          dot ? dot + 1 : "");
			exit(1);
		}
		if (dot) {
			o->picks =
			    xrealloc(o->picks, (o->npicks + 1) * sizeof(*o->picks));
			o->picks[o->npicks].job = xstrdup(w[i]);
			o->picks[o->npicks].step_id = parse_step(dot + 1);
			o->npicks++;
		}
		if (!strv_has(o->q.jobs, w[i], 0))
			o->q.jobs = strv_append(o->q.jobs, w[i]);
	}
	fmt_strv_free(w);
}

/* -u / -g: names or numbers into ids (groups: group names). */
static void parse_ids(const char *arg, int groups, struct rota_u32v *ids)
{
	char **w = fmt_split(arg, ",");

	for (size_t i = 0; w[i]; i++) {
		uid_t uid = 0;
		gid_t gid = 0;
		long n = cli_parse_long(w[i]);
		int found =
		    groups ? name_to_gid(w[i], &gid) == 0 : name_to_uid(w[i], &uid) == 0;

		if (!found && n < 0) {
			cli_error("Invalid %s id: %s", groups ? "group" : "user", w[i]);
			exit(1);
		}
		ids->v = xrealloc(ids->v, (ids->n + 1) * sizeof(uint32_t));
		ids->v[ids->n++] = !found ? (uint32_t)n : groups ? gid : uid;
	}
	fmt_strv_free(w);
}

static void parse_states(struct sacct_opts *o, const char *arg)
{
	char **w = fmt_split(arg, ",");

	for (size_t i = 0; w[i]; i++) {
		int st = job_state_parse(w[i]);
		if (st < 0) {
			cli_error("Invalid state: %s", w[i]);
			exit(1);
		}
		o->q.states.v =
		    xrealloc(o->q.states.v, (o->q.states.n + 1) * sizeof(uint32_t));
		o->q.states.v[o->q.states.n++] = (uint32_t)st & JOB_STATE_BASE;
	}
	fmt_strv_free(w);
}

/* -v: Slurm's lines on stderr, the storage it reads and the window. */
static void say_window(const struct sacct_opts *o)
{
	const struct conf *c = cli_conf();
	char s[32] = "Epoch 0", e[32], states[256] = "";
	struct tm tm;
	time_t t;

	if (c->accounting_storage_type &&
	    !strcmp(c->accounting_storage_type, "accounting_storage/slurmdbd"))
		fprintf(stderr, "sacct: accounting_storage/slurmdbd: init: Accounting "
		                "storage SLURMDBD plugin loaded\n");
	for (uint32_t i = 0; i < o->q.states.n; i++)
		snprintf(states + strlen(states), sizeof(states) - strlen(states), "%s%s",
		         i ? "," : "", job_state_name(o->q.states.v[i]));
	if (o->q.start && (t = (time_t)o->q.start, localtime_r(&t, &tm)))
		strftime(s, sizeof(s), "%a %b %d %T %Y", &tm);
	t = (time_t)o->q.end;
	if (!localtime_r(&t, &tm) || !strftime(e, sizeof(e), "%a %b %d %T %Y", &tm))
		e[0] = '\0';
	if (strcmp(s, e))
		fprintf(stderr, "sacct: Jobs %s in the time window from %s to %s\n",
		        *states ? states : "Eligible", s, e);
	else
		fprintf(stderr, "sacct: Jobs %s at the time instant %s\n",
		        *states ? states : "Eligible", s);
}

static char **parse_list(char **v, const char *arg)
{
	char **w = fmt_split(arg, ",");

	for (size_t i = 0; w[i]; i++)
		v = strv_append(v, w[i]);
	fmt_strv_free(w);
	return v;
}

static const struct option long_opts[] = {
    {"allusers", no_argument, NULL, 'a'},
    {"accounts", required_argument, NULL, 'A'},
    {"brief", no_argument, NULL, 'b'},
    {"duplicates", no_argument, NULL, 'D'},
    {"helpformat", no_argument, NULL, 'e'},
    {"endtime", required_argument, NULL, 'E'},
    {"gid", required_argument, NULL, 'g'},
    {"group", required_argument, NULL, 'g'},
    {"jobs", required_argument, NULL, 'j'},
    {"long", no_argument, NULL, 'l'},
    {"allclusters", no_argument, NULL, 'L'},
    {"clusters", required_argument, NULL, 'M'},
    {"noheader", no_argument, NULL, 'n'},
    {"nodelist", required_argument, NULL, 'N'},
    {"format", required_argument, NULL, 'o'},
    {"parsable", no_argument, NULL, 'p'},
    {"parsable2", no_argument, NULL, 'P'},
    {"partition", required_argument, NULL, 'r'},
    {"state", required_argument, NULL, 's'},
    {"starttime", required_argument, NULL, 'S'},
    {"user", required_argument, NULL, 'u'},
    {"uid", required_argument, NULL, 'u'},
    {"allocations", no_argument, NULL, 'X'},
    {"verbose", no_argument, NULL, 'v'},
    {"name", required_argument, NULL, 1},
    {"units", required_argument, NULL, 2},
    {"noconvert", no_argument, NULL, 3},
    {"json", no_argument, NULL, 4},
    {"yaml", no_argument, NULL, 5},
    {"help", no_argument, NULL, 'h'},
    {"usage", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* ---- output ---- */

static void print_header(struct fmtbuf *b, const struct sacct_opts *o)
{
	pf_header(b, o->pcols, o->ncols, (enum pf_mode)o->parsable);
}

static void print_row(struct fmtbuf *b, const struct sacct_opts *o,
                      const struct acct_job *j, const struct acct_step *st)
{
	char buf[512];

	for (size_t i = 0; i < o->ncols; i++)
		pf_cell(b, sacct_value(&o->x, o->cols[i].f->id, j, st, buf, sizeof(buf)),
		        &o->pcols[i], (enum pf_mode)o->parsable, i + 1 == o->ncols);
	pf_end_line(b);
}

/* The steps picked (-j N.S) of this run; -1 when none was picked for it. */
static int picked(const struct sacct_opts *o, const struct acct_job *j, uint32_t step_id)
{
	char id[64], task[64], het[64];
	int any = 0;

	snprintf(id, sizeof(id), "%u", j->job_id);
	snprintf(task, sizeof(task), "%u_%u", j->array_job_id, j->array_task_id);
	snprintf(het, sizeof(het), "%u+%u", j->het_job_id, j->het_offset);
	for (size_t i = 0; i < o->npicks; i++) {
		const char *p = o->picks[i].job;
		int plain = !strchr(p, '_') && !strchr(p, '+');
		uint32_t n = (uint32_t)strtoul(p, NULL, 10);
		if (strcmp(p, id) && strcmp(p, task) &&
		    !(j->het_job_id &&
		      (!strcmp(p, het) || (plain && n == j->het_job_id))) &&
		    !(j->array_job_id && plain && n == j->array_job_id))
			continue;
		any = 1;
		if (o->picks[i].step_id == step_id)
			return 1;
	}
	return any ? 0 : -1;
}

/* Was the whole job asked for (-j N), not only some of its steps? */
static int whole_job(const struct sacct_opts *o, const struct acct_job *j)
{
	if (!o->npicks)
		return 1;
	for (size_t i = 0; o->q.jobs && o->q.jobs[i]; i++) {
		int only_steps = 0;
		for (size_t k = 0; k < o->npicks; k++)
			if (!strcmp(o->picks[k].job, o->q.jobs[i]))
				only_steps = 1;
		if (!only_steps && picked(o, j, NO_VAL) != 0)
			return 1;
	}
	return picked(o, j, NO_VAL) < 0;
}

static void print_job(struct fmtbuf *b, const struct sacct_opts *o,
                      const struct acct_job *j)
{
	int whole = whole_job(o, j);

	if (whole)
		print_row(b, o, j, NULL);
	if (o->allocations && !o->npicks)
		return;
	for (uint32_t i = 0; i < j->steps_count; i++)
		if (whole || picked(o, j, j->steps[i].step_id) == 1)
			print_row(b, o, j, &j->steps[i]);
}

struct printing {
	struct fmtbuf b;
	const struct sacct_opts *o;
	json_t *jobs; /* --json */
};

static void on_connected(void *arg)
{
	struct printing *p = arg;

	if (!p->o->noheader && !p->o->json)
		print_header(&p->b, p->o);
}

static void on_job(void *arg, const struct acct_job *j)
{
	struct printing *p = arg;

	if (p->jobs)
		sacct_json_add(&p->o->x, p->jobs, j, !p->o->allocations);
	else
		print_job(&p->b, p->o, j);
}

static int query(struct sacct_opts *o)
{
	struct printing p = {.o = o};
	struct acct_fetch_cb cb = {on_connected, on_job, &p};
	int rc;

	o->x.conf = cli_conf();
	if (o->json && !(p.jobs = json_array()))
		fatal("out of memory");
	rc = acct_fetch(&o->q, &cb);
	if (p.jobs && rc == 0) {
		json_t *doc = sacct_json_doc(p.jobs);

		cli_print_doc(doc, o->json);
		json_decref(doc);
	} else if (p.jobs)
		json_decref(p.jobs);
	if (p.b.len)
		fwrite(p.b.data, 1, p.b.len, stdout);
	fmtbuf_release(&p.b);
	return rc;
}

/* Slurm's window [start, end) where -S or -E is not given: with states,
 * the instant -S (now unless jobs are named, then from the epoch); without,
 * from midnight (the epoch for jobs named) to now.  An end that is the start
 * or now takes in that second.  -v says what it is. */
static int window(struct sacct_opts *o)
{
	time_t now = o->x.now;
	char s[64], e[64];

	if (o->q.states.n) {
		if (!o->q.start && !o->q.jobs)
			o->q.start = now;
		if (o->q.start && !o->q.end)
			o->q.end = o->q.start;
	} else if (!o->q.jobs && !o->q.start)
		o->q.start = acct_time_arg("start", "today", now);
	if (!o->q.end)
		o->q.end = now;
	if (o->q.end == o->q.start || o->q.end == now)
		o->q.end++;
	if (o->q.start > o->q.end) {
		cli_error("Start time (%s) requested is after end time (%s).",
		          timefmt_iso((time_t)o->q.start, s, sizeof(s)),
		          timefmt_iso((time_t)o->q.end, e, sizeof(e)));
		return -1;
	}
	if (o->verbose)
		say_window(o);
	return 0;
}

int cmd_sacct(int argc, char **argv)
{
	struct sacct_opts o = {.x = {.now = time(NULL)}};
	const char *fmt = NULL, *start = NULL, *end = NULL;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "aA:bDeE:g:j:lLM:nN:o:pPr:s:S:u:vXhV",
	                          long_opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			o.all_users = 1;
			break;
		case 'A':
			o.q.accounts = parse_list(o.q.accounts, optarg);
			break;
		case 'b':
			fmt = BRIEF_FORMAT;
			break;
		case 'D':
			o.q.flags |= ACCT_QUERY_F_DUPLICATES;
			break;
		case 'e':
			help_format();
			return 0;
		case 'E':
			end = optarg;
			break;
		case 'g':
			parse_ids(optarg, 1, &o.q.gids);
			break;
		case 'j':
			parse_jobs(&o, optarg);
			break;
		case 'l':
			fmt = LONG_FORMAT;
			break;
		case 'L':
		case 'M':
		case 2:
			break; /* one cluster; units as they are */
		case 3:
			o.x.noconvert = 1;
			break;
		case 'n':
			o.noheader = 1;
			break;
		case 'N':
			if (o.q.nodes)
				cli_error("Already asked for nodes '%s'", o.q.nodes);
			else
				o.q.nodes = xstrdup(optarg);
			break;
		case 'o':
			parse_format(&o, optarg);
			break;
		case 'p':
			o.parsable = 1;
			break;
		case 'P':
			o.parsable = 2;
			break;
		case 'r':
			o.q.partitions = parse_list(o.q.partitions, optarg);
			break;
		case 's':
			parse_states(&o, optarg);
			break;
		case 'S':
			start = optarg;
			break;
		case 'u':
			parse_ids(optarg, 0, &o.q.uids);
			break;
		case 'v':
			o.verbose++;
			break;
		case 'X':
			o.allocations = 1;
			o.q.flags |= ACCT_QUERY_F_NO_STEPS;
			break;
		case 1:
			o.q.names = parse_list(o.q.names, optarg);
			break;
		case 4:
			o.json = 1;
			break;
		case 5:
			o.json = CLI_DOC_YAML;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			fmt_print_version();
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		cli_error("Unknown arguments: %s", argv[optind]);
		return 1;
	}
	if (!o.ncols)
		parse_format(&o, fmt ? fmt : DEFAULT_FORMAT);
	if (o.npicks)
		o.q.flags &= ~ACCT_QUERY_F_NO_STEPS;
	for (size_t i = 0; i < o.ncols; i++)
		if (sacct_field_sums_steps(o.cols[i].f->id))
			o.q.flags &= ~ACCT_QUERY_F_NO_STEPS;
	if (o.json) /* a job's CPU times are its steps' */
		o.q.flags &= ~ACCT_QUERY_F_NO_STEPS;
	if (start)
		o.q.start = acct_time_arg("start", start, o.x.now);
	if (end)
		o.q.end = acct_time_arg("end", end, o.x.now);
	if (window(&o) < 0)
		return 1;
	/* a user sees their own jobs unless they name others, jobs, nodes or
	 * all */
	if (!o.all_users && !o.q.uids.n && !o.q.jobs && !o.q.nodes && getuid() != 0) {
		o.q.uids.v = xcalloc(1, sizeof(uint32_t));
		o.q.uids.v[0] = getuid();
		o.q.uids.n = 1;
	}
	rc = query(&o);
	codec_release(&acct_query_type, &o.q);
	for (size_t i = 0; i < o.npicks; i++)
		free(o.picks[i].job);
	free(o.picks);
	free(o.cols);
	free(o.pcols);
	return rc;
}
