#include <errno.h>
#include <event2/event.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "proto/messages.h"
#include "noded/ctld_link.h"
#include "noded/emulate.h"
#include "noded/hwinfo.h"
#include "common/common.h"

/* An emulated run is never longer than this (a year): a timer, not a limit. */
#define EMU_RUNTIME_MAX (365.0 * 86400)

struct emu_node;

/* A launch being "run": its end is a timer. */
struct emu_step {
	uint32_t job_id, step_id;
	int64_t start_time;
	struct emu_node *node;
	struct event *timer;
	struct emu_step *next;
};

/* A job that ran here and was not terminated yet (its run's start_time). */
struct emu_job {
	uint32_t job_id;
	int64_t start_time;
	struct emu_job *next;
};

struct emu_node {
	struct emulator *emu;
	const struct conf_node *cn;
	struct ctld_link *link;
	struct emu_step *steps;
	struct emu_job *jobs;
};

struct emulator {
	struct event_base *base;
	const struct conf *conf;
	struct emu_node *nodes;
	size_t n;
};

/* Seconds of `sleep N[smhd]` at s (just after "sleep"), or -1. */
static double sleep_arg(const char *s)
{
	char *end;
	double v;

	if (*s != ' ' && *s != '\t')
		return -1;
	v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0)
		return -1;
	switch (*end) {
	case 'm':
		v *= 60;
		break;
	case 'h':
		v *= 3600;
		break;
	case 'd':
		v *= 86400;
		break;
	default:
		break;
	}
	return v < EMU_RUNTIME_MAX ? v : EMU_RUNTIME_MAX;
}

/* How long a launch "runs": its first `sleep N` (module comment), else 0. */
static double emu_runtime(const struct launch_req *req)
{
	const char *p, *base;
	double v;

	if (req->step_id == STEP_BATCH && req->script) {
		for (p = strstr(req->script, "sleep"); p; p = strstr(p + 5, "sleep"))
			if ((p == req->script || strchr(" \t\n;&|(", p[-1])) &&
			    (v = sleep_arg(p + 5)) >= 0)
				return v;
		return 0;
	}
	if (!req->argv || !req->argv[0] || !req->argv[1])
		return 0;
	base = strrchr(req->argv[0], '/');
	base = base ? base + 1 : req->argv[0];
	if (strcmp(base, "sleep"))
		return 0;
	{
		char arg[64];
		snprintf(arg, sizeof(arg), " %s", req->argv[1]);
		v = sleep_arg(arg);
	}
	return v > 0 ? v : 0;
}

static void node_report(struct emu_node *en, uint32_t job_id, uint32_t step_id,
                        int64_t start_time, uint32_t status, uint32_t flags)
{
	struct step_complete sc = {.job_id = job_id,
	                           .step_id = step_id,
	                           .node_name = en->cn->name,
	                           .status = status,
	                           .flags = flags,
	                           .start_time = start_time};

	ctld_link_send_complete(en->link, &sc);
}

/* Unlink st from its node, report it ended with status and free it. */
static void step_end(struct emu_step *st, uint32_t status)
{
	struct emu_node *en = st->node;

	for (struct emu_step **pp = &en->steps; *pp; pp = &(*pp)->next)
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	node_report(en, st->job_id, st->step_id, st->start_time, status, 0);
	event_free(st->timer);
	free(st);
}

static void on_step_timer(evutil_socket_t fd, short what, void *arg)
{
	step_end(arg, 0);
}

static struct emu_job *job_find(struct emu_node *en, uint32_t job_id)
{
	struct emu_job *j = en->jobs;

	while (j && j->job_id != job_id)
		j = j->next;
	return j;
}

static void on_launch(void *arg, const struct launch_req *req)
{
	struct emu_node *en = arg;
	struct emu_job *j = job_find(en, req->job_id);
	struct emu_step *st;
	double secs = emu_runtime(req);
	struct timeval tv = {.tv_sec = (time_t)secs,
	                     .tv_usec = (suseconds_t)((secs - floor(secs)) * 1e6)};

	if (!j) {
		j = xcalloc(1, sizeof(*j));
		j->job_id = req->job_id;
		j->next = en->jobs;
		en->jobs = j;
		if (en->emu->conf->prolog) {
			struct step_complete sc = {.job_id = req->job_id,
			                           .step_id = req->step_id,
			                           .node_name = en->cn->name,
			                           .start_time = req->start_time};
			ctld_link_send(en->link, MSG_PROLOG_COMPLETE, &sc);
		}
	}
	j->start_time = req->start_time;
	st = xcalloc(1, sizeof(*st));
	st->job_id = req->job_id;
	st->step_id = req->step_id;
	st->start_time = req->start_time;
	st->node = en;
	st->timer = evtimer_new(en->emu->base, on_step_timer, st);
	if (!st->timer)
		fatal("cannot create a timer");
	st->next = en->steps;
	en->steps = st;
	evtimer_add(st->timer, &tv);
}

/* Does sig end a process that does not handle it? */
static int sig_ends(uint32_t sig)
{
	switch (sig) {
	case 0:
	case SIGCONT:
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
	case SIGCHLD:
	case SIGURG:
	case SIGWINCH:
		return 0;
	default:
		return sig < 65;
	}
}

static void on_signal(void *arg, const struct signal_req *req)
{
	struct emu_node *en = arg;
	int terminate = (req->flags & SIGNAL_F_TERMINATE) != 0;
	struct emu_step *st, *next;

	for (st = en->steps; st; st = next) {
		next = st->next;
		if (st->job_id != req->job_id ||
		    (req->step_id != NO_VAL && req->step_id != st->step_id))
			continue;
		if ((req->flags & SIGNAL_F_BATCH_ONLY) && st->step_id != STEP_BATCH)
			continue;
		if ((req->flags & SIGNAL_F_NO_BATCH) && st->step_id == STEP_BATCH)
			continue;
		if (terminate || sig_ends(req->signal))
			step_end(st, terminate ? SIGKILL : req->signal);
	}
	if (terminate && req->step_id == NO_VAL) {
		int64_t start = 0;
		for (struct emu_job **pp = &en->jobs; *pp; pp = &(*pp)->next) {
			struct emu_job *j = *pp;
			if (j->job_id != req->job_id)
				continue;
			start = j->start_time;
			*pp = j->next;
			free(j);
			break;
		}
		node_report(en, req->job_id, NO_VAL, start, 0, STEP_DONE_JOB_GONE);
	}
}

static void on_live_steps(void *arg, struct rota_u32v *jobs, struct rota_u32v *steps)
{
	struct emu_node *en = arg;
	size_t n = 0;

	for (struct emu_step *st = en->steps; st; st = st->next)
		n++;
	for (struct emu_job *j = en->jobs; j; j = j->next)
		n++;
	jobs->v = xcalloc(n ? n : 1, sizeof(uint32_t));
	steps->v = xcalloc(n ? n : 1, sizeof(uint32_t));
	jobs->n = steps->n = 0;
	for (struct emu_step *st = en->steps; st; st = st->next) {
		jobs->v[jobs->n++] = st->job_id;
		steps->v[steps->n++] = st->step_id;
	}
	/* as rotad names a job with a cgroup here */
	for (struct emu_job *j = en->jobs; j; j = j->next) {
		jobs->v[jobs->n++] = j->job_id;
		steps->v[steps->n++] = NO_VAL;
	}
}

static void on_ping_fill(void *arg, struct node_ping *p)
{
	struct emu_node *en = arg;

	p->free_memory = en->cn->real_memory;
	p->cpu_load = 0;
}

/* sstat: emulated steps have no processes to measure; say at once that
 * none runs here rather than leave the controller to time out. */
static void on_stat(void *arg, const struct step_stat_req *req)
{
	struct emu_node *en = arg;
	struct node_stat_resp r = {.req_id = req->req_id,
	                           .tag = req->tag,
	                           .rc = -ESLURM_INVALID_JOB_ID,
	                           .job_id = req->job_id,
	                           .step_id = req->step_id};

	ctld_link_reply(en->link, MSG_NODE_STAT_RESP, &r);
}

static const struct ctld_link_ops emu_link_ops = {
    .stat = on_stat,
    .launch = on_launch,
    .signal = on_signal,
    .live_steps = on_live_steps,
    .ping_fill = on_ping_fill,
};

/* Index of conf's nodes by name (open addressing over a power of two). */
struct name_index {
	const struct conf_node **slot;
	size_t mask;
};

static size_t name_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void name_index_build(struct name_index *ix, const struct conf *conf)
{
	size_t size = 16;

	while (size < 2 * conf->node_count)
		size *= 2;
	ix->slot = xcalloc(size, sizeof(*ix->slot));
	ix->mask = size - 1;
	for (size_t i = 0; i < conf->node_count; i++) {
		size_t h = name_hash(conf->nodes[i].name) & ix->mask;
		while (ix->slot[h])
			h = (h + 1) & ix->mask;
		ix->slot[h] = &conf->nodes[i];
	}
}

static const struct conf_node *name_index_find(const struct name_index *ix,
                                               const char *name)
{
	for (size_t h = name_hash(name) & ix->mask; ix->slot[h]; h = (h + 1) & ix->mask)
		if (!strcmp(ix->slot[h]->name, name))
			return ix->slot[h];
	return NULL;
}

int emulator_create(struct event_base *base, const struct conf *conf, struct auth *auth,
                    const char *nodes, struct emulator **ret, struct rota_error *err)
{
	struct emulator *e;
	struct name_index ix;
	char **names;
	size_t n;
	time_t now = time(NULL);
	int rc;

	if ((rc = hostlist_expand(nodes, &names, &n, err)) < 0) {
		if (rc == -E2BIG)
			return errprintf(err, "--emulate %s: more than %d nodes", nodes,
			                 HOSTLIST_MAX);
		return rc == -1
		           ? -1
		           : errprintf(err, "--emulate %s: %s", nodes, strerror(-rc));
	}
	if (!n) {
		hostlist_free(names);
		return errprintf(err, "--emulate: no nodes named");
	}
	name_index_build(&ix, conf);
	e = xcalloc(1, sizeof(*e));
	e->base = base;
	e->conf = conf;
	e->nodes = xcalloc(n, sizeof(*e->nodes));
	for (size_t i = 0; i < n; i++) {
		const struct conf_node *cn = name_index_find(&ix, names[i]);
		if (!cn) {
			errprintf(err, "--emulate: node %s is not in slurm.conf",
			          names[i]);
			free(ix.slot);
			hostlist_free(names);
			free(e->nodes);
			free(e);
			return -1;
		}
		e->nodes[i].cn = cn;
		e->nodes[i].emu = e;
	}
	free(ix.slot);
	hostlist_free(names);
	/* every link connects in the loop's first turn, one after the other */
	for (size_t i = 0; i < n; i++) {
		struct node_register reg;
		hwinfo_register_fill(e->nodes[i].cn, conf->tmp_fs, now, &reg);
		e->nodes[i].link = ctld_link_create(base, conf, auth, &reg, NULL,
		                                    &emu_link_ops, &e->nodes[i]);
	}
	e->n = n;
	log_info("emulating %zu node(s)", n);
	*ret = e;
	return 0;
}

void emulator_retry_now(struct emulator *e)
{
	for (size_t i = 0; e && i < e->n; i++)
		ctld_link_retry_now(e->nodes[i].link);
}

void emulator_destroy(struct emulator *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		struct emu_node *en = &e->nodes[i];
		ctld_link_destroy(en->link);
		while (en->steps) {
			struct emu_step *st = en->steps;
			en->steps = st->next;
			event_free(st->timer);
			free(st);
		}
		while (en->jobs) {
			struct emu_job *j = en->jobs;
			en->jobs = j->next;
			free(j);
		}
	}
	free(e->nodes);
	free(e);
}
