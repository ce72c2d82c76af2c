/* preempt.h - PreemptType=preempt/partition_prio and preempt/qos: a pending
 * job that cannot start for want of resources takes them from running jobs
 * of partitions with a lower PriorityTier (or of QOS its own QOS may
 * preempt).
 *
 * The scheduling pass asks (preempt_for) when a job waits for resources:
 * the running jobs of lower tiers on its partition's nodes are freed one by
 * one, in a copy of the pass's snapshot (the lowest tier first, then the
 * youngest), until the job fits; if it does, those jobs are preempted, else
 * none is.  A preempted job's PreemptMode (its partition's, else the global
 * one) says what becomes of it: CANCEL ends it PREEMPTED, REQUEUE puts a
 * batch job that may be requeued back in the queue (others are cancelled).
 * It is sent SIGTERM first and stopped its partition's GraceTime seconds
 * later (preempt_tick); meanwhile the preemptor waits and later passes count
 * the jobs already preempted as free.  The resources then go to the
 * preemptor: its partition's tier puts it first in the next pass.  Jobs that
 * have run less than PreemptExemptTime are left alone.
 *
 * preempt/qos: the same, but a job may preempt the running jobs whose QOS
 * its QOS lists in Preempt= (lower QOS Priority first); the victim's QOS
 * gives PreemptMode (unless "cluster"), GraceTime and PreemptExemptTime.
 *
 * SUSPEND stops the victim and gives its CPUs to the preemptor until they
 * are free again (suspend.h); GANG's time slicing is gang.h's. */
#ifndef ROTA_CTLD_PREEMPT_H
#define ROTA_CTLD_PREEMPT_H

#include <time.h>

struct ctld;
struct job;
struct sched_pass;
struct sched_job;

/* In a pass: job (sj: its request, the pass's nodes marked for it) waits for
 * resources; preempt what would let it run. */
void preempt_for(struct sched_pass *ps, struct job *job, const struct sched_job *sj);

/* What preemption does to the jobs of partition cp: "OFF" (always without
 * preempt/partition_prio), "CANCEL" or "REQUEUE". */
struct conf_part;
const char *preempt_mode_name(const struct ctld *ctld, const struct conf_part *cp);

/* Per second, for a running job: its grace is over, stop it. */
void preempt_tick(struct ctld *ctld, struct job *job, time_t now);

#endif
