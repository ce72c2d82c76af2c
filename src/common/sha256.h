/* sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104).
 *
 * Rota signs and checks job credentials and the controller's proof in every
 * command, node daemon and step daemon it starts.  OpenSSL 3 spends about
 * 0.6 ms of each process's life preparing its providers before the first
 * digest, more than the whole check; this is the one algorithm we need,
 * checked against the published test vectors (tests/unit/test_sha256.c).
 */
#ifndef ROTA_SHA256_H
#define ROTA_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN   32
#define SHA256_BLOCK 64

struct sha256 {
	uint32_t h[8];
	uint64_t bytes; /* hashed so far */
	uint8_t buf[SHA256_BLOCK];
	size_t fill; /* bytes in buf */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, uint8_t out[SHA256_LEN]);

/* SHA-256 of data[0..len). */
void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN]);

/* HMAC-SHA-256 of data under key (any length). */
void hmac_sha256(const void *key, size_t keylen, const void *data, size_t len,
                 uint8_t out[SHA256_LEN]);

/* 1 when a and b hold the same n bytes; the time taken does not depend on
 * where they differ. */
int ct_equal(const void *a, const void *b, size_t n);

#endif
