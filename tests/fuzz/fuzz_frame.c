/* fuzz_frame - the wire: frame headers and the msgpack bodies of every message
 * type.  Input: either a whole frame (header + body, first byte even) or, first
 * byte odd, two bytes that pick a message type (mod the table) then a body.
 * A body that decodes must re-encode, and that encoding must decode and encode
 * to the same bytes; its JSON (squeue --json) must be producible. */
#include <stdio.h>
#include "proto/frame.h"
#include "proto/messages.h"
#include "fuzz.h"

#define TYPE_NUM(e, n, s) n,
static const uint16_t types[] = {ROTA_MESSAGES(TYPE_NUM)};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static void decode_check(uint16_t type, const uint8_t *body, size_t len)
{
	struct rota_error err = {""};
	void *msg = NULL, *msg2 = NULL;
	char *f1 = NULL, *f2 = NULL, *json;
	size_t l1, l2;

	if (frame_decode_body(type, (const char *)body, len, &msg, &err) < 0)
		return;
	if (frame_pack(type, msg, &f1, &l1) < 0)
		goto out; /* over FRAME_MAX_BODY once re-encoded */
	if (frame_decode_body(type, f1 + FRAME_HDR_LEN, l1 - FRAME_HDR_LEN, &msg2, &err) <
	    0) {
		fprintf(stderr, "%s: own encoding does not decode: %s\n", msg_name(type),
		        err.text);
		abort();
	}
	if (frame_pack(type, msg2, &f2, &l2) < 0 || l1 != l2 || memcmp(f1, f2, l1)) {
		fprintf(stderr, "%s: encoding is not stable\n", msg_name(type));
		abort();
	}
	json = codec_to_json(msg_body_type(type), msg, 0);
	free(json);
out:
	free(f1);
	free(f2);
	msg_body_free(type, msg);
	msg_body_free(type, msg2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_error err = {""};
	unsigned sel = fuzz_take_byte(&data, &size);
	uint16_t type;
	uint32_t len;

	if (sel & 1) {
		if (size < 2)
			return 0;
		type = types[((data[0] << 8) | data[1]) % NTYPES];
		decode_check(type, data + 2, size - 2);
		return 0;
	}
	if (size < FRAME_HDR_LEN)
		return 0;
	if (frame_parse_header(data, &type, &len, &err) < 0)
		return 0;
	/* what conn.c does: wait for len bytes, decode exactly those */
	if (len <= size - FRAME_HDR_LEN)
		decode_check(type, data + FRAME_HDR_LEN, len);
	return 0;
}
