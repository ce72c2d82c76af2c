/* token.h - scontrol token: JWTs for REST clients (common/jwt.h). */
#ifndef ROTA_CTLD_TOKEN_H
#define ROTA_CTLD_TOKEN_H

#include "proto/messages.h"

struct ctld;
struct caller;
struct chan;

/* Answer req with an MSG_TOKEN_RESP, or an MSG_RC saying why not. */
void token_request(struct ctld *ctld, struct caller *who, const struct token_req *req,
                   struct chan *ch);

#endif
