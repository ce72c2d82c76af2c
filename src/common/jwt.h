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

#endif
