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

#include "common/fmtrow.h"
#include "common/states.h" /* ROTA_SLURM_VERSION */

/* Bind fmt to table[0..n).  Unknown types print "PROG: error: Invalid <what>
 * format specification: X" and are skipped (their suffix still prints), as in
 * Slurm.  A malformed format prints an error and exits 1. */
struct fmt_layout *fmt_layout_create(const char *fmt, enum fmt_syntax syntax,
                                     const struct fmt_field *table, size_t n,
                                     const char *what);

void fmt_print_header(FILE *f, const struct fmt_layout *layout);
void fmt_print_row(FILE *f, const struct fmt_layout *layout, fmt_value_f value,
                   const void *rec, void *ctx);

/* ---- helpers ---- */

/* Split s at any of seps into a NULL-terminated vector of non-empty copies
 * (caller frees with fmt_strv_free).  Limit: FMT_LIST_MAX items, else exit 1. */
#define FMT_LIST_MAX 65536
char **fmt_split(const char *s, const char *seps);
void fmt_strv_free(char **v);
size_t fmt_strv_len(char *const *v);

/* "Sun Nov 29 13:25:39 2026\n", the date line of -l and -i. */
void fmt_print_date(FILE *f, time_t now);

/* "LABELTue Dec 01 18:12:09 2026 (1796148729)\n" on stdout: a time in the
 * statistics of sdiag and sacctmgr show stats. */
void fmt_print_stat_time(const char *label, int64_t t);

/* An RPC statistic's average time (its total over its count; 0 for none). */
struct rpc_stat;
uint64_t fmt_rpc_ave(const struct rpc_stat *r);

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

/* Parse a job id "N" (1..UINT32_MAX-2).  Returns 0 or -1. */
int fmt_parse_job_id(const char *s, uint32_t *ret);

/* Parse "N" (*step NO_VAL: the whole job), "N.S" (S at most 9 digits),
 * "N.batch" (STEP_BATCH) or "N.extern" (STEP_EXTERN).  Returns 0 or -1. */
int fmt_parse_step_id(const char *s, uint32_t *job, uint32_t *step);

#endif
