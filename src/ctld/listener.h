/* listener.h - accept connections (unix socket for local CLIs, TCP for nodes
 * and remote clients), authenticate them, and dispatch their requests through
 * the RPC table (rpc.c). */
#ifndef ROTA_LISTENER_H
#define ROTA_LISTENER_H

#include "common/error.h"

struct ctld;
struct listener;

int listener_create(struct ctld *ctld, struct listener **ret, struct rota_error *err);
void listener_destroy(struct listener *l);

#endif
