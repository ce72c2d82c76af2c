/* token.c - scontrol token: a JWT for the caller, or for another user when
 * an admin asks (Slurm's REQUEST_AUTH_TOKEN), signed with AuthAltParameters'
 * jwt_key.  The key is read for each request: tokens are rare, and a key an
 * admin replaced is used at once. */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/conf.h"
#include "common/jwt.h"
#include "common/states.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/token.h"
#include "common/common.h"

#define TOKEN_LIFESPAN_DEFAULT 1800 /* seconds, as Slurm's */

void token_request(struct ctld *ctld, struct caller *who, const struct token_req *req,
                   struct chan *ch)
{
	struct rota_error err = {""};
	struct token_resp r = {0};
	char *path = conf_jwt_key_path(ctld->conf), *user;
	uint32_t life = req->lifespan ? req->lifespan : TOKEN_LIFESPAN_DEFAULT;
	struct passwd *pw;
	uint8_t *key = NULL;
	size_t keylen = 0;
	time_t now = time(NULL);

	if (!path) {
		chan_send_rc(ch, -ESLURM_NOT_SUPPORTED,
		             "AuthAltTypes=auth/jwt is not configured");
		return;
	}
	if (life > JWT_LIFESPAN_MAX) {
		chan_send_rc(ch, -ESLURM_INVALID_ARGUMENT, "lifespan is over a year");
		goto out;
	}
	if (req->username && *req->username) {
		if (!(pw = getpwnam(req->username))) {
			chan_send_rc(ch, -ESLURM_INVALID_ARGUMENT, "Invalid user name");
			goto out;
		}
		if (pw->pw_uid != who->uid && !caller_is_admin(who)) {
			chan_send_rc(
			    ch, -ESLURM_ACCESS_DENIED,
			    "only root or SlurmUser may get a token for another user");
			goto out;
		}
	} else if (!(pw = getpwuid(who->uid))) {
		chan_send_rc(ch, -ESLURM_INVALID_ARGUMENT, "Invalid user id");
		goto out;
	}
	user = xstrdup(pw->pw_name);
	if (jwt_key_load(path, &key, &keylen, &err) < 0) {
		log_err("scontrol token: %s", err.text);
		chan_send_rc(ch, -ESLURM_NOT_SUPPORTED, err.text);
		free(user);
		goto out;
	}
	r.token = jwt_sign(key, keylen, user, now, now + (time_t)life);
	chan_send(ch, MSG_TOKEN_RESP, &r);
	free(r.token);
	free(user);
	explicit_bzero(key, keylen);
	free(key);
out:
	free(path);
}
