/* main.c - rotadbd: options, slurmdbd.conf, the loop.
 *
 * rotadbd reads slurm.conf (the controllers to follow, the key to
 * authenticate with, StateSaveLocation) and, when there is one beside it,
 * slurmdbd.conf:
 *   StorageType  accounting_storage/sqlite (the default) or
 *                accounting_storage/pgsql (PostgreSQL; libpq.so.5 is loaded
 *                at run time); anything else (mysql) is refused at start
 *   StorageLoc   sqlite: the file (default <StateSaveLocation>/rota_acct.db);
 *                pgsql: the database (default slurm_acct_db, created when
 *                missing if the user may create databases)
 *   StorageHost, StoragePort, StorageUser, StoragePass  pgsql: the server
 *                (default localhost:5432; a host starting with / is the
 *                directory of its unix socket, as in libpq), the role and its
 *                password (default: libpq's, e.g. ~/.pgpass, PGUSER)
 *   LogFile
 * A PostgreSQL that does not answer yet is waited for (logged once, tried
 * every 3 s): rotadbd may start before it, as slurmdbd does with its MySQL.
 * A server that answers but refuses (a wrong password, no right to create
 * the database) stops rotadbd with the server's reason.  Keys it does not
 * use are accepted, as slurmdbd's own.  What it runs with is sent to
 * sacctmgr show config (settings.h). */
#include <errno.h>
#include <event2/event.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/fdlimit.h"
#include "common/sdnotify.h"
#include "dbd/dbd.h"
#include "dbd/report.h"
#include "dbd/report_cache.h"
#include "dbd/settings.h"
#include "dbd/stats.h"
#include "dbd/store.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/messages.h"
#include "common/common.h"

static void usage(void)
{
	fprintf(stderr, "usage: rotadbd [-D] [-v] [-f slurm.conf] [-c slurmdbd.conf] "
	                "[-L logfile]\n");
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* KEY=VALUE lines, '#' comments.  A missing file is no error. */
static int dbd_conf_load(const char *path, struct dbd_conf *dc, int must_exist)
{
	FILE *f = fopen(path, "re");
	char line[4096];
	int lineno = 0;

	if (!f) {
		if (!must_exist && errno == ENOENT)
			return 0;
		log_err("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *eq, *key, *val, **slot = NULL;
		lineno++;
		if (hash)
			*hash = '\0';
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			log_warn("%s:%d: not KEY=VALUE: ignored", path, lineno);
			continue;
		}
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		if (!strcasecmp(key, "StorageType"))
			slot = &dc->storage_type;
		else if (!strcasecmp(key, "StorageLoc"))
			slot = &dc->storage_loc;
		else if (!strcasecmp(key, "StorageHost"))
			slot = &dc->storage_host;
		else if (!strcasecmp(key, "StoragePort"))
			slot = &dc->storage_port;
		else if (!strcasecmp(key, "StorageUser"))
			slot = &dc->storage_user;
		else if (!strcasecmp(key, "StoragePass"))
			slot = &dc->storage_pass;
		else if (!strcasecmp(key, "LogFile"))
			slot = &dc->log_file;
		if (slot) {
			free(*slot);
			*slot = xstrdup(val);
		}
	}
	fclose(f);
	return 0;
}

static int is_sqlite(const char *type)
{
	return !type || !strcasecmp(type, "accounting_storage/sqlite");
}

/* The store slurmdbd.conf names; loc: StorageLoc or its default. */
static int store_open_conf(const struct dbd_conf *dc, const char *loc,
                           const struct conf *conf, struct store **ret,
                           struct rota_error *err)
{
	struct store_conf sc = {
	    .type = dc->storage_type,
	    .host = dc->storage_host,
	    .user = dc->storage_user,
	    .pass = dc->storage_pass,
	    .loc = loc,
	    .extern_steps = conf_prolog_contain(conf),
	};

	if (dc->storage_port) {
		char *end;
		unsigned long port = strtoul(dc->storage_port, &end, 10);
		if (end == dc->storage_port || *end || !port || port > 65535)
			return errprintf(err, "StoragePort=%s: not a port number",
			                 dc->storage_port);
		sc.port = (unsigned)port;
	}
	return store_open(&sc, ret, err);
}

static void stop_cb(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopexit(arg, NULL);
}

/* SIGUSR2: reopen the log file (logrotate). */
static void reopen_cb(evutil_socket_t sig, short what, void *arg)
{
	if (log_reopen() < 0)
		log_err("SIGUSR2: cannot reopen the log file");
	else
		log_info("SIGUSR2: log file reopened");
}

int main(int argc, char **argv)
{
	const char *conf_path = NULL, *dbd_conf_path = NULL, *logfile = NULL;
	struct conf *conf = NULL;
	struct dbd_conf dc = {0};
	struct rota_error err = {""};
	struct dbd d = {.listen_fd = -1};
	struct event *sigterm, *sigint, *sigusr2;
	char *own_dbd_conf = NULL, *notify;
	int level = LOG_INFO, opt;

	while ((opt = getopt(argc, argv, "f:c:L:vDh")) != -1) {
		switch (opt) {
		case 'f':
			conf_path = optarg;
			break;
		case 'c':
			dbd_conf_path = optarg;
			break;
		case 'L':
			logfile = optarg;
			break;
		case 'v':
			level = LOG_DEBUG;
			break;
		case 'D':
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 1;
		}
	}
	log_init("rotadbd", level, NULL);
	notify = sdnotify_take(); /* common/sdnotify.h */
	if (!conf_path)
		conf_path = conf_default_path();
	if (conf_load(conf_path, &conf, &err) < 0)
		fatal("%s", err.text);
	if (!dbd_conf_path) {
		char *copy = xstrdup(conf_path);
		own_dbd_conf = xasprintf("%s/slurmdbd.conf", dirname(copy));
		free(copy);
	}
	if (dbd_conf_load(dbd_conf_path ? dbd_conf_path : own_dbd_conf, &dc,
	                  dbd_conf_path != NULL) < 0)
		return 1;
	if (!logfile)
		logfile = dc.log_file;
	if (logfile && log_init("rotadbd", level, logfile) < 0)
		fatal("cannot open log file %s", logfile);
	signal(SIGPIPE, SIG_IGN);
	if (fdlimit_raise() < 0) /* sacct clients and the feed */
		log_err("cannot raise the open files limit");
	d.conf = conf;
	d.storage_loc = dc.storage_loc ? xstrdup(dc.storage_loc)
	                : is_sqlite(dc.storage_type)
	                    ? xasprintf("%s/rota_acct.db", conf->state_save_location)
	                    : NULL;
	d.sock_path = client_dbd_socket_path(conf);
	mkdir(conf->state_save_location, 0755);
	if (store_open_conf(&dc, d.storage_loc, conf, &d.store, &err) < 0)
		fatal("%s", err.text);
	if (auth_create(conf, AUTH_NEED_KEY, &d.auth, &err) < 0)
		fatal("%s", err.text);
	d.report = report_cache_create();
	d.stats = dbd_stats_create(time(NULL));
	d.settings = dbd_settings_create(&(struct dbd_settings_src){
	    .conf = conf,
	    .dc = &dc,
	    .dbd_conf_path = dbd_conf_path ? dbd_conf_path : own_dbd_conf,
	    .storage_loc = d.storage_loc,
	    .log_file = logfile,
	    .sock_path = d.sock_path,
	    .log_level = level,
	    .boot = time(NULL),
	});
	d.base = event_base_new();
	if (!d.base)
		fatal("cannot create the event loop");
	if (dbd_query_listen(&d) < 0)
		return 1;
	sigterm = evsignal_new(d.base, SIGTERM, stop_cb, d.base);
	sigint = evsignal_new(d.base, SIGINT, stop_cb, d.base);
	sigusr2 = evsignal_new(d.base, SIGUSR2, reopen_cb, NULL);
	event_add(sigterm, NULL);
	event_add(sigint, NULL);
	event_add(sigusr2, NULL);
	log_info("rotadbd started: store %s %s (events to %llu stored), sacct on %s",
	         dc.storage_type ? dc.storage_type : "accounting_storage/sqlite",
	         d.storage_loc ? d.storage_loc : "slurm_acct_db",
	         (unsigned long long)store_last_seq(d.store), d.sock_path);
	dbd_feed_start(&d);
	dbd_report_start(&d);
	sdnotify_send(notify, "READY=1");
	event_base_dispatch(d.base);
	sdnotify_send(notify, "STOPPING=1");

	log_info("rotadbd stopping: events to %llu stored",
	         (unsigned long long)store_last_seq(d.store));
	dbd_feed_stop(&d);
	dbd_query_stop(&d);
	dbd_report_stop(&d);
	event_free(sigterm);
	event_free(sigint);
	event_free(sigusr2);
	report_cache_destroy(d.report);
	dbd_stats_destroy(d.stats);
	msg_body_free(MSG_DBD_CONFIG_RESP, d.settings);
	store_close(d.store);
	auth_destroy(d.auth);
	event_base_free(d.base);
	free(d.storage_loc);
	free(d.sock_path);
	free(dc.storage_type);
	free(dc.storage_loc);
	free(dc.storage_host);
	free(dc.storage_port);
	free(dc.storage_user);
	free(dc.storage_pass);
	free(dc.log_file);
	free(own_dbd_conf);
	free(notify);
	conf_destroy(conf);
	return 0;
}
