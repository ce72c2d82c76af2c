/* stats.h - what rotadbd tells about itself (slurmdbd's statistics, served
 * as slurmrestd's slurmdb diag): when it started, and the requests its
 * clients made, counted by type and by user with the time each took to
 * answer.  Kept in memory since the start; rotadbd's one thread. */
#ifndef ROTA_DBD_STATS_H
#define ROTA_DBD_STATS_H

#include <stdint.h>
#include <sys/types.h>

struct dbd_stats;
struct dbd_diag;

#define DBD_STATS_MAX_USERS 1024 /* users counted one by one; then "other" */

/* The end of a client's connection, counted as slurmdbd counts the
 * DBD_FINI its clients send on closing (no message type is 0). */
#define DBD_STATS_FINI 0

/* A count from now (caller frees with dbd_stats_destroy, NULL allowed). */
struct dbd_stats *dbd_stats_create(int64_t now);
void dbd_stats_destroy(struct dbd_stats *s);

/* A request of message type (messages.h, or DBD_STATS_FINI) from uid,
 * answered in usec. */
void dbd_stats_count(struct dbd_stats *s, uint16_t type, uid_t uid, uint64_t usec);

/* sacctmgr clear stats: every count back to none, counting from now. */
void dbd_stats_clear(struct dbd_stats *s, int64_t now);

/* The answer to MSG_DBD_DIAG_REQ into *out (zeroed before; the caller
 * releases it with codec_release(&dbd_diag_type, out)); users by name
 * where the system knows them. */
void dbd_stats_fill(const struct dbd_stats *s, struct dbd_diag *out);

#endif
