/* client.h - one peer connection of the controller's socket front door: a
 * user command, srun, or a node daemon.  It is the chan (chan.h) that the
 * operations it asks for answer on, and holds the caller (caller.h) its
 * authentication established. */
#ifndef ROTA_CTLD_CLIENT_H
#define ROTA_CTLD_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"

struct ctld;
struct conn;

struct client {
	struct chan chan; /* its references are the client's */
	struct caller who;
	bool authed; /* who is set */
	struct ctld *ctld;
	struct conn *conn;               /* NULL once closed */
	struct auth_challenge challenge; /* TCP only, until authenticated */
	struct client *lnext, *lprev;    /* listener.c: its open connections */
	int conn_counted;                /* listener: counted against its uid */
};

struct client *client_create(struct ctld *ctld, struct conn *conn);
void client_ref(struct client *c);
void client_unref(struct client *c);

/* chan_send_rc if still connected; returns 0 or -EPIPE. */
int client_send_rc(struct client *c, int err, const char *msg);

#endif
