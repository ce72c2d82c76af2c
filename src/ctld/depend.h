/* depend.h - job dependencies (sbatch -d) in the controller: checked at
 * submit, tested by the scheduling pass, shown by scontrol/squeue.
 *
 * The spec is kept as the user wrote it (job_desc.dependency, journaled with
 * the job) and parsed when needed, so no derived state has to survive a
 * restart.  A job a dependency names that has left the table (MinJobAge) counts
 * as satisfied, as in Slurm.  Event-loop thread only.
 */
#ifndef ROTA_DEPEND_H
#define ROTA_DEPEND_H

#include <stdint.h>
#include <time.h>
#include "common/error.h"

struct ctld;
struct job;

enum depend_result {
	DEPEND_OK,    /* satisfied: may start */
	DEPEND_WAIT,  /* not yet */
	DEPEND_NEVER, /* can never be satisfied */
};

/* At submit or update: spec (borrowed, NULL/"" = none) parses and names only
 * jobs in the table, and not self (the job updated, or its array; 0 at
 * submit).  Returns 0 or -ESLURM_INVALID_DEPENDENCY (err says why). */
int depend_validate(struct ctld *ctld, const char *spec, uint32_t self,
                    struct rota_error *err);

/* Test job's dependency now; for an array's pending remainder, task is the
 * task about to start (aftercorr looks at it), else NO_VAL.  A job without a
 * dependency is DEPEND_OK. */
enum depend_result depend_test(struct ctld *ctld, const struct job *job, uint32_t task,
                               time_t now);

/* Slurm's display of what is still outstanding, "afterok:12(unfulfilled)",
 * "(failed)" for what never will be; NULL when nothing is.  Caller frees. */
char *depend_show(struct ctld *ctld, const struct job *job, time_t now);

/* SchedulerParameters has kill_invalid_depend. */
int depend_kill_invalid(const struct ctld *ctld);

#endif
