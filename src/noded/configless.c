#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/strv.h"
#include "common/states.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/conf_files.h"
#include "proto/net.h"
#include "noded/configless.h"
#include "common/common.h"

#define DEFAULT_KEY "/etc/slurm/slurm.key"

/* The authentication to fetch with (see configless.h). */
static struct auth *boot_auth(struct configless *cl)
{
	struct rota_error err = {""};
	struct conf *bc = NULL;
	struct auth *auth = NULL;
	char *info = xstrdup(cl->auth_info), *text;
	const char *type = "auth/munge";

	cl->key_path = list_value(info, "key", 0);
	if (!cl->key_path && access(DEFAULT_KEY, F_OK) == 0) {
		char *more =
		    xasprintf("%s%skey=" DEFAULT_KEY, info ? info : "", info ? "," : "");
		free(info);
		info = more;
		cl->key_path = xstrdup(DEFAULT_KEY);
	}
	if (cl->key_path)
		type = "auth/slurm";
	text = xasprintf("AuthType=%s\n%s%s\n", type, info ? "AuthInfo=" : "",
	                 info ? info : "");
	if (conf_load_string(text, "--authinfo", &bc, &err) < 0 ||
	    auth_create(bc, AUTH_NEED_KEY, &auth, &err) < 0)
		fatal("--conf-server: authentication (%s): %s", type, err.text);
	conf_destroy(bc);
	free(text);
	free(info);
	return auth;
}

/* Ask one server.  0 with *ret filled; -EACCES when it refused (err says
 * why); another -errno when it could not be asked. */
static int fetch_one(struct auth *auth, const char *node_name,
                     const struct conf_server *s, struct conf_files **ret,
                     struct rota_error *err)
{
	uint16_t type = 0;
	void *body = NULL;
	int fd, rc;

	fd = client_connect_host(auth, node_name, s->host, s->port, err);
	if (fd < 0)
		return fd;
	rc = net_rpc(fd, MSG_CONF_FILES_REQ, &(struct empty_msg){0}, &type, &body, 30000,
	             err);
	close(fd);
	if (rc < 0)
		return rc;
	if (type == MSG_CONF_FILES_RESP) {
		*ret = body;
		return 0;
	}
	if (type == MSG_RC) {
		const struct rc_msg *m = body;
		errprintf(err, "%s", m->msg && *m->msg ? m->msg : slurm_strerror(m->rc));
		rc = -EACCES;
	} else {
		errprintf(err, "unexpected %s", msg_name(type));
		rc = -EPROTO;
	}
	msg_body_free(type, body);
	return rc;
}

/* Link conf_run_dir() to the cache, for the commands on this host. */
static void run_link(const struct configless *cl)
{
	struct rota_error err = {""};

	if (conf_files_link(conf_run_dir(), cl->cache_dir, &err) < 0)
		log_info("commands on this host will not find the configuration: %s",
		         err.text);
}

char *configless_fetch(struct configless *cl)
{
	struct rota_error err = {""};
	struct conf_server *s = NULL;
	struct conf_files *files = NULL;
	struct auth *auth = boot_auth(cl);
	char *path = xasprintf("%s/slurm.conf", cl->cache_dir);
	int n, i, rc = -ENOTCONN;

	n = conf_servers_parse(cl->servers, 6817, &s, &err);
	if (n < 0)
		fatal("--conf-server %s: %s", cl->servers, err.text);
	for (i = 0; i < n; i++) {
		rc = fetch_one(auth, cl->node_name, &s[i], &files, &err);
		if (rc == 0)
			break;
		if (rc == -EACCES)
			fatal("fetching the configuration from %s:%u refused: %s",
			      s[i].host, s[i].port, err.text);
		if (rc < 0)
			log_err("cannot fetch the configuration from %s:%u: %s",
			        s[i].host, s[i].port, err.text);
	}
	if (rc == 0) {
		if (conf_files_write(cl->cache_dir, files, &err) < 0)
			fatal("configuration cache: %s", err.text);
		conf_files_digest(files, cl->digest);
		log_info("configuration fetched from %s:%u: %u files in %s", s[i].host,
		         s[i].port, files->files_count, cl->cache_dir);
		msg_body_free(MSG_CONF_FILES_RESP, files);
	} else if (access(path, F_OK) == 0) {
		log_err("no configuration server answered: starting from the cache %s",
		        cl->cache_dir);
	} else {
		fatal("no configuration server answered and there is no cache in %s",
		      cl->cache_dir);
	}
	run_link(cl);
	conf_servers_free(s, (size_t)n);
	auth_destroy(auth);
	return path;
}

void configless_conf_fix(const struct configless *cl, struct conf *conf)
{
	char *old = conf->auth_info, *key = list_value(old, "key", 0);

	if (key || !cl->key_path) {
		free(key);
		return;
	}
	conf->auth_info =
	    xasprintf("%s%skey=%s", old ? old : "", old ? "," : "", cl->key_path);
	free(old);
}

int configless_refresh(struct configless *cl, const struct conf_files *files)
{
	struct rota_error err = {""};
	uint8_t digest[32];

	conf_files_digest(files, digest);
	if (!memcmp(digest, cl->digest, sizeof(digest))) {
		log_info("configuration from the controller: unchanged");
		return 0;
	}
	if (conf_files_write(cl->cache_dir, files, &err) < 0) {
		log_err("configuration from the controller not cached: %s", err.text);
		return -1;
	}
	log_info("configuration from the controller written to %s (%u files)",
	         cl->cache_dir, files->files_count);
	memcpy(cl->digest, digest, sizeof(digest));
	return 1;
}

void configless_release(struct configless *cl)
{
	free(cl->key_path);
	cl->key_path = NULL;
}
