/* test_recframe.c - journal record framing and resynchronisation
 * (src/common/recframe.c), and the high-water-mark file (src/common/seqfile.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "common/recframe.h"
#include "common/seqfile.h"

#define NREC 10

struct walk {
	int seen[NREC];
	int nseen;
	struct recframe_damage bad[NREC];
	int nbad;
};

static int on_rec(void *arg, const uint8_t *body, size_t len)
{
	struct walk *w = arg;
	int id;

	assert_int_equal(len, 40);
	assert_int_equal(sscanf((const char *)body, "record %d", &id), 1);
	w->seen[w->nseen++] = id;
	return 0;
}

static void on_bad(void *arg, const struct recframe_damage *d)
{
	struct walk *w = arg;
	w->bad[w->nbad++] = *d;
}

/* NREC records of 40 bytes ("record N" padded with dots); offsets in off[]. */
static size_t build(uint8_t *buf, size_t off[NREC])
{
	size_t n = 0;

	for (int i = 0; i < NREC; i++) {
		char body[41];
		snprintf(body, sizeof(body), "record %d %030d", i, 0);
		body[39] = '.';
		off[i] = n;
		assert_int_equal(recframe_size(body, 40), RECFRAME_HDR + 40);
		n += recframe_encode(buf + n, body, 40);
	}
	return n;
}

static void test_clean(void **state)
{
	uint8_t buf[1024];
	size_t off[NREC], n = build(buf, off);
	struct walk w = {0};
	struct recframe_result r;

	assert_int_equal(recframe_walk(buf, n, on_rec, on_bad, &w, &r), 0);
	assert_int_equal(r.records, NREC);
	assert_int_equal(r.damaged, 0);
	assert_int_equal(r.end, n);
	assert_int_equal(r.torn, 0);
	assert_int_equal(r.v0, 0);
	for (int i = 0; i < NREC; i++)
		assert_int_equal(w.seen[i], i);
}

/* One flipped byte anywhere in record k (magic, length, crc or body) loses
 * record k only, and says where. */
static void test_flip_resyncs(void **state)
{
	for (int k = 0; k < NREC; k++) {
		for (size_t at = 0; at < RECFRAME_HDR + 40; at++) {
			uint8_t buf[1024];
			size_t off[NREC], n = build(buf, off);
			struct walk w = {0};
			struct recframe_result r;

			buf[off[k] + at] ^= 0x5a;
			assert_int_equal(recframe_walk(buf, n, on_rec, on_bad, &w, &r),
			                 0);
			if (k == NREC - 1 && at >= 4 && at < 9) {
				/* the last record's length: may now read as a
				 * record running past the end, a torn tail */
				assert_int_equal(r.records, NREC - 1);
				continue;
			}
			assert_int_equal(r.records, NREC - 1);
			assert_int_equal(r.damaged, 1);
			assert_int_equal(w.nbad, 1);
			assert_int_equal(w.bad[0].off, off[k]);
			assert_int_equal(w.bad[0].bytes, RECFRAME_HDR + 40);
			assert_int_equal(w.bad[0].records, at < 4 ? 0 : 1);
			for (int i = 0, j = 0; i < NREC; i++)
				if (i != k)
					assert_int_equal(w.seen[j++], i);
		}
	}
}

static void test_torn_tail_is_silent(void **state)
{
	uint8_t buf[1024];
	size_t off[NREC], n = build(buf, off);

	/* every cut inside the last record */
	for (size_t cut = off[NREC - 1] + 1; cut < n; cut++) {
		struct walk w = {0};
		struct recframe_result r;
		assert_int_equal(recframe_walk(buf, cut, on_rec, on_bad, &w, &r), 0);
		assert_int_equal(r.records, NREC - 1);
		assert_int_equal(r.damaged, 0);
		assert_int_equal(r.end, off[NREC - 1]);
		assert_int_equal(r.torn, cut - off[NREC - 1]);
	}
	/* zeros after the last record (a file extended, data never written) */
	{
		struct walk w = {0};
		struct recframe_result r;
		memset(buf + n, 0, 100);
		assert_int_equal(recframe_walk(buf, n + 100, on_rec, on_bad, &w, &r), 0);
		assert_int_equal(r.records, NREC);
		assert_int_equal(r.damaged, 0);
		assert_int_equal(r.torn, 100);
	}
}

static void test_damaged_tail_is_reported(void **state)
{
	uint8_t buf[1024];
	size_t off[NREC], n = build(buf, off);
	struct walk w = {0};
	struct recframe_result r;

	buf[n - 3] ^= 1; /* a complete last record that does not check */
	assert_int_equal(recframe_walk(buf, n, on_rec, on_bad, &w, &r), 0);
	assert_int_equal(r.records, NREC - 1);
	assert_int_equal(r.damaged, 1);
	assert_int_equal(w.bad[0].off, off[NREC - 1]);
	assert_int_equal(r.torn, 0);
}

/* The old format ([len][crc of body][body]) is still read. */
static void test_v0(void **state)
{
	uint8_t buf[1024];
	size_t n = 0, second = 0;
	struct walk w = {0};
	struct recframe_result r;

	for (int i = 0; i < 3; i++) {
		char body[41];
		uint32_t crc;
		snprintf(body, sizeof(body), "record %d %030d", i, 0);
		body[39] = '.';
		crc = (uint32_t)crc32(0L, (const uint8_t *)body, 40);
		if (i == 1)
			second = n;
		buf[n++] = 0, buf[n++] = 0, buf[n++] = 0, buf[n++] = 40;
		buf[n++] = crc >> 24, buf[n++] = crc >> 16, buf[n++] = crc >> 8,
		buf[n++] = crc;
		memcpy(buf + n, body, 40);
		n += 40;
	}
	assert_int_equal(recframe_walk(buf, n, on_rec, on_bad, &w, &r), 0);
	assert_true(r.v0);
	assert_int_equal(r.records, 3);
	assert_int_equal(r.damaged, 0);
	/* torn v0 tail: silent */
	memset(&w, 0, sizeof(w));
	assert_int_equal(recframe_walk(buf, n - 5, on_rec, on_bad, &w, &r), 0);
	assert_int_equal(r.records, 2);
	assert_int_equal(r.damaged, 0);
	assert_int_equal(r.end, n - 48);
	/* damage in v0: the rest is lost, but said */
	memset(&w, 0, sizeof(w));
	buf[second + 20] ^= 1;
	assert_int_equal(recframe_walk(buf, n, on_rec, on_bad, &w, &r), 0);
	assert_int_equal(r.records, 1);
	assert_int_equal(r.damaged, 1);
	assert_int_equal(w.bad[0].off, second);
	assert_int_equal(w.bad[0].bytes, n - second);
}

/* A zeroed first byte leaves a word that could be a v0 length: still read as
 * the new format, the first record lost, the rest kept. */
static void test_first_byte_zeroed(void **state)
{
	uint8_t buf[1024];
	size_t off[NREC], n = build(buf, off);
	struct walk w = {0};
	struct recframe_result r;

	buf[0] = 0;
	assert_int_equal(recframe_walk(buf, n, on_rec, on_bad, &w, &r), 0);
	assert_false(r.v0);
	assert_int_equal(r.records, NREC - 1);
	assert_int_equal(r.damaged, 1);
	assert_int_equal(w.bad[0].off, 0);
}

static int on_any(void *arg, const uint8_t *body, size_t len)
{
	struct walk *w = arg;

	w->seen[w->nseen++] = (int)len;
	assert_false(len == 10 && !memcmp(body, "evil event", 10));
	return 0;
}

/* A body (a user's job script) may hold a well-made record of its own: escaping
 * keeps the magic out of every body, so damage to the record around it never
 * lets a reader take the forged one for real. */
static void test_forged_record_in_body(void **state)
{
	uint8_t forged[64], body[200], buf[1024];
	size_t nf = recframe_encode(forged, "evil event", 10), n = 0, second;
	struct walk w = {0};
	struct recframe_result r;

	memset(body, 'x', sizeof(body));
	memcpy(body + 50, forged, nf);
	n += recframe_encode(buf + n, "first", 5);
	second = n;
	n += recframe_encode(buf + n, body, sizeof(body));
	assert_int_equal(n - second, RECFRAME_HDR + sizeof(body) + 1); /* D5 00 */
	n += recframe_encode(buf + n, "last", 4);
	assert_int_equal(recframe_walk(buf, n, on_any, on_bad, &w, &r), 0);
	assert_int_equal(r.records, 3);
	assert_int_equal(w.seen[1], sizeof(body)); /* unescaped again */
	/* every single damaged byte of the second record: never the forged one */
	for (size_t at = second; at < second + RECFRAME_HDR + sizeof(body); at++) {
		memset(&w, 0, sizeof(w));
		buf[at] ^= 0x01;
		assert_int_equal(recframe_walk(buf, n, on_any, on_bad, &w, &r), 0);
		assert_int_equal(r.records, 2);
		assert_int_equal(w.seen[0], 5);
		assert_int_equal(w.seen[1], 4);
		buf[at] ^= 0x01;
	}
}

static void test_seqfile(void **state)
{
	char path[] = "/tmp/test_seqfile.XXXXXX";
	int fd = mkstemp(path);
	struct seqfile *s;
	uint64_t v;
	char junk = 0x55;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(seqfile_open(path, &s, &v, NULL), 0);
	assert_int_equal(v, 0);
	assert_int_equal(seqfile_store(s, 1000), 0);
	assert_int_equal(seqfile_store(s, 2000), 0);
	seqfile_destroy(s);
	assert_int_equal(seqfile_open(path, &s, &v, NULL), 0);
	assert_int_equal(v, 2000);
	assert_int_equal(seqfile_store(s, 3000), 0);
	seqfile_destroy(s);
	/* damage to the newest slot leaves the one before */
	fd = open(path, O_RDWR);
	/* a new file holds generations 0 and 1; 1000, 2000, 3000 went to
	 * generations 2, 3, 4: slots 0, 1, 0 */
	assert_int_equal(pwrite(fd, &junk, 1, 12), 1);
	close(fd);
	assert_int_equal(seqfile_open(path, &s, &v, NULL), 0);
	assert_int_equal(v, 2000);
	seqfile_destroy(s);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clean),
	    cmocka_unit_test(test_flip_resyncs),
	    cmocka_unit_test(test_torn_tail_is_silent),
	    cmocka_unit_test(test_damaged_tail_is_reported),
	    cmocka_unit_test(test_v0),
	    cmocka_unit_test(test_first_byte_zeroed),
	    cmocka_unit_test(test_forged_record_in_body),
	    cmocka_unit_test(test_seqfile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
