/* auth.h - who is on the other end of a TCP connection, both ways, and the
 * controller's signature on job credentials.
 *
 * DESIGN: the accepting side (rotactld) sends MSG_AUTH_CHALLENGE (a fresh random
 * nonce); the connecting side answers MSG_AUTH_RESPONSE with its proof and a
 * nonce of its own; the controller then answers MSG_AUTH_PROOF, proving in turn
 * that it is the controller.  The connecting side reads nothing else from the
 * connection until that proof checks (client_connect() does all this), so a
 * process that binds the controller's port while rotactld is down cannot give
 * rotad orders.  Two methods, picked by AuthType:
 *  - auth/slurm (and anything but auth/munge): a shared key file (AuthInfo
 *    key=PATH, default slurm.key beside slurm.conf) that only daemons can read.
 *    response.mac = HMAC-SHA256(key, nonce || name) proves a daemon (uid 0);
 *    proof.mac = HMAC-SHA256(Kp, peer nonce || our nonce || name) with
 *    Kp = HMAC-SHA256(key, PROOF_LABEL): a key of its own, so that no answer a
 *    node gives (to an impostor's challenge of its choosing) passes for a proof.
 *  - auth/munge: MUNGE credentials carrying the sender's uid/gid.  The response
 *    payload is nonce || name; the proof's is PROOF_LABEL || peer nonce || our
 *    nonce || name and must come from root, SlurmUser or the checker's own uid
 *    (a cluster started by a user).  AuthInfo socket=PATH picks munged's socket.
 * Unix-socket clients are identified by SO_PEERCRED instead (no handshake): the
 * socket lives in StateSaveLocation, which only the controller can create.
 *
 * Job credentials (proto/cred.h) are signed the same two ways with a third key
 * Kc = HMAC-SHA256(key, CRED_LABEL), or a MUNGE credential whose payload is
 * CRED_LABEL || SHA-256(signed bytes).  AuthInfo cred_expire=N sets their
 * lifetime (seconds, default 120, as Slurm's).
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

/* flags: AUTH_NEED_KEY fails if the HMAC key cannot be read (daemons).  A bad
 * AuthInfo cred_expire fails too (-EINVAL). */
enum auth_flags { AUTH_NEED_KEY = 1 };

/* Create from conf (borrowed).  Caller destroys. */
int auth_create(const struct conf *conf, int flags, struct auth **ret,
                struct rota_error *err);
void auth_destroy(struct auth *auth);
enum auth_method auth_method(const struct auth *auth);

/* Fill ch with a new nonce (ch zeroed by the caller; release with codec). */
void auth_challenge_make(struct auth *auth, struct auth_challenge *ch);

/* Answer ch as node_name ("" for a user CLI); resp also gets our own fresh
 * nonce, which the caller keeps to check the controller's proof. */
int auth_respond(struct auth *auth, const struct auth_challenge *ch,
                 const char *node_name, struct auth_response *resp,
                 struct rota_error *err);

/* Check resp against ch; on success *ret_uid and *ret_gid are the sender's. */
int auth_verify(struct auth *auth, const struct auth_challenge *ch,
                const struct auth_response *resp, uid_t *ret_uid, gid_t *ret_gid,
                struct rota_error *err);

/* Controller: prove ourselves to the peer that sent resp (a good answer to ch).
 * Fills proof (zeroed by the caller; release with codec). */
int auth_proof_make(struct auth *auth, const struct auth_challenge *ch,
                    const struct auth_response *resp, struct auth_proof *proof,
                    struct rota_error *err);

/* Connecting side: does proof show that the peer, which sent ch and got our resp,
 * is the controller?  0 or -1 with err saying why. */
int auth_proof_check(struct auth *auth, const struct auth_challenge *ch,
                     const struct auth_response *resp, const struct auth_proof *proof,
                     struct rota_error *err);

/* Job credential lifetime in seconds (AuthInfo cred_expire, default 120). */
#define AUTH_CRED_EXPIRE_DEFAULT 120
int auth_cred_lifetime(const struct auth *auth);

/* Controller: sign data (borrowed) as a job credential; *ret_sig (zeroed by the
 * caller) gets the HMAC or the MUNGE credential text; caller frees its data. */
int auth_cred_sign(struct auth *auth, const void *data, size_t len,
                   struct rota_bin *ret_sig, struct rota_error *err);

/* Check sig over data.  flags: AUTH_CHECK_REPLAY_OK accepts a MUNGE credential
 * decoded before on this host (rotastepd, after rotad has checked it). */
enum auth_check_flags { AUTH_CHECK_REPLAY_OK = 1 };
int auth_cred_check(struct auth *auth, const void *data, size_t len,
                    const struct rota_bin *sig, int flags, struct rota_error *err);

/* Write a new random key file (mode 0600).  For `rota up`. */
int auth_key_generate(const char *path, struct rota_error *err);

/* Sign / check a blob with the shared key (HMAC-SHA256, 32 bytes). */
int auth_hmac(const struct auth *auth, const void *data, size_t len, uint8_t out[32]);

/* Path of the key file for conf (caller frees). */
char *auth_key_path(const struct conf *conf);

#endif
