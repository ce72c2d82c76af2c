/* journal.h - the controller's write-ahead log of job events.
 *
 * DESIGN: records are appended to an in-memory buffer; one flush per loop turn
 * writes them all and fdatasync()s once (group commit).  Callers that must not
 * answer before their record is durable register a callback that runs after the
 * flush, with the flush's result.  Records are framed by common/recframe.h
 * (magic, length, CRC): at start-up a damaged record costs only itself, the
 * damaged file is kept aside as journal.damaged.<time> (a hard link: no data
 * copied) with one log line per damaged region, and a tail torn by a crash is
 * cut off silently.  journal_rewrite() replaces the file (journal.new, fsync,
 * rename, fsync of the directory) with a compacted set of events.
 *
 * FAILURE: when a write or sync fails (ENOSPC, EDQUOT, EIO) the journal is
 * "failed": what was not written is cut off again, the waiters get the error,
 * and later appends are dropped (the caller's memory holds them) until a
 * journal_rewrite() of the whole state succeeds.  Callers refuse what must be
 * durable (submissions, updates) while journal_error() is set.  A journal that
 * needs a rewrite before it may be appended to (old format, damage found) and
 * cannot get one is failed too.
 */
#ifndef ROTA_JOURNAL_H
#define ROTA_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

struct event_base;
struct journal;
union job_event;

typedef void (*journal_done_f)(void *arg, int rc);
/* The event is the callback's to take members from (it is released after). */
typedef int (*journal_replay_f)(union job_event *ev, void *arg);

/* Open (creating) DIR/journal. */
int journal_open(struct event_base *base, const char *dir, struct journal **ret,
                 struct rota_error *err);
void journal_destroy(struct journal *j); /* flushes first; NULL allowed */

/* The controller's kept copies of texts (common/intern.h), which jobs'
 * environments and scripts are: each is written to the file once, and
 * events read back are lent them (ctld/jtext.h).  Before the replay. */
struct intern;
void journal_set_texts(struct journal *j, struct intern *texts);

/* Call cb for each stored event, in order, skipping damaged records (logged).
 * Returns 0, or a negative error when the file cannot be read. */
int journal_replay(struct journal *j, journal_replay_f cb, void *arg,
                   struct rota_error *err);

/* Where a replay may begin other than at the file's first byte, when the
 * state that the first `offset` bytes make is had another way (a state
 * image written at a clean stop, ctld/image.h).  It names the file (device,
 * inode: a rewrite or compaction makes a new one; only appends change it
 * otherwise) and its length then, with the CRC-32 of the last
 * JOURNAL_MARK_WINDOW bytes before it: a file put in its place under the same
 * inode (copied over it) differs there, where its records' sequence numbers
 * and times are, and is read whole.  It holds what a replay of those bytes
 * would have told the journal. */
#define JOURNAL_MARK_WINDOW (1u << 20)
struct journal_mark {
	uint64_t dev, ino;
	uint64_t offset; /* bytes of the file the state stands for */
	uint64_t crc;    /* CRC-32 (zlib's) of the window before offset */
	uint64_t next_seq, base_seq;
	uint64_t text_next_id; /* the next TEXT id of the file (jtext.h) */
	uint64_t compacted;    /* bytes of its head snapshot */
};

/* The mark of the whole file as it is: everything appended so far written
 * (journal_flush first), nothing failed, no compaction under way; else
 * -EBUSY, or -errno. */
int journal_mark_get(struct journal *j, struct journal_mark *m);
/* Is m a mark of this file, its bytes before m->offset unchanged? */
int journal_mark_holds(const struct journal *j, const struct journal_mark *m);
/* journal_replay of the records after m alone (journal_mark_holds said so):
 * the state m stands for is the caller's already. */
int journal_replay_from(struct journal *j, const struct journal_mark *m,
                        journal_replay_f cb, void *arg, struct rota_error *err);

/* Did journal_replay find damage (records lost)? */
int journal_damaged(const struct journal *j);
/* Did it cut off a torn tail?  Usually half an append a crash interrupted, never
 * acknowledged; but a flipped bit in the last record's length looks the same,
 * and that record may have been: ids are raised past it all the same. */
int journal_torn(const struct journal *j);

/* Append an event (copied), numbered with the next sequence number, which is
 * returned.  The flush happens later in this loop turn.  Dropped (returns 0)
 * while the journal is failed: the rewrite that ends the failure holds it. */
uint64_t journal_append(struct journal *j, const union job_event *ev);

/* journal_append with the given sequence number (a backup copying the
 * primary's events keeps their numbers); a number below the next one is
 * raised to it. */
uint64_t journal_append_at(struct journal *j, const union job_event *ev, uint64_t seq);

/* Append ev to *buf (*len used of *cap, grown as needed) framed as the
 * journal stores it: what a backup is sent.  Returns the frame's size. */
size_t journal_frame_append(const union job_event *ev, char **buf, size_t *len,
                            size_t *cap);

/* Readers that follow the journal (a standby, the accounting daemon) ask for
 * what came after the last event they hold.  Every appended event has a
 * sequence number, one more than the one before; a compaction replaces the
 * events up to journal_base_seq() with a snapshot of the state they made
 * (numbered 0, its META saying what it covers), and numbering goes on after.
 *
 * journal_follow calls cb for each durable event numbered above `after`, in
 * order.  Returns 0; -ESTALE when events after `after` were compacted away
 * (the reader must start again from the snapshot: journal_replay); or another
 * negative error. */
int journal_follow(struct journal *j, uint64_t after, journal_replay_f cb, void *arg,
                   struct rota_error *err);
/* The number the next appended event gets. */
uint64_t journal_next_seq(const struct journal *j);
/* The last event on disk (written and synced). */
uint64_t journal_last_seq(const struct journal *j);
/* The last event the snapshot at the head of the file stands for. */
uint64_t journal_base_seq(const struct journal *j);

/* Run cb(arg, rc) once everything appended so far is on disk (rc 0), or could
 * not be written (rc < 0: the journal is failed). */
void journal_when_durable(struct journal *j, journal_done_f cb, void *arg);

/* Write and sync now.  Returns 0 or the journal's error. */
int journal_flush(struct journal *j);

/* Must the journal be written again whole before anything is appended (it
 * was damaged, of the old format, or failed)? */
int journal_needs_rewrite(const struct journal *j);

/* 0, or the -errno that failed the journal (nothing appended is durable until
 * a journal_rewrite succeeds). */
int journal_error(const struct journal *j);

/* Replace the journal with the events produced by gen (called repeatedly with an
 * index until it returns 0).  On success a failed journal works again; on
 * failure nothing is left behind (no journal.new). */
typedef int (*journal_gen_f)(void *arg, size_t i, union job_event *ev);
int journal_rewrite(struct journal *j, journal_gen_f gen, void *arg,
                    struct rota_error *err);

/* Call fn(arg, usec) on the loop after each batch the writer thread wrote
 * and synced (its time; sdiag's journal figures). */
void journal_on_sync(struct journal *j, void (*fn)(void *arg, uint64_t usec), void *arg);
/* Call fn(arg, recs, len, upto) on the loop with the records of each batch
 * once it is durable (the journal's framing, texts inline; events up to
 * upto): what a backup controller is sent.  A compaction's tail comes again
 * whole.  Setting it first makes everything appended so far durable. */
void journal_on_durable(struct journal *j,
                        void (*fn)(void *arg, const char *recs, size_t len,
                                   uint64_t upto),
                        void *arg);
/* Number the next event `next` (a backup starting from a snapshot that
 * stands for the events before it). */
void journal_set_next_seq(struct journal *j, uint64_t next);

/* Waiters (journal_when_durable) are also held until gate(arg) reaches
 * their event: a backup has it too (replicate_sync).  Called again with the
 * same gate when what it returns has grown; NULL removes it. */
void journal_set_gate(struct journal *j, uint64_t (*gate)(void *arg), void *arg);

/* Compactions done (in a child process or whole) since it was opened. */
unsigned journal_compactions(const struct journal *j);

/* Bytes in the file, and right after the last rewrite or compaction (for
 * compaction decisions). */
size_t journal_size(const struct journal *j);
size_t journal_compacted_size(const struct journal *j);

/* Compact without stopping the loop: a child process writes the snapshot gen
 * produces from its copy of the state (fork) to journal.new while the loop
 * goes on; events appended meanwhile are added when it is done, then the
 * file replaces the journal.  Returns 0, -EBUSY (one is running, or the
 * journal is failed: journal_rewrite is for that), or another error. */
int journal_compact_start(struct journal *j, journal_gen_f gen, void *arg,
                          struct rota_error *err);
int journal_compacting(const struct journal *j);
/* Stop a compaction in progress (its file is removed). */
void journal_compact_abort(struct journal *j);

#endif
