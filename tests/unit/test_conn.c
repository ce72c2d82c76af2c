/* test_conn.c - conn_write_now puts queued output on the wire at once. */
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
#include "proto/conn.h"
#include "proto/messages.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_now),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
