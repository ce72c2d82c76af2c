/* client.h - one peer connection of the controller: a user CLI, srun, or a node.
 * Reference counted so that a reply deferred until the journal is durable can
 * outlive the connection safely (it is then dropped). */
#ifndef ROTA_CTLD_CLIENT_H
#define ROTA_CTLD_CLIENT_H

#include <stdint.h>
#include <sys/types.h>
#include "proto/messages.h"

struct ctld;
struct conn;

enum client_role { ROLE_NONE, ROLE_USER, ROLE_NODE };

struct client {
	int refs;
	struct ctld *ctld;
	struct conn *conn; /* NULL once closed */
	enum client_role role;
	uid_t uid;
	gid_t gid;
	struct auth_challenge challenge; /* TCP only, until authenticated */
	int node_idx;                    /* ROLE_NODE: which node; -1 otherwise */
	uint32_t alloc_job_id;           /* srun/salloc holding an allocation */
	struct client *lnext, *lprev;    /* listener.c: its open connections */
	int conn_counted;                /* listener: counted against its uid */
};

struct client *client_create(struct ctld *ctld, struct conn *conn);
void client_ref(struct client *c);
void client_unref(struct client *c);

/* Send if still connected; returns 0 or -EPIPE. */
int client_send(struct client *c, uint16_t type, const void *body);
int client_send_rc(struct client *c, int rc, const char *msg);
/* Put what is queued for c on the wire now (see conn_write_now). */
void client_write_now(struct client *c);

#endif
