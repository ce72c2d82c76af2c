/* auth.h - who is on the other end of a TCP connection.
 *
 * The accepting side sends MSG_AUTH_CHALLENGE (a fresh random nonce); the
 * connecting side answers MSG_AUTH_RESPONSE.  Two methods, picked by AuthType:
 *  - auth/slurm (and anything but auth/munge): HMAC-SHA256 over nonce||name with
 *    a shared key file (AuthInfo key=PATH, default slurm.key beside slurm.conf).
 *    Only daemons hold the key, so a valid MAC proves a daemon (uid 0).
 *  - auth/munge: a MUNGE credential whose payload is nonce||name; the credential
 *    carries the sender's uid/gid.  AuthInfo socket=PATH picks munged's socket.
 * Unix-socket clients are identified by SO_PEERCRED instead (no handshake).
 */
#ifndef ROTA_AUTH_H
#define ROTA_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/error.h"
#include "proto/messages.h"

struct conf;
struct auth;

enum auth_method { AUTH_HMAC = 1, AUTH_MUNGE = 2 };

/* flags: AUTH_NEED_KEY fails if the HMAC key cannot be read (daemons). */
enum auth_flags { AUTH_NEED_KEY = 1 };

/* Create from conf (borrowed).  Caller destroys. */
int auth_create(const struct conf *conf, int flags, struct auth **ret,
                struct rota_error *err);
void auth_destroy(struct auth *auth);
enum auth_method auth_method(const struct auth *auth);

/* Fill ch with a new nonce (ch zeroed by the caller; release with codec). */
void auth_challenge_make(struct auth *auth, struct auth_challenge *ch);

/* Answer ch as node_name ("" for a user CLI). */
int auth_respond(struct auth *auth, const struct auth_challenge *ch,
                 const char *node_name, struct auth_response *resp,
                 struct rota_error *err);

/* Check resp against ch; on success *ret_uid and *ret_gid are the sender's. */
int auth_verify(struct auth *auth, const struct auth_challenge *ch,
                const struct auth_response *resp, uid_t *ret_uid, gid_t *ret_gid,
                struct rota_error *err);

/* Write a new random key file (mode 0600).  For `rota up`. */
int auth_key_generate(const char *path, struct rota_error *err);

/* Sign / check a blob with the shared key (HMAC-SHA256, 32 bytes). */
int auth_hmac(const struct auth *auth, const void *data, size_t len, uint8_t out[32]);

/* Path of the key file for conf (caller frees). */
char *auth_key_path(const struct conf *conf);

#endif
