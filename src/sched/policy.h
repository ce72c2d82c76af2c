/* policy.h - which pending jobs start now: FCFS, EASY and conservative backfill.
 *
 * One scheduling pass over a queue in priority order (the caller sorts it: by
 * submit time then job id for FCFS order, or by priority).  Every job needs
 * `procs` processors of one pool for an estimated `est` time units.  The pass
 * reads the plan of the running jobs (plan.h), decides which queued jobs start
 * now, adds them to that plan, and reports the planned start of the jobs that
 * got a reservation (squeue --start, StartTime=).
 *
 *   POLICY_FCFS          start jobs in order while they fit; the first job that
 *                        does not fit blocks all behind it.
 *   POLICY_EASY          FCFS, then only the first blocked job (the head) gets a
 *                        reservation: it starts at the shadow time, the earliest
 *                        time enough processors are free for it; the processors
 *                        free then beyond its needs are the extra ones.  A later
 *                        job starts now if it fits now and either ends by the
 *                        shadow time or needs no more than the extra processors
 *                        (Lifka 1995; Mu'alem and Feitelson 2001).
 *   POLICY_CONSERVATIVE  every job, in order, gets a reservation at the earliest
 *                        time that delays no job before it; those whose
 *                        reservation is now start now.
 *   POLICY_EASY_SJBF     EASY, but the backfill candidates are tried shortest
 *                        estimate first (Tsafrir, Etsion and Feitelson's EASY++
 *                        when the estimates are predictions).
 *   POLICY_EASY_SAF      EASY with backfill shortest first (as EASY_SJBF), on
 *   POLICY_EASY_SJF      the queue reordered at every pass by a priority from
 *   POLICY_EASY_WFP3     the estimates: smallest area (est x procs) first,
 *   POLICY_EASY_UNICEF   shortest first, Tang et al.'s WFP3 (wait/est)^3 x procs
 *   POLICY_EASY_F1       and UNICEF wait / (log2(procs + 1) x est), largest
 *                        first (IPDPS'09), Carastan-Santos and de Camargo's F1
 *                        log10(est) x procs + 870 log10(submit), smallest
 *                        first (SC'17).  The head of that order keeps EASY's
 *                        reservation.
 *   POLICY_EASY_SAF_AGED POLICY_EASY_SAF, but a job that has waited more than
 *                        POLICY_AGE_WAIT, or whose slowdown so far (wait +
 *                        est) / max(est, 10) exceeds POLICY_AGE_SLOWDOWN, goes
 *                        before all others, oldest first: smallest area
 *                        first without starving wide jobs.
 *   POLICY_CONTROLLER    what rotactld runs: its main pass (pass.h), then
 *                        its backfill run (bf_run.h), the same code, on
 *                        nodes of one processor each: every job in order
 *                        gets the earliest start that delays no job before
 *                        it, and keeps the same processors for all of its
 *                        run.  Conservative on nodes; slower (a pass is
 *                        O(queue x processors)).
 *
 * The pass is pure: no I/O, no clock (now is an argument).  The estimates come
 * from the caller (predict.h): requested time, a prediction, or the truth.
 *
 * The running plan must describe processors held by running jobs only, each from
 * its start to its estimated end (>= now), so that its free count never
 * decreases after now.  The controller can later keep this API and plug
 * node-level placement in by making the pool per node type or by vetoing a start
 * that sched_select() cannot place.
 */
#ifndef ROTA_SCHED_POLICY_H
#define ROTA_SCHED_POLICY_H

#include <stddef.h>
#include <stdint.h>

struct plan;

enum policy_kind {
	POLICY_FCFS,
	POLICY_EASY,
	POLICY_CONSERVATIVE,
	POLICY_EASY_SJBF,
	POLICY_CONTROLLER,
	POLICY_EASY_SAF,
	POLICY_EASY_SJF,
	POLICY_EASY_WFP3,
	POLICY_EASY_UNICEF,
	POLICY_EASY_F1,
	POLICY_EASY_SAF_AGED,
};

#define POLICY_NO_START     INT64_MIN
#define POLICY_AGE_WAIT     (5 * 86400)
#define POLICY_AGE_SLOWDOWN 500

/* One pending job, in the caller's array. */
struct policy_job {
	uint64_t ref;   /* caller's: a job id or index, not read */
	uint32_t procs; /* 1..plan_total(running) */
	int64_t est;    /* estimated runtime, >= 1 */
	int64_t submit; /* submit time: read by the priority orders only */
	/* out, set by every pass: */
	int64_t start; /* now if started, else the reserved start or POLICY_NO_START */
	int started;   /* 0, or k when the pass started it k-th (1 first) */
};

struct policy;

/* POLICY_EASY_SAF_AGED's order at now, lower first: est x procs, or for an
 * aged job (see above) a key below every area, earlier submits first.  The
 * controller orders its queue by it under SchedulerParameters=sched_order=
 * saf_aged (src/ctld/sched_pass.c). */
double policy_saf_aged_key(int64_t est, int64_t procs, int64_t submit, int64_t now);

/* A policy of this kind for a pool of `total` processors.  NULL on -ENOMEM.
 * Caller frees with policy_destroy(). */
struct policy *policy_create(enum policy_kind kind, int64_t total);
void policy_destroy(struct policy *pol); /* NULL is fine */

/* "fcfs", "easy", "conservative", "easy-sjbf", "easy-saf", ... <-> enum.  parse: 0 or
 * -EINVAL. */
int policy_kind_parse(const char *name, enum policy_kind *ret_kind);
const char *policy_kind_name(enum policy_kind kind);

struct policy_pass {
	int64_t now;
	/* queue[0..unchanged) were all in the queue, in this order, at the previous
	 * pass of this policy with this running plan, that pass started no job, and
	 * since then no processor was released and no estimate changed: the pass
	 * may skip what cannot have changed for them.  0 is always safe. */
	size_t unchanged;
};

/* Schedule queue[0..n) at pass->now.  Jobs that start get started = their
 * rank in the order this pass started them (1, 2, ...) and start = now, and are added to
 * `running` over [now, now + est) (borrowed, modified).  The out fields of
 * queue[0..unchanged) are those of the previous pass, except that the head's reservation
 * is refreshed.  The caller removes started jobs from its queue before the next pass.
 * Returns the number started, -EINVAL (a job larger than the pool, est < 1, unchanged >
 * n; nothing changed then) or -ENOMEM (some jobs may already be started and added to
 * `running`). */
int policy_schedule(struct policy *pol, struct plan *running,
                    const struct policy_pass *pass, struct policy_job *queue, size_t n);

/* For the policies' own files: start job now as the pass's rank-th start,
 * adding it to running (policy.c), and the controller's passes run on the pool as one
 * node per processor (policy_controller.c). */
int policy_job_start(struct plan *running, int64_t now, struct policy_job *job, int rank);
struct sim_nodes;
struct policy_controller_opts;
int policy_controller_pass(struct plan *running, struct sim_nodes *sn,
                           const struct policy_controller_opts *o,
                           const struct policy_pass *pass, struct policy_job *queue,
                           size_t n);

/* POLICY_CONTROLLER on real nodes (sim_nodes.h, borrowed; NULL: the pool as
 * processors, the default). */
void policy_set_nodes(struct policy *pol, struct sim_nodes *sn);

/* POLICY_CONTROLLER under the SchedulerParameters that change its passes:
 * bf_job_part_count_reserve (part_reserve, 0: every job) and
 * sched_order=saf_aged (the queue by policy_saf_aged_key at every pass, the
 * backfill trying the jobs past the reservations shortest first).  Default:
 * all zero, Slurm's. */
struct policy_controller_opts {
	uint32_t part_reserve;
	int saf_aged;
};
void policy_set_controller(struct policy *pol, const struct policy_controller_opts *o);

#endif
