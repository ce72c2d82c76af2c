/* sreport.c - reports of what the cluster was used for, as Slurm 22.05's
 * sreport prints them: `cluster Utilization`, `cluster
 * AccountUtilizationByUser`, `user TopUsage`, `job SizesByAccount`.
 * rotadbd sums the job runs' CPU time over the window (MSG_ACCT_REPORT_REQ,
 * dbd/report.h); the accounts above accounts come from the controller
 * (MSG_ASSOC_LIST_REQ), the rest is printing (sreport_reports.c).
 *
 * Where Rota differs: start= and end= are kept to the second (Slurm rounds
 * them to the hour of its hourly rollups; Rota sums the job records
 * themselves), and CPU is the only TRES. */
#include <getopt.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cli/acct_client.h"
#include "cli/acct_time.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/sreport.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define SR_RPC_TIMEOUT_MS 30000
#define SR_TOP_MAX        1000000 /* TopCount= */
#define SR_COLS_MAX       64      /* Format= columns */
#define SR_DASHES                                                                        \
	"----------------------------------------"                                       \
	"----------------------------------------\n"

/* Slurm's layout (scripts and Slurm's tests look for "sreport [<OPTION>]
 * [<COMMAND>]", "Valid <OPTION> values are" and "Valid <COMMAND> values
 * are"); the words are Rota's: no interactive mode, one cluster, CPU only. */
static void usage(FILE *f)
{
	fprintf(
	    f, "sreport [<OPTION>] [<COMMAND>]\n"
	       "    Valid <OPTION> values are:\n"
	       "     -h, --help or --usage: this text\n"
	       "     -n or --noheader: no banner, no titles\n"
	       "     -p or --parsable: fields separated by '|', one after the last too\n"
	       "     -P or --parsable2: fields separated by '|'\n"
	       "     -t <time_format>: Minutes (the default), Hours, Seconds, Percent,\n"
	       "                       MinPer, HourPer or SecPer\n"
	       "     -T or --tres=cpu: the TRES reported (CPU is the only one)\n"
	       "     -V or --version: the version\n"
	       "     -a, -M <cluster>, -Q, -v: accepted, no effect (one cluster)\n"
	       "\n"
	       "    Valid <COMMAND> values are:\n"
	       "     cluster <REPORT> [<CONDITIONS>]\n"
	       "             <REPORT>: Utilization or AccountUtilizationByUser\n"
	       "     job <REPORT> [<CONDITIONS>]\n"
	       "             <REPORT>: SizesByAccount\n"
	       "     user <REPORT> [<CONDITIONS>]\n"
	       "             <REPORT>: TopUsage\n"
	       "  There is no interactive mode: a command is needed.\n"
	       "\n"
	       "  <CONDITIONS> are Key=Value words and flags:\n"
	       "     Start=, End=     the window; yesterday 00:00:00 to 23:59:59 when\n"
	       "                      not given\n"
	       "     Accounts=, Users=  names, comma separated\n"
	       "     Format=          the columns, comma separated\n"
	       "     TopCount=        user TopUsage: how many users (10)\n"
	       "     Group            user TopUsage: one line per user\n"
	       "     Grouping=        job SizesByAccount: CPU count bounds, ascending\n"
	       "     FlatView         job SizesByAccount: every account on its own line\n"
	       "     PrintJobCount    job SizesByAccount: job counts, not time\n");
}

/* Slurm's rule for keywords: word is name cut anywhere after min letters. */
static int word_is(const char *word, size_t len, const char *name, size_t min)
{
	return len >= min && len <= strlen(name) && !strncasecmp(word, name, len);
}

static int parse_tfmt(struct sreport *s, const char *f)
{
	static const struct {
		const char *name;
		size_t min;
		enum sr_time t;
		const char *words;
	} forms[] = {
	    {"SecPer", 6, SR_SECS_PER, "Seconds/Percentage of Total"},
	    {"MinPer", 6, SR_MINS_PER, "Minutes/Percentage of Total"},
	    {"HourPer", 6, SR_HOURS_PER, "Hours/Percentage of Total"},
	    {"Seconds", 1, SR_SECS, "Seconds"},
	    {"Minutes", 1, SR_MINS, "Minutes"},
	    {"Hours", 1, SR_HOURS, "Hours"},
	    {"Percent", 1, SR_PERCENT, "Percentage of Total"},
	};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (word_is(f, strlen(f), forms[i].name, forms[i].min)) {
			s->tfmt = forms[i].t;
			s->tfmt_name = forms[i].words;
			return 0;
		}
	fprintf(stderr, "unknown time format %s\n", f);
	return -1;
}

static void parse_bins(struct sreport *s, const char *v)
{
	char **w = fmt_split(v, ",");

	free(s->bins);
	s->bins = NULL;
	s->nbins = 0;
	for (size_t i = 0; w[i]; i++) {
		long n = cli_parse_long(w[i]);
		if (n <= 0 || n > UINT32_MAX ||
		    (s->nbins && (uint32_t)n <= s->bins[s->nbins - 1]) ||
		    s->nbins >= 64) {
			cli_error(
			    "Invalid grouping: %s (ascending CPU counts, at most 64)", v);
			exit(1);
		}
		s->bins = xrealloc(s->bins, (s->nbins + 1) * sizeof(*s->bins));
		s->bins[s->nbins++] = (uint32_t)n;
	}
	fmt_strv_free(w);
}

static char **add_names(char **v, const char *names)
{
	char **w = fmt_split(names, ",");

	for (size_t i = 0; w[i]; i++)
		if (!strv_has(v, w[i], 0))
			v = strv_append(v, w[i]);
	fmt_strv_free(w);
	return v;
}

/* KEY=VALUE and flag words after the report's name. */
static int parse_conditions(struct sreport *s, int argc, char **argv, time_t now)
{
	int bad = 0;

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i], *eq = strchr(w, '='), *v = eq ? eq + 1 : NULL;
		size_t len = eq ? (size_t)(eq - w) : strlen(w);
		if (!eq &&
		    (word_is(w, len, "all_clusters", 1) || word_is(w, len, "Tree", 4)))
			continue; /* one cluster; the tree is always shown */
		if (!eq && word_is(w, len, "FlatView", 2))
			s->flat_view = 1;
		else if (!eq && word_is(w, len, "PrintJobCount", 2))
			s->job_count = 1;
		else if (!eq && word_is(w, len, "Group", 1))
			s->group = 1;
		else if (eq &&
		         (word_is(w, len, "Accounts", 2) || word_is(w, len, "Acct", 4)))
			s->accounts = add_names(s->accounts, v);
		else if (eq && word_is(w, len, "Clusters", 1))
			continue; /* one cluster */
		else if (eq && word_is(w, len, "End", 1))
			s->end = acct_time_arg("end", v, now);
		else if (eq && word_is(w, len, "Format", 1)) {
			free(s->format);
			s->format = xstrdup(v);
		} else if (eq && word_is(w, len, "Grouping", 2))
			parse_bins(s, v);
		else if (eq && word_is(w, len, "Start", 1))
			s->start = acct_time_arg("start", v, now);
		else if (eq && word_is(w, len, "TopCount", 1)) {
			long n = strtol(v, NULL, 10);
			if (cli_parse_long(v) < 0 && !(*v == '-' && n < 0)) {
				cli_error("Invalid value for TopCount (%s)", v);
				return -1;
			}
			s->top_count = n < 0 || n > SR_TOP_MAX ? SR_TOP_MAX : (uint32_t)n;
		} else if (eq && word_is(w, len, "Users", 1))
			s->users = add_names(s->users, v);
		else {
			fprintf(
			    stderr,
			    " Unknown condition: %s\nUse keyword set to modify value\n",
			    w);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* Slurm's window: yesterday, midnight to midnight; never past now.  A
 * start after midnight without an end goes on to now. */
static void set_window(struct sreport *s, time_t now)
{
	struct tm tm;
	time_t midnight;

	localtime_r(&now, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	midnight = mktime(&tm);
	if (!s->end)
		s->end = s->start >= midnight ? now : midnight;
	if (!s->start) {
		tm.tm_mday--;
		tm.tm_isdst = -1;
		s->start = mktime(&tm);
	}
	if (s->end > now)
		s->end = now;
	if (s->start > s->end)
		s->start = s->end;
}

/* ---- what the reports share ---- */

size_t sr_columns(const struct sreport *s, const char *def, const struct sr_field *table,
                  size_t n, struct sr_col **ret)
{
	char **w = fmt_split(s->format ? s->format : def, ",");
	struct sr_col *cols = xcalloc(fmt_strv_len(w) + 1, sizeof(*cols));
	size_t ncols = 0;
	int bad = 0;

	for (size_t i = 0; w[i]; i++) {
		int width = -1, left = 0;
		const struct sr_field *f = NULL;
		if (pf_parse_width(w[i], &width, &left) < 0 || i >= SR_COLS_MAX) {
			cli_error("Invalid field: %s", w[i]);
			exit(1);
		}
		for (size_t k = 0; k < n && !f; k++)
			if (word_is(w[i], strlen(w[i]), table[k].name,
			            (size_t)table[k].min))
				f = &table[k];
		if (!f) {
			fprintf(stderr, " Unknown field '%s'\n", w[i]);
			bad = 1;
			continue;
		}
		cols[ncols].f = f;
		cols[ncols].given_width = width >= 0;
		cols[ncols].pc =
		    (struct pf_col){f->title, width >= 0 ? width : f->width, left};
		ncols++;
	}
	fmt_strv_free(w);
	if (bad)
		exit(1);
	*ret = cols;
	return ncols;
}

int sr_usage_width(const struct sreport *s, uint64_t max_secs)
{
	int width = 8;

	for (uint64_t order = 100000000; max_secs >= order && width < 26; order *= 10)
		width++;
	return s->tfmt >= SR_SECS_PER ? width + 9 : width;
}

void sr_usage_widths(const struct sreport *s, struct sr_col *cols, size_t n,
                     uint64_t max_secs)
{
	for (size_t i = 0; i < n; i++)
		if (cols[i].f->usage && !cols[i].given_width)
			cols[i].pc.width = sr_usage_width(s, max_secs);
}

static void sr_printf(struct fmtbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sr_printf(struct fmtbuf *b, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fmtbuf_put(b, line,
	           n < 0                      ? 0
	           : (size_t)n < sizeof(line) ? (size_t)n
	                                      : sizeof(line) - 1);
}

void sr_banner(struct sreport *s, const char *title, int with_secs,
               const char *units_line)
{
	char from[64], to[64];

	if (s->noheader)
		return;
	timefmt_iso(s->r->start, from, sizeof(from));
	timefmt_iso(s->r->end - 1, to, sizeof(to));
	sr_printf(&s->b, SR_DASHES "%s %s - %s", title, from, to);
	if (with_secs)
		sr_printf(&s->b, " (%lld secs)", (long long)(s->r->end - s->r->start));
	if (units_line)
		sr_printf(&s->b, "\n%s\n", units_line);
	else if (s->tfmt == SR_PERCENT)
		sr_printf(&s->b, "\nUsage reported in %s\n", s->tfmt_name);
	else
		sr_printf(&s->b, "\nUsage reported in CPU %s\n", s->tfmt_name);
	sr_printf(&s->b, SR_DASHES);
}

void sr_header(struct sreport *s, const struct sr_col *cols, size_t n)
{
	struct pf_col pcs[SR_COLS_MAX + 8];

	if (s->noheader)
		return;
	for (size_t i = 0; i < n && i < sizeof(pcs) / sizeof(pcs[0]); i++)
		pcs[i] = cols[i].pc;
	pf_header(&s->b, pcs, n, s->mode);
}

void sr_cell(struct sreport *s, const char *text, const struct sr_col *c, int last)
{
	pf_cell(&s->b, text, &c->pc, s->mode, last);
}

const char *sr_time_str(const struct sreport *s, uint64_t secs, uint64_t total, char *buf,
                        size_t len)
{
	double pct = (double)secs * 100.0 / (double)(total ? total : 1);

	switch (s->tfmt) {
	case SR_SECS:
		snprintf(buf, len, "%llu", (unsigned long long)secs);
		break;
	case SR_HOURS:
		snprintf(buf, len, "%.0lf", (double)secs / 3600);
		break;
	case SR_PERCENT:
		snprintf(buf, len, "%.2lf%%", pct);
		break;
	case SR_SECS_PER:
		snprintf(buf, len, "%llu(%.2lf%%)", (unsigned long long)secs, pct);
		break;
	case SR_MINS_PER:
		snprintf(buf, len, "%.0lf(%.2lf%%)", (double)secs / 60, pct);
		break;
	case SR_HOURS_PER:
		snprintf(buf, len, "%.0lf(%.2lf%%)", (double)secs / 3600, pct);
		break;
	default:
		snprintf(buf, len, "%.0lf", (double)secs / 60);
		break;
	}
	return buf;
}

uint64_t sr_reported(const struct sreport *s)
{
	return (uint64_t)s->r->cpus * (uint64_t)(s->r->end - s->r->start);
}

const char *sr_proper_name(const char *user, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char pwbuf[4096];

	buf[0] = '\0';
	if (user && getpwnam_r(user, &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res &&
	    res->pw_gecos)
		snprintf(buf, len, "%.*s", (int)strcspn(res->pw_gecos, ","),
		         res->pw_gecos);
	return buf;
}

const char *sr_parent(const struct sreport *s, const char *account)
{
	if (!strcmp(account, "root"))
		return NULL;
	for (uint32_t i = 0; s->tree && i < s->tree->assocs_count; i++) {
		const struct assoc_rec *a = &s->tree->assocs[i];
		if (!a->user && a->account && !strcmp(a->account, account))
			return a->parent ? a->parent : "root";
	}
	return "root";
}

/* The controller's accounts, for the tree; NULL when it cannot be asked. */
static struct assoc_list_resp *fetch_tree(void)
{
	struct rota_error err = {""};
	uint16_t type = 0;
	void *body = NULL;
	int fd = cli_try_connect();

	if (fd < 0)
		return NULL;
	if (net_rpc(fd, MSG_ASSOC_LIST_REQ, &(struct empty_msg){0}, &type, &body,
	            SR_RPC_TIMEOUT_MS, &err) < 0 ||
	    type != MSG_ASSOC_LIST_RESP) {
		msg_body_free(type, body);
		body = NULL;
	}
	close(fd);
	return body;
}

/* ---- the commands ---- */

typedef int (*sr_report_f)(struct sreport *s);

static sr_report_f find_report(const char *cmd, const char *rep)
{
	size_t cl = strlen(cmd), rl = rep ? strlen(rep) : 0;

	if (word_is(cmd, cl, "cluster", 2)) {
		if (rep && word_is(rep, rl, "Utilization", 2))
			return sr_cluster_utilization;
		if (rep && word_is(rep, rl, "AccountUtilizationByUser", 1))
			return sr_account_by_user;
		fprintf(stderr,
		        "Not valid report %s\nValid cluster reports are, "
		        "\"AccountUtilizationByUser\" and \"Utilization\"\n",
		        rep ? rep : "");
	} else if (word_is(cmd, cl, "user", 1)) {
		if (rep && word_is(rep, rl, "TopUsage", 1))
			return sr_user_top;
		fprintf(stderr,
		        "Not valid report %s\nValid user reports are, \"TopUsage\"\n",
		        rep ? rep : "");
	} else if (word_is(cmd, cl, "job", 1)) {
		if (rep && word_is(rep, rl, "SizesByAccount", 1))
			return sr_job_sizes;
		fprintf(stderr,
		        "Not valid report %s\nValid job reports are, "
		        "\"SizesByAccount\"\n",
		        rep ? rep : "");
	} else {
		fprintf(stderr, "invalid keyword: %s\n", cmd);
	}
	return NULL;
}

static const struct option long_opts[] = {
    {"all_clusters", no_argument, NULL, 'a'}, {"cluster", required_argument, NULL, 'M'},
    {"help", no_argument, NULL, 'h'},         {"usage", no_argument, NULL, 'h'},
    {"noheader", no_argument, NULL, 'n'},     {"parsable", no_argument, NULL, 'p'},
    {"parsable2", no_argument, NULL, 'P'},    {"quiet", no_argument, NULL, 'Q'},
    {"tres", required_argument, NULL, 'T'},   {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
};

int cmd_sreport(int argc, char **argv)
{
	struct sreport s = {.tfmt = SR_MINS, .tfmt_name = "Minutes", .top_count = 10};
	struct acct_report_req q = {0};
	time_t now = time(NULL);
	sr_report_f report;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "ahM:npPQt:T:vV", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
		case 'M':
		case 'Q':
		case 'v':
			break; /* one cluster; nothing more to say */
		case 'n':
			s.noheader = 1;
			break;
		case 'p':
			s.mode = PF_PARSABLE;
			break;
		case 'P':
			s.mode = PF_PARSABLE2;
			break;
		case 't':
			if (parse_tfmt(&s, optarg) < 0)
				return 1;
			break;
		case 'T':
			if (strcasecmp(optarg, "cpu")) {
				cli_error("TRES %s: only cpu is reported", optarg);
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			fmt_print_version();
		default:
			fmt_bad_option();
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 1;
	}
	report = find_report(argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL);
	if (!report)
		return 1;
	if (parse_conditions(&s, argc - optind - 2, argv + optind + 2, now) < 0)
		return 1;
	set_window(&s, now);
	if (report == sr_job_sizes && !s.nbins)
		parse_bins(&s, "50,250,500,1000");
	q.start = s.start;
	q.end = s.end;
	if (report == sr_job_sizes) {
		q.bins.v = s.bins;
		q.bins.n = s.nbins;
	}
	rc = acct_report(&q, &s.r);
	if (rc == 0) {
		if (report != sr_cluster_utilization && report != sr_user_top)
			s.tree = fetch_tree();
		rc = report(&s);
		if (s.b.len)
			fwrite(s.b.data, 1, s.b.len, stdout);
	}
	fmtbuf_release(&s.b);
	msg_body_free(MSG_ACCT_REPORT_RESP, s.r);
	msg_body_free(MSG_ASSOC_LIST_RESP, s.tree);
	strv_free(s.accounts);
	strv_free(s.users);
	free(s.format);
	free(s.bins);
	return rc;
}
