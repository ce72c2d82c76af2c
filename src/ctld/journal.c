#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <isa-l/crc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/recframe.h"
#include "ctld/job_event.h"
#include "ctld/journal.h"
#include "ctld/jtext.h"
#include "ctld/syncer.h"
#include "common/common.h"

#define REWRITE_CHUNK (1u << 20)

struct waiter {
	journal_done_f cb;
	void *arg;
	uint64_t seq; /* called once this event is durable */
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
	struct syncer *syncer; /* writes and syncs batches off the loop */
	int err;               /* 0 or -errno: failed, appends dropped until a rewrite */
	int need_rewrite;      /* old format or damaged: no append before a rewrite */
	int damaged;           /* replay found damage */
	int torn;              /* replay cut off a torn tail */
	char *keep;       /* where the damaged file must still be kept (NULL: done) */
	size_t compacted; /* bytes right after the last rewrite */
	/* a compaction in a child process (journal_compact_start) */
	pid_t compact_pid; /* the child, until it is done */
	enum {
		COMPACT_NONE,
		COMPACT_CHILD, /* the child writes the snapshot; tail gathers */
		COMPACT_READY, /* it is done: the tail goes once the writer is free */
		COMPACT_TAIL,  /* the writer thread adds the tail to journal.new */
	} compact_state;
	int compact_new;     /* journal.new, open for the tail */
	size_t compact_size; /* its size when renamed (set by the writer thread) */
	uint64_t compact_base;
	int compact_fd; /* its status pipe */
	struct event *compact_ev;
	char *tail; /* records appended since it started */
	size_t tail_len, tail_cap;
	struct timespec compact_t0;
	double fork_ms;       /* the loop's time in fork() */
	uint64_t next_seq;    /* the next event's sequence number */
	uint64_t base_seq;    /* the snapshot at the file's head covers events to here */
	uint64_t written_seq; /* the last event written and synced */
	void (*on_sync)(void *arg, uint64_t usec);
	void *on_sync_arg;
	void (*on_durable)(void *arg, const char *recs, size_t len, uint64_t upto);
	void *on_durable_arg;
	/* while on_durable is set, what it is given: every appended event
	 * framed with its texts inline (the file has them by reference) */
	char *sbuf; /* of the events in buf */
	size_t slen, scap;
	char *stail; /* of the events in tail */
	size_t stail_len, stail_cap;
	char *sent_copy; /* the batch in flight, for on_durable */
	size_t sent_len;
	char *tail_copy; /* a compaction's tail in flight, for on_durable */
	size_t tail_copy_len;
	/* texts written once (jtext.h): the controller's kept copies, and
	 * which of them this file has */
	struct intern *texts;
	struct jtext_out out;
	uint32_t text_gen; /* the last generation handed out */
	unsigned compactions;
	uint64_t (*gate)(void *arg); /* waiters also wait until gate() reaches them */
	void *gate_arg;
};

static void flush_cb(evutil_socket_t fd, short what, void *arg);
static void sync_done(void *arg, void *tag, uint64_t upto, size_t len, int rc);
static void compact_tail_start(struct journal *j);
static void compact_switch(struct journal *j, uint64_t upto, int rc);
static int compact_tail_after(void *tag);

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
	j->out.next_id = 1;
	j->compact_fd = j->compact_new = -1;
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
	if (syncer_create(base, sync_done, j, &j->syncer) < 0)
		fatal("journal: cannot start its writer thread");
	*ret = j;
	return 0;
}

void journal_destroy(struct journal *j)
{
	if (!j)
		return;
	journal_compact_abort(j);
	j->gate = NULL; /* nobody waits on anybody else any more */
	journal_flush(j);
	syncer_destroy(j->syncer);
	event_free(j->flush_ev);
	close(j->fd);
	free(j->buf);
	free(j->sbuf);
	free(j->stail);
	free(j->waiters);
	free(j->keep);
	free(j->path);
	free(j->dir);
	free(j);
}

/* ---- replay ---- */

struct replay {
	struct journal *j;
	journal_replay_f cb;
	void *arg;
	size_t undecodable;
	int following; /* journal_follow: only events after `after` */
	uint64_t after;
	size_t snapshot_bytes;  /* of the snapshot at the head (events numbered 0) */
	struct jtext_in *texts; /* the file's TEXT records read so far */
	size_t start;           /* where the walk began (journal_replay_from) */
};

/* What a record tells of the sequence: a snapshot's META says what it covers;
 * every later event carries its own number. */
static void seq_note(struct journal *j, const union job_event *ev)
{
	if (ev->head.type == EV_META) {
		if (ev->meta.seq_base > j->base_seq)
			j->base_seq = ev->meta.seq_base;
		if (ev->meta.seq_base + 1 > j->next_seq)
			j->next_seq = ev->meta.seq_base + 1;
	}
	if (ev->head.seq + 1 > j->next_seq)
		j->next_seq = ev->head.seq + 1;
}

static int replay_rec(void *arg, const uint8_t *body, size_t len)
{
	struct replay *r = arg;
	union job_event ev;
	struct rota_error err = {""};
	int rc;

	if (job_event_decode((const char *)body, len, &ev, &err) < 0) {
		/* checks, yet does not decode: a record of another version */
		log_err("journal %s: skipping a record that does not decode: %s",
		        r->j->path, err.text);
		r->undecodable++;
		return 0;
	}
	if (!r->following && ev.head.seq == 0)
		r->snapshot_bytes += RECFRAME_HDR + len; /* about: escapes not counted */
	rc = jtext_in_event(r->texts, &ev);
	if (rc != 0) {
		if (rc < 0) {
			/* its TEXT was in a damaged record: the job is lost
			 * with it, as it would be with its own */
			log_err("journal %s: event %llu (%s of job %u) refers to a "
			        "text the journal does not have: skipped",
			        r->j->path, (unsigned long long)ev.head.seq,
			        job_event_name(ev.head.type), ev.job.job_id);
			r->undecodable++;
		}
		job_event_release(&ev);
		return 0;
	}
	if (!r->following)
		seq_note(r->j, &ev);
	rc = r->following && ev.head.seq <= r->after ? 0 : r->cb(&ev, r->arg);
	jtext_in_unlend(r->texts, &ev);
	job_event_release(&ev);
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
		        j->path, r->start + d->off, d->bytes, d->records, j->keep);
	else
		log_err("journal %s: damaged region at offset %zu (%zu bytes, records "
		        "unknown) skipped; the damaged journal is kept as %s",
		        j->path, r->start + d->off, d->bytes, j->keep);
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
		if ((rc = fd_write_all(fd, buf, (size_t)n)) < 0)
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

/* Every record of the file from r->start through replay_rec (damage to bad,
 * if given); res's offsets are the file's. */
static int walk_file(struct journal *j, struct replay *r, recframe_bad_f bad,
                     struct recframe_result *res, struct rota_error *err)
{
	void *map;
	int rc;

	if (j->size <= r->start)
		return 0;
	map = mmap(NULL, j->size, PROT_READ, MAP_PRIVATE, j->fd, 0);
	if (map == MAP_FAILED)
		return errprintf(err, "read %s: %s", j->path, strerror(errno));
	r->texts = jtext_in_create(j->texts);
	rc = recframe_walk((const uint8_t *)map + r->start, j->size - r->start,
	                   replay_rec, bad, r, res);
	res->end += r->start;
	/* ids of this file's texts only grow */
	if (jtext_in_max_id(r->texts) >= j->out.next_id)
		j->out.next_id = jtext_in_max_id(r->texts) + 1;
	jtext_in_destroy(r->texts);
	r->texts = NULL;
	munmap(map, j->size);
	if (rc < 0)
		return errprintf(err, "read %s: %s", j->path, strerror(-rc));
	return 0;
}

static int replay_walk(struct journal *j, struct replay *r, struct rota_error *err);

int journal_replay(struct journal *j, journal_replay_f cb, void *arg,
                   struct rota_error *err)
{
	struct replay r = {.j = j, .cb = cb, .arg = arg};

	return replay_walk(j, &r, err);
}

/* CRC-32 of the JOURNAL_MARK_WINDOW bytes of the file before off (all of
 * them when fewer), read where they are: mapped. */
static int prefix_crc(const struct journal *j, uint64_t off, uint64_t *ret)
{
	uint64_t from = off > JOURNAL_MARK_WINDOW ? off - JOURNAL_MARK_WINDOW : 0;
	uint64_t at = from & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
	void *map;

	if (!off) {
		*ret = 0;
		return 0;
	}
	map = mmap(NULL, (size_t)(off - at), PROT_READ, MAP_PRIVATE | MAP_POPULATE, j->fd,
	           (off_t)at);
	if (map == MAP_FAILED)
		return -errno;
	*ret = crc32_gzip_refl(0, (const uint8_t *)map + (from - at), off - from);
	munmap(map, (size_t)(off - at));
	return 0;
}

int journal_mark_get(struct journal *j, struct journal_mark *m)
{
	struct stat st;
	int rc;

	if (j->err || j->need_rewrite || j->compact_state != COMPACT_NONE || j->len)
		return -EBUSY;
	if (fstat(j->fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size != j->size)
		return -EBUSY;
	*m = (struct journal_mark){
	    .dev = (uint64_t)st.st_dev,
	    .ino = (uint64_t)st.st_ino,
	    .offset = j->size,
	    .next_seq = j->next_seq,
	    .base_seq = j->base_seq,
	    .text_next_id = j->out.next_id,
	    .compacted = j->compacted,
	};
	if ((rc = prefix_crc(j, m->offset, &m->crc)) < 0)
		return rc;
	return 0;
}

int journal_mark_holds(const struct journal *j, const struct journal_mark *m)
{
	struct stat st;
	uint64_t h;

	return fstat(j->fd, &st) == 0 && (uint64_t)st.st_dev == m->dev &&
	       (uint64_t)st.st_ino == m->ino && (uint64_t)st.st_size >= m->offset &&
	       j->size >= m->offset && prefix_crc(j, m->offset, &h) == 0 && h == m->crc &&
	       m->next_seq > m->base_seq;
}

int journal_replay_from(struct journal *j, const struct journal_mark *m,
                        journal_replay_f cb, void *arg, struct rota_error *err)
{
	struct replay r = {.j = j, .cb = cb, .arg = arg, .start = (size_t)m->offset};

	j->next_seq = m->next_seq;
	j->base_seq = m->base_seq;
	j->out.next_id = m->text_next_id;
	if (replay_walk(j, &r, err) < 0)
		return -1;
	j->compacted = (size_t)m->compacted;
	return 0;
}

static int replay_walk(struct journal *j, struct replay *r, struct rota_error *err)
{
	struct recframe_result res = {0};

	if (walk_file(j, r, replay_bad, &res, err) < 0)
		return -1;
	if (res.damaged || r->undecodable) {
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
	/* what the last compaction wrote: the next is due when the file has
	 * grown well past it (ctld_state_tick) */
	j->compacted = r->snapshot_bytes;
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

uint64_t journal_next_seq(const struct journal *j)
{
	return j->next_seq;
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

uint64_t journal_append(struct journal *j, const union job_event *ev)
{
	return journal_append_at(j, ev, j->next_seq);
}

size_t journal_frame_append(const union job_event *ev, char **buf, size_t *len,
                            size_t *cap)
{
	char *enc;
	size_t n, size;

	if (job_event_encode(ev, &enc, &n) < 0 || n > RECFRAME_MAX)
		fatal("journal: cannot encode event");
	size = recframe_size(enc, n);
	if (*len + size > *cap) {
		*cap = (*len + size) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	size = recframe_encode((uint8_t *)*buf + *len, enc, n);
	*len += size;
	free(enc);
	return size;
}

static void buf_add(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n > *cap) {
		*cap = (*len + n) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, data, n);
	*len += n;
}

/* What was noted of the texts in the file may no longer hold (a new file,
 * appends cut off): each is written again where it is next needed. */
static void texts_forget(struct journal *j)
{
	if (j->texts)
		j->out.gen = ++j->text_gen;
}

void journal_set_texts(struct journal *j, struct intern *texts)
{
	j->texts = j->out.in = texts;
	texts_forget(j);
}

uint64_t journal_append_at(struct journal *j, const union job_event *ev, uint64_t seq)
{
	union job_event numbered = *ev; /* shallow: only encoded */
	size_t size;
	int compacting;

	if (j->err)
		return 0; /* the rewrite that ends the failure writes the state */
	if (seq < j->next_seq)
		seq = j->next_seq; /* numbers only go up */
	j->next_seq = seq;
	numbered.head.seq = j->next_seq;
	if (numbered.head.type == EV_META)
		numbered.meta.seq_base = 0;
	size = jtext_frame_append(&j->out, &numbered, &j->buf, &j->len, &j->cap);
	compacting =
	    j->compact_state == COMPACT_CHILD || j->compact_state == COMPACT_READY;
	/* the snapshot being written does not have it: keep it for after */
	if (compacting)
		buf_add(&j->tail, &j->tail_len, &j->tail_cap, j->buf + j->len - size,
		        size);
	if (j->on_durable) {
		/* the followers' copy, with its texts inline */
		if (numbered.head.type == EV_SUBMIT)
			size =
			    journal_frame_append(&numbered, &j->sbuf, &j->slen, &j->scap);
		else
			buf_add(&j->sbuf, &j->slen, &j->scap, j->buf + j->len - size,
			        size);
		if (compacting)
			buf_add(&j->stail, &j->stail_len, &j->stail_cap,
			        j->sbuf + j->slen - size, size);
	}
	event_active(j->flush_ev, 0, 0);
	return j->next_seq++;
}

void journal_when_durable(struct journal *j, journal_done_f cb, void *arg)
{
	if (j->nwait == j->capwait) {
		j->capwait = j->capwait ? j->capwait * 2 : 64;
		j->waiters = xrealloc(j->waiters, j->capwait * sizeof(*j->waiters));
	}
	j->waiters[j->nwait++] = (struct waiter){cb, arg, j->next_seq - 1};
	event_active(j->flush_ev, 0, 0);
}

/* A write or sync failed with rc: cut off what may be half written and stop
 * appending until a rewrite.  The writer thread is idle. */
static void journal_fail(struct journal *j, int rc)
{
	if (ftruncate(j->fd, (off_t)j->size) < 0)
		log_err("journal %s: truncate: %s", j->path, strerror(errno));
	j->len = j->slen = 0;
	texts_forget(j);
	if (!j->err)
		log_err("journal %s: write failed: %s; submissions and updates are "
		        "refused until it can be written again",
		        j->path, strerror(-rc));
	j->err = rc;
}

/* Answer the waiters whose events are durable (up to upto), or all of them
 * with the journal's error.  A callback may append and wait again. */
static void run_waiters(struct journal *j, uint64_t upto)
{
	size_t k = 0;
	struct waiter *ready;

	if (j->gate) {
		uint64_t g = j->gate(j->gate_arg);
		if (g < upto)
			upto = g;
	}
	while (k < j->nwait && (j->err || j->waiters[k].seq <= upto))
		k++;
	if (!k)
		return;
	ready = xmalloc(k * sizeof(*ready));
	memcpy(ready, j->waiters, k * sizeof(*ready));
	memmove(j->waiters, j->waiters + k, (j->nwait - k) * sizeof(*ready));
	j->nwait -= k;
	for (size_t i = 0; i < k; i++)
		ready[i].cb(ready[i].arg, j->err);
	free(ready);
}

/* Give what was appended to the writer thread, if it is free (group commit:
 * while it writes, the next batch gathers). */
static void hand_off(struct journal *j)
{
	/* nothing to the old file once a compaction's file is about to take over */
	if (syncer_busy(j->syncer) || !j->len || j->err ||
	    j->compact_state >= COMPACT_READY)
		return;
	if (j->on_durable) { /* the followers get the batch once it is durable */
		j->sent_copy = j->sbuf;
		j->sent_len = j->slen;
		j->sbuf = NULL;
		j->slen = j->scap = 0;
	}
	syncer_submit(j->syncer, j->fd, j->buf, j->len, j->next_seq - 1, NULL, NULL);
	j->buf = NULL;
	j->len = j->cap = 0;
}

/* On the loop: the writer thread finished a batch. */
static void sync_done(void *arg, void *tag, uint64_t upto, size_t len, int rc)
{
	struct journal *j = arg;

	if (tag) { /* the batch that adds a compaction's tail to journal.new */
		compact_switch(j, upto, rc);
		return;
	}
	if (rc < 0) {
		journal_fail(j, rc);
	} else {
		j->size += len;
		j->written_seq = upto;
		if (j->on_sync)
			j->on_sync(j->on_sync_arg, syncer_last_usec(j->syncer));
		if (j->on_durable && j->sent_copy)
			j->on_durable(j->on_durable_arg, j->sent_copy, j->sent_len, upto);
	}
	free(j->sent_copy);
	j->sent_copy = NULL;
	run_waiters(j, j->written_seq);
	if (j->compact_state == COMPACT_READY)
		compact_tail_start(j);
	hand_off(j);
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct journal *j = arg;

	hand_off(j);
	/* waiters for what is durable already (nothing new was appended) */
	if (!syncer_busy(j->syncer))
		run_waiters(j, j->written_seq);
}

int journal_flush(struct journal *j)
{
	for (;;) {
		if (j->compact_state == COMPACT_READY)
			compact_tail_start(j);
		hand_off(j);
		if (!syncer_busy(j->syncer))
			break;
		syncer_wait(j->syncer);
	}
	run_waiters(j, j->written_seq);
	return j->err;
}

int journal_error(const struct journal *j)
{
	return j->err;
}

/* ---- rewrite ---- */

/* Write gen's events to fd (texts once, as w notes them); returns the bytes
 * written or -errno. */
static ssize_t rewrite_events(int fd, journal_gen_f gen, void *arg, uint64_t base,
                              struct jtext_out *w)
{
	char *out = NULL;
	size_t used = 0, cap = 0, size = 0, i = 0;
	union job_event ev;
	ssize_t rc = 0;

	for (;;) {
		memset(&ev, 0, sizeof(ev));
		if (!gen(arg, i++, &ev))
			break;
		/* a snapshot: its events have no number of their own */
		ev.head.seq = 0;
		if (ev.head.type == EV_META)
			ev.meta.seq_base = base;
		size += jtext_frame_append(w, &ev, &out, &used, &cap);
		job_event_release(&ev);
		if (used >= REWRITE_CHUNK) {
			if ((rc = fd_write_all(fd, out, used)) < 0)
				goto out;
			used = 0;
		}
	}
	if ((rc = fd_write_all(fd, out, used)) < 0)
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

/* A snapshot's texts: a file of its own, ids of their own. */
static struct jtext_out snapshot_texts(struct journal *j)
{
	return (struct jtext_out){j->texts, ++j->text_gen, 1, JTEXT_SNAPSHOT};
}

int journal_rewrite(struct journal *j, journal_gen_f gen, void *arg,
                    struct rota_error *err)
{
	char *tmp = xasprintf("%s.new", j->path);
	int fd = -1, nfd, rc = -1, was_failed;
	ssize_t size;
	struct jtext_out snap;

	journal_compact_abort(j);
	journal_flush(j);
	was_failed = j->err || j->need_rewrite;
	if (keep_damaged(j, err) < 0)
		goto fail;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		errprintf(err, "open %s: %s", tmp, strerror(errno));
		goto fail;
	}
	snap = snapshot_texts(j);
	size = rewrite_events(fd, gen, arg, j->next_seq - 1, &snap);
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
	j->compacted = j->size;
	j->compactions++;
	if (j->texts)
		j->out.gen = snap.gen; /* what the snapshot noted is in the file */
	rc = 0;
	goto out;
fail:
	texts_forget(j); /* a failed snapshot's notes are of no file */
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

int journal_needs_rewrite(const struct journal *j)
{
	return j->need_rewrite || j->err;
}

size_t journal_compacted_size(const struct journal *j)
{
	return j->compacted;
}

void journal_on_durable(struct journal *j,
                        void (*fn)(void *arg, const char *recs, size_t len,
                                   uint64_t upto),
                        void *arg)
{
	/* from now on the followers' copy is kept as events are appended:
	 * first everything appended before is made durable (the caller sent
	 * what is durable, or sends it next) */
	if (fn && !j->on_durable)
		journal_flush(j);
	if (!fn) {
		free(j->sbuf);
		free(j->stail);
		j->sbuf = j->stail = NULL;
		j->slen = j->scap = j->stail_len = j->stail_cap = 0;
	}
	j->on_durable = fn;
	j->on_durable_arg = arg;
}

void journal_set_next_seq(struct journal *j, uint64_t next)
{
	j->next_seq = next;
	j->written_seq = next - 1;
}

void journal_set_gate(struct journal *j, uint64_t (*gate)(void *arg), void *arg)
{
	j->gate = gate;
	j->gate_arg = arg;
	run_waiters(j, j->written_seq);
}

void journal_on_sync(struct journal *j, void (*fn)(void *arg, uint64_t usec), void *arg)
{
	j->on_sync = fn;
	j->on_sync_arg = arg;
}

unsigned journal_compactions(const struct journal *j)
{
	return j->compactions;
}

/* ---- compaction in a child process ----
 *
 * As Redis rewrites its append-only file: fork() gives the child a frozen copy
 * of the state, which it writes as a snapshot to journal.new while the parent
 * goes on appending to the journal (every event then is kept in `tail` too).
 * When the child is done the parent adds the tail, syncs, and renames. */

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

static void compact_reset(struct journal *j)
{
	char *tmp = xasprintf("%s.new", j->path);

	if (j->compact_pid) {
		kill(j->compact_pid, SIGKILL);
		while (waitpid(j->compact_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (j->compact_state != COMPACT_NONE)
		unlink(tmp); /* a finished compaction renamed it away */
	free(tmp);
	if (j->compact_ev)
		event_free(j->compact_ev);
	j->compact_ev = NULL;
	if (j->compact_fd >= 0)
		close(j->compact_fd);
	if (j->compact_new >= 0)
		close(j->compact_new);
	j->compact_fd = j->compact_new = -1;
	j->compact_pid = 0;
	j->compact_state = COMPACT_NONE;
	free(j->tail);
	j->tail = NULL;
	j->tail_len = j->tail_cap = 0;
	free(j->stail);
	j->stail = NULL;
	j->stail_len = j->stail_cap = 0;
}

void journal_compact_abort(struct journal *j)
{
	/* a tail in flight is let finish: the journal switches, or fails */
	while (j->compact_state == COMPACT_TAIL)
		syncer_wait(j->syncer);
	if (j->compact_state != COMPACT_NONE)
		compact_reset(j);
	hand_off(j);
}

/* The child is done: once the writer thread is free, it adds what was
 * appended since the fork (the tail) to journal.new.  What waits to be
 * written to the old file is all in the tail (or, from before the fork, in
 * the snapshot): it is dropped here, and its waiters answered when the tail
 * is synced. */
static void compact_tail_start(struct journal *j)
{
	char *tmp;

	if (j->compact_state != COMPACT_READY || syncer_busy(j->syncer))
		return;
	tmp = xasprintf("%s.new", j->path);
	j->compact_new = open(tmp, O_WRONLY | O_APPEND | O_CLOEXEC);
	free(tmp);
	if (j->compact_new < 0) {
		log_err("journal compaction: open %s.new: %s", j->path, strerror(errno));
		compact_reset(j);
		return;
	}
	j->compact_state = COMPACT_TAIL;
	if (j->on_durable) {
		j->tail_copy = j->stail;
		j->tail_copy_len = j->stail_len;
		j->stail = NULL;
		j->stail_len = j->stail_cap = 0;
	}
	syncer_submit(j->syncer, j->compact_new, j->tail, j->tail_len, j->next_seq - 1, j,
	              compact_tail_after);
	j->tail = NULL; /* the writer thread's now */
	j->tail_len = j->tail_cap = 0;
	j->len = j->slen = 0;
}

/* On the writer thread, after the tail is synced: journal.new becomes the
 * journal (rename, then the directory synced).  It reads only what the loop
 * does not change while the tail is in flight. */
static int compact_tail_after(void *tag)
{
	struct journal *j = tag;
	char *tmp = xasprintf("%s.new", j->path);
	struct stat st;
	int rc = 0;

	if (fstat(j->compact_new, &st) < 0 || rename(tmp, j->path) < 0)
		rc = -errno;
	else if (sync_dir(j->dir) < 0)
		log_err("journal: sync %s: %s", j->dir, strerror(errno));
	j->compact_size = (size_t)st.st_size;
	free(tmp);
	return rc;
}

/* The tail is synced and journal.new renamed (rc 0): switch to it. */
static void compact_switch(struct journal *j, uint64_t upto, int rc)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rc < 0) {
		/* what was dropped for the tail is in neither file */
		log_err("journal compaction: finishing: %s", strerror(-rc));
		compact_reset(j);
		journal_fail(j, rc);
		run_waiters(j, j->written_seq);
		return;
	}
	syncer_close(j->syncer, j->fd);
	j->fd = j->compact_new;
	j->compact_new = -1;
	j->size = j->compacted = j->compact_size;
	j->written_seq = upto;
	j->base_seq = j->compact_base;
	j->compactions++;
	/* what waited behind the compaction: followers skip what they have */
	if (j->on_durable && j->tail_copy)
		j->on_durable(j->on_durable_arg, j->tail_copy, j->tail_copy_len, upto);
	free(j->tail_copy);
	j->tail_copy = NULL;
	log_info("journal compacted: %zu bytes (snapshot to event %llu, then %llu "
	         "more), %.0f ms; the loop spent %.1f ms forking, %.1f ms switching",
	         j->size, (unsigned long long)j->compact_base,
	         (unsigned long long)(upto - j->compact_base), elapsed_ms(&j->compact_t0),
	         j->fork_ms, elapsed_ms(&t0));
	j->compact_state = COMPACT_NONE;
	compact_reset(j);
	run_waiters(j, j->written_seq);
	hand_off(j);
}

static void compact_cb(evutil_socket_t fd, short what, void *arg)
{
	struct journal *j = arg;
	char st = 1;
	ssize_t n = read(fd, &st, 1);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	while (waitpid(j->compact_pid, NULL, 0) < 0 && errno == EINTR)
		;
	j->compact_pid = 0;
	event_free(j->compact_ev);
	j->compact_ev = NULL;
	if (n != 1 || st != 0 || j->err) {
		log_err("journal compaction %s; the journal goes on as it was",
		        j->err ? "dropped: the journal failed meanwhile"
		               : "failed in its process");
		compact_reset(j);
		return;
	}
	j->compact_state = COMPACT_READY;
	compact_tail_start(j);
}

int journal_compact_start(struct journal *j, journal_gen_f gen, void *arg,
                          struct rota_error *err)
{
	char *tmp;
	int p[2], out;
	pid_t pid;

	if (j->compact_state != COMPACT_NONE || j->err || j->need_rewrite)
		return errprintf(err, "not now"), -EBUSY;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return errprintf(err, "pipe: %s", strerror(errno)), -errno;
	tmp = xasprintf("%s.new", j->path);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	free(tmp);
	if (out < 0) {
		close(p[0]);
		close(p[1]);
		return errprintf(err, "open journal.new: %s", strerror(errno)), -errno;
	}
	clock_gettime(CLOCK_MONOTONIC, &j->compact_t0);
	/* the events to here are what the child's copy of the state holds */
	j->compact_base = j->next_seq - 1;
	pid = fork();
	if (pid < 0) {
		close(out);
		close(p[0]);
		close(p[1]);
		return errprintf(err, "fork: %s", strerror(errno)), -errno;
	}
	if (pid == 0) {
		struct jtext_out snap;
		char st;
		/* the child: only the snapshot and its status; nothing else it
		 * inherited (sockets, the journal) stays open */
		if (dup2(out, 3) < 0 || dup2(p[1], 4) < 0)
			_exit(1);
		close_range(5, ~0U, 0);
		snap = snapshot_texts(j);
		st = rewrite_events(3, gen, arg, j->compact_base, &snap) < 0 ? 1 : 0;
		(void)!write(4, &st, 1);
		_exit(st);
	}
	j->fork_ms = elapsed_ms(&j->compact_t0);
	/* the new file has the texts of the snapshot; what is appended from
	 * now on is also its tail, which must say its own */
	texts_forget(j);
	log_info("journal compaction started: %zu bytes, snapshot to event %llu (fork "
	         "%.1f ms)",
	         j->size, (unsigned long long)j->compact_base, j->fork_ms);
	close(out);
	close(p[1]);
	j->compact_pid = pid;
	j->compact_state = COMPACT_CHILD;
	j->compact_fd = p[0];
	j->compact_ev = event_new(event_get_base(j->flush_ev), p[0], EV_READ | EV_PERSIST,
	                          compact_cb, j);
	event_add(j->compact_ev, NULL);
	return 0;
}

int journal_compacting(const struct journal *j)
{
	return j->compact_state != COMPACT_NONE;
}
