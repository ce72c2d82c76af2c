/* sstat.c - what running job steps use now, as Slurm 22.05's sstat prints it.
 *
 * Each -j entry is one MSG_STEP_STAT_REQ to the controller, which asks the
 * step's nodes (ctld/step_stat.h) and answers with each node's figures; they
 * are aggregated here (sstat_fields.c), as Slurm's sstat aggregates what its
 * slurmds send.  With -a, the job's steps are listed first, then asked for
 * and printed one by one in the order they started, as Slurm's sstat does. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/pfields.h"
#include "cli/sstat.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "common/common.h"

#define SSTAT_STEPS_MAX  10000 /* -j entries */
#define SSTAT_FIELDS_MAX 200
#define SSTAT_SPEC_MAX   (64u << 10) /* -o text, all of it */

#define DEFAULT_FIELDS                                                                   \
	"JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,MaxRSSNode,"       \
	"MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,AvePages,MinCPU,"          \
	"MinCPUNode,MinCPUTask,AveCPU,NTasks,AveCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax,"    \
	"ReqCPUFreqGov,ConsumedEnergy,MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,"      \
	"AveDiskRead,MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,"       \
	"TRESUsageInAve,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,"           \
	"TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,"           \
	"TRESUsageOutAve,TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask,"       \
	"TRESUsageOutMin,TRESUsageOutMinNode,TRESUsageOutMinTask,TRESUsageOutTot"
#define PID_FIELDS "JobID,Nodelist,Pids"

enum { OPT_NOCONVERT = 256, OPT_USAGE };

struct pick {
	uint32_t job_id, step_id; /* step NO_VAL: none named */
	uint32_t array_task_id;   /* N_T: T; NO_VAL: not an array task */
};

struct sstat_opts {
	struct pick *picks;
	size_t npicks;
	char *fields; /* -o words, comma-joined, NULL: the default */
	int all_steps, pid_format, noheader;
	enum pf_mode mode;
	enum acctg_convert conv;
	const struct sstat_field **cols;
	struct pf_col *pcols;
	size_t ncols;
};

static void help(void)
{
	printf("sstat [<OPTION>] -j <job(.stepid)>\n"
	       "  Valid <OPTION> values are:\n"
	       "  -a, --allsteps      every running step of jobs given without a step\n"
	       "  -e, --helpformat    list the fields -o accepts\n"
	       "  -i, --pidformat     JobID, Nodelist and Pids of each node\n"
	       "  -j, --jobs=LIST     job(.step),...: the job's first step without one\n"
	       "  -n, --noheader      no header\n"
	       "      --noconvert     sizes in bytes, not converted\n"
	       "  -o, --format=LIST   fields, each FIELD[%%[-]WIDTH]\n"
	       "  -p, --parsable      fields separated by |, one at the end\n"
	       "  -P, --parsable2     fields separated by |\n"
	       "  -V, --version       print the version\n");
}

static void help_format(void)
{
	for (size_t i = 0; i < sstat_field_count; i++)
		printf("%s%-19s", i % 4 ? " " : i ? "\n" : "", sstat_fields[i].name);
	printf("\n");
}

static void bad_job(const char *what)
{
	fprintf(stderr, "sstat: fatal: Bad job/step specified: %s\n", what);
	exit(1);
}

static long parse_id(const char *s)
{
	long v = cli_parse_long(s);
	return v <= 0 || v >= (long)STEP_EXTERN ? -1 : v;
}

static void add_pick(struct sstat_opts *o, const char *word)
{
	char *w = xstrdup(word), *dot = strchr(w, '.'), *under;
	struct pick p = {.step_id = NO_VAL, .array_task_id = NO_VAL};
	long v;

	if (dot)
		*dot++ = '\0';
	if ((under = strchr(w, '_'))) {
		*under++ = '\0';
		if ((v = cli_parse_long(under)) < 0 || v >= (long)NO_VAL)
			bad_job(word);
		p.array_task_id = (uint32_t)v;
	}
	if ((v = parse_id(w)) < 0)
		bad_job(word);
	p.job_id = (uint32_t)v;
	if (dot) {
		if (!strcasecmp(dot, "batch"))
			p.step_id = STEP_BATCH;
		else if (!strcasecmp(dot, "extern"))
			p.step_id = STEP_EXTERN;
		else if ((v = cli_parse_long(dot)) < 0 || v >= (long)STEP_EXTERN) {
			fprintf(stderr, "sstat: fatal: Bad step specified: %s\n", w);
			exit(1);
		} else
			p.step_id = (uint32_t)v;
	}
	free(w);
	for (size_t i = 0; i < o->npicks; i++)
		if (o->picks[i].job_id == p.job_id && o->picks[i].step_id == p.step_id &&
		    o->picks[i].array_task_id == p.array_task_id)
			return; /* named twice: shown once, as Slurm does */
	if (o->npicks >= SSTAT_STEPS_MAX) {
		cli_error("more than %d job steps", SSTAT_STEPS_MAX);
		exit(1);
	}
	o->picks = xrealloc(o->picks, (o->npicks + 1) * sizeof(*o->picks));
	o->picks[o->npicks++] = p;
}

static void add_picks(struct sstat_opts *o, const char *arg)
{
	char **w = strv_split(arg, ",");

	for (size_t i = 0; w[i]; i++)
		if (*w[i])
			add_pick(o, w[i]);
	strv_free(w);
}

static void add_fields(struct sstat_opts *o, const char *spec)
{
	size_t have = o->fields ? strlen(o->fields) : 0;
	char *f;

	if (have + strlen(spec) + 2 > SSTAT_SPEC_MAX) {
		cli_error("format list too long");
		exit(1);
	}
	f = xasprintf("%s%s%s", o->fields ? o->fields : "", have ? "," : "", spec);
	free(o->fields);
	o->fields = f;
}

static void parse_fields(struct sstat_opts *o)
{
	char **w = strv_split(o->fields ? o->fields : DEFAULT_FIELDS, ",");

	for (size_t i = 0; w[i]; i++) {
		const struct sstat_field *f;
		int width = -1, left = 0;
		char *word = w[i];
		while (*word == ' ' || *word == '\t')
			word++;
		if (!*word)
			continue;
		if (pf_parse_width(word, &width, &left) < 0) {
			cli_error("Invalid field width: \"%s\"", w[i]);
			exit(1);
		}
		if (!(f = sstat_field_find(word))) {
			cli_error("Invalid field requested: \"%s\"", word);
			exit(1);
		}
		if (o->ncols >= SSTAT_FIELDS_MAX) {
			cli_error("more than %d fields", SSTAT_FIELDS_MAX);
			exit(1);
		}
		o->cols = xrealloc(o->cols, (o->ncols + 1) * sizeof(*o->cols));
		o->pcols = xrealloc(o->pcols, (o->ncols + 1) * sizeof(*o->pcols));
		o->cols[o->ncols] = f;
		/* a width given (not 0) also says the side: "-N" left */
		o->pcols[o->ncols] = (struct pf_col){
		    f->name, width > 0 ? width : f->width, width > 0 ? left : f->left};
		o->ncols++;
	}
	strv_free(w);
}

static void parse_args(struct sstat_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"allsteps", no_argument, NULL, 'a'},
	    {"helpformat", no_argument, NULL, 'e'},
	    {"help", no_argument, NULL, 'h'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"noheader", no_argument, NULL, 'n'},
	    {"fields", required_argument, NULL, 'o'},
	    {"format", required_argument, NULL, 'o'},
	    {"noconvert", no_argument, NULL, OPT_NOCONVERT},
	    {"pidformat", no_argument, NULL, 'i'},
	    {"parsable", no_argument, NULL, 'p'},
	    {"parsable2", no_argument, NULL, 'P'},
	    {"usage", no_argument, NULL, OPT_USAGE},
	    {"verbose", no_argument, NULL, 'v'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	int c, show_help = 0;

	while ((c = getopt_long(argc, argv, "aehij:no:pPvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->all_steps = 1;
			break;
		case 'e':
			show_help = 2;
			break;
		case 'h':
			show_help = 1;
			break;
		case 'i':
			o->pid_format = 1;
			add_fields(o, PID_FIELDS);
			break;
		case 'j':
			add_picks(o, optarg);
			break;
		case 'n':
			o->noheader = 1;
			break;
		case 'o':
			add_fields(o, optarg);
			break;
		case 'p':
			o->mode = PF_PARSABLE;
			break;
		case 'P':
			o->mode = PF_PARSABLE2;
			break;
		case OPT_NOCONVERT:
			o->conv = ACCTG_CONVERT_NO;
			break;
		case OPT_USAGE:
			show_help = 3;
			break;
		case 'v':
			break;
		case 'V':
			printf("slurm 22.05.8\n");
			exit(0);
		default:
			exit(1);
		}
	}
	if (show_help == 1)
		help();
	else if (show_help == 2)
		help_format();
	else if (show_help == 3)
		printf(
		    "Usage: sstat [options] -j <job(.stepid)>\n\tUse --help for help\n");
	if (show_help)
		exit(0);
	if (optind < argc)
		add_picks(o, argv[optind]);
}

static void print_row(const struct sstat_opts *o, const struct sstat_row *row,
                      struct fmtbuf *b)
{
	char buf[8192];

	for (size_t i = 0; i < o->ncols; i++)
		pf_cell(b, sstat_value(o->cols[i]->id, row, buf, sizeof(buf)),
		        &o->pcols[i], o->mode, i + 1 == o->ncols);
	pf_end_line(b);
}

static void print_step(const struct sstat_opts *o, const struct step_stat *ss,
                       struct fmtbuf *b)
{
	struct sstat_row row;
	char what[64];

	if (ss->rc) {
		if (ss->step_id == STEP_BATCH)
			snprintf(what, sizeof(what), "%u.batch", ss->job_id);
		else
			snprintf(what, sizeof(what), "%u.%u", ss->job_id, ss->step_id);
		cli_error("problem getting step_layout for StepId=%s: %s", what,
		          slurm_strerror(ss->rc < 0 ? -ss->rc : ss->rc));
		return;
	}
	/* no node answered: it has just ended (Slurm says so in debug only) */
	if (!ss->node_stats_count)
		return;
	if (!o->pid_format) {
		sstat_row_init(&row, ss, 0, ss->node_stats_count, o->conv);
		print_row(o, &row, b);
		return;
	}
	for (size_t i = 0; i < ss->node_stats_count; i++) {
		sstat_row_init(&row, ss, i, i + 1, o->conv);
		print_row(o, &row, b);
	}
}

static void flush_out(struct fmtbuf *b)
{
	if (b->len)
		fwrite(b->data, 1, b->len, stdout);
	fflush(stdout);
	b->len = 0;
}

/* One step of a listed job, asked of its nodes now and printed at once, as
 * Slurm's sstat asks and prints each step in turn (a step ended since the
 * listing: nothing). */
static void stat_listed(const struct sstat_opts *o, const struct step_stat *ls,
                        struct fmtbuf *b)
{
	struct step_stat_req req = {.job_id = ls->job_id, .step_id = ls->step_id};
	struct step_stat_resp *r = NULL;
	char *msg = NULL;

	if (ls->rc || ls->node_stats_count) { /* refused, or answered already */
		print_step(o, ls, b);
		flush_out(b);
		return;
	}
	if (call_ctld(MSG_STEP_STAT_REQ, &req, MSG_STEP_STAT_RESP, (void **)&r, &msg)) {
		free(msg);
		return;
	}
	for (uint32_t i = 0; i < r->steps_count; i++)
		print_step(o, &r->steps[i], b);
	flush_out(b);
	msg_body_free(MSG_STEP_STAT_RESP, r);
}

/* -a without a step named: the job's running steps are listed first (the
 * controller asks no node), then each is asked for in turn. */
static void stat_one(const struct sstat_opts *o, const struct pick *p, struct fmtbuf *b)
{
	int listing = o->all_steps && p->step_id == NO_VAL;
	struct step_stat_req req = {
	    .job_id = p->job_id,
	    .step_id = p->step_id,
	    .flags = (o->all_steps ? STEP_STAT_F_ALL : 0) |
	             (listing ? STEP_STAT_F_LIST : 0) |
	             (p->array_task_id != NO_VAL ? STEP_STAT_F_ARRAY : 0),
	    .array_task_id = p->array_task_id};
	struct step_stat_resp *r = NULL;
	char *msg = NULL;
	uint32_t id;

	if (call_ctld(MSG_STEP_STAT_REQ, &req, MSG_STEP_STAT_RESP, (void **)&r, &msg)) {
		cli_error("couldn't get steps for job %u", p->job_id);
		free(msg);
		return;
	}
	/* an array task's errors name its own job id, as Slurm's do */
	id = r->job_id ? r->job_id : p->job_id;
	if (!r->running && p->step_id == NO_VAL)
		cli_error("No steps running for job %u", id);
	else if (!r->steps_count && p->step_id != NO_VAL) {
		if (p->step_id == STEP_BATCH)
			cli_error("StepId=%u.batch not found running.", id);
		else if (p->step_id == STEP_EXTERN)
			cli_error("StepId=%u.extern not found running.", id);
		else
			cli_error("StepId=%u.%u not found running.", id, p->step_id);
	}
	for (uint32_t i = 0; i < r->steps_count; i++) {
		if (listing)
			stat_listed(o, &r->steps[i], b);
		else
			print_step(o, &r->steps[i], b);
	}
	msg_body_free(MSG_STEP_STAT_RESP, r);
}

int cmd_sstat(int argc, char **argv)
{
	struct sstat_opts o = {.conv = ACCTG_CONVERT_EXACT};
	struct fmtbuf b = {0};

	parse_args(&o, argc, argv);
	parse_fields(&o);
	if (!o.npicks) {
		cli_error("You didn't give me any jobs to stat.");
		return 1;
	}
	if (!o.noheader)
		pf_header(&b, o.pcols, o.ncols, o.mode);
	for (size_t i = 0; i < o.npicks; i++) {
		/* what is printed so far goes before this one's errors */
		flush_out(&b);
		stat_one(&o, &o.picks[i], &b);
	}
	flush_out(&b);
	fmtbuf_release(&b);
	free(o.picks);
	free(o.fields);
	free(o.cols);
	free(o.pcols);
	return 0;
}
