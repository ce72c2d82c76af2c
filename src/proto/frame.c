#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "proto/frame.h"
#include "proto/mp.h"
#include "proto/messages.h"
#include "common/common.h"

uint32_t frame_max_body(uint16_t type)
{
	switch (type) {
	/* replies, which only clients and daemons receive */
	case MSG_JOB_INFO_RESP:
	case MSG_JOB_LIST_RESP:
	case MSG_NODE_INFO_RESP:
	case MSG_PART_INFO_RESP:
	case MSG_CONFIG_RESP:
	case MSG_TOPO_INFO_RESP:
	case MSG_CONF_FILES_RESP:
	case MSG_STEP_INFO_RESP:
	case MSG_PRIO_INFO_RESP:
	case MSG_STATS_RESP: /* a row per user */
	case MSG_REPL_DATA:
	case MSG_ACCT_JOBS:
	case MSG_ASSOC_LIST_RESP:
	case MSG_ASSOC_MGR_RESP:
	case MSG_ACCT_REPORT_RESP: /* a row per account, user and size */
	case MSG_STEP_STAT_RESP:   /* sstat -a: every step, each node */
	case MSG_PMI_FENCE:        /* a node's PMI puts (bounded by its KVS) */
	case MSG_PMI_FENCE_DONE:   /* every node's */
		return FRAME_MAX_BODY;
	case MSG_FILE_BCAST_REQ: /* one block of sbcast's file */
		return FILE_BCAST_BLOCK_MAX + (64u << 10);
	case MSG_LAUNCH_REQ:
		return 16u << 20;
	case MSG_SUBMIT_REQ:
	case MSG_ALLOC_REQ:
	case MSG_WILL_RUN_REQ:
	case MSG_STEP_CREATE_REQ:
	case MSG_JOB_SCRIPT_RESP: /* a script of up to JOBSCRIPT_MAX */
	case MSG_SUBMIT_HET_REQ:  /* components: the leader's script, envs */
	case MSG_ALLOC_HET_REQ:
	case MSG_STEP_HET_CREATE_REQ: /* up to HET_MAX step requests */
		return 8u << 20;
	case MSG_NODE_REGISTER:
	case MSG_IO_DATA:
	case MSG_ALLOC_RESP:
	case MSG_STEP_CREATE_RESP:
	case MSG_STEP_HET_CREATE_RESP:
		return 4u << 20;
	default:
		return 1u << 20;
	}
}

uint32_t frame_max_values(uint16_t type)
{
	switch (type) {
	case MSG_RC:
	case MSG_PING_REQ:
	case MSG_NODE_INFO_REQ:
	case MSG_PART_INFO_REQ:
	case MSG_CONFIG_REQ:
	case MSG_TOPO_INFO_REQ:
	case MSG_CONF_FILES_REQ:
	case MSG_CANCEL_REQ:
	case MSG_NODE_UPDATE_REQ:
	case MSG_REBOOT_REQ:
	case MSG_JOB_COMPLETE_REQ:
	case MSG_AUTH_RESPONSE:
	case MSG_NODE_PING:
	case MSG_SIGNAL_REQ:
	case MSG_IO_HELLO:
	case MSG_IO_DATA:
	case MSG_TASK_EXIT:
	case MSG_IO_WINSIZE:
	case MSG_DEBUG_WAKE:
	case MSG_STATS_REQ:
	case MSG_SHUTDOWN_REQ:
	case MSG_NODE_SHUTDOWN:
	case MSG_FOLLOW_REQ:
	case MSG_REPL_DATA:
	case MSG_TAKEOVER_REQ:
	case MSG_FOLLOW_ACK:
	case MSG_RECONFIG_REQ:
	case MSG_ACT_AS:
	case MSG_TOKEN_REQ:
	case MSG_TOKEN_RESP:
		return 1u << 12;
	case MSG_JOB_UPDATE_REQ:
	case MSG_ASSOC_MGR_REQ: /* names */
		return 1u << 16;
	case MSG_SUBMIT_REQ:
	case MSG_ALLOC_REQ:
	case MSG_WILL_RUN_REQ:
	case MSG_STEP_CREATE_REQ:
	case MSG_JOB_INFO_REQ: /* squeue -j with a long list */
	case MSG_JOB_LIST_REQ:
	case MSG_STEP_INFO_REQ:
	case MSG_PRIO_INFO_REQ:
	case MSG_STEP_COMPLETE:
	case MSG_PROLOG_COMPLETE:
	case MSG_STEPD_GROUPS: /* up to GROUPLIST_MAX gids */
	case MSG_TASK_PIDS:    /* up to STEPD_MAX_TASKS tasks, 3 values each */
		return 1u << 18;
	case MSG_NODE_REGISTER:
	case MSG_SUBMIT_HET_REQ: /* up to HET_MAX requests */
	case MSG_ALLOC_HET_REQ:
	case MSG_STEP_HET_CREATE_REQ:
		return 1u << 20;
	case MSG_LAUNCH_REQ:
		return 1u << 21;
	default: /* replies, and types added later: bounded by their size */
		return UINT32_MAX;
	}
}

int frame_pack(uint16_t type, const void *body, char **ret_buf, size_t *ret_len)
{
	const struct rota_type *t = msg_body_type(type);
	struct mp_buf b = {0};
	size_t len;
	uint32_t u32;
	uint16_t u16;
	char *buf;

	if (!t)
		return -EINVAL;
	/* the body is encoded after room for the header, which then says its size */
	mp_room(&b, FRAME_HDR_LEN);
	b.len = FRAME_HDR_LEN;
	codec_encode_into(t, body, &b);
	buf = mp_release(&b, ret_len);
	len = *ret_len - FRAME_HDR_LEN;
	if (len > FRAME_MAX_BODY) {
		free(buf);
		return -EMSGSIZE;
	}
	u32 = htonl(FRAME_MAGIC);
	memcpy(buf, &u32, 4);
	u16 = htons(PROTO_VERSION);
	memcpy(buf + 4, &u16, 2);
	u16 = htons(type);
	memcpy(buf + 6, &u16, 2);
	u32 = htonl((uint32_t)len);
	memcpy(buf + 8, &u32, 4);
	*ret_buf = buf;
	return 0;
}

int frame_parse_header(const uint8_t *hdr, uint16_t *ret_type, uint32_t *ret_len,
                       struct rota_error *err)
{
	uint32_t magic, len;
	uint16_t version, type;

	memcpy(&magic, hdr, 4);
	memcpy(&version, hdr + 4, 2);
	memcpy(&type, hdr + 6, 2);
	memcpy(&len, hdr + 8, 4);
	if (ntohl(magic) != FRAME_MAGIC) {
		errprintf(err, "bad frame magic 0x%08x", ntohl(magic));
		return -EPROTO;
	}
	if (ntohs(version) != PROTO_VERSION) {
		errprintf(err, "unsupported protocol version %u", ntohs(version));
		return -EPROTO;
	}
	if (ntohl(len) > FRAME_MAX_BODY) {
		errprintf(err, "frame of %u bytes exceeds the %u byte limit", ntohl(len),
		          FRAME_MAX_BODY);
		return -EMSGSIZE;
	}
	if (!msg_body_type(ntohs(type))) {
		errprintf(err, "unknown message type %u", ntohs(type));
		return -EPROTO;
	}
	*ret_type = ntohs(type);
	*ret_len = ntohl(len);
	return 0;
}

int frame_decode_body(uint16_t type, const char *data, size_t len, void **ret_body,
                      struct rota_error *err)
{
	const struct rota_type *t = msg_body_type(type);
	void *body;
	int rc;

	if (!t)
		return errprintf(err, "unknown message type %u", type), -EPROTO;
	body = xcalloc(1, t->size);
	rc = codec_decode_max(t, data, len, frame_max_values(type), body, err);
	if (rc < 0) {
		free(body);
		return rc;
	}
	*ret_body = body;
	return 0;
}
