/* image.c - the state written whole at a clean stop, read back at start-up
 * (see image.h).
 *
 * The file: a header (struct image_head), then a body of records, each a
 * kind byte and its fields in this machine's byte order (the header's magic
 * and layout number say which build may read it):
 *   T  u32 len, bytes                 a text (number: one more than the last)
 *   V  u32 n, n x (u32 len, bytes)    a string vector (numbered with texts)
 *   O  u32 uid, u32 gid, user, group  an owner (names as u32 len, bytes)
 *   J  a job's SUBMIT: the fields put_job writes, then its request's fields
 *      in job_desc_type's order (u32, u64; texts as their number, 0 none)
 *   E  u32 len, an event as the journal encodes it (job_event_encode)
 * Texts and owners come before the first record that names them.
 */
#include <errno.h>
#include <fcntl.h>
#include <isa-l/crc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/intern.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "ctld/ctld.h"
#include "ctld/image.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/state.h"
#include "ctld/syncer.h"
#include "sched/predict.h"
#include "common/common.h"

/* Fields of a job request an image can hold (put_job, in_job). */
#define IMAGE_DESC_FIELDS_MAX 128

#define IMAGE_MAGIC   "ROTAIMG1"
#define IMAGE_VERSION 2u         /* 2: the journal mark's CRC is of a window */
#define IMAGE_CHUNK   (1u << 20) /* written when the buffer holds this much */
#define STR_NONE      UINT32_MAX /* an inline string that is NULL */

enum { REC_TEXT = 'T', REC_VEC = 'V', REC_OWNER = 'O', REC_JOB = 'J', REC_EVENT = 'E' };

struct image_head {
	char magic[8];
	uint32_t version;
	uint32_t layout; /* image_layout(): the request's fields, this build's */
	struct journal_mark mark;
	uint64_t body_len;
	uint32_t body_crc;
	uint32_t head_crc; /* of the bytes before it */
};

static uint32_t crc(const void *p, size_t n)
{
	return crc32_gzip_refl(0, p, (uint64_t)n);
}

/* The request's fields as this build has them (names, kinds, order): an
 * image of another build's request is not read. */
static uint32_t image_layout(void)
{
	uint64_t h = 1469598103934665603ull ^ IMAGE_VERSION;

	for (size_t i = 0; i < job_desc_type.nfields; i++) {
		const struct rota_field *f = &job_desc_type.fields[i];
		for (const char *c = f->name; *c; c++)
			h = (h ^ (uint8_t)*c) * 1099511628211ull;
		h = (h ^ (uint64_t)f->kind) * 1099511628211ull;
	}
	return (uint32_t)(h ^ h >> 32);
}

static char *image_path(const struct ctld *ctld, const char *suffix)
{
	return xasprintf("%s/" IMAGE_FILE "%s", ctld->conf->state_save_location, suffix);
}

/* ---- writing ---- */

/* A kept copy's (or an owner's) address and its number in the image. */
struct numbered {
	const void *p;
	uint32_t num;
};

struct img_out {
	int fd;
	int err; /* the first write error (-errno) */
	char *buf;
	size_t len, cap;
	uint64_t body_len;
	uint32_t body_crc;
	struct numbered *map; /* open addressing by address */
	size_t mcap, mcount;
	uint32_t ntexts, nowners;
	size_t jobs, events;
};

static void out_flush(struct img_out *w)
{
	int rc;

	if (!w->len)
		return;
	w->body_crc = crc32_gzip_refl(w->body_crc, (const uint8_t *)w->buf, w->len);
	w->body_len += w->len;
	if (!w->err && (rc = fd_write_all(w->fd, w->buf, w->len)) < 0)
		w->err = rc;
	w->len = 0;
}

static void out_bytes(struct img_out *w, const void *p, size_t n)
{
	if (!n)
		return;
	if (w->len + n > w->cap) {
		w->cap = w->cap ? w->cap : IMAGE_CHUNK + 4096;
		while (w->len + n > w->cap)
			w->cap *= 2;
		w->buf = xrealloc(w->buf, w->cap);
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void out_u8(struct img_out *w, uint8_t v)
{
	out_bytes(w, &v, 1);
}

static void out_u32(struct img_out *w, uint32_t v)
{
	out_bytes(w, &v, 4);
}

static void out_u64(struct img_out *w, uint64_t v)
{
	out_bytes(w, &v, 8);
}

/* An inline string: u32 length (STR_NONE for NULL), bytes. */
static void out_str(struct img_out *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	out_u32(w, s ? (uint32_t)n : STR_NONE);
	out_bytes(w, s, n);
}

static size_t map_slot(const struct img_out *w, const void *p)
{
	size_t i = (size_t)(((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull) >> 32) &
	           (w->mcap - 1);

	while (w->map[i].p && w->map[i].p != p)
		i = (i + 1) & (w->mcap - 1);
	return i;
}

/* The number of p in the image, 0 when it has none yet. */
static uint32_t map_get(const struct img_out *w, const void *p)
{
	return w->mcap ? w->map[map_slot(w, p)].num : 0;
}

static void map_put(struct img_out *w, const void *p, uint32_t num)
{
	if ((w->mcount + 1) * 2 > w->mcap) {
		struct numbered *old = w->map;
		size_t n = w->mcap;
		w->mcap = n ? n * 2 : 256;
		w->map = xcalloc(w->mcap, sizeof(*w->map));
		for (size_t i = 0; i < n; i++)
			if (old[i].p)
				w->map[map_slot(w, old[i].p)] = old[i];
		free(old);
	}
	w->map[map_slot(w, p)] = (struct numbered){p, num};
	w->mcount++;
}

/* The number of a kept text (a string or, is_vec, a vector), written first
 * when it is new; 0 for NULL. */
static uint32_t out_text(struct img_out *w, const void *text, int is_vec)
{
	uint32_t num;

	if (!text)
		return 0;
	if ((num = map_get(w, text)))
		return num;
	if (is_vec) {
		char *const *v = text;
		size_t n = 0;
		while (v[n])
			n++;
		out_u8(w, REC_VEC);
		out_u32(w, (uint32_t)n);
		for (size_t i = 0; i < n; i++)
			out_str(w, v[i]);
	} else {
		out_u8(w, REC_TEXT);
		out_str(w, text);
	}
	map_put(w, text, num = ++w->ntexts);
	return num;
}

static uint32_t out_owner(struct img_out *w, const struct owner *o)
{
	uint32_t num = map_get(w, o);

	if (num)
		return num;
	out_u8(w, REC_OWNER);
	out_u32(w, o->uid);
	out_u32(w, o->gid);
	out_str(w, o->user);
	out_str(w, o->group);
	map_put(w, o, num = ++w->nowners);
	return num;
}

/* A job's SUBMIT, as a snapshot has it (ctld_state_submit_fields). */
static void put_job(void *arg, const struct job *j)
{
	struct img_out *w = arg;
	const char *d = (const char *)&j->desc;
	uint32_t owner = out_owner(w, j->owner);
	uint32_t nums[IMAGE_DESC_FIELDS_MAX];
	struct ev_submit ev = {0};

	ctld_state_submit_fields(j, &ev);

	/* the texts first: a record names only what came before it */
	for (size_t i = 0; i < job_desc_type.nfields && i < IMAGE_DESC_FIELDS_MAX; i++) {
		const struct rota_field *f = &job_desc_type.fields[i];
		if (f->kind == FK_STR || f->kind == FK_STRV)
			nums[i] = out_text(w, *(void *const *)codec_field(f, d),
			                   f->kind == FK_STRV);
	}
	out_u8(w, REC_JOB);
	out_u32(w, ev.job_id);
	out_u64(w, (uint64_t)ev.time);
	out_u32(w, owner);
	out_u32(w, ev.priority);
	out_u32(w, ev.hold);
	out_u32(w, ev.time_limit);
	out_u32(w, ev.restart_cnt);
	out_u32(w, ev.state);
	out_u32(w, ev.flags);
	out_u64(w, (uint64_t)ev.eligible_time);
	out_u32(w, ev.array_job_id);
	out_u32(w, ev.array_task_id);
	out_u32(w, ev.throttle);
	out_str(w, ev.array_pending);
	free(ev.array_pending);
	for (size_t i = 0; i < job_desc_type.nfields && i < IMAGE_DESC_FIELDS_MAX; i++) {
		const struct rota_field *f = &job_desc_type.fields[i];
		if (f->kind == FK_STR || f->kind == FK_STRV)
			out_u32(w, nums[i]);
		else if (f->kind == FK_U32 || f->kind == FK_I32)
			out_bytes(w, codec_field(f, d), 4);
		else
			out_bytes(w, codec_field(f, d), 8);
	}
	w->jobs++;
	if (w->len >= IMAGE_CHUNK)
		out_flush(w);
}

static void put_event(void *arg, union job_event *ev)
{
	struct img_out *w = arg;
	char *buf = NULL;
	size_t len = 0;

	if (job_event_encode(ev, &buf, &len) < 0) {
		w->err = w->err ? w->err : -EINVAL;
		return;
	}
	out_u8(w, REC_EVENT);
	out_u32(w, (uint32_t)len);
	out_bytes(w, buf, len);
	free(buf);
	w->events++;
	if (w->len >= IMAGE_CHUNK)
		out_flush(w);
}

/* Can put_job write every field of the request? */
static int layout_supported(void)
{
	if (job_desc_type.nfields > IMAGE_DESC_FIELDS_MAX)
		return 0;
	for (size_t i = 0; i < job_desc_type.nfields; i++)
		switch (job_desc_type.fields[i].kind) {
		case FK_U32:
		case FK_I32:
		case FK_U64:
		case FK_I64:
		case FK_STR:
		case FK_STRV:
			break;
		default:
			return 0;
		}
	return 1;
}

int image_write(struct ctld *ctld, struct rota_error *err)
{
	struct img_out w = {.fd = -1};
	struct image_head h = {.version = IMAGE_VERSION, .layout = image_layout()};
	char *tmp = image_path(ctld, ".new"), *path = image_path(ctld, "");
	int rc = -1;
	double t0 = time_mono();

	memcpy(h.magic, IMAGE_MAGIC, sizeof(h.magic));
	if (!layout_supported()) {
		errprintf(err, "the job request has fields an image cannot hold");
		goto out;
	}
	/* a compaction under way would make another file: it stops here */
	journal_compact_abort(ctld->journal);
	/* a flush runs the waiters it makes durable, which may append (a
	 * start): again until nothing is left */
	for (int i = 0;; i++) {
		int got = journal_flush(ctld->journal) < 0
		              ? -EIO
		              : journal_mark_get(ctld->journal, &h.mark);
		if (got == 0)
			break;
		if (got != -EBUSY || i == 3) {
			errprintf(err, "the journal is not all written");
			goto out;
		}
	}
	w.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (w.fd < 0) {
		errprintf(err, "open %s: %s", tmp, strerror(errno));
		goto out;
	}
	/* the header last, once the body's length and CRC are known */
	if (lseek(w.fd, (off_t)sizeof(h), SEEK_SET) < 0)
		w.err = -errno;
	ctld_state_walk(ctld, put_job, put_event, &w);
	out_flush(&w);
	h.body_len = w.body_len;
	h.body_crc = w.body_crc;
	h.head_crc = crc(&h, offsetof(struct image_head, head_crc));
	if (!w.err && pwrite(w.fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		w.err = -errno ? -errno : -EIO;
	if (w.err) {
		errprintf(err, "write %s: %s", tmp, strerror(-w.err));
		goto out;
	}
	/* no fsync: one a crash tore does not check, and the journal is read */
	if (rename(tmp, path) < 0) {
		errprintf(err, "rename %s: %s", tmp, strerror(errno));
		goto out;
	}
	log_info(
	    "state image written: %zu jobs, %u texts, %zu other events, %llu bytes in "
	    "%.1f ms",
	    w.jobs, w.ntexts, w.events, (unsigned long long)(sizeof(h) + w.body_len),
	    (time_mono() - t0) * 1e3);
	rc = 0;
out:
	if (w.fd >= 0)
		close(w.fd);
	if (rc < 0)
		unlink(tmp);
	free(w.buf);
	free(w.map);
	free(tmp);
	free(path);
	return rc;
}

/* ---- reading ---- */

struct img_in {
	const uint8_t *p, *end;
	int bad;
	void **texts; /* [1..ntexts]: kept copies, one count each is ours */
	uint8_t *is_vec;
	uint32_t *uses; /* [1..ntexts]: by the jobs loaded (counted at the end) */
	size_t ntexts, tcap;
	const struct owner **owners; /* [1..nowners]: counted for us */
	size_t nowners, ocap;
	size_t jobs, events;
};

static int in_need(struct img_in *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	return 1;
}

static uint8_t in_u8(struct img_in *r)
{
	return in_need(r, 1) ? *r->p++ : 0;
}

static uint32_t in_u32(struct img_in *r)
{
	uint32_t v = 0;

	if (in_need(r, 4)) {
		memcpy(&v, r->p, 4);
		r->p += 4;
	}
	return v;
}

static uint64_t in_u64(struct img_in *r)
{
	uint64_t v = 0;

	if (in_need(r, 8)) {
		memcpy(&v, r->p, 8);
		r->p += 8;
	}
	return v;
}

/* An inline string, allocated (NULL for none, or when bad). */
static char *in_str(struct img_in *r)
{
	uint32_t n = in_u32(r);
	char *s;

	if (n == STR_NONE || !in_need(r, n))
		return NULL;
	s = xstrndup((const char *)r->p, n);
	r->p += n;
	return s;
}

static void in_text(struct img_in *r, struct intern *kept, int is_vec)
{
	void *text;

	if (is_vec) {
		uint32_t n = in_u32(r);
		char **v;
		/* each string has at least its length */
		if (!in_need(r, (size_t)n * 4))
			return;
		v = xcalloc((size_t)n + 1, sizeof(char *));
		for (uint32_t i = 0; i < n && !r->bad; i++)
			if (!(v[i] = in_str(r)))
				r->bad = 1;
		if (r->bad) {
			strv_free(v); /* the strings read before */
			return;
		}
		text = intern_strv(kept, v);
	} else {
		char *s = in_str(r);
		if (!s) {
			r->bad = 1;
			return;
		}
		text = intern_str(kept, s);
	}
	if (r->ntexts + 2 > r->tcap) {
		r->tcap = r->tcap ? r->tcap * 2 : 256;
		r->texts = xrealloc(r->texts, r->tcap * sizeof(*r->texts));
		r->is_vec = xrealloc(r->is_vec, r->tcap);
		r->uses = xrealloc(r->uses, r->tcap * sizeof(*r->uses));
	}
	r->ntexts++;
	r->texts[r->ntexts] = text;
	r->is_vec[r->ntexts] = (uint8_t)is_vec;
	r->uses[r->ntexts] = 0;
}

static void in_owner(struct img_in *r, struct job_mgr *jm)
{
	uint32_t uid = in_u32(r), gid = in_u32(r);
	char *user = in_str(r), *group = in_str(r);

	if (r->bad || !user || !group) {
		free(user);
		free(group);
		r->bad = 1;
		return;
	}
	if (r->nowners + 2 > r->ocap) {
		r->ocap = r->ocap ? r->ocap * 2 : 16;
		r->owners = xrealloc(r->owners, r->ocap * sizeof(*r->owners));
	}
	r->owners[++r->nowners] = job_mgr_owner_get(jm, uid, gid, user, group);
}

/* Text number num of the kind wanted, or NULL (0, or a bad number: bad). */
static void *text_of(struct img_in *r, uint32_t num, int is_vec)
{
	if (!num)
		return NULL;
	if (num > r->ntexts || r->is_vec[num] != is_vec) {
		r->bad = 1;
		return NULL;
	}
	return r->texts[num];
}

static void in_job(struct img_in *r, struct ctld *ctld)
{
	struct job_desc desc = {0};
	struct ev_submit ev = {.type = EV_SUBMIT, .desc = &desc, .desc_count = 1};
	const struct owner *owner;
	uint32_t num, nums[IMAGE_DESC_FIELDS_MAX];
	size_t nnums = 0;

	ev.job_id = in_u32(r);
	ev.time = (int64_t)in_u64(r);
	num = in_u32(r);
	ev.priority = in_u32(r);
	ev.hold = in_u32(r);
	ev.time_limit = in_u32(r);
	ev.restart_cnt = in_u32(r);
	ev.state = in_u32(r);
	ev.flags = in_u32(r);
	ev.eligible_time = (int64_t)in_u64(r);
	ev.array_job_id = in_u32(r);
	ev.array_task_id = in_u32(r);
	ev.throttle = in_u32(r);
	ev.array_pending = in_str(r);
	for (size_t i = 0; i < job_desc_type.nfields && !r->bad; i++) {
		const struct rota_field *f = &job_desc_type.fields[i];
		/* what is zero is left so (an out-of-line part stays away) */
		if (f->kind == FK_STR || f->kind == FK_STRV) {
			void *text;
			nums[nnums] = in_u32(r);
			text = text_of(r, nums[nnums], f->kind == FK_STRV);
			if (text)
				*(void **)codec_field_mut(f, &desc) = text;
			nnums += nums[nnums] !=
			         0; /* at most IMAGE_DESC_FIELDS_MAX (layout_supported) */
		} else if (f->kind == FK_U32 || f->kind == FK_I32) {
			uint32_t v = in_u32(r);
			if (v)
				memcpy(codec_field_mut(f, &desc), &v, 4);
		} else {
			uint64_t v = in_u64(r);
			if (v)
				memcpy(codec_field_mut(f, &desc), &v, 8);
		}
	}
	if (!num || num > r->nowners)
		r->bad = 1;
	if (!r->bad) {
		owner = r->owners[num];
		ev.uid = owner->uid;
		ev.gid = owner->gid;
		/* the texts are the kept copies, counted for the job at the
		 * end (in_release) */
		if (job_event_apply_submit_as(ctld, &ev, owner) < 0) {
			r->bad = 1;
		} else {
			r->jobs++;
			for (size_t i = 0; i < nnums; i++)
				r->uses[nums[i]]++;
		}
	}
	free(desc.ext); /* not taken: its texts are the image's */
	free(ev.array_pending);
}

static void in_event(struct img_in *r, struct ctld *ctld)
{
	uint32_t n = in_u32(r);
	union job_event ev;
	struct rota_error err = {""};
	int rc;

	if (!in_need(r, n))
		return;
	if (job_event_decode((const char *)r->p, n, &ev, &err) < 0) {
		r->bad = 1;
		return;
	}
	r->p += n;
	/* an event that did not fit the state when it was written would not
	 * be in the image: one that does not now is a bad image; but a node
	 * taken out of slurm.conf since has its state skipped, as a replay
	 * does */
	ctld->restoring = 1; /* the image's events are its state */
	rc = job_event_apply_owned(ctld, &ev);
	ctld->restoring = 0;
	if (rc < 0 &&
	    !((ev.head.type == EV_NODE_STATE || ev.head.type == EV_NODE_FEATURES) &&
	      rc == -ENOENT))
		r->bad = 1;
	else
		r->events++;
	job_event_release(&ev);
}

static void in_release(struct img_in *r, struct ctld *ctld)
{
	struct intern *kept = job_mgr_texts(ctld->jobs);

	/* the jobs' counts, and ours given back */
	for (size_t i = 1; i <= r->ntexts; i++)
		if (r->is_vec[i]) {
			intern_hold_strv(kept, r->texts[i], r->uses[i]);
			intern_drop_strv(kept, r->texts[i]);
		} else {
			intern_hold_str(kept, r->texts[i], r->uses[i]);
			intern_drop_str(kept, r->texts[i]);
		}
	for (size_t i = 1; i <= r->nowners; i++)
		job_mgr_owner_drop(ctld->jobs, r->owners[i]);
	free(r->texts);
	free(r->is_vec);
	free(r->uses);
	free(r->owners);
}

/* Why the image at path cannot be used (NULL: it can; *ret_map, *ret_size:
 * the file mapped). */
static const char *image_check(struct ctld *ctld, int fd, struct image_head *h,
                               void **ret_map, size_t *ret_size)
{
	struct stat st;
	void *map;

	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(*h) ||
	    pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h))
		return "too short";
	if (memcmp(h->magic, IMAGE_MAGIC, sizeof(h->magic)) ||
	    h->version != IMAGE_VERSION ||
	    h->head_crc != crc(h, offsetof(struct image_head, head_crc)))
		return "not an image of this format";
	if (h->layout != image_layout() || !layout_supported())
		return "written by a build whose job requests differ";
	if (h->body_len != (uint64_t)st.st_size - sizeof(*h))
		return "cut short";
	if (!journal_mark_holds(ctld->journal, &h->mark))
		return "of a journal since rewritten";
	map =
	    mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		return "cannot be mapped";
	if (crc((const uint8_t *)map + sizeof(*h), (size_t)h->body_len) != h->body_crc) {
		munmap(map, (size_t)st.st_size);
		return "damaged";
	}
	*ret_map = map;
	*ret_size = (size_t)st.st_size;
	return NULL;
}

int image_load(struct ctld *ctld, struct journal_mark *mark)
{
	char *path = image_path(ctld, "");
	struct image_head h;
	struct img_in r = {0};
	struct intern *kept = job_mgr_texts(ctld->jobs);
	const char *why;
	void *map = NULL;
	size_t size = 0;
	double t0 = time_mono();
	double checked_ms;
	enum predict_kind kind;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		free(path);
		return 0;
	}
	why = image_check(ctld, fd, &h, &map, &size);
	close(fd);
	if (why) {
		log_info("state image %s not used: %s", path, why);
		unlink(path);
		free(path);
		return 0;
	}
	checked_ms = (time_mono() - t0) * 1e3;
	r.p = (const uint8_t *)map + sizeof(h);
	r.end = r.p + h.body_len;
	while (r.p < r.end && !r.bad) {
		switch (in_u8(&r)) {
		case REC_TEXT:
			in_text(&r, kept, 0);
			break;
		case REC_VEC:
			in_text(&r, kept, 1);
			break;
		case REC_OWNER:
			in_owner(&r, ctld->jobs);
			break;
		case REC_JOB:
			in_job(&r, ctld);
			break;
		case REC_EVENT:
			in_event(&r, ctld);
			break;
		default:
			r.bad = 1;
		}
	}
	in_release(&r, ctld);
	munmap(map, size);
	if (r.bad) {
		/* what was loaded goes: the journal is replayed whole */
		log_err("state image %s is bad at byte %zu: the journal is read instead",
		        path, (size_t)(r.p - (const uint8_t *)map));
		ctld_state_clear(ctld);
		/* the runtimes its ended jobs taught are taught again */
		kind = predict_kind(ctld->predict);
		predict_destroy(ctld->predict);
		predict_destroy(ctld->learned);
		ctld->predict = predict_create(kind);
		ctld->learned = predict_create(PREDICT_LEARNED);
		if (!ctld->predict || !ctld->learned)
			fatal("out of memory");
		predict_set_correction(ctld->learned, PREDICT_CORRECT_REQUESTED);
		unlink(path);
		free(path);
		return 0;
	}
	log_info("state image: %zu jobs, %zu other events in %.1f ms (%.1f checking it "
	         "and the "
	         "journal); the journal goes on at byte %llu",
	         r.jobs, r.events, (time_mono() - t0) * 1e3, checked_ms,
	         (unsigned long long)h.mark.offset);
	*mark = h.mark;
	free(path);
	return 1;
}
