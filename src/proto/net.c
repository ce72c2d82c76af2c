#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

int net_connect_unix(const char *path, struct rota_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return errprintf(err, "socket path too long: %s", path), -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errprintf(err, "socket: %s", strerror(errno)), -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		errprintf(err, "connect %s: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = events};
	int rc;

	do
		rc = poll(&p, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		return -ETIMEDOUT;
	return rc < 0 ? -errno : 0;
}

static int connect_one(const struct addrinfo *ai, int timeout_ms)
{
	int fd, e, one = 1;
	socklen_t el = sizeof(e);

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
	            ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			e = -errno;
			goto fail;
		}
		if ((e = wait_fd(fd, POLLOUT, timeout_ms)) < 0)
			goto fail;
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
		if (e) {
			e = -e;
			goto fail;
		}
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
fail:
	close(fd);
	return e;
}

int net_connect_tcp(const char *host, uint16_t port, int timeout_ms,
                    struct rota_error *err)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	char portstr[16];
	int rc, fd = -EHOSTUNREACH;

	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc)
		return errprintf(err, "%s: %s", host, gai_strerror(rc)), -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next)
		if ((fd = connect_one(ai, timeout_ms)) >= 0)
			break;
	freeaddrinfo(res);
	if (fd < 0)
		errprintf(err, "connect %s:%u: %s", host, port, strerror(-fd));
	return fd;
}

int net_listen_tcp(const char *addr, uint16_t port, uint16_t *ret_port,
                   struct rota_error *err)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
	struct addrinfo *res;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char portstr[16];
	int fd, one = 1, rc;

	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(addr, portstr, &hints, &res);
	if (rc)
		return errprintf(err, "%s: %s", addr ? addr : "*", gai_strerror(rc)),
		       -EINVAL;
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 1024) < 0) {
		rc = -errno;
		errprintf(err, "listen on port %u: %s", port, strerror(errno));
		close(fd);
		goto out;
	}
	if (ret_port) {
		getsockname(fd, (struct sockaddr *)&ss, &sl);
		*ret_port = ntohs(ss.ss_family == AF_INET6
		                      ? ((struct sockaddr_in6 *)&ss)->sin6_port
		                      : ((struct sockaddr_in *)&ss)->sin_port);
	}
	rc = fd;
out:
	freeaddrinfo(res);
	return rc;
}

int net_listen_unix(const char *path, int mode, struct rota_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return errprintf(err, "socket path too long: %s", path), -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, mode) < 0 ||
	    listen(fd, 1024) < 0) {
		int e = errno;
		errprintf(err, "listen on %s: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

int net_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

int net_read_all(int fd, void *buf, size_t len, int timeout_ms)
{
	char *p = buf;
	long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;

	while (len > 0) {
		ssize_t n;
		if (timeout_ms >= 0) {
			long left = deadline - now_ms();
			int rc = wait_fd(fd, POLLIN, left > 0 ? (int)left : 0);
			if (rc < 0)
				return rc;
		}
		n = read(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= n;
	}
	return 0;
}

int net_send(int fd, uint16_t type, const void *body, struct rota_error *err)
{
	char *buf;
	size_t len;
	int rc = frame_pack(type, body, &buf, &len);

	if (rc < 0)
		return errprintf(err, "cannot encode %s", msg_name(type)), rc;
	rc = net_write_all(fd, buf, len);
	free(buf);
	if (rc < 0)
		errprintf(err, "send %s: %s", msg_name(type), strerror(-rc));
	return rc;
}

int net_recv(int fd, uint16_t *ret_type, void **ret_body, int timeout_ms,
             struct rota_error *err)
{
	return net_recv_max(fd, FRAME_MAX_BODY, ret_type, ret_body, timeout_ms, err);
}

int net_recv_max(int fd, uint32_t max_body, uint16_t *ret_type, void **ret_body,
                 int timeout_ms, struct rota_error *err)
{
	uint8_t hdr[FRAME_HDR_LEN];
	uint16_t type;
	uint32_t len;
	char *body;
	int rc;

	rc = net_read_all(fd, hdr, sizeof(hdr), timeout_ms);
	if (rc < 0) {
		if (rc == -ETIMEDOUT)
			errprintf(err, "timed out waiting for a reply");
		else if (rc == -ECONNRESET)
			errprintf(err, "connection closed by peer");
		else
			errprintf(err, "read: %s", strerror(-rc));
		return rc;
	}
	rc = frame_parse_header(hdr, &type, &len, err);
	if (rc < 0)
		return rc;
	if (len > max_body) {
		errprintf(err, "%s of %u bytes exceeds the %u byte limit", msg_name(type),
		          len, max_body);
		return -EMSGSIZE;
	}
	body = xmalloc(len ? len : 1);
	rc = net_read_all(fd, body, len, timeout_ms);
	if (rc < 0) {
		errprintf(err, "truncated %s frame", msg_name(type));
		free(body);
		return rc;
	}
	rc = frame_decode_body(type, body, len, ret_body, err);
	free(body);
	if (rc < 0)
		return -EPROTO;
	*ret_type = type;
	return 0;
}

int net_rpc(int fd, uint16_t type, const void *body, uint16_t *ret_type, void **ret_body,
            int timeout_ms, struct rota_error *err)
{
	int rc = net_send(fd, type, body, err);
	if (rc < 0)
		return rc;
	return net_recv(fd, ret_type, ret_body, timeout_ms, err);
}
