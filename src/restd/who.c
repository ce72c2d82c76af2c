/* who.c - who a REST request is from: the peer's uid on the unix socket (as
 * slurmrestd's rest_auth/local), else the user a JWT in X-SLURM-USER-TOKEN
 * names (rest_auth/jwt: HS256 under jwt_key, or RS256 under a JWKS key; the
 * user in "sun" or AuthAltParameters' userclaimfield).  A token of root or SlurmUser may
 * name another user in X-SLURM-USER-NAME; anyone else's token is for its own user only.
 */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/jwt.h"
#include "restd/restd.h"
#include "common/common.h"

static int peer_cred(struct restd *r, struct evhttp_request *req, struct ucred *cred)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss), clen = sizeof(*cred);
	int fd = bev ? (int)bufferevent_getfd(bev) : -1;

	if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
	    ss.ss_family != AF_UNIX ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &clen) < 0)
		return -1;
	/* inetd mode: rotarestd's own connection carries stdin's client */
	if (r->inetd && cred->pid == getpid()) {
		if (!r->inetd_local)
			return -1;
		*cred = r->inetd_cred;
	}
	return 0;
}

static int set_user(struct rest_user *u, const struct passwd *pw)
{
	if (strlen(pw->pw_name) >= sizeof(u->name))
		return -1;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	return 0;
}

static int is_admin_name(const struct restd *r, const char *name)
{
	return !strcmp(name, "root") ||
	       (r->conf->slurm_user && !strcmp(name, r->conf->slurm_user));
}

/* The token's signature: HS256 under jwt_key, or RS256 under a key of the
 * JWKS. */
static int signed_by_us(struct restd *r, const char *token, const struct jwt_parts *p,
                        struct rota_error *err)
{
	if (!strcmp(p->alg, "RS256")) {
		if (!r->jwks)
			return errprintf(err, "RS256 tokens are not accepted: "
			                      "AuthAltParameters has no jwks");
		return restd_jwks_check(r, token, p, err);
	}
	if (!r->jwt_key)
		return errprintf(err, "HS256 tokens are not accepted: no jwt_key");
	return jwt_check_hs256(r->jwt_key, r->jwt_keylen, token, p, err);
}

static int by_token(struct restd *r, const char *token, const char *name,
                    struct rest_user *u, const char **why)
{
	static char text[ROTA_ERROR_TEXT + 32];
	struct rota_error err = {""};
	struct jwt_parts p;
	struct passwd *pw;
	char *sun = NULL;
	int rc;

	if (!r->jwt_key && !r->jwks) {
		*why = "tokens are not accepted: AuthAltTypes=auth/jwt is not configured";
		return 401;
	}
	rc = jwt_parse(token, &p, &err);
	if (rc == 0 && (rc = signed_by_us(r, token, &p, &err)) == 0)
		rc = jwt_claims_user(&p, time(NULL), r->user_claim, &sun, &err);
	jwt_parts_free(&p);
	if (rc < 0) {
		snprintf(text, sizeof(text), "authentication failed: %s", err.text);
		*why = text;
		return 401;
	}
	if (name && *name && strcmp(name, sun) && !is_admin_name(r, sun)) {
		free(sun);
		*why = "the token is not for the user in X-SLURM-USER-NAME";
		return 401;
	}
	pw = getpwnam(name && *name ? name : sun);
	free(sun);
	if (!pw || set_user(u, pw) < 0) {
		*why = "the user is not known on this host";
		return 401;
	}
	return 0;
}

int restd_who(struct restd *r, struct evhttp_request *req, struct rest_user *u,
              const char **why)
{
	struct evkeyvalq *h = evhttp_request_get_input_headers(req);
	const char *token = evhttp_find_header(h, "X-SLURM-USER-TOKEN");
	const char *name = evhttp_find_header(h, "X-SLURM-USER-NAME");
	const char *bearer = evhttp_find_header(h, "Authorization");
	struct ucred cred;
	struct passwd *pw;

	/* Prometheus and most HTTP clients send a token this way */
	if (!token && bearer && !strncasecmp(bearer, "Bearer ", 7))
		token = bearer + 7;
	if (token)
		return by_token(r, token, name, u, why);
	if (peer_cred(r, req, &cred) < 0) {
		*why = "authentication required: X-SLURM-USER-TOKEN (scontrol token)";
		return 401;
	}
	memset(u, 0, sizeof(*u));
	u->uid = cred.uid;
	u->gid = cred.gid;
	pw = getpwuid(cred.uid);
	if (pw && strlen(pw->pw_name) < sizeof(u->name))
		snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	else
		snprintf(u->name, sizeof(u->name), "%u", (unsigned)cred.uid);
	return 0;
}
