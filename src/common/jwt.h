/* jwt.h - JSON Web Tokens as Slurm's auth/jwt makes and reads them: HS256
 * (HMAC-SHA-256 under the cluster's jwt_key), claims "iat", "exp" and "sun"
 * (the user name).  scontrol token asks the controller for one; rotarestd
 * checks the X-SLURM-USER-TOKEN of a request with it. */
#ifndef ROTA_JWT_H
#define ROTA_JWT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "common/error.h"

#define JWT_MAX_LEN      8192  /* a token we read */
#define JWT_MAX_USER     256   /* the user name in it */
#define JWT_KEY_MAX      65536 /* the key file */
#define JWT_LIFESPAN_MAX (365 * 24 * 3600)

/* Read the HS256 key at path (at most JWT_KEY_MAX bytes, not empty). */
int jwt_key_load(const char *path, uint8_t **key, size_t *len, struct rota_error *err);

/* A token for user, valid from iat until exp (malloc'd). */
char *jwt_sign(const uint8_t *key, size_t keylen, const char *user, time_t iat,
               time_t exp);

/* Check token under key at time now: HS256, the signature, "exp" after now.
 * Returns 0 and the "sun" claim in *user (malloc'd), or -1 with err saying
 * why, in Slurm's words where it has them. */
int jwt_verify(const uint8_t *key, size_t keylen, const char *token, time_t now,
               char **user, struct rota_error *err);

/* The same in parts, for other algorithms (rotarestd's RS256, jwks.c): a
 * token taken apart (its header's alg and kid; token[0..signed_len) is
 * what the signature covers; the claims, not to be trusted before the
 * signature is checked). */
struct json_t;
struct jwt_parts {
	char alg[16];
	char kid[256];
	size_t signed_len;
	uint8_t *sig;
	size_t siglen;
	struct json_t *claims;
};
int jwt_parse(const char *token, struct jwt_parts *p, struct rota_error *err);
void jwt_parts_free(struct jwt_parts *p);
int jwt_check_hs256(const uint8_t *key, size_t keylen, const char *token,
                    const struct jwt_parts *p, struct rota_error *err);
/* "exp" after now ("nbf", when there, not after it), and the user in the
 * string claim (NULL: "sun"), malloc'd in *user. */
int jwt_claims_user(const struct jwt_parts *p, time_t now, const char *claim, char **user,
                    struct rota_error *err);
/* base64url s[0..n) (padding allowed), NUL-terminated, malloc'd; NULL when
 * it is not base64url. */
uint8_t *jwt_b64_decode(const char *s, size_t n, size_t *len);

#endif
