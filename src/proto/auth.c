#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <munge.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/conf.h"
#include "proto/auth.h"
#include "common/common.h"

#define NONCE_LEN 32
#define KEY_MAX   4096

struct auth {
	enum auth_method method;
	uint8_t *key;
	size_t keylen;
	char *munge_socket;
};

/* AuthInfo is a comma-separated list of name=value; return value of name. */
static char *auth_info_get(const char *info, const char *name)
{
	size_t nl = strlen(name);
	const char *p = info;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > nl && !strncmp(p, name, nl) && p[nl] == '=')
			return xstrndup(p + nl + 1, len - nl - 1);
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

char *auth_key_path(const struct conf *conf)
{
	char *path = auth_info_get(conf->auth_info, "key");
	char *dup, *dir;

	if (path)
		return path;
	dup = xstrdup(conf->path ? conf->path : "/etc/slurm/slurm.conf");
	dir = dirname(dup);
	path = xasprintf("%s/slurm.key", dir);
	free(dup);
	return path;
}

static int key_load(struct auth *auth, const char *path, struct rota_error *err)
{
	uint8_t buf[KEY_MAX];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errprintf(err, "cannot read key %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 16)
		return errprintf(err, "key %s is too short", path);
	auth->key = xmalloc(n);
	memcpy(auth->key, buf, n);
	auth->keylen = n;
	OPENSSL_cleanse(buf, sizeof(buf));
	return 0;
}

int auth_create(const struct conf *conf, int flags, struct auth **ret,
                struct rota_error *err)
{
	struct auth *auth = xcalloc(1, sizeof(*auth));
	char *path;

	if (conf->auth_type && !strcasecmp(conf->auth_type, "auth/munge")) {
		auth->method = AUTH_MUNGE;
		auth->munge_socket = auth_info_get(conf->auth_info, "socket");
	} else {
		auth->method = AUTH_HMAC;
		path = auth_key_path(conf);
		if (key_load(auth, path, err) < 0 && (flags & AUTH_NEED_KEY)) {
			free(path);
			auth_destroy(auth);
			return -EACCES;
		}
		free(path);
	}
	*ret = auth;
	return 0;
}

void auth_destroy(struct auth *auth)
{
	if (!auth)
		return;
	if (auth->key)
		OPENSSL_cleanse(auth->key, auth->keylen);
	free(auth->key);
	free(auth->munge_socket);
	free(auth);
}

enum auth_method auth_method(const struct auth *auth)
{
	return auth->method;
}

void auth_challenge_make(struct auth *auth, struct auth_challenge *ch)
{
	ch->nonce.data = xmalloc(NONCE_LEN);
	ch->nonce.len = NONCE_LEN;
	if (RAND_bytes(ch->nonce.data, NONCE_LEN) != 1)
		fatal("RAND_bytes failed");
	ch->method = xstrdup(auth->method == AUTH_MUNGE ? "auth/munge" : "auth/slurm");
}

int auth_hmac(const struct auth *auth, const void *data, size_t len, uint8_t out[32])
{
	unsigned int olen = 32;

	if (!auth->key)
		return -EACCES;
	if (!HMAC(EVP_sha256(), auth->key, (int)auth->keylen, data, len, out, &olen))
		return -EIO;
	return 0;
}

static void *payload_make(const struct auth_challenge *ch, const char *name, size_t *len)
{
	size_t nl = strlen(name);
	char *p = xmalloc(ch->nonce.len + nl);
	memcpy(p, ch->nonce.data, ch->nonce.len);
	memcpy(p + ch->nonce.len, name, nl);
	*len = ch->nonce.len + nl;
	return p;
}

static munge_ctx_t munge_ctx(struct auth *auth)
{
	munge_ctx_t ctx = munge_ctx_create();
	if (ctx && auth->munge_socket)
		munge_ctx_set(ctx, MUNGE_OPT_SOCKET, auth->munge_socket);
	return ctx;
}

int auth_respond(struct auth *auth, const struct auth_challenge *ch,
                 const char *node_name, struct auth_response *resp,
                 struct rota_error *err)
{
	size_t len;
	void *payload;
	int rc = 0;

	if (!node_name)
		node_name = "";
	if (ch->nonce.len != NONCE_LEN)
		return errprintf(err, "bad challenge");
	payload = payload_make(ch, node_name, &len);
	resp->node_name = xstrdup(node_name);
	if (auth->method == AUTH_MUNGE) {
		munge_ctx_t ctx = munge_ctx(auth);
		munge_err_t e = munge_encode(&resp->cred, ctx, payload, (int)len);
		if (e != EMUNGE_SUCCESS)
			rc = errprintf(err, "munge_encode: %s", munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
	} else {
		resp->mac.data = xmalloc(32);
		resp->mac.len = 32;
		if (auth_hmac(auth, payload, len, resp->mac.data) < 0)
			rc = errprintf(err, "no authentication key");
	}
	free(payload);
	return rc;
}

int auth_verify(struct auth *auth, const struct auth_challenge *ch,
                const struct auth_response *resp, uid_t *ret_uid, gid_t *ret_gid,
                struct rota_error *err)
{
	size_t len;
	void *payload = payload_make(ch, resp->node_name ? resp->node_name : "", &len);
	int rc = -1;

	if (auth->method == AUTH_MUNGE) {
		munge_ctx_t ctx = munge_ctx(auth);
		void *got = NULL;
		int glen = 0;
		uid_t uid;
		gid_t gid;
		munge_err_t e;

		if (!resp->cred) {
			errprintf(err, "no munge credential");
			munge_ctx_destroy(ctx);
			goto out;
		}
		e = munge_decode(resp->cred, ctx, &got, &glen, &uid, &gid);
		if (e != EMUNGE_SUCCESS)
			errprintf(err, "munge_decode: %s", munge_ctx_strerror(ctx));
		else if ((size_t)glen != len || memcmp(got, payload, len))
			errprintf(err, "munge payload does not match the challenge");
		else {
			*ret_uid = uid;
			*ret_gid = gid;
			rc = 0;
		}
		free(got);
		munge_ctx_destroy(ctx);
	} else {
		uint8_t mac[32];
		if (auth_hmac(auth, payload, len, mac) < 0)
			errprintf(err, "no authentication key");
		else if (resp->mac.len != 32 || CRYPTO_memcmp(mac, resp->mac.data, 32))
			errprintf(err, "bad signature");
		else {
			*ret_uid = 0;
			*ret_gid = 0;
			rc = 0;
		}
	}
out:
	free(payload);
	return rc;
}

int auth_key_generate(const char *path, struct rota_error *err)
{
	uint8_t key[64];
	int fd, rc = 0;

	if (RAND_bytes(key, sizeof(key)) != 1)
		return errprintf(err, "RAND_bytes failed");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errprintf(err, "create %s: %s", path, strerror(errno));
	if (write(fd, key, sizeof(key)) != (ssize_t)sizeof(key))
		rc = errprintf(err, "write %s: %s", path, strerror(errno));
	close(fd);
	OPENSSL_cleanse(key, sizeof(key));
	return rc;
}
