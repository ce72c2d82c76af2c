/* resv.h - advanced reservations: nodes (and licenses) set aside for some
 * users or accounts over a time window (scontrol create|update|delete
 * reservation, sinfo -T, --reservation).
 *
 * DESIGN: the table is controller state like the jobs: it changes only by
 * EV_RESV (job_event.h), a whole record by name or its deletion, applied by
 * resv_apply() live and in replay, and written whole by every compaction
 * (resv_snapshot).  What a request asks (which nodes a NodeCnt takes, its
 * checks against running jobs and other reservations) is decided before the
 * event, so applying it looks nothing up but the node names.
 *
 * The scheduler asks, per job, which nodes a reservation keeps from it now
 * (resv_mark) and whether a job that asked for one may start at all
 * (resv_job_wait); backfill plans around reservations as holds on their
 * nodes over their windows (resv_holds).  A job started in a reservation
 * ends with it (its limit cut), or ResvOverRun minutes after it; one of a
 * FLEX reservation may begin before it and end after it.  Each
 * second resv_tick moves a repeating reservation on when it ends, deletes an
 * ended one, and a PURGE_COMP one once it has been empty that long.  The
 * pending jobs of one deleted no longer ask for it and wait held, unless it
 * had NO_HOLD_JOBS_AFTER_END (as Slurm).
 */
#ifndef ROTA_CTLD_RESV_H
#define ROTA_CTLD_RESV_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct caller;
struct chan;
struct job;
struct job_desc;
struct ev_resv;
struct resv_desc;
struct resv_info_req;
struct sched_node;
struct sched_hold;
union job_event;

struct resv_mgr *resv_mgr_create(void);
void resv_mgr_destroy(struct resv_mgr *m); /* NULL allowed */
/* Forget every reservation (a state image or a snapshot follows). */
void resv_mgr_clear(struct resv_mgr *m);
/* How many there are. */
size_t resv_count(const struct resv_mgr *m);

/* EV_RESV: 0, or -ENOENT (deleting one that does not exist). */
int resv_apply(struct ctld *ctld, const struct ev_resv *ev);
/* The i-th reservation as its EV_RESV (members borrowed from the table):
 * 1, or 0 past the last. */
int resv_snapshot(const struct resv_mgr *m, size_t i, struct ev_resv *ev);

/* MSG_RESV_UPDATE_REQ (operators) and MSG_RESV_INFO_REQ. */
void resv_request(struct ctld *ctld, struct caller *who, const struct resv_desc *r,
                  struct chan *ch);
void resv_info(struct ctld *ctld, struct caller *who, const struct resv_info_req *r,
               struct chan *ch);

/* Each second: repeating ones moved on, ended and purged ones deleted. */
void resv_tick(struct ctld *ctld, time_t now);

/* NODE_RESERVED (and NODE_MAINT) for node idx while an active reservation
 * holds it; 0 when none does. */
uint32_t resv_node_flags(struct ctld *ctld, size_t idx, time_t now);

/* At submission: d->reservation names one that exists and that the user
 * (name) or d->account may use; of a list (a,b: the job runs in whichever
 * can run it first), every one exists and one admits it.  0,
 * -ESLURM_RESERVATION_INVALID or -ESLURM_RESERVATION_ACCESS. */
int resv_job_check(struct ctld *ctld, const char *user, const struct job_desc *d);

/* The reservation a job uses: its only one; of its list, the one it runs
 * in, else the one the scheduler tries it in now (job_sched's resv_try),
 * else the first that exists.  Its name (borrowed), NULL none. */
const char *resv_job_name(struct ctld *ctld, const struct job *job);
/* How many reservations the job names (0 none). */
size_t resv_job_count(const struct job *job);

/* A job that asked for a reservation: 0 when it may start now (the
 * reservation is active, or FLEX and not over), else the reason it waits
 * (WAIT_RESERVATION before it begins: its expected start is then the reservation's,
 * WAIT_RESV_DELETED when it is gone). */
uint32_t resv_job_wait(struct ctld *ctld, struct job *job, time_t now);

/* A scheduling pass's view of the core reservations (CoreCnt=): the CPUs
 * their jobs hold on each node.  NULL when there is none (nothing to do).
 * A job of one started in the pass on a is told with resv_pass_took. */
struct resv_pass;
struct sched_alloc;
struct resv_pass *resv_pass_begin(struct ctld *ctld);
void resv_pass_took(struct resv_pass *rp, const struct job *job,
                    const struct sched_alloc *a);
void resv_pass_end(struct resv_pass *rp); /* NULL allowed */

/* Take from nodes[0..n) (usable) what reservations keep from job were it
 * to start now and run its limit: another's nodes during its window (of a
 * core reservation, the CPUs it holds free there, counted as allocated),
 * and for a job in one, every node outside it (but with FLEX) and, in a
 * core reservation, the CPUs beyond what it holds free.  What the last call
 * counted as allocated in the snapshot is taken back first (rp).  Returns
 * the flags of the reservations that kept nodes from it (RESV_F_MAINT says
 * a maintenance one did), 0 when none did; *ret_kept counts those nodes. */
uint32_t resv_mark(struct ctld *ctld, struct resv_pass *rp, const struct job *job,
                   time_t now, struct sched_node *nodes, size_t n, size_t *ret_kept);

/* Minutes a job starting now on a may run: in its reservation, the time to
 * the reservation's end and ResvOverRun (0 for UNLIMITED or FLEX); with --time-min, the
 * time to the first reservation on those nodes that would begin before its limit ends (at
 * least its --time-min, as Slurm shrinks it); 0 when nothing cuts it. */
uint32_t resv_job_limit(struct ctld *ctld, const struct job *job, time_t now,
                        const struct sched_alloc *a);

/* Backfill's holds for the reservations a job outside them must plan
 * around: every node of each over its window (from now at the earliest),
 * appended to *holds (realloc'd; *n and *cap updated). */
void resv_holds(struct ctld *ctld, time_t now, struct sched_hold **holds, size_t *n,
                size_t *cap);

/* For each license an active reservation holds (Licenses=): its name, the
 * license, how many it holds and how many of them its running jobs do not
 * use. */
void resv_lic_each(struct ctld *ctld, time_t now,
                   void (*fn)(void *arg, const char *resv, const char *lic,
                              uint32_t reserved, uint32_t unused),
                   void *arg);

/* A job started (or ended) in its reservation: PURGE_COMP counts from the
 * last one's end. */
void resv_job_started(struct ctld *ctld, const struct job *job);

#endif
