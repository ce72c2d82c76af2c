/* cred.c - job credentials: sign, check, and the replay cache (see cred.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/entropy.h"
#include "common/sha256.h"
#include "proto/auth.h"
#include "proto/cred.h"
#include "common/common.h"

#define DIGEST_LEN SHA256_LEN
#define NBUCKETS   4096
#define RECORD_LEN (DIGEST_LEN + 8) /* cred_state: digest, expiry (host order) */

/* The bytes signed: req without cred_sig and what rotad adds for its stepd
 * (node_flags, node_gres_devs).  Caller frees. */
static int cred_bytes(const struct launch_req *req, char **ret_buf, size_t *ret_len)
{
	struct launch_req tmp = *req; /* shallow: only read by the encoder */

	tmp.cred_sig = (struct rota_bin){0};
	tmp.node_flags = 0;
	tmp.node_gres_devs = NULL;
	tmp.node_gres_devs_count = 0;
	return codec_encode(&launch_req_type, &tmp, ret_buf, ret_len);
}

int cred_sign(struct auth *auth, struct launch_req *req, time_t now,
              struct rota_error *err)
{
	char *buf;
	size_t len;
	int rc;

	if (entropy_fill(&req->cred_id, sizeof(req->cred_id)) < 0)
		return errprintf(err, "getrandom failed"), -EIO;
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
	char *path;     /* cred_state file, NULL: memory only */
	int fd;         /* open for appending, -1: none */
	size_t written; /* records in the file */
};

struct cred_cache *cred_cache_create(void)
{
	struct cred_cache *cc = xcalloc(1, sizeof(*cc));
	cc->tail = &cc->head;
	cc->fd = -1;
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
	if (cc->fd >= 0)
		close(cc->fd);
	free(cc->path);
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

/* Keep digest until expire (not seen before: checked by the caller). */
static int cache_insert(struct cred_cache *cc, const uint8_t *digest, int64_t expire)
{
	struct cred_seen *s;
	size_t b = bucket_of(digest);

	if (cc->count >= CRED_CACHE_MAX)
		return -ENOSPC;
	s = xcalloc(1, sizeof(*s));
	memcpy(s->digest, digest, DIGEST_LEN);
	s->expire = expire;
	s->hnext = cc->buckets[b];
	cc->buckets[b] = s;
	*cc->tail = s;
	cc->tail = &s->qnext;
	cc->count++;
	return 0;
}

static int cache_has(const struct cred_cache *cc, const uint8_t *digest)
{
	for (const struct cred_seen *s = cc->buckets[bucket_of(digest)]; s; s = s->hnext)
		if (!memcmp(s->digest, digest, DIGEST_LEN))
			return 1;
	return 0;
}

static void record_make(uint8_t *rec, const uint8_t *digest, int64_t expire)
{
	memcpy(rec, digest, DIGEST_LEN);
	memcpy(rec + DIGEST_LEN, &expire, sizeof(expire));
}

/* Write what is kept to a new cred_state and open it for appending. */
static int state_rewrite(struct cred_cache *cc)
{
	char *tmp = xasprintf("%s.new", cc->path);
	uint8_t rec[RECORD_LEN];
	int fd, rc = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	for (struct cred_seen *s = cc->head; s && !rc; s = s->qnext) {
		record_make(rec, s->digest, s->expire);
		if (write(fd, rec, RECORD_LEN) != RECORD_LEN)
			rc = -EIO;
	}
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, cc->path) < 0)
		rc = -errno;
	if (rc) {
		unlink(tmp);
		goto out;
	}
	if (cc->fd >= 0)
		close(cc->fd);
	cc->fd = open(cc->path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (cc->fd < 0)
		rc = -errno;
	cc->written = cc->count;
out:
	free(tmp);
	return rc;
}

int cred_cache_persist(struct cred_cache *cc, const char *path, time_t now,
                       struct rota_error *err)
{
	uint8_t rec[RECORD_LEN];
	int fd, rc;

	free(cc->path);
	cc->path = xstrdup(path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT) {
		rc = -errno;
		return errprintf(err, "cannot read %s: %s", path, strerror(-rc)), rc;
	}
	/* a torn last record (a crash mid-write) is left out */
	while (fd >= 0 && read(fd, rec, RECORD_LEN) == RECORD_LEN) {
		int64_t expire;
		memcpy(&expire, rec + DIGEST_LEN, sizeof(expire));
		if (expire >= (int64_t)now && !cache_has(cc, rec))
			cache_insert(cc, rec, expire);
	}
	if (fd >= 0)
		close(fd);
	rc = state_rewrite(cc);
	if (rc < 0)
		return errprintf(err, "cannot write %s: %s", path, strerror(-rc)), rc;
	return 0;
}

int cred_cache_add(struct cred_cache *cc, const struct launch_req *req, time_t now)
{
	uint8_t digest[DIGEST_LEN], rec[RECORD_LEN];
	int rc;

	cache_prune(cc, now);
	/* the whole signature: a MUNGE credential is longer than a digest */
	sha256(req->cred_sig.data, req->cred_sig.len, digest);
	if (cache_has(cc, digest))
		return -EEXIST;
	if ((rc = cache_insert(cc, digest, req->cred_expire)) < 0)
		return rc;
	if (cc->fd < 0)
		return 0;
	if (cc->written > 2 * cc->count + 1024)
		return state_rewrite(cc) < 0 ? -EIO : 0;
	record_make(rec, digest, req->cred_expire);
	if (write(cc->fd, rec, RECORD_LEN) != RECORD_LEN)
		return -EIO;
	cc->written++;
	return 0;
}

size_t cred_cache_count(const struct cred_cache *cc)
{
	return cc->count;
}
