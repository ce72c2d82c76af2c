#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "common/billing.h"
#include "common/conf.h"
#include "common/states.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "proto/yamlw.h"
#include "common/common.h"

#define CLI_RPC_TIMEOUT_MS 60000

void cli_error(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	/* one write: a reader (expect) sees the whole line or none of it */
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: error: %s\n", cli_prog, buf);
}

/* The exit code SLURM_EXIT_ERROR (or _IMMEDIATE) names, read as Slurm does
 * (its leading number); 0 would say success: refused, 1 then. */
static int exit_code_from(const char *name)
{
	const char *v = getenv(name);
	long n;

	if (!v)
		return 1;
	if ((n = strtol(v, NULL, 10)) == 0) {
		cli_error("%s has zero value", name);
		return 1;
	}
	return (int)(n & 0xff);
}

void cli_user_msg(const void *body)
{
	const struct user_msg *um = body;

	fprintf(stderr, "%s: %s\n", cli_prog, um && um->message ? um->message : "");
}

int cli_exit_error(void)
{
	return exit_code_from("SLURM_EXIT_ERROR");
}

int cli_exit_immediate(void)
{
	return exit_code_from("SLURM_EXIT_IMMEDIATE");
}

char **cli_env_argv(const char *argv0, const struct cli_env_opt *t, size_t n,
                    int *ret_argc)
{
	char **v = xcalloc(n + 2, sizeof(*v));
	int c = 0;

	v[c++] = xstrdup(argv0);
	for (size_t i = 0; i < n; i++) {
		const char *val = getenv(t[i].var);
		if (!val || (!t[i].flag && !*val)) /* a flag: set whatever its value */
			continue;
		v[c++] = t[i].flag ? xasprintf("--%s", t[i].opt)
		                   : xasprintf("--%s=%s", t[i].opt, val);
	}
	*ret_argc = c;
	return v;
}

void cli_env_argv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void cli_clusters_check(const char *names, int isenv)
{
	const char *self = cli_conf()->cluster_name;
	char *copy, *save = NULL;

	if (!names || !strcasecmp(names, "all"))
		return;
	copy = xstrdup(names);
	for (char *n = strtok_r(copy, ",", &save); n; n = strtok_r(NULL, ",", &save))
		if (!self || strcasecmp(n, self)) { /* Slurm's names are lowercase */
			cli_error(
			    "'%s' can't be reached now, or it is an invalid entry for "
			    "%s.  Use 'sacctmgr list clusters' to see available "
			    "clusters.",
			    names, isenv ? "SLURM_CLUSTERS" : "--cluster");
			exit(1);
		}
	free(copy);
}

struct conf *cli_conf(void)
{
	static struct conf *conf;
	struct rota_error err = {""};

	if (conf)
		return conf;
	if (conf_load(conf_default_path(), &conf, &err) < 0) {
		cli_error("%s", err.text);
		exit(1);
	}
	return conf;
}

uint32_t cli_billing(const char *partition, uint32_t cpus, uint64_t mem_mb,
                     uint32_t nodes)
{
	return conf_billing(cli_conf(), partition, cpus, mem_mb, nodes);
}

void cli_print_doc(json_t *doc, int as)
{
	char *text = as == CLI_DOC_YAML
	                 ? yaml_dumps(doc)
	                 : json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	if (!text)
		fatal("out of memory");
	fputs(text, stdout);
	if (as != CLI_DOC_YAML)
		putchar('\n');
	free(text);
}

void cli_connect_why(int rc, const struct rota_error *err)
{
	static int said;

	if ((rc == -EACCES || rc == -EPERM) && err->text[0] && !said) {
		said = 1;
		cli_error("%s", err->text);
	}
}

int cli_try_connect(void)
{
	struct conf *conf = cli_conf();
	struct rota_error err = {""};
	struct auth *auth = NULL;
	int fd;

	auth_create(conf, 0, &auth, NULL);
	fd = client_connect(conf, auth, NULL, 0, &err);
	auth_destroy(auth);
	if (fd < 0) {
		log_debug("%s", err.text);
		cli_connect_why(fd, &err);
		return -1;
	}
	return fd;
}

int cli_connect(void)
{
	int fd = cli_try_connect();

	if (fd < 0) {
		cli_error("%s", slurm_strerror(SLURM_COMMUNICATIONS_CONNECTION_ERROR));
		exit(1);
	}
	return fd;
}

void cli_rpc(uint16_t type, const void *body, uint16_t *ret_type, void **ret_body)
{
	struct rota_error err = {""};
	int fd = cli_connect();

	if (net_rpc(fd, type, body, ret_type, ret_body, CLI_RPC_TIMEOUT_MS, &err) < 0) {
		cli_error("%s (%s)",
		          slurm_strerror(SLURM_COMMUNICATIONS_CONNECTION_ERROR),
		          err.text);
		exit(1);
	}
	close(fd);
	call_if_standby(type, body, ret_type, ret_body, CLI_RPC_TIMEOUT_MS);
}

int cli_rc(uint16_t type, const void *body, const char **ret_msg)
{
	const struct rc_msg *rc = body;

	if (type != MSG_RC)
		return 0;
	if (ret_msg && rc->rc && rc->detail && *rc->detail)
		cli_error("%s", rc->detail); /* said before the refusal, as Slurm does */
	if (ret_msg)
		*ret_msg = rc->msg ? rc->msg : slurm_strerror(rc->rc);
	return rc->rc;
}

long cli_parse_long(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0)
		return -1;
	return v;
}
