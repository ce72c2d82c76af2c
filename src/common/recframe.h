/* recframe.h - framing of an append-only record file that survives damage.
 *
 * A record is [u32 magic][length: 5 bytes][crc: 5 bytes][escaped body].  Length
 * (of the escaped body) and crc (CRC-32, zlib's, over magic, length and escaped
 * body) are written 7 bits a byte, big-endian, so no header byte after the
 * magic has its top bit set; in the body every byte RECFRAME_ESC is written as
 * RECFRAME_ESC 0x00.  So the magic's first two bytes (RECFRAME_ESC, then a
 * byte that is not 0) never occur inside a record: a reader that meets a bad
 * record scans forward for the next magic and finds a real record start, never
 * one forged inside a body (a job script holding a well-made record), and one
 * flipped byte costs one record, not every record after it.
 *
 * The format before this one ("v0": [u32 length][u32 crc of body][body], no
 * magic) is still read; it cannot resynchronise, so damage there costs the
 * rest of the file.  A file is taken for v0 when it does not start with the
 * magic and its first record checks as a v0 record.
 *
 * Pure functions over a buffer (no I/O), so that they can be unit-tested.
 */
#ifndef ROTA_RECFRAME_H
#define ROTA_RECFRAME_H

#include <stddef.h>
#include <stdint.h>

#define RECFRAME_MAGIC 0xd57a0ec1u
#define RECFRAME_ESC   0xd5u
#define RECFRAME_HDR   14          /* magic, length, crc */
#define RECFRAME_MAX   (64u << 20) /* largest body (before escaping) */

/* CRC-32 as zlib's crc32() computes it, continued from crc: zlib's in this
 * library, ISA-L's where a program links ctld/crc_isal.c (which overrides
 * it). */
uint32_t recframe_crc(uint32_t crc, const uint8_t *p, size_t n);

/* Bytes that recframe_encode writes for a body of len bytes (at most
 * RECFRAME_HDR + 2 * len). */
size_t recframe_size(const void *body, size_t len);

/* Write the record for body[0..len) (len <= RECFRAME_MAX) to out, which has
 * recframe_size(body, len) bytes; returns that size. */
size_t recframe_encode(uint8_t *out, const void *body, size_t len);

/* A region that held no valid record: bytes [off, off + bytes), in which
 * `records` record headers were seen (0 when none could be told apart). */
struct recframe_damage {
	size_t off, bytes;
	unsigned records;
};

/* Called for each valid record (body borrowed: valid during the call); a
 * negative return stops the walk and is returned by recframe_walk. */
typedef int (*recframe_rec_f)(void *arg, const uint8_t *body, size_t len);
typedef void (*recframe_bad_f)(void *arg, const struct recframe_damage *d);

struct recframe_result {
	size_t records; /* valid records passed to rec */
	size_t damaged; /* damaged regions passed to bad */
	size_t end;     /* offset after the last valid record */
	size_t torn;    /* bytes after `end` that are a torn tail (silent) */
	int v0;         /* the buffer is in the old format */
};

/* Walk buf[0..size).  A tail that is an incomplete record (a crash during an
 * append: fewer bytes than a header, a header whose body runs past the end,
 * or only zero bytes) is a torn tail: counted in ret->torn, not reported as
 * damage.  Anything else that does not check is reported through bad.
 * Returns 0, -ENOMEM, or the first negative return of rec. */
int recframe_walk(const uint8_t *buf, size_t size, recframe_rec_f rec, recframe_bad_f bad,
                  void *arg, struct recframe_result *ret);

#endif
