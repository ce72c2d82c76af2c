/* sacct.h - sacct's fields: names, widths, and each one's text for a job run
 * or one of its steps (sacct_fields.c); its --json document, which is also
 * rotarestd's slurmdb one (sacct_json.c). */
#ifndef ROTA_PROTO_SACCT_H
#define ROTA_PROTO_SACCT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct acct_job;
struct acct_step;
struct conf;

/* What a record's texts depend on besides the record: the cluster's
 * configuration (its tracked TRES, billing weights, name) and the time
 * running jobs' elapsed time is counted to. */
struct sacct_ctx {
	const struct conf *conf;
	time_t now;
	int noconvert; /* --noconvert: memory and disk figures in bytes */
};

struct sacct_field {
	const char *name; /* as sacct -e lists it */
	int width;        /* default */
	int left;         /* left-justified (JobID) */
	int id;
};

extern const struct sacct_field sacct_fields[];
extern const size_t sacct_field_count;

/* The field called name (case-insensitive), else the first whose name it
 * begins ("job": JobID), or NULL. */
const struct sacct_field *sacct_field_find(const char *name);

/* Whether field id's text on a job's line is made from its steps (the CPU
 * times Slurm sums): with -X, the steps are fetched all the same. */
int sacct_field_sums_steps(int id);

/* The text of field id for run j (st NULL) or its step st, into buf. */
const char *sacct_value(const struct sacct_ctx *x, int id, const struct acct_job *j,
                        const struct acct_step *st, char *buf, size_t len);

/* --json (sacct_json.c): each record added to jobs (a JSON array), with
 * its steps or not (-X; the job's CPU times are its steps' all the same);
 * then Slurm's document {"meta", "errors", "jobs"} (jobs taken). */
typedef struct json_t json_t;
void sacct_json_add(const struct sacct_ctx *x, json_t *jobs, const struct acct_job *j,
                    int with_steps);
json_t *sacct_json_doc(json_t *jobs);

/* Pieces of a record that Slurm's later shapes keep as they are (shared
 * with slurmdb_json44.h).  A TRES list, [{"type", "name", "id", "count"}],
 * of cpu, mem (MB) and node (a zero left out); the GRES of
 * "gres/gpu=2,gres/gpu:h100=2" added to one (type "gres", name "gpu" or
 * "gpu:h100", ids as Slurm numbers its own after 1000; a returned); a
 * step's usage, {"max", "average", "min", "total"} (memory, GPUs); CPU time
 * as {"seconds", "microseconds"}; the job's memory request in MB (per CPU
 * times its CPUs). */
struct acct_job;
json_t *sacct_json_tres(uint64_t cpus, uint64_t mem, uint64_t nodes);
json_t *sacct_json_tres_gres(const struct sacct_ctx *x, json_t *a, const char *gres_tres);
json_t *sacct_json_step_usage(const struct acct_job *j, const struct acct_step *st);
json_t *sacct_json_cpu_time(uint64_t usec);
uint64_t sacct_json_req_mem(const struct acct_job *j);

#endif
