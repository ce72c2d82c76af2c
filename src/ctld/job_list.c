/* job_list.c - squeue's listing, printed by the controller (MSG_JOB_LIST_REQ).
 *
 * Each job is read once into a job_info slot that is reused: the filters and
 * the sort keys are read from it (proto/joblist.h), and the jobs kept are
 * read again, in order, for their lines.  The client gets text in frames of
 * about JOB_LIST_CHUNK bytes and prints it as it comes: no records to decode,
 * no job_info per job held at once. */
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

struct picked {
	const struct job **job;
	size_t n, cap;
};

static void pick(struct picked *p, const struct job *job)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 1024;
		p->job = xrealloc(p->job, p->cap * sizeof(*p->job));
	}
	p->job[p->n++] = job;
}

/* The jobs q shows, in its order (*order: indexes into p).  Returns 0, or
 * -ESLURM_INVALID_JOB_ID when its one -j id is unknown, or -ENOMEM. */
static int select_jobs(struct ctld *ctld, const struct joblist_query *q,
                       const struct joblist_sort *sort, uint64_t mask, time_t now,
                       struct picked *p, uint32_t **order)
{
	struct joblist_sort_arg sarg = {sort, now};
	struct ranker *rk = ranker_create(sort->rank, sort->n);
	int id_seen = 0, rc = -ENOMEM;
	struct job_info slot;

	if (!rk)
		return -ENOMEM;
	for (const struct job *job = job_first(ctld->jobs); job; job = job->next) {
		/* what a job's own fields rule out is not read into the slot */
		if (!joblist_query_id(q, job->job_id, job->array_job_id))
			continue;
		id_seen = 1;
		if (!joblist_query_uid(q, job->uid))
			continue;
		memset(&slot, 0, sizeof(slot));
		job_info_fill(ctld, job, &slot, mask);
		if (joblist_selected(q, &slot)) {
			if (ranker_add(rk, &slot, joblist_sort_value, slot.job_id,
			               &sarg) < 0) {
				job_info_release(&slot);
				goto out;
			}
			pick(p, job);
		}
		job_info_release(&slot);
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
	                           .cluster = ctld->conf->cluster_name};
	struct rota_error err = {""};
	struct fmt_layout *layout = NULL;
	struct joblist_sort sort;
	struct joblist_query q = {0};
	struct picked p = {0};
	struct list_out out = {.sink = {.flush_at = JOB_LIST_CHUNK, .flush = flush_more},
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
	/* the filters and sort keys do not read the arrays' pending tasks */
	rc = select_jobs(ctld, &q, &sort, mask & ~JI(array_task_str), jctx.now, &p,
	                 &order);
	if (rc < 0) {
		chan_send_rc(ch, rc, NULL);
		goto out;
	}
	out.sink.arg = &out;
	for (size_t i = 0; i < p.n; i++) {
		struct job_info slot = {0};

		job_info_fill(ctld, p.job[order[i]], &slot, mask);
		joblist_append(&out.sink, layout, &slot, req->flags, &jctx);
		job_info_release(&slot);
	}
	send_text(&out, 0);
out:
	joblist_query_release(&q);
	fmtbuf_release(&out.sink.buf);
	free(order);
	free(p.job);
	fmt_layout_destroy(layout);
}
