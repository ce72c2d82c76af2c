#include <string.h>
#include <zlib.h>
#include "common/recframe.h"
#include "common/common.h"

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

void recframe_header(uint8_t hdr[RECFRAME_HDR], const void *body, uint32_t len)
{
	uLong crc;

	put32(hdr, RECFRAME_MAGIC);
	put32(hdr + 4, len);
	crc = crc32(0L, hdr, 8);
	crc = crc32(crc, body, len);
	put32(hdr + 8, (uint32_t)crc);
}

enum rec_kind { REC_OK, REC_TORN, REC_BAD };

/* What is at buf[off..size)?  On REC_OK, *ret_len is the body's length. */
static enum rec_kind rec_check(const uint8_t *buf, size_t size, size_t off,
                               uint32_t *ret_len)
{
	uint32_t len;
	uLong crc;

	if (size - off < RECFRAME_HDR)
		return REC_TORN;
	if (get32(buf + off) != RECFRAME_MAGIC)
		return REC_BAD;
	len = get32(buf + off + 4);
	if (len > RECFRAME_MAX)
		return REC_BAD;
	if (size - off - RECFRAME_HDR < len)
		return REC_TORN;
	crc = crc32(0L, buf + off, 8);
	crc = crc32(crc, buf + off + RECFRAME_HDR, len);
	if ((uint32_t)crc != get32(buf + off + 8))
		return REC_BAD;
	*ret_len = len;
	return REC_OK;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Record headers (the magic) seen in buf[from..to). */
static unsigned count_magic(const uint8_t *buf, size_t from, size_t to)
{
	unsigned n = 0;

	for (size_t i = from; i + 4 <= to; i++)
		if (get32(buf + i) == RECFRAME_MAGIC)
			n++;
	return n;
}

/* The old format: its first record checks (a new file whose first magic is
 * damaged is not taken for one, and so is resynchronised, not dropped). */
static int is_v0(const uint8_t *buf, size_t size)
{
	uint32_t len;

	if (size < 8 || get32(buf) == RECFRAME_MAGIC)
		return 0;
	len = get32(buf);
	return len <= size - 8 && (uint32_t)crc32(0L, buf + 8, len) == get32(buf + 4);
}

static int walk_v0(const uint8_t *buf, size_t size, recframe_rec_f rec,
                   recframe_bad_f bad, void *arg, struct recframe_result *r)
{
	size_t off = 0;

	while (off < size) {
		uint32_t len;
		int rc;

		if (size - off < 8)
			break;
		len = get32(buf + off);
		if (len > RECFRAME_MAX)
			goto damaged;
		if (size - off - 8 < len)
			break;
		if ((uint32_t)crc32(0L, buf + off + 8, len) != get32(buf + off + 4))
			goto damaged;
		rc = rec(arg, buf + off + 8, len);
		if (rc < 0)
			return rc;
		r->records++;
		off += 8 + (size_t)len;
		r->end = off;
	}
	r->torn = size - off;
	return 0;
damaged:
	/* no magic to find the next record by: the rest is lost */
	if (all_zero(buf + off, size - off)) {
		r->torn = size - off;
	} else {
		struct recframe_damage d = {off, size - off, 0};
		r->damaged++;
		bad(arg, &d);
	}
	return 0;
}

int recframe_walk(const uint8_t *buf, size_t size, recframe_rec_f rec, recframe_bad_f bad,
                  void *arg, struct recframe_result *ret)
{
	struct recframe_result r = {0};
	size_t off = 0;
	int rc = 0;

	if (is_v0(buf, size)) {
		r.v0 = 1;
		rc = walk_v0(buf, size, rec, bad, arg, &r);
		*ret = r;
		return rc;
	}
	while (off < size) {
		uint32_t len = 0;
		enum rec_kind k = rec_check(buf, size, off, &len);
		size_t next;

		if (k == REC_OK) {
			rc = rec(arg, buf + off + RECFRAME_HDR, len);
			if (rc < 0)
				break;
			r.records++;
			off += RECFRAME_HDR + (size_t)len;
			r.end = off;
			continue;
		}
		/* find the next record that checks */
		for (next = off + 1; next < size; next++) {
			uint32_t l2;
			if (next + 4 <= size && get32(buf + next) == RECFRAME_MAGIC &&
			    rec_check(buf, size, next, &l2) == REC_OK)
				break;
		}
		if (next >= size && (k == REC_TORN || all_zero(buf + off, size - off))) {
			r.torn = size - off; /* a crash during the last append */
			break;
		}
		{
			struct recframe_damage d = {off, next - off,
			                            count_magic(buf, off, next)};
			r.damaged++;
			bad(arg, &d);
		}
		off = next;
	}
	*ret = r;
	return rc;
}
