/* sreport.h - what sreport's reports share (sreport.c): the options and
 * conditions, rotadbd's sums, the account tree, the banner and Slurm's
 * usage numbers.  Each report prints from these (sreport_reports.c). */
#ifndef ROTA_CLI_SREPORT_H
#define ROTA_CLI_SREPORT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "cli/pfields.h"
#include "common/fmtrow.h"

struct acct_report_resp;
struct assoc_list_resp;

/* -t: how CPU-seconds are printed. */
enum sr_time {
	SR_MINS,
	SR_SECS,
	SR_HOURS,
	SR_PERCENT,
	SR_SECS_PER,
	SR_MINS_PER,
	SR_HOURS_PER
};

struct sreport {
	enum pf_mode mode;
	int noheader;
	enum sr_time tfmt;
	const char *tfmt_name; /* "Minutes", "Percentage of Total" ... */
	/* the report's conditions */
	time_t start, end;
	char **accounts, **users; /* NULL: any */
	char *format;             /* Format= as given, NULL: the report's own */
	uint32_t top_count;       /* TopCount= (user top), default 10 */
	int group;                /* user top: a user's accounts on one line */
	int flat_view;            /* job sizes: each account, not its top one */
	int job_count;            /* job sizes: jobs, not time */
	uint32_t *bins;           /* job sizes: Grouping= */
	uint32_t nbins;
	/* the sums (rotadbd) and the accounts above accounts (controller, NULL
	 * when it could not be asked: every account is then under root) */
	struct acct_report_resp *r;
	struct assoc_list_resp *tree;
	struct fmtbuf b;
};

/* A column a report can print: Format= name (matched case-insensitively on
 * at least min letters), title, default width, the report's own id; usage:
 * its width follows the largest number (Slurm's), unless Format= gives one. */
struct sr_field {
	const char *name;
	int min;
	const char *title;
	int width;
	int id;
	int usage;
};

struct sr_col {
	const struct sr_field *f;
	struct pf_col pc;
	int given_width; /* Format=NAME%N */
};

/* The columns of fmt (Format=, else def) from table[0..n).  Exits 1 after
 * Slurm's " Unknown field" complaint. */
size_t sr_columns(const struct sreport *s, const char *def, const struct sr_field *table,
                  size_t n, struct sr_col **ret);
/* A usage column's width for its largest number of seconds (Slurm's: 8, or
 * the digits of the seconds, and 9 more with a percentage). */
int sr_usage_width(const struct sreport *s, uint64_t max_secs);
/* Give the usage columns without a Format= width that width. */
void sr_usage_widths(const struct sreport *s, struct sr_col *cols, size_t n,
                     uint64_t max_secs);

/* The banner (unless -n): dashes, "TITLE START - END[ (N secs)]", what the
 * numbers are (units_line NULL: "Usage reported in CPU Minutes"), dashes. */
void sr_banner(struct sreport *s, const char *title, int with_secs,
               const char *units_line);
/* The column titles (unless -n). */
void sr_header(struct sreport *s, const struct sr_col *cols, size_t n);
/* One cell of column c (last: the line's last). */
void sr_cell(struct sreport *s, const char *text, const struct sr_col *c, int last);

/* secs as -t says, a percentage being of total. */
const char *sr_time_str(const struct sreport *s, uint64_t secs, uint64_t total, char *buf,
                        size_t len);
/* The cluster's CPU-seconds over the window. */
uint64_t sr_reported(const struct sreport *s);
/* The user's name as the password database has it (GECOS up to a comma), or "". */
const char *sr_proper_name(const char *user, char *buf, size_t len);

/* The account above account ("root" for one not in the tree; NULL for root). */
const char *sr_parent(const struct sreport *s, const char *account);

int sr_cluster_utilization(struct sreport *s);
int sr_account_by_user(struct sreport *s);
int sr_user_top(struct sreport *s);
int sr_job_sizes(struct sreport *s);

#endif
