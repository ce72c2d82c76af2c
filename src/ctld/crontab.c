/* crontab.c - scrontab's crontabs (see crontab.h). */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/cronspec.h"
#include "common/states.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/crontab.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

struct cron_user {
	uint32_t uid;
	char *text;     /* NULL: none (only jobs still listed) */
	char *disabled; /* "first-last,..." of entries cancelled; NULL: none */
	uint32_t *ids;
	size_t nids;
};

struct crontab_mgr {
	struct cron_user *v;
	size_t n;
};

static struct crontab_mgr *mgr(struct ctld *ctld)
{
	if (!ctld->crontabs)
		ctld->crontabs = xcalloc(1, sizeof(struct crontab_mgr));
	return ctld->crontabs;
}

static struct cron_user *find(const struct crontab_mgr *m, uint32_t uid)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (m->v[i].uid == uid)
			return &m->v[i];
	return NULL;
}

static void user_release(struct cron_user *u)
{
	free(u->text);
	free(u->disabled);
	free(u->ids);
}

void crontab_mgr_clear(struct crontab_mgr *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		user_release(&m->v[i]);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

void crontab_mgr_destroy(struct crontab_mgr *m)
{
	crontab_mgr_clear(m);
	free(m);
}

int crontab_apply(struct ctld *ctld, const struct ev_crontab *ev)
{
	struct crontab_mgr *m = mgr(ctld);
	struct cron_user *u = find(m, ev->uid);

	if (!ev->text && !ev->job_ids.n) { /* gone */
		if (u) {
			user_release(u);
			*u = m->v[--m->n];
		}
		return 0;
	}
	if (!u) {
		m->v = xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
		u = &m->v[m->n++];
		memset(u, 0, sizeof(*u));
		u->uid = ev->uid;
	}
	{
		/* made before the old ones go: the event may hold them */
		struct cron_user nu = {.uid = ev->uid};
		nu.text = ev->text ? xstrdup(ev->text) : NULL;
		nu.disabled =
		    ev->disabled && *ev->disabled ? xstrdup(ev->disabled) : NULL;
		nu.nids = ev->job_ids.n;
		nu.ids = xcalloc(nu.nids + 1, sizeof(*nu.ids));
		memcpy(nu.ids, ev->job_ids.v, nu.nids * sizeof(*nu.ids));
		user_release(u);
		*u = nu;
	}
	return 0;
}

int crontab_snapshot(const struct crontab_mgr *m, size_t i, struct ev_crontab *ev)
{
	const struct cron_user *u;

	if (!m || i >= m->n)
		return 0;
	u = &m->v[i];
	memset(ev, 0, sizeof(*ev));
	ev->type = EV_CRONTAB;
	ev->uid = u->uid;
	ev->text = u->text ? xstrdup(u->text) : NULL;
	ev->disabled = u->disabled ? xstrdup(u->disabled) : NULL;
	ev->job_ids.n = (uint32_t)u->nids;
	ev->job_ids.v = xcalloc(u->nids + 1, sizeof(uint32_t));
	memcpy(ev->job_ids.v, u->ids, u->nids * sizeof(uint32_t));
	return 1;
}

static int listed_in(const struct cron_user *u, uint32_t job_id)
{
	for (size_t i = 0; u && i < u->nids; i++)
		if (u->ids[i] == job_id)
			return 1;
	return 0;
}

int crontab_listed(const struct ctld *ctld, const struct job *job)
{
	return job_x(job)->cron_spec &&
	       listed_in(find(ctld->crontabs, job->owner->uid), job->job_id);
}

/* The record of uid with text, disabled and ids as given (borrowed: never a
 * record's own, which the event's application frees before it is written). */
static int commit(struct ctld *ctld, uint32_t uid, char *text, char *disabled,
                  uint32_t *ids, size_t nids)
{
	struct ev_crontab ev = {.type = EV_CRONTAB,
	                        .uid = uid,
	                        .text = text,
	                        .disabled = disabled,
	                        .job_ids = {.v = ids, .n = (uint32_t)nids}};

	return ev_crontab_commit(ctld, &ev);
}

static int scron_enabled(const struct ctld *ctld)
{
	const char *p = ctld->conf->scron_parameters;

	return p && strcasestr(p, "enable") != NULL;
}

/* ---- requests ---- */

struct update_reply {
	struct chan *ch;
	struct crontab_update_resp resp;
};

static void update_durable(void *arg, int rc)
{
	struct update_reply *r = arg;

	if (rc < 0)
		chan_send_rc(r->ch, -ESLURM_WRITING_TO_FILE, NULL);
	else
		chan_send(r->ch, MSG_CRONTAB_UPDATE_RESP, &r->resp);
	chan_unref(r->ch);
	free(r->resp.job_ids.v);
	free(r);
}

static void refuse_entry(struct chan *ch, int rc, const char *msg, uint32_t lines)
{
	struct crontab_update_resp resp = {.rc = rc < 0 ? -rc : rc};
	char *fl = xasprintf("%u-%u", lines >> 16, lines & 0xffff);

	resp.err_msg = (char *)(msg ? msg : slurm_strerror(resp.rc));
	resp.failed_lines = fl;
	chan_send(ch, MSG_CRONTAB_UPDATE_RESP, &resp);
	free(fl);
}

void crontab_update_request(struct ctld *ctld, const struct caller *who,
                            struct crontab_update *req, struct chan *ch)
{
	struct cron_user *old;
	struct caller as = *who;
	struct job_submit_prep *prep = NULL;
	struct update_reply *r;
	uint32_t *old_ids = NULL, nold = 0;
	time_t now = time(NULL);

	if (!scron_enabled(ctld)) {
		chan_send_rc(ch, -ESLURM_DISABLED,
		             "scrontab is disabled on this cluster");
		return;
	}
	/* another user's: root and SlurmUser only */
	if (req->uid != who->uid) {
		struct passwd *pw;
		if (!caller_is_admin(who)) {
			chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
			return;
		}
		if (!(pw = getpwuid((uid_t)req->uid))) {
			chan_send_rc(ch, -ESLURM_USER_ID_MISSING, NULL);
			return;
		}
		caller_init_user(&as, ctld, (uid_t)req->uid, pw->pw_gid);
	}
	if ((req->crontab && strlen(req->crontab) > CRONTAB_TEXT_MAX) ||
	    req->jobs_count > CRONTAB_ENTRIES_MAX) {
		chan_send_rc(ch, -ESLURM_PATHNAME_TOO_LONG, NULL);
		return;
	}
	if (!req->crontab)
		req->jobs_count = 0; /* removal */
	prep = xcalloc(req->jobs_count + 1, sizeof(*prep));
	for (uint32_t i = 0; i < req->jobs_count; i++) {
		struct job_desc *d = &req->jobs[i];
		const struct job_desc_ext *x = job_desc_X(d);
		struct rota_error err = {""};
		struct cronspec cs;
		const char *rest;
		char *msg = NULL;
		time_t next;
		int rc;

		if (!x->cron_spec || cronspec_parse(x->cron_spec, &cs, &rest, &err) < 0 ||
		    *rest) {
			refuse_entry(ch, -ESLURM_INVALID_ARGUMENT,
			             err.text[0] ? err.text
			                         : "invalid time specification",
			             x->cron_lines);
			goto out;
		}
		if ((next = cronspec_next(&cs, now)) < 0) {
			refuse_entry(ch, -ESLURM_INVALID_ARGUMENT, "no next start",
			             x->cron_lines);
			goto out;
		}
		d->begin_time = next;
		free(x->cron_spec); /* kept as Slurm shows it (CrontabSpec=) */
		job_desc_x_mut(d)->cron_spec = cronspec_str(&cs);
		if (d->array_inx || d->hold) {
			refuse_entry(ch, -ESLURM_INVALID_ARGUMENT,
			             d->array_inx ? "an entry cannot be a job array"
			                          : "an entry cannot be held",
			             x->cron_lines);
			goto out;
		}
		d->flags &= ~(uint32_t)JOB_F_INTERACTIVE;
		/* the command's idea of its user is checked against the
		 * connection's (who), not the crontab's user root writes for */
		if (x->self_uid && x->self_uid - 1 != who->uid && !caller_is_admin(who)) {
			refuse_entry(ch, -ESLURM_USER_ID_MISSING, NULL, x->cron_lines);
			goto out;
		}
		job_desc_x_mut(d)->self_uid = 0;
		ctld->submit_extra = i; /* the entries before count too */
		rc = job_submit_prepare(ctld, &as, d, 0, &prep[i], &msg);
		ctld->submit_extra = 0;
		if (rc) {
			refuse_entry(ch, rc, msg, x->cron_lines);
			free(msg);
			goto out;
		}
	}
	old = find(ctld->crontabs, req->uid);
	if (old && old->nids) {
		nold = (uint32_t)old->nids;
		old_ids = xcalloc(nold, sizeof(*old_ids));
		memcpy(old_ids, old->ids, nold * sizeof(*old_ids));
	}
	r = xcalloc(1, sizeof(*r));
	r->resp.job_ids.v = xcalloc(req->jobs_count + 1, sizeof(uint32_t));
	for (uint32_t i = 0; i < req->jobs_count; i++) {
		uint32_t lines;

		if (ev_submit_commit(ctld, &prep[i].ev) < 0) {
			r->resp.rc = ESLURM_WRITING_TO_FILE;
			break;
		}
		r->resp.job_ids.v[r->resp.job_ids.n++] = prep[i].ev.job_id;
		lines = job_desc_X(&req->jobs[i])->cron_lines;
		log_info("JobId=%u submitted by uid %u from crontab lines %u-%u, next "
		         "start %lld",
		         prep[i].ev.job_id, (unsigned)as.uid, lines >> 16, lines & 0xffff,
		         (long long)req->jobs[i].begin_time);
	}
	if (commit(ctld, req->uid, req->crontab, NULL, r->resp.job_ids.v,
	           r->resp.job_ids.n) < 0)
		r->resp.rc = ESLURM_WRITING_TO_FILE;
	/* the old entries: what has not started goes; what runs ends once */
	for (uint32_t i = 0; i < nold; i++) {
		struct job *j = job_find(ctld->jobs, old_ids[i]);
		if (j && job_is_pending(j))
			job_cancel(ctld, j, WAIT_NO_REASON, who->uid);
	}
	free(old_ids);
	r->ch = ch;
	chan_ref(ch);
	ctld_sched_kick(ctld);
	journal_when_durable(ctld->journal, update_durable, r);
out:
	free(prep);
}

void crontab_get_request(struct ctld *ctld, const struct caller *who,
                         const struct crontab_get *req, struct chan *ch)
{
	const struct cron_user *u;
	struct crontab_get_resp resp = {0};

	if (!scron_enabled(ctld)) {
		chan_send_rc(ch, -ESLURM_DISABLED,
		             "scrontab is disabled on this cluster");
		return;
	}
	if (req->uid != who->uid && !caller_is_operator(who)) {
		chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
		return;
	}
	u = find(ctld->crontabs, req->uid);
	if (!u || !u->text) {
		chan_send_rc(ch, -ESLURM_JOB_SCRIPT_MISSING, NULL);
		return;
	}
	resp.crontab = u->text;
	resp.disabled_lines = u->disabled;
	chan_send(ch, MSG_CRONTAB_GET_RESP, &resp);
}

/* ---- recurrence ---- */

/* Was job cancelled by someone (scancel), not by the scheduler (an
 * invalid dependency)?  Its lines are disabled then, as Slurm does. */
static int cancelled_by_user(const struct job *job)
{
	return (job->state & JOB_STATE_BASE) == JOB_CANCELLED &&
	       job->reason != WAIT_DEP_INVALID;
}

/* Requeue an ended entry's job at its next start; 0, or -1 when it has none. */
time_t crontab_next_start(const struct job *job, time_t now)
{
	struct rota_error err = {""};
	struct cronspec cs;
	const char *rest;

	if (!job_x(job)->cron_spec ||
	    cronspec_parse(job_x(job)->cron_spec, &cs, &rest, &err) < 0)
		return -1;
	return cronspec_next(&cs, now);
}

static int recur(struct ctld *ctld, struct job *job, time_t now)
{
	struct ev_requeue ev = {.job_id = job->job_id, .time = now};
	time_t next = crontab_next_start(job, now);

	if (next < 0)
		return -1;
	ev.begin_time = next;
	if (ev_requeue_commit(ctld, &ev) < 0)
		return 0; /* tried again next second */
	log_info("JobId=%u: crontab entry ended, next start %lld", job->job_id,
	         (long long)next);
	return 0;
}

/* One user's record: requeue what ended; what left or was cancelled goes
 * from the list (one EV_CRONTAB for all of it, cancelled lines disabled). */
static void tick_user(struct ctld *ctld, struct cron_user *u, time_t now)
{
	uint32_t *keep = xcalloc(u->nids + 1, sizeof(*keep)), uid = u->uid;
	char *disabled = u->disabled ? xstrdup(u->disabled) : NULL, *text;
	size_t nkeep = 0;
	int changed = 0;

	for (size_t k = 0; k < u->nids; k++) {
		struct job *j = job_find(ctld->jobs, u->ids[k]);
		if (j && (!job_is_finished(j) || (j->state & JOB_COMPLETING))) {
			keep[nkeep++] = u->ids[k];
			continue;
		}
		if (j && job_x(j)->cron_spec &&
		    (j->state & JOB_STATE_BASE) != JOB_CANCELLED &&
		    recur(ctld, j, now) == 0) {
			keep[nkeep++] = u->ids[k];
			continue;
		}
		changed = 1;
		if (j && cancelled_by_user(j) && u->text) {
			uint32_t l = job_x(j)->cron_lines;
			char *d = xasprintf("%s%u-%u,", disabled ? disabled : "", l >> 16,
			                    l & 0xffff);
			free(disabled);
			disabled = d;
			log_info("JobId=%u cancelled: crontab lines %u-%u of uid %u "
			         "disabled",
			         j->job_id, l >> 16, l & 0xffff, (unsigned)uid);
		}
	}
	if (changed) {
		/* copies: the event is applied (u's own freed) before it is
		 * written */
		text = u->text ? xstrdup(u->text) : NULL;
		commit(ctld, uid, text, disabled, keep, nkeep);
		free(text);
	}
	free(disabled);
	free(keep);
}

void crontab_tick(struct ctld *ctld, time_t now)
{
	struct crontab_mgr *m = ctld->crontabs;
	uint32_t *uids;
	size_t n;

	if (!m || !m->n)
		return;
	/* by uid: a record may move or go as each is written */
	n = m->n;
	uids = xcalloc(n, sizeof(*uids));
	for (size_t i = 0; i < n; i++)
		uids[i] = m->v[i].uid;
	for (size_t i = 0; i < n; i++) {
		struct cron_user *u = find(m, uids[i]);
		if (u)
			tick_user(ctld, u, now);
	}
	free(uids);
}
