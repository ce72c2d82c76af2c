#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctld/job_event.h"
#include "ctld/journal.h"
#include "common/common.h"

#define REC_HDR 8
#define REC_MAX (64u << 20)

struct waiter {
	journal_done_f cb;
	void *arg;
};

struct journal {
	char *path;
	int fd;
	size_t size;
	char *buf; /* appended, not yet written */
	size_t len, cap;
	struct waiter *waiters;
	size_t nwait, capwait;
	struct event *flush_ev;
};

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc32_buf(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < len; i++)
		c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	journal_flush(arg);
}

int journal_open(struct event_base *base, const char *dir, struct journal **ret,
                 struct rota_error *err)
{
	struct journal *j;
	struct stat st;
	int fd;

	crc_init();
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return errprintf(err, "mkdir %s: %s", dir, strerror(errno));
	j = xcalloc(1, sizeof(*j));
	j->path = xasprintf("%s/journal", dir);
	fd = open(j->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0) {
		errprintf(err, "open %s: %s", j->path, strerror(errno));
		free(j->path);
		free(j);
		return -1;
	}
	fstat(fd, &st);
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
	free(j->path);
	free(j);
}

static int replay_record(const char *body, uint32_t len, journal_replay_f cb, void *arg,
                         struct rota_error *err)
{
	struct job_event ev = {0};
	int rc;

	if (codec_decode(&job_event_type, body, len, &ev, err) < 0)
		return -EPROTO;
	rc = cb(&ev, arg);
	codec_release(&job_event_type, &ev);
	return rc;
}

int journal_replay(struct journal *j, journal_replay_f cb, void *arg,
                   struct rota_error *err)
{
	off_t off = 0;
	char hdr[REC_HDR];
	char *body = NULL;
	int rc = 0, n = 0;

	for (;;) {
		uint32_t len, crc;
		ssize_t r = pread(j->fd, hdr, REC_HDR, off);
		if (r == 0)
			break;
		if (r != REC_HDR)
			goto torn;
		memcpy(&len, hdr, 4);
		memcpy(&crc, hdr + 4, 4);
		len = ntohl(len);
		crc = ntohl(crc);
		if (len > REC_MAX)
			goto torn;
		body = xrealloc(body, len ? len : 1);
		if (pread(j->fd, body, len, off + REC_HDR) != (ssize_t)len ||
		    crc32_buf(body, len) != crc)
			goto torn;
		rc = replay_record(body, len, cb, arg, err);
		if (rc < 0 && rc != -ENOENT && rc != -EINVAL)
			goto out;
		rc = 0;
		off += REC_HDR + len;
		n++;
	}
	goto out;
torn:
	log_warn("journal %s: torn or corrupt record at offset %lld after %d records; "
	         "discarding the rest",
	         j->path, (long long)off, n);
	if (ftruncate(j->fd, off) < 0)
		rc = errprintf(err, "truncate %s: %s", j->path, strerror(errno));
	j->size = off;
out:
	free(body);
	log_info("journal: replayed %d records", n);
	return rc;
}

static void buf_add(struct journal *j, const void *data, size_t len)
{
	if (j->len + len > j->cap) {
		j->cap = (j->len + len) * 2;
		j->buf = xrealloc(j->buf, j->cap);
	}
	memcpy(j->buf + j->len, data, len);
	j->len += len;
}

void journal_append(struct journal *j, const struct job_event *ev)
{
	char *enc;
	size_t len;
	uint32_t hdr[2];

	if (codec_encode(&job_event_type, ev, &enc, &len) < 0)
		fatal("journal: cannot encode event");
	hdr[0] = htonl((uint32_t)len);
	hdr[1] = htonl(crc32_buf(enc, len));
	buf_add(j, hdr, sizeof(hdr));
	buf_add(j, enc, len);
	free(enc);
	event_active(j->flush_ev, 0, 0);
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

int journal_flush(struct journal *j)
{
	size_t nwait = j->nwait;
	struct waiter *w = j->waiters;
	int rc = 0;

	if (j->len) {
		const char *p = j->buf;
		size_t left = j->len;
		while (left) {
			ssize_t n = write(j->fd, p, left);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				/* losing acknowledged state is worse than stopping */
				fatal("journal %s: write failed: %s", j->path,
				      strerror(errno));
			}
			p += n;
			left -= n;
		}
		if (fdatasync(j->fd) < 0)
			fatal("journal %s: fdatasync failed: %s", j->path,
			      strerror(errno));
		j->size += j->len;
		j->len = 0;
	}
	j->waiters = NULL;
	j->nwait = j->capwait = 0;
	for (size_t i = 0; i < nwait; i++)
		w[i].cb(w[i].arg, rc);
	free(w);
	return rc;
}

int journal_rewrite(struct journal *j, journal_gen_f gen, void *arg,
                    struct rota_error *err)
{
	char *tmp = xasprintf("%s.new", j->path);
	int fd, rc = -1;
	size_t i = 0, size = 0;
	struct job_event ev;

	journal_flush(j);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		errprintf(err, "open %s: %s", tmp, strerror(errno));
		goto out;
	}
	for (;;) {
		char *enc;
		size_t len;
		uint32_t hdr[2];
		memset(&ev, 0, sizeof(ev));
		if (!gen(arg, i++, &ev))
			break;
		codec_encode(&job_event_type, &ev, &enc, &len);
		codec_release(&job_event_type, &ev);
		hdr[0] = htonl((uint32_t)len);
		hdr[1] = htonl(crc32_buf(enc, len));
		if (write(fd, hdr, sizeof(hdr)) != sizeof(hdr) ||
		    write(fd, enc, len) != (ssize_t)len) {
			free(enc);
			errprintf(err, "write %s: %s", tmp, strerror(errno));
			close(fd);
			goto out;
		}
		size += sizeof(hdr) + len;
		free(enc);
	}
	if (fsync(fd) < 0 || rename(tmp, j->path) < 0) {
		errprintf(err, "replace %s: %s", j->path, strerror(errno));
		close(fd);
		goto out;
	}
	close(j->fd);
	j->fd = open(j->path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (j->fd < 0)
		fatal("reopen %s: %s", j->path, strerror(errno));
	close(fd);
	j->size = size;
	rc = 0;
out:
	free(tmp);
	return rc;
}

size_t journal_size(const struct journal *j)
{
	return j->size;
}
