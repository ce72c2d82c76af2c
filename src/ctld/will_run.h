/* will_run.h - sbatch/srun --test-only: when and where would this job start?
 *
 * MSG_WILL_RUN_REQ {job_desc} is checked exactly as its submission would be
 * (job_submit_prepare: options, partition, limits, accounts), then placed
 * once on a backfill plan (sched/bf_run.h) of the nodes as they are now and
 * the running jobs until their expected ends (backfill_holds) and the
 * reservations' windows.  The answer, MSG_WILL_RUN_RESP, is the earliest
 * start (not before --begin), the nodes, their CPUs, the partition and the id
 * the job would get; a refusal is the submission's MSG_RC.  Nothing changes:
 * no job record, no id taken, nothing journaled.  Runs inline on the loop.
 */
#ifndef ROTA_CTLD_WILL_RUN_H
#define ROTA_CTLD_WILL_RUN_H

struct ctld;
struct caller;
struct chan;
struct job_desc;

/* Answer d (borrowed; the defaults a submission fills in are set in it) on
 * ch: an allocation's (srun) when d has JOB_F_INTERACTIVE, else a batch
 * job's. */
void will_run_query(struct ctld *ctld, struct caller *who, struct job_desc *d,
                    struct chan *ch);

#endif
