/* joblist.h - job listings as squeue prints them: the columns (-o letters, -O
 * names), which jobs a listing shows, and in which order.
 *
 * The controller prints a listing (MSG_JOB_LIST_REQ: it reads each job once
 * and sends lines, not records); squeue checks the format and sort keys with
 * the same tables before it asks, and prints the header.  Values come from a
 * struct job_info, so `squeue --json` and `scontrol show job` word reasons and
 * exit codes the same way.  Pure: no I/O, no clock (now is an argument).
 */
#ifndef ROTA_PROTO_JOBLIST_H
#define ROTA_PROTO_JOBLIST_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "common/arrayspec.h"
#include "common/error.h"
#include "common/fmtrow.h"
#include "common/ranksort.h"
#include "proto/messages.h"

#define JOBLIST_DEFAULT_FMT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define JOBLIST_LONG_FMT    "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
#define JOBLIST_START_FMT   "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"
#define JOBLIST_SORT        "P,t,-p"
#define JOBLIST_MAX_SORT    RANK_MAX_KEYS

/* squeue's job columns. */
extern const struct fmt_field joblist_fields[];
extern const size_t joblist_nfields;

/* The widest line the controller prints: a format's padding and text, the
 * values aside.  squeue prints a wider format itself, from job records. */
#define JOBLIST_MAX_LINE 8192

/* The bytes a line of layout takes besides its values (widths, prefix, suffixes). */
size_t joblist_line_width(const struct fmt_layout *layout);

/* What a value may depend on besides the job. */
struct joblist_ctx {
	time_t now;
	const char *cluster;     /* ClusterName, NULL when unset */
	const char *time_format; /* the asker's SLURM_TIME_FORMAT; NULL: standard */
	/* the reasons of a folded array row (struct joblist_fold), printed by
	 * %r and %R instead of the job's; NULL for any other row */
	const char *reasons;
};

/* A column's text for a struct job_info (fmt_value_f; ctx a joblist_ctx). */
const char *joblist_value(const struct fmt_col *col, const void *job, void *ctx,
                          char *buf, size_t len);

/* A job's reason as Slurm words it: the reason's name, with the down or
 * drained -w nodes of a ReqNodeNotAvail ("ReqNodeNotAvail, UnavailableNodes:
 * node03"); sep goes between the two (", " in squeue, ",_" in scontrol). */
const char *joblist_reason(const struct job_info *j, const char *sep, char *buf,
                           size_t len);

/* Exit status as scontrol/sacct print it: "r:s" from a wait status. */
char *joblist_exit_code(uint32_t status, char *buf, size_t len);

#define JOBLIST_MAX_STATES 64 /* -t states in one listing */

/* A listing's filters made ready to test many jobs against: its lists are
 * sorted, so that a long -j, -u, -n, -A or -w list costs a lookup per job. */
struct joblist_query {
	const struct job_list_req *req; /* borrowed */
	uint32_t *ids, *uids;
	char **names, **parts, **accounts, **qos, **nodes; /* NULL: not given */
	size_t nids, nuids, nnames, nparts, naccounts, nqos, nnodes;
	int none; /* JOB_LIST_F_NONE: no job can match */
};

/* Returns 0, or -EINVAL with err (more than JOBLIST_MAX_STATES states). */
int joblist_query_init(struct joblist_query *q, const struct job_list_req *req,
                       struct rota_error *err);
void joblist_query_release(struct joblist_query *q);

/* 1 unless -j is given and names neither the job nor its array nor (a
 * heterogeneous job's leader: all of it) its leader. */
int joblist_query_id(const struct joblist_query *q, uint32_t job_id,
                     uint32_t array_job_id, uint32_t het_job_id);
/* 1 unless -u is given and does not name uid. */
int joblist_query_uid(const struct joblist_query *q, uint32_t uid);

/* 1 if the listing shows job j (its -j, -t, -u, -n, -p, -A, -q, -w; without
 * -t or -j, only jobs that are not finished). */
int joblist_selected(const struct joblist_query *q, const struct job_info *j);

/* One row of a listing: r is borrowed for the call.  Returns 0 or a negative
 * error. */
typedef int (*joblist_row_f)(const struct job_info *r, void *arg);

/* Hand row() the rows job j has in listing q: none unless joblist_selected();
 * with -P (JOB_LIST_F_PART_PRIO) a pending job submitted to several
 * partitions ("a,b") has one per partition that -p lets through, each r a
 * copy of j naming that one partition; otherwise the one row, r = j.
 * Returns the number of rows, or row()'s first negative return. */
int joblist_rows(const struct joblist_query *q, const struct job_info *j,
                 joblist_row_f row, void *arg);

/* Slurm's squeue lists the pending tasks split off an array (scontrol hold
 * or update of N_T, a requeue) in the row of the array's pending remainder
 * when both are listed and the task has the row's name and partition: the
 * row's ids and reasons grow.  -r and --array-unique list them apart. */
static inline int joblist_folding(uint32_t flags)
{
	return !(flags & (JOB_LIST_F_ARRAY_TASKS | JOB_LIST_F_ARRAY_UNIQUE));
}

/* 1 if task t goes into m's row: m the pending remainder of t's array (its
 * array_task_str set), t a pending task of it with m's name and partition. */
int joblist_folds(const struct job_info *m, const struct job_info *t);

/* The row of a remainder with tasks folded in (zero it before the first). */
struct joblist_fold {
	struct arrayspec ids; /* the row's tasks, the remainder's included */
	char *reasons;        /* owned: "Priority,JobHeldUser"; NULL while the
	                       * tasks' reasons are the remainder's */
	uint32_t n;           /* tasks folded in */
};

/* Fold task t into m's row (joblist_folds(m, t) holds).  Returns 0, or
 * -EINVAL when m's array_task_str does not parse. */
int joblist_fold_add(struct joblist_fold *f, const struct job_info *m,
                     const struct job_info *t);
/* The row's ids for m's array_task_str: "2-6", without the throttle, as
 * Slurm's squeue prints a row it has folded.  Caller frees. */
char *joblist_fold_ids(const struct joblist_fold *f);
void joblist_fold_release(struct joblist_fold *f);

/* -S keys, parsed. */
struct joblist_sort {
	char key[JOBLIST_MAX_SORT];
	struct rank_key rank[JOBLIST_MAX_SORT];
	size_t n;
};

/* Parse "P,t,-p" (a key may be signed; keys past JOBLIST_MAX_SORT are
 * dropped).  Returns 0, or -EINVAL with the bad key in err. */
int joblist_sort_parse(const char *spec, struct joblist_sort *ret,
                       struct rota_error *err);

/* Sort key i of a struct job_info row (rank_value_f; arg a joblist_sort_arg). */
struct joblist_sort_arg {
	const struct joblist_sort *sort;
	time_t now;
	/* -P: a partition's PriorityTier, by which keys p and Q rank a row
	 * before its priority; NULL: by priority alone */
	uint32_t (*part_tier)(const char *partition, void *arg);
	void *tier_arg;
};
const char *joblist_sort_value(const void *job, size_t i, char *buf, size_t len,
                               uint64_t *num, void *arg);

/* The job_info fields (JI() bits) that the columns, the sort keys and the
 * filters of a listing read. */
uint64_t joblist_fields_wanted(const struct job_list_req *req,
                               const struct fmt_layout *layout,
                               const struct joblist_sort *sort);

/* Where lines go: buf, handed to flush (which empties it) whenever a line
 * leaves flush_at bytes or more there, so that one array of many tasks does
 * not make one huge frame. */
struct joblist_sink {
	struct fmtbuf buf;
	size_t flush_at; /* 0: never */
	void (*flush)(struct joblist_sink *s);
	void *arg; /* the flusher's */
};

/* Job j's line, or with JOB_LIST_F_ARRAY_TASKS a pending array's line per task. */
void joblist_append(struct joblist_sink *s, const struct fmt_layout *layout,
                    const struct job_info *j, uint32_t flags, struct joblist_ctx *ctx);

#endif
