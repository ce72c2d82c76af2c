/* dbd.h - rotadbd, the accounting daemon: it follows the controller's
 * journal (feed.c) into the accounting store (store.h) and answers sacct
 * (query.c).  One thread, one event loop. */
#ifndef ROTA_DBD_H
#define ROTA_DBD_H

#include <stdint.h>
#include <time.h>

struct conf;
struct auth;
struct conn;
struct event;
struct event_base;
struct store;
struct report_cache;
struct dbd_stats;
struct config_resp;

struct dbd {
	const struct conf *conf;
	struct event_base *base;
	struct auth *auth;
	struct store *store;
	char *storage_loc; /* StorageLoc: the SQLite file, the database (NULL: default) */
	char *sock_path;   /* sacct's socket */
	/* the feed */
	struct conn *ctld;
	struct event *retry_ev;
	size_t ctld_next; /* the controller to try next (0 the primary) */
	int told_down;
	int in_snapshot;
	/* the open transaction: batches stored, not yet committed (feed.c) */
	int txn_open;
	uint64_t txn_upto; /* the last event in it */
	size_t txn_events;
	struct event *commit_ev;
	uint64_t stored_events; /* since start (log lines) */
	/* the clients */
	struct report_cache *report; /* sreport's copy of the recent runs */
	struct event *report_ev;     /* keeps it warm (report.h) */
	int listen_fd;
	struct event *listen_ev;
	struct client *clients;       /* sacct's and sreport's open connections */
	struct dbd_stats *stats;      /* the requests answered (stats.h) */
	struct config_resp *settings; /* sacctmgr show config's (settings.h) */
};

void dbd_feed_start(struct dbd *d);
void dbd_feed_stop(struct dbd *d);
/* Commit what the feed stored (before a change of rotadbd's own): 0, or
 * -EAGAIN while a snapshot is being stored, -EIO. */
int dbd_feed_flush(struct dbd *d);

int dbd_query_listen(struct dbd *d);
void dbd_query_stop(struct dbd *d);

#endif
