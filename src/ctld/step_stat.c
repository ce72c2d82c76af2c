#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/states.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/step_stat.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

/* One sstat request: the steps asked for and the nodes' answers so far. */
struct stat_req {
	struct step_stats *owner;
	uint32_t id;
	struct chan *ch; /* the asker (a reference) */
	struct event *timer;
	uint32_t waiting;           /* node answers still expected */
	struct step_stat_resp resp; /* what goes back, filled as answers come */
	uint32_t **asked;           /* [step][i]: node indexes asked */
	uint32_t *nasked;           /* [step] */
	struct stat_req *next;
};

struct step_stats {
	uint32_t next_id;
	size_t count;
	struct stat_req *head;
};

static void req_free(struct stat_req *q)
{
	for (uint32_t i = 0; i < q->resp.steps_count; i++)
		free(q->asked[i]);
	free(q->asked);
	free(q->nasked);
	codec_release(&step_stat_resp_type, &q->resp);
	if (q->timer)
		event_free(q->timer);
	chan_unref(q->ch);
	free(q);
}

static void req_unlink(struct stat_req *q)
{
	for (struct stat_req **pp = &q->owner->head; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			q->owner->count--;
			return;
		}
}

static void req_finish(struct stat_req *q)
{
	req_unlink(q);
	chan_send(q->ch, MSG_STEP_STAT_RESP, &q->resp);
	req_free(q);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct stat_req *q = arg;

	log_debug("sstat request %u: %u node(s) did not answer in time", q->id,
	          q->waiting);
	req_finish(q);
}

void step_stats_destroy(struct step_stats *s)
{
	if (!s)
		return;
	while (s->head) {
		struct stat_req *q = s->head;
		s->head = q->next;
		req_free(q);
	}
	free(s);
}

/* The steps of a running job in the order they started, as Slurm lists
 * them: the batch step first (interactive allocations have none; *ret, the
 * caller frees, holds NULL for it), then the others, oldest first (the
 * job's list holds the newest first). */
static size_t running_steps(const struct job *job, struct step ***ret)
{
	size_t n = 0, first;
	struct step **v;

	for (struct step *st = job->run->steps; st; st = st->next)
		n++;
	v = xcalloc(n + 1, sizeof(*v));
	first = !(job->desc.flags & JOB_F_INTERACTIVE);
	n += first;
	for (struct step *st = job->run->steps, **at = v + n; st; st = st->next)
		*--at = st;
	*ret = v;
	return n;
}

/* Which of them sstat shows: the one named, every one (-a), else the
 * lowest-numbered ordinary step, as Slurm does (none: nothing shown). */
static int step_wanted(const struct step_stat_req *req, const struct step *st,
                       const struct step *lowest)
{
	uint32_t id = st ? st->step_id : STEP_BATCH;

	if (req->step_id != NO_VAL)
		return id == req->step_id;
	if (req->flags & STEP_STAT_F_ALL)
		return 1;
	return st && st == lowest;
}

static const struct step *lowest_step(struct step **v, size_t n)
{
	const struct step *low = NULL;

	for (size_t i = 0; i < n; i++)
		if (v[i] && v[i]->step_id < STEP_EXTERN &&
		    (!low || v[i]->step_id < low->step_id))
			low = v[i];
	return low;
}

/* Ask every reachable node of step slot i of q. */
static void ask_nodes(struct ctld *ctld, struct stat_req *q, uint32_t i,
                      const struct job *job, const struct step *st)
{
	struct step_stat *ss = &q->resp.steps[i];
	uint32_t nn = st ? st->nnodes : 1;
	struct step_stat_req nr = {
	    .job_id = ss->job_id, .step_id = ss->step_id, .req_id = q->id, .tag = i};

	q->asked[i] = xcalloc(nn, sizeof(uint32_t));
	for (uint32_t k = 0; k < nn; k++) {
		uint32_t idx = st ? st->node_idx[k] : job_batch_node(job);
		struct node *n = node_mgr_get(ctld->nodes, idx);
		if (node_send(n, MSG_STEP_STAT_REQ, &nr) < 0)
			continue; /* not connected: left out */
		q->asked[i][q->nasked[i]++] = idx;
		q->waiting++;
	}
}

static struct step_stats *stats_of(struct ctld *ctld)
{
	if (!ctld->step_stats)
		ctld->step_stats = xcalloc(1, sizeof(*ctld->step_stats));
	return ctld->step_stats;
}

void step_stat_request(struct ctld *ctld, struct caller *who,
                       const struct step_stat_req *req, struct chan *ch)
{
	static const struct timeval timeout = {STEP_STAT_TIMEOUT_MS / 1000,
	                                       STEP_STAT_TIMEOUT_MS % 1000 * 1000};
	struct step_stats *s = stats_of(ctld);
	struct job *job =
	    !(req->flags & STEP_STAT_F_ARRAY)
	        ? job_find(ctld->jobs, req->job_id)
	        : job_array_task_find(ctld->jobs, req->job_id, req->array_task_id);
	struct step **v = NULL;
	const struct step *low;
	struct stat_req *q;
	size_t n;
	int allowed;

	if (!job) {
		chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	if (s->count >= STEP_STAT_MAX_PENDING) {
		chan_send_rc(ch, -EAGAIN, NULL);
		return;
	}
	q = xcalloc(1, sizeof(*q));
	q->owner = s;
	q->id = ++s->next_id;
	q->ch = ch;
	chan_ref(ch);
	n = job_is_running(job) ? running_steps(job, &v) : 0;
	low = lowest_step(v, n);
	allowed = who->uid == job->owner->uid || caller_is_operator(who);
	q->resp.running = (uint32_t)n;
	q->resp.job_id = job->job_id;
	q->resp.steps = xcalloc(n + 1, sizeof(struct step_stat));
	q->asked = xcalloc(n + 1, sizeof(*q->asked));
	q->nasked = xcalloc(n + 1, sizeof(*q->nasked));
	for (size_t i = 0; i < n; i++) {
		struct step_stat *ss;
		if (!step_wanted(req, v[i], low))
			continue;
		ss = &q->resp.steps[q->resp.steps_count];
		ss->job_id = job->job_id;
		ss->step_id = v[i] ? v[i]->step_id : STEP_BATCH;
		/* where it runs: only to whom may see it */
		ss->nodes =
		    !allowed
		        ? NULL
		        : xstrdup(v[i] ? v[i]->nodes
		                       : node_mgr_get(ctld->nodes, job_batch_node(job))
		                             ->cfg->name);
		ss->rc = allowed ? 0 : -ESLURM_USER_ID_MISSING;
		if (allowed && !(req->flags & STEP_STAT_F_LIST))
			ask_nodes(ctld, q, q->resp.steps_count, job, v[i]);
		q->resp.steps_count++;
	}
	free(v);
	q->next = s->head;
	s->head = q;
	s->count++;
	if (!q->waiting) {
		req_finish(q);
		return;
	}
	q->timer = evtimer_new(ctld->base, on_timeout, q);
	evtimer_add(q->timer, &timeout);
}

/* Was node idx asked about step slot tag of q, and has it not answered? */
static int take_asked(struct stat_req *q, uint32_t tag, uint32_t idx)
{
	for (uint32_t k = 0; k < q->nasked[tag]; k++)
		if (q->asked[tag][k] == idx) {
			q->asked[tag][k] = q->asked[tag][--q->nasked[tag]];
			return 1;
		}
	return 0;
}

void step_stat_node_reply(struct ctld *ctld, struct caller *who,
                          const struct node_stat_resp *r)
{
	struct stat_req *q = ctld->step_stats ? ctld->step_stats->head : NULL;
	struct step_stat *ss;
	struct node_stat *ns;

	while (q && q->id != r->req_id)
		q = q->next;
	if (!q || r->tag >= q->resp.steps_count || who->node_idx < 0 ||
	    !take_asked(q, r->tag, (uint32_t)who->node_idx))
		return; /* late, repeated, or not asked of this node */
	ss = &q->resp.steps[r->tag];
	if (r->rc == 0 && r->node_stats_count == 1 && r->job_id == ss->job_id &&
	    r->step_id == ss->step_id) {
		ss->node_stats = xrealloc(ss->node_stats, (ss->node_stats_count + 1) *
		                                              sizeof(struct node_stat));
		ns = &ss->node_stats[ss->node_stats_count++];
		if (codec_copy(&node_stat_type, ns, &r->node_stats[0]) < 0)
			fatal("out of memory");
		/* the name is the node's that answered, whatever it says */
		free(ns->node_name);
		ns->node_name = xstrdup(
		    node_mgr_get(ctld->nodes, (uint32_t)who->node_idx)->cfg->name);
	}
	if (--q->waiting == 0)
		req_finish(q);
}
