/* sched_pass.h - what the scheduling pass shares with its backfill pass.
 *
 * sched_pass() (job_mgr.h) runs the main pass: pending jobs in priority order,
 * each started where it fits now, the first that does not fit blocks its
 * partition.  With SchedulerType=sched/backfill, backfill_pass() then plans the
 * jobs still pending over time (backfill.c).  Both work on one snapshot of the
 * nodes, kept current as jobs start.
 */
#ifndef ROTA_CTLD_SCHED_PASS_H
#define ROTA_CTLD_SCHED_PASS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "sched/select.h"

struct ctld;
struct job;
struct part;

struct sched_pass {
	struct ctld *ctld;
	struct sched_node *nodes; /* [nnodes] capacity, allocation, this job's mask */
	size_t nnodes;
	struct sched_alloc out;      /* arrays of nnodes entries */
	uint8_t *blocked;            /* per partition: a higher-priority job waits */
	int mem_consumable;          /* SelectTypeParameters counts memory */
	struct assoc_limits *limits; /* what runs per association (NULL: no limit) */
};

/* A snapshot of the nodes as they are now, with room for one allocation;
 * release with sched_pass_release. */
void sched_pass_init(struct sched_pass *ps, struct ctld *ctld);
void sched_pass_release(struct sched_pass *ps);

/* Set a pending job's reason; takes ownership of detail (may be NULL). */
void sched_pass_set_reason(struct job *job, uint32_t reason, char *detail);

size_t sched_pass_part_index(struct ctld *ctld, const struct part *p);

/* How many matching-OR alternatives ([a|b]) the job's --constraint has; 1
 * when none. */
size_t sched_pass_alternatives(struct job *job);

/* Mark in ps->nodes which nodes this job may use (and must use), taking
 * alternative alt (< sched_pass_alternatives()) of its constraint. */
void sched_pass_mark_nodes(struct sched_pass *ps, struct job *job, size_t alt);

/* The selection request of a job. */
void sched_pass_req(const struct job *job, struct sched_req *r);

/* Start job on ps->out (journaled), counting its resources in ps->nodes. */
void sched_pass_start(struct sched_pass *ps, struct job *job, time_t now);

/* Plain words: what the job needs and how many nodes could give it.  Caller
 * frees. */
char *sched_pass_wait_detail(struct sched_pass *ps, struct job *job,
                             const struct sched_req *r);

/* The backfill pass (backfill.c): after the main pass, when SchedulerType is
 * sched/backfill, bf_interval has passed since the last one and none is in
 * progress, start one over pending[0..n) (priority order; jobs the main pass
 * started are skipped).  It runs in slices: ctld_backfill_kick() has the loop
 * call backfill_continue() until that returns 1. */
struct sched_params;
void backfill_pass(struct sched_pass *ps, const struct sched_params *sp,
                   struct job **pending, size_t n, time_t now);
/* Would backfill_pass start a run now?  sp: SchedulerParameters, parsed. */
int backfill_due(struct ctld *ctld, const struct sched_params *sp, time_t now);

/* Go on with the pass in progress for budget_s seconds (0: bf_yield_interval)
 * and at least one job; now is the time a rebuilt plan starts from.  Returns
 * 1 when the pass is over (or there is none). */
int backfill_continue(struct ctld *ctld, time_t now, double budget_s);

/* Drop the pass in progress (shutdown). */
void backfill_abandon(struct ctld *ctld);

#endif
