/* call.h - one request to the controller that reports failure instead of
 * exiting, so each command can word the error as Slurm does
 * ("slurm_load_jobs error: Unable to contact slurm controller (connect failure)",
 * "Kill job error on job id 12: ..."). */
#ifndef ROTA_CLI_CALL_H
#define ROTA_CLI_CALL_H

#include <stdint.h>

/* Send (type, body) on a new connection and wait for the answer.
 * want: the expected answer type; MSG_RC when the answer is a plain status.
 * Returns 0 and sets *ret_body (a `want` body, caller frees with msg_body_free;
 * may be NULL when want is MSG_RC), or a Slurm error number (ESLURM_*, or
 * SLURM_COMMUNICATIONS_CONNECTION_ERROR when the controller cannot be reached)
 * and sets *ret_msg to its text (caller frees). */
int call_ctld(uint16_t type, const void *body, uint16_t want, void **ret_body,
              char **ret_msg);

#endif
