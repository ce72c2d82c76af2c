#include <errno.h>
#include <event2/event.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/states.h"
#include "ctld/client.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/listener.h"
#include "ctld/node_mgr.h"
#include "ctld/ops.h"
#include "ctld/repl.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/conn.h"
#include "proto/net.h"
#include "proto/frame.h"
#include "common/common.h"
#include "common/ratelimit.h"
#include "common/timefmt.h"

/* A peer on TCP must authenticate within AUTH_DEADLINE seconds; at most
 * UNAUTH_MAX peers may be unauthenticated at once (more are closed at once),
 * and no more than a quarter of the descriptors we may open. */
#define AUTH_DEADLINE 5.0
#define UNAUTH_MAX    256
/* ... and one source address may hold at most a quarter of those, so that a
 * flood from one host leaves room for the nodes' own reconnections. */
#define UNAUTH_PER_ADDR_DIV 4
/* Connections accepted per socket per loop turn: a flood on one socket cannot
 * hold the loop (the unix socket's events also run first, see listener_create). */
#define ACCEPT_BATCH 32
/* Out of descriptors: stop accepting on that socket this long. */
#define ACCEPT_PAUSE_MS 200
/* Buffered input of all connections together (conn_budget). */
#define INPUT_BUDGET (64u << 20)
/* One user (not root, SlurmUser or our own uid) may hold at most this share of
 * the descriptors we may open in connections (local and TCP together). */
#define USER_CONN_DIV 4
/* Replies waiting for one peer beyond which its requests are not read. */
#define OUTPUT_MAX (4u << 20)

struct lsock {
	struct listener *l;
	int fd;
	int is_tcp;
	struct event *ev;    /* readable: connections to accept */
	struct event *pause; /* re-enables ev after ACCEPT_PAUSE_MS */
};

struct listener {
	struct ctld *ctld;
	struct lsock unix_s, tcp_s;
	char *unix_path;
	dev_t unix_dev; /* the socket file we bound there: removed at exit only */
	ino_t unix_ino; /* while it is still ours (unix_path_drop) */
	int reserve_fd; /* spare descriptor, given up to shed a connection at EMFILE */
	/* TCP peers that have not authenticated yet, and their addresses */
	struct unauth {
		struct conn *conn;
		struct sockaddr_storage addr;
	} * unauth_v;
	unsigned unauth, unauth_max, unauth_per_addr;
	struct conn_budget *budget;
	struct ratelimit emfile_log, cap_log, deadline_log, auth_log, user_log;
	unsigned long cap_refused, deadline_closed;
	struct client *clients; /* open connections, each holding one ref */
	/* connections each unprivileged user holds (user_conn_take) */
	struct user_conns {
		uid_t uid;
		unsigned n;
	} * users_v;
	unsigned nusers;
};

/* The connections one unprivileged user may hold: a share of the descriptor
 * limit as it is now (an administrator may change it while we run). */
static unsigned user_conn_max(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / USER_CONN_DIV > UINT32_MAX)
		return UINT32_MAX;
	return rl.rlim_cur / USER_CONN_DIV > 16 ? (unsigned)(rl.rlim_cur / USER_CONN_DIV)
	                                        : 16;
}

/* May uid open one more connection?  Counts it if so (user_conn_drop gives it
 * back); root, SlurmUser and our own uid are not counted. */
static int user_conn_take(struct listener *l, struct client *c)
{
	unsigned long held;
	unsigned i;

	if (caller_is_admin(&c->who) || c->who.uid == getuid())
		return 1;
	for (i = 0; i < l->nusers && l->users_v[i].uid != c->who.uid; i++)
		;
	if (i < l->nusers && l->users_v[i].n >= 16 &&
	    l->users_v[i].n >= user_conn_max()) {
		if (ratelimit_pass(&l->user_log, time_mono(), &held))
			log_err("refused a connection of uid %u: it holds %u already "
			        "(%lu more refused since the last report)",
			        (unsigned)c->who.uid, l->users_v[i].n, held);
		return 0;
	}
	if (i == l->nusers) {
		l->users_v = xrealloc(l->users_v, (l->nusers + 1) * sizeof(*l->users_v));
		l->users_v[l->nusers++] = (struct user_conns){c->who.uid, 0};
	}
	l->users_v[i].n++;
	c->conn_counted = 1;
	return 1;
}

static void user_conn_drop(struct listener *l, struct client *c)
{
	if (!c->conn_counted)
		return;
	c->conn_counted = 0;
	for (unsigned i = 0; i < l->nusers; i++) {
		if (l->users_v[i].uid == c->who.uid) {
			if (--l->users_v[i].n == 0)
				l->users_v[i] = l->users_v[--l->nusers];
			return;
		}
	}
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		               &((const struct sockaddr_in6 *)b)->sin6_addr,
		               sizeof(struct in6_addr));
	return 1;
}

/* May one more peer from addr wait to authenticate? */
static int unauth_admit(const struct listener *l, const struct sockaddr_storage *addr)
{
	unsigned same = 0;

	if (l->unauth >= l->unauth_max)
		return 0;
	for (unsigned i = 0; i < l->unauth; i++)
		if (same_addr(&l->unauth_v[i].addr, addr) && ++same >= l->unauth_per_addr)
			return 0;
	return 1;
}

static void unauth_forget(struct listener *l, struct conn *conn)
{
	for (unsigned i = 0; i < l->unauth; i++) {
		if (l->unauth_v[i].conn == conn) {
			l->unauth_v[i] = l->unauth_v[--l->unauth];
			return;
		}
	}
}

/* After its first message a TCP peer, like a local one from the start, may
 * send what the RPC table serves and nothing else: the bodies of replies (up to
 * 64 MiB) are never read here. */
static void unauth_done(struct listener *l, struct conn *conn)
{
	conn_set_deadline(conn, 0, NULL, NULL);
	conn_set_max_body(conn, 0);
	conn_set_accept(conn, ops_serves);
	unauth_forget(l, conn);
}

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

	user_conn_drop(c->ctld->listener, c);
	c->conn = NULL;
	if (c->authed && c->who.role == CALLER_NODE)
		node_mgr_link_lost(c->ctld, &c->who, &c->chan);
	if (c->authed && c->who.role == CALLER_PEER)
		repl_chan_gone(c->ctld, &c->chan);
	job_mgr_chan_gone(c->ctld, &c->chan);
	client_untrack(c->ctld->listener, c);
}

static void client_msg(struct conn *conn, uint16_t type, void **body, void *arg)
{
	struct client *c = arg;

	ops_call(c->ctld, &c->who, type, body, &c->chan);
}

/* Anyone can fail authentication as fast as they can connect: at most a few
 * lines per interval, then a count of those held back. */
static void auth_failed_log(struct listener *l, struct conn *conn, const char *why)
{
	unsigned long held = 0;

	if (!ratelimit_pass(&l->auth_log, time_mono(), &held))
		return;
	if (held)
		log_err("authentication failed from %s: %s (and %lu more failures "
		        "not logged)",
		        conn_name(conn), why, held);
	else
		log_err("authentication failed from %s: %s", conn_name(conn), why);
}

/* First message on TCP: the answer to our challenge. */
static void auth_msg(struct conn *conn, uint16_t type, void **body, void *arg)
{
	struct client *c = arg;
	struct rota_error err = {""};
	struct auth_response *resp = *body;
	struct auth_proof proof = {0};
	uid_t uid;
	gid_t gid;

	unauth_done(c->ctld->listener, conn);
	conn_set_handlers(conn, auth_msg, client_closed, c);
	if (type != MSG_AUTH_RESPONSE ||
	    auth_verify(c->ctld->auth, &c->challenge, resp, &uid, &gid, &err) < 0) {
		auth_failed_log(c->ctld->listener, conn,
		                type == MSG_AUTH_RESPONSE ? err.text
		                                          : "no response to challenge");
		client_untrack(c->ctld->listener, c);
		conn_close(conn);
		return;
	}
	/* prove ourselves in turn: the peer reads nothing else before this */
	if (auth_proof_make(c->ctld->auth, &c->challenge, resp, &proof, &err) < 0) {
		log_err("cannot prove ourselves to %s: %s", conn_name(conn), err.text);
		codec_release(&auth_proof_type, &proof);
		client_untrack(c->ctld->listener, c);
		conn_close(conn);
		return;
	}
	conn_send(conn, MSG_AUTH_PROOF, &proof);
	codec_release(&auth_proof_type, &proof);
	conn_set_identity(conn, uid, gid);
	caller_init_user(&c->who, c->ctld, uid, gid);
	c->authed = true;
	if (resp->node_name &&
	    (!strcmp(resp->node_name, CTLD_PEER_NAME) ||
	     !strcmp(resp->node_name, DBD_PEER_NAME)) &&
	    caller_is_admin(&c->who)) {
		caller_init_peer(&c->who, uid, gid);
	} else if (resp->node_name && resp->node_name[0] && caller_is_admin(&c->who)) {
		int idx = node_mgr_find(c->ctld->nodes, resp->node_name);

		caller_init_node(&c->who, idx, uid, gid);
		if (idx < 0) {
			log_err("node %s is not in slurm.conf; refusing it",
			        resp->node_name);
			client_send_rc(c, -ESLURM_INVALID_NODE_NAME, NULL);
			client_untrack(c->ctld->listener, c);
			conn_close_after_flush(conn);
			return;
		}
	} else if (!user_conn_take(c->ctld->listener, c)) {
		client_untrack(c->ctld->listener, c);
		conn_close(conn);
		return;
	}
	conn_set_handlers(conn, client_msg, client_closed, c);
}

/* An unauthenticated peer went away before its first message. */
static void unauth_closed(struct conn *conn, void *arg)
{
	struct client *c = arg;

	unauth_done(c->ctld->listener, conn);
	client_closed(conn, arg);
}

/* No answer to the challenge in time: close it quietly (counted, and logged
 * once per interval by listener_tick). */
static void unauth_timeout(struct conn *conn, void *arg)
{
	struct client *c = arg;
	struct listener *l = c->ctld->listener;

	unauth_forget(l, conn);
	l->deadline_closed++;
	client_closed(conn, c);
	conn_close(conn);
}

static void log_counts(struct listener *l)
{
	double now = time_mono();

	if (l->deadline_closed && ratelimit_pass(&l->deadline_log, now, NULL)) {
		log_err("closed %lu connections that did not authenticate within %.0f s",
		        l->deadline_closed, AUTH_DEADLINE);
		l->deadline_closed = 0;
	}
	if (l->cap_refused && ratelimit_pass(&l->cap_log, now, NULL)) {
		log_err("refused %lu connections: too many unauthenticated connections "
		        "(%u at most, %u from one address)",
		        l->cap_refused, l->unauth_max, l->unauth_per_addr);
		l->cap_refused = 0;
	}
}

static void accept_one(struct lsock *s, int fd, const struct sockaddr_storage *ss)
{
	struct listener *l = s->l;
	char name[64] = "local";
	struct conn *conn;
	struct client *c;

	if (s->is_tcp) {
		int one = 1;
		const struct sockaddr *sa = (const struct sockaddr *)ss;
		if (!unauth_admit(l, ss)) {
			close(fd);
			l->cap_refused++;
			return;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (sa->sa_family == AF_INET)
			snprintf(name, sizeof(name), "%s:%u",
			         inet_ntoa(((const struct sockaddr_in *)sa)->sin_addr),
			         ntohs(((const struct sockaddr_in *)sa)->sin_port));
		else
			snprintf(name, sizeof(name), "tcp peer");
	}
	conn = conn_create(l->ctld->base, fd, name, NULL, NULL, NULL);
	conn_set_budget(conn, l->budget);
	conn_set_out_max(conn, OUTPUT_MAX);
	c = client_create(l->ctld, conn);
	client_track(l, c);
	conn_set_data(conn, c);
	if (!s->is_tcp) {
		caller_init_user(&c->who, l->ctld, conn_uid(conn), conn_gid(conn));
		c->authed = true;
		if (!user_conn_take(l, c)) {
			client_untrack(l, c);
			conn_close(conn);
			return;
		}
		conn_set_accept(conn, ops_serves);
		conn_set_handlers(conn, client_msg, client_closed, c);
		return;
	}
	l->unauth_v[l->unauth].conn = conn;
	l->unauth_v[l->unauth++].addr = *ss;
	conn_set_max_body(conn, FRAME_MAX_UNAUTH);
	conn_set_deadline(conn, AUTH_DEADLINE, unauth_timeout, c);
	auth_challenge_make(l->ctld->auth, &c->challenge);
	conn_set_handlers(conn, auth_msg, unauth_closed, c);
	conn_send(conn, MSG_AUTH_CHALLENGE, &c->challenge);
}

/* Out of descriptors: shed the connection at the head of the queue with the
 * spare descriptor (so the peer is told at once rather than left hanging and
 * the socket stops being readable), and rest a while. */
static void accept_starved(struct lsock *s, int err)
{
	struct listener *l = s->l;
	struct timeval tv = {0, ACCEPT_PAUSE_MS * 1000};
	unsigned long held;
	int fd;

	if (ratelimit_pass(&l->emfile_log, time_mono(), &held)) {
		if (held)
			log_err("accept: %s (%lu times since the last report); pausing "
			        "%u ms",
			        strerror(err), held + 1, ACCEPT_PAUSE_MS);
		else
			log_err("accept: %s; pausing %u ms", strerror(err),
			        ACCEPT_PAUSE_MS);
	}
	if (l->reserve_fd >= 0) {
		close(l->reserve_fd);
		fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
		l->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	event_del(s->ev);
	evtimer_add(s->pause, &tv);
}

static void accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct lsock *s = arg;

	for (int i = 0; i < ACCEPT_BATCH; i++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd = accept4(s->fd, (struct sockaddr *)&ss, &sl,
		                 SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				accept_starved(s, errno);
			else if (errno != EAGAIN && errno != EWOULDBLOCK &&
			         errno != EINTR && errno != ECONNABORTED)
				log_err("accept: %s", strerror(errno));
			break;
		}
		accept_one(s, fd, &ss);
	}
	log_counts(s->l);
}

static void accept_resume(evutil_socket_t fd, short what, void *arg)
{
	struct lsock *s = arg;
	event_add(s->ev, NULL);
}

static void lsock_init(struct listener *l, struct lsock *s, int fd, int is_tcp,
                       int priority)
{
	s->l = l;
	s->fd = fd;
	s->is_tcp = is_tcp;
	evutil_make_socket_nonblocking(fd);
	s->ev = event_new(l->ctld->base, fd, EV_READ | EV_PERSIST, accept_cb, s);
	s->pause = evtimer_new(l->ctld->base, accept_resume, s);
	if (!s->ev || !s->pause)
		fatal("out of memory");
	event_priority_set(s->ev, priority);
	event_add(s->ev, NULL);
}

static void lsock_release(struct lsock *s)
{
	if (s->ev)
		event_free(s->ev);
	if (s->pause)
		event_free(s->pause);
	if (s->fd >= 0)
		close(s->fd);
}

/* Does name resolve (first) to a loopback address?  Debian maps the host's own
 * name to 127.0.1.1 in /etc/hosts while other hosts find it in the DNS. */
static int resolves_to_loopback(const char *name)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
	int lo = 0;

	if (getaddrinfo(name, NULL, &hints, &res))
		return 0;
	if (res->ai_family == AF_INET)
		lo = (ntohl(((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr) >>
		      24) == 127;
	else if (res->ai_family == AF_INET6)
		lo = IN6_IS_ADDR_LOOPBACK(
		    &((struct sockaddr_in6 *)res->ai_addr)->sin6_addr);
	freeaddrinfo(res);
	return lo;
}

/* Where the controller listens: SlurmctldAddr (the "(addr)" of SlurmctldHost),
 * else what SlurmctldHost resolves to, when it is an address of this host.
 * Every address (0.0.0.0, what Slurm does unless CommunicationParameters has
 * NoInAddrAny) only when neither is, or when the host name alone resolves to a
 * loopback address here (other hosts would find another one). */
static int listen_tcp(struct ctld *ctld, struct rota_error *err)
{
	const struct conf *conf = ctld->conf;
	/* this controller's own line of SlurmctldHost (a backup's is not the
	 * first) */
	const char *addr = conf_ctld_addr(conf, ctld->ctld_index);
	int named = ctld->ctld_index ? conf->backup_addr[ctld->ctld_index - 1] != NULL
	                             : conf->slurmctld_addr != NULL;
	struct rota_error e2 = {""};
	int fd;

	if (addr && !named && resolves_to_loopback(addr)) {
		log_info("SlurmctldHost %s resolves to a loopback address here: "
		         "listening on all addresses (set its address to bind one)",
		         addr);
		addr = NULL;
	}
	if (addr) {
		fd = net_listen_tcp(addr, conf->slurmctld_port, NULL, &e2);
		if (fd >= 0 || (fd != -EADDRNOTAVAIL && fd != -EINVAL)) {
			if (fd < 0)
				errprintf(err, "%s", e2.text);
			else
				log_info("listening on %s port %u", addr,
				         conf->slurmctld_port);
			return fd;
		}
		log_info("%s is not an address of this host: listening on all "
		         "addresses",
		         addr);
	}
	return net_listen_tcp(NULL, conf->slurmctld_port, NULL, err);
}

/* Note which file our socket is, once bound at l->unix_path. */
static void unix_path_own(struct listener *l)
{
	struct stat st;

	if (stat(l->unix_path, &st) == 0) {
		l->unix_dev = st.st_dev;
		l->unix_ino = st.st_ino;
	}
}

/* Remove our socket file, unless another controller has bound its own there
 * since (a backup that took over while this one was stopped). */
static void unix_path_drop(struct listener *l)
{
	struct stat st;

	if (l->unix_path && stat(l->unix_path, &st) == 0 && st.st_dev == l->unix_dev &&
	    st.st_ino == l->unix_ino)
		unlink(l->unix_path);
}

/* At start-up only.  A port still held a moment after the previous controller
 * died (a child of it that has not exited yet, another program that probed
 * it) is waited for, as Slurm's controller retries its port: up to 15 s. */
int listener_bind_tcp(struct ctld *ctld, struct rota_error *err)
{
	int fd = listen_tcp(ctld, err);

	for (int tries = 0; fd == -EADDRINUSE && tries < 30; tries++) {
		if (tries == 0)
			log_info("%s: retrying for 15 s", err->text);
		usleep(500 * 1000);
		fd = listen_tcp(ctld, err);
	}
	return fd < 0 ? -1 : fd;
}

int listener_create(struct ctld *ctld, int tcp_fd, struct listener **ret,
                    struct rota_error *err)
{
	struct listener *l = xcalloc(1, sizeof(*l));
	struct rlimit rl;
	int fd;

	l->ctld = ctld;
	l->unix_s.fd = l->tcp_s.fd = -1;
	l->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	l->unauth_max = UNAUTH_MAX;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < UNAUTH_MAX)
		l->unauth_max = rl.rlim_cur / 4 > 8 ? (unsigned)(rl.rlim_cur / 4) : 8;
	l->unauth_per_addr = l->unauth_max / UNAUTH_PER_ADDR_DIV;
	if (l->unauth_per_addr < 2)
		l->unauth_per_addr = 2;
	l->unauth_v = xcalloc(l->unauth_max, sizeof(*l->unauth_v));
	l->budget = conn_budget_create(INPUT_BUDGET);
	l->emfile_log = (struct ratelimit)RATELIMIT_INIT(10, 1);
	l->cap_log = (struct ratelimit)RATELIMIT_INIT(10, 1);
	l->deadline_log = (struct ratelimit)RATELIMIT_INIT(10, 1);
	l->auth_log = (struct ratelimit)RATELIMIT_INIT(10, 5);
	l->user_log = (struct ratelimit)RATELIMIT_INIT(10, 1);
	/* a controller standing by keeps off the clients' socket (the one that
	 * serves has it) until it takes over (listener_serve_clients) */
	l->unix_path = ctld->standby ? xasprintf("%s/rotactld.standby.sock",
	                                         ctld->conf->state_save_location)
	                             : client_ctld_socket_path(ctld->conf);
	fd = net_listen_unix(l->unix_path, 0666, err);
	if (fd < 0)
		goto fail;
	unix_path_own(l);
	/* local clients' connections are accepted first (priority 0) */
	lsock_init(l, &l->unix_s, fd, 0, 0);
	lsock_init(l, &l->tcp_s, tcp_fd, 1, 1);
	*ret = l;
	return 0;
fail:
	close(tcp_fd);
	listener_destroy(l);
	return -1;
}

void listener_tick(struct listener *l)
{
	if (l)
		log_counts(l);
}

/* Close a node daemon's connection without telling node_mgr (which asked, or
 * whose node is no more): what still comes on its channel is not the node's. */
static void node_client_drop(struct listener *l, struct client *c)
{
	struct conn *conn = c->conn;

	c->who.node_idx = -1;
	c->chan.superseded = 1;
	user_conn_drop(l, c);
	c->conn = NULL;
	client_untrack(l, c);
	if (conn)
		conn_close(conn);
}

void listener_remap_nodes(struct listener *l, const int *map, size_t n_old)
{
	for (struct client *c = l->clients, *next; c; c = next) {
		int idx = c->who.node_idx;
		next = c->lnext;
		if (!c->authed || c->who.role != CALLER_NODE || idx < 0)
			continue;
		if ((size_t)idx < n_old && map[idx] >= 0) {
			c->who.node_idx = map[idx];
			continue;
		}
		/* its node is no more */
		node_client_drop(l, c);
	}
}

void listener_drop_node(struct listener *l, struct chan *ch)
{
	for (struct client *c = l ? l->clients : NULL; c; c = c->lnext) {
		if (&c->chan != ch || !c->authed || c->who.role != CALLER_NODE)
			continue;
		node_client_drop(l, c);
		return;
	}
}

int listener_serve_clients(struct listener *l, struct rota_error *err)
{
	const char *path = l->ctld->clients_path;
	int fd;

	if (!path || (l->unix_path && !strcmp(path, l->unix_path)))
		return 0;
	/* the socket the primary left behind is dead: ours now */
	unlink(path);
	fd = net_listen_unix(path, 0666, err);
	if (fd < 0)
		return -1;
	lsock_release(&l->unix_s);
	unix_path_drop(l);
	free(l->unix_path);
	l->unix_path = xstrdup(path);
	unix_path_own(l);
	lsock_init(l, &l->unix_s, fd, 0, 0);
	log_info("serving the clients' socket %s", path);
	return 0;
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
	lsock_release(&l->unix_s);
	lsock_release(&l->tcp_s);
	if (l->reserve_fd >= 0)
		close(l->reserve_fd);
	conn_budget_unref(l->budget);
	free(l->unauth_v);
	free(l->users_v);
	unix_path_drop(l);
	free(l->unix_path);
	free(l);
}
