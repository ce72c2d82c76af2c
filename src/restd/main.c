/* rotarestd - Slurm's REST API for a Rota cluster (restd.h).
 *
 *   rotarestd [-D] [-f slurm.conf] [-L logfile] [-U urlfile] [-v] LISTEN...
 *
 * LISTEN is unix:/path (any local user; the peer's uid is who asks) or
 * host:port (TCP; a JWT says who asks; port 0 picks one).  -U writes the
 * URLs listened on, one a line (rota up reads them).  Runs in the
 * foreground; SIGTERM or SIGINT stops it, SIGUSR2 reopens the log. */
#include <errno.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/util.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/fdlimit.h"
#include "common/jwt.h"
#include "common/sdnotify.h"
#include "proto/auth.h"
#include "proto/net.h"
#include "restd/restd.h"
#include "common/common.h"

#define LISTEN_MAX 8

static void usage(FILE *f)
{
	fprintf(f, "usage: rotarestd [-D] [-f slurm.conf] [-L logfile] [-U urlfile] [-v] "
	           "LISTEN...\n"
	           "  LISTEN  unix:/path (the peer's uid is the user) or host:port "
	           "(TCP: a JWT from scontrol token)\n");
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

	if (!strncmp(spec, "unix:", 5)) {
		fd = net_listen_unix(spec + 5, 0666, &err);
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
		*url =
		    xasprintf("http://%s:%u", *host ? host : "0.0.0.0", (unsigned)port);
	}
	evutil_make_socket_nonblocking(fd);
	if (!evhttp_accept_socket_with_handle(r->http, fd)) {
		log_err("%s: cannot serve HTTP on it", spec);
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
	char *urls[LISTEN_MAX], *key_path, *notify;
	int level = LOG_INFO, opt, n = 0;

	while ((opt = getopt(argc, argv, "f:L:U:vDh")) != -1) {
		switch (opt) {
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
	if (optind == argc || argc - optind > LISTEN_MAX) {
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
		if (jwt_key_load(key_path, &r.jwt_key, &r.jwt_keylen, &err) < 0)
			fatal("%s", err.text);
		free(key_path);
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
	evhttp_set_timeout(r.http, RESTD_TIMEOUT);
	evhttp_set_allowed_methods(r.http,
	                           EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_DELETE);
	evhttp_set_gencb(r.http, restd_route, &r);
	for (int i = optind; i < argc; i++) {
		if (listen_on(&r, argv[i], &urls[n]) < 0)
			return 1;
		n++;
	}
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
	restd_output_stop(&r);
	evhttp_free(r.http);
	event_free(sigterm);
	event_free(sigint);
	event_free(sigusr2);
	event_base_free(r.base);
	auth_destroy(r.auth);
	for (int i = optind; i < argc; i++)
		if (!strncmp(argv[i], "unix:", 5))
			unlink(argv[i] + 5);
	if (urlfile)
		unlink(urlfile);
	for (int i = 0; i < n; i++)
		free(urls[i]);
	if (r.jwt_key)
		explicit_bzero(r.jwt_key, r.jwt_keylen);
	free(r.jwt_key);
	free(notify);
	conf_destroy(conf);
	return 0;
}
