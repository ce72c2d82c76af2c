/* jwks.c - RS256 tokens from an identity provider (restd.h), as Slurm's
 * auth/jwt with AuthAltParameters=jwks=PATH: the RSA keys of a JSON Web
 * Key Set file ("kty": "RSA", "n" and "e" in base64url; others listed
 * there are skipped), chosen by the token's "kid" (or, without one, any
 * that verifies), checked with OpenSSL. */
#include <jansson.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/jwt.h"
#include "restd/restd.h"
#include "common/common.h"

#define JWKS_MAX_KEYS 64
#define JWKS_MAX_SIZE (1 << 20)

struct jwks {
	struct {
		char kid[256];
		EVP_PKEY *pkey;
	} keys[JWKS_MAX_KEYS];
	int n;
};

static BIGNUM *b64_bn(json_t *v)
{
	const char *s = json_string_value(v);
	size_t len;
	uint8_t *bytes = s ? jwt_b64_decode(s, strlen(s), &len) : NULL;
	BIGNUM *bn = bytes && len ? BN_bin2bn(bytes, (int)len, NULL) : NULL;

	free(bytes);
	return bn;
}

static EVP_PKEY *rsa_key(json_t *k)
{
	BIGNUM *n = b64_bn(json_object_get(k, "n")), *e = b64_bn(json_object_get(k, "e"));
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
	EVP_PKEY *pkey = NULL;

	if (n && e && bld && ctx &&
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) &&
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) &&
	    (params = OSSL_PARAM_BLD_to_param(bld)) && EVP_PKEY_fromdata_init(ctx) == 1 &&
	    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1)
		pkey = NULL;
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EVP_PKEY_CTX_free(ctx);
	BN_free(n);
	BN_free(e);
	return pkey;
}

int restd_jwks_load(struct restd *r, const char *path, struct rota_error *err)
{
	json_error_t je;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je), *keys, *k;
	struct jwks *set;
	size_t i;

	if (!doc)
		return errprintf(err, "jwks %s: %s (line %d)", path, je.text, je.line);
	keys = json_object_get(doc, "keys");
	if (!json_is_array(keys)) {
		json_decref(doc);
		return errprintf(err, "jwks %s: no \"keys\" list", path);
	}
	set = xcalloc(1, sizeof(*set));
	json_array_foreach(keys, i, k)
	{
		const char *kty = json_string_value(json_object_get(k, "kty"));
		const char *alg = json_string_value(json_object_get(k, "alg"));
		const char *use = json_string_value(json_object_get(k, "use"));
		const char *kid = json_string_value(json_object_get(k, "kid"));
		EVP_PKEY *pkey;

		if (!kty || strcmp(kty, "RSA") || (alg && strcmp(alg, "RS256")) ||
		    (use && strcmp(use, "sig")) || set->n == JWKS_MAX_KEYS)
			continue;
		if (!(pkey = rsa_key(k))) {
			log_err("jwks %s: key %s: not an RSA public key", path,
			        kid ? kid : "");
			continue;
		}
		snprintf(set->keys[set->n].kid, sizeof(set->keys[0].kid), "%s",
		         kid ? kid : "");
		set->keys[set->n++].pkey = pkey;
	}
	json_decref(doc);
	if (!set->n) {
		free(set);
		return errprintf(err, "jwks %s: no RS256 key in it", path);
	}
	log_info("jwks %s: %d RS256 key(s)", path, set->n);
	r->jwks = set;
	return 0;
}

void restd_jwks_free(struct restd *r)
{
	if (!r->jwks)
		return;
	for (int i = 0; i < r->jwks->n; i++)
		EVP_PKEY_free(r->jwks->keys[i].pkey);
	free(r->jwks);
	r->jwks = NULL;
}

static int verifies(EVP_PKEY *pkey, const char *token, const struct jwt_parts *p)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int ok = md && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pkey) == 1 &&
	         EVP_DigestVerify(md, p->sig, p->siglen, (const unsigned char *)token,
	                          p->signed_len) == 1;

	EVP_MD_CTX_free(md);
	return ok;
}

int restd_jwks_check(struct restd *r, const char *token, const struct jwt_parts *p,
                     struct rota_error *err)
{
	if (strcmp(p->alg, "RS256"))
		return errprintf(err, "token header: not an RS256 JWT");
	for (int i = 0; i < r->jwks->n; i++)
		if ((!*p->kid || !strcmp(p->kid, r->jwks->keys[i].kid)) &&
		    verifies(r->jwks->keys[i].pkey, token, p))
			return 0;
	return errprintf(err, "token signature invalid");
}
