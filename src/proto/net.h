/* net.h - blocking socket helpers for CLIs, srun and rotastepd.
 * Daemons use conn.h (libevent) instead.  Timeouts are in milliseconds, -1 = none.
 * All descriptors are opened O_CLOEXEC. */
#ifndef ROTA_NET_H
#define ROTA_NET_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

int net_connect_unix(const char *path, struct rota_error *err);
int net_connect_tcp(const char *host, uint16_t port, int timeout_ms,
                    struct rota_error *err);

/* Listen on addr:port (port 0: any; *ret_port gets the real one).  addr NULL: all. */
int net_listen_tcp(const char *addr, uint16_t port, uint16_t *ret_port,
                   struct rota_error *err);
/* Listen on a unix socket path (removed first) with the given mode. */
int net_listen_unix(const char *path, int mode, struct rota_error *err);

/* Send one message.  Returns 0 or negative errno. */
int net_send(int fd, uint16_t type, const void *body, struct rota_error *err);

/* Receive one message: *ret_body is a new struct (msg_body_free()).
 * Returns 0, -ETIMEDOUT, -ECONNRESET (peer closed), -EPROTO (garbage). */
int net_recv(int fd, uint16_t *ret_type, void **ret_body, int timeout_ms,
             struct rota_error *err);
/* The same, refusing (-EMSGSIZE, before reading it) a body over max_body bytes:
 * for a peer not yet authenticated. */
int net_recv_max(int fd, uint32_t max_body, uint16_t *ret_type, void **ret_body,
                 int timeout_ms, struct rota_error *err);

/* Send a request and wait for one reply. */
int net_rpc(int fd, uint16_t type, const void *body, uint16_t *ret_type, void **ret_body,
            int timeout_ms, struct rota_error *err);

/* Write/read exactly len bytes (EINTR-safe). */
int net_write_all(int fd, const void *buf, size_t len);
int net_read_all(int fd, void *buf, size_t len, int timeout_ms);

#endif
