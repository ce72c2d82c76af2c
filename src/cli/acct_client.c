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

int acct_fetch(const struct acct_query *q, const struct acct_fetch_cb *cb)
{
	struct conf *conf = cli_conf();
	struct rota_error err = {""};
	char *path;
	int fd, rc = 0;
	uint32_t more = 1;

	if (!conf_accounting(conf)) {
		cli_error("Slurm accounting storage is disabled");
		return 1;
	}
	path = client_dbd_socket_path(conf);
	fd = net_connect_unix(path, &err);
	free(path);
	if (fd < 0) {
		cli_error("Problem talking to the database: %s", strerror(-fd));
		return 1;
	}
	if (net_send(fd, MSG_ACCT_QUERY, q, &err) < 0) {
		cli_error("Problem talking to the database: %s", err.text);
		close(fd);
		return 1;
	}
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
		if (type == MSG_RC) {
			const char *msg = NULL;
			int r = cli_rc(type, body, &msg);
			cli_error("%s", msg && *msg ? msg : slurm_strerror(r));
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
