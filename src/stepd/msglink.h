/* msglink.h - a framed connection driven by rotastepd's poll() loop.
 *
 * rotastepd forks user code, so it has no threads and no libevent: each link
 * owns a non-blocking socket, buffers outgoing frames (so a slow srun never
 * stalls the loop) and reassembles incoming ones.  The loop asks for the poll
 * events it wants, then hands the revents back.
 */
#ifndef ROTA_STEPD_MSGLINK_H
#define ROTA_STEPD_MSGLINK_H

#include <stddef.h>
#include <stdint.h>

struct msglink;

/* body: decoded message, borrowed for the call. */
typedef void (*msglink_msg_f)(struct msglink *l, uint16_t type, void *body, void *arg);

/* Takes ownership of fd (made non-blocking).  name: copied, for logs. */
struct msglink *msglink_create(int fd, const char *name);
/* Closes the fd.  NULL allowed. */
void msglink_destroy(struct msglink *l);

int msglink_fd(const struct msglink *l);
/* POLLIN unless reading is paused, POLLOUT while output is pending. */
short msglink_events(const struct msglink *l);
/* Stop/restart reading (back-pressure). */
void msglink_pause(struct msglink *l, int paused);

/* Queue a message.  Returns 0 or a negative errno (link dead, encoding). */
int msglink_send(struct msglink *l, uint16_t type, const void *body);
/* Bytes not yet written. */
size_t msglink_pending(const struct msglink *l);

/* Handle revents: write what can be written, read and dispatch whole frames to
 * on_msg.  Returns 0, or a negative errno once the link is dead (peer closed,
 * garbage); the owner then destroys it. */
int msglink_handle(struct msglink *l, short revents, msglink_msg_f on_msg, void *arg);

/* Block up to timeout_ms writing pending output.  Returns 0 or negative errno. */
int msglink_flush(struct msglink *l, int timeout_ms);

#endif
