/* resv.c - advanced reservations (see resv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/intern.h"
#include "common/licenses.h"
#include "common/log.h"
#include "common/resv_flags.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/uid.h"
#include "ctld/assoc.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/owner.h"
#include "ctld/licenses.h"
#include "ctld/resv.h"
#include "ctld/resv_impl.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "sched/bf_run.h"
#include "sched/select.h"
#include "common/common.h"

#define RESV_NAME_MAX      64
#define RESV_JOB_NAMES_MAX 32                 /* names in a job's --reservation=a,b,... */
#define RESV_LIST_MAX      4096               /* Users=, Accounts=: bytes */
#define RESV_MAX_COUNT     1024               /* reservations at once */
#define RESV_PAST_SLACK    600                /* a start this far back is taken as now */
#define RESV_YEAR          (365L * 24 * 3600) /* Duration=UNLIMITED */
#define RESV_PURGE_DEFAULT 300                /* PURGE_COMP without a time */

struct resv_mgr *resv_mgr_create(void)
{
	return xcalloc(1, sizeof(struct resv_mgr));
}

static void resv_free(struct resv *r)
{
	free(r->name);
	free(r->nodes);
	free(r->partition);
	free(r->users);
	free(r->accounts);
	free(r->licenses);
	free(r->member);
	free(r->cores_given);
	free(r->cores);
	free(r);
}

void resv_mgr_clear(struct resv_mgr *m)
{
	while (m && m->head) {
		struct resv *r = m->head;
		m->head = r->next;
		resv_free(r);
	}
	if (m)
		m->count = 0;
}

void resv_mgr_destroy(struct resv_mgr *m)
{
	resv_mgr_clear(m);
	free(m);
}

size_t resv_count(const struct resv_mgr *m)
{
	return m ? m->count : 0;
}

/* The controller's table; an empty one to read where there is none (a
 * test's bare ctld): only resv_apply makes it. */
struct resv_mgr *resv_mgr_of(struct ctld *ctld)
{
	static struct resv_mgr none;

	return ctld->resvs ? ctld->resvs : &none;
}

struct resv *resv_find(const struct resv_mgr *m, const char *name)
{
	for (struct resv *r = m ? m->head : NULL; r && name; r = r->next)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

/* r's node map for the node table as it is (a reconfiguration renumbers). */
void resv_members(struct ctld *ctld, struct resv *r)
{
	size_t n = node_mgr_count(ctld->nodes);
	char **names = NULL;
	size_t count = 0;

	if (r->member && r->gen == node_mgr_generation(ctld->nodes) && r->nmember == n)
		return;
	free(r->member);
	free(r->cores);
	r->cores = NULL;
	r->member = xcalloc(n ? n : 1, 1);
	if (r->cores_given)
		r->cores = xcalloc(n ? n : 1, sizeof(*r->cores));
	r->nmember = n;
	r->gen = node_mgr_generation(ctld->nodes);
	r->node_cnt = 0;
	r->cpu_cnt = 0;
	if (r->nodes && hostlist_expand(r->nodes, &names, &count, NULL) == 0)
		for (size_t i = 0; i < count; i++) {
			int idx = node_mgr_find(ctld->nodes, names[i]);
			uint32_t cpus;
			if (idx < 0 || r->member[idx])
				continue; /* gone from slurm.conf since */
			cpus = node_mgr_get(ctld->nodes, (size_t)idx)->cpus;
			if (r->cores) {
				uint32_t c = i < r->ncores_given ? r->cores_given[i] : 0;
				r->cores[idx] = c < cpus ? c : cpus;
				cpus = r->cores[idx];
			}
			r->member[idx] = 1;
			r->node_cnt++;
			r->cpu_cnt += cpus;
		}
	hostlist_free(names);
}

int resv_active(const struct resv *r, time_t now)
{
	return r->start <= now && now < r->end;
}

/* ---- the event ---- */

static int job_names(const struct job *job, const struct resv *r);
static char *list_edit(const char *cur, const char *items, uint32_t op);

/* v may be *dst itself (a record committed again, moved on) */
static void set_str(char **dst, const char *v)
{
	char *old = *dst;

	*dst = v && *v ? xstrdup(v) : NULL;
	free(old);
}

/* The jobs of r, which is going: as Slurm, they no longer ask for it (one
 * running past its end, ResvOverRun, and requeued later would wait for it
 * for ever), and unless it had NO_HOLD_JOBS_AFTER_END the pending ones wait
 * held (reason ReservationDeleted; scontrol release lets them run anywhere),
 * but an admin's hold stays.  One that names others too (a,b) keeps
 * those, unless it runs in r.  Part of applying the deletion: a replay does
 * the same. */
static void resv_orphan_jobs(struct ctld *ctld, const struct resv *r)
{
	struct intern *texts = job_mgr_texts(ctld->jobs);

	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		char *rest = NULL;
		if (job_is_finished(j) || !job_names(j, r))
			continue;
		if (resv_job_count(j) > 1 &&
		    !(j->run->resv && !strcmp(j->run->resv, r->name)))
			rest = list_edit(job_x(j)->reservation, r->name, RESV_LIST_DEL);
		intern_drop_str(texts, job_x(j)->reservation);
		job_desc_x_mut(&j->desc)->reservation = intern_str(texts, rest);
		if (rest) {
			job_sched_clear(j); /* resv_try: of the old list */
			continue;
		}
		if (j->run->resv) {
			free(job_run_mut(j)->resv);
			job_run_mut(j)->resv = NULL;
		}
		if (!job_is_pending(j))
			continue;
		if (!(r->flags & RESV_F_NO_HOLD) && j->hold != 2) {
			j->hold = JOB_HOLD_RESV;
			j->priority = 0;
			j->prio_set = 0;
			log_info("JobId=%u held: reservation %s was deleted", j->job_id,
			         r->name);
		}
		j->reason = j->hold ? job_hold_reason(j) : WAIT_NO_REASON;
		job_sched_clear(j);
		job_mgr_classify(ctld->jobs, j);
	}
}

int resv_apply(struct ctld *ctld, const struct ev_resv *ev)
{
	struct resv_mgr *m =
	    ctld->resvs ? ctld->resvs : (ctld->resvs = resv_mgr_create());
	struct resv *r = resv_find(m, ev->name), **pp;

	if (!ev->name || !*ev->name)
		return -EINVAL;
	if (ev->del) {
		if (!r)
			return -ENOENT;
		for (pp = &m->head; *pp != r; pp = &(*pp)->next)
			;
		*pp = r->next;
		resv_orphan_jobs(ctld, r);
		resv_free(r);
		m->count--;
		ctld->res_gen++;
		return 0;
	}
	if (!r) { /* kept in name order, as Slurm lists them */
		r = xcalloc(1, sizeof(*r));
		r->name = xstrdup(ev->name);
		for (pp = &m->head; *pp && strcmp((*pp)->name, r->name) < 0;
		     pp = &(*pp)->next)
			;
		r->next = *pp;
		*pp = r;
		m->count++;
	}
	r->start = (time_t)ev->start;
	r->end = (time_t)ev->end;
	r->flags = ev->flags;
	r->purge_comp = ev->purge_comp;
	set_str(&r->nodes, ev->nodes);
	set_str(&r->partition, ev->partition);
	set_str(&r->users, ev->users);
	set_str(&r->accounts, ev->accounts);
	set_str(&r->licenses, ev->licenses);
	if (r->cores_given != ev->cores.v) {
		free(r->cores_given);
		r->cores_given = ev->cores.n
		                     ? memcpy(xcalloc(ev->cores.n, sizeof(uint32_t)),
		                              ev->cores.v, ev->cores.n * sizeof(uint32_t))
		                     : NULL;
		r->ncores_given = ev->cores.n;
	}
	free(r->member);
	r->member = NULL;
	resv_members(ctld, r);
	ctld->res_gen++; /* what backfill planned may no longer stand */
	return 0;
}

static void resv_fill(const struct resv *r, struct ev_resv *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = EV_RESV;
	ev->name = r->name;
	ev->start = r->start;
	ev->end = r->end;
	ev->nodes = r->nodes;
	ev->partition = r->partition;
	ev->flags = r->flags;
	ev->purge_comp = r->purge_comp;
	ev->users = r->users;
	ev->accounts = r->accounts;
	ev->licenses = r->licenses;
	ev->cores = (struct rota_u32v){r->cores_given, r->ncores_given};
}

int resv_snapshot(const struct resv_mgr *m, size_t i, struct ev_resv *ev)
{
	const struct resv *r = m ? m->head : NULL;

	while (r && i--)
		r = r->next;
	if (!r)
		return 0;
	resv_fill(r, ev);
	/* the snapshot's event is released by its writer: copies */
	ev->name = xstrdup(r->name);
	ev->nodes = xstrdup(r->nodes);
	ev->partition = xstrdup(r->partition);
	ev->users = xstrdup(r->users);
	ev->accounts = xstrdup(r->accounts);
	ev->licenses = xstrdup(r->licenses);
	if (r->ncores_given)
		ev->cores.v = memcpy(xcalloc(r->ncores_given, sizeof(uint32_t)),
		                     r->cores_given, r->ncores_given * sizeof(uint32_t));
	return 1;
}

/* Commit r (or its deletion).  The event holds copies: applying it frees
 * or replaces the record's own members before the journal encodes it. */
int resv_commit(struct ctld *ctld, const struct resv *r, int del, time_t now)
{
	struct ev_resv ev;
	int rc;

	resv_fill(r, &ev);
	ev.name = xstrdup(r->name);
	if (del) {
		ev = (struct ev_resv){.name = ev.name};
	} else {
		ev.nodes = xstrdup(r->nodes);
		ev.partition = xstrdup(r->partition);
		ev.users = xstrdup(r->users);
		ev.accounts = xstrdup(r->accounts);
		ev.licenses = xstrdup(r->licenses);
		if (r->ncores_given)
			ev.cores.v =
			    memcpy(xcalloc(r->ncores_given, sizeof(uint32_t)),
			           r->cores_given, r->ncores_given * sizeof(uint32_t));
	}
	ev.del = (uint32_t)del;
	ev.time = now;
	rc = ev_resv_commit(ctld, &ev);
	codec_release(&ev_resv_type, &ev);
	return rc;
}

/* ---- who may use one ---- */

/* Is word in the comma list (items may carry a leading '-')? */
static int listed(const char *list, const char *word)
{
	size_t n = word ? strlen(word) : 0;

	for (const char *p = list; p && *p && n;) {
		size_t len = strcspn(p, ",");
		const char *item = *p == '-' ? p + 1 : p;
		size_t ilen = *p == '-' ? len - 1 : len;
		if (ilen == n && !strncmp(item, word, n))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Slurm's rule: the user must pass Users= (listed, or not excluded by a
 * "-" list); with Accounts= too, the account must pass it as well. */
static int resv_allows(const struct resv *r, const char *user, const char *account)
{
	if (r->users) {
		int neg = r->users[0] == '-';
		if (listed(r->users, user) == neg)
			return 0;
		if (!r->accounts)
			return 1;
	}
	if (r->accounts) {
		int neg = r->accounts[0] == '-';
		if (listed(r->accounts, account) == neg)
			return 0;
	}
	return 1;
}

static int job_allowed(const struct resv *r, const struct job *job)
{
	return resv_allows(r, job->owner ? job->owner->user : NULL, job->desc.account);
}

/* The n-th name of the comma list into buf (NUL-terminated): 1, 0 past the
 * last, -1 when it does not fit (never a reservation's name). */
static int list_item(const char *list, size_t n, char *buf, size_t len)
{
	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");
		if (!n--) {
			if (l >= len)
				return -1;
			memcpy(buf, p, l);
			buf[l] = '\0';
			return 1;
		}
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Does the job name r (alone or in its list)? */
static int job_names(const struct job *job, const struct resv *r)
{
	return job_x(job)->reservation && listed(job_x(job)->reservation, r->name);
}

/* The reservation the job uses: its only one; of a list, the one it runs
 * in, else the one the scheduler tries it in now, else the first that
 * exists.  NULL: none (or gone). */
static struct resv *job_resv(struct ctld *ctld, const struct job *job)
{
	const char *want = job_x(job)->reservation;
	struct resv_mgr *m = resv_mgr_of(ctld);
	char name[RESV_NAME_MAX + 1];
	struct resv *r;

	if (!want || !strchr(want, ','))
		return resv_find(m, want);
	if (job->run->resv)
		return resv_find(m, job->run->resv);
	if (job->sched && list_item(want, job->sched->resv_try, name, sizeof(name)) > 0 &&
	    (r = resv_find(m, name)))
		return r;
	for (size_t i = 0;; i++) {
		int got = list_item(want, i, name, sizeof(name));
		if (!got)
			return NULL;
		if (got > 0 && (r = resv_find(m, name)))
			return r;
	}
}

const char *resv_job_name(struct ctld *ctld, const struct job *job)
{
	const struct resv *r = job_resv(ctld, job);

	return r ? r->name : NULL;
}

size_t resv_job_count(const struct job *job)
{
	const char *s = job_x(job)->reservation;
	size_t n = s && *s;

	for (; s && *s; s++)
		n += *s == ',';
	return n;
}

/* Is r active, without FLEX, and of fewer nodes than d asks for (Slurm
 * refuses such a job at once)? */
static int too_small(struct ctld *ctld, struct resv *r, const struct job_desc *d,
                     time_t now)
{
	uint32_t want = d->min_nodes == NO_VAL ? 1 : d->min_nodes;

	if (!resv_active(r, now) || (r->flags & RESV_F_FLEX) || !r->nodes)
		return 0;
	resv_members(ctld, r);
	return want > r->node_cnt;
}

int resv_job_check(struct ctld *ctld, const char *user, const struct job_desc *d)
{
	const struct job_desc_ext *x = job_desc_X(d);
	char name[RESV_NAME_MAX + 1];
	struct resv *r;
	time_t now = time(NULL);
	int rc = 0, fits = 0;

	if (!x->reservation)
		return 0;
	if (!*x->reservation || x->reservation[0] == ',' ||
	    x->reservation[strlen(x->reservation) - 1] == ',' ||
	    strstr(x->reservation, ",,"))
		return -ESLURM_RESERVATION_INVALID;
	/* a list (a,b): every one must exist and admit the user (Slurm's); a
	 * name too long to be one, or too many names, is none */
	for (size_t i = 0;; i++) {
		int got = list_item(x->reservation, i, name, sizeof(name));
		if (!got)
			break;
		if (got < 0 || i >= RESV_JOB_NAMES_MAX ||
		    !(r = resv_find(resv_mgr_of(ctld), name)))
			return -ESLURM_RESERVATION_INVALID;
		if (!resv_allows(r, user, d->account))
			rc = -ESLURM_RESERVATION_ACCESS;
		else if (!too_small(ctld, r, d, now))
			fits = 1;
	}
	/* active ones, none with the nodes it asks for (FLEX aside): never */
	return rc ? rc : fits ? 0 : -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
}

uint32_t resv_job_wait(struct ctld *ctld, struct job *job, time_t now)
{
	const struct resv *r;

	if (!job_x(job)->reservation)
		return 0;
	r = job_resv(ctld, job);
	if (!r)
		return WAIT_RESV_DELETED;
	/* FLEX: it may begin before the reservation does (Slurm) */
	if (resv_active(r, now) || ((r->flags & RESV_F_FLEX) && r->end > now))
		return 0;
	/* squeue --start: not before its reservation begins */
	if (!job->sched || job->sched->est_start != r->start)
		job_sched_mut(job)->est_start = r->start;
	return WAIT_RESERVATION;
}

/* ---- what the scheduler asks ---- */

static int64_t job_end_if_now(const struct job *job, time_t now)
{
	if (job->time_limit == INFINITE32 || job->time_limit == NO_VAL)
		return INT64_MAX;
	return (int64_t)now + (int64_t)job->time_limit * 60;
}

/* ---- a scheduling pass's view of core reservations ---- */

/* What a pass needs of the core reservations: the CPUs their running jobs
 * hold on each node, and what the last mark added to the snapshot's
 * allocations (taken back at the next). */
struct core_use {
	const struct resv *r;
	uint32_t *used; /* [n] */
};
struct resv_pass {
	struct ctld *ctld;
	size_t n;
	struct core_use *cu;
	size_t ncu;
	struct sched_node *marked; /* the snapshot delta[] was added to */
	uint32_t *delta;           /* [n] */
};

struct resv_pass *resv_pass_begin(struct ctld *ctld)
{
	struct resv_mgr *m = resv_mgr_of(ctld);
	struct resv_pass *rp;
	size_t k = 0;

	for (struct resv *r = m->head; r; r = r->next)
		k += r->cores_given != NULL;
	if (!k)
		return NULL;
	rp = xcalloc(1, sizeof(*rp));
	rp->ctld = ctld;
	rp->n = node_mgr_count(ctld->nodes);
	rp->cu = xcalloc(k, sizeof(*rp->cu));
	rp->delta = xcalloc(rp->n ? rp->n : 1, sizeof(uint32_t));
	for (struct resv *r = m->head; r; r = r->next) {
		if (!r->cores_given)
			continue;
		resv_members(ctld, r);
		rp->cu[rp->ncu].r = r;
		rp->cu[rp->ncu++].used = xcalloc(rp->n ? rp->n : 1, sizeof(uint32_t));
	}
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext)
		if (job_is_running(j) && job_x(j)->reservation)
			resv_pass_took(rp, j, NULL);
	return rp;
}

void resv_pass_took(struct resv_pass *rp, const struct job *job,
                    const struct sched_alloc *a)
{
	const struct resv *own = rp ? job_resv(rp->ctld, job) : NULL;

	for (size_t c = 0; own && c < rp->ncu; c++) {
		if (rp->cu[c].r != own)
			continue;
		for (uint32_t k = 0; k < (a ? a->nnodes : job->run->nnodes); k++) {
			uint32_t i = a ? a->node_idx[k] : job->run->node_idx[k];
			if (i < rp->n)
				rp->cu[c].used[i] += a ? a->cpus[k] : job->run->cpus[k];
		}
	}
}

void resv_pass_end(struct resv_pass *rp)
{
	for (size_t c = 0; rp && c < rp->ncu; c++)
		free(rp->cu[c].used);
	if (rp) {
		free(rp->cu);
		free(rp->delta);
	}
	free(rp);
}

/* Take back what the last mark added to the snapshot. */
static void pass_undo(struct resv_pass *rp)
{
	for (size_t i = 0; rp->marked && i < rp->n; i++) {
		rp->marked[i].alloc_cpus -= rp->delta[i];
		rp->delta[i] = 0;
	}
	rp->marked = NULL;
}

static void pass_add(struct resv_pass *rp, struct sched_node *nodes, size_t i, uint32_t d)
{
	rp->marked = nodes;
	nodes[i].alloc_cpus += d;
	rp->delta[i] += d;
}

/* A core reservation's free CPUs on node i: those it holds its jobs do not
 * use. */
static uint32_t cores_free(const struct resv_pass *rp, const struct resv *r, size_t i)
{
	for (size_t c = 0; c < rp->ncu; c++)
		if (rp->cu[c].r == r)
			return r->cores[i] > rp->cu[c].used[i]
			           ? r->cores[i] - rp->cu[c].used[i]
			           : 0;
	return r->cores[i];
}

uint32_t resv_mark(struct ctld *ctld, struct resv_pass *rp, const struct job *job,
                   time_t now, struct sched_node *nodes, size_t n, size_t *ret_kept)
{
	struct resv_mgr *m = resv_mgr_of(ctld);
	const struct resv *own = NULL;
	int64_t end = job_end_if_now(job, now);

	/* a job with --time-min may be cut to end before a reservation
	 * begins (resv_job_limit): only its shortest run must fit */
	if (job_x(job)->time_min && !job_x(job)->reservation &&
	    (int64_t)now + (int64_t)job_x(job)->time_min * 60 < end)
		end = (int64_t)now + (int64_t)job_x(job)->time_min * 60;
	uint32_t why = 0;
	size_t kept = 0;

	*ret_kept = 0;
	if (rp)
		pass_undo(rp);
	if (!m->head)
		return 0;
	if (job_x(job)->reservation)
		own = job_resv(ctld, job);
	for (struct resv *r = m->head; r; r = r->next) {
		if (r == own || r->end <= now || r->start >= end)
			continue; /* not in the way of a job starting now */
		if ((r->flags & RESV_F_MAGNETIC) && job_allowed(r, job))
			continue;
		resv_members(ctld, r);
		for (size_t i = 0; i < n && i < r->nmember; i++) {
			if (!r->member[i] || !nodes[i].usable)
				continue;
			if (r->cores && rp) { /* its CPUs there are not free */
				uint32_t d = cores_free(rp, r, i);
				if (d)
					pass_add(rp, nodes, i, d);
				continue;
			}
			nodes[i].usable = 0;
			why |= r->flags | RESV_F_SPEC_NODES;
			kept++;
		}
	}
	/* its nodes alone (one of licenses alone has none: any) */
	if (own && own->nodes && !(own->flags & RESV_F_FLEX)) {
		resv_members(ctld, (struct resv *)own);
		for (size_t i = 0; i < n; i++)
			if (i >= own->nmember || !own->member[i])
				nodes[i].usable = 0;
	}
	if (own && own->cores && rp) /* and no more CPUs than it holds free */
		for (size_t i = 0; i < n && i < own->nmember; i++) {
			uint32_t f = cores_free(rp, own, i), busy;
			if (!own->member[i] || !nodes[i].usable)
				continue;
			busy = nodes[i].cpus > f ? nodes[i].cpus - f : 0;
			if (nodes[i].alloc_cpus < busy)
				pass_add(rp, nodes, i, busy - nodes[i].alloc_cpus);
		}
	*ret_kept = kept;
	return why;
}

/* --time-min: the minutes to the first reservation on the nodes of a that
 * begins before the job's limit ends (at least its --time-min); 0 none. */
static uint32_t time_min_cut(struct ctld *ctld, const struct job *job, time_t now,
                             const struct sched_alloc *a)
{
	int64_t end = job_end_if_now(job, now), first = INT64_MAX;

	for (struct resv *r = resv_mgr_of(ctld)->head; a && r; r = r->next) {
		if (r->start <= now || r->start >= end || r->start >= first ||
		    ((r->flags & RESV_F_MAGNETIC) && job_allowed(r, job)))
			continue;
		resv_members(ctld, r);
		for (uint32_t k = 0; k < a->nnodes; k++)
			if (a->node_idx[k] < r->nmember && r->member[a->node_idx[k]]) {
				first = r->start;
				break;
			}
	}
	if (first == INT64_MAX)
		return 0;
	return (uint32_t)((first - now) / 60) > job_x(job)->time_min
	           ? (uint32_t)((first - now) / 60)
	           : job_x(job)->time_min;
}

uint32_t resv_job_limit(struct ctld *ctld, const struct job *job, time_t now,
                        const struct sched_alloc *a)
{
	const struct resv *r;
	uint32_t left;

	if (!job_x(job)->reservation && job_x(job)->time_min)
		return time_min_cut(ctld, job, now, a);
	if (!job_x(job)->reservation || !(r = job_resv(ctld, job)) || r->end <= now)
		return 0;
	/* FLEX: it may end after the reservation does; UNLIMITED ResvOverRun */
	if ((r->flags & RESV_F_FLEX) || ctld->conf->resv_over_run == UINT32_MAX)
		return 0;
	left = (uint32_t)((r->end - now + 59) / 60) + ctld->conf->resv_over_run;
	if (job->time_limit != INFINITE32 && job->time_limit <= left)
		return 0;
	return left ? left : 1;
}

void resv_holds(struct ctld *ctld, time_t now, struct sched_hold **holds, size_t *n,
                size_t *cap)
{
	/* a core reservation's jobs hold their CPUs already: the rest */
	struct resv_pass *rp = resv_pass_begin(ctld);

	for (struct resv *r = resv_mgr_of(ctld)->head; r; r = r->next) {
		if (r->end <= now)
			continue;
		resv_members(ctld, r);
		for (size_t i = 0; i < r->nmember; i++) {
			const struct node *nd;
			if (!r->member[i] || (r->cores && !cores_free(rp, r, i)))
				continue;
			nd = node_mgr_get(ctld->nodes, i);
			if (*n == *cap) {
				*cap = *cap ? 2 * *cap : 256;
				*holds = xrealloc(*holds, *cap * sizeof(**holds));
			}
			(*holds)[(*n)++] = (struct sched_hold){
			    .node = (uint32_t)i,
			    .end = r->end,
			    .cpus = r->cores ? cores_free(rp, r, i) : nd->cpus,
			    .mem = r->cores ? 0 : nd->mem,
			    .start = r->start};
		}
	}
	resv_pass_end(rp);
}

uint32_t resv_node_flags(struct ctld *ctld, size_t idx, time_t now)
{
	uint32_t f = 0;

	for (struct resv *r = resv_mgr_of(ctld)->head; r; r = r->next) {
		if (!resv_active(r, now))
			continue;
		resv_members(ctld, r);
		if (idx < r->nmember && r->member[idx] && !r->cores) /* whole nodes */
			f |= NODE_RESERVED | (r->flags & RESV_F_MAINT ? NODE_MAINT : 0);
	}
	return f;
}

void resv_lic_each(struct ctld *ctld, time_t now,
                   void (*fn)(void *arg, const char *resv, const char *lic,
                              uint32_t reserved, uint32_t unused),
                   void *arg)
{
	for (struct resv *r = resv_mgr_of(ctld)->head; r; r = r->next) {
		struct lic have[LIC_MAX], want[LIC_MAX];
		int nh;
		if (!r->licenses || !resv_active(r, now) ||
		    (nh = lic_parse(r->licenses, have, 0, NULL)) <= 0)
			continue;
		for (int k = 0; k < nh; k++) {
			uint32_t used = 0;
			for (struct job *j = job_first_active(ctld->jobs); j;
			     j = j->lnext) {
				int nw, i;
				if (!job_is_running(j) || !job_x(j)->reservation ||
				    !job_x(j)->licenses || job_resv(ctld, j) != r ||
				    (nw = lic_parse(job_x(j)->licenses, want, 0, NULL)) <=
				        0 ||
				    (i = lic_find(want, nw, have[k].name)) < 0)
					continue;
				used += want[i].count;
			}
			fn(arg, r->name, have[k].name, have[k].count,
			   used < have[k].count ? have[k].count - used : 0);
		}
	}
}

void resv_job_started(struct ctld *ctld, const struct job *job)
{
	struct resv *r;

	if (!job_x(job)->reservation || !(r = job_resv(ctld, job)))
		return;
	r->empty_since = 0;
	/* REPLACE: the nodes it took are the job's now; idle ones instead */
	if ((r->flags & RESV_F_REPLACE) && job->run)
		resv_replenish(ctld, r, job->run->node_idx, job->run->nnodes, time(NULL));
}

/* ---- requests ---- */

/* A Users= or Accounts= value: all items negated or none, no empty item. */
static int list_ok(const char *s)
{
	int neg;

	if (!s)
		return 1;
	if (!*s || strlen(s) > RESV_LIST_MAX)
		return 0;
	neg = s[0] == '-';
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ",");
		if (!len || (p[0] == '-') != neg || len == (size_t)neg)
			return 0;
		p += len;
		if (*p == ',' && !*++p)
			return 0;
	}
	return 1;
}

static int users_exist(const char *s)
{
	char **v = strv_split(s, ",");
	int ok = 1;

	for (size_t i = 0; v[i] && ok; i++) {
		uid_t uid;
		ok = name_to_uid(v[i][0] == '-' ? v[i] + 1 : v[i], &uid) == 0;
	}
	strv_free(v);
	return ok;
}

/* cur with items added or taken away ("a,b" +/- "b,c"); NULL when empty. */
static char *list_edit(const char *cur, const char *items, uint32_t op)
{
	char **v = strv_split(cur ? cur : "", ","), **add = strv_split(items, ",");
	char *out = NULL;
	size_t len = 0;

	for (size_t i = 0; add[i]; i++) {
		const char *w =
		    add[i][0] == '-' || add[i][0] == '+' ? add[i] + 1 : add[i];
		if (op == RESV_LIST_DEL)
			strv_remove(v, w);
		else if (!strv_has(v, w, 0))
			v = strv_append(v, w);
	}
	for (size_t i = 0; v[i]; i++)
		len += strlen(v[i]) + 1;
	if (len) {
		size_t at = 0;
		out = xcalloc(len + 1, 1);
		for (size_t i = 0; v[i]; i++)
			at += (size_t)snprintf(out + at, len + 1 - at, "%s%s",
			                       i ? "," : "", v[i]);
	}
	strv_free(v);
	strv_free(add);
	return out;
}

static int name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > RESV_NAME_MAX)
		return 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p == 0x7f || *p == ',' || *p == '=')
			return 0;
	return 1;
}

/* "root_1": the first user (or account) and the first free number. */
static char *name_make(const struct resv_mgr *m, const char *users, const char *accounts)
{
	const char *who = users ? users : accounts ? accounts : "resv";
	size_t len;
	char *out = NULL;

	if (*who == '-')
		who++;
	len = strcspn(who, ",");
	for (unsigned k = 1; !out || resv_find(m, out); k++) {
		free(out);
		out = xasprintf("%.*s_%u", (int)(len > 32 ? 32 : len), who, k);
	}
	return out;
}

/* The reservation the request makes of cur (NULL: a new one) into *r,
 * every member its own copy.  0 or -ESLURM_*, with *msg set for Slurm's
 * words where they differ from the number's. */
static int resv_build(struct ctld *ctld, const struct resv_desc *q,
                      const struct resv *cur, struct resv *r, time_t now)
{
	const struct part *part = NULL;
	struct pick p = {.ctld = ctld, .self = cur};
	int rc = 0;

	if (cur) {
		*r = *cur;
		r->member = NULL;
		r->next = NULL;
		r->name = xstrdup(cur->name);
		r->nodes = xstrdup(cur->nodes);
		r->partition = xstrdup(cur->partition);
		r->users = xstrdup(cur->users);
		r->accounts = xstrdup(cur->accounts);
		r->licenses = xstrdup(cur->licenses);
		r->cores = NULL;
		if (cur->ncores_given)
			r->cores_given = memcpy(
			    xcalloc(cur->ncores_given, sizeof(uint32_t)),
			    cur->cores_given, cur->ncores_given * sizeof(uint32_t));
	} else {
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(q->name);
	}
	/* the window */
	if (q->start) {
		r->start = (time_t)q->start < now ? now : (time_t)q->start;
		if ((time_t)q->start < now - RESV_PAST_SLACK)
			return -ESLURM_INVALID_TIME_VALUE;
		if (cur && !q->end && q->duration == NO_VAL)
			r->end = r->start + (cur->end - cur->start); /* moved whole */
	}
	if (q->end)
		r->end = (time_t)q->end;
	else if (q->duration != NO_VAL)
		r->end =
		    r->start +
		    (q->duration == INFINITE32 ? RESV_YEAR : (time_t)q->duration * 60);
	if (!r->start || r->end <= r->start || r->end - r->start > 10 * RESV_YEAR)
		return -ESLURM_INVALID_TIME_VALUE;
	/* flags: as Slurm, an update's Flags= adds to them (-NAME takes away) */
	rc = resv_flags_check(q, cur);
	if (rc)
		return rc;
	r->flags =
	    (r->flags | ((q->flags | q->flags_add) & RESV_F_SETTABLE)) & ~q->flags_del;
	if (q->purge_comp)
		r->purge_comp = q->purge_comp;
	if (!(r->flags & RESV_F_PURGE_COMP))
		r->purge_comp = 0;
	if ((r->flags & RESV_F_HOURLY) && r->end - r->start > 3600)
		return -ESLURM_INVALID_TIME_VALUE;
	/* who */
	if (q->users) {
		char *u = q->users_op == RESV_LIST_SET
		              ? xstrdup(q->users)
		              : list_edit(r->users, q->users, q->users_op);
		free(r->users);
		r->users = u;
	}
	if (q->accounts) {
		char *a = q->accounts_op == RESV_LIST_SET
		              ? xstrdup(q->accounts)
		              : list_edit(r->accounts, q->accounts, q->accounts_op);
		free(r->accounts);
		r->accounts = a;
	}
	if (!r->users && !r->accounts)
		return -ESLURM_RESERVATION_EMPTY;
	if (!list_ok(r->users) || !list_ok(r->accounts))
		return -ESLURM_INVALID_ARGUMENT;
	if (r->users && !users_exist(r->users))
		return -ESLURM_USER_ID_MISSING;
	/* licenses: of those configured, no more than there are */
	if (q->licenses) {
		struct lic want[LIC_MAX], have[LIC_MAX];
		int nw = *q->licenses ? lic_parse(q->licenses, want, 0, NULL) : 0;
		int nh = lic_have(ctld, have, NULL);
		for (int i = 0; nw >= 0 && i < nw; i++) {
			int k = nh > 0 ? lic_find(have, nh, want[i].name) : -1;
			if (k < 0 || want[i].count > have[k].count)
				nw = -1;
		}
		if (nw < 0)
			return -ESLURM_INVALID_LICENSES;
		free(r->licenses);
		r->licenses = nw ? lic_format(want, nw) : NULL;
	}
	/* where */
	if (q->partition && !*q->partition) { /* PartitionName= clears it */
		free(r->partition);
		r->partition = NULL;
	} else if (q->partition) {
		part = node_mgr_part_find(ctld->nodes, q->partition);
		if (!part)
			return -ESLURM_INVALID_PARTITION_NAME;
		set_str(&r->partition, q->partition);
	} else if (r->partition) {
		part = node_mgr_part_find(ctld->nodes, r->partition);
	}
	if ((r->flags & RESV_F_PART_NODES) && !r->partition)
		return -ESLURM_INVALID_PARTITION_NAME;
	p.start = r->start;
	p.end = r->end;
	p.flags = r->flags;
	if (cur && cur->cores_given &&
	    ((q->nodes && *q->nodes) || q->core_cnt || q->node_cnt != NO_VAL))
		return -ESLURM_CORE_RESERVATION_UPDATE;
	if (q->core_cnt && *q->core_cnt) {
		if (cur)
			return -ESLURM_CORE_RESERVATION_UPDATE;
		if (!q->nodes && !part && !(part = node_mgr_part_default(ctld->nodes)))
			return -ESLURM_DEFAULT_PARTITION_NOT_SET;
		if (!q->nodes && !r->partition)
			r->partition = xstrdup(part->cfg->name);
		r->flags |= q->nodes ? RESV_F_SPEC_NODES : 0;
		return resv_pick_cores(
		    &p, q->core_cnt, q->nodes,
		    q->node_cnt == NO_VAL || !q->node_cnt ? UINT32_MAX : q->node_cnt,
		    part, r);
	}
	return resv_where(&p, q, cur, part, r);
}

static void send_rc(struct chan *ch, int rc)
{
	chan_send_rc(ch, rc, slurm_strerror(rc < 0 ? -rc : rc));
}

/* A caller not an admin: only deleting one the user may use, and only
 * with SlurmctldParameters=user_resv_delete (as Slurm).  0, or what Slurm
 * answers others: "Invalid user id" for a deletion, else access denied. */
static int user_may(struct ctld *ctld, struct caller *who, const struct resv_desc *q,
                    const struct resv *cur)
{
	const char *user, *acct;

	if (q->op != RESV_OP_DELETE)
		return -ESLURM_ACCESS_DENIED;
	if (!cur || !list_has(ctld->conf->slurmctld_params, "user_resv_delete", 1) ||
	    !(user = caller_user(who)) || (!cur->users && !cur->accounts))
		return -ESLURM_USER_ID_MISSING;
	acct = assoc_default_account(ctld->assoc, user);
	return resv_allows(cur, user, acct) ? 0 : -ESLURM_USER_ID_MISSING;
}

void resv_request(struct ctld *ctld, struct caller *who, const struct resv_desc *q,
                  struct chan *ch)
{
	struct resv_mgr *m = resv_mgr_of(ctld);
	struct resv *cur = resv_find(m, q->name), r;
	time_t now = time(NULL);
	int rc;

	if (!caller_is_admin(who) && (rc = user_may(ctld, who, q, cur))) {
		send_rc(ch, rc);
		return;
	}
	if (q->op == RESV_OP_DELETE) {
		if (!cur) {
			send_rc(ch, -ESLURM_RESERVATION_INVALID);
			return;
		}
		for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext)
			if (job_is_running(j) && job_x(j)->reservation &&
			    job_resv(ctld, j) == cur) {
				send_rc(ch, -ESLURM_RESERVATION_BUSY);
				return;
			}
		log_info("reservation %s deleted", cur->name);
		resv_commit(ctld, cur, 1, now);
		chan_send_rc(ch, 0, NULL);
		ctld_sched_kick(ctld);
		return;
	}
	if (q->op == RESV_OP_UPDATE && !cur) {
		send_rc(ch, -ESLURM_RESERVATION_INVALID);
		return;
	}
	if (q->op == RESV_OP_CREATE) {
		if (q->name && cur) {
			send_rc(ch, -ESLURM_RESERVATION_NAME_DUP);
			return;
		}
		if ((q->name && !name_ok(q->name)) || m->count >= RESV_MAX_COUNT) {
			send_rc(ch, -ESLURM_RESERVATION_INVALID);
			return;
		}
		if (!q->start) {
			send_rc(ch, -ESLURM_INVALID_TIME_VALUE);
			return;
		}
	} else if (q->op != RESV_OP_UPDATE) {
		send_rc(ch, -ESLURM_INVALID_ARGUMENT);
		return;
	}
	rc = resv_build(ctld, q, q->op == RESV_OP_UPDATE ? cur : NULL, &r, now);
	if (!rc && !r.name)
		r.name = name_make(m, r.users, r.accounts);
	if (rc) {
		send_rc(ch, rc);
	} else if (resv_commit(ctld, &r, 0, now) < 0) {
		chan_send_rc(ch, SLURM_ERROR, "internal error recording the reservation");
	} else {
		log_info("reservation %s %s: %s", r.name,
		         q->op == RESV_OP_CREATE ? "created" : "updated",
		         r.nodes ? r.nodes : "(no nodes)");
		chan_send(ch, MSG_RESV_UPDATE_RESP, &(struct resv_resp){.name = r.name});
		ctld_sched_kick(ctld);
	}
	r.member = NULL;
	free(r.cores_given);
	free(r.name);
	free(r.nodes);
	free(r.partition);
	free(r.users);
	free(r.accounts);
	free(r.licenses);
}

void resv_info(struct ctld *ctld, struct caller *who, const struct resv_info_req *q,
               struct chan *ch)
{
	struct resv_info_resp resp = {.time = time(NULL)};
	size_t k = 0;

	(void)who;
	resp.resvs = xcalloc(resv_mgr_of(ctld)->count + 1, sizeof(*resp.resvs));
	for (struct resv *r = resv_mgr_of(ctld)->head; r; r = r->next) {
		struct resv_info *o = &resp.resvs[k];
		char tres[32];
		if (q->name && strcmp(q->name, r->name))
			continue;
		resv_members(ctld, r);
		snprintf(tres, sizeof(tres), "cpu=%u", r->cpu_cnt);
		*o = (struct resv_info){.name = r->name,
		                        .start = r->start,
		                        .end = r->end,
		                        .nodes = r->nodes,
		                        .node_cnt = (uint32_t)r->node_cnt,
		                        .core_cnt = r->cpu_cnt,
		                        .partition = r->partition,
		                        .flags = r->flags,
		                        .purge_comp = r->purge_comp,
		                        .users = r->users,
		                        .accounts = r->accounts,
		                        .licenses = r->licenses,
		                        .tres = r->cpu_cnt ? xstrdup(tres) : NULL};
		k++;
	}
	resp.resvs_count = k;
	chan_send(ch, MSG_RESV_INFO_RESP, &resp);
	for (size_t i = 0; i < k; i++)
		free(resp.resvs[i].tres);
	free(resp.resvs);
}

/* ---- time ---- */

/* Where a repeating reservation goes when it ends: its next window. */
time_t resv_next_start(time_t s, uint32_t flags)
{
	struct tm tm;

	if (flags & RESV_F_HOURLY)
		return s + 3600;
	if ((flags & RESV_F_WEEKDAY) && (flags & RESV_F_WEEKEND)) /* refused; never */
		flags &= ~(uint32_t)(RESV_F_WEEKDAY | RESV_F_WEEKEND);
	do {
		localtime_r(&s, &tm);
		tm.tm_mday += (flags & RESV_F_WEEKLY) ? 7 : 1;
		tm.tm_isdst = -1; /* the same wall clock time across DST */
		s = mktime(&tm);
		localtime_r(&s, &tm);
	} while (((flags & RESV_F_WEEKDAY) && (tm.tm_wday == 0 || tm.tm_wday == 6)) ||
	         ((flags & RESV_F_WEEKEND) && tm.tm_wday != 0 && tm.tm_wday != 6));
	return s;
}

static int resv_has_jobs(struct ctld *ctld, const struct resv *r, int running_only)
{
	for (struct job *j = running_only ? job_first_active(ctld->jobs)
	                                  : job_first(ctld->jobs);
	     j; j = running_only ? j->lnext : j->next)
		if (running_only ? job_is_running(j) && job_resv(ctld, j) == r
		                 : !job_is_finished(j) && job_names(j, r))
			return 1;
	return 0;
}

void resv_tick(struct ctld *ctld, time_t now)
{
	struct resv *r = resv_mgr_of(ctld)->head, *next;

	for (; r; r = next) {
		next = r->next;
		if (r->end <= now && (r->flags & RESV_F_REPEATS)) {
			struct resv moved = *r;
			time_t len = r->end - r->start;
			while (moved.end <= now) {
				moved.start = resv_next_start(moved.start, moved.flags);
				moved.end = moved.start + len;
			}
			log_info("reservation %s repeats: next from %ld", r->name,
			         (long)moved.start);
			resv_commit(ctld, &moved, 0, now);
			continue;
		}
		if (r->end <= now) {
			log_info("reservation %s ended: deleted", r->name);
			resv_commit(ctld, r, 1, now);
			ctld_sched_kick(ctld);
			continue;
		}
		if (r->flags & RESV_F_REPLACES) /* down or drained ones replaced */
			resv_replenish(ctld, r, NULL, 0, now);
		if (!(r->flags & RESV_F_PURGE_COMP) || !resv_active(r, now))
			continue;
		if (resv_has_jobs(ctld, r, 0)) {
			r->empty_since = 0;
			continue;
		}
		if (!r->empty_since) {
			/* only once a job has run in it; counted from now */
			if (!resv_has_jobs(ctld, r, 1) && r->empty_since == 0) {
				int ran = 0;
				for (struct job *j = job_first(ctld->jobs); j && !ran;
				     j = j->next)
					ran = job_names(j, r);
				if (ran)
					r->empty_since = now;
			}
			continue;
		}
		if (now - r->empty_since >=
		    (time_t)(r->purge_comp ? r->purge_comp : RESV_PURGE_DEFAULT)) {
			log_info("reservation %s empty since %ld: purged (PURGE_COMP)",
			         r->name, (long)r->empty_since);
			resv_commit(ctld, r, 1, now);
		}
	}
}
