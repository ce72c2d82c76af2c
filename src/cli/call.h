/* call.h - one request to the controller that reports failure instead of
 * exiting, so each command can word the error as Slurm does
 * ("slurm_load_jobs error: Unable to contact slurm controller (connect failure)",
 * "Kill job error on job id 12: ..."). */
#ifndef ROTA_CLI_CALL_H
#define ROTA_CLI_CALL_H

#include <stdint.h>

struct job_list_resp;

/* Send (type, body) on a new connection and wait for the answer.
 * want: the expected answer type; MSG_RC when the answer is a plain status.
 * Returns 0 and sets *ret_body (a `want` body, caller frees with msg_body_free;
 * may be NULL when want is MSG_RC), or a Slurm error number (ESLURM_*, or
 * SLURM_COMMUNICATIONS_CONNECTION_ERROR when the controller cannot be reached)
 * and sets *ret_msg to its text (caller frees). */
int call_ctld(uint16_t type, const void *body, uint16_t want, void **ret_body,
              char **ret_msg);

/* From now on, a listing's text (MSG_JOB_LIST_RESP, in frames) is handed to
 * fn frame by frame as it comes, the first frame included, instead of being
 * gathered into one: call_ctld then returns the first frame's record with its
 * text gone.  A listing cut short after some frames has had them printed; the
 * call still fails.  fn NULL: gathered again. */
void call_text_sink(void (*fn)(const struct job_list_resp *r, void *arg), void *arg);

/* After an answer from a controller that stands by (ESLURM_IN_STANDBY_MODE:
 * it did nothing), ask the controllers in order (TCP) and put the first other
 * answer in *rtype / *rbody: a primary that came back stands by while the
 * backup serves.  Nothing when the answer is another. */
void call_if_standby(uint16_t type, const void *body, uint16_t *rtype, void **rbody,
                     int timeout_ms);

/* N+K: the id of component K of heterogeneous job N (scontrol, sbcast), or
 * 0 when there is none. */
uint32_t call_het_component(uint32_t leader, uint32_t k);

/* A connection to controller *next or the first after it that answers (TCP),
 * *next moved past it; -1 when none is left.  For a command that keeps its
 * connection (salloc, srun) and was told ESLURM_IN_STANDBY_MODE: it asks
 * again there. */
int call_connect_next(size_t *next);

#endif
