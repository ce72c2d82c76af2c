/* rpc.h - the controller's one dispatch table: message type, handler, and who
 * may send it. */
#ifndef ROTA_RPC_H
#define ROTA_RPC_H

#include <stdint.h>

struct client;

/* body: the decoded message; a handler may take it (set *body = NULL). */
void rpc_dispatch(struct client *c, uint16_t type, void **body);
/* 1 if the table serves this message type (whoever may send it). */
int rpc_serves(uint16_t type);

#endif
