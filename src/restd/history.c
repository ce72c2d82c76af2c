/* history.c - what the cluster used, over the last day (restd.h): every
 * r->history_step seconds rotarestd asks the controller, as itself, for its
 * nodes and statistics and keeps one sample (CPUs and GPUs in all and in
 * use, nodes, jobs running and pending) in a ring of HISTORY_SECONDS /
 * step samples (at most HISTORY_MAX).  GET /rota/v1/history answers them,
 * oldest first; the dashboard's chart starts from it, so a page opened now
 * shows the last hours.  Kept in memory: a restart starts a new history. */
#include <event2/event.h>
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/states.h"
#include "proto/messages.h"
#include "proto/slurm_json.h"
#include "restd/restd.h"
#include "common/common.h"

#define HISTORY_SECONDS (24 * 3600)
#define HISTORY_MAX     2880

struct hsample {
	int64_t time;
	uint32_t cpus, cpus_alloc, gpus, gpus_alloc, nodes, nodes_down;
	uint32_t jobs_running, jobs_pending;
};

struct history {
	struct restd *r;
	struct hsample *ring;
	uint32_t cap, n, next; /* next: where the next sample goes */
	struct event *tick;
	struct hsample pending; /* the sample being gathered */
	int waiting, failed;
};

static void add_nodes(struct hsample *s, const struct node_info_resp *resp)
{
	for (uint32_t i = 0; i < resp->nodes_count; i++) {
		const struct node_info *n = &resp->nodes[i];
		uint32_t base = n->state & NODE_STATE_BASE;

		s->nodes++;
		if (base == NODE_DOWN || (n->state & NODE_DRAIN))
			s->nodes_down++;
		s->cpus += n->cpus;
		s->cpus_alloc += n->alloc_cpus;
		s->gpus += (uint32_t)restd_gpus_in(n->gres);
		s->gpus_alloc += (uint32_t)restd_gpus_in(n->gres_used);
	}
}

static void keep(struct history *h)
{
	h->ring[h->next] = h->pending;
	h->next = (h->next + 1) % h->cap;
	if (h->n < h->cap)
		h->n++;
}

static void answered(void *arg, int rc, const char *msg, uint16_t type, void **body)
{
	struct history *h = arg;

	if (rc)
		h->failed = 1;
	else if (type == MSG_NODE_INFO_RESP)
		add_nodes(&h->pending, *body);
	else if (type == MSG_STATS_RESP) {
		const struct stats_resp *st = *body;
		h->pending.jobs_running = st->jobs_running;
		h->pending.jobs_pending = st->jobs_pending;
	}
	if (--h->waiting || h->failed)
		return;
	keep(h);
}

static void sample(evutil_socket_t fd, short what, void *arg)
{
	struct history *h = arg;
	struct rest_user self = {.uid = getuid(), .gid = getgid()};
	static const uint16_t asks[] = {MSG_NODE_INFO_REQ, MSG_STATS_REQ};

	if (h->waiting) /* the controller has not answered the last one */
		return;
	memset(&h->pending, 0, sizeof(h->pending));
	h->pending.time = (int64_t)time(NULL);
	h->failed = 0;
	for (size_t i = 0; i < sizeof(asks) / sizeof(asks[0]); i++) {
		h->waiting++;
		if (relay_call(h->r, &self, asks[i], msg_body_new(asks[i]), answered, h) <
		    0) {
			h->waiting--;
			h->failed = 1;
		}
	}
}

void restd_history_init(struct restd *r, unsigned step)
{
	struct history *h = xcalloc(1, sizeof(*h));
	struct timeval tv = {(time_t)step, 0};

	h->r = r;
	h->cap = HISTORY_SECONDS / step;
	if (h->cap > HISTORY_MAX)
		h->cap = HISTORY_MAX;
	if (h->cap < 2)
		h->cap = 2;
	h->ring = xcalloc(h->cap, sizeof(*h->ring));
	h->tick = event_new(r->base, -1, EV_PERSIST, sample, h);
	if (!h->tick)
		fatal("out of memory");
	event_add(h->tick, &tv);
	r->history = h;
	r->history_step = step;
	/* the first sample at once, not a step from now */
	event_active(h->tick, EV_TIMEOUT, 0);
}

void restd_history_stop(struct restd *r)
{
	struct history *h = r->history;

	if (!h)
		return;
	/* the calls still waiting were answered by relay_stop_all */
	event_free(h->tick);
	free(h->ring);
	free(h);
	r->history = NULL;
}

json_t *restd_history_doc(struct restd *r)
{
	struct history *h = r->history;
	json_t *doc = sj_response(), *a = json_array();

	for (uint32_t i = 0; h && i < h->n; i++) {
		const struct hsample *s =
		    &h->ring[(h->next + h->cap - h->n + i) % h->cap];
		json_array_append_new(
		    a, json_pack("{s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "time",
		                 (json_int_t)s->time, "cpus", s->cpus, "cpus_alloc",
		                 s->cpus_alloc, "gpus", s->gpus, "gpus_alloc",
		                 s->gpus_alloc, "nodes", s->nodes, "nodes_down",
		                 s->nodes_down, "jobs_running", s->jobs_running,
		                 "jobs_pending", s->jobs_pending));
	}
	json_object_set_new(doc, "interval", json_integer(r->history_step));
	json_object_set_new(doc, "samples", a);
	return doc;
}
