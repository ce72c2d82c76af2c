/* hetjob.h - heterogeneous jobs: one batch job (or salloc's allocation)
 * made of components, each with its own request (nodes, tasks, CPUs,
 * memory, partition...), that start together.
 *
 * DESIGN: each component is a job of its own (its id, its record, its
 * journal events), marked in its request with the leader's id (component
 * 0's) and its offset and the number of components (job_desc.het_job_id,
 * het_offset); nothing else is kept apart, so a restart or a standby knows
 * them from the journal as any job.  The main pass considers the leader
 * only: when the leader fits, the other components are placed on what is
 * left of the same snapshot, and either all start (the others first, then
 * the leader, whose batch script gets every component's SLURM_*_HET_GROUP_n
 * and SLURM_HET_SIZE) or none does (Resources).  Backfill plans the
 * leader with all its components: the earliest time all fit together is
 * each one's planned start (src/sched/bf_run.c), and all start when that is
 * now.  A component other than the leader runs no script: `srun
 * --het-group=n` in the script makes steps in it.  salloc's allocation is
 * the leader's (its connection, its MSG_ALLOC_RESP, which carries the
 * SLURM_*_HET_GROUP_n of all).  A hetjob ends as one:
 * when one component ends, the others end with it (the leader's batch
 * script ending ends the whole job); cancelling any component cancels all.
 */
#ifndef ROTA_CTLD_HETJOB_H
#define ROTA_CTLD_HETJOB_H

#include <stddef.h>
#include <stdint.h>

struct ctld;
struct caller;
struct chan;
struct job;
struct submit_het;
struct sched_pass;
struct sched_alloc;

/* sbatch's (or, alloc, salloc's) components: all checked, then recorded,
 * or none.  An allocation is the leader's on ch, as one of job_mgr_submit:
 * MSG_ALLOC_PENDING, then MSG_ALLOC_RESP when all have started. */
void hetjob_submit_request(struct ctld *ctld, const struct caller *who,
                           struct submit_het *req, int alloc, struct chan *ch);

/* Is job a component other than the leader (started with the leader)? */
int hetjob_follower(const struct job *job);

/* The leader's components in offset order into out[HET_MAX] (the leader
 * first); the count. */
size_t hetjob_components(struct ctld *ctld, const struct job *leader, struct job **out);

/* The main pass placed the leader at a (ps->snap.out): place and start the
 * other components, then the leader.  SCHED_STARTED, or -EAGAIN with the
 * leader's reason set (nothing started, the snapshot as it was). */
int hetjob_start(struct sched_pass *ps, struct job *leader, const struct sched_alloc *a);

/* Start comps[0..n) (hetjob_components' order) on a[0..n): all, or none
 * (-EAGAIN, the leader's reason set).  The snapshot is the caller's. */
int hetjob_start_placed(struct sched_pass *ps, struct job **comps,
                        const struct sched_alloc *a, size_t n);

/* The leader's batch environment: every component's SLURM_*_HET_GROUP_n and
 * SLURM_HET_SIZE (caller frees with strv_free); NULL when not a leader. */
char **hetjob_batch_env(struct ctld *ctld, const struct job *leader);

/* job ended as state: the other components end with it. */
void hetjob_ended(struct ctld *ctld, struct job *job, uint32_t state, uint32_t reason,
                  uint32_t by);

#endif
