/* job_list.c - squeue's listing, printed by the controller (MSG_JOB_LIST_REQ).
 *
 * Each job is read once into a job_info slot that is reused: the filters, the
 * sort keys and the job's line are read from it (proto/joblist.h), and the
 * lines are then sent in order.  The client gets text in frames of about
 * JOB_LIST_CHUNK bytes and prints it as it comes: no records to decode, no
 * job_info per job held at once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/conf.h"
#include "common/fmtrow.h"
#include "common/ranksort.h"
#include "common/states.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "proto/joblist.h"
#include "proto/messages.h"
#include "common/common.h"

#define JOB_LIST_CHUNK (32u << 10)
/* At most this many -j ids are looked up; more walk the queue. */
#define JOB_LIST_LOOKUP_IDS 64

struct list_out {
	struct joblist_sink sink;
	struct chan *ch;
	time_t now;
};

static void send_text(struct list_out *o, int more)
{
	struct job_list_resp r = {
	    .now = o->now,
	    .text = {(uint8_t *)o->sink.buf.data, (uint32_t)o->sink.buf.len},
	    .more = (uint32_t)more};

	chan_send(o->ch, MSG_JOB_LIST_RESP, &r);
	/* the client prints this frame while the next is made */
	if (more)
		chan_write_now(o->ch);
	o->sink.buf.len = 0;
}

static void flush_more(struct joblist_sink *s)
{
	send_text(s->arg, 1);
}

/* The lines of the jobs kept, in the order they were read: row i is
 * text.data[off[i]..off[i + 1]). */
struct rows {
	struct joblist_sink text; /* never flushed */
	size_t *off;
	size_t n, cap;
};

/* A listing's buffers, kept for the next listing while they come (a
 * monitoring loop, `squeue -i`, several users): 10,000 jobs' lines are a
 * megabyte, and mapped afresh for every listing their page faults and
 * growth were a fifth of its cost. */
struct job_list_bufs {
	struct rows rows;
	struct fmtbuf frame;
	time_t used;
};

#define JOB_LIST_KEEP_S    3          /* seconds without a listing before they go */
#define JOB_LIST_SHRINK_AT (4u << 20) /* bytes of lines kept whatever was used */

static struct job_list_bufs *bufs_get(struct ctld *ctld, time_t now)
{
	struct job_list_bufs *b = ctld->list_bufs;

	if (!b)
		b = ctld->list_bufs = xcalloc(1, sizeof(*b));
	b->rows.n = 0;
	b->rows.text.buf.len = 0;
	b->frame.len = 0;
	b->used = now;
	return b;
}

void job_list_bufs_free(struct ctld *ctld)
{
	struct job_list_bufs *b = ctld->list_bufs;

	if (!b)
		return;
	fmtbuf_release(&b->rows.text.buf);
	free(b->rows.off);
	fmtbuf_release(&b->frame);
	free(b);
	ctld->list_bufs = NULL;
}

void job_list_tick(struct ctld *ctld, time_t now)
{
	if (ctld->list_bufs && now - ctld->list_bufs->used >= JOB_LIST_KEEP_S)
		job_list_bufs_free(ctld);
}

static void row_begin(struct rows *r)
{
	if (r->n + 1 >= r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->off = xrealloc(r->off, r->cap * sizeof(*r->off));
	}
	r->off[r->n++] = r->text.buf.len;
	r->off[r->n] = r->text.buf.len;
}

/* The records -j's ids name, found by id (*n of them, in found[], which has
 * room for q->nids), when each id is a record that no other matches: not an
 * array's id, which its tasks match too, nor an id no longer known.  Returns
 * 0 when that was not so (the jobs are then walked). */
static int jobs_by_id(struct ctld *ctld, const struct joblist_query *q,
                      const struct job **found, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < q->nids; i++) {
		const struct job *job = job_find(ctld->jobs, q->ids[i]);

		/* an array's or heterogeneous job's id: all of it (walked) */
		if (!job || job->array_job_id == job->job_id || job_x(job)->het_job_id)
			return 0;
		if (i == 0 || q->ids[i] != q->ids[i - 1]) /* sorted */
			found[(*n)++] = job;
	}
	return 1;
}

/* Print job's line into r if l shows it.  Returns 1 if the job's ids match,
 * 0 if not, or -ENOMEM. */
static int print_row(struct ctld *ctld, const struct job *job,
                     const struct joblist_query *q, const struct fmt_layout *layout,
                     uint64_t mask, struct joblist_ctx *jctx, struct ranker *rk,
                     struct joblist_sort_arg *sarg, struct rows *r)
{
	struct job_info slot;
	int rc = 1;

	/* what a job's own fields rule out is not read into the slot */
	if (!joblist_query_id(q, job->job_id, job->array_job_id, job_x(job)->het_job_id))
		return 0;
	if (!joblist_query_uid(q, job->owner->uid))
		return 1;
	memset(&slot, 0, sizeof(slot));
	job_info_fill(ctld, job, &slot, mask);
	if (joblist_selected(q, &slot)) {
		if (ranker_add(rk, &slot, joblist_sort_value, slot.job_id, sarg) < 0) {
			rc = -ENOMEM;
		} else {
			row_begin(r);
			joblist_append(&r->text, layout, &slot, q->req->flags, jctx);
			r->off[r->n] = r->text.buf.len;
		}
	}
	job_info_release(&slot);
	return rc;
}

/* The lines of the jobs l shows (*order: row indexes, sorted).  Each job is
 * read once: its line is printed as it is kept, while its fields are at hand,
 * and the lines are put in order afterwards.  A few ids asked for (-j) are
 * looked up rather than the queue walked.  Returns 0, or
 * -ESLURM_INVALID_JOB_ID when the one -j id is unknown, or -ENOMEM. */
static int print_rows(struct ctld *ctld, const struct joblist_query *q,
                      const struct joblist_sort *sort, const struct fmt_layout *layout,
                      uint64_t mask, struct joblist_ctx *jctx, struct rows *r,
                      uint32_t **order)
{
	struct joblist_sort_arg sarg = {sort, jctx->now};
	struct ranker *rk = ranker_create(sort->rank, sort->n);
	const struct job *found[JOB_LIST_LOOKUP_IDS];
	int id_seen = 0, rc = -ENOMEM, seen;
	size_t nfound;

	if (!rk)
		return -ENOMEM;
	if (q->nids && q->nids <= JOB_LIST_LOOKUP_IDS &&
	    jobs_by_id(ctld, q, found, &nfound)) {
		for (size_t i = 0; i < nfound; i++)
			if ((seen = print_row(ctld, found[i], q, layout, mask, jctx, rk,
			                      &sarg, r)) < 0)
				goto out;
		id_seen = 1;
	} else {
		for (const struct job *job = job_first(ctld->jobs); job;
		     job = job->next) {
			if ((seen = print_row(ctld, job, q, layout, mask, jctx, rk, &sarg,
			                      r)) < 0)
				goto out;
			id_seen |= seen;
		}
	}
	if (q->req->job_ids.n == 1 && !id_seen)
		rc = -ESLURM_INVALID_JOB_ID;
	else
		rc = ranker_order(rk, order);
out:
	ranker_destroy(rk);
	return rc;
}

void job_mgr_list(struct ctld *ctld, struct caller *who, const struct job_list_req *req,
                  struct chan *ch)
{
	struct joblist_ctx jctx = {.now = time(NULL),
	                           .cluster = ctld->conf->cluster_name,
	                           .time_format = req->time_format};
	struct rota_error err = {""};
	struct fmt_layout *layout = NULL;
	struct joblist_sort sort;
	struct joblist_query q = {0};
	struct job_list_bufs *bufs = bufs_get(ctld, jctx.now);
	struct rows *rows = &bufs->rows;
	struct list_out out = {.sink = {.buf = bufs->frame,
	                                .flush_at = JOB_LIST_CHUNK,
	                                .flush = flush_more,
	                                .arg = &out},
	                       .ch = ch,
	                       .now = jctx.now};
	uint32_t *order = NULL;
	uint64_t mask;
	int rc;

	rc = fmt_layout_bind(req->format ? req->format : JOBLIST_DEFAULT_FMT,
	                     (req->flags & JOB_LIST_F_LONG) ? FMT_LONG : FMT_SHORT,
	                     joblist_fields, joblist_nfields, &layout, &err);
	if (rc == 0 && joblist_line_width(layout) > JOBLIST_MAX_LINE)
		rc = errprintf(&err, "a line of this format is over %u bytes wide",
		               JOBLIST_MAX_LINE);
	if (rc == 0)
		rc =
		    joblist_sort_parse(req->sort ? req->sort : JOBLIST_SORT, &sort, &err);
	if (rc == 0)
		rc = joblist_query_init(&q, req, &err);
	if (rc < 0) {
		chan_send_rc(ch, rc == -ENOMEM ? -ENOMEM : -EINVAL, err.text);
		goto out;
	}
	mask = joblist_fields_wanted(req, layout, &sort);
	rc = print_rows(ctld, &q, &sort, layout, mask, &jctx, rows, &order);
	if (rc < 0) {
		chan_send_rc(ch, rc, NULL);
		goto out;
	}
	for (size_t i = 0; i < rows->n; i++) {
		size_t k = order[i];

		fmtbuf_put(&out.sink.buf, rows->text.buf.data + rows->off[k],
		           rows->off[k + 1] - rows->off[k]);
		if (out.sink.buf.len >= JOB_LIST_CHUNK)
			flush_more(&out.sink);
	}
	send_text(&out, 0);
out:
	joblist_query_release(&q);
	bufs->frame = out.sink.buf; /* kept, as it grew */
	free(order);
	/* a huge listing's room is not kept for small ones */
	if (bufs->rows.text.buf.cap > JOB_LIST_SHRINK_AT &&
	    bufs->rows.text.buf.cap > 4 * bufs->rows.text.buf.len)
		job_list_bufs_free(ctld);
	fmt_layout_destroy(layout);
}
