/* client.h - connect to rotactld as a CLI or a daemon (blocking).
 *
 * On the controller host the unix socket <StateSaveLocation>/rotactld.sock is
 * used and the controller reads our uid from the socket.  Otherwise TCP to
 * SlurmctldHost:SlurmctldPort, answering the controller's challenge (as
 * node_name when a daemon, "" when a user) and then checking the controller's
 * proof that it is the controller (proto/auth.h): whatever listens on that
 * address while rotactld is down gets nothing but our challenge answer, and
 * the connection fails with -EACCES and err saying "... failed to prove it is
 * the controller: ...".
 */
#ifndef ROTA_CLIENT_H
#define ROTA_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

struct conf;
struct auth;

/* Path of the controller's unix socket (caller frees). */
char *client_ctld_socket_path(const struct conf *conf);
/* Path of rotadbd's unix socket, where sacct asks (caller frees). */
char *client_dbd_socket_path(const struct conf *conf);

/* Returns a connected fd or a negative errno.  auth may be NULL for unix-socket
 * only use; node_name NULL for users.  flags: CLIENT_TCP_ONLY forces TCP.
 * When the unix socket is there but this user may not reach it and TCP does
 * not do either, returns -EACCES (or -EPERM) with err naming the socket;
 * -EACCES also when the controller refused our answer to its challenge, and
 * -ENOKEY when there is no socket to use and no key to answer with. */
enum client_flags { CLIENT_TCP_ONLY = 1 };
int client_connect(const struct conf *conf, struct auth *auth, const char *node_name,
                   int flags, struct rota_error *err);

/* TCP to controller idx only (0 the primary, then the backups: conf.h),
 * authenticated as above.  -EACCES when it refused us or failed to prove it
 * is the controller; another -errno when it did not answer. */
int client_connect_to(const struct conf *conf, struct auth *auth, const char *node_name,
                      size_t idx, struct rota_error *err);

/* The same to host:port (rotad --conf-server, before it has a slurm.conf). */
int client_connect_host(struct auth *auth, const char *node_name, const char *host,
                        uint16_t port, struct rota_error *err);

/* TCP to the controllers in order, starting at first and wrapping around:
 * the first that answers (its index in *ret_idx, which may be NULL).  Stops
 * at a refusal (-EACCES). */
int client_connect_from(const struct conf *conf, struct auth *auth, const char *node_name,
                        size_t first, size_t *ret_idx, struct rota_error *err);

#endif
