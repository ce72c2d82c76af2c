/* suspend.h - scontrol suspend|resume: a running job's processes stopped
 * (SIGSTOP to every step on its nodes) and its CPUs given up for others, then
 * continued (SIGCONT) with its CPUs taken again, the same cores where they
 * are still free.  Its memory and GRES stay held.  The time it spends
 * suspended does not count against its time limit (Slurm's rule).
 *
 * DESIGN: the state is a flag on a RUNNING job (JOB_SUSPEND_FLAG), so that
 * everything that follows running jobs (steps, nodes' reports, signals,
 * the end) treats it as running; it is shown SUSPENDED.  The change is
 * EV_SUSPEND, journaled, applied the same live and in replay. */
#ifndef ROTA_CTLD_SUSPEND_H
#define ROTA_CTLD_SUSPEND_H

#include <time.h>

struct ctld;
struct job;
struct caller;
struct chan;
struct ev_suspend;
struct job_suspend_req;

/* EV_SUSPEND: 0, or -EINVAL (not running; already so). */
int suspend_apply(struct ctld *ctld, const struct ev_suspend *ev, struct job *job);

/* Has job given its CPUs up (suspended, other than by time slicing, which
 * keeps them: ctld/gang.h)? */
int suspend_cpus_given_up(const struct job *job);

/* A suspended job ending: its CPUs counted as held again, so that its end
 * gives them back as any job's. */
void suspend_end(struct ctld *ctld, struct job *job);

/* Preemption with PreemptMode=SUSPEND: job suspended, to be resumed by
 * suspend_tick once its CPUs are free again (Slurm's gang scheduler
 * resumes such jobs when the preemptor is done).  0 or -1. */
int suspend_by_preemption(struct ctld *ctld, struct job *job);
/* Each second: the jobs suspended by preemption whose CPUs are free again
 * resumed. */
void suspend_tick(struct ctld *ctld, time_t now);

/* MSG_JOB_SUSPEND_REQ (operators). */
void suspend_request(struct ctld *ctld, struct caller *who,
                     const struct job_suspend_req *r, struct chan *ch);

/* Seconds the job has run, suspensions left out. */
long job_run_secs(const struct job *job, time_t now);

#endif
