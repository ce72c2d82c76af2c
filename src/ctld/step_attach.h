/* step_attach.h - sattach: the nodes of a running step asked to open another
 * I/O connection, to sattach (the stepds then send it what they send srun).
 * The controller checks who asks (the job's user or an operator), hands the
 * request to the step's nodes and answers with the step's layout; it waits
 * for nothing (sattach counts the stepds that connect). */
#ifndef ROTA_CTLD_STEP_ATTACH_H
#define ROTA_CTLD_STEP_ATTACH_H

struct ctld;
struct caller;
struct chan;
struct step_attach;

/* MSG_STEP_ATTACH_REQ: MSG_STEP_ATTACH_RESP, or MSG_RC (no such step, not
 * yours, not running, a batch step, a layout not known). */
void step_attach_request(struct ctld *ctld, const struct caller *who,
                         const struct step_attach *req, struct chan *ch);

#endif
