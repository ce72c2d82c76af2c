/* sched_pass.h - the controller's driver of the scheduling passes.
 *
 * sched_pass() (job_mgr.h) runs the main pass (src/sched/pass.h) over the
 * pending jobs in priority order; with SchedulerType=sched/backfill,
 * backfill_pass() then has the jobs still pending planned over time
 * (src/sched/bf_run.h, driven by backfill.c).  The decisions are the
 * scheduling core's, shared with `rota sim`; what is here is the controller's
 * side: holds, dependencies, limits, reasons in Slurm's words, arrays split
 * into tasks, starts journaled.
 */
#ifndef ROTA_CTLD_SCHED_PASS_H
#define ROTA_CTLD_SCHED_PASS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "sched/view.h"

struct conf;
struct ctld;
struct job;
struct part;

/* The controller's side of one pass (src/sched/view.h): a snapshot of the
 * nodes and partitions, the limits as they stand, and the job the pass is at
 * (an array's tasks are started one after the other). */
struct sched_pass {
	struct ctld *ctld;
	struct sched_snap snap;
	struct sched_group *parts;   /* [snap.nparts] */
	struct assoc_limits *limits; /* what runs per association (NULL: no limit) */
	struct lic_pool *lics;       /* licenses held (NULL: none configured) */
	struct job **jobs;           /* main pass: the queue, borrowed */
	/* main pass: the partition of queue entry i of a job that names
	 * several (-p a,b), NULL: the job's own; NULL when none does */
	struct part **rec_part;
	uint32_t *rec_resv; /* [i]: 1 + which of its reservations; 0 not a list */
	time_t now;
	size_t cur;               /* the queue index running counts for */
	uint32_t running;         /* tasks of cur's array running */
	int backfill;             /* starts are backfill's (logged so) */
	uint32_t max_switch_wait; /* SchedulerParameters, seconds */
	/* the last job marked: the flags of the reservations that kept nodes
	 * from it (resv_mark), for its reason */
	uint32_t resv_kept;
	struct resv_pass *resv; /* core reservations (NULL: none) */
};

/* A snapshot of the nodes as they are now; release with sched_pass_release. */
void sched_pass_init(struct sched_pass *ps, struct ctld *ctld);
void sched_pass_release(struct sched_pass *ps);

/* Set a pending job's reason; takes ownership of detail (may be NULL). */
void sched_pass_set_reason(struct job *job, uint32_t reason, char *detail);

size_t sched_pass_part_index(struct ctld *ctld, const struct part *p);

/* What partition p sets in a request of a job considered in it: its
 * MaxCPUsPerNode and LLN (or SelectTypeParameters=CR_LLN). */
void sched_pass_part_req(const struct conf *conf, const struct part *p,
                         struct sched_req *r);

/* The node counts of a job's --constraint cons (NULL: none) into r
 * ("a*2": at least 2 of its nodes have a), and r->min_nodes raised to the
 * nodes they need where its node range allows; with batch (its --batch,
 * job_batch_features; NULL: none) one more count: a node of the job has
 * those features, to run its script. */
struct constraint;
void sched_pass_feat_req(const struct constraint *cons, const char *batch,
                         struct sched_req *r);
/* sched_node.feat of a node with features (borrowed) for cons and batch (as
 * sched_pass_feat_req): bit k when it has what count k asks. */
uint32_t sched_pass_feat_bits(const struct constraint *cons, const char *batch,
                              const char *features);
/* The bit of batch's count in sched_node.feat (after cons's). */
uint32_t sched_pass_batch_bit(const struct constraint *cons);

/* The queue records of pending[0..n) (sched/queue.h: one per partition of a
 * job of several, each other job one), in scheduling order; *ret_n of them
 * (.job indexes pending[], .at the partition's place in the job's list).
 * NULL when no job names several partitions (the queue is pending[] as it
 * is).  Caller frees. */
struct sched_qrec;
struct sched_qrec *sched_pass_queue(struct ctld *ctld, struct job **pending, size_t n,
                                    size_t *ret_n);
/* Point a job that names several partitions at the at-th of its list (for a
 * pass's record): 0, or -1 when there is no such partition now. */
int sched_pass_use_part(struct ctld *ctld, struct job *job, uint32_t at);
/* Put a waiting job that names several partitions back on the first of its
 * list (after a pass pointed it at others). */
void sched_pass_part_reset(struct ctld *ctld, struct job *job);

/* A job's attempt as the passes see it: partition, request, alternatives of
 * its --constraint (dur is left to the caller). */
void sched_pass_job(struct sched_pass *ps, struct job *job, struct sched_job *ret);

/* Mark in ps->snap.nodes which nodes this job may use (and must use), taking
 * alternative alt of its constraint; with --gres-flags=enforce-binding only
 * those that can give it CPUs near its GRES (free now; in a backfill pass,
 * once the node is free). */
void sched_pass_mark_nodes(struct sched_pass *ps, struct job *job, size_t alt);

/* Start job (or, for an array's pending remainder, its next task split off)
 * on a, journaled.  SCHED_STARTED, SCHED_MORE (the array has more tasks) or
 * -1 (nothing started). */
int sched_pass_start_job(struct sched_pass *ps, struct job *job,
                         const struct sched_alloc *a);

/* The backfill pass (backfill.c): after the main pass, when SchedulerType is
 * sched/backfill, bf_interval has passed since the last one and none is in
 * progress, start one over pending[0..n) (priority order; jobs the main pass
 * started are skipped).  It runs in slices: ctld_backfill_kick() has the loop
 * call backfill_continue() until that returns 1. */
struct sched_params;
void backfill_pass(struct ctld *ctld, const struct sched_params *sp, struct job **pending,
                   size_t n, time_t now);
/* A job that ran ended after runtime seconds: the predictors learn from it. */
void backfill_job_ended(struct ctld *ctld, const struct job *job, int64_t runtime);
/* What the backfill plan takes for a pending job's runtime in seconds (its
 * limit, or bf_estimate's estimate capped by it), or BF_FOREVER. */
int64_t backfill_job_estimate(struct ctld *ctld, const struct sched_params *sp,
                              const struct job *job);
/* Backfill's holds for the jobs that hold resources now: each node of each
 * until its expected end (time limit, or bf_estimate's estimate), appended to
 * *holds (realloc'd; *n and *cap updated; caller frees). */
struct sched_hold;
void backfill_holds(struct ctld *ctld, const struct sched_params *sp, time_t now,
                    struct sched_hold **holds, size_t *n, size_t *cap);
/* Would backfill_pass start a run now?  sp: SchedulerParameters, parsed. */
int backfill_due(struct ctld *ctld, const struct sched_params *sp, time_t now);

/* Go on with the pass in progress for budget_s seconds (0: bf_yield_interval)
 * and at least one job; now is the time a rebuilt plan starts from.  Returns
 * 1 when the pass is over (or there is none). */
int backfill_continue(struct ctld *ctld, time_t now, double budget_s);

/* Drop the pass in progress (shutdown). */
void backfill_abandon(struct ctld *ctld);

#endif
