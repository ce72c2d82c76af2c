/* fmt.h - column output shared by squeue and sinfo, and small helpers the
 * reporting commands (squeue, sinfo, scancel, scontrol) share.
 *
 * A command declares its fields once in a table (letter for -o, name for -O,
 * header).  fmt_layout_create() turns a user's format into columns bound to that
 * table; fmt_print_header()/fmt_print_row() print them, asking the command's
 * value callback for each cell.  CLI code: errors are printed and exit(1).
 */
#ifndef ROTA_CLI_FMT_H
#define ROTA_CLI_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define ROTA_SLURM_VERSION "22.05.8"

struct fmtspec;

struct fmt_field {
	int id;             /* the command's field id (the letter for -o fields) */
	char letter;        /* -o letter, 0 when the field is -O only */
	const char *name;   /* -O name (matched case-insensitively), NULL if none */
	const char *header; /* column title */
	int flags;          /* FMTSPEC_NOCUT: values are never cut (node lists) */
};

struct fmt_col {
	const struct fmt_field *field; /* NULL: unknown type, only the suffix prints */
	int width;                     /* may be changed before printing (sinfo '#') */
	int flags;                     /* FMTSPEC_RIGHT */
	const char *suffix;            /* borrowed from the layout */
};

struct fmt_layout {
	const char *prefix; /* borrowed from spec */
	struct fmt_col *cols;
	size_t ncols;
	struct fmtspec *spec;
};

enum fmt_syntax { FMT_SHORT, FMT_LONG }; /* -o "%.18i ..." or -O "JobID,..." */

/* Bind fmt to table[0..n).  Unknown types print "PROG: error: Invalid <what>
 * format specification: X" and are skipped (their suffix still prints), as in
 * Slurm.  A malformed format prints an error and exits 1. */
struct fmt_layout *fmt_layout_create(const char *fmt, enum fmt_syntax syntax,
                                     const struct fmt_field *table, size_t n,
                                     const char *what);
void fmt_layout_destroy(struct fmt_layout *layout); /* NULL allowed */

/* 1 if some column shows field id. */
int fmt_layout_has(const struct fmt_layout *layout, int id);

/* A cell's text: either buf (len bytes) or a string that lives as long as rec. */
typedef const char *(*fmt_value_f)(const struct fmt_col *col, const void *rec, void *ctx,
                                   char *buf, size_t len);

void fmt_print_header(FILE *f, const struct fmt_layout *layout);
void fmt_print_row(FILE *f, const struct fmt_layout *layout, fmt_value_f value,
                   const void *rec, void *ctx);

/* ---- helpers ---- */

/* Order names as people expect node names ordered: runs of digits compare by
 * value ("n2" < "n10"), then by length ("n01" after "n1"); other bytes as strcmp. */
int fmt_natural_cmp(const char *a, const char *b);

/* Split s at any of seps into a NULL-terminated vector of non-empty copies
 * (caller frees with fmt_strv_free).  Limit: FMT_LIST_MAX items, else exit 1. */
#define FMT_LIST_MAX 65536
char **fmt_split(const char *s, const char *seps);
void fmt_strv_free(char **v);
size_t fmt_strv_len(char *const *v);
/* 1 if v holds s (strcmp, or strcasecmp when nocase). */
int fmt_strv_has(char *const *v, const char *s, int nocase);

/* "Sun Nov 29 13:25:39 2026\n", the date line of -l and -i. */
void fmt_print_date(FILE *f, time_t now);

/* After getopt has printed its complaint: `Try "PROG --help" for more
 * information` and exit 1. */
void fmt_bad_option(void) __attribute__((noreturn));

/* "slurm 22.05.8" and exit 0. */
void fmt_print_version(void) __attribute__((noreturn));

/* -i/--iterate SECONDS: a positive integer, capped at 86400; otherwise print
 * "PROG: error: --iterate must be a positive integer" and exit 1. */
unsigned fmt_parse_iterate(const char *arg);

/* -w/-n NODELIST: replace *nodes (hostlist_free()d) with arg's expansion; a bad
 * list prints "PROG: error: Invalid node name specified: ARG" and exits 1. */
void fmt_parse_nodes(char ***nodes, const char *arg);

/* 1 if the hostlist expression hosts (NULL or "" allowed) names one of nodes. */
int fmt_hosts_overlap(const char *hosts, char **nodes);

/* Parse a job id "N" (1..UINT32_MAX-2).  Returns 0 or -1. */
int fmt_parse_job_id(const char *s, uint32_t *ret);

/* Exit status as scontrol/sacct print it: "r:s" from a wait status. */
char *fmt_exit_code(uint32_t status, char *buf, size_t len);

struct job_info;
/* A job's reason as Slurm words it: the reason's name, with the down or
 * drained -w nodes of a ReqNodeNotAvail ("ReqNodeNotAvail, UnavailableNodes:
 * node03"); sep goes between the two (", " in squeue, ",_" in scontrol). */
const char *fmt_job_reason(const struct job_info *j, const char *sep, char *buf,
                           size_t len);

#endif
