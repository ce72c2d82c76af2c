/* ops.h - the controller's operations, whoever asks: one table of message
 * type, operation and who may ask for it.
 *
 * An operation is a function of (controller, caller, request) that answers on
 * a chan: ops_call(ctld, who, type, &body, ch).  The caller (caller.h) is the
 * credential every check reads; the chan (chan.h) is where the answer, and
 * later notices, go.  The socket listener is one front door (it makes a
 * caller from what the peer proved and passes its client's chan); unit tests
 * and other front doors call ops_call the same way, with no socket at all.
 */
#ifndef ROTA_CTLD_OPS_H
#define ROTA_CTLD_OPS_H

#include <stdint.h>

struct ctld;
struct caller;
struct chan;

/* Do what a message of this type asks.  body: the decoded request; an
 * operation may take it (sets *body = NULL).  Refusals (not allowed for who,
 * unknown type, journal failed) are answered on ch like any other reply. */
void ops_call(struct ctld *ctld, struct caller *who, uint16_t type, void **body,
              struct chan *ch);

/* 1 if there is an operation for this message type (whoever may ask). */
int ops_serves(uint16_t type);

#endif
