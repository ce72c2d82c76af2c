/* cred.h - the job credential: the controller's signature on a launch.
 *
 * DESIGN: every MSG_LAUNCH_REQ carries a credential, as Slurm's "job credential"
 * does: a random cred_id, cred_expire (issue time + AuthInfo cred_expire) and
 * cred_sig, the controller's signature (proto/auth.h) over the canonical msgpack
 * encoding of the whole launch_req with cred_sig empty, node_flags zero and
 * node_gres_devs empty (rotad sets those for its stepd).  The signature thus
 * covers job, step, uid, gid, user, the node the launch is for, the job's and
 * step's nodes, cores, memory, script, command, environment and I/O address.
 * The encoding is made afresh from the decoded struct, so what is checked is
 * exactly what is used; fields a peer sends that we do not know are not
 * covered, and not used.
 *
 * rotad checks a launch before it forks (cred_check with its node name, then
 * cred_cache_add: a credential seen before is refused until it expires, so a
 * launch replayed to the same node is refused too, also after rotad restarted:
 * the cache is kept in the spool, cred_cache_persist); rotastepd checks it
 * again before it starts the tasks.
 */
#ifndef ROTA_CRED_H
#define ROTA_CRED_H

#include <stdint.h>
#include <time.h>
#include "common/error.h"
#include "proto/messages.h"

struct auth;
struct cred_cache;

/* Controller: give req (its other fields filled) a fresh credential that expires
 * auth_cred_lifetime() seconds after now.  Sets cred_id, cred_expire and
 * cred_sig (caller frees cred_sig.data; req->cred_sig must be empty). */
int cred_sign(struct auth *auth, struct launch_req *req, time_t now,
              struct rota_error *err);

/* Check req's credential: the signature, that it is for node_name (NULL: any
 * node, rotastepd trusting rotad on that), and that it has not expired at now.
 * flags: AUTH_CHECK_REPLAY_OK (proto/auth.h).  Returns 0, or a negative errno
 * with err saying why in a few words ("bad signature", "expired", "for node
 * node02"): -EKEYREJECTED, -EKEYEXPIRED, -EXDEV. */
int cred_check(struct auth *auth, const struct launch_req *req, const char *node_name,
               time_t now, int flags, struct rota_error *err);

/* The credentials a node has accepted, kept until they expire. */
#define CRED_CACHE_MAX 1000000u
struct cred_cache *cred_cache_create(void);
void cred_cache_destroy(struct cred_cache *cc); /* NULL allowed */

/* Keep the cache in the file path too (Slurm's SlurmdSpoolDir/cred_state), so
 * that a restarted rotad still refuses what it accepted before: loads what the
 * file holds that has not expired at now, rewrites it, then appends each
 * credential added (no fsync: a rotad restart, not a power cut, is what it is
 * for).  Returns 0, or a negative errno with err (the cache then stays in
 * memory only). */
int cred_cache_persist(struct cred_cache *cc, const char *path, time_t now,
                       struct rota_error *err);

/* Remember req's credential (checked) until its cred_expire.  Returns 0, -EEXIST
 * when it was seen before (a replay), -ENOSPC when CRED_CACHE_MAX unexpired
 * credentials are kept already, -EIO when it is kept but could not be written
 * to the file.  Forgets those expired at now. */
int cred_cache_add(struct cred_cache *cc, const struct launch_req *req, time_t now);

/* Unexpired credentials kept (for tests). */
size_t cred_cache_count(const struct cred_cache *cc);

#endif
