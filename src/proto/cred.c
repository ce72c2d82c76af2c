/* cred.c - job credentials: sign, check, and the replay cache (see cred.h). */
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>
#include "proto/auth.h"
#include "proto/cred.h"
#include "common/common.h"

#define DIGEST_LEN 32
#define NBUCKETS   4096

/* The bytes signed: req with cred_sig empty and node_flags zero.  Caller frees. */
static int cred_bytes(const struct launch_req *req, char **ret_buf, size_t *ret_len)
{
	struct launch_req tmp = *req; /* shallow: only read by the encoder */

	tmp.cred_sig = (struct rota_bin){0};
	tmp.node_flags = 0;
	return codec_encode(&launch_req_type, &tmp, ret_buf, ret_len);
}

int cred_sign(struct auth *auth, struct launch_req *req, time_t now,
              struct rota_error *err)
{
	char *buf;
	size_t len;
	int rc;

	if (RAND_bytes((unsigned char *)&req->cred_id, sizeof(req->cred_id)) != 1)
		return errprintf(err, "RAND_bytes failed"), -EIO;
	req->cred_expire = (int64_t)now + auth_cred_lifetime(auth);
	req->cred_sig = (struct rota_bin){0};
	if ((rc = cred_bytes(req, &buf, &len)) < 0)
		return errprintf(err, "out of memory"), rc;
	rc = auth_cred_sign(auth, buf, len, &req->cred_sig, err) < 0 ? -EIO : 0;
	free(buf);
	return rc;
}

int cred_check(struct auth *auth, const struct launch_req *req, const char *node_name,
               time_t now, int flags, struct rota_error *err)
{
	char *buf;
	size_t len;
	int rc;

	if (!req->cred_sig.len)
		return errprintf(err, "missing"), -EKEYREJECTED;
	if ((rc = cred_bytes(req, &buf, &len)) < 0)
		return errprintf(err, "out of memory"), rc;
	rc = auth_cred_check(auth, buf, len, &req->cred_sig, flags, err);
	free(buf);
	if (rc < 0)
		return -EKEYREJECTED;
	/* signed by the controller: its fields can be trusted from here on */
	if (node_name && (!req->node_name || strcmp(req->node_name, node_name)))
		return errprintf(err, "for node %s",
		                 req->node_name ? req->node_name : "?"),
		       -EXDEV;
	if (req->cred_expire < (int64_t)now)
		return errprintf(err, "expired %lld s ago",
		                 (long long)((int64_t)now - req->cred_expire)),
		       -EKEYEXPIRED;
	return 0;
}

/* ---- the replay cache: a hash set of signature digests, pruned in the order
 * added (a younger entry never expires much before an older one: all carry the
 * same lifetime; an entry that outlives its turn only stays a little longer) */

struct cred_seen {
	uint8_t digest[DIGEST_LEN];
	int64_t expire;
	struct cred_seen *hnext; /* bucket chain */
	struct cred_seen *qnext; /* FIFO, oldest first */
};

struct cred_cache {
	struct cred_seen *buckets[NBUCKETS];
	struct cred_seen *head, **tail;
	size_t count;
};

struct cred_cache *cred_cache_create(void)
{
	struct cred_cache *cc = xcalloc(1, sizeof(*cc));
	cc->tail = &cc->head;
	return cc;
}

void cred_cache_destroy(struct cred_cache *cc)
{
	if (!cc)
		return;
	while (cc->head) {
		struct cred_seen *s = cc->head;
		cc->head = s->qnext;
		free(s);
	}
	free(cc);
}

static size_t bucket_of(const uint8_t *digest)
{
	uint32_t h;
	memcpy(&h, digest, sizeof(h));
	return h % NBUCKETS;
}

static void seen_unlink(struct cred_cache *cc, struct cred_seen *s)
{
	for (struct cred_seen **pp = &cc->buckets[bucket_of(s->digest)]; *pp;
	     pp = &(*pp)->hnext) {
		if (*pp == s) {
			*pp = s->hnext;
			break;
		}
	}
}

static void cache_prune(struct cred_cache *cc, time_t now)
{
	while (cc->head && cc->head->expire < (int64_t)now) {
		struct cred_seen *s = cc->head;
		cc->head = s->qnext;
		seen_unlink(cc, s);
		free(s);
		cc->count--;
	}
	if (!cc->head)
		cc->tail = &cc->head;
}

int cred_cache_add(struct cred_cache *cc, const struct launch_req *req, time_t now)
{
	uint8_t digest[DIGEST_LEN];
	struct cred_seen *s;
	size_t b;

	cache_prune(cc, now);
	/* the whole signature: a MUNGE credential is longer than a digest */
	if (!EVP_Digest(req->cred_sig.data, req->cred_sig.len, digest, NULL, EVP_sha256(),
	                NULL))
		return -EIO;
	b = bucket_of(digest);
	for (s = cc->buckets[b]; s; s = s->hnext)
		if (!memcmp(s->digest, digest, DIGEST_LEN))
			return -EEXIST;
	if (cc->count >= CRED_CACHE_MAX)
		return -ENOSPC;
	s = xcalloc(1, sizeof(*s));
	memcpy(s->digest, digest, DIGEST_LEN);
	s->expire = req->cred_expire;
	s->hnext = cc->buckets[b];
	cc->buckets[b] = s;
	*cc->tail = s;
	cc->tail = &s->qnext;
	cc->count++;
	return 0;
}

size_t cred_cache_count(const struct cred_cache *cc)
{
	return cc->count;
}
