#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

char *client_ctld_socket_path(const struct conf *conf)
{
	return xasprintf("%s/rotactld.sock", conf->state_save_location);
}

char *client_dbd_socket_path(const struct conf *conf)
{
	return xasprintf("%s/rotadbd.sock", conf->state_save_location);
}

/* Answer the controller's challenge, then check its proof: nothing else is read
 * from fd before the proof checks. */
static int answer_challenge(int fd, struct auth *auth, const char *node_name,
                            const char *peer, struct rota_error *err)
{
	struct auth_response resp = {0};
	struct auth_challenge *ch = NULL;
	struct rota_error why = {""};
	uint16_t type = 0, ptype = 0;
	void *proof = NULL;
	int rc, silent = 0;

	/* the peer has not proved anything yet: no more than an unauthenticated
	 * peer may send the controller */
	rc = net_recv_max(fd, FRAME_MAX_UNAUTH, &type, (void **)&ch, 10000, err);
	if (rc < 0)
		return rc;
	if (type != MSG_AUTH_CHALLENGE) {
		rc = errprintf(err, "%s did not send a challenge", peer);
		goto out;
	}
	rc = auth_respond(auth, ch, node_name, &resp, err);
	if (rc == 0)
		rc = net_send(fd, MSG_AUTH_RESPONSE, &resp, err);
	if (rc < 0)
		goto out;
	rc = net_recv_max(fd, FRAME_MAX_UNAUTH, &ptype, &proof, 10000, &why);
	if (rc < 0) {
		/* not a refusal: a controller that does not answer (stopped,
		 * hung) is passed over for the next */
		errprintf(err, "no proof of identity from %s: %s", peer, why.text);
		silent = 1;
		goto out;
	}
	if (ptype != MSG_AUTH_PROOF) {
		rc = errprintf(err,
		               "%s failed to prove it is the controller: sent %s, "
		               "not a proof",
		               peer, msg_name(ptype));
		goto out;
	}
	if (auth_proof_check(auth, ch, &resp, proof, &why) < 0)
		rc = errprintf(err, "%s failed to prove it is the controller: %s", peer,
		               why.text);
out:
	codec_release(&auth_response_type, &resp);
	msg_body_free(type, ch);
	msg_body_free(ptype, proof);
	return rc >= 0 ? 0 : silent ? rc : -EACCES;
}

int client_connect(const struct conf *conf, struct auth *auth, const char *node_name,
                   int flags, struct rota_error *err)
{
	char *path = client_ctld_socket_path(conf);
	struct rota_error unix_err = {""};
	int fd = -1, unix_rc = 0;

	if (!(flags & CLIENT_TCP_ONLY)) {
		if (access(path, F_OK) == 0) {
			fd = unix_rc = net_connect_unix(path, &unix_err);
		} else if (errno != ENOENT) {
			unix_rc = -errno;
			errprintf(&unix_err, "connect %s: %s", path, strerror(-unix_rc));
		}
	}
	free(path);
	if (fd >= 0)
		return fd;
	/* The socket is there but out of reach (a 0700 StateSaveLocation, a 0600
	 * socket): that is the reason to give if TCP does not work either. */
	if (unix_rc != -EACCES && unix_rc != -EPERM)
		unix_rc = 0;
	if (!auth) {
		if (unix_rc)
			return errprintf(err, "%s", unix_err.text), unix_rc;
		return errprintf(err, "no way to authenticate to the controller"),
		       -ENOKEY;
	}
	/* the controllers in order: the primary, then its backups (the one
	 * that has taken over answers; one in standby refuses what it is
	 * asked, and the caller tries again) */
	fd = client_connect_from(conf, auth, node_name, 0, NULL, err);
	if (fd < 0 && unix_rc)
		return errprintf(err, "%s", unix_err.text), unix_rc;
	return fd;
}

int client_connect_to(const struct conf *conf, struct auth *auth, const char *node_name,
                      size_t idx, struct rota_error *err)
{
	return client_connect_host(auth, node_name, conf_ctld_addr(conf, idx),
	                           conf->slurmctld_port, err);
}

int client_connect_host(struct auth *auth, const char *node_name, const char *host,
                        uint16_t port, struct rota_error *err)
{
	char peer[300];
	int fd, rc;

	if (!auth)
		return errprintf(err, "no way to authenticate to the controller"),
		       -ENOKEY;
	fd = net_connect_tcp(host, port, 10000, err);
	if (fd < 0)
		return fd;
	snprintf(peer, sizeof(peer), "%s:%u", host, port);
	if ((rc = answer_challenge(fd, auth, node_name, peer, err)) < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int client_connect_from(const struct conf *conf, struct auth *auth, const char *node_name,
                        size_t first, size_t *ret_idx, struct rota_error *err)
{
	size_t n = conf_ctld_count(conf);
	int fd = -ENOTCONN;

	for (size_t k = 0; k < n; k++) {
		size_t i = (first + k) % n;
		fd = client_connect_to(conf, auth, node_name, i, err);
		if (fd >= 0 && ret_idx)
			*ret_idx = i;
		if (fd >= 0 || fd == -EACCES)
			break;
	}
	return fd;
}
