#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/conf.h"
#include "proto/client.h"
#include "proto/conn.h"
#include "proto/messages.h"
#include "common/states.h"
#include "noded/ctld_link.h"
#include "noded/hwinfo.h"
#include "common/common.h"

#define LINK_RETRY_S         1
#define LINK_REFUSED_RETRY_S 10
#define LINK_PING_S          10
#define LINK_QUEUE_MAX       100000 /* completions kept while the controller is away */
/* Completions sent this recently are sent again after a reconnect: the
 * controller may have died before reading them (it ignores duplicates). */
#define LINK_RESEND_S   10
#define LINK_RECENT_MAX 10000

enum link_state { LINK_DOWN, LINK_REGISTERING, LINK_UP };

struct pending {
	uint16_t type; /* MSG_STEP_COMPLETE or MSG_PROLOG_COMPLETE */
	time_t sent;   /* on the recent list: when it was sent */
	struct step_complete sc;
	struct pending *next;
};

struct ctld_link {
	struct event_base *base;
	const struct conf *conf;
	struct auth *auth;
	struct node_register reg;
	const struct ctld_link_ops *ops;
	void *arg;

	enum link_state state;
	struct conn *conn;
	struct event *retry_ev;
	struct event *ping_ev;
	char last_error[ROTA_ERROR_TEXT]; /* log a repeated failure once */

	struct pending *head, **tail; /* to send after the next registration */
	size_t queued;
	struct pending *recent, **recent_tail; /* sent in the last LINK_RESEND_S */
	size_t nrecent;
};

static void pending_free(struct pending *p)
{
	codec_release(&step_complete_type, &p->sc);
	free(p);
}

/* Forget what was sent long enough ago (or beyond the cap). */
static void recent_prune(struct ctld_link *l, time_t now)
{
	while (l->recent &&
	       (l->recent->sent + LINK_RESEND_S < now || l->nrecent > LINK_RECENT_MAX)) {
		struct pending *p = l->recent;
		l->recent = p->next;
		pending_free(p);
		l->nrecent--;
	}
	if (!l->recent)
		l->recent_tail = &l->recent;
}

/* Keep p (sent just now) on the recent list; takes ownership. */
static void recent_add(struct ctld_link *l, struct pending *p)
{
	time_t now = time(NULL);

	p->sent = now;
	p->next = NULL;
	*l->recent_tail = p;
	l->recent_tail = &p->next;
	l->nrecent++;
	recent_prune(l, now);
}

/* The link dropped: what was sent recently goes first in the queue. */
static void recent_requeue(struct ctld_link *l)
{
	recent_prune(l, time(NULL));
	if (!l->recent)
		return;
	*l->recent_tail = l->head;
	if (!l->head)
		l->tail = l->recent_tail;
	l->head = l->recent;
	l->queued += l->nrecent;
	log_info("will re-send %zu recent completion(s) after reconnecting", l->nrecent);
	l->recent = NULL;
	l->recent_tail = &l->recent;
	l->nrecent = 0;
}

static void link_schedule(struct ctld_link *l, int secs)
{
	struct timeval tv = {.tv_sec = secs};
	evtimer_add(l->retry_ev, &tv);
}

static void link_fail_once(struct ctld_link *l, const char *what)
{
	if (!strcmp(l->last_error, what))
		return;
	snprintf(l->last_error, sizeof(l->last_error), "%s", what);
	log_err("controller: %s", what);
}

static void link_flush_queue(struct ctld_link *l)
{
	while (l->head) {
		struct pending *p = l->head;
		conn_send(l->conn, p->type, &p->sc);
		l->head = p->next;
		l->queued--;
		recent_add(l, p);
	}
	l->tail = &l->head;
}

static void link_on_rc(struct ctld_link *l, const struct rc_msg *rc)
{
	if (l->state != LINK_REGISTERING)
		return;
	if (rc->rc) {
		char what[ROTA_ERROR_TEXT];
		snprintf(what, sizeof(what), "registration of %s refused: %s",
		         l->reg.name, rc->msg ? rc->msg : "error");
		link_fail_once(l, what);
		conn_close(l->conn);
		l->conn = NULL;
		l->state = LINK_DOWN;
		/* a backup controller that has not taken over (yet): soon */
		link_schedule(l, rc->rc == ESLURM_IN_STANDBY_MODE ? LINK_RETRY_S
		                                                  : LINK_REFUSED_RETRY_S);
		return;
	}
	log_info("registered with the controller as %s", l->reg.name);
	l->last_error[0] = '\0';
	l->state = LINK_UP;
	link_flush_queue(l);
}

static void link_on_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct ctld_link *l = arg;

	if (type != MSG_RC && l->state != LINK_UP) {
		/* orders count only once the controller has taken our registration */
		log_err("ignoring %s from the controller before registration",
		        msg_name(type));
		return;
	}
	switch (type) {
	case MSG_RC:
		link_on_rc(l, *body);
		break;
	case MSG_LAUNCH_REQ:
		l->ops->launch(l->arg, *body);
		break;
	case MSG_SIGNAL_REQ:
		l->ops->signal(l->arg, *body);
		break;
	case MSG_NODE_SHUTDOWN:
		if (l->ops->shutdown)
			l->ops->shutdown(l->arg);
		break;
	default:
		log_debug("ignoring %s from the controller", msg_name(type));
		break;
	}
}

static void link_on_close(struct conn *c, void *arg)
{
	struct ctld_link *l = arg;

	log_err("lost the controller connection, retrying every %d s", LINK_RETRY_S);
	l->conn = NULL;
	l->state = LINK_DOWN;
	recent_requeue(l);
	snprintf(l->last_error, sizeof(l->last_error), "connection lost");
	link_schedule(l, LINK_RETRY_S);
}

/* Completions still to be sent count as live: the controller must not take
 * those steps for gone before it reads them. */
static void queued_steps(struct ctld_link *l, struct rota_u32v *jobs,
                         struct rota_u32v *steps)
{
	size_t n = jobs->n;

	for (struct pending *p = l->head; p; p = p->next)
		n++;
	jobs->v = xrealloc(jobs->v, (n + 1) * sizeof(uint32_t));
	steps->v = xrealloc(steps->v, (n + 1) * sizeof(uint32_t));
	for (struct pending *p = l->head; p; p = p->next) {
		jobs->v[jobs->n++] = p->sc.job_id;
		steps->v[steps->n++] = p->sc.step_id;
	}
}

static void link_register(struct ctld_link *l)
{
	struct rota_u32v jobs = {0}, steps = {0};

	l->ops->live_steps(l->arg, &jobs, &steps);
	queued_steps(l, &jobs, &steps);
	l->reg.job_ids = jobs;
	l->reg.step_ids = steps;
	conn_send(l->conn, MSG_NODE_REGISTER, &l->reg);
	l->reg.job_ids = (struct rota_u32v){0};
	l->reg.step_ids = (struct rota_u32v){0};
	free(jobs.v);
	free(steps.v);
	l->state = LINK_REGISTERING;
}

static void link_connect(evutil_socket_t fd_unused, short what, void *arg)
{
	struct ctld_link *l = arg;
	struct rota_error err = {""};
	int fd;

	if (l->state != LINK_DOWN)
		return;
	fd = client_connect(l->conf, l->auth, l->reg.name, CLIENT_TCP_ONLY, &err);
	if (fd < 0) {
		link_fail_once(l, err.text[0] ? err.text : strerror(-fd));
		link_schedule(l, LINK_RETRY_S);
		return;
	}
	l->conn = conn_create(l->base, fd, "rotactld", link_on_msg, link_on_close, l);
	link_register(l);
}

static void link_ping(evutil_socket_t fd_unused, short what, void *arg)
{
	struct ctld_link *l = arg;
	struct node_ping p = {.name = l->reg.name,
	                      .free_memory = hwinfo_free_memory(),
	                      .cpu_load = hwinfo_cpu_load()};

	if (l->state == LINK_UP)
		conn_send(l->conn, MSG_NODE_PING, &p);
}

struct ctld_link *ctld_link_create(struct event_base *base, const struct conf *conf,
                                   struct auth *auth, const struct node_register *reg,
                                   const struct ctld_link_ops *ops, void *arg)
{
	struct ctld_link *l = xcalloc(1, sizeof(*l));
	struct timeval tv = {.tv_sec = LINK_PING_S};

	l->base = base;
	l->conf = conf;
	l->auth = auth;
	l->ops = ops;
	l->arg = arg;
	l->tail = &l->head;
	l->recent_tail = &l->recent;
	if (codec_copy(&node_register_type, &l->reg, reg) < 0)
		fatal("out of memory");
	free(l->reg.job_ids.v); /* filled afresh on each registration */
	free(l->reg.step_ids.v);
	l->reg.job_ids = l->reg.step_ids = (struct rota_u32v){0};
	l->retry_ev = evtimer_new(base, link_connect, l);
	l->ping_ev = event_new(base, -1, EV_PERSIST, link_ping, l);
	if (!l->retry_ev || !l->ping_ev)
		fatal("cannot create timers");
	evtimer_add(l->ping_ev, &tv);
	link_schedule(l, 0);
	return l;
}

void ctld_link_destroy(struct ctld_link *l)
{
	if (!l)
		return;
	if (l->conn)
		conn_close(l->conn);
	event_free(l->retry_ev);
	event_free(l->ping_ev);
	while (l->head) {
		struct pending *p = l->head;
		l->head = p->next;
		pending_free(p);
	}
	while (l->recent) {
		struct pending *p = l->recent;
		l->recent = p->next;
		pending_free(p);
	}
	codec_release(&node_register_type, &l->reg);
	free(l);
}

void ctld_link_send_complete(struct ctld_link *l, const struct step_complete *sc)
{
	ctld_link_send(l, MSG_STEP_COMPLETE, sc);
}

void ctld_link_send(struct ctld_link *l, uint16_t type, const struct step_complete *sc)
{
	struct pending *p;

	if (l->state != LINK_UP && l->queued >= LINK_QUEUE_MAX) {
		log_err("JobId=%u StepId=%u completion dropped: %zu already queued",
		        sc->job_id, sc->step_id, l->queued);
		return;
	}
	p = xcalloc(1, sizeof(*p));
	p->type = type;
	if (codec_copy(&step_complete_type, &p->sc, sc) < 0)
		fatal("out of memory");
	if (l->state == LINK_UP) {
		conn_send(l->conn, type, sc);
		recent_add(l, p);
		return;
	}
	*l->tail = p;
	l->tail = &p->next;
	l->queued++;
}
