/* sprio.c - each pending job's priority and its factors, as Slurm 22.05's sprio
 * prints them.  The factors come from the controller (MSG_PRIO_INFO_REQ); the
 * -u/-p filters, the -S order and the -o columns are applied here. */
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/conf.h"
#include "common/fmtspec.h"
#include "common/ranksort.h"
#include "common/strv.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "common/common.h"

#define SPRIO_IDS_MAX 10000

/* The formats Rota printed before -o existed (the columns it has factors for);
 * -n keeps its own priority and site cells, see legacy_norm(). */
#define SPRIO_FMT_HEAD  "%.15i %9r"
#define SPRIO_FMT_SIB   " %.8c" /* --sibling */
#define SPRIO_FMT       " %.10Y %.10S %.10A %.10F %.10J %.10P %.10Q"
#define SPRIO_FMT_LONG  " %.8u" SPRIO_FMT " %.11N"
#define SPRIO_FMT_NORM  " %.10y %.10S %.10a %.10f %.10j %.10p %.10q"
#define SPRIO_FMT_NORML " %.8u" SPRIO_FMT_NORM " %.11N"
#define SPRIO_SORT      "i"

enum sprio_flags {
	SPRIO_LONG = 1 << 0,
	SPRIO_NORM = 1 << 1,
	SPRIO_WEIGHTS = 1 << 2,
	SPRIO_NOHEADER = 1 << 3,
	SPRIO_JOB_FLAG = 1 << 4, /* -j given, with or without a list */
	SPRIO_SIBLING = 1 << 5,
	SPRIO_LOCAL = 1 << 6, /* --local or -M */
};

struct sprio_opts {
	unsigned flags;
	int verbose;
	struct rota_u32v ids;  /* -j */
	char **users;          /* -u: names */
	char **parts;          /* -p */
	const char *jobs_arg;  /* as given, for -v */
	const char *users_arg; /* as given, for -v */
	const char *parts_arg; /* as given, for -v */
	const char *format;    /* -o or SPRIO_FORMAT; NULL: the built-in one */
	const char *sort;      /* -S */
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: sprio [OPTIONS]\n"
	           "      --federation      display jobs in federation if a member of "
	           "one\n"
	           "  -h, --noheader        no headers on output\n"
	           "  -j, --jobs[=LIST]     comma separated list of jobs\n"
	           "                        to view, default is all\n"
	           "      --local           display jobs on local cluster only\n"
	           "  -l, --long            long report\n"
	           "  -M, --clusters=NAME   cluster to issue commands to (this one)\n"
	           "  -n, --norm            display normalized values\n"
	           "  -o, --format=FORMAT   format specification\n"
	           "  -p, --partition=LIST  comma separated list of partitions\n"
	           "      --sibling         display job records separately for each\n"
	           "                        federation cluster\n"
	           "  -S, --sort=FIELDS     sort order, e.g. \"u,r,-y\"\n"
	           "  -u, --user=LIST       comma separated list of users\n"
	           "  -v, --verbose         verbosity level\n"
	           "  -V, --version         output version information and exit\n"
	           "  -w, --weights         show the weights for each priority factor\n"
	           "\nHelp options:\n"
	           "      --help            show this help message\n"
	           "      --usage           display a brief summary of sprio options\n");
}

static void short_usage(void)
{
	printf("Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
	       "   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n");
}

static void parse_jobs(struct sprio_opts *o, const char *arg)
{
	char **w = fmt_split(arg, ",");
	size_t n = fmt_strv_len(w);

	if (o->ids.n + n > SPRIO_IDS_MAX) {
		cli_error("more than %d job ids", SPRIO_IDS_MAX);
		exit(1);
	}
	o->ids.v = xrealloc(o->ids.v, (o->ids.n + n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		uint32_t id;
		if (fmt_parse_job_id(w[i], &id) < 0) {
			cli_error("Invalid job id: %s", w[i]);
			exit(1);
		}
		o->ids.v[o->ids.n++] = id;
	}
	fmt_strv_free(w);
	o->jobs_arg = arg;
}

/* -u takes names or uids; keep names. */
static void parse_users(struct sprio_opts *o, const char *arg)
{
	char **w = fmt_split(arg, ",");

	for (size_t i = 0; w[i]; i++) {
		long uid = cli_parse_long(w[i]);
		char name[256];
		if (uid >= 0 && uid_to_name((uid_t)uid, name, sizeof(name)) == 0) {
			free(w[i]);
			w[i] = xstrdup(name);
		}
	}
	fmt_strv_free(o->users);
	o->users = w;
	o->users_arg = arg;
}

/* -M: Slurm's lookup first (an unknown name fails), then its one-cluster rule. */
static void parse_clusters(struct sprio_opts *o, const char *arg, int isenv)
{
	cli_clusters_check(arg, isenv);
	if (strchr(arg, ',')) {
		fprintf(stderr,
		        "%s: fatal: Only one cluster can be used at a time with "
		        "sprio\n",
		        cli_prog);
		exit(1);
	}
	o->flags |= SPRIO_LOCAL;
}

/* What -v prints, in Slurm's layout: the options as given. */
static void print_options(const struct sprio_opts *o)
{
	printf("-----------------------------\n");
	printf("format     = %s\n", o->format ? o->format : "(null)");
	printf("job_flag   = %d\n", !!(o->flags & SPRIO_JOB_FLAG));
	printf("jobs       = %s\n", o->jobs_arg ? o->jobs_arg : "(null)");
	printf("partition  = %s\n", o->parts_arg ? o->parts_arg : "(null)");
	printf("users      = %s\n", o->users_arg ? o->users_arg : "(null)");
	printf("verbose    = %d\n", o->verbose);
	for (size_t i = 0; o->verbose > 1 && i < o->ids.n; i++)
		printf("job_list[%zu] = %u\n", i, o->ids.v[i]);
	for (size_t i = 0, n = 0; o->verbose > 1 && o->users && o->users[i]; i++) {
		uid_t uid;
		if (name_to_uid(o->users[i], &uid) == 0)
			printf("user_list[%zu] = %u\n", n++, (unsigned)uid);
	}
	printf("-----------------------------\n\n\n");
}

/* ---- columns ---- */

enum {
	/* Rota's -n has always shown the priority and the site as 0.nnnnnnn (Slurm
	 * prints %y with 14 decimals and has no normalized site). */
	FIELD_NORM_PRIO_LEGACY = 1,
	FIELD_NORM_SITE_LEGACY = 2,
};

static const struct fmt_field sprio_fields[] = {
    {'a', 'a', NULL, "AGE", 0},
    {'A', 'A', NULL, "AGE", 0},
    {'b', 'b', NULL, "ASSOC", 0},
    {'B', 'B', NULL, "ASSOC", 0},
    {'c', 'c', NULL, "CLUSTER", 0},
    {'f', 'f', NULL, "FAIRSHARE", 0},
    {'F', 'F', NULL, "FAIRSHARE", 0},
    {'i', 'i', NULL, "JOBID", 0},
    {'j', 'j', NULL, "JOBSIZE", 0},
    {'J', 'J', NULL, "JOBSIZE", 0},
    {'N', 'N', NULL, "NICE", 0},
    {'p', 'p', NULL, "PARTITION", 0},
    {'P', 'P', NULL, "PARTITION", 0},
    {'q', 'q', NULL, "QOS", 0},
    {'Q', 'Q', NULL, "QOS", 0},
    {'r', 'r', NULL, "PARTITION", 0},
    {'S', 'S', NULL, "SITE", 0},
    {'t', 't', NULL, "TRES", 0},
    {'T', 'T', NULL, "TRES", 0},
    {'u', 'u', NULL, "USER", 0},
    {'y', 'y', NULL, "PRIORITY", 0},
    {'Y', 'Y', NULL, "PRIORITY", 0},
    {FIELD_NORM_PRIO_LEGACY, 0, NULL, "PRIORITY", 0},
    {FIELD_NORM_SITE_LEGACY, 0, NULL, "SITE", 0},
};
#define SPRIO_NFIELDS (sizeof(sprio_fields) / sizeof(sprio_fields[0]))

static const struct fmt_field *field_by_id(int id)
{
	for (size_t i = 0; i < SPRIO_NFIELDS; i++)
		if (sprio_fields[i].id == id)
			return &sprio_fields[i];
	return NULL;
}

struct row_ctx {
	const struct prio_info_resp *resp;
	const char *cluster;
};

static double nv(uint32_t v)
{
	return (double)v / PRIO_NORM_SCALE;
}

/* Each factor's two letters (-o, -S) and where its weighted value, its
 * normalized value and its weight are. */
static const struct factor {
	char weighted, normalized;
	size_t value, norm; /* in struct prio_info */
	size_t weight;      /* in struct prio_info_resp */
} factors[] = {
    {'A', 'a', offsetof(struct prio_info, age), offsetof(struct prio_info, n_age),
     offsetof(struct prio_info_resp, weight_age)},
    {'B', 'b', offsetof(struct prio_info, assoc), offsetof(struct prio_info, n_assoc),
     offsetof(struct prio_info_resp, weight_assoc)},
    {'F', 'f', offsetof(struct prio_info, fairshare),
     offsetof(struct prio_info, n_fairshare),
     offsetof(struct prio_info_resp, weight_fairshare)},
    {'J', 'j', offsetof(struct prio_info, jobsize), offsetof(struct prio_info, n_jobsize),
     offsetof(struct prio_info_resp, weight_jobsize)},
    {'P', 'p', offsetof(struct prio_info, partition_factor),
     offsetof(struct prio_info, n_partition),
     offsetof(struct prio_info_resp, weight_partition)},
    {'Q', 'q', offsetof(struct prio_info, qos), offsetof(struct prio_info, n_qos),
     offsetof(struct prio_info_resp, weight_qos)},
};

static const struct factor *factor_of(int id)
{
	for (size_t i = 0; i < sizeof(factors) / sizeof(factors[0]); i++)
		if (factors[i].weighted == id || factors[i].normalized == id)
			return &factors[i];
	return NULL;
}

static uint32_t u32_at(const void *base, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)base + off, sizeof(v));
	return v;
}

/* The -w row: each factor's weight; PriorityWeightTRES as written (unset:
 * "(null)", as Slurm prints it). */
static const char *weight_value(int id, const struct prio_info_resp *r, char *buf,
                                size_t len)
{
	const struct factor *f = factor_of(id);

	if (f)
		snprintf(buf, len, "%u", u32_at(r, f->weight));
	else if (id == 'S' || id == FIELD_NORM_SITE_LEGACY)
		snprintf(buf, len, "1");
	else
		return id == 'i' ? "Weights" : id == 'T' ? r->weight_tres : "";
	return buf;
}

/* A factor's cell: upper case the weighted value, lower case the normalized. */
static const char *factor_value(const struct factor *f, int id, const struct prio_info *p,
                                char *buf, size_t len)
{
	if (id == f->normalized)
		snprintf(buf, len, "%.7f", nv(u32_at(p, f->norm)));
	else
		snprintf(buf, len, "%u", u32_at(p, f->value));
	return buf;
}

static const char *job_value(int id, const struct prio_info *p, const char *cluster,
                             char *buf, size_t len)
{
	const struct factor *f = factor_of(id);

	if (f)
		return factor_value(f, id, p, buf, len);
	switch (id) {
	case 'i':
		snprintf(buf, len, "%u", p->job_id);
		return buf;
	case 'r':
		return p->partition ? p->partition : "";
	case 'u':
		return p->user ? p->user : "";
	case 'c':
		return cluster;
	case 'Y':
		snprintf(buf, len, "%u", p->priority);
		return buf;
	case 'y': /* a priority an admin set: as it is, as Slurm's */
		snprintf(buf, len, "%16.14f",
		         p->direct ? (double)p->priority
		                   : (double)p->priority / UINT32_MAX);
		return buf;
	case FIELD_NORM_PRIO_LEGACY:
		snprintf(buf, len, "%.7f", (double)p->priority / UINT32_MAX);
		return buf;
	case 'S':
		snprintf(buf, len, "%d", (int32_t)p->site);
		return buf;
	case FIELD_NORM_SITE_LEGACY:
		return "0.0000000";
	case 'N':
		snprintf(buf, len, "%d", (int32_t)p->nice);
		return buf;
	case 'T':
		return p->tres ? p->tres : "";
	case 't':
		return p->n_tres ? p->n_tres : "";
	default:
		return "";
	}
}

/* rec NULL: the -w row. */
static const char *cell(const struct fmt_col *col, const void *rec, void *ctx, char *buf,
                        size_t len)
{
	const struct row_ctx *c = ctx;

	if (!rec)
		return weight_value(col->field->id, c->resp, buf, len);
	return job_value(col->field->id, rec, c->cluster, buf, len);
}

/* -n's built-in formats: the priority and site cells Rota's -n has printed. */
static void legacy_norm(struct fmt_layout *layout)
{
	for (size_t i = 0; i < layout->ncols; i++) {
		struct fmt_col *col = &layout->cols[i];
		if (col->field && col->field->id == 'y')
			col->field = field_by_id(FIELD_NORM_PRIO_LEGACY);
		else if (col->field && col->field->id == 'S')
			col->field = field_by_id(FIELD_NORM_SITE_LEGACY);
	}
}

/* The user's format, or the built-in one for -l/-n (and --sibling's cluster
 * column, as Slurm adds it to the short default unless --local). */
static struct fmt_layout *make_layout(const struct sprio_opts *o)
{
	struct fmt_layout *layout;
	const char *tail;
	char *fmt;
	int sib =
	    (o->flags & (SPRIO_SIBLING | SPRIO_LOCAL | SPRIO_LONG)) == SPRIO_SIBLING;

	if (o->format)
		return fmt_layout_create(o->format, FMT_SHORT, sprio_fields,
		                         SPRIO_NFIELDS, "job");
	if (o->flags & SPRIO_LONG)
		tail = o->flags & SPRIO_NORM ? SPRIO_FMT_NORML : SPRIO_FMT_LONG;
	else
		tail = o->flags & SPRIO_NORM ? SPRIO_FMT_NORM : SPRIO_FMT;
	fmt = xasprintf("%s%s%s", SPRIO_FMT_HEAD, sib ? SPRIO_FMT_SIB : "", tail);
	layout = fmt_layout_create(fmt, FMT_SHORT, sprio_fields, SPRIO_NFIELDS, "job");
	if (o->flags & SPRIO_NORM)
		legacy_norm(layout);
	free(fmt);
	return layout;
}

/* ---- order ---- */

struct sort_spec {
	struct rank_key keys[RANK_MAX_KEYS];
	char ids[RANK_MAX_KEYS];
	size_t n;
};

static int sort_key_known(char c)
{
	return c && strchr("ciNruAaFfJjPpQqTtYy", c);
}

/* Slurm's -S: letters, each after an optional '+' or '-' (descending), commas
 * between them ignored.  Returns 0, or -1 with the bad letter in *bad. */
static int sort_parse(const char *s, struct sort_spec *ret, char *bad)
{
	struct sort_spec sp = {.n = 0};

	for (const char *p = s; *p; p++) {
		if (*p == ',' || *p == '+' || *p == '-')
			continue;
		if (!sort_key_known(*p) || sp.n == RANK_MAX_KEYS) {
			*bad = *p;
			return -1;
		}
		sp.keys[sp.n].desc = p > s && p[-1] == '-';
		/* names compare as strings; the rest are numbers */
		sp.keys[sp.n].str_cmp = strchr("ru", *p) ? strcmp : NULL;
		sp.ids[sp.n++] = *p;
	}
	*ret = sp;
	return 0;
}

/* A weighted factor and its normalized form sort alike, as in Slurm. */
static const char *sort_value(const void *row, size_t i, char *buf, size_t len,
                              uint64_t *num, void *arg)
{
	const struct prio_info *p = row;
	const struct sort_spec *sp = arg;
	const struct factor *f = factor_of(sp->ids[i]);

	(void)buf, (void)len;
	if (f) {
		*num = u32_at(p, f->value);
		return NULL;
	}
	switch (sp->ids[i]) {
	case 'r':
		return p->partition;
	case 'u':
		return p->user;
	case 'i':
		*num = p->job_id;
		break;
	case 'N':
		*num = (uint64_t)((int64_t)(int32_t)p->nice + INT32_MAX + 1);
		break;
	case 'Y':
	case 'y':
		*num = p->priority;
		break;
	default:
		*num = 0; /* one cluster; no TRES factors */
		break;
	}
	return NULL;
}

/* Rows the keys leave equal keep the job id order. */
static uint64_t sort_tiebreak(const void *row)
{
	return ((const struct prio_info *)row)->job_id;
}

/* Sort rows[0..n) by -S (Slurm's default: job id). */
static void sort_rows(const struct prio_info **rows, size_t n, const char *spec)
{
	struct sort_spec sp;
	char bad = 0;

	if (sort_parse(spec ? spec : SPRIO_SORT, &sp, &bad) < 0) {
		cli_error("Invalid sort specification: %c", bad);
		exit(1);
	}
	if (rank_sort((const void **)rows, n, sp.keys, sp.n, sort_value, sort_tiebreak,
	              &sp) < 0)
		fatal("out of memory");
}

/* ---- selection ---- */

/* A job submitted to several partitions is one row naming them all ("a,b");
 * -p keeps it when any of them is listed. */
static int in_parts(char **parts, const char *row_parts)
{
	char **w;
	int hit = 0;

	if (!parts)
		return 1;
	w = fmt_split(row_parts ? row_parts : "", ",");
	for (size_t i = 0; w[i] && !hit; i++)
		hit = strv_has(parts, w[i], 0);
	fmt_strv_free(w);
	return hit;
}

static int selected(const struct sprio_opts *o, const struct prio_info *p)
{
	if (o->users && !strv_has(o->users, p->user ? p->user : "", 0))
		return 0;
	return in_parts(o->parts, p->partition);
}

static void print_rows(const struct sprio_opts *o, struct fmt_layout *layout,
                       struct prio_info_resp *r)
{
	struct row_ctx ctx = {.resp = r, .cluster = cli_conf()->cluster_name};
	const struct prio_info **rows = xcalloc(r->jobs_count + 1, sizeof(*rows));
	size_t n = 0;

	for (uint32_t i = 0; i < r->jobs_count; i++)
		if (selected(o, &r->jobs[i]))
			rows[n++] = &r->jobs[i];
	if (o->ids.n && !n) { /* Slurm says so instead of an empty table */
		printf("Unable to find jobs matching user/id(s) specified\n");
		goto out;
	}
	if (!(o->flags & SPRIO_NOHEADER))
		fmt_print_header(stdout, layout);
	if (o->flags & SPRIO_WEIGHTS) {
		fmt_print_row(stdout, layout, cell, NULL, &ctx);
		goto out;
	}
	sort_rows(rows, n, o->sort);
	for (size_t i = 0; i < n; i++)
		fmt_print_row(stdout, layout, cell, rows[i], &ctx);
out:
	free(rows);
}

static int run(const struct sprio_opts *o)
{
	struct job_info_req req = {.job_ids = o->ids};
	struct prio_info_resp *r = NULL;
	struct fmt_layout *layout;
	char *msg = NULL;
	int rc;

	rc = call_ctld(MSG_PRIO_INFO_REQ, &req, MSG_PRIO_INFO_RESP, (void **)&r, &msg);
	if (rc) {
		fprintf(stderr, "Unable to retrieve job information: %s\n", msg);
		free(msg);
		return 1;
	}
	if (!r->multifactor) {
		fprintf(stderr, "You are not running a supported priority plugin\n"
		                "(priority/basic).\n"
		                "Only 'priority/multifactor' is supported.\n");
		msg_body_free(MSG_PRIO_INFO_RESP, r);
		return 1;
	}
	layout = make_layout(o);
	print_rows(o, layout, r);
	fmt_layout_destroy(layout);
	msg_body_free(MSG_PRIO_INFO_RESP, r);
	return 0;
}

/* Slurm reads these before the command line; the federation ones change
 * nothing on Rota's one cluster. */
static void opts_from_env(struct sprio_opts *o)
{
	const char *v = getenv("SLURM_CLUSTERS");

	if (v)
		parse_clusters(o, v, 1);
	if (getenv("SPRIO_LOCAL"))
		o->flags |= SPRIO_LOCAL;
	if (getenv("SPRIO_SIBLING"))
		o->flags |= SPRIO_SIBLING;
}

enum {
	OPT_HELP = 0x100,
	OPT_USAGE,
	OPT_LOCAL,
	OPT_SIBLING,
	OPT_FEDERATION,
};

static const struct option sprio_longopts[] = {
    {"noheader", no_argument, NULL, 'h'},
    {"jobs", optional_argument, NULL, 'j'},
    {"long", no_argument, NULL, 'l'},
    {"cluster", required_argument, NULL, 'M'},
    {"clusters", required_argument, NULL, 'M'},
    {"norm", no_argument, NULL, 'n'},
    {"format", required_argument, NULL, 'o'},
    {"sort", required_argument, NULL, 'S'},
    {"partition", required_argument, NULL, 'p'},
    {"user", required_argument, NULL, 'u'},
    {"users", required_argument, NULL, 'u'},
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},
    {"weights", no_argument, NULL, 'w'},
    {"federation", no_argument, NULL, OPT_FEDERATION},
    {"help", no_argument, NULL, OPT_HELP},
    {"local", no_argument, NULL, OPT_LOCAL},
    {"sib", no_argument, NULL, OPT_SIBLING},
    {"sibling", no_argument, NULL, OPT_SIBLING},
    {"usage", no_argument, NULL, OPT_USAGE},
    {NULL, 0, NULL, 0}};

/* One option; returns 1 when it was --help or --usage (printed). */
static int parse_opt(struct sprio_opts *o, int c)
{
	switch (c) {
	case 'h':
		o->flags |= SPRIO_NOHEADER;
		break;
	case 'j':
		o->flags |= SPRIO_JOB_FLAG;
		if (optarg)
			parse_jobs(o, optarg);
		break;
	case 'l':
		o->flags |= SPRIO_LONG;
		break;
	case 'M':
		parse_clusters(o, optarg, 0);
		break;
	case 'n':
		o->flags |= SPRIO_NORM;
		break;
	case 'o':
		o->format = optarg;
		break;
	case 'S':
		o->sort = optarg;
		break;
	case 'p':
		fmt_strv_free(o->parts);
		o->parts = fmt_split(optarg, ",");
		o->parts_arg = optarg;
		break;
	case 'u':
		parse_users(o, optarg);
		break;
	case 'v':
		o->verbose++;
		break;
	case 'w':
		o->flags |= SPRIO_WEIGHTS;
		break;
	case OPT_FEDERATION:
		break;
	case OPT_LOCAL:
		o->flags |= SPRIO_LOCAL;
		break;
	case OPT_SIBLING:
		o->flags |= SPRIO_SIBLING;
		break;
	case OPT_HELP:
		usage(stdout);
		return 1;
	case OPT_USAGE:
		short_usage();
		return 1;
	case 'V':
		fmt_print_version();
	default:
		fmt_bad_option();
	}
	return 0;
}

/* After the options: -l excludes -o, SPRIO_FORMAT stands in for -o unless
 * -o or -l was given, and a word after a bare -j is its list. */
static int finish_opts(struct sprio_opts *o, int argc, char **argv)
{
	if ((o->flags & SPRIO_LONG) && o->format) {
		fprintf(stderr,
		        "%s: fatal: Options -o(--format) and -l(--long) are "
		        "mutually exclusive. Please remove one and retry.\n",
		        cli_prog);
		return -1;
	}
	if (!o->format && !(o->flags & SPRIO_LONG))
		o->format = getenv("SPRIO_FORMAT");
	if (optind < argc && (o->flags & SPRIO_JOB_FLAG))
		parse_jobs(o, argv[optind++]);
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		usage(stderr);
		return -1;
	}
	if (o->verbose)
		print_options(o);
	return 0;
}

int cmd_sprio(int argc, char **argv)
{
	struct sprio_opts o = {0};
	int c, rc = 0;

	opts_from_env(&o);
	while ((c = getopt_long(argc, argv, "hj::lM:no:S:p:u:vVw", sprio_longopts,
	                        NULL)) != -1)
		if (parse_opt(&o, c))
			goto out;
	rc = finish_opts(&o, argc, argv) < 0 ? 1 : run(&o);
out:
	free(o.ids.v);
	fmt_strv_free(o.users);
	fmt_strv_free(o.parts);
	return rc;
}
