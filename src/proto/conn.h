/* conn.h - one framed connection driven by a libevent loop (daemons only).
 *
 * A conn reassembles frames from its socket and hands each decoded message to
 * its callback, in the loop thread.  Garbage, oversized or undecodable frames are
 * logged and the connection is closed; the daemon keeps serving others.
 * conn_close() may be called from inside the callback: the conn is freed once the
 * callback returns.
 */
#ifndef ROTA_CONN_H
#define ROTA_CONN_H

#include <stdint.h>
#include <sys/types.h>

struct event_base;
struct conn;

/* body: the decoded message; the callback may keep it by setting *body = NULL
 * (it then owns it and frees it with msg_body_free). */
typedef void (*conn_msg_f)(struct conn *c, uint16_t type, void **body, void *arg);
/* Called once when the peer goes away or on error (not after conn_close()). */
typedef void (*conn_close_f)(struct conn *c, void *arg);

/* Takes ownership of fd.  name is used in log messages (copied). */
struct conn *conn_create(struct event_base *base, int fd, const char *name,
                         conn_msg_f on_msg, conn_close_f on_close, void *arg);

/* Queue a message.  Returns 0 or negative errno (encoding failed). */
int conn_send(struct conn *c, uint16_t type, const void *body);
/* Send an MSG_RC reply. */
int conn_send_rc(struct conn *c, int rc, const char *msg);

/* Write what is queued to the socket now rather than at the loop's next turn,
 * so that it reaches the peer before anything sent later on other connections
 * (what is left, if the socket is full, goes as usual). */
void conn_write_now(struct conn *c);

/* Close now (pending output is dropped) or after pending output is written. */
void conn_close(struct conn *c);
void conn_close_after_flush(struct conn *c);

/* Change who gets the messages (e.g. after authentication). */
void conn_set_handlers(struct conn *c, conn_msg_f on_msg, conn_close_f on_close,
                       void *arg);

/* Peer identity: set from SO_PEERCRED for unix sockets, or by the owner after
 * authentication.  -1 when unknown. */
uid_t conn_uid(const struct conn *c);
gid_t conn_gid(const struct conn *c);
void conn_set_identity(struct conn *c, uid_t uid, gid_t gid);
const char *conn_name(const struct conn *c);
/* Free-form owner data (not freed by conn). */
void conn_set_data(struct conn *c, void *data);
void *conn_data(const struct conn *c);
/* Bytes waiting to be written. */
size_t conn_pending_output(const struct conn *c);

/* The largest frame body accepted from this peer: 0 (the default) means each
 * type's frame_max_body(); a listener sets FRAME_MAX_UNAUTH until its peer has
 * authenticated.  A frame over the limit from a peer with an identity
 * (conn_uid() set) is answered with an MSG_RC of ESLURM_PATHNAME_TOO_LONG and
 * skipped as it arrives, never buffered; anyone else is disconnected. */
void conn_set_max_body(struct conn *c, uint32_t max);

/* Stop reading from the peer while more than max bytes (0: no limit, the
 * default) wait to be written to it, until they are: a client that sends
 * requests and does not read the replies cannot make us hold them all.  Only
 * for the serving side: two peers that both did this could wait on each
 * other. */
void conn_set_out_max(struct conn *c, size_t max);

/* Which message types this peer may send (NULL: any): a frame of another type
 * is refused from its header, before its body is read -- an MSG_RC of
 * ESLURM_NOT_SUPPORTED to a peer with an identity, its body skipped; anyone
 * else is disconnected. */
typedef int (*conn_accept_f)(uint16_t type);
void conn_set_accept(struct conn *c, conn_accept_f accept);

/* Call cb (which should close c) unless the deadline is cleared within secs:
 * conn_set_deadline(c, 0, NULL, NULL) clears it.  An absolute deadline, not an
 * idle timeout: bytes trickling in do not extend it. */
typedef void (*conn_timeout_f)(struct conn *c, void *arg);
void conn_set_deadline(struct conn *c, double secs, conn_timeout_f cb, void *arg);

/* A budget for input shared by connections: the bytes of the frames they are
 * reassembling.  A connection whose next frame does not fit stops reading (the
 * rest waits in its peer's socket) until other frames are consumed; waiters are
 * let in oldest first.  A frame larger than the whole budget is let in alone.
 * Small frames (one read, 16 KiB) never wait. */
struct conn_budget;
struct conn_budget *conn_budget_create(size_t max);
/* Drop the creator's reference; the budget goes with its last connection. */
void conn_budget_unref(struct conn_budget *b);
/* Bytes reserved now. */
size_t conn_budget_used(const struct conn_budget *b);
/* Charge c's input to b (b gains a reference, held until c is freed). */
void conn_set_budget(struct conn *c, struct conn_budget *b);

#endif
