/* stats.h - what sdiag reports: jobs submitted, started and ended, the
 * scheduler's and backfill's cycles, the journal's syncs, and every
 * operation's count and time by message type and by user.
 *
 * Counters only: each update is a few additions on the loop thread.  Reset by
 * `sdiag -r` (admins); "since" says when. */
#ifndef ROTA_CTLD_STATS_H
#define ROTA_CTLD_STATS_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct ctld;
struct ctld_stats;
struct stats_resp;
union job_event;

struct ctld_stats *stats_create(time_t now);
void stats_destroy(struct ctld_stats *st);
void stats_reset(struct ctld_stats *st, time_t now);

/* An operation of this message type for uid took usec (ops.c).  rpc_id: 0,
 * or the Slurm RPC it stands for when the type alone does not say (a batch
 * script's end is REQUEST_COMPLETE_BATCH_SCRIPT, another step's is
 * REQUEST_STEP_COMPLETE). */
void stats_rpc(struct ctld_stats *st, uint16_t type, uint32_t rpc_id, uid_t uid,
               uint64_t usec);
/* A main scheduling pass: its time, the jobs it looked at, the queue length. */
void stats_sched(struct ctld_stats *st, uint64_t usec, uint32_t depth, uint32_t queue);
/* A backfill pass ended at `when`: its time (running slices only), the jobs it
 * tested, the queue it planned, the jobs it started. */
void stats_backfill(struct ctld_stats *st, time_t when, uint64_t usec, uint32_t depth,
                    uint32_t queue, uint32_t started);
/* A journal batch took usec to write and sync. */
void stats_sync(struct ctld_stats *st, uint64_t usec);
/* A live (not replayed) job event (counts submissions, starts, ends). */
void stats_job_event(struct ctld_stats *st, const union job_event *ev);

/* Fill r (zeroed) with the figures as of now. */
void stats_fill(struct ctld *ctld, struct stats_resp *r);

/* Microseconds since *t0 (CLOCK_MONOTONIC). */
uint64_t stats_usec_since(const struct timespec *t0);

#endif
