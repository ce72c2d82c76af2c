/* predict.h - runtime predictors: what the scheduler plans with.
 *
 * Backfilling plans with an estimate of each job's runtime.  Slurm uses the
 * user's requested time (--time), which users overstate by a wide margin.
 * A predictor turns (user, requested time, history) into an estimate:
 *
 *   PREDICT_REQUESTED   the requested time (Slurm, classic EASY);
 *   PREDICT_EXACT       the real runtime (an oracle; only a simulator knows it);
 *   PREDICT_USER_MEAN2  the mean of the user's last two finished jobs' runtimes,
 *                       capped by the requested time; the requested time while
 *                       the user has fewer than two finished jobs (Tsafrir,
 *                       Etsion and Feitelson, "Backfilling using system-generated
 *                       predictions rather than user runtime estimates", 2007).
 *   PREDICT_LEARNED     an on-line linear regression of log(runtime) on the
 *                       job's request and width and its user's recent
 *                       runtimes, trained on every finished job with a loss
 *                       that weighs underestimates more (after Gaussier,
 *                       Glesser, Reis and Trystram, "Improving backfilling by
 *                       using machine learning to predict running times",
 *                       SC'15); in [1, requested]; the requested time until
 *                       it has learned otherwise.
 *
 * An estimate can be too short.  When a running job reaches its estimate the
 * driver asks predict_correct() for a new one and moves the job's end in its
 * plan: PREDICT_CORRECT_DOUBLE doubles the estimate, capped by the requested
 * time (the default); PREDICT_CORRECT_REQUESTED jumps to the requested time;
 * PREDICT_CORRECT_INCREMENT adds growing increments (predict_correct_nth).
 *
 * Pure: no I/O, no clock.  History is per user id (any int64_t; negative ids
 * mean "unknown user" and never build history).  Not thread-safe.
 */
#ifndef ROTA_SCHED_PREDICT_H
#define ROTA_SCHED_PREDICT_H

#include <stdint.h>

enum predict_kind {
	PREDICT_REQUESTED,
	PREDICT_EXACT,
	PREDICT_USER_MEAN2,
	PREDICT_LEARNED,
};

enum predict_correction {
	PREDICT_CORRECT_DOUBLE,
	PREDICT_CORRECT_REQUESTED,
	PREDICT_CORRECT_INCREMENT,
};

struct predict;

/* NULL on -ENOMEM.  Caller frees with predict_destroy(). */
struct predict *predict_create(enum predict_kind kind);
void predict_destroy(struct predict *p); /* NULL is fine */

enum predict_kind predict_kind(const struct predict *p);

/* "requested", "exact", "user-mean2", "learned" <-> enum.  parse: 0 or -EINVAL. */
int predict_kind_parse(const char *name, enum predict_kind *ret_kind);
const char *predict_kind_name(enum predict_kind kind);

/* A job as predictors see it. */
struct predict_job {
	int64_t user;      /* < 0: unknown */
	int64_t requested; /* >= 1; 0 in a record: unknown (no learning) */
	int64_t actual;    /* estimate: the real runtime (EXACT only; 0 unknown);
	                    * record: the runtime it ran */
	int64_t procs;     /* processors (or CPUs), >= 1 */
};

/* Estimate for q, in [1, requested] except for PREDICT_EXACT (>= 1). */
int64_t predict_estimate_job(const struct predict *p, const struct predict_job *q);

/* q finished after q->actual: learn from it.  0 or -ENOMEM. */
int predict_record_job(struct predict *p, const struct predict_job *q);

/* Estimate for a job of `user` that asked for `requested` (>= 1) and will run
 * `actual` (only PREDICT_EXACT looks at it; pass 0 when unknown).  Always in
 * [1, requested] for REQUESTED and USER_MEAN2, >= 1 for EXACT. */
int64_t predict_estimate(const struct predict *p, int64_t user, int64_t requested,
                         int64_t actual);

/* A job of `user` finished after `runtime`.  0 or -ENOMEM. */
int predict_record(struct predict *p, int64_t user, int64_t runtime);

/* How underestimates are corrected (default PREDICT_CORRECT_DOUBLE). */
void predict_set_correction(struct predict *p, enum predict_correction c);

/* "double", "requested", "increment" <-> enum.  parse: 0 or -EINVAL. */
int predict_correction_parse(const char *name, enum predict_correction *ret_c);
const char *predict_correction_name(enum predict_correction c);

/* A running job reached its estimate `est` and still runs: the next estimate.
 * While est < requested: min(2 * est, requested), or requested.  Past its
 * requested time (a job kept only in unfiltered replays): 2 * est.  Always
 * > est. */
int64_t predict_correct(const struct predict *p, int64_t est, int64_t requested);

/* The same, for a job whose estimate was corrected nth times before (the first
 * correction: nth = 0).  PREDICT_CORRECT_INCREMENT needs it: the k-th
 * correction sets the estimate to the first one plus 1 min, 5 min, 15 min,
 * 30 min, 1 h, 2 h, 5 h, 10 h, 20 h, 50 h, 100 h (Tsafrir, Etsion and
 * Feitelson 2007), capped by the requested time; doubling after that. */
int64_t predict_correct_nth(const struct predict *p, int64_t est, int64_t requested,
                            unsigned nth);

#endif
