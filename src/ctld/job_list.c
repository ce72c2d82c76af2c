/* job_list.c - squeue's listing, printed by the controller (MSG_JOB_LIST_REQ).
 *
 * Each job is read once into a job_info slot that is reused: the filters, the
 * sort keys and the job's line are read from it (proto/joblist.h), and the
 * lines are then sent in order.  The client gets text in frames of about
 * JOB_LIST_CHUNK bytes and prints it as it comes: no records to decode, no
 * job_info per job held at once.  Arrays' pending remainders, and the pending
 * tasks split off them, are put aside and read after the others: a task the
 * remainder's row takes (joblist_folds(), unless -r or --array-unique) has
 * no line of its own. */
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
#include "ctld/mcs_label.h"
#include "ctld/node_mgr.h"
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

/* Where a listing's rows go, and what reads them. */
struct row_out {
	struct ctld *ctld;
	struct caller *who; /* who lists: what PrivateData hides */
	const struct joblist_query *q;
	const struct fmt_layout *layout;
	uint64_t mask; /* the job_info fields read */
	struct joblist_ctx *jctx;
	struct ranker *rk;
	struct joblist_sort_arg *sarg;
	struct rows *r;
};

/* A row kept: its sort keys read, its line printed (joblist_row_f). */
static int keep_row(const struct job_info *j, void *arg)
{
	struct row_out *o = arg;
	struct rows *r = o->r;

	if (ranker_add(o->rk, j, joblist_sort_value, j->job_id, o->sarg) < 0)
		return -ENOMEM;
	row_begin(r);
	joblist_append(&r->text, o->layout, j, o->q->req->flags, o->jctx);
	r->off[r->n] = r->text.buf.len;
	return 0;
}

/* Print job's rows into o->r if the listing shows it (its -j and -u
 * checked).  Returns 1, or -ENOMEM. */
static int print_row(const struct job *job, struct row_out *o)
{
	struct job_info slot;
	int rc = 1;

	memset(&slot, 0, sizeof(slot));
	job_info_fill(o->ctld, job, &slot, o->mask);
	if (joblist_rows(o->q, &slot, keep_row, o) < 0)
		rc = -ENOMEM;
	job_info_release(&slot);
	return rc;
}

/* Arrays' pending remainders, and the pending tasks split off them, put
 * aside while the jobs are read: a remainder's row shows its tasks that the
 * listing shows too (proto/joblist.h, joblist_folds()). */
struct folding {
	const struct job **rems, **tasks;
	size_t nrems, ntasks, caprems, captasks;
};

static void push_job(const struct job ***v, size_t *n, size_t *cap, const struct job *job)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = job;
}

/* A pending task split off an array whose remainder is pending too. */
static int may_fold(struct ctld *ctld, const struct job *job)
{
	const struct job *rem;

	if (!job->array_job_id || job->array_rem || !job_is_pending(job))
		return 0;
	rem = job_find(ctld->jobs, job->array_job_id);
	return rem && rem->array_rem;
}

/* Print job's rows, or with fd put an array's remainder or a task that may
 * go into its row aside.  Returns 1 if the job's ids match, 0 if not, or
 * -ENOMEM. */
static int visit(const struct job *job, struct row_out *o, struct folding *fd)
{
	/* what a job's own fields rule out is not read into a slot */
	if (!joblist_query_id(o->q, job->job_id, job->array_job_id,
	                      job_x(job)->het_job_id))
		return 0;
	if (!joblist_query_uid(o->q, job->owner->uid))
		return 1;
	if (mcs_job_hidden(o->ctld, o->who, job))
		return 0;
	if (fd && job->array_rem)
		push_job(&fd->rems, &fd->nrems, &fd->caprems, job);
	else if (fd && may_fold(o->ctld, job))
		push_job(&fd->tasks, &fd->ntasks, &fd->captasks, job);
	else
		return print_row(job, o);
	return 1;
}

static int cmp_task(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a;
	const struct job *y = *(const struct job *const *)b;

	if (x->array_job_id != y->array_job_id)
		return x->array_job_id < y->array_job_id ? -1 : 1;
	return x->array_task_id < y->array_task_id ? -1
	                                           : x->array_task_id > y->array_task_id;
}

/* The tasks of array id among the sorted tasks[0..n): their first index,
 * *end past the last. */
static size_t tasks_of(const struct job **tasks, size_t n, uint32_t id, size_t *end)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tasks[mid]->array_job_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (*end = lo; *end < n && tasks[*end]->array_job_id == id; (*end)++)
		;
	return lo;
}

/* The row of remainder rem, with the tasks put aside that go into it
 * (folded[i] set for each). */
static int print_rem(const struct job *rem, struct folding *fd, uint8_t *folded,
                     struct row_out *o)
{
	struct joblist_fold f = {0};
	struct job_info m, t;
	size_t end, i = tasks_of(fd->tasks, fd->ntasks, rem->job_id, &end);
	int rc;

	memset(&m, 0, sizeof(m));
	job_info_fill(o->ctld, rem, &m, o->mask);
	if (!joblist_selected(o->q, &m))
		end = i; /* not listed: its tasks are listed apart */
	for (; i < end; i++) {
		memset(&t, 0, sizeof(t));
		job_info_fill(o->ctld, fd->tasks[i], &t, o->mask);
		if (joblist_selected(o->q, &t) && joblist_folds(&m, &t) &&
		    joblist_fold_add(&f, &m, &t) == 0)
			folded[i] = 1;
		job_info_release(&t);
	}
	if (f.n) {
		free(m.array_task_str);
		m.array_task_str = joblist_fold_ids(&f);
		o->jctx->reasons = f.reasons;
	}
	rc = joblist_rows(o->q, &m, keep_row, o);
	o->jctx->reasons = NULL;
	joblist_fold_release(&f);
	job_info_release(&m);
	return rc < 0 ? rc : 0;
}

/* The rows of what was put aside: each remainder's, then the tasks that no
 * remainder's row took.  Returns 0 or -ENOMEM. */
static int print_folded(struct folding *fd, struct row_out *o)
{
	uint8_t *folded = xcalloc(fd->ntasks + 1, 1);
	int rc = 0;

	if (fd->ntasks > 1) /* none: no array there (NULL) */
		qsort(fd->tasks, fd->ntasks, sizeof(*fd->tasks), cmp_task);
	for (size_t i = 0; i < fd->nrems && rc == 0; i++)
		rc = print_rem(fd->rems[i], fd, folded, o);
	for (size_t i = 0; i < fd->ntasks && rc == 0; i++)
		if (!folded[i] && print_row(fd->tasks[i], o) < 0)
			rc = -ENOMEM;
	free(folded);
	return rc;
}

/* -P: a partition's PriorityTier (Slurm's 1 for one no longer known). */
static uint32_t part_tier(const char *name, void *arg)
{
	const struct part *p = node_mgr_part_find(arg, name);

	return p ? p->cfg->priority_tier : 1;
}

/* The lines of the jobs l shows (*order: row indexes, sorted).  Each job is
 * read once: its line is printed as it is kept, while its fields are at hand,
 * and the lines are put in order afterwards; arrays' remainders and the
 * tasks that may be folded into their rows are printed last.  A few ids
 * asked for (-j) are looked up rather than the queue walked.  Returns 0, or
 * -ESLURM_INVALID_JOB_ID when the one -j id is unknown, or -ENOMEM. */
static int print_rows(struct ctld *ctld, struct caller *who,
                      const struct joblist_query *q, const struct joblist_sort *sort,
                      const struct fmt_layout *layout, uint64_t mask,
                      struct joblist_ctx *jctx, struct rows *r, uint32_t **order)
{
	struct joblist_sort_arg sarg = {sort, jctx->now};
	struct row_out o = {ctld, who, q, layout, mask, jctx, NULL, &sarg, r};
	struct folding fold = {0}, *fd = joblist_folding(q->req->flags) ? &fold : NULL;
	const struct job *found[JOB_LIST_LOOKUP_IDS];
	int id_seen = 0, rc = -ENOMEM, seen;
	size_t nfound;

	if (q->req->flags & JOB_LIST_F_PART_PRIO) {
		sarg.part_tier = part_tier;
		sarg.tier_arg = ctld->nodes;
	}
	if (!(o.rk = ranker_create(sort->rank, sort->n)))
		return -ENOMEM;
	if (q->nids && q->nids <= JOB_LIST_LOOKUP_IDS &&
	    jobs_by_id(ctld, q, found, &nfound)) {
		for (size_t i = 0; i < nfound; i++)
			if ((seen = visit(found[i], &o, fd)) < 0)
				goto out;
		id_seen = 1;
	} else {
		for (const struct job *job = job_first(ctld->jobs); job;
		     job = job->next) {
			if ((seen = visit(job, &o, fd)) < 0)
				goto out;
			id_seen |= seen;
		}
	}
	if (fd && print_folded(fd, &o) < 0)
		goto out;
	if (q->req->job_ids.n == 1 && !id_seen)
		rc = -ESLURM_INVALID_JOB_ID;
	else
		rc = ranker_order(o.rk, order);
out:
	free(fold.rems);
	free(fold.tasks);
	ranker_destroy(o.rk);
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
	rc = print_rows(ctld, who, &q, &sort, layout, mask, &jctx, rows, &order);
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
