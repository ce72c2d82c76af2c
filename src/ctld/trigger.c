/* trigger.c - strigger's event triggers (see trigger.h). */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/trigtype.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/detach.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/suspend.h"
#include "ctld/trigger.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

struct trig {
	uint32_t id, res_type, type, flags, uid, gid;
	int32_t offset;
	char *res_id, *program;
	uint32_t job_id;  /* job triggers */
	uint8_t *filter;  /* node triggers with a list: [nfilter] its nodes */
	size_t nfilter;   /* the node count it was made for */
	time_t due;       /* it runs then (0: nothing happened yet) */
	char *arg;        /* with this argument */
	time_t last_fire; /* PERM --idle: an idle spell fires once */
	struct trig *next;
};

struct trigger_mgr {
	struct trig *head;
	size_t count;
	uint32_t next_id;
	/* the nodes at the last tick (not journaled) */
	uint8_t *was_down, *was_drained, *was_fail;
	time_t *idle_since;
	size_t nnodes;
	int primed;
	uint32_t noted; /* trigger_note()s since the last tick */
};

static struct trigger_mgr *mgr(struct ctld *ctld)
{
	if (!ctld->triggers)
		ctld->triggers = xcalloc(1, sizeof(struct trigger_mgr));
	return ctld->triggers;
}

static void trig_free(struct trig *t)
{
	free(t->res_id);
	free(t->program);
	free(t->filter);
	free(t->arg);
	free(t);
}

void trigger_mgr_clear(struct trigger_mgr *m)
{
	if (!m)
		return;
	while (m->head) {
		struct trig *t = m->head;
		m->head = t->next;
		trig_free(t);
	}
	m->count = 0;
	m->next_id = 0;
}

void trigger_mgr_destroy(struct trigger_mgr *m)
{
	if (!m)
		return;
	trigger_mgr_clear(m);
	free(m->was_down);
	free(m->was_drained);
	free(m->was_fail);
	free(m->idle_since);
	free(m);
}

static struct trig *find(const struct trigger_mgr *m, uint32_t id)
{
	struct trig *t = m ? m->head : NULL;

	while (t && t->id != id)
		t = t->next;
	return t;
}

/* ---- the event ---- */

int trigger_apply(struct ctld *ctld, const struct ev_trigger *ev)
{
	struct trigger_mgr *m = mgr(ctld);
	struct trig *t = find(m, ev->id), **pp;

	if (ev->del) {
		if (!t)
			return -ENOENT;
		for (pp = &m->head; *pp != t; pp = &(*pp)->next)
			;
		*pp = t->next;
		trig_free(t);
		m->count--;
		return 0;
	}
	if (!t) { /* in id order, as strigger --get lists them */
		t = xcalloc(1, sizeof(*t));
		t->id = ev->id;
		for (pp = &m->head; *pp && (*pp)->id < t->id; pp = &(*pp)->next)
			;
		t->next = *pp;
		*pp = t;
		m->count++;
	}
	t->res_type = ev->res_type;
	t->type = ev->trig_type;
	t->offset = ev->offset;
	t->flags = ev->flags;
	t->uid = ev->uid;
	t->gid = ev->gid;
	free(t->res_id);
	t->res_id = xstrdup(ev->res_id ? ev->res_id : "");
	free(t->program);
	t->program = xstrdup(ev->program ? ev->program : "");
	t->job_id =
	    t->res_type == TRIG_RES_JOB ? (uint32_t)strtoul(t->res_id, NULL, 10) : 0;
	free(t->filter);
	t->filter = NULL;
	t->nfilter = 0;
	if (ev->id >= m->next_id)
		m->next_id = ev->id + 1;
	return 0;
}

static void fill(const struct trig *t, struct ev_trigger *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = EV_TRIGGER;
	ev->id = t->id;
	ev->res_type = t->res_type;
	ev->res_id = xstrdup(t->res_id);
	ev->trig_type = t->type;
	ev->offset = t->offset;
	ev->flags = t->flags;
	ev->uid = t->uid;
	ev->gid = t->gid;
	ev->program = xstrdup(t->program);
}

int trigger_snapshot(const struct trigger_mgr *m, size_t i, struct ev_trigger *ev)
{
	const struct trig *t = m ? m->head : NULL;

	while (t && i--)
		t = t->next;
	if (!t)
		return 0;
	fill(t, ev);
	return 1;
}

static int commit_del(struct ctld *ctld, uint32_t id)
{
	struct ev_trigger ev = {.type = EV_TRIGGER, .id = id, .del = 1};

	return ev_trigger_commit(ctld, &ev);
}

/* ---- requests ---- */

/* This tick's node events: [nn] each. */
struct events {
	uint8_t *down, *up, *drained, *fail, *hit;
	size_t nn;
	time_t now;
};

static void look(struct ctld *ctld, struct trigger_mgr *m, struct events *e);
static void events_release(struct events *e);

/* May uid/gid run the program (its first word)?  0, or a Slurm error. */
static int program_ok(const char *program, uint32_t uid, uint32_t gid)
{
	size_t n = strcspn(program, " \t");
	char *path = xstrndup(program, n);
	struct stat sb;
	int ok;

	ok = path[0] == '/' && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	     (uid == 0                  ? (sb.st_mode & 0111) != 0
	      : sb.st_uid == (uid_t)uid ? (sb.st_mode & S_IXUSR) != 0
	      : sb.st_gid == (gid_t)gid ? (sb.st_mode & S_IXGRP) != 0
	                                : (sb.st_mode & S_IXOTH) != 0);
	free(path);
	return ok ? 0 : ESLURM_ACCESS_DENIED;
}

static int nodes_known(struct ctld *ctld, const char *list)
{
	char **names = NULL;
	size_t n = 0;
	int ok;

	if (!strcmp(list, "*"))
		return 1;
	if (hostlist_expand(list, &names, &n, NULL) < 0 || !n)
		return 0;
	ok = 1;
	for (size_t i = 0; i < n && ok; i++)
		ok = node_mgr_find(ctld->nodes, names[i]) >= 0;
	hostlist_free(names);
	return ok;
}

static int duplicate(const struct trigger_mgr *m, const struct trigger *r, uint32_t uid)
{
	for (const struct trig *t = m ? m->head : NULL; t; t = t->next)
		if (t->res_type == r->res_type && t->type == r->type &&
		    t->offset == r->offset && t->uid == uid &&
		    !strcmp(t->res_id, r->res_id ? r->res_id : "") &&
		    !strcmp(t->program, r->program))
			return 1;
	return 0;
}

static int set_check(struct ctld *ctld, const struct caller *who, const struct trigger *r)
{
	const struct job *job;

	if (ctld->slurm_uid != 0 && who->uid != ctld->slurm_uid)
		return ESLURM_ACCESS_DENIED;
	if (who->uid != 0 && ctld->triggers && ctld->triggers->count >= TRIGGER_MAX)
		return -EAGAIN;
	if (!r->type || (r->type & ~(uint32_t)TRIG_T_SUPPORTED) || !r->program ||
	    strnlen(r->program, TRIGGER_PROGRAM_MAX + 1) > TRIGGER_PROGRAM_MAX ||
	    (r->res_id && strnlen(r->res_id, HOSTLIST_MAX + 1) > HOSTLIST_MAX) ||
	    r->offset < -32000 || r->offset > 32000 ||
	    (r->flags & ~(uint32_t)TRIG_F_PERM))
		return ESLURM_INVALID_ARGUMENT;
	switch (r->res_type) {
	case TRIG_RES_JOB:
		job = job_find(ctld->jobs,
		               r->res_id ? (uint32_t)strtoul(r->res_id, NULL, 10) : 0);
		if (!job)
			return ESLURM_INVALID_JOB_ID;
		if (job_is_finished(job))
			return ESLURM_ALREADY_DONE;
		if (r->type &
		    ~(uint32_t)(TRIG_T_FINI | TRIG_T_TIME | TRIG_T_UP | TRIG_T_DOWN))
			return ESLURM_INVALID_ARGUMENT;
		break;
	case TRIG_RES_NODE:
		if (!r->res_id || !nodes_known(ctld, r->res_id))
			return ESLURM_INVALID_NODE_NAME;
		if (r->type &
		    (TRIG_T_FINI | TRIG_T_TIME | TRIG_T_CTLD_SEEN | TRIG_T_DBD_SEEN))
			return ESLURM_INVALID_ARGUMENT;
		break;
	case TRIG_RES_SLURMCTLD:
		if (r->type & ~(uint32_t)TRIG_T_CTLD_SEEN)
			return ESLURM_INVALID_ARGUMENT;
		break;
	case TRIG_RES_SLURMDBD:
		if (r->type & ~(uint32_t)TRIG_T_DBD_SEEN)
			return ESLURM_INVALID_ARGUMENT;
		break;
	default:
		return ESLURM_NOT_SUPPORTED;
	}
	if (duplicate(ctld->triggers, r, who->uid))
		return ESLURM_TRIGGER_DUP;
	return program_ok(r->program, who->uid, who->gid);
}

void trigger_set_request(struct ctld *ctld, const struct caller *who,
                         const struct trigger *req, struct chan *ch)
{
	struct ev_trigger ev = {.type = EV_TRIGGER};
	int rc = set_check(ctld, who, req);

	if (rc) {
		chan_send_rc(ch, rc < 0 ? rc : -rc,
		             rc == -EAGAIN ? strerror(EAGAIN) : NULL);
		return;
	}
	ev.id = mgr(ctld)->next_id ? mgr(ctld)->next_id : 1;
	ev.res_type = req->res_type;
	ev.res_id = req->res_id;
	ev.trig_type = req->type;
	ev.offset = req->offset;
	ev.flags = req->flags;
	ev.uid = who->uid;
	ev.gid = who->gid;
	ev.program = req->program;
	rc = ev_trigger_commit(ctld, &ev);
	if (rc < 0) {
		chan_send_rc(ch, SLURM_ERROR, "the trigger could not be saved");
		return;
	}
	if (!ctld->triggers->primed) { /* what happens from now on counts */
		struct events e = {.now = time(NULL)};
		look(ctld, ctld->triggers, &e);
		events_release(&e);
	}
	log_info("trigger %u set by uid %u: %s %s %s", ev.id, who->uid,
	         trig_res_name(req->res_type), req->res_id ? req->res_id : "",
	         trig_type_name(req->type));
	chan_send_rc(ch, 0, NULL);
}

void trigger_clear_request(struct ctld *ctld, const struct caller *who,
                           const struct trigger *req, struct chan *ch)
{
	uint32_t job_id = req->res_id ? (uint32_t)strtoul(req->res_id, NULL, 10) : 0;
	int found = 0, denied = 0;
	struct trig *t, *next;

	if (req->res_type == TRIG_RES_JOB && !job_id) {
		chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	if (!req->id && !job_id && req->uid == NO_VAL) {
		chan_send_rc(ch, -EINVAL, strerror(EINVAL));
		return;
	}
	for (t = ctld->triggers ? ctld->triggers->head : NULL; t; t = next) {
		next = t->next;
		if ((req->id && t->id != req->id) || (job_id && t->job_id != job_id) ||
		    (req->uid != NO_VAL && t->uid != req->uid))
			continue;
		if (t->uid != who->uid && who->uid != 0 && !caller_is_operator(who)) {
			denied = 1;
			continue;
		}
		if (commit_del(ctld, t->id) == 0)
			found = 1;
	}
	if (found)
		chan_send_rc(ch, 0, NULL);
	else if (denied)
		chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
	else
		chan_send_rc(ch, -ESRCH, strerror(ESRCH));
}

void trigger_get_request(struct ctld *ctld, struct chan *ch)
{
	struct trigger_mgr *m = ctld->triggers;
	struct trigger_list r = {0};
	size_t i = 0;

	r.triggers = xcalloc((m ? m->count : 0) + 1, sizeof(struct trigger));
	for (struct trig *t = m ? m->head : NULL; t; t = t->next, i++) {
		struct trigger *o = &r.triggers[i];
		struct passwd *pw = getpwuid((uid_t)t->uid); /* NSS: names are cached */
		o->id = t->id;
		o->res_type = t->res_type;
		o->res_id = t->res_id;
		o->type = t->type;
		o->offset = t->offset;
		o->flags = t->flags;
		o->uid = t->uid;
		o->gid = t->gid;
		o->user = pw ? xstrdup(pw->pw_name) : NULL;
		o->program = t->program;
	}
	r.triggers_count = (uint32_t)i;
	chan_send(ch, MSG_TRIGGER_GET_RESP, &r);
	for (i = 0; i < r.triggers_count; i++)
		free(r.triggers[i].user);
	free(r.triggers);
}

/* ---- running a program ---- */

/* Run t's program with arg as its user, not waited for, killed after
 * TRIGGER_RUN_LIMIT_S. */
static void run(const struct trig *t, const char *arg)
{
	char **argv = strv_split(t->program, " \t");
	struct passwd *pw = getpwuid((uid_t)t->uid);
	struct detached d = {.uid = (uid_t)t->uid,
	                     .gid = (gid_t)t->gid,
	                     .user = pw ? pw->pw_name : NULL,
	                     .limit_s = TRIGGER_RUN_LIMIT_S};
	int rc;

	if (arg && *arg)
		argv = strv_append(argv, arg);
	d.argv = argv;
	if ((rc = ctld_run_detached(&d)) < 0)
		log_err("trigger %u: %s", t->id, strerror(-rc));
	else
		log_info("trigger %u: ran %s %s", t->id, t->program, arg ? arg : "");
	strv_free(argv);
}

/* ---- events ---- */

static int node_drained(const struct node *n)
{
	return (n->flags & NODE_DRAIN) && !n->run_jobs && !n->completing;
}

static int node_idle(const struct node *n)
{
	return !n->down && !(n->flags & (NODE_DRAIN | NODE_FAIL)) && !n->run_jobs &&
	       !n->completing;
}

/* The nodes of t's list (all when "*"), for this node count. */
static const uint8_t *filter_of(struct ctld *ctld, struct trig *t, size_t nn)
{
	char **names = NULL;
	size_t n = 0;

	if (!strcmp(t->res_id, "*"))
		return NULL;
	if (t->filter && t->nfilter == nn)
		return t->filter;
	free(t->filter);
	t->filter = xcalloc(nn + 1, 1);
	t->nfilter = nn;
	if (hostlist_expand(t->res_id, &names, &n, NULL) == 0) {
		for (size_t i = 0; i < n; i++) {
			int idx = node_mgr_find(ctld->nodes, names[i]);
			if (idx >= 0 && (size_t)idx < nn)
				t->filter[idx] = 1;
		}
		hostlist_free(names);
	}
	return t->filter;
}

/* The names of the nodes marked in hit, as a host list (caller frees), or
 * NULL for none. */
static char *hosts_of(struct ctld *ctld, const uint8_t *hit, size_t nn)
{
	char **names = xcalloc(nn + 1, sizeof(char *));
	size_t n = 0;
	char *list;

	for (size_t i = 0; i < nn; i++)
		if (hit[i])
			names[n++] =
			    (char *)node_mgr_get(ctld->nodes, (uint32_t)i)->cfg->name;
	list = n ? hostlist_compress(names, n) : NULL;
	free(names);
	return list;
}

static void make_due(struct trig *t, time_t when, char *arg)
{
	t->due = when;
	free(t->arg);
	t->arg = arg;
}

static void node_trigger(struct ctld *ctld, struct trig *t, const struct events *e)
{
	struct trigger_mgr *m = ctld->triggers;
	const uint8_t *want = filter_of(ctld, t, e->nn);
	int any = 0;
	char *hosts;

	memset(e->hit, 0, e->nn);
	for (size_t i = 0; i < e->nn; i++) {
		if (want && !want[i])
			continue;
		if (((t->type & TRIG_T_DOWN) && e->down[i]) ||
		    ((t->type & TRIG_T_UP) && e->up[i]) ||
		    ((t->type & TRIG_T_DRAINED) && e->drained[i]) ||
		    ((t->type & TRIG_T_FAIL) && e->fail[i]) ||
		    ((t->type & TRIG_T_IDLE) && m->idle_since[i] &&
		     e->now - m->idle_since[i] >= (t->offset > 0 ? t->offset : 0) &&
		     m->idle_since[i] > t->last_fire))
			e->hit[i] = any = 1;
	}
	if (any && (hosts = hosts_of(ctld, e->hit, e->nn)))
		make_due(t,
		         e->now +
		             ((t->type & TRIG_T_IDLE) || t->offset < 0 ? 0 : t->offset),
		         hosts);
	if (!t->due && (t->type & TRIG_T_RECONFIG) && (m->noted & TRIG_T_RECONFIG))
		make_due(t, e->now + (t->offset > 0 ? t->offset : 0), xstrdup(t->res_id));
}

/* Returns 1 when t is to go (its job left or ended without it firing). */
static int job_trigger(struct ctld *ctld, struct trig *t, const struct events *e)
{
	const struct job *job = job_find(ctld->jobs, t->job_id);
	char id[16];

	snprintf(id, sizeof(id), "%u", t->job_id);
	if (!job)
		return 1;
	if (job_is_finished(job)) {
		if (!(t->type & TRIG_T_FINI))
			return 1;
		make_due(t, e->now + (t->offset > 0 ? t->offset : 0), xstrdup(id));
		return 0;
	}
	if (!job_is_running(job))
		return 0;
	if ((t->type & TRIG_T_TIME) && job->time_limit != INFINITE32) {
		long left = (long)job->time_limit * 60 - job_run_secs(job, e->now);
		if (left + t->offset <= 0)
			make_due(t, e->now, xstrdup(id));
	}
	if (t->type & (TRIG_T_DOWN | TRIG_T_UP)) {
		char *hosts;
		int any = 0;
		memset(e->hit, 0, e->nn);
		for (uint32_t k = 0; k < job->run->nnodes; k++) {
			uint32_t i = job->run->node_idx[k];
			if (i < e->nn && (((t->type & TRIG_T_DOWN) && e->down[i]) ||
			                  ((t->type & TRIG_T_UP) && e->up[i])))
				e->hit[i] = any = 1;
		}
		if (any && (hosts = hosts_of(ctld, e->hit, e->nn)))
			make_due(t, e->now + (t->offset > 0 ? t->offset : 0), hosts);
	}
	return 0;
}

static void events_release(struct events *e)
{
	free(e->down);
	free(e->up);
	free(e->drained);
	free(e->fail);
	free(e->hit);
}

void trigger_note(struct ctld *ctld, uint32_t type)
{
	if (ctld->triggers)
		ctld->triggers->noted |= type;
}

/* Compare the nodes with the last look; the first look only records. */
static void look(struct ctld *ctld, struct trigger_mgr *m, struct events *e)
{
	size_t nn = node_mgr_count(ctld->nodes);

	if (nn != m->nnodes) {
		m->was_down = xrealloc(m->was_down, nn + 1);
		m->was_drained = xrealloc(m->was_drained, nn + 1);
		m->was_fail = xrealloc(m->was_fail, nn + 1);
		m->idle_since = xrealloc(m->idle_since, (nn + 1) * sizeof(time_t));
		m->nnodes = nn;
		m->primed = 0;
	}
	e->nn = nn;
	if (m->head) { /* events only matter to triggers */
		e->down = xcalloc(nn + 1, 1);
		e->up = xcalloc(nn + 1, 1);
		e->drained = xcalloc(nn + 1, 1);
		e->fail = xcalloc(nn + 1, 1);
		e->hit = xcalloc(nn + 1, 1);
	}
	for (size_t i = 0; i < nn; i++) {
		const struct node *n = node_mgr_get(ctld->nodes, (uint32_t)i);
		uint8_t down = n->down != 0, drained = (uint8_t)node_drained(n),
		        fail = !!(n->flags & NODE_FAIL);
		if (m->primed && e->down) {
			e->down[i] = down && !m->was_down[i];
			e->up[i] = !down && m->was_down[i];
			e->drained[i] = drained && !m->was_drained[i];
			e->fail[i] = fail && !m->was_fail[i];
		} else if (!m->primed) {
			m->idle_since[i] = 0;
		}
		m->was_down[i] = down;
		m->was_drained[i] = drained;
		m->was_fail[i] = fail;
		if (!node_idle(n))
			m->idle_since[i] = 0;
		else if (!m->idle_since[i])
			m->idle_since[i] = e->now;
	}
	m->primed = 1;
}

void trigger_tick(struct ctld *ctld, time_t now)
{
	struct trigger_mgr *m = mgr(ctld);
	struct events e = {.now = now};
	struct trig *t, *next;

	/* the nodes are looked at even with no trigger set: one set now sees
	 * what happens from now on */
	look(ctld, m, &e);
	if (!m->head) {
		m->noted = 0; /* no trigger saw it: not one set later either */
		return;
	}
	for (t = m->head; t; t = next) {
		next = t->next;
		if (t->res_type == TRIG_RES_JOB) {
			if (!t->due && job_trigger(ctld, t, &e)) {
				commit_del(ctld, t->id);
				continue;
			}
		} else if (t->res_type == TRIG_RES_NODE) {
			if (!t->due)
				node_trigger(ctld, t, &e);
		} else if (!t->due && (t->type & m->noted)) {
			make_due(t, now + (t->offset > 0 ? t->offset : 0), NULL);
		}
		if (!t->due || now < t->due)
			continue;
		run(t, t->arg);
		/* a job ends or reaches its limit once: PERM or not, that is it */
		if ((t->flags & TRIG_F_PERM) &&
		    !(t->res_type == TRIG_RES_JOB &&
		      (t->type & (TRIG_T_FINI | TRIG_T_TIME)))) {
			t->last_fire = now;
			make_due(t, 0, NULL);
		} else {
			commit_del(ctld, t->id);
		}
	}
	m->noted = 0;
	events_release(&e);
}
