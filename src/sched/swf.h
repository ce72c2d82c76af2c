/* swf.h - the Standard Workload Format (Feitelson's Parallel Workloads Archive):
 * one job per line, 18 whitespace-separated numbers, -1 for unknown; header and
 * comment lines start with ';'.
 *
 * Pure: parses and formats one line at a time; the caller reads the file.
 */
#ifndef ROTA_SCHED_SWF_H
#define ROTA_SCHED_SWF_H

#include <stddef.h>
#include <stdint.h>

struct rota_error;

#define SWF_FIELDS   18
#define SWF_MAX_LINE 4096

/* The 18 fields, in file order (1-based field numbers in the comments). */
struct swf_job {
	int64_t id;          /*  1 job number */
	int64_t submit;      /*  2 submit time, seconds */
	int64_t wait;        /*  3 wait time */
	int64_t run;         /*  4 run time */
	int64_t alloc_procs; /*  5 allocated processors */
	double avg_cpu;      /*  6 average CPU time used (may be fractional) */
	int64_t used_mem;    /*  7 used memory, KB per processor */
	int64_t req_procs;   /*  8 requested processors */
	int64_t req_time;    /*  9 requested time */
	int64_t req_mem;     /* 10 requested memory */
	int64_t status;      /* 11 1 completed, 0 failed, 5 cancelled, ... */
	int64_t user;        /* 12 user id */
	int64_t group;       /* 13 group id */
	int64_t exe;         /* 14 executable number */
	int64_t queue;       /* 15 queue number */
	int64_t partition;   /* 16 partition number */
	int64_t prev_job;    /* 17 preceding job */
	int64_t think;       /* 18 think time from preceding job */
};

/* Parse one line (NUL-terminated; a trailing newline is fine).  Returns 1 and
 * fills *ret_job for a job line, 0 for a blank or ';' line, -EINVAL (with err
 * filled) for anything else: fewer than 18 fields, or a field that is not a
 * number.  Fields after the 18th are ignored. */
int swf_parse_line(const char *line, struct swf_job *ret_job, struct rota_error *err);

/* For a header line "; Key: value" whose key is `key` (case-sensitive) and whose
 * value starts with an integer: 1 and *ret_value.  0 otherwise. */
int swf_header_int(const char *line, const char *key, int64_t *ret_value);

/* Why swf_clean() drops a job. */
enum swf_drop {
	SWF_KEEP = 0,
	SWF_DROP_PROCS,    /* requested and allocated processors both <= 0 */
	SWF_DROP_TOO_WIDE, /* more processors than the machine has */
	SWF_DROP_RUN,      /* run time <= 0 */
	SWF_DROP_REQ_TIME, /* requested time <= 0 */
	SWF_DROP_SUBMIT,   /* submit time < 0 */
	SWF_DROP_COUNT
};

const char *swf_drop_name(enum swf_drop why);

/* The processors a job uses: requested processors (field 8), or the allocated
 * ones (field 5) when not given; <= 0 when neither is. */
int64_t swf_procs(const struct swf_job *job);

/* Clean a job as the literature does (Feitelson, Tsafrir, Krakov: "Experience
 * with using the Parallel Workloads Archive", 2014): decide whether to drop it
 * on a machine of max_procs processors, and if kept fill in req_procs from
 * alloc_procs (or the reverse) where one is missing, and cap the run time at the
 * requested time.  Returns SWF_KEEP or the reason to drop (job unchanged then). */
enum swf_drop swf_clean(struct swf_job *job, int64_t max_procs);

/* Format a job as an SWF line (no newline) into buf.  Returns what snprintf
 * returns: the length it needed. */
int swf_format_line(const struct swf_job *job, char *buf, size_t len);

#endif
