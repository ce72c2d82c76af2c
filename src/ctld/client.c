#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include "ctld/client.h"
#include "proto/conn.h"
#include "common/common.h"

static struct client *client_of(struct chan *ch)
{
	return (struct client *)((char *)ch - offsetof(struct client, chan));
}

static int client_chan_send(struct chan *ch, uint16_t type, const void *body)
{
	struct client *c = client_of(ch);

	if (!c->conn)
		return -EPIPE;
	return conn_send(c->conn, type, body);
}

static void client_chan_write_now(struct chan *ch)
{
	struct client *c = client_of(ch);

	if (c->conn)
		conn_write_now(c->conn);
}

static void client_chan_release(struct chan *ch)
{
	struct client *c = client_of(ch);

	codec_release(&auth_challenge_type, &c->challenge);
	free(c);
}

static const struct chan_ops client_chan_ops = {
    .send = client_chan_send,
    .write_now = client_chan_write_now,
    .release = client_chan_release,
};

struct client *client_create(struct ctld *ctld, struct conn *conn)
{
	struct client *c = xcalloc(1, sizeof(*c));

	chan_init(&c->chan, &client_chan_ops);
	c->ctld = ctld;
	c->conn = conn;
	c->who.uid = (uid_t)-1;
	c->who.gid = (gid_t)-1;
	c->who.node_idx = -1;
	c->who.via = (uid_t)-1;
	return c;
}

void client_ref(struct client *c)
{
	chan_ref(&c->chan);
}

void client_unref(struct client *c)
{
	if (c)
		chan_unref(&c->chan);
}

int client_send_rc(struct client *c, int rc, const char *msg)
{
	return chan_send_rc(&c->chan, rc, msg);
}
