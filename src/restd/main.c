/* rotarestd - Slurm's REST API for a Rota cluster (restd.h).
 *
 *   rotarestd [-D] [-c conns] [-f slurm.conf] [-L logfile] [-S secs]
 *             [-T secs] [-U urlfile] [-v] [LISTEN...]
 *
 * LISTEN is unix:/path (any local user; the peer's uid is who asks) or
 * host:port (TCP; a JWT says who asks; port 0 picks one).  With none, the
 * listeners systemd passes (LISTEN_FDS), else a listening socket on stdin,
 * else inetd mode: one client on stdin and stdout (inetd.c).  -U writes
 * the URLs listened on, one a line (rota up reads them).  Runs in the
 * foreground; SIGTERM or SIGINT stops it, SIGUSR2 reopens the log. */
#include <errno.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/util.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/fdlimit.h"
#include "common/jwt.h"
#include "common/sdnotify.h"
#include "common/strv.h"
#include "proto/auth.h"
#include "proto/net.h"
#include "restd/restd.h"
#include "common/common.h"

#define SD_LISTEN_FDS_START 3

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: rotarestd [-D] [-c conns] [-f slurm.conf] [-L logfile] "
	        "[-S secs] [-T secs] [-U urlfile] [-v] [LISTEN...]\n"
	        "  LISTEN  unix:/path (the peer's uid is the user), host:port "
	        "(TCP: a JWT from scontrol token) or https://host:port\n"
	        "          none: systemd's sockets, or one client on stdin/stdout "
	        "(inetd mode)\n"
	        "  -c      clients served at a time (%d)\n"
	        "  -S      seconds between the history's samples (%d)\n"
	        "  -T      seconds a client has to send a request (%d)\n",
	        RESTD_MAX_CONNS, RESTD_HISTORY_STEP, RESTD_TIMEOUT);
}

static int serve_fd(struct restd *r, int fd, const char *what)
{
	struct evhttp_bound_socket *b;

	if (r->nbound == RESTD_MAX_LISTEN) {
		log_err("%s: more than %d listeners", what, RESTD_MAX_LISTEN);
		return -1;
	}
	evutil_make_socket_nonblocking(fd);
	b = evhttp_accept_socket_with_handle(r->http, fd);
	if (!b) {
		log_err("%s: cannot serve HTTP on it", what);
		return -1;
	}
	r->bound[r->nbound++] = b;
	return 0;
}

/* A listening socket's URL (malloc'd), for the log and -U. */
static char *fd_url(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[64] = "?";
	uint16_t port = 0;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return xstrdup("fd");
	if (ss.ss_family == AF_UNIX)
		return xasprintf("unix:%s", ((struct sockaddr_un *)&ss)->sun_path);
	if (ss.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host,
		          sizeof(host));
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	} else if (ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host,
		          sizeof(host));
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	return xasprintf("http://%s:%u", host, (unsigned)port);
}

static int is_listening(int fd)
{
	int on = 0;
	socklen_t len = sizeof(on);

	return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on;
}

/* No LISTEN: systemd's sockets (LISTEN_FDS for this pid), a listener on
 * stdin, or inetd mode.  The number of URLs put in urls. */
static int listen_given(struct restd *r, char **urls)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	long count = fds ? strtol(fds, NULL, 10) : 0;
	int n = 0;

	if (pid && fds && strtol(pid, NULL, 10) == (long)getpid() && count > 0) {
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_FDNAMES");
		for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + count;
		     fd++) {
			if (n == RESTD_MAX_LISTEN || serve_fd(r, fd, "LISTEN_FDS") < 0)
				return -1;
			urls[n++] = fd_url(fd);
		}
		return n;
	}
	if (is_listening(0)) {
		if (serve_fd(r, 0, "stdin") < 0)
			return -1;
		urls[0] = fd_url(0);
		return 1;
	}
	return restd_inetd(r) < 0 ? -1 : 0;
}

static void stop_cb(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopexit(arg, NULL);
}

static void reopen_cb(evutil_socket_t sig, short what, void *arg)
{
	if (log_reopen() < 0)
		log_err("SIGUSR2: cannot reopen the log file");
	else
		log_info("SIGUSR2: log file reopened");
}

/* Listen on spec; its URL (malloc'd) in *url.  -1 after logging why. */
static int listen_on(struct restd *r, const char *spec, char **url)
{
	struct rota_error err = {""};
	char host[256];
	const char *colon;
	uint16_t port = 0;
	char *end;
	unsigned long p;
	int fd;

	int https = !strncmp(spec, "https://", 8);

	if (https)
		spec += 8;
	else if (!strncmp(spec, "http://", 7))
		spec += 7;
	if (!strncmp(spec, "unix:", 5)) {
		/* unix:/path and Slurm's unix:///path */
		const char *path = !strncmp(spec, "unix://", 7) ? spec + 7 : spec + 5;
		if (https) {
			log_err("https://unix: TLS is told apart on unix sockets; "
			        "give unix:%s",
			        path);
			return -1;
		}
		fd = net_listen_unix(path, 0666, &err);
		if (fd < 0) {
			log_err("%s", err.text);
			return -1;
		}
		*url = xstrdup(spec);
	} else {
		colon = strrchr(spec, ':');
		if (!colon || (size_t)(colon - spec) >= sizeof(host)) {
			log_err("%s: not unix:/path or host:port", spec);
			return -1;
		}
		p = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end || p > 65535) {
			log_err("%s: not a port number", spec);
			return -1;
		}
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
		fd = net_listen_tcp(*host ? host : NULL, (uint16_t)p, &port, &err);
		if (fd < 0) {
			log_err("%s: %s", spec, err.text);
			return -1;
		}
		*url = xasprintf("%s://%s:%u", https ? "https" : "http",
		                 *host ? host : "0.0.0.0", (unsigned)port);
		if (https)
			r->https_ports[r->nhttps++] = port;
	}
	if (serve_fd(r, fd, spec) < 0) {
		close(fd);
		free(*url);
		return -1;
	}
	return 0;
}

static int write_urls(const char *path, char **urls, int n)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "we");
	int rc = 0;

	if (!f) {
		free(tmp);
		return -1;
	}
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\n", urls[i]);
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		rc = -1;
	free(tmp);
	return rc;
}

int main(int argc, char **argv)
{
	const char *conf_path = NULL, *logfile = NULL, *urlfile = NULL;
	struct rota_error err = {""};
	struct conf *conf = NULL;
	struct restd r = {0};
	struct event *sigterm, *sigint, *sigusr2;
	char *urls[RESTD_MAX_LISTEN], *key_path, *notify, *end;
	int level = LOG_INFO, opt, n = 0, https = 0;
	unsigned history_step = RESTD_HISTORY_STEP;
	unsigned long v;

	r.max_conns = RESTD_MAX_CONNS;
	r.timeout = RESTD_TIMEOUT;
	while ((opt = getopt(argc, argv, "c:f:L:S:T:U:vDh")) != -1) {
		switch (opt) {
		case 'c':
		case 'S':
		case 'T':
			v = strtoul(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 65536) {
				fprintf(stderr,
				        "rotarestd: -%c %s: expected 1 to 65536\n", opt,
				        optarg);
				return 1;
			}
			if (opt == 'c')
				r.max_conns = (unsigned)v;
			else if (opt == 'S')
				history_step = (unsigned)v;
			else
				r.timeout = (unsigned)v;
			break;
		case 'f':
			conf_path = optarg;
			break;
		case 'L':
			logfile = optarg;
			break;
		case 'U':
			urlfile = optarg;
			break;
		case 'v':
			level = LOG_DEBUG;
			break;
		case 'D': /* always in the foreground */
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (argc - optind > RESTD_MAX_LISTEN) {
		usage(stderr);
		return 1;
	}
	log_init("rotarestd", level, NULL);
	notify = sdnotify_take();
	if (conf_load(conf_path ? conf_path : conf_default_path(), &conf, &err) < 0)
		fatal("%s", err.text);
	if (logfile && log_init("rotarestd", level, logfile) < 0)
		fatal("cannot open log file %s", logfile);
	signal(SIGPIPE, SIG_IGN);
	if (fdlimit_raise() < 0)
		log_err("cannot raise the open files limit");
	r.conf = conf;
	if ((key_path = conf_jwt_key_path(conf))) {
		/* a user's own rotarestd on stdin may not read the key: it
		 * serves that user alone, without tokens */
		if (jwt_key_load(key_path, &r.jwt_key, &r.jwt_keylen, &err) < 0 &&
		    !(optind == argc && !getenv("LISTEN_FDS") && !is_listening(0) &&
		      geteuid() != 0))
			fatal("%s", err.text);
		free(key_path);
	}
	if (list_has(conf->auth_alt_types, "auth/jwt", 1)) {
		char *jwks = list_value(conf->auth_alt_params, "jwks", 1);
		if (jwks && restd_jwks_load(&r, jwks, &err) < 0)
			fatal("%s", err.text);
		free(jwks);
		r.user_claim = list_value(conf->auth_alt_params, "userclaimfield", 1);
	}
	/* a controller on another host is reached over TCP, answering its
	 * challenge with the cluster's key */
	if (auth_create(conf, 0, &r.auth, &err) < 0)
		fatal("%s", err.text);
	r.base = event_base_new();
	r.http = r.base ? evhttp_new(r.base) : NULL;
	if (!r.http)
		fatal("cannot create the event loop");
	evhttp_set_max_body_size(r.http, RESTD_MAX_BODY);
	evhttp_set_max_headers_size(r.http, RESTD_MAX_HEADERS);
	evhttp_set_timeout(r.http, (int)r.timeout);
	/* every method reaches restd_route, which refuses what it does not
	 * serve (evhttp's own refusal would close the connection) */
	evhttp_set_allowed_methods(r.http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
	                                       EVHTTP_REQ_DELETE | EVHTTP_REQ_PUT |
	                                       EVHTTP_REQ_PATCH | EVHTTP_REQ_HEAD |
	                                       EVHTTP_REQ_OPTIONS);
	evhttp_set_gencb(r.http, restd_route, &r);
	restd_conns_init(&r);
	for (int i = optind; i < argc; i++)
		https |= !strncmp(argv[i], "https://", 8);
	if (restd_tls_init(&r, https, &err) < 0)
		fatal("%s", err.text);
	for (int i = optind; i < argc; i++) {
		if (listen_on(&r, argv[i], &urls[n]) < 0)
			return 1;
		n++;
	}
	if (optind == argc && (n = listen_given(&r, urls)) < 0)
		return 1;
	if (!r.inetd)
		restd_history_init(&r, history_step);
	if (urlfile && write_urls(urlfile, urls, n) < 0)
		fatal("cannot write %s", urlfile);
	sigterm = evsignal_new(r.base, SIGTERM, stop_cb, r.base);
	sigint = evsignal_new(r.base, SIGINT, stop_cb, r.base);
	sigusr2 = evsignal_new(r.base, SIGUSR2, reopen_cb, NULL);
	event_add(sigterm, NULL);
	event_add(sigint, NULL);
	event_add(sigusr2, NULL);
	for (int i = 0; i < n; i++)
		log_info("serving %s", urls[i]);
	sdnotify_send(notify, "READY=1");
	event_base_dispatch(r.base);
	sdnotify_send(notify, "STOPPING=1");

	log_info("rotarestd stopping");
	relay_stop_all(&r);
	restd_history_stop(&r);
	restd_slurmdb_stop(&r);
	restd_output_stop(&r);
	restd_inetd_stop(&r);
	restd_conns_stop(&r);
	evhttp_free(r.http);
	restd_tls_stop(&r);
	event_free(sigterm);
	event_free(sigint);
	event_free(sigusr2);
	event_base_free(r.base);
	auth_destroy(r.auth);
	/* the sockets made here (not systemd's) */
	for (int i = optind; i < argc; i++) {
		const char *a = argv[i] + (!strncmp(argv[i], "http://", 7) ? 7 : 0);
		if (!strncmp(a, "unix:", 5))
			unlink(a + (!strncmp(a, "unix://", 7) ? 7 : 5));
	}
	if (urlfile)
		unlink(urlfile);
	for (int i = 0; i < n; i++)
		free(urls[i]);
	if (r.jwt_key)
		explicit_bzero(r.jwt_key, r.jwt_keylen);
	free(r.jwt_key);
	restd_jwks_free(&r);
	free(r.user_claim);
	free(notify);
	conf_destroy(conf);
	return 0;
}
