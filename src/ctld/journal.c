#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "common/recframe.h"
#include "ctld/job_event.h"
#include "ctld/journal.h"
#include "common/common.h"

#define REWRITE_CHUNK (1u << 20)

struct waiter {
	journal_done_f cb;
	void *arg;
};

struct journal {
	char *dir, *path;
	int fd;
	size_t size;
	char *buf; /* appended, not yet written */
	size_t len, cap;
	struct waiter *waiters;
	size_t nwait, capwait;
	struct event *flush_ev;
	int err;              /* 0 or -errno: failed, appends dropped until a rewrite */
	int need_rewrite;     /* old format or damaged: no append before a rewrite */
	int damaged;          /* replay found damage */
	int torn;             /* replay cut off a torn tail */
	char *keep;           /* where the damaged file must still be kept (NULL: done) */
	uint64_t next_seq;    /* the next event's sequence number */
	uint64_t base_seq;    /* the snapshot at the file's head covers events to here */
	uint64_t written_seq; /* the last event written and synced */
};

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	journal_flush(arg);
}

/* Make a rename, link or creation in the directory durable. */
static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int journal_open(struct event_base *base, const char *dir, struct journal **ret,
                 struct rota_error *err)
{
	struct journal *j;
	struct stat st;
	int fd, created;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return errprintf(err, "mkdir %s: %s", dir, strerror(errno));
	j = xcalloc(1, sizeof(*j));
	j->dir = xstrdup(dir);
	j->next_seq = 1;
	j->path = xasprintf("%s/journal", dir);
	created = access(j->path, F_OK) < 0;
	fd = open(j->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &st) < 0) {
		errprintf(err, "open %s: %s", j->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(j->path);
		free(j->dir);
		free(j);
		return -1;
	}
	if (created)
		sync_dir(dir);
	j->fd = fd;
	j->size = st.st_size;
	j->flush_ev = event_new(base, -1, 0, flush_cb, j);
	*ret = j;
	return 0;
}

void journal_destroy(struct journal *j)
{
	if (!j)
		return;
	journal_flush(j);
	event_free(j->flush_ev);
	close(j->fd);
	free(j->buf);
	free(j->waiters);
	free(j->keep);
	free(j->path);
	free(j->dir);
	free(j);
}

static int write_all(int fd, const char *p, size_t len);

/* ---- replay ---- */

struct replay {
	struct journal *j;
	journal_replay_f cb;
	void *arg;
	size_t undecodable;
	int following; /* journal_follow: only events after `after` */
	uint64_t after;
};

/* What a record tells of the sequence: a snapshot's META says what it covers;
 * every later event carries its own number. */
static void seq_note(struct journal *j, const struct job_event *ev)
{
	if (ev->type == EV_META && ev->seq_base > j->base_seq)
		j->base_seq = ev->seq_base;
	if (ev->seq_base + 1 > j->next_seq)
		j->next_seq = ev->seq_base + 1;
	if (ev->seq + 1 > j->next_seq)
		j->next_seq = ev->seq + 1;
}

static int replay_rec(void *arg, const uint8_t *body, size_t len)
{
	struct replay *r = arg;
	struct job_event ev = {0};
	struct rota_error err = {""};
	int rc;

	if (codec_decode(&job_event_type, (const char *)body, len, &ev, &err) < 0) {
		/* checks, yet does not decode: a record of another version */
		log_err("journal %s: skipping a record that does not decode: %s",
		        r->j->path, err.text);
		r->undecodable++;
		return 0;
	}
	if (!r->following)
		seq_note(r->j, &ev);
	rc = r->following && ev.seq <= r->after ? 0 : r->cb(&ev, r->arg);
	codec_release(&job_event_type, &ev);
	return rc < 0 && rc != -ENOENT && rc != -EINVAL ? rc : 0;
}

/* Choose journal.damaged.<time>[.<n>], a name not taken yet. */
static char *damaged_name(const struct journal *j)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	for (int n = 0;; n++) {
		char *p = n ? xasprintf("%s.damaged.%s.%d", j->path, stamp, n)
		            : xasprintf("%s.damaged.%s", j->path, stamp);
		if (access(p, F_OK) < 0)
			return p;
		free(p);
	}
}

static void replay_bad(void *arg, const struct recframe_damage *d)
{
	struct replay *r = arg;
	struct journal *j = r->j;

	if (!j->keep)
		j->keep = damaged_name(j);
	if (d->records)
		log_err("journal %s: damaged region at offset %zu (%zu bytes, about %u "
		        "record(s)) skipped; the damaged journal is kept as %s",
		        j->path, d->off, d->bytes, d->records, j->keep);
	else
		log_err("journal %s: damaged region at offset %zu (%zu bytes, records "
		        "unknown) skipped; the damaged journal is kept as %s",
		        j->path, d->off, d->bytes, j->keep);
}

/* Copy j->path to j->keep (a file system without hard links). */
static int copy_damaged(struct journal *j)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;
	int fd = open(j->keep, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), rc = 0;

	if (fd < 0)
		return -errno;
	while ((n = pread(j->fd, buf, sizeof(buf), off)) > 0) {
		if ((rc = write_all(fd, buf, (size_t)n)) < 0)
			break;
		off += n;
	}
	if (rc == 0 && (n < 0 || fsync(fd) < 0))
		rc = -errno;
	close(fd);
	if (rc < 0)
		unlink(j->keep);
	return rc;
}

/* Keep the damaged file under j->keep (a hard link: the rewrite that follows
 * replaces j->path, the damaged inode stays; a copy where links are not
 * supported). */
static int keep_damaged(struct journal *j, struct rota_error *err)
{
	int rc;

	if (!j->keep)
		return 0;
	if (link(j->path, j->keep) < 0 && errno != EEXIST && (rc = copy_damaged(j)) < 0)
		return errprintf(err, "keep %s as %s: %s", j->path, j->keep,
		                 strerror(-rc));
	if ((rc = sync_dir(j->dir)) < 0)
		return errprintf(err, "sync %s: %s", j->dir, strerror(-rc));
	log_info("journal %s: damaged journal kept as %s", j->path, j->keep);
	free(j->keep);
	j->keep = NULL;
	return 0;
}

/* Every record of the file through replay_rec (damage to bad, if given). */
static int walk_file(struct journal *j, struct replay *r, recframe_bad_f bad,
                     struct recframe_result *res, struct rota_error *err)
{
	void *map;
	int rc;

	if (!j->size)
		return 0;
	map = mmap(NULL, j->size, PROT_READ, MAP_PRIVATE, j->fd, 0);
	if (map == MAP_FAILED)
		return errprintf(err, "read %s: %s", j->path, strerror(errno));
	rc = recframe_walk(map, j->size, replay_rec, bad, r, res);
	munmap(map, j->size);
	if (rc < 0)
		return errprintf(err, "read %s: %s", j->path, strerror(-rc));
	return 0;
}

int journal_replay(struct journal *j, journal_replay_f cb, void *arg,
                   struct rota_error *err)
{
	struct replay r = {.j = j, .cb = cb, .arg = arg};
	struct recframe_result res = {0};

	if (walk_file(j, &r, replay_bad, &res, err) < 0)
		return -1;
	if (res.damaged || r.undecodable) {
		j->damaged = 1;
		j->need_rewrite = 1;
		if (!j->keep)
			j->keep = damaged_name(j);
		if (keep_damaged(j, err) < 0)
			log_err("journal: %s (retried before the next rewrite)",
			        err->text);
	} else if (res.torn) {
		/* a crash during an append: never acknowledged, cut off silently */
		log_debug("journal %s: torn tail of %zu bytes at offset %zu cut off",
		          j->path, res.torn, res.end);
		if (ftruncate(j->fd, (off_t)res.end) < 0)
			return errprintf(err, "truncate %s: %s", j->path,
			                 strerror(errno));
		fdatasync(j->fd);
		j->size = res.end;
		j->torn = 1;
	}
	if (res.v0) {
		log_info("journal %s: old format, rewritten in the new one", j->path);
		j->need_rewrite = 1;
	}
	j->written_seq = j->next_seq - 1;
	log_info("journal: replayed %zu records (to event %llu)", res.records,
	         (unsigned long long)j->written_seq);
	return 0;
}

int journal_follow(struct journal *j, uint64_t after, journal_replay_f cb, void *arg,
                   struct rota_error *err)
{
	struct replay r = {.j = j, .cb = cb, .arg = arg, .following = 1, .after = after};
	struct recframe_result res = {0};

	if (after < j->base_seq) {
		errprintf(err, "events to %llu are only in the snapshot (it covers %llu)",
		          (unsigned long long)after, (unsigned long long)j->base_seq);
		return -ESTALE;
	}
	return walk_file(j, &r, NULL, &res, err) < 0 ? -EIO : 0;
}

uint64_t journal_last_seq(const struct journal *j)
{
	return j->written_seq;
}

uint64_t journal_base_seq(const struct journal *j)
{
	return j->base_seq;
}

int journal_damaged(const struct journal *j)
{
	return j->damaged;
}

int journal_torn(const struct journal *j)
{
	return j->torn;
}

/* ---- append and flush ---- */

uint64_t journal_append(struct journal *j, const struct job_event *ev)
{
	struct job_event numbered = *ev; /* shallow: only encoded */
	char *enc;
	size_t len, size;

	if (j->err)
		return 0; /* the rewrite that ends the failure writes the state */
	numbered.seq = j->next_seq;
	numbered.seq_base = 0;
	if (codec_encode(&job_event_type, &numbered, &enc, &len) < 0 ||
	    len > RECFRAME_MAX)
		fatal("journal: cannot encode event");
	size = recframe_size(enc, len);
	if (j->len + size > j->cap) {
		j->cap = (j->len + size) * 2;
		j->buf = xrealloc(j->buf, j->cap);
	}
	j->len += recframe_encode((uint8_t *)j->buf + j->len, enc, len);
	free(enc);
	event_active(j->flush_ev, 0, 0);
	return j->next_seq++;
}

void journal_when_durable(struct journal *j, journal_done_f cb, void *arg)
{
	if (j->nwait == j->capwait) {
		j->capwait = j->capwait ? j->capwait * 2 : 64;
		j->waiters = xrealloc(j->waiters, j->capwait * sizeof(*j->waiters));
	}
	j->waiters[j->nwait++] = (struct waiter){cb, arg};
	event_active(j->flush_ev, 0, 0);
}

/* A write or sync failed with rc: cut off what may be half written and stop
 * appending until a rewrite. */
static void journal_fail(struct journal *j, const char *what, int rc)
{
	if (ftruncate(j->fd, (off_t)j->size) < 0)
		log_err("journal %s: truncate: %s", j->path, strerror(errno));
	j->len = 0;
	if (!j->err)
		log_err("journal %s: %s failed: %s; submissions and updates are refused "
		        "until it can be written again",
		        j->path, what, strerror(-rc));
	j->err = rc;
}

int journal_flush(struct journal *j)
{
	size_t nwait = j->nwait;
	struct waiter *w = j->waiters;

	if (j->len && !j->err) {
		const char *p = j->buf;
		size_t left = j->len;
		while (left && !j->err) {
			ssize_t n = write(j->fd, p, left);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				journal_fail(j, "write", n < 0 ? -errno : -ENOSPC);
			else
				p += n, left -= n;
		}
		if (!j->err && fdatasync(j->fd) < 0)
			journal_fail(j, "fdatasync", -errno);
		if (!j->err) {
			j->size += j->len;
			j->written_seq = j->next_seq - 1;
		}
		j->len = 0;
	}
	j->waiters = NULL;
	j->nwait = j->capwait = 0;
	for (size_t i = 0; i < nwait; i++)
		w[i].cb(w[i].arg, j->err);
	free(w);
	return j->err;
}

int journal_error(const struct journal *j)
{
	return j->err;
}

/* ---- rewrite ---- */

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		p += n;
		len -= n;
	}
	return 0;
}

/* Write gen's events to fd; returns the bytes written or -errno. */
static ssize_t rewrite_events(int fd, journal_gen_f gen, void *arg, uint64_t base)
{
	char *out = xmalloc(REWRITE_CHUNK);
	size_t used = 0, size = 0, i = 0;
	struct job_event ev;
	ssize_t rc = 0;

	for (;;) {
		char *enc, *rec;
		size_t len, n;
		memset(&ev, 0, sizeof(ev));
		if (!gen(arg, i++, &ev))
			break;
		/* a snapshot: its events have no number of their own */
		ev.seq = 0;
		ev.seq_base = ev.type == EV_META ? base : 0;
		if (codec_encode(&job_event_type, &ev, &enc, &len) < 0 ||
		    len > RECFRAME_MAX)
			fatal("journal: cannot encode event");
		codec_release(&job_event_type, &ev);
		n = recframe_size(enc, len);
		if (used + n > REWRITE_CHUNK) {
			if ((rc = write_all(fd, out, used)) < 0) {
				free(enc);
				goto out;
			}
			used = 0;
		}
		if (n > REWRITE_CHUNK) { /* a record larger than the chunk */
			rec = xmalloc(n);
			recframe_encode((uint8_t *)rec, enc, len);
			rc = write_all(fd, rec, n);
			free(rec);
		} else {
			used += recframe_encode((uint8_t *)out + used, enc, len);
		}
		free(enc);
		if (rc < 0)
			goto out;
		size += n;
	}
	if ((rc = write_all(fd, out, used)) < 0)
		goto out;
	if (fsync(fd) < 0) {
		rc = -errno;
		goto out;
	}
	rc = (ssize_t)size;
out:
	free(out);
	return rc;
}

int journal_rewrite(struct journal *j, journal_gen_f gen, void *arg,
                    struct rota_error *err)
{
	char *tmp = xasprintf("%s.new", j->path);
	int fd = -1, nfd, rc = -1, was_failed;
	ssize_t size;

	journal_flush(j);
	was_failed = j->err || j->need_rewrite;
	if (keep_damaged(j, err) < 0)
		goto fail;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		errprintf(err, "open %s: %s", tmp, strerror(errno));
		goto fail;
	}
	size = rewrite_events(fd, gen, arg, j->next_seq - 1);
	if (size < 0) {
		errprintf(err, "write %s: %s", tmp, strerror((int)-size));
		goto fail;
	}
	if (rename(tmp, j->path) < 0) {
		errprintf(err, "rename %s: %s", tmp, strerror(errno));
		goto fail;
	}
	if (sync_dir(j->dir) < 0)
		log_err("journal: sync %s: %s", j->dir, strerror(errno));
	nfd = open(j->path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (nfd < 0)
		fatal("reopen %s: %s", j->path, strerror(errno));
	close(j->fd);
	j->fd = nfd;
	j->size = (size_t)size;
	if (j->err)
		log_info("journal %s: written again (%zd bytes of state); submissions "
		         "and updates are accepted",
		         j->path, size);
	j->err = 0;
	j->need_rewrite = 0;
	j->base_seq = j->written_seq = j->next_seq - 1;
	rc = 0;
	goto out;
fail:
	if (fd >= 0)
		unlink(tmp); /* nothing half written is left behind */
	/* a journal that must be rewritten before it is appended to stays failed */
	if (was_failed && !j->err)
		j->err = -EIO;
out:
	if (fd >= 0)
		close(fd);
	free(tmp);
	return rc;
}

size_t journal_size(const struct journal *j)
{
	return j->size;
}
