/* plan.h - a time-indexed availability profile of one pool of processors.
 *
 * A plan answers "how many processors are used at time t" and "when could a job
 * of k processors and estimated runtime d start, at or after t".  Reservations
 * (running jobs until their estimated end, planned starts of pending jobs) are
 * added and removed as (start, end, delta) ranges.  The scheduling policies
 * (policy.h) use one plan for the running jobs and a scratch copy for
 * reservations; rotactld and `rota sim` both drive them.
 *
 * DESIGN: a step function stored as a sorted array of breakpoints; step i covers
 * [t[i], t[i+1]) with used[i] processors in use, the last step runs to infinity.
 * Lookups are binary searches; adding a range splits at most two steps (memmove)
 * and merges equal neighbours again, so the array holds about one step per
 * distinct reservation end.  plan_trim() forgets the past.  Time is an int64_t in
 * any unit the caller likes (seconds); the plan never reads a clock.
 *
 * Usage may temporarily exceed the total (a running job outliving its estimate
 * is allowed to be corrected); free counts are then negative, never clamped.
 */
#ifndef ROTA_SCHED_PLAN_H
#define ROTA_SCHED_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define PLAN_TIME_MIN INT64_MIN
#define PLAN_TIME_MAX INT64_MAX

struct plan;

/* A plan of `total` processors, all free at every time.  NULL on -ENOMEM.
 * Caller frees with plan_destroy(). */
struct plan *plan_create(int64_t total);
void plan_destroy(struct plan *p); /* NULL is fine */

/* Make dst an exact copy of src (same total, same steps).  0 or -ENOMEM (dst
 * unchanged on failure). */
int plan_copy(struct plan *dst, const struct plan *src);

/* Forget all reservations. */
void plan_clear(struct plan *p);

int64_t plan_total(const struct plan *p);

/* Number of steps (for tests and statistics). */
size_t plan_steps(const struct plan *p);

/* Add delta processors in use over [start, end) (delta < 0 releases).
 * start < end required (-EINVAL otherwise, plan unchanged); end may be
 * PLAN_TIME_MAX for "forever".  0 or -ENOMEM. */
int plan_add(struct plan *p, int64_t start, int64_t end, int64_t delta);

/* Free processors (total - used) at time t. */
int64_t plan_free_at(const struct plan *p, int64_t t);

/* Least number of free processors anywhere in [start, end). */
int64_t plan_min_free(const struct plan *p, int64_t start, int64_t end);

/* Earliest s >= from such that at least procs processors are free during all of
 * [s, s + dur).  dur >= 1.  Returns 0 and sets *ret_start, or -EINVAL when it
 * never fits (procs > total, or the free count never recovers). */
int plan_earliest(const struct plan *p, int64_t from, int64_t procs, int64_t dur,
                  int64_t *ret_start);

/* Step i (< plan_steps()): when it starts (PLAN_TIME_MIN for the first) and
 * the processors in use during it. */
void plan_step(const struct plan *p, size_t i, int64_t *ret_start, int64_t *ret_used);

/* Drop the steps that end at or before now (the step holding now is kept and
 * starts at PLAN_TIME_MIN afterwards).  Keeps the plan small in a long replay. */
void plan_trim(struct plan *p, int64_t now);

#endif
