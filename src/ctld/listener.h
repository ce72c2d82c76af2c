/* listener.h - accept connections (unix socket for local CLIs, TCP for nodes
 * and remote clients), authenticate them, and dispatch their requests through
 * the RPC table (rpc.c).
 *
 * Peers that have not authenticated cannot starve others: each has
 * AUTH_DEADLINE seconds and FRAME_MAX_UNAUTH bytes to answer the challenge, at
 * most UNAUTH_MAX of them at once (a quarter of them from one address); accepting is
 * batched per loop turn and pauses when descriptors run out; input buffered by all
 * connections together is bounded (conn_budget). */
#ifndef ROTA_LISTENER_H
#define ROTA_LISTENER_H

#include "common/error.h"

struct ctld;
struct listener;

/* The TCP socket bound and listening before the state is restored, so that
 * the nodes' connections made meanwhile wait in its backlog and are served as
 * soon as the loop runs (a node tries again every 250 ms at most).  Returns the
 * descriptor, or -1 with err filled. */
int listener_bind_tcp(struct ctld *ctld, struct rota_error *err);
/* tcp_fd from listener_bind_tcp (taken over, closed on failure too). */
int listener_create(struct ctld *ctld, int tcp_fd, struct listener **ret,
                    struct rota_error *err);
void listener_destroy(struct listener *l);
/* Once a second: log what was refused or timed out since (rate-limited). */
void listener_tick(struct listener *l);

/* Reconfigure renumbered the nodes: map[old index] is the new one, or -1 for
 * a node gone (its daemon's connection is closed; it is refused if it comes
 * back). */
void listener_remap_nodes(struct listener *l, const int *map, size_t n_old);
/* Close the connection of the node daemon whose channel is ch (borrowed),
 * when the node has been silent too long; node_mgr forgets the channel
 * itself.  Nothing when ch is no open node connection, or l is NULL. */
void listener_drop_node(struct listener *l, struct chan *ch);

/* A backup that takes over: listen on the clients' socket (ctld->clients_path)
 * instead of its own.  0, or -1 (err). */
int listener_serve_clients(struct listener *l, struct rota_error *err);

#endif
