#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/acct_client.h"
#include "cli/cli.h"
#include "common/conf.h"
#include "common/states.h"
#include "proto/client.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define ACCT_TIMEOUT_MS 60000

/* Connect to rotadbd and send (type, body); -1 after an error was printed. */
static int acct_send(uint16_t type, const void *body)
{
	struct conf *conf = cli_conf();
	struct rota_error err = {""};
	char *path;
	int fd;

	if (!conf_accounting(conf)) {
		cli_error("Slurm accounting storage is disabled");
		return -1;
	}
	path = client_dbd_socket_path(conf);
	fd = net_connect_unix(path, &err);
	free(path);
	if (fd < 0) {
		cli_error("Problem talking to the database: %s", strerror(-fd));
		return -1;
	}
	if (net_send(fd, type, body, &err) < 0) {
		cli_error("Problem talking to the database: %s", err.text);
		close(fd);
		return -1;
	}
	return fd;
}

/* An answer that is MSG_RC: print its words; 1 if it was one. */
static int acct_refused(uint16_t type, void *body)
{
	const char *msg = NULL;
	int r;

	if (type != MSG_RC)
		return 0;
	r = cli_rc(type, body, &msg);
	cli_error("%s", msg && *msg ? msg : slurm_strerror(r));
	return 1;
}

/* One request, one answer of type want: 0 and *ret, or 1 after an error
 * was printed.  want MSG_RC: an rc of 0 is the answer, another the error. */
static int acct_ask(uint16_t type_out, const void *q, uint16_t want, void **ret)
{
	struct rota_error err = {""};
	uint16_t type = 0;
	void *body = NULL;
	int fd = acct_send(type_out, q);

	if (fd < 0)
		return 1;
	if (net_recv(fd, &type, &body, ACCT_TIMEOUT_MS, &err) < 0) {
		cli_error("Problem talking to the database: %s", err.text);
		close(fd);
		return 1;
	}
	close(fd);
	if (want == MSG_RC && type == MSG_RC && !((struct rc_msg *)body)->rc) {
		*ret = body;
		return 0;
	}
	if (acct_refused(type, body) || type != want) {
		if (type != MSG_RC)
			cli_error("Problem talking to the database: unexpected answer");
		msg_body_free(type, body);
		return 1;
	}
	*ret = body;
	return 0;
}

int acct_report(const struct acct_report_req *q, struct acct_report_resp **ret)
{
	return acct_ask(MSG_ACCT_REPORT_REQ, q, MSG_ACCT_REPORT_RESP, (void **)ret);
}

int acct_job_modify(const struct acct_job_modify *q, struct assoc_update_resp **ret)
{
	return acct_ask(MSG_ACCT_JOB_MODIFY, q, MSG_ACCT_JOB_MODIFY_RESP, (void **)ret);
}

int acct_dbd_config(struct config_resp **ret)
{
	struct empty_msg none = {0};

	return acct_ask(MSG_DBD_CONFIG_REQ, &none, MSG_DBD_CONFIG_RESP, (void **)ret);
}

int acct_dbd_diag(struct dbd_diag **ret)
{
	struct empty_msg none = {0};

	return acct_ask(MSG_DBD_DIAG_REQ, &none, MSG_DBD_DIAG_RESP, (void **)ret);
}

int acct_dbd_clear_stats(void)
{
	struct empty_msg none = {0};
	void *body = NULL;

	if (acct_ask(MSG_DBD_STATS_CLEAR, &none, MSG_RC, &body))
		return 1;
	msg_body_free(MSG_RC, body);
	return 0;
}

int acct_fetch(const struct acct_query *q, const struct acct_fetch_cb *cb)
{
	struct rota_error err = {""};
	int fd = acct_send(MSG_ACCT_QUERY, q), rc = 0;
	uint32_t more = 1;

	if (fd < 0)
		return 1;
	if (cb->connected)
		cb->connected(cb->arg);
	while (more) {
		uint16_t type = 0;
		void *body = NULL;
		if (net_recv(fd, &type, &body, ACCT_TIMEOUT_MS, &err) < 0) {
			cli_error("Problem talking to the database: %s", err.text);
			rc = 1;
			break;
		}
		if (acct_refused(type, body)) {
			msg_body_free(type, body);
			rc = 1;
			break;
		}
		if (type != MSG_ACCT_JOBS) {
			msg_body_free(type, body);
			cli_error("Problem talking to the database: unexpected answer");
			rc = 1;
			break;
		}
		struct acct_jobs *r = body;
		for (uint32_t i = 0; i < r->jobs_count; i++)
			cb->job(cb->arg, &r->jobs[i]);
		more = r->more;
		msg_body_free(type, body);
	}
	close(fd);
	return rc;
}
