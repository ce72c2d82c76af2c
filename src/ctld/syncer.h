/* syncer.h - the journal's writer thread: it writes a batch of records and
 * fdatasync()s it while the event loop goes on serving, then tells the loop.
 *
 * DESIGN: one batch in flight at a time (group commit: what the loop appends
 * meanwhile forms the next batch).  The thread touches only the batch it was
 * handed; results come back through a pipe the loop watches, so `done` always
 * runs on the loop thread, in order, exactly once per batch.
 */
#ifndef ROTA_CTLD_SYNCER_H
#define ROTA_CTLD_SYNCER_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct syncer;

/* done(arg, tag, upto, len, rc): the batch submitted with tag, ending with
 * event `upto` (len bytes), is on disk (rc 0) or failed (rc < 0: nothing of
 * it may be relied on). */
typedef void (*syncer_done_f)(void *arg, void *tag, uint64_t upto, size_t len, int rc);

int syncer_create(struct event_base *base, syncer_done_f done, void *arg,
                  struct syncer **ret);
/* Waits for the batch in flight (its done runs), then stops the thread. */
void syncer_destroy(struct syncer *s);

/* How long the last batch took to write and sync, in microseconds (valid
 * in done). */
uint64_t syncer_last_usec(const struct syncer *s);

/* Is a batch in flight? */
int syncer_busy(const struct syncer *s);

/* Write buf[0..len) (taken) to fd (opened O_APPEND) and sync it; the batch
 * ends with event upto; tag comes back to done.  Then, if given, after(tag)
 * runs on the writer thread (a rename, a directory sync: what must follow the
 * sync and need not stop the loop); a negative return is the batch's rc.
 * Only when not busy. */
void syncer_submit(struct syncer *s, int fd, char *buf, size_t len, uint64_t upto,
                   void *tag, int (*after)(void *tag));

/* Write all of buf[0..len) to fd (retrying EINTR): 0, or -errno (-ENOSPC
 * when a write wrote nothing). */
int fd_write_all(int fd, const void *buf, size_t len);

/* Close fd on the writer thread: the last close of a file replaced by a
 * rename frees its blocks and its cache, which can take milliseconds. */
void syncer_close(struct syncer *s, int fd);

/* Block until the batch in flight, if any, is done and its done has run. */
void syncer_wait(struct syncer *s);

#endif
