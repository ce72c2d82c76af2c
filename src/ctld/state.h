/* state.h - the controller's state and its journal (journal.h): restore at
 * start-up, compaction, and writing everything again after a failure. */
#ifndef ROTA_CTLD_STATE_H
#define ROTA_CTLD_STATE_H

#include <time.h>
#include "common/error.h"

struct ctld;

/* Rebuild the state from the journal: every event applied as it was live
 * (job_event_apply), then what the journal does not hold is settled (the
 * nodes' confirmations of ended jobs, ids already handed out), jobs past
 * MinJobAge purged, and the journal compacted.  Returns 0 or -1 (err). */
int ctld_state_restore(struct ctld *ctld, struct rota_error *err);

/* Once a second: retry a failed journal (after 1, 2, 4 s...), or compact it
 * when it has grown well past the state it held. */
void ctld_state_tick(struct ctld *ctld, time_t now);
/* Start a compaction in a child when the journal has grown enough and
 * rotadbd holds what it would drop (acct.h). */
void ctld_state_maybe_compact(struct ctld *ctld);

/* Compact the journal in a child process (journal_compact_start): 0, -EBUSY
 * when one runs already or the journal is failed, or another error. */
int ctld_state_compact_start(struct ctld *ctld, struct rota_error *err);

/* Write the whole state to a failed journal again; at once when now_or_never
 * (shutdown), else when its back-off allows. */
void ctld_state_retry(struct ctld *ctld, time_t now, int now_or_never);

/* The state as the events that rebuild it (a compaction's snapshot), each
 * to emit (released after). */
union job_event;
void ctld_state_snapshot(struct ctld *ctld, void (*emit)(void *arg, union job_event *ev),
                         void *arg);
/* The fields of job's SUBMIT in a snapshot but its owner's names and its
 * request (array_pending allocated: the caller frees it). */
struct ev_submit;
struct job;
void ctld_state_submit_fields(const struct job *j, struct ev_submit *ev);
/* ctld_state_snapshot, with each job's SUBMIT replaced by the job itself,
 * handed to on_job (a state image writes it its own way), in the same
 * place: before the job's other events. */
void ctld_state_walk(struct ctld *ctld, void (*on_job)(void *arg, const struct job *j),
                     void (*emit)(void *arg, union job_event *ev), void *arg);
/* What the journal does not hold, settled as it starts serving (after a
 * replay, or a backup taking over): ended jobs the nodes have not confirmed
 * gone give their resources back. */
void ctld_state_settle(struct ctld *ctld);

/* Journal a META with the next job id, the term and the lineage as they are
 * now (a new history, a takeover). */
void ctld_state_mark(struct ctld *ctld, time_t now);
/* Forget every job and node state (a backup about to load a snapshot). */
void ctld_state_clear(struct ctld *ctld);
/* Write the whole state to the journal now (journal_rewrite).  0 or -1. */
int ctld_state_rewrite(struct ctld *ctld, struct rota_error *err);

#endif
