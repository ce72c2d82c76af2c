/* rest_load.c - requests per second and latency of one REST path: C client
 * processes, each a keep-alive HTTP/1.1 connection sending its share of N
 * GET requests one after another.  The same tool measures rotarestd and
 * Slurm's slurmrestd (bench/rest_bench.sh).
 *
 * Usage: rest_load [-c clients] [-n requests] [-t token] [-U user]
 *                  (-u unix_path | -a host:port) PATH
 * -U sends X-SLURM-USER-NAME with the token (slurmrestd 22.05's rest_auth/jwt
 * refuses a token without it).
 * Prints one line: requests, clients, req/s, p50/p99/max latency.  Exit 1
 * when a request fails (status other than 200). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int connect_to(const char *unix_path, const char *addr)
{
	int fd;

	if (unix_path) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", unix_path);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			return -1;
		return fd;
	} else {
		char host[256];
		const char *colon = strrchr(addr, ':');
		struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;

		if (!colon || (size_t)(colon - addr) >= sizeof(host))
			return -1;
		memcpy(host, addr, (size_t)(colon - addr));
		host[colon - addr] = '\0';
		if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
			return -1;
		fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			freeaddrinfo(ai);
			return -1;
		}
		freeaddrinfo(ai);
		return fd;
	}
}

/* One request and its whole answer; returns the status, the body's size in
 * *bytes, or -1. */
static int one(int fd, const char *req, size_t reqlen, size_t *bytes)
{
	static char buf[1 << 16];
	size_t have = 0, body = 0, want = 0;
	char *end = NULL, *cl;
	int status;

	if (write(fd, req, reqlen) != (ssize_t)reqlen)
		return -1;
	while (!end) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			return -1;
		have += (size_t)n;
		buf[have] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (!end && have == sizeof(buf) - 1)
			return -1;
	}
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
		return -1;
	cl = strcasestr(buf, "\r\nContent-Length:");
	if (!cl || cl > end)
		return -1;
	want = strtoul(cl + 17, NULL, 10);
	body = have - (size_t)(end + 4 - buf);
	while (body < want) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return -1;
		body += (size_t)n;
	}
	*bytes = want;
	return status;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *unix_path = NULL, *addr = NULL, *token = NULL, *user = NULL, *path;
	int clients = 1, n = 1000, opt, p[2], failed = 0;
	double *lat, t0, t1;
	size_t got = 0;
	char req[8192];

	while ((opt = getopt(argc, argv, "c:n:t:U:u:a:")) != -1) {
		switch (opt) {
		case 'c':
			clients = atoi(optarg);
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 't':
			token = optarg;
			break;
		case 'U':
			user = optarg;
			break;
		case 'u':
			unix_path = optarg;
			break;
		case 'a':
			addr = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || (!unix_path == !addr) || clients < 1 || n < clients) {
		fprintf(
		    stderr,
		    "usage: rest_load [-c clients] [-n requests] [-t token] [-U user] "
		    "(-u unix_path | -a host:port) PATH\n");
		return 2;
	}
	path = argv[optind];
	snprintf(req, sizeof(req),
	         "GET %s HTTP/1.1\r\nHost: localhost\r\n%s%s%s%s%s%s\r\n", path,
	         token ? "X-SLURM-USER-TOKEN: " : "", token ? token : "",
	         token ? "\r\n" : "", user ? "X-SLURM-USER-NAME: " : "", user ? user : "",
	         user ? "\r\n" : "");
	lat = calloc((size_t)n, sizeof(*lat));
	if (!lat || pipe(p) < 0)
		return 1;
	t0 = now_s();
	for (int c = 0; c < clients; c++) {
		if (fork() == 0) {
			int share = n / clients + (c < n % clients),
			    fd = connect_to(unix_path, addr);
			double *mine = calloc((size_t)share + 1, sizeof(*mine));
			size_t b = 0;

			close(p[0]);
			for (int i = 0; i < share; i++) {
				double s = now_s();
				if (!mine || fd < 0 ||
				    one(fd, req, strlen(req), &b) != 200)
					_exit(1);
				mine[i] = now_s() - s;
			}
			/* in writes of at most PIPE_BUF bytes: each arrives whole */
			for (int i = 0; i < share; i += 512) {
				int k = share - i < 512 ? share - i : 512;
				if (write(p[1], mine + i, sizeof(double) * (size_t)k) < 0)
					_exit(1);
			}
			_exit(0);
		}
	}
	close(p[1]);
	/* the latencies until every client has closed its end, then the clients */
	for (;;) {
		double d;
		ssize_t r = read(p[0], &d, sizeof(d));
		if (r != sizeof(d))
			break;
		if (got < (size_t)n)
			lat[got++] = d;
	}
	for (int c = 0; c < clients; c++) {
		int st;
		wait(&st);
		failed |= !WIFEXITED(st) || WEXITSTATUS(st);
	}
	t1 = now_s();
	if (failed || !got) {
		fprintf(stderr, "rest_load: %s: a request failed\n", path);
		return 1;
	}
	qsort(lat, got, sizeof(*lat), cmp);
	printf("%s: %d requests, %d clients: %.0f req/s, p50 %.2f ms, p99 %.2f ms, "
	       "max %.2f ms\n",
	       path, n, clients, n / (t1 - t0), lat[got / 2] * 1e3,
	       lat[(size_t)(got * 0.99)] * 1e3, lat[got - 1] * 1e3);
	return 0;
}
