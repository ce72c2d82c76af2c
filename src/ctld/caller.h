/* caller.h - who asks the controller for something: the credential every
 * operation (ops.h) takes and authorises by.
 *
 * A front door makes one from what it authenticated: the socket listener from
 * the peer's uid (SO_PEERCRED, or the auth handshake on TCP) or from a node's
 * proof; a trusted daemon (root or SlurmUser: a REST gateway, say) may act for
 * a named user, and is then that user for every check, with `via` saying who
 * relayed.  Operations never look at the connection a request came on.
 */
#ifndef ROTA_CTLD_CALLER_H
#define ROTA_CTLD_CALLER_H

#include <stdbool.h>
#include <sys/types.h>

struct ctld;

enum caller_role {
	CALLER_USER,     /* an ordinary user */
	CALLER_OPERATOR, /* Slurm's AdminLevel=Operator: may see what is private */
	CALLER_ADMIN,    /* root or SlurmUser: may do anything */
	CALLER_NODE,     /* a node daemon, proven with the cluster's key */
	CALLER_PEER,     /* another controller of the cluster (a backup) */
};

#define CALLER_MAX_GIDS 64 /* supplementary groups looked at; more are ignored */

struct caller {
	enum caller_role role;
	uid_t uid;
	gid_t gid;
	int node_idx; /* CALLER_NODE: which node; -1 otherwise */
	uid_t via;    /* the daemon that relays for uid, or (uid_t)-1 */
	/* supplementary groups, looked up on first need (caller_in_group) */
	bool gids_known;
	int ngids;
	gid_t gids[CALLER_MAX_GIDS];
	/* the user's name, looked up on first need (caller_user) */
	bool user_known;
	char user[256];
};

/* A user process with this uid and primary gid: admin when uid is root or
 * SlurmUser. */
void caller_init_user(struct caller *who, const struct ctld *ctld, uid_t uid, gid_t gid);

/* The node daemon of node node_idx, authenticated as uid/gid (root or
 * SlurmUser). */
void caller_init_node(struct caller *who, int node_idx, uid_t uid, gid_t gid);

/* Another controller (it answered the challenge as "@slurmctld" with the
 * cluster's key, as root or SlurmUser). */
void caller_init_peer(struct caller *who, uid_t uid, gid_t gid);

/* daemon acts for user uid/gid: allowed only to an admin (root, SlurmUser).
 * Returns 0 and fills *who, or -EPERM. */
int caller_init_relayed(struct caller *who, const struct ctld *ctld,
                        const struct caller *daemon, uid_t uid, gid_t gid);

static inline bool caller_is_admin(const struct caller *who)
{
	return who->role == CALLER_ADMIN;
}

/* Operators and admins. */
static inline bool caller_is_operator(const struct caller *who)
{
	return who->role == CALLER_ADMIN || who->role == CALLER_OPERATOR;
}

/* Is gid who's primary group or one of its supplementary groups? */
bool caller_in_group(struct caller *who, gid_t gid);

/* The user's name (looked up once per caller: a listing asks it per job),
 * or NULL when the uid has none. */
const char *caller_user(struct caller *who);

/* "uid 1001", or "uid 1001 via uid 0": for log lines. */
const char *caller_name(const struct caller *who, char *buf, size_t len);

#endif
