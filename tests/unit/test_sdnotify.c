/* test_sdnotify.c - the sd_notify datagrams reach the socket $NOTIFY_SOCKET
 * names, a file or an abstract name, and nothing is sent without one. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/sdnotify.h"

/* A datagram socket bound to name (a path, or '@' abstract); its fd. */
static int bind_dgram(const char *name)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(name);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path, name, n);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	else
		len++;
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, len), 0);
	return fd;
}

static void recv_expect(int fd, const char *want)
{
	char buf[256];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void test_path_socket(void **state)
{
	char dir[] = "/tmp/rota-test-sdnotify-XXXXXX", path[64], *name;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = bind_dgram(path);
	setenv("NOTIFY_SOCKET", path, 1);
	name = sdnotify_take();
	assert_non_null(name);
	assert_string_equal(name, path);
	/* taken: the programs the daemon starts do not see it */
	assert_null(getenv("NOTIFY_SOCKET"));
	assert_int_equal(sdnotify_send(name, "READY=1"), 1);
	recv_expect(fd, "READY=1");
	assert_int_equal(sdnotify_send(name, "STOPPING=1"), 1);
	recv_expect(fd, "STOPPING=1");
	free(name);
	close(fd);
	unlink(path);
	rmdir(dir);
}

static void test_abstract_socket(void **state)
{
	char name[64], buf[256];
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "@rota-test-sdnotify-%d", (int)getpid());
	fd = bind_dgram(name);
	assert_int_equal(sdnotify_send(name, "READY=1"), 1);
	recv_expect(fd, "READY=1");
	assert_int_equal(sdnotify_reloading(name), 1);
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_true(strncmp(buf, "RELOADING=1\nMONOTONIC_USEC=", 27) == 0);
	assert_true(strtoull(buf + 27, NULL, 10) > 0);
	close(fd);
}

static void test_no_manager(void **state)
{
	unsetenv("NOTIFY_SOCKET");
	assert_null(sdnotify_take());
	setenv("NOTIFY_SOCKET", "", 1);
	assert_null(sdnotify_take());
	assert_int_equal(sdnotify_send(NULL, "READY=1"), 0);
}

static void test_bad_names(void **state)
{
	char longname[200];

	assert_int_equal(sdnotify_send("relative/sock", "READY=1"), -EINVAL);
	assert_int_equal(sdnotify_send("@", "READY=1"), -EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(sdnotify_send(longname, "READY=1"), -EINVAL);
	/* nobody listening: the send's error, not a hang */
	assert_true(sdnotify_send("/nonexistent-rota-dir/notify", "READY=1") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_socket),
	    cmocka_unit_test(test_abstract_socket),
	    cmocka_unit_test(test_no_manager),
	    cmocka_unit_test(test_bad_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
