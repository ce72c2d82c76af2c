/* journal.h - the controller's write-ahead log of job events.
 *
 * DESIGN: records are appended to an in-memory buffer; one flush per loop turn
 * writes them all and fdatasync()s once (group commit).  Callers that must not
 * answer before their record is durable register a callback that runs after the
 * flush.  A record is [u32 length][u32 crc32][msgpack job_event]; a torn or
 * corrupt tail is cut off at start-up with a warning.  journal_rewrite() replaces
 * the file atomically (temp + rename) with a compacted set of events.
 */
#ifndef ROTA_JOURNAL_H
#define ROTA_JOURNAL_H

#include <stddef.h>
#include "common/error.h"

struct event_base;
struct journal;
struct job_event;

typedef void (*journal_done_f)(void *arg, int rc);
typedef int (*journal_replay_f)(const struct job_event *ev, void *arg);

/* Open (creating) DIR/journal. */
int journal_open(struct event_base *base, const char *dir, struct journal **ret,
                 struct rota_error *err);
void journal_destroy(struct journal *j); /* flushes first; NULL allowed */

/* Call cb for each stored event, in order.  Stops at the first negative rc. */
int journal_replay(struct journal *j, journal_replay_f cb, void *arg,
                   struct rota_error *err);

/* Append an event (copied).  The flush happens later in this loop turn. */
void journal_append(struct journal *j, const struct job_event *ev);

/* Run cb(arg, rc) once everything appended so far is on disk. */
void journal_when_durable(struct journal *j, journal_done_f cb, void *arg);

/* Write and sync now. */
int journal_flush(struct journal *j);

/* Replace the journal with the events produced by gen (called repeatedly with an
 * index until it returns 0). */
typedef int (*journal_gen_f)(void *arg, size_t i, struct job_event *ev);
int journal_rewrite(struct journal *j, journal_gen_f gen, void *arg,
                    struct rota_error *err);

/* Bytes in the file (for compaction decisions). */
size_t journal_size(const struct journal *j);

#endif
