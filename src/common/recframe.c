#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "common/recframe.h"
#include "common/common.h"

/* CRC-32 (gzip's polynomial, reflected) continued from crc: zlib's here.
 * The controller links a strong recframe_crc of its own (ctld/crc_isal.c:
 * ISA-L's, with the CPU's carry-less multiply, 8 times zlib's speed; a
 * restart checks every record); the CLI and rotadbd keep this one and start
 * without libisal. */
__attribute__((weak)) uint32_t recframe_crc(uint32_t crc, const uint8_t *p, size_t n)
{
	return (uint32_t)crc32_z(crc, p, n);
}

static uint32_t crc_add(uint32_t crc, const uint8_t *p, size_t n)
{
	return recframe_crc(crc, p, n);
}

#define LEN_OFF     4
#define CRC_OFF     9
#define MAX_ESCAPED ((uint64_t)RECFRAME_MAX * 2)

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

/* 5 bytes of 7 bits, big-endian. */
static void put35(uint8_t *p, uint64_t v)
{
	for (int i = 4; i >= 0; i--, v >>= 7)
		p[i] = v & 0x7f;
}

/* -1 when a byte has its top bit set (not a header). */
static int64_t get35(const uint8_t *p)
{
	int64_t v = 0;

	for (int i = 0; i < 5; i++) {
		if (p[i] & 0x80)
			return -1;
		v = v << 7 | p[i];
	}
	return v;
}

size_t recframe_size(const void *body, size_t len)
{
	const uint8_t *b = body;
	size_t n = RECFRAME_HDR + len;

	for (size_t i = 0; i < len; i++)
		n += b[i] == RECFRAME_ESC;
	return n;
}

size_t recframe_encode(uint8_t *out, const void *body, size_t len)
{
	const uint8_t *b = body;
	size_t n = RECFRAME_HDR;
	uint32_t crc;

	for (size_t i = 0; i < len; i++) {
		out[n++] = b[i];
		if (b[i] == RECFRAME_ESC)
			out[n++] = 0;
	}
	put32(out, RECFRAME_MAGIC);
	put35(out + LEN_OFF, n - RECFRAME_HDR);
	crc = crc_add(0, out, CRC_OFF);
	crc = crc_add(crc, out + RECFRAME_HDR, n - RECFRAME_HDR);
	put35(out + CRC_OFF, crc);
	return n;
}

enum rec_kind { REC_OK, REC_TORN, REC_BAD };

/* What is at buf[off..size)?  On REC_OK, *ret_len is the escaped body's
 * length. */
static enum rec_kind rec_check(const uint8_t *buf, size_t size, size_t off,
                               size_t *ret_len)
{
	int64_t len, crc;
	const uint8_t *p = buf + off;

	if (size - off < RECFRAME_HDR)
		return REC_TORN;
	if (get32(p) != RECFRAME_MAGIC)
		return REC_BAD;
	len = get35(p + LEN_OFF);
	crc = get35(p + CRC_OFF);
	if (len < 0 || crc < 0 || (uint64_t)len > MAX_ESCAPED || crc > UINT32_MAX)
		return REC_BAD;
	if (size - off - RECFRAME_HDR < (uint64_t)len)
		return REC_TORN;
	if ((int64_t)crc_add(crc_add(0, p, CRC_OFF), p + RECFRAME_HDR, (size_t)len) !=
	    crc)
		return REC_BAD;
	*ret_len = (size_t)len;
	return REC_OK;
}

/* Undo the escaping of in[0..len) into out; returns the length, or -1 when
 * an escape is not followed by 0 (not written by recframe_encode). */
/* Runs without RECFRAME_ESC are copied whole (memchr finds the next one). */
static ssize_t unescape(const uint8_t *in, size_t len, uint8_t *out)
{
	size_t n = 0, i = 0;

	while (i < len) {
		const uint8_t *e = memchr(in + i, RECFRAME_ESC, len - i);
		size_t run = e ? (size_t)(e - (in + i)) : len - i;

		memcpy(out + n, in + i, run);
		n += run;
		i += run;
		if (!e)
			break;
		if (i + 1 >= len || in[i + 1] != 0)
			return -1;
		out[n++] = RECFRAME_ESC;
		i += 2;
	}
	return n > RECFRAME_MAX ? -1 : (ssize_t)n;
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
	return len <= size - 8 && crc_add(0, buf + 8, len) == get32(buf + 4);
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
		if (crc_add(0, buf + off + 8, len) != get32(buf + off + 4))
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

/* The next offset after off where a record that checks starts, or size. */
static size_t resync(const uint8_t *buf, size_t size, size_t off)
{
	size_t next, l;

	for (next = off + 1; next + 4 <= size; next++)
		if (buf[next] == RECFRAME_ESC && get32(buf + next) == RECFRAME_MAGIC &&
		    rec_check(buf, size, next, &l) == REC_OK)
			return next;
	return size;
}

int recframe_walk(const uint8_t *buf, size_t size, recframe_rec_f rec, recframe_bad_f bad,
                  void *arg, struct recframe_result *ret)
{
	struct recframe_result r = {0};
	uint8_t *body = NULL;
	size_t off = 0, cap = 0;
	int rc = 0;

	if (is_v0(buf, size)) {
		r.v0 = 1;
		rc = walk_v0(buf, size, rec, bad, arg, &r);
		*ret = r;
		return rc;
	}
	while (off < size) {
		size_t len = 0, next;
		enum rec_kind k = rec_check(buf, size, off, &len);
		const uint8_t *data = NULL;
		ssize_t n = -1;

		if (k == REC_OK) {
			const uint8_t *in = buf + off + RECFRAME_HDR;

			if (!memchr(in, RECFRAME_ESC, len)) {
				/* most bodies hold no escape: passed as they lie */
				if (len <= RECFRAME_MAX) {
					n = (ssize_t)len;
					data = in;
				}
			} else {
				if (len > cap) {
					uint8_t *nb = realloc(body, len);
					if (!nb) {
						rc = -ENOMEM;
						break;
					}
					body = nb;
					cap = len;
				}
				n = unescape(in, len, body);
				data = body;
			}
		}
		if (n >= 0) {
			rc = rec(arg, data, (size_t)n);
			if (rc < 0)
				break;
			r.records++;
			off += RECFRAME_HDR + len;
			r.end = off;
			continue;
		}
		next = resync(buf, size, off);
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
	free(body);
	*ret = r;
	return rc;
}
