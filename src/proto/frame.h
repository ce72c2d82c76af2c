/* frame.h - the wire frame: 12-byte header then a msgpack body.
 *   magic "ROTA" | version u16 | type u16 | body length u32   (network order)
 * A frame whose magic or version is wrong, or whose body is over FRAME_MAX_BODY,
 * is refused before its body is read.
 *
 * Each message type has its own receive limit, frame_max_body(): replies
 * (squeue's job list, scontrol show config) may use the whole FRAME_MAX_BODY,
 * requests only what they can need:
 *   MSG_SUBMIT_REQ, MSG_ALLOC_REQ, MSG_STEP_CREATE_REQ  8 MiB (a 4 MiB script
 *       -- the controller's limit, as Slurm's max_script_size -- plus
 *       environment and arguments, which execve bounds to a few MiB anyway)
 *   MSG_LAUNCH_REQ                                      16 MiB (the same, plus
 *       per-node lists of a large allocation)
 *   MSG_NODE_REGISTER, MSG_IO_DATA, MSG_ALLOC_RESP,
 *   MSG_STEP_CREATE_RESP                                4 MiB
 *   every other request                                 1 MiB
 * A peer that has not authenticated yet may send FRAME_MAX_UNAUTH at most.
 * Decoding may allocate a whole struct for a one-byte value (an empty map in a
 * list), so requests also have a count of values, frame_max_values(): 2^18 for a
 * submission (its environment is at most 65536 strings) or a query by job id,
 * 2^21 for a launch, 2^20 for a node's registration, 2^16 or 2^12 for the
 * rest; replies only their size.
 */
#ifndef ROTA_FRAME_H
#define ROTA_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

#define FRAME_MAGIC      0x524f5441u /* "ROTA" */
#define PROTO_VERSION    1
#define FRAME_HDR_LEN    12
#define FRAME_MAX_BODY   (64u << 20)
#define FRAME_MAX_UNAUTH (64u << 10)

/* The largest body a receiver accepts for this message type (see above). */
uint32_t frame_max_body(uint16_t type);
/* The most msgpack values a body of this type may hold (see above). */
uint32_t frame_max_values(uint16_t type);

/* Encode a whole frame (header + body of msg type).  Caller frees *ret_buf. */
int frame_pack(uint16_t type, const void *body, char **ret_buf, size_t *ret_len);

/* Check a header; on success set type and body length. -EPROTO/-EMSGSIZE. */
int frame_parse_header(const uint8_t *hdr, uint16_t *ret_type, uint32_t *ret_len,
                       struct rota_error *err);

/* Decode a body of the given type into a new struct (caller msg_body_free()s). */
int frame_decode_body(uint16_t type, const char *data, size_t len, void **ret_body,
                      struct rota_error *err);

#endif
