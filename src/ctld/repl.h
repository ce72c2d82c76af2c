/* repl.h - a hot standby: a backup controller follows the primary's journal
 * over the authenticated link and takes over when the primary stops
 * answering.
 *
 * The primary side: a backup connects as CTLD_PEER_NAME and asks for the
 * events after the last it holds (MSG_FOLLOW_REQ); it gets them from the
 * journal, or a snapshot when they were compacted away, then every batch once
 * it is durable (journal_on_durable), and an empty MSG_REPL_DATA each second
 * as a heartbeat.
 *
 * The backup side: it applies what it is sent (job_event_apply, as a replay
 * does) and writes it to its own journal under the same numbers, so that it
 * can restart and carry on from where it was.  While it follows it answers
 * nothing but pings (ESLURM_IN_STANDBY_MODE).  When the primary has not
 * answered for SlurmctldTimeout it takes over: it serves the clients' socket,
 * node daemons register with it (they try the controllers in order), and job
 * ids go on above every id the primary may have handed out.
 */
#ifndef ROTA_CTLD_REPL_H
#define ROTA_CTLD_REPL_H

#include <time.h>

struct ctld;
struct caller;
struct chan;
struct follow_req;

/* Primary: the operation a backup calls (ops.c). */
void repl_follow(struct ctld *ctld, struct caller *who, const struct follow_req *req,
                 struct chan *ch);
/* Primary: the backup on ch holds the events up to seq (MSG_FOLLOW_ACK). */
void repl_ack(struct ctld *ctld, struct chan *ch, uint64_t seq);
/* Primary: nobody listens on ch any more. */
void repl_chan_gone(struct ctld *ctld, struct chan *ch);
/* Primary: it starts serving (at start-up, or taking over). */
void repl_serve_start(struct ctld *ctld);
/* Primary: the heartbeat, once a second; and a loop that did not run for
 * longer than SlurmctldTimeout (a stopped process) looks for a newer
 * controller (repl_step_down). */
void repl_tick(struct ctld *ctld, time_t now);

/* The controller (other than this one) that serves now, or -1: asked at
 * start-up, so that a primary that comes back after a takeover stands by
 * instead of serving beside the backup. */
int repl_find_leader(struct ctld *ctld);

/* Backup: start following ctld->leader_index (ctld->standby is set). */
void repl_standby_start(struct ctld *ctld);
/* Backup: once a second: take over when the primary has been silent too
 * long. */
void repl_standby_tick(struct ctld *ctld, time_t now);
/* scontrol takeover, to this controller: when it stands by, it has the one
 * it follows stop, takes over when that one's link closes (its last events
 * in), and then answers on ch; when it serves already, it answers at once. */
void repl_takeover_request(struct ctld *ctld, struct chan *ch);

/* A serving controller learned that one of a newer term serves (a node has
 * obeyed it): it must not act as a second primary.  Stops the loop; main()
 * starts this controller again, and at start-up it finds the one that serves
 * and stands by. */
void repl_step_down(struct ctld *ctld, const char *why);

/* Stop following and release what the backup side holds (shutdown). */
void repl_destroy(struct ctld *ctld);

#endif
