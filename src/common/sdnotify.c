/* sdnotify.c - see sdnotify.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "common/sdnotify.h"

char *sdnotify_take(void)
{
	const char *env = getenv("NOTIFY_SOCKET");
	char *path = env && *env ? strdup(env) : NULL;

	unsetenv("NOTIFY_SOCKET");
	return path;
}

/* The address of path: a file name as it is, '@' an abstract name (its first
 * byte NUL and no terminating NUL counted, as systemd binds it). */
static int sdnotify_addr(const char *path, struct sockaddr_un *sa, socklen_t *ret_len)
{
	size_t n = strlen(path);

	if ((path[0] != '/' && path[0] != '@') || n < 2 || n > sizeof(sa->sun_path) ||
	    (path[0] == '/' && n == sizeof(sa->sun_path)))
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n);
	if (path[0] == '@') {
		sa->sun_path[0] = '\0';
		*ret_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else {
		*ret_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	}
	return 0;
}

int sdnotify_send(const char *path, const char *state)
{
	struct sockaddr_un sa;
	socklen_t len;
	ssize_t n;
	int fd, rc;

	if (!path)
		return 0;
	if ((rc = sdnotify_addr(path, &sa, &len)) < 0)
		return rc;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
	rc = n < 0 ? -errno : 1;
	close(fd);
	return rc;
}

int sdnotify_reloading(const char *path)
{
	struct timespec ts;
	char buf[64];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(buf, sizeof(buf), "RELOADING=1\nMONOTONIC_USEC=%llu",
	         (unsigned long long)ts.tv_sec * 1000000ULL +
	             (unsigned long long)ts.tv_nsec / 1000);
	return sdnotify_send(path, buf);
}
