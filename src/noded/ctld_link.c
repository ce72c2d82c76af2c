#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
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

#define LINK_RETRY_S 1
/* After the connection drops or a connect fails, the next try comes after
 * LINK_RETRY_FIRST_MS, doubled each time up to LINK_RETRY_MAX_MS (a restarted
 * controller serves again within a few hundred ms, and `rota up` waits for its
 * nodes), plus up to half again at random so that thousands of nodes do not
 * all come back in the same instant.  A refused connect costs the controller
 * nothing. */
#define LINK_RETRY_FIRST_MS  50
#define LINK_RETRY_MAX_MS    250
#define LINK_REFUSED_RETRY_S 10
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
	size_t idx;        /* the controller conn goes to (SlurmctldHost order) */
	size_t next_idx;   /* where the next connection attempt starts */
	time_t last_heard; /* monotonic: the controller's last message */
	int ping_s;        /* between pings, and so between its answers */
	/* fencing: the newest term obeyed, of which history; a controller of
	 * an older term of it is a primary that came back after a takeover,
	 * and is not obeyed */
	uint32_t term;
	uint64_t lineage;
	char *term_file; /* where they are kept; NULL: in memory only */
	struct event *retry_ev;
	struct event *ping_ev;
	int retry_ms;                     /* the next quick retry (LINK_RETRY_FIRST_MS) */
	unsigned int jitter;              /* rand_r() state of its random part */
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

/* Try again soon, later each time (LINK_RETRY_FIRST_MS). */
static void link_schedule_retry(struct ctld_link *l)
{
	long ms = l->retry_ms + rand_r(&l->jitter) % (l->retry_ms / 2 + 1);
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};

	evtimer_add(l->retry_ev, &tv);
	l->retry_ms =
	    l->retry_ms * 2 < LINK_RETRY_MAX_MS ? l->retry_ms * 2 : LINK_RETRY_MAX_MS;
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

static time_t time_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* Silence that makes us leave a controller: SlurmctldTimeout, the time a
 * backup waits before it takes over. */
static time_t link_silence_s(const struct ctld_link *l)
{
	time_t t = l->conf->slurmctld_timeout;

	return t > 2 * l->ping_s ? t : 2 * l->ping_s;
}

/* Drop the connection and try again after secs, from controller `from`. */
static void link_drop(struct ctld_link *l, size_t from, int secs)
{
	if (l->conn)
		conn_close(l->conn);
	l->conn = NULL;
	if (l->state == LINK_UP)
		recent_requeue(l);
	l->state = LINK_DOWN;
	l->next_idx = from;
	link_schedule(l, secs);
}

static void link_on_rc(struct ctld_link *l, const struct rc_msg *rc)
{
	char what[ROTA_ERROR_TEXT];

	if (l->state != LINK_REGISTERING || !rc->rc)
		return;
	snprintf(what, sizeof(what), "registration of %s refused: %s", l->reg.name,
	         rc->msg ? rc->msg : slurm_strerror(rc->rc));
	link_fail_once(l, what);
	/* a controller that stands by: the one that serves is another */
	if (rc->rc == ESLURM_IN_STANDBY_MODE)
		link_drop(l, l->idx + 1, LINK_RETRY_S);
	else
		link_drop(l, l->idx, LINK_REFUSED_RETRY_S);
}

/* term_file: "<lineage> <term>\n", replaced whole (rename) and synced. */
static void term_load(struct ctld_link *l)
{
	FILE *f = l->term_file ? fopen(l->term_file, "re") : NULL;
	uint64_t lineage;
	uint32_t term;

	if (!f)
		return;
	if (fscanf(f, "%" SCNu64 " %" SCNu32, &lineage, &term) == 2) {
		l->lineage = lineage;
		l->term = term;
	}
	fclose(f);
}

static void term_store(struct ctld_link *l, uint64_t lineage, uint32_t term)
{
	char buf[64], *tmp;
	int n, fd, bad;

	l->lineage = lineage;
	l->term = term;
	if (!l->term_file)
		return;
	n = snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu32 "\n", lineage, term);
	tmp = xasprintf("%s.new", l->term_file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bad = fd < 0 || write(fd, buf, (size_t)n) != n || fsync(fd) < 0;
	if (fd >= 0 && close(fd) < 0)
		bad = 1;
	if (bad || rename(tmp, l->term_file) < 0)
		log_err("controller term %u kept in memory only: %s", term,
		        strerror(errno));
	free(tmp);
}

/* The controller took our registration, or heard our ping. */
static void link_on_ack(struct ctld_link *l, const struct node_ack *a)
{
	char what[ROTA_ERROR_TEXT];

	if (a->lineage == l->lineage && a->term < l->term) {
		snprintf(what, sizeof(what),
		         "the controller at %s is of term %u, older than term %u we "
		         "obey: not obeying it",
		         conf_ctld_addr(l->conf, l->idx), a->term, l->term);
		link_fail_once(l, what);
		link_drop(l, l->idx + 1, LINK_RETRY_S);
		return;
	}
	if (a->lineage != l->lineage || a->term > l->term) {
		if (a->lineage != l->lineage && l->lineage)
			log_info("the controller at %s has another history than the "
			         "one obeyed before (started afresh): following it",
			         conf_ctld_addr(l->conf, l->idx));
		term_store(l, a->lineage, a->term);
	}
	if (l->state != LINK_REGISTERING)
		return;
	log_info("registered with the controller at %s as %s (term %u)",
	         conf_ctld_addr(l->conf, l->idx), l->reg.name, a->term);
	l->last_error[0] = '\0';
	l->retry_ms = LINK_RETRY_FIRST_MS;
	l->state = LINK_UP;
	link_flush_queue(l);
}

static void link_on_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct ctld_link *l = arg;

	l->last_heard = time_mono_s();
	if (type != MSG_RC && type != MSG_NODE_ACK && l->state != LINK_UP) {
		/* orders count only once the controller has taken our registration */
		log_err("ignoring %s from the controller before registration",
		        msg_name(type));
		return;
	}
	switch (type) {
	case MSG_RC:
		link_on_rc(l, *body);
		break;
	case MSG_NODE_ACK:
		link_on_ack(l, *body);
		break;
	case MSG_LAUNCH_REQ:
		l->ops->launch(l->arg, *body);
		break;
	case MSG_SIGNAL_REQ:
		l->ops->signal(l->arg, *body);
		break;
	case MSG_STEP_STAT_REQ:
		if (l->ops->stat)
			l->ops->stat(l->arg, *body);
		break;
	case MSG_STEP_ATTACH_REQ:
		if (l->ops->attach)
			l->ops->attach(l->arg, *body);
		break;
	case MSG_FILE_BCAST_REQ:
		if (l->ops->bcast) {
			l->ops->bcast(l->arg, *body);
		} else { /* an emulated node writes nothing */
			const struct file_bcast *b = *body;
			struct file_bcast_resp r = {.req_id = b->req_id};
			ctld_link_reply(l, MSG_FILE_BCAST_RESP, &r);
		}
		break;
	case MSG_CONF_FILES_RESP:
		if (l->ops->conf_files)
			l->ops->conf_files(l->arg, *body);
		break;
	case MSG_RECONFIG_REQ:
		if (l->ops->reconfig)
			l->ops->reconfig(l->arg);
		break;
	case MSG_NODE_SHUTDOWN:
		if (l->ops->shutdown)
			l->ops->shutdown(l->arg);
		break;
	case MSG_REBOOT_REQ:
		if (l->ops->reboot)
			l->ops->reboot(l->arg, *body);
		else /* an emulated node: nothing to reboot */
			log_err("cannot reboot here: ignoring the controller's order");
		break;
	default:
		log_debug("ignoring %s from the controller", msg_name(type));
		break;
	}
}

static void link_on_close(struct conn *c, void *arg)
{
	struct ctld_link *l = arg;

	log_err("lost the controller connection, retrying every %d ms or less",
	        LINK_RETRY_MAX_MS);
	l->conn = NULL;
	l->state = LINK_DOWN;
	l->next_idx = l->idx; /* it again first, then the others */
	recent_requeue(l);
	snprintf(l->last_error, sizeof(l->last_error), "connection lost");
	l->retry_ms = LINK_RETRY_FIRST_MS;
	link_schedule_retry(l);
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
	l->reg.term = l->term;
	l->reg.lineage = l->lineage;
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
	fd = client_connect_from(l->conf, l->auth, l->reg.name, l->next_idx, &l->idx,
	                         &err);
	if (fd < 0) {
		link_fail_once(l, err.text[0] ? err.text : strerror(-fd));
		link_schedule_retry(l);
		return;
	}
	l->conn = conn_create(l->base, fd, "rotactld", link_on_msg, link_on_close, l);
	l->last_heard = time_mono_s();
	link_register(l);
}

static void link_ping(evutil_socket_t fd_unused, short what, void *arg)
{
	struct ctld_link *l = arg;
	struct node_ping p = {.name = l->reg.name};

	/* a controller that stops answering (stopped, hung, cut off) is left
	 * for the others when there are others: a backup takes over after
	 * SlurmctldTimeout, and so do we */
	if (l->state != LINK_DOWN && conf_ctld_count(l->conf) > 1 &&
	    time_mono_s() - l->last_heard > link_silence_s(l)) {
		char msg[ROTA_ERROR_TEXT];
		snprintf(msg, sizeof(msg),
		         "the controller at %s has not answered for %ld s: trying the "
		         "others",
		         conf_ctld_addr(l->conf, l->idx), (long)link_silence_s(l));
		link_fail_once(l, msg);
		link_drop(l, l->idx + 1, 0);
		return;
	}
	if (l->state != LINK_UP)
		return;
	if (l->ops->ping_fill) {
		l->ops->ping_fill(l->arg, &p);
	} else {
		p.free_memory = hwinfo_free_memory();
		p.cpu_load = hwinfo_cpu_load();
	}
	conn_send(l->conn, MSG_NODE_PING, &p);
}

struct ctld_link *ctld_link_create(struct event_base *base, const struct conf *conf,
                                   struct auth *auth, const struct node_register *reg,
                                   const char *term_file, const struct ctld_link_ops *ops,
                                   void *arg)
{
	struct ctld_link *l = xcalloc(1, sizeof(*l));
	struct timeval tv;

	l->base = base;
	l->conf = conf;
	l->auth = auth;
	l->ops = ops;
	l->arg = arg;
	l->term_file = term_file ? xstrdup(term_file) : NULL;
	l->tail = &l->head;
	l->recent_tail = &l->recent;
	l->retry_ms = LINK_RETRY_FIRST_MS;
	l->jitter = (unsigned int)getpid() ^ (unsigned int)(uintptr_t)l ^
	            (unsigned int)time(NULL);
	l->ping_s = (int)conf_node_ping_s(conf);
	tv = (struct timeval){.tv_sec = l->ping_s};
	/* the term survives a restart: a restarted rotad still refuses a
	 * controller it had left behind */
	term_load(l);
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

void ctld_link_retry_now(struct ctld_link *l)
{
	if (!l || l->state != LINK_DOWN)
		return;
	evtimer_del(l->retry_ev);
	l->retry_ms = LINK_RETRY_FIRST_MS;
	event_active(l->retry_ev, EV_TIMEOUT, 0);
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
	free(l->term_file);
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

int ctld_link_reply(struct ctld_link *l, uint16_t type, const void *body)
{
	if (!l || l->state != LINK_UP || !l->conn)
		return -EPIPE;
	return conn_send(l->conn, type, body);
}
