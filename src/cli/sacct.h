/* sacct.h - sacct's fields: names, widths, and each one's text for a job run
 * or one of its steps (sacct_fields.c). */
#ifndef ROTA_CLI_SACCT_H
#define ROTA_CLI_SACCT_H

#include <stddef.h>
#include <time.h>

struct acct_job;
struct acct_step;

struct sacct_field {
	const char *name; /* as sacct -e lists it */
	int width;        /* default */
	int left;         /* left-justified (JobID) */
	int id;
};

extern const struct sacct_field sacct_fields[];
extern const size_t sacct_field_count;

/* The field called name (case-insensitive), or NULL. */
const struct sacct_field *sacct_field_find(const char *name);

/* Whether field id's text on a job's line is made from its steps (the CPU
 * times Slurm sums): with -X, the steps are fetched all the same. */
int sacct_field_sums_steps(int id);

/* The text of field id for run j (st NULL) or its step st, into buf; now:
 * the time running jobs' elapsed time is counted to. */
const char *sacct_value(int id, const struct acct_job *j, const struct acct_step *st,
                        time_t now, char *buf, size_t len);

/* --json (sacct_json.c): each record added to jobs (a JSON array), with
 * its steps or not (-X; the job's CPU times are its steps' all the same),
 * then printed as Slurm's {"meta", "errors", "jobs"} (jobs taken). */
typedef struct json_t json_t;
void sacct_json_add(json_t *jobs, const struct acct_job *j, const char *cluster,
                    time_t now, int with_steps);
int sacct_json_print(json_t *jobs);

#endif
