#include <errno.h>
#include <event2/listener.h>
#include <event2/event.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/states.h"
#include "ctld/client.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/listener.h"
#include "ctld/node_mgr.h"
#include "ctld/rpc.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/conn.h"
#include "proto/net.h"
#include "common/common.h"

struct listener {
	struct ctld *ctld;
	struct evconnlistener *unix_l, *tcp_l;
	char *unix_path;
	struct client *clients; /* open connections, each holding one ref */
};

static void client_track(struct listener *l, struct client *c)
{
	c->lnext = l->clients;
	c->lprev = NULL;
	if (l->clients)
		l->clients->lprev = c;
	l->clients = c;
}

/* Its connection is gone: off the list, and the connection's ref dropped. */
static void client_untrack(struct listener *l, struct client *c)
{
	c->conn = NULL;
	if (c->lprev)
		c->lprev->lnext = c->lnext;
	else if (l->clients == c)
		l->clients = c->lnext;
	if (c->lnext)
		c->lnext->lprev = c->lprev;
	c->lnext = c->lprev = NULL;
	client_unref(c);
}

static void client_closed(struct conn *conn, void *arg)
{
	struct client *c = arg;

	c->conn = NULL;
	if (c->role == ROLE_NODE)
		node_mgr_link_lost(c->ctld, c);
	job_mgr_client_gone(c->ctld, c);
	client_untrack(c->ctld->listener, c);
}

static void client_msg(struct conn *conn, uint16_t type, void **body, void *arg)
{
	rpc_dispatch(arg, type, body);
}

/* First message on TCP: the answer to our challenge. */
static void auth_msg(struct conn *conn, uint16_t type, void **body, void *arg)
{
	struct client *c = arg;
	struct rota_error err = {""};
	struct auth_response *resp = *body;
	uid_t uid;
	gid_t gid;

	if (type != MSG_AUTH_RESPONSE ||
	    auth_verify(c->ctld->auth, &c->challenge, resp, &uid, &gid, &err) < 0) {
		log_err("authentication failed from %s: %s", conn_name(conn),
		        type == MSG_AUTH_RESPONSE ? err.text
		                                  : "no response to challenge");
		client_untrack(c->ctld->listener, c);
		conn_close(conn);
		return;
	}
	c->uid = uid;
	c->gid = gid;
	conn_set_identity(conn, uid, gid);
	c->role = ROLE_USER;
	if (resp->node_name && resp->node_name[0] && ctld_is_admin(c->ctld, uid)) {
		c->role = ROLE_NODE;
		c->node_idx = node_mgr_find(c->ctld->nodes, resp->node_name);
		if (c->node_idx < 0) {
			log_err("node %s is not in slurm.conf; refusing it",
			        resp->node_name);
			client_send_rc(c, ESLURM_INVALID_NODE_NAME, NULL);
			client_untrack(c->ctld->listener, c);
			conn_close_after_flush(conn);
			return;
		}
	}
	conn_set_handlers(conn, client_msg, client_closed, c);
}

static void accept_cb(struct evconnlistener *el, evutil_socket_t fd, struct sockaddr *sa,
                      int salen, void *arg)
{
	struct listener *l = arg;
	char name[64] = "local";
	struct conn *conn;
	struct client *c;
	int is_tcp = sa && sa->sa_family != AF_UNIX;

	if (is_tcp) {
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (sa->sa_family == AF_INET)
			snprintf(name, sizeof(name), "%s:%u",
			         inet_ntoa(((struct sockaddr_in *)sa)->sin_addr),
			         ntohs(((struct sockaddr_in *)sa)->sin_port));
		else
			snprintf(name, sizeof(name), "tcp peer");
	}
	conn = conn_create(l->ctld->base, fd, name, NULL, NULL, NULL);
	c = client_create(l->ctld, conn);
	client_track(l, c);
	conn_set_data(conn, c);
	if (!is_tcp) {
		c->role = ROLE_USER;
		c->uid = conn_uid(conn);
		c->gid = conn_gid(conn);
		conn_set_handlers(conn, client_msg, client_closed, c);
		return;
	}
	auth_challenge_make(l->ctld->auth, &c->challenge);
	conn_set_handlers(conn, auth_msg, client_closed, c);
	conn_send(conn, MSG_AUTH_CHALLENGE, &c->challenge);
}

static void accept_error_cb(struct evconnlistener *el, void *arg)
{
	log_err("accept: %s", strerror(errno));
}

static struct evconnlistener *wrap(struct listener *l, int fd)
{
	struct evconnlistener *el;

	evutil_make_socket_nonblocking(fd);
	el = evconnlistener_new(l->ctld->base, accept_cb, l, LEV_OPT_CLOSE_ON_FREE, -1,
	                        fd);
	if (!el)
		fatal("evconnlistener_new failed");
	evconnlistener_set_error_cb(el, accept_error_cb);
	return el;
}

int listener_create(struct ctld *ctld, struct listener **ret, struct rota_error *err)
{
	struct listener *l = xcalloc(1, sizeof(*l));
	int fd;

	l->ctld = ctld;
	l->unix_path = client_ctld_socket_path(ctld->conf);
	fd = net_listen_unix(l->unix_path, 0666, err);
	if (fd < 0)
		goto fail;
	l->unix_l = wrap(l, fd);
	fd = net_listen_tcp(NULL, ctld->conf->slurmctld_port, NULL, err);
	if (fd < 0)
		goto fail;
	l->tcp_l = wrap(l, fd);
	*ret = l;
	return 0;
fail:
	listener_destroy(l);
	return -1;
}

void listener_destroy(struct listener *l)
{
	if (!l)
		return;
	/* at exit: close what is still open, without the side effects of a
	 * peer going away (an srun's job is not cancelled, a node is not marked
	 * not responding); the other modules drop their refs as they are
	 * destroyed */
	while (l->clients) {
		struct client *c = l->clients;
		struct conn *conn = c->conn;
		client_untrack(l, c);
		if (conn)
			conn_close(conn);
	}
	if (l->unix_l)
		evconnlistener_free(l->unix_l);
	if (l->tcp_l)
		evconnlistener_free(l->tcp_l);
	if (l->unix_path)
		unlink(l->unix_path);
	free(l->unix_path);
	free(l);
}
