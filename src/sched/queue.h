/* queue.h - the scheduling order of a queue whose jobs may name several
 * partitions (-p a,b).
 *
 * DESIGN: as Slurm's build_job_queue, a job of n partitions is n queue
 * records, one per partition, ordered by the partition's PriorityTier, then
 * the job's priority; the passes (pass.h, bf_run.h) take the records as
 * their queue entries, so a job waits in one partition (blocking it, or
 * planned there) and still starts in another where it fits.  Once one of its
 * records started the job, the driver skips its others (admit/next answer
 * SCHED_SKIP).  Pure: no I/O.
 */
#ifndef ROTA_SCHED_QUEUE_H
#define ROTA_SCHED_QUEUE_H

#include <stddef.h>
#include <stdint.h>

/* One record: job `job` (the driver's index) in the `at`-th partition of its
 * list, whose PriorityTier is tier. */
struct sched_qrec {
	uint32_t job;
	uint32_t at;
	uint32_t resv; /* of a job naming several reservations: which (0 first) */
	uint32_t tier;
	uint32_t prio;   /* the job's priority: higher first */
	uint32_t job_id; /* ties: lower first */
};

/* Put r[0..n) in scheduling order: higher tier first, then higher priority,
 * lower job id, and a job's records in its list's order. */
void sched_queue_sort(struct sched_qrec *r, size_t n);

#endif
