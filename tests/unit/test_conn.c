/* test_conn.c - conn_write_now puts queued output on the wire at once; frames
 * over their type's limit, the shared input budget, deadlines. */
#include <sys/socket.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include "proto/conn.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "common/states.h"

static void on_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
}

static void on_close(struct conn *c, void *arg)
{
}

static void test_write_now(void **state)
{
	struct event_base *base = event_base_new();
	char buf[256];
	int sv[2];
	struct conn *c;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	c = conn_create(base, sv[0], "test", on_msg, on_close, NULL);
	assert_non_null(c);
	assert_int_equal(conn_send_rc(c, 2021, "gone"), 0);
	/* queued only: nothing is written before the loop turns */
	assert_int_equal(read(sv[1], buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);
	conn_write_now(c);
	assert_true(read(sv[1], buf, sizeof(buf)) > 0);
	conn_close(c);
	close(sv[1]);
	event_base_free(base);
}

struct seen {
	int msgs;
	uint16_t last_type;
	int timeouts;
};

static void count_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct seen *s = arg;
	s->msgs++;
	s->last_type = type;
}

static void count_timeout(struct conn *c, void *arg)
{
	struct seen *s = arg;
	s->timeouts++;
	conn_close(c);
}

static void put_header(uint8_t *h, uint16_t type, uint32_t len)
{
	uint32_t u32 = htonl(FRAME_MAGIC);
	uint16_t u16 = htons(PROTO_VERSION);

	memcpy(h, &u32, 4);
	memcpy(h + 4, &u16, 2);
	u16 = htons(type);
	memcpy(h + 6, &u16, 2);
	u32 = htonl(len);
	memcpy(h + 8, &u32, 4);
}

static void spin(struct event_base *base, int turns)
{
	for (int i = 0; i < turns; i++)
		event_base_loop(base, EVLOOP_NONBLOCK);
}

/* Write all of buf to a non-blocking fd, turning the loop while it is full. */
static void push(struct event_base *base, int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else {
			assert_true(n < 0 && errno == EAGAIN);
			spin(base, 1);
		}
	}
}

/* A submission over its 8 MiB limit, from a peer with an identity: answered
 * with ESLURM_PATHNAME_TOO_LONG at once, its body skipped as it comes. */
static void test_oversized_answered_and_skipped(void **state)
{
	struct event_base *base = event_base_new();
	struct seen seen = {0};
	size_t body = (9u << 20), junk_len = 1u << 16;
	char *junk = calloc(1, junk_len), reply[256];
	uint8_t hdr[FRAME_HDR_LEN], ping[FRAME_HDR_LEN + 1];
	int sv[2];
	ssize_t n;
	struct conn *c;

	assert_true(frame_max_body(MSG_SUBMIT_REQ) < body);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	c = conn_create(base, sv[0], "test", count_msg, on_close, &seen);
	put_header(hdr, MSG_SUBMIT_REQ, (uint32_t)body);
	push(base, sv[1], hdr, sizeof(hdr));
	spin(base, 3);
	n = read(sv[1], reply, sizeof(reply));
	assert_true(n > FRAME_HDR_LEN);
	assert_int_equal(reply[7], MSG_RC);
	assert_non_null(memmem(reply, (size_t)n, "\xa2rc\xcd\x07\xdc", 6));
	for (size_t sent = 0; sent < body; sent += junk_len)
		push(base, sv[1], junk, junk_len);
	put_header(ping, MSG_PING_REQ, 1);
	ping[FRAME_HDR_LEN] = (char)0x80;
	push(base, sv[1], ping, sizeof(ping));
	spin(base, 10);
	assert_int_equal(seen.msgs, 1);
	assert_int_equal(seen.last_type, MSG_PING_REQ);
	conn_close(c);
	close(sv[1]);
	free(junk);
	event_base_free(base);
}

/* Two 700 KiB frames under a 1 MiB budget: the second waits, reading
 * nothing, until the first is consumed; both arrive. */
static void test_budget_makes_frames_wait(void **state)
{
	struct event_base *base = event_base_new();
	struct conn_budget *b = conn_budget_create(1u << 20);
	struct seen seen[2] = {{0}};
	uint32_t len = 700u << 10, bin_len;
	char *frame = calloc(1, FRAME_HDR_LEN + len);
	int sv[2][2];
	struct conn *c[2];

	/* an io_data body: {"data": bin of len - 9 bytes} (map1, fixstr, bin32) */
	put_header((uint8_t *)frame, MSG_IO_DATA, len);
	memcpy(frame + FRAME_HDR_LEN,
	       "\x81\xa4"
	       "data\xc6",
	       7);
	bin_len = htonl(len - 11);
	memcpy(frame + FRAME_HDR_LEN + 7, &bin_len, 4);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
		fcntl(sv[i][1], F_SETFL, O_NONBLOCK);
		c[i] = conn_create(base, sv[i][0], "test", count_msg, on_close, &seen[i]);
		conn_set_budget(c[i], b);
		/* the header and a little of the body */
		assert_int_equal(write(sv[i][1], frame, 4096), 4096);
		spin(base, 3);
	}
	assert_int_equal(conn_budget_used(b), FRAME_HDR_LEN + len);
	/* the rest of both: the first completes, then the second gets its turn */
	for (int i = 0; i < 2; i++)
		push(base, sv[i][1], frame + 4096, FRAME_HDR_LEN + len - 4096);
	spin(base, 20);
	assert_int_equal(seen[0].msgs, 1);
	assert_int_equal(seen[1].msgs, 1);
	assert_int_equal(conn_budget_used(b), 0);
	conn_budget_unref(b);
	for (int i = 0; i < 2; i++) {
		conn_close(c[i]);
		close(sv[i][1]);
	}
	free(frame);
	event_base_free(base);
}

/* A deadline closes a silent peer; a cleared one does not fire. */
static void test_deadline(void **state)
{
	struct event_base *base = event_base_new();
	struct seen seen = {0}, kept = {0};
	int sv[2], sk[2];
	struct conn *c, *k;
	char byte;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sk), 0);
	c = conn_create(base, sv[0], "silent", count_msg, on_close, &seen);
	k = conn_create(base, sk[0], "kept", count_msg, on_close, &kept);
	conn_set_deadline(c, 0.05, count_timeout, &seen);
	conn_set_deadline(k, 0.05, count_timeout, &kept);
	conn_set_deadline(k, 0, NULL, NULL);
	usleep(100000);
	spin(base, 3);
	assert_int_equal(seen.timeouts, 1);
	assert_int_equal(kept.timeouts, 0);
	/* the silent peer's socket was closed */
	assert_int_equal(read(sv[1], &byte, 1), 0);
	conn_close(k);
	close(sv[1]);
	close(sk[1]);
	event_base_free(base);
}

static void reply_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct seen *s = arg;
	s->msgs++;
	conn_send_rc(c, 0, NULL);
}

/* Three pings at once from a peer whose replies may not wait (out_max 1): one
 * is served, then reading stops until its reply is written, by the loop or by
 * conn_write_now (which runs no write callback), then the next. */
static void test_unread_replies_pause_reading(void **state)
{
	struct event_base *base = event_base_new();
	struct seen s = {0};
	uint8_t pings[3][FRAME_HDR_LEN + 1];
	char buf[4096];
	int sv[2];
	struct conn *c;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	c = conn_create(base, sv[0], "test", reply_msg, on_close, &s);
	conn_set_out_max(c, 1);
	for (int i = 0; i < 3; i++) {
		put_header(pings[i], MSG_PING_REQ, 1);
		pings[i][FRAME_HDR_LEN] = 0x80; /* {} */
	}
	push(base, sv[1], pings, sizeof(pings));
	/* the first reply is queued: the rest waits, however often the loop
	 * turns before it is written */
	event_base_loop(base, EVLOOP_NONBLOCK | EVLOOP_ONCE);
	assert_int_equal(s.msgs, 1);
	/* written by conn_write_now: the second is served */
	conn_write_now(c);
	spin(base, 5);
	assert_true(s.msgs >= 2);
	/* written by the loop: the third */
	spin(base, 20);
	assert_int_equal(s.msgs, 3);
	assert_true(read(sv[1], buf, sizeof(buf)) > 0);
	conn_close(c);
	close(sv[1]);
	event_base_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_now),
	    cmocka_unit_test(test_oversized_answered_and_skipped),
	    cmocka_unit_test(test_budget_makes_frames_wait),
	    cmocka_unit_test(test_deadline),
	    cmocka_unit_test(test_unread_replies_pause_reading),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
