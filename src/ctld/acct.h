/* acct.h - the controller's side of accounting: rotadbd follows the journal
 * (repl.h's follow, kind FOLLOW_ACCOUNTING) and acknowledges what it has
 * stored; the journal is not compacted past what it has not stored, so a
 * rotadbd that is down, slow or restarted resumes where it stopped.
 *
 * What it acknowledged is remembered in StateSaveLocation/acct_seq (written
 * once a second when it changed, without a sync: an older number only keeps
 * more), so a controller restarted while rotadbd is away still waits for it.
 * The journal keeps at most MaxDBDMsgs events for it (Slurm's default:
 * max(10000, 2 * MaxJobCount + 4 * nodes)); past that it is compacted anyway,
 * logged, and rotadbd is sent the state (jobs still held, their running
 * steps) when it comes back: the finished steps and earlier runs of those
 * events are lost, as Slurm drops messages past MaxDBDMsgs.
 */
#ifndef ROTA_CTLD_ACCT_H
#define ROTA_CTLD_ACCT_H

#include <stdint.h>
#include <time.h>

struct ctld;

/* AccountingStorageType=accounting_storage/slurmdbd? */
int acct_enabled(const struct ctld *ctld);
/* At start-up, before anything may compact: what rotadbd last stored. */
void acct_load(struct ctld *ctld);
/* rotadbd stored the events up to seq. */
void acct_stored(struct ctld *ctld, uint64_t seq);
/* May the journal be compacted now (everything appended so far stored, or
 * the backlog past MaxDBDMsgs)?  When not, the compaction is started once
 * rotadbd has caught up (acct_stored). */
int acct_may_compact(struct ctld *ctld);
/* Once a second: acct_seq written when it changed. */
void acct_tick(struct ctld *ctld, time_t now);

#endif
