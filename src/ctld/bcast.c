/* bcast.c - sbcast's blocks fanned out to a job's nodes (see bcast.h). */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/states.h"
#include "ctld/bcast.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/owner.h"
#include "proto/messages.h"
#include "common/common.h"

struct bcast_req {
	struct bcasts *owner;
	uint32_t id;
	struct chan *ch; /* the asker (a reference) */
	struct event *timer;
	uint32_t *asked; /* node indexes not yet answered */
	uint32_t nasked;
	char *failed;   /* "REQUEST_FILE_BCAST(node): why\n" lines */
	char *nodes;    /* the nodes asked */
	uint64_t bytes; /* queued for the nodes, counted in bcasts.bytes */
	int rc;
	struct bcast_req *next;
};

struct bcasts {
	struct ctld *ctld;
	uint32_t next_id;
	size_t count;
	uint64_t bytes;
	struct bcast_req *head;
};

static void req_free(struct bcast_req *q)
{
	free(q->asked);
	free(q->failed);
	free(q->nodes);
	if (q->timer)
		event_free(q->timer);
	chan_unref(q->ch);
	free(q);
}

void bcasts_destroy(struct bcasts *b)
{
	if (!b)
		return;
	while (b->head) {
		struct bcast_req *q = b->head;
		b->head = q->next;
		req_free(q);
	}
	free(b);
}

static void answer(struct chan *ch, int rc, const char *nodes, const char *msg)
{
	struct file_bcast_resp r = {.rc = rc, .nodes = (char *)nodes, .msg = (char *)msg};

	chan_send(ch, MSG_FILE_BCAST_RESP, &r);
}

static void fail_node(struct bcast_req *q, const char *node, const char *why)
{
	char *line = xasprintf("%sREQUEST_FILE_BCAST(%s): %s\n",
	                       q->failed ? q->failed : "", node, why);
	free(q->failed);
	q->failed = line;
	q->rc = 1;
}

static void req_finish(struct ctld *ctld, struct bcast_req *q)
{
	for (struct bcast_req **pp = &q->owner->head; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			q->owner->count--;
			q->owner->bytes -= q->bytes;
			break;
		}
	for (uint32_t k = 0; k < q->nasked; k++)
		fail_node(q, node_mgr_get(ctld->nodes, q->asked[k])->cfg->name,
		          "Socket timed out on send/recv operation");
	answer(q->ch, q->rc, q->nodes, q->failed);
	req_free(q);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct bcast_req *q = arg;

	log_debug("sbcast block %u: %u node(s) did not answer in time", q->id, q->nasked);
	req_finish(q->owner->ctld, q);
}

/* Why the caller cannot write to the job (a Slurm error number), or 0. */
static int check_job(const struct caller *who, const struct job *job,
                     const struct file_bcast *req, const struct step **ret_step)
{
	const struct step *st = NULL;

	if (!job)
		return ESLURM_INVALID_JOB_ID;
	if (who->uid != job->owner->uid && !caller_is_operator(who))
		return ESLURM_USER_ID_MISSING; /* Slurm's answer here */
	if (job_is_finished(job))
		return ESLURM_ALREADY_DONE;
	if (!job_is_running(job))
		return ESLURM_JOB_PENDING;
	if (req->step_id != NO_VAL) {
		for (st = job->run->steps; st && st->step_id != req->step_id;
		     st = st->next)
			;
		if (!st)
			return ESLURM_INVALID_JOB_ID;
	}
	if (!req->path || req->path[0] != '/' ||
	    strnlen(req->path, FILE_BCAST_PATH_MAX + 1) > FILE_BCAST_PATH_MAX ||
	    req->data.len > FILE_BCAST_BLOCK_MAX)
		return ESLURM_INVALID_ARGUMENT;
	*ret_step = st;
	return 0;
}

void bcast_request(struct ctld *ctld, struct caller *who, const struct file_bcast *req,
                   struct chan *ch)
{
	struct bcasts *b = ctld->bcasts;
	struct job *job = job_find(ctld->jobs, req->job_id);
	const struct step *st = NULL;
	struct file_bcast fwd = *req;
	struct bcast_req *q;
	uint32_t nn, timeout;
	int rc = check_job(who, job, req, &st);

	if (rc) {
		answer(ch, rc, NULL, NULL);
		return;
	}
	if (!b) {
		b = ctld->bcasts = xcalloc(1, sizeof(*b));
		b->ctld = ctld;
	}
	nn = st ? st->nnodes : job->run->nnodes;
	if (b->count >= BCAST_MAX_PENDING ||
	    (b->bytes && b->bytes + (uint64_t)req->data.len * nn > BCAST_BYTES_MAX)) {
		answer(ch, EAGAIN, NULL, NULL);
		return;
	}
	q = xcalloc(1, sizeof(*q));
	q->owner = b;
	q->id = ++b->next_id;
	q->ch = ch;
	chan_ref(ch);
	q->nodes = xstrdup(st ? st->nodes : job->run->nodes_str);
	q->asked = xcalloc(nn + 1, sizeof(*q->asked));
	fwd.req_id = q->id;
	fwd.uid = job->owner->uid;
	fwd.gid = job->owner->gid;
	fwd.user = job->owner->user;
	for (uint32_t k = 0; k < nn; k++) {
		uint32_t idx = st ? st->node_idx[k] : job->run->node_idx[k];
		struct node *n = node_mgr_get(ctld->nodes, idx);
		if (node_send(n, MSG_FILE_BCAST_REQ, &fwd) < 0)
			fail_node(q, n->cfg->name, "Communication connection failure");
		else
			q->asked[q->nasked++] = idx;
	}
	q->bytes = (uint64_t)req->data.len * q->nasked;
	b->bytes += q->bytes;
	q->next = b->head;
	b->head = q;
	b->count++;
	if (!q->nasked) {
		req_finish(ctld, q);
		return;
	}
	timeout = req->timeout ? req->timeout : ctld->conf->message_timeout;
	if (timeout > BCAST_TIMEOUT_MAX)
		timeout = BCAST_TIMEOUT_MAX;
	q->timer = evtimer_new(ctld->base, on_timeout, q);
	evtimer_add(q->timer, &(struct timeval){.tv_sec = timeout});
}

void bcast_node_reply(struct ctld *ctld, struct caller *who,
                      const struct file_bcast_resp *r)
{
	struct bcast_req *q = ctld->bcasts ? ctld->bcasts->head : NULL;
	uint32_t k;

	while (q && q->id != r->req_id)
		q = q->next;
	if (!q || who->node_idx < 0)
		return;
	for (k = 0; k < q->nasked && q->asked[k] != (uint32_t)who->node_idx; k++)
		;
	if (k == q->nasked)
		return; /* late, repeated, or not asked of this node */
	q->asked[k] = q->asked[--q->nasked];
	if (r->rc)
		fail_node(q,
		          node_mgr_get(ctld->nodes, (uint32_t)who->node_idx)->cfg->name,
		          r->msg && *r->msg ? r->msg : strerror(r->rc));
	if (!q->nasked)
		req_finish(ctld, q);
}
