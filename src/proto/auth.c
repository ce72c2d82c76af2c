#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/entropy.h"
#include "common/sha256.h"
#include "common/uid.h"
#include "proto/auth.h"
#include "proto/munge_dl.h"
#include "common/common.h"

#define NONCE_LEN 32
#define KEY_MAX   4096
#define MAC_LEN   32

/* Labels that keep the three uses of the key apart: a node's answer to a
 * challenge (the key itself, nonce || name), the controller's proof and a job
 * credential (keys derived from these labels; MUNGE payloads start with them),
 * so that no signature made for one can pass for another. */
#define PROOF_LABEL "rota controller proof v1\n"
#define CRED_LABEL  "rota job credential v1\n"

struct auth {
	enum auth_method method;
	uint8_t *key;
	size_t keylen;
	/* Derived on first use: a command that only talks over the local socket
	 * never needs them. */
	bool derived;
	uint8_t proof_key[MAC_LEN]; /* HMAC(key, PROOF_LABEL) */
	uint8_t cred_key[MAC_LEN];  /* HMAC(key, CRED_LABEL) */
	char *munge_socket;
	char *slurm_user; /* SlurmUser: may sign as the controller (MUNGE) */
	bool slurm_uid_known;
	uid_t slurm_uid; /* resolved on first use, not by every command */
	int cred_lifetime;
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
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

/* The proof and credential keys, derived from the shared key on first use. */
static int keys_derive(struct auth *auth)
{
	if (auth->derived)
		return 0;
	if (auth_hmac(auth, PROOF_LABEL, strlen(PROOF_LABEL), auth->proof_key) < 0 ||
	    auth_hmac(auth, CRED_LABEL, strlen(CRED_LABEL), auth->cred_key) < 0)
		return -EIO;
	auth->derived = true;
	return 0;
}

static uid_t slurm_uid(struct auth *auth)
{
	if (!auth->slurm_uid_known) {
		if (name_to_uid(auth->slurm_user, &auth->slurm_uid) < 0)
			auth->slurm_uid = 0;
		auth->slurm_uid_known = true;
	}
	return auth->slurm_uid;
}

/* AuthInfo cred_expire=N (seconds), as Slurm's. */
static int cred_lifetime_parse(const struct conf *conf, int *ret, struct rota_error *err)
{
	char *v = auth_info_get(conf->auth_info, "cred_expire"), *end;
	long n;

	*ret = AUTH_CRED_EXPIRE_DEFAULT;
	if (!v)
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > 86400) {
		errprintf(err, "AuthInfo: invalid cred_expire=%s (1 to 86400 seconds)",
		          v);
		free(v);
		return -EINVAL;
	}
	free(v);
	*ret = (int)n;
	return 0;
}

int auth_create(const struct conf *conf, int flags, struct auth **ret,
                struct rota_error *err)
{
	struct auth *auth = xcalloc(1, sizeof(*auth));
	char *path;

	if (cred_lifetime_parse(conf, &auth->cred_lifetime, err) < 0) {
		auth_destroy(auth);
		return -EINVAL;
	}
	auth->slurm_user = xstrdup(conf->slurm_user ? conf->slurm_user : "root");
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
		explicit_bzero(auth->key, auth->keylen);
	explicit_bzero(auth->proof_key, sizeof(auth->proof_key));
	explicit_bzero(auth->cred_key, sizeof(auth->cred_key));
	free(auth->key);
	free(auth->munge_socket);
	free(auth->slurm_user);
	free(auth);
}

enum auth_method auth_method(const struct auth *auth)
{
	return auth->method;
}

int auth_cred_lifetime(const struct auth *auth)
{
	return auth->cred_lifetime;
}

static void nonce_make(struct rota_bin *b)
{
	b->data = xmalloc(NONCE_LEN);
	b->len = NONCE_LEN;
	if (entropy_fill(b->data, NONCE_LEN) < 0)
		fatal("getrandom failed");
}

void auth_challenge_make(struct auth *auth, struct auth_challenge *ch)
{
	nonce_make(&ch->nonce);
	ch->method = xstrdup(auth->method == AUTH_MUNGE ? "auth/munge" : "auth/slurm");
}

int auth_hmac(const struct auth *auth, const void *data, size_t len, uint8_t out[32])
{
	if (!auth->key)
		return -EACCES;
	hmac_sha256(auth->key, auth->keylen, data, len, out);
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

static munge_ctx_t munge_ctx(const struct munge_lib *m, struct auth *auth)
{
	munge_ctx_t ctx = m->ctx_create();
	if (ctx && auth->munge_socket)
		m->ctx_set(ctx, MUNGE_OPT_SOCKET, auth->munge_socket);
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
	nonce_make(&resp->nonce);
	if (auth->method == AUTH_MUNGE) {
		const struct munge_lib *m = munge_lib(err);
		munge_ctx_t ctx;
		munge_err_t e;

		if (!m) {
			free(payload);
			return -1;
		}
		ctx = munge_ctx(m, auth);
		e = m->encode(&resp->cred, ctx, payload, (int)len);
		if (e != EMUNGE_SUCCESS)
			rc = errprintf(err, "munge_encode: %s", m->ctx_strerror(ctx));
		m->ctx_destroy(ctx);
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
		const struct munge_lib *m;
		munge_ctx_t ctx;
		void *got = NULL;
		int glen = 0;
		uid_t uid;
		gid_t gid;
		munge_err_t e;

		if (!resp->cred) {
			errprintf(err, "no munge credential");
			goto out;
		}
		if (!(m = munge_lib(err)))
			goto out;
		ctx = munge_ctx(m, auth);
		e = m->decode(resp->cred, ctx, &got, &glen, &uid, &gid);
		if (e != EMUNGE_SUCCESS)
			errprintf(err, "munge_decode: %s", m->ctx_strerror(ctx));
		else if ((size_t)glen != len || memcmp(got, payload, len))
			errprintf(err, "munge payload does not match the challenge");
		else {
			*ret_uid = uid;
			*ret_gid = gid;
			rc = 0;
		}
		free(got);
		m->ctx_destroy(ctx);
	} else {
		uint8_t mac[32];
		if (auth_hmac(auth, payload, len, mac) < 0)
			errprintf(err, "no authentication key");
		else if (resp->mac.len != 32 || !ct_equal(mac, resp->mac.data, 32))
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

	if (entropy_fill(key, sizeof(key)) < 0)
		return errprintf(err, "getrandom failed");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errprintf(err, "create %s: %s", path, strerror(errno));
	if (write(fd, key, sizeof(key)) != (ssize_t)sizeof(key))
		rc = errprintf(err, "write %s: %s", path, strerror(errno));
	close(fd);
	explicit_bzero(key, sizeof(key));
	return rc;
}

/* ---- the controller's signatures: proofs and job credentials ---- */

static int hmac_with(const uint8_t key[MAC_LEN], const void *data, size_t len,
                     uint8_t out[MAC_LEN])
{
	hmac_sha256(key, MAC_LEN, data, len, out);
	return 0;
}

/* label || data, for MUNGE payloads.  Caller frees. */
static void *labelled(const char *label, const void *data, size_t len, size_t *ret_len)
{
	size_t ll = strlen(label);
	char *p = xmalloc(ll + len);

	memcpy(p, label, ll);
	memcpy(p + ll, data, len);
	*ret_len = ll + len;
	return p;
}

/* Sign data as the controller: an HMAC with the key derived for label (into
 * *mac), or a MUNGE credential with payload label || data (into *cred). */
static int ctld_sign(struct auth *auth, const uint8_t key[MAC_LEN], const char *label,
                     const void *data, size_t len, struct rota_bin *mac, char **cred,
                     struct rota_error *err)
{
	if (auth->method == AUTH_MUNGE) {
		const struct munge_lib *m = munge_lib(err);
		size_t plen;
		void *payload;
		munge_ctx_t ctx;
		munge_err_t e;
		int rc = 0;

		if (!m)
			return -1;
		payload = labelled(label, data, len, &plen);
		ctx = munge_ctx(m, auth);
		e = m->encode(cred, ctx, payload, (int)plen);
		if (e != EMUNGE_SUCCESS)
			rc = errprintf(err, "munge_encode: %s", m->ctx_strerror(ctx));
		m->ctx_destroy(ctx);
		free(payload);
		return rc;
	}
	if (!auth->key)
		return errprintf(err, "no authentication key");
	if (keys_derive(auth) < 0)
		return errprintf(err, "cannot derive keys");
	mac->data = xmalloc(MAC_LEN);
	mac->len = MAC_LEN;
	if (hmac_with(key, data, len, mac->data) < 0)
		return errprintf(err, "HMAC failed");
	return 0;
}

/* Check a signature made by ctld_sign().  A MUNGE credential must come from
 * root, SlurmUser or our own uid (a cluster started by a user). */
static int ctld_check(struct auth *auth, const uint8_t key[MAC_LEN], const char *label,
                      const void *data, size_t len, const uint8_t *mac, size_t maclen,
                      const char *cred, int flags, struct rota_error *err)
{
	if (auth->method == AUTH_MUNGE) {
		const struct munge_lib *m;
		size_t plen;
		void *payload, *got = NULL;
		int glen = 0, rc = -1;
		uid_t uid = (uid_t)-1;
		gid_t gid;
		munge_ctx_t ctx;
		munge_err_t e;

		if (!cred || !cred[0])
			return errprintf(err, "no munge credential");
		if (!(m = munge_lib(err)))
			return -1;
		payload = labelled(label, data, len, &plen);
		ctx = munge_ctx(m, auth);
		e = m->decode(cred, ctx, &got, &glen, &uid, &gid);
		if (e == EMUNGE_CRED_REPLAYED && (flags & AUTH_CHECK_REPLAY_OK))
			e = EMUNGE_SUCCESS;
		if (e == EMUNGE_CRED_REPLAYED)
			errprintf(err, "replayed (munge)");
		else if (e == EMUNGE_CRED_EXPIRED)
			errprintf(err, "expired (munge)");
		else if (e != EMUNGE_SUCCESS)
			errprintf(err, "munge_decode: %s", m->ctx_strerror(ctx));
		else if (uid != 0 && uid != slurm_uid(auth) && uid != getuid())
			errprintf(err, "signed by uid %u, not root or SlurmUser",
			          (unsigned)uid);
		else if ((size_t)glen != plen || memcmp(got, payload, plen))
			errprintf(err, "bad signature (munge payload does not match)");
		else
			rc = 0;
		free(got);
		free(payload);
		m->ctx_destroy(ctx);
		return rc;
	} else {
		uint8_t want[MAC_LEN];
		int rc = 0;

		if (!auth->key)
			return errprintf(err, "no authentication key");
		if (keys_derive(auth) < 0)
			return errprintf(err, "cannot derive keys");
		if (hmac_with(key, data, len, want) < 0)
			rc = errprintf(err, "HMAC failed");
		else if (maclen != MAC_LEN || !ct_equal(want, mac, MAC_LEN))
			rc = errprintf(err, "bad signature");
		explicit_bzero(want, sizeof(want));
		return rc;
	}
}

/* What the proof covers: both nonces and the name the peer gave. */
static void *proof_payload(const struct auth_challenge *ch,
                           const struct auth_response *resp, size_t *ret_len)
{
	const char *name = resp->node_name ? resp->node_name : "";
	size_t nl = strlen(name), len = resp->nonce.len + ch->nonce.len + nl;
	char *p = xmalloc(len ? len : 1);

	memcpy(p, resp->nonce.data, resp->nonce.len);
	memcpy(p + resp->nonce.len, ch->nonce.data, ch->nonce.len);
	memcpy(p + resp->nonce.len + ch->nonce.len, name, nl);
	*ret_len = len;
	return p;
}

int auth_proof_make(struct auth *auth, const struct auth_challenge *ch,
                    const struct auth_response *resp, struct auth_proof *proof,
                    struct rota_error *err)
{
	size_t len;
	void *payload;
	int rc;

	if (resp->nonce.len != NONCE_LEN)
		return errprintf(err, "no nonce for the controller to sign");
	payload = proof_payload(ch, resp, &len);
	rc = ctld_sign(auth, auth->proof_key, PROOF_LABEL, payload, len, &proof->mac,
	               &proof->cred, err);
	free(payload);
	return rc;
}

int auth_proof_check(struct auth *auth, const struct auth_challenge *ch,
                     const struct auth_response *resp, const struct auth_proof *proof,
                     struct rota_error *err)
{
	size_t len;
	void *payload;
	int rc;

	if (resp->nonce.len != NONCE_LEN || ch->nonce.len != NONCE_LEN)
		return errprintf(err, "bad challenge");
	payload = proof_payload(ch, resp, &len);
	rc = ctld_check(auth, auth->proof_key, PROOF_LABEL, payload, len, proof->mac.data,
	                proof->mac.len, proof->cred, 0, err);
	free(payload);
	return rc;
}

int auth_cred_sign(struct auth *auth, const void *data, size_t len,
                   struct rota_bin *ret_sig, struct rota_error *err)
{
	uint8_t digest[MAC_LEN];
	struct rota_bin mac = {0};
	char *cred = NULL;

	if (auth->method != AUTH_MUNGE)
		return ctld_sign(auth, auth->cred_key, CRED_LABEL, data, len, ret_sig,
		                 NULL, err);
	/* MUNGE carries the digest, not the whole launch */
	sha256(data, len, digest);
	if (ctld_sign(auth, NULL, CRED_LABEL, digest, sizeof(digest), &mac, &cred, err) <
	    0)
		return -1;
	ret_sig->data = (uint8_t *)cred;
	ret_sig->len = (uint32_t)strlen(cred);
	return 0;
}

int auth_cred_check(struct auth *auth, const void *data, size_t len,
                    const struct rota_bin *sig, int flags, struct rota_error *err)
{
	uint8_t digest[MAC_LEN];
	char *cred;
	int rc;

	if (auth->method != AUTH_MUNGE)
		return ctld_check(auth, auth->cred_key, CRED_LABEL, data, len, sig->data,
		                  sig->len, NULL, flags, err);
	if (!sig->len || sig->len > CODEC_MAX_STR || memchr(sig->data, '\0', sig->len))
		return errprintf(err, "no munge credential");
	sha256(data, len, digest);
	cred = xstrndup((const char *)sig->data, sig->len);
	rc = ctld_check(auth, NULL, CRED_LABEL, digest, sizeof(digest), NULL, 0, cred,
	                flags, err);
	free(cred);
	return rc;
}
