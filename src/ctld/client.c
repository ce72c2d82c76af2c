#include <errno.h>
#include <stdlib.h>
#include "ctld/client.h"
#include "proto/conn.h"
#include "common/common.h"

struct client *client_create(struct ctld *ctld, struct conn *conn)
{
	struct client *c = xcalloc(1, sizeof(*c));
	c->refs = 1;
	c->ctld = ctld;
	c->conn = conn;
	c->node_idx = -1;
	c->uid = (uid_t)-1;
	c->gid = (gid_t)-1;
	return c;
}

void client_ref(struct client *c)
{
	c->refs++;
}

void client_unref(struct client *c)
{
	if (!c || --c->refs > 0)
		return;
	codec_release(&auth_challenge_type, &c->challenge);
	free(c);
}

int client_send(struct client *c, uint16_t type, const void *body)
{
	if (!c->conn)
		return -EPIPE;
	return conn_send(c->conn, type, body);
}

int client_send_rc(struct client *c, int rc, const char *msg)
{
	if (!c->conn)
		return -EPIPE;
	return conn_send_rc(c->conn, rc, msg);
}

void client_write_now(struct client *c)
{
	if (c->conn)
		conn_write_now(c->conn);
}
