/* jwt.c - HS256 JSON Web Tokens (jwt.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/jwt.h"
#include "common/sha256.h"
#include "common/common.h"

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* base64url of p[0..n), no padding, appended at out (4 * n / 3 + 4 bytes). */
static size_t b64_encode(const uint8_t *p, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		out[o++] = b64url[v >> 18 & 63];
		out[o++] = b64url[v >> 12 & 63];
		if (i + 1 < n)
			out[o++] = b64url[v >> 6 & 63];
		if (i + 2 < n)
			out[o++] = b64url[v & 63];
	}
	out[o] = '\0';
	return o;
}

static int b64_val(char c)
{
	const char *at = c ? strchr(b64url, c) : NULL;

	return at ? (int)(at - b64url) : -1;
}

/* Decode base64url s[0..n) (padding allowed) into a NUL-terminated buffer;
 * NULL when it is not base64url. */
uint8_t *jwt_b64_decode(const char *s, size_t n, size_t *ret_len)
{
	uint8_t *out = xmalloc(n * 3 / 4 + 4);
	uint32_t acc = 0;
	size_t o = 0;
	int bits = 0;

	while (n && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		int v = b64_val(s[i]);
		if (v < 0) {
			free(out);
			return NULL;
		}
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	out[o] = '\0';
	*ret_len = o;
	return out;
}

int jwt_key_load(const char *path, uint8_t **key, size_t *len, struct rota_error *err)
{
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errprintf(err, "jwt_key %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > JWT_KEY_MAX) {
		close(fd);
		return errprintf(err, "jwt_key %s: not a file of 1 to %d bytes", path,
		                 JWT_KEY_MAX);
	}
	buf = xmalloc((size_t)st.st_size);
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size) {
		free(buf);
		return errprintf(err, "jwt_key %s: short read", path);
	}
	*key = buf;
	*len = (size_t)n;
	return 0;
}

char *jwt_sign(const uint8_t *key, size_t keylen, const char *user, time_t iat,
               time_t exp)
{
	static const char header[] = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
	json_t *claims = json_pack("{s:I, s:I, s:s}", "exp", (json_int_t)exp, "iat",
	                           (json_int_t)iat, "sun", user);
	char *payload = claims ? json_dumps(claims, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	uint8_t mac[SHA256_LEN];
	size_t hl = strlen(header), pl, o;
	char *tok;

	json_decref(claims);
	if (!payload)
		fatal("out of memory");
	pl = strlen(payload);
	tok = xmalloc((hl + pl + SHA256_LEN) * 4 / 3 + 16);
	o = b64_encode((const uint8_t *)header, hl, tok);
	tok[o++] = '.';
	o += b64_encode((const uint8_t *)payload, pl, tok + o);
	hmac_sha256(key, keylen, tok, o, mac);
	tok[o++] = '.';
	b64_encode(mac, sizeof(mac), tok + o);
	free(payload);
	return tok;
}

void jwt_parts_free(struct jwt_parts *p)
{
	free(p->sig);
	json_decref(p->claims);
	memset(p, 0, sizeof(*p));
}

int jwt_parse(const char *token, struct jwt_parts *p, struct rota_error *err)
{
	const char *dot1, *dot2;
	uint8_t *part = NULL;
	size_t len = strlen(token), n;
	json_t *h = NULL, *alg, *kid;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	if (len > JWT_MAX_LEN)
		return errprintf(err, "token too long (over %d bytes)", JWT_MAX_LEN);
	dot1 = strchr(token, '.');
	dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
	if (!dot2 || strchr(dot2 + 1, '.'))
		return errprintf(err, "token is not a JWT (three base64url parts)");
	if (!(part = jwt_b64_decode(token, (size_t)(dot1 - token), &n)) ||
	    !(h = json_loadb((const char *)part, n, 0, NULL)) ||
	    !(alg = json_object_get(h, "alg")) || !json_is_string(alg) ||
	    strlen(json_string_value(alg)) >= sizeof(p->alg)) {
		errprintf(err, "token header: not a JWT header");
		goto out;
	}
	snprintf(p->alg, sizeof(p->alg), "%s", json_string_value(alg));
	kid = json_object_get(h, "kid");
	if (json_is_string(kid))
		snprintf(p->kid, sizeof(p->kid), "%s", json_string_value(kid));
	free(part);
	if (!(part = jwt_b64_decode(dot1 + 1, (size_t)(dot2 - dot1 - 1), &n)) ||
	    !(p->claims = json_loadb((const char *)part, n, 0, NULL)) ||
	    !json_is_object(p->claims)) {
		errprintf(err, "token claims: not a JSON object");
		goto out;
	}
	if (!(p->sig = jwt_b64_decode(dot2 + 1, strlen(dot2 + 1), &p->siglen))) {
		errprintf(err, "token signature invalid");
		goto out;
	}
	p->signed_len = (size_t)(dot2 - token);
	rc = 0;
out:
	if (rc < 0)
		jwt_parts_free(p);
	json_decref(h);
	free(part);
	return rc;
}

int jwt_check_hs256(const uint8_t *key, size_t keylen, const char *token,
                    const struct jwt_parts *p, struct rota_error *err)
{
	uint8_t mac[SHA256_LEN];

	/* HS256 only (an "alg":"none" token is not one we made) */
	if (strcmp(p->alg, "HS256"))
		return errprintf(err, "token header: not an HS256 JWT");
	hmac_sha256(key, keylen, token, p->signed_len, mac);
	if (p->siglen != sizeof(mac) || !ct_equal(p->sig, mac, sizeof(mac)))
		return errprintf(err, "token signature invalid");
	return 0;
}

int jwt_claims_user(const struct jwt_parts *p, time_t now, const char *claim, char **user,
                    struct rota_error *err)
{
	json_t *v = json_object_get(p->claims, "exp");

	if (!json_is_integer(v))
		return errprintf(err, "token has no expiration (exp)");
	if ((json_int_t)now >= json_integer_value(v))
		return errprintf(err, "token expired");
	v = json_object_get(p->claims, "nbf");
	if (json_is_integer(v) && (json_int_t)now < json_integer_value(v))
		return errprintf(err, "token not valid yet (nbf)");
	claim = claim && *claim ? claim : "sun";
	v = json_object_get(p->claims, claim);
	if (!json_is_string(v) || !*json_string_value(v) ||
	    strlen(json_string_value(v)) > JWT_MAX_USER)
		return errprintf(err, "token names no user (%s)", claim);
	*user = xstrdup(json_string_value(v));
	return 0;
}

int jwt_verify(const uint8_t *key, size_t keylen, const char *token, time_t now,
               char **user, struct rota_error *err)
{
	struct jwt_parts p;
	int rc;

	if (jwt_parse(token, &p, err) < 0)
		return -1;
	rc = jwt_check_hs256(key, keylen, token, &p, err);
	if (rc == 0)
		rc = jwt_claims_user(&p, now, NULL, user, err);
	jwt_parts_free(&p);
	return rc;
}
