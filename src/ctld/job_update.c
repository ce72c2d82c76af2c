/* job_update.c - scontrol hold, uhold, release, top, requeue and update of jobs:
 * who may, what each state allows, and the event that records the change.
 *
 * An array's id stands for every task of it (the pending remainder and the
 * tasks already split off); "N_T" (JOB_UPDATE_F_ARRAY_TASK) for one task, which
 * is split off the remainder first when it has not started.  Changes of the
 * request (Partition=, NumNodes=, Dependency=...) travel whole in EV_UPDATE,
 * so that replay needs no parsing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/jobscript.h"
#include "common/mailtype.h"
#include "common/schedparams.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "ctld/crontab.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/owner.h"
#include "ctld/part_access.h"
#include "ctld/resv.h"
#include "ctld/node_mgr.h"
#include "ctld/nokill.h"
#include "sched/priority.h"
#include "common/common.h"
#include "common/time_parse.h"

#define NICE_MAX 2147483645L /* as Slurm: |nice| at most this */

static int update_hold(struct ctld *ctld, struct caller *who, struct job *job,
                       uint32_t op)
{
	struct ev_hold ev = {.job_id = job->job_id, .time = time(NULL)};
	int admin = caller_is_admin(who);

	if (!job_is_pending(job))
		return -ESLURM_JOB_NOT_PENDING;
	if (op == JOB_OP_RELEASE) {
		if (job->hold == 2 && !admin)
			return -ESLURM_ACCESS_DENIED;
		ev.hold = 0;
		ev.priority = priority_basic(job->job_id, job_nice(job));
	} else {
		ev.hold = (op == JOB_OP_UHOLD || !admin) ? 1 : 2;
		ev.priority = 0;
	}
	return ev_hold_commit(ctld, &ev) < 0 ? SLURM_ERROR : 0;
}

int job_hold_requeued(struct ctld *ctld, struct job *job, uint8_t hold)
{
	struct ev_hold ev = {.job_id = job->job_id, .time = time(NULL), .hold = hold};

	if (!job_is_pending(job))
		return -ESLURM_JOB_NOT_PENDING;
	return ev_hold_commit(ctld, &ev) < 0 ? SLURM_ERROR : 0;
}

/* One scontrol update of one record, being built. */
struct update {
	struct ctld *ctld;
	struct job *job;
	struct caller *who;
	int admin;
	struct ev_update ev;
	struct job_desc nd; /* the new request (owned) */
	uint32_t throttle;  /* NO_VAL: unchanged */
	int desc_changed;
	int check_resources;    /* the new request must fit as at submit */
	int check_resv;         /* its --reservation, as at submit (ctld/resv.h) */
	int check_part;         /* a new partition: one that takes new jobs */
	uint32_t shrink_to;     /* NumNodes= of a running job; 0: none */
	const char *keep_nodes; /* NodeList= of a running job; NULL: none */
};

static int key_is(const char *key, size_t kl, const char *name)
{
	return kl == strlen(name) && !strncasecmp(key, name, kl);
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = *v ? xstrdup(v) : NULL;
}

static int parse_u32(const char *v, uint32_t *ret)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (!*v || *v == '-' || *end || n >= NO_VAL)
		return -1;
	*ret = (uint32_t)n;
	return 0;
}

/* NumNodes=N or N-M. */
static int parse_node_range(const char *v, uint32_t *min, uint32_t *max)
{
	char *end;
	unsigned long lo = strtoul(v, &end, 10), hi = lo;

	if (!*v || *v == '-' || end == v)
		return -1;
	if (*end == '-') {
		const char *h = end + 1;
		hi = strtoul(h, &end, 10);
		if (!*h || *h == '-' || end == h)
			return -1;
	}
	if (*end || !lo || hi < lo || hi >= NO_VAL)
		return -1;
	*min = (uint32_t)lo;
	*max = (uint32_t)hi;
	return 0;
}

static int check_node_names(struct ctld *ctld, const char *list)
{
	char **names = NULL;
	size_t count = 0;
	int rc = 0;

	if (!list)
		return 0;
	if (hostlist_expand(list, &names, &count, NULL) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	for (size_t i = 0; i < count && !rc; i++)
		if (node_mgr_find(ctld->nodes, names[i]) < 0)
			rc = -ESLURM_INVALID_NODE_NAME;
	hostlist_free(names);
	return rc;
}

/* Keys that change the request of a job that has not started. */
static int update_pending_key(struct update *u, const char *key, size_t kl, const char *v)
{
	static const char *const keys[] = {
	    "Dependency",   "StartTime",   "BeginTime",   "Partition",
	    "NumNodes",     "MinNodes",    "NumTasks",    "ReqNodeList",
	    "NodeList",     "ExcNodeList", "Features",    "MinMemoryNode",
	    "MinMemoryCPU", "Licenses",    "Reservation", "ReservationName",
	    "Prefer"};
	struct job_desc *nd = &u->nd;
	size_t i = 0;

	while (i < sizeof(keys) / sizeof(keys[0]) && !key_is(key, kl, keys[i]))
		i++;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return -ESLURM_NOT_SUPPORTED;
	/* a running job may shrink (Slurm's resize; nokill.h job_shrink) */
	if (job_is_running(u->job) &&
	    (key_is(key, kl, "NumNodes") || key_is(key, kl, "MinNodes"))) {
		if (parse_u32(v, &u->shrink_to) < 0 || !u->shrink_to)
			return -ESLURM_INVALID_NODE_COUNT;
		if (u->shrink_to > u->job->run->nnodes)
			return -ESLURM_NOT_SUPPORTED;
		return 0;
	}
	/* or keep only some of its nodes (Slurm: req_nodes of a running job) */
	if (job_is_running(u->job) &&
	    (key_is(key, kl, "NodeList") || key_is(key, kl, "ReqNodeList"))) {
		int rc = job_shrink_check(u->ctld, u->job, v);
		if (rc) {
			log_info("JobId=%u: invalid node list (%s) for update",
			         u->job->job_id, v);
			return rc;
		}
		u->keep_nodes = v;
		return 0;
	}
	if (!job_is_pending(u->job))
		return -ESLURM_JOB_NOT_PENDING;
	u->desc_changed = 1;
	if (key_is(key, kl, "Dependency")) {
		struct rota_error err = {{0}};
		int rc = depend_validate(u->ctld, v, u->job->job_id, &err);
		if (rc) {
			log_info("JobId=%u update refused: %s", u->job->job_id, err.text);
			return rc;
		}
		set_str(&nd->dependency, v);
	} else if (key_is(key, kl, "StartTime") || key_is(key, kl, "BeginTime")) {
		time_t t;
		if (time_parse(v, u->ev.time, 0, &t, NULL) < 0)
			return -ESLURM_INVALID_ARGUMENT;
		nd->begin_time = (int64_t)t;
	} else if (key_is(key, kl, "Partition")) {
		if (!*v)
			return -ESLURM_INVALID_PARTITION_NAME;
		set_str(&nd->partition, v);
		u->check_resources = 1;
		u->check_part = 1;
	} else if (key_is(key, kl, "NumNodes") || key_is(key, kl, "MinNodes")) {
		if (parse_node_range(v, &nd->min_nodes, &nd->max_nodes) < 0)
			return -ESLURM_INVALID_NODE_COUNT;
		u->check_resources = 1;
	} else if (key_is(key, kl, "NumTasks")) {
		if (parse_u32(v, &nd->num_tasks) < 0 || !nd->num_tasks)
			return -ESLURM_BAD_DIST;
		u->check_resources = 1;
	} else if (key_is(key, kl, "ReqNodeList") || key_is(key, kl, "NodeList")) {
		set_str(&nd->req_nodes, v);
		u->check_resources = 1;
	} else if (key_is(key, kl, "ExcNodeList")) {
		int rc = check_node_names(u->ctld, *v ? v : NULL);
		if (rc)
			return rc;
		set_str(&nd->exc_nodes, v);
		u->check_resources = 1; /* there each node is kept once */
	} else if (key_is(key, kl, "Features")) {
		set_str(&nd->features, v);
		u->check_resources = 1;
	} else if (key_is(key, kl, "Prefer")) {
		set_str(&job_desc_x_mut(nd)->prefer, v);
		u->check_resources = 1;
	} else if (key_is(key, kl, "Licenses")) {
		set_str(&job_desc_x_mut(nd)->licenses, v);
		u->check_resources = 1; /* checked and written as at submission */
	} else if (key_is(key, kl, "Reservation") || key_is(key, kl, "ReservationName")) {
		set_str(&job_desc_x_mut(nd)->reservation, v); /* "": none */
		u->check_resv = 1;
	} else if (key_is(key, kl, "MinMemoryNode") || key_is(key, kl, "MinMemoryCPU")) {
		uint64_t mb;
		if (timefmt_parse_mem(v, &mb) < 0)
			return -ESLURM_INVALID_TASK_MEMORY;
		nd->mem_per_node = key_is(key, kl, "MinMemoryNode") ? mb : NO_VAL64;
		nd->mem_per_cpu = key_is(key, kl, "MinMemoryCPU") ? mb : NO_VAL64;
		nd->flags &= ~JOB_F_MEM_DEFAULT;
		u->check_resources = 1;
	}
	return 0;
}

static int update_key(struct update *u, const char *key, size_t kl, const char *v)
{
	struct job *job = u->job;

	if (key_is(key, kl, "TimeLimit")) {
		if (timefmt_parse_limit(v, &u->ev.time_limit) < 0)
			return -ESLURM_INVALID_TIME_LIMIT;
		if (!u->admin &&
		    (job->time_limit == INFINITE32 || u->ev.time_limit > job->time_limit))
			return -ESLURM_ACCESS_DENIED;
	} else if (key_is(key, kl, "Priority")) {
		long p = strtol(v, NULL, 10);
		if (!u->admin)
			return -ESLURM_ACCESS_DENIED;
		if (p < 0 || p > (long)UINT32_MAX - 2)
			return -ESLURM_INVALID_ARGUMENT;
		u->ev.priority = (uint32_t)p;
	} else if (key_is(key, kl, "SiteFactor")) {
		/* as Slurm: operators, within +-(2^31 - 3) */
		char *end;
		long long n = strtoll(v, &end, 10);
		if (!u->admin)
			return -ESLURM_ACCESS_DENIED;
		if (!*v || *end || n < -2147483645LL || n > 2147483645LL)
			return -ESLURM_INVALID_ARGUMENT;
		job_desc_x_mut(&u->nd)->site_factor = (uint32_t)(int32_t)n;
		u->desc_changed = 1;
	} else if (key_is(key, kl, "Nice")) {
		char *end;
		long n = strtol(v, &end, 10);
		if (!*v || *end || n < -NICE_MAX || n > NICE_MAX)
			return -ESLURM_INVALID_ARGUMENT;
		if (n < 0 && !u->admin)
			return -ESLURM_ACCESS_DENIED; /* only operators raise a priority
			                               */
		u->nd.nice = (uint32_t)(int32_t)n;
		u->desc_changed = 1;
	} else if (key_is(key, kl, "Name") || key_is(key, kl, "JobName")) {
		set_str(&u->nd.name, v);
		u->desc_changed = 1;
	} else if (key_is(key, kl, "Comment")) {
		set_str(&job_desc_x_mut(&u->nd)->comment, v);
		u->desc_changed = 1;
	} else if (key_is(key, kl, "MailType")) {
		long t = mail_type_parse(v);
		if (t < 0)
			return -ESLURM_INVALID_ARGUMENT;
		job_desc_x_mut(&u->nd)->mail_type = (uint32_t)t;
		u->desc_changed = 1;
	} else if (key_is(key, kl, "MailUser")) {
		/* empty: the job's user again (with MailDomain) */
		set_str(&job_desc_x_mut(&u->nd)->mail_user, v);
		u->desc_changed = 1;
	} else if (key_is(key, kl, "ArrayTaskThrottle")) {
		if (parse_u32(v, &u->throttle) < 0)
			return -ESLURM_INVALID_ARGUMENT;
		if (!job->array_rem)
			return -ESLURM_JOB_NOT_PENDING;
	} else {
		return update_pending_key(u, key, kl, v);
	}
	return 0;
}

/* Check every Key=Value first; record nothing unless all are good. */
static int update_commit(struct update *u)
{
	struct job_desc evd;
	struct part *p = NULL;
	const char *field;
	size_t pos;
	int rc;

	if (job_desc_check_strings(&u->nd, &field, &pos))
		return -ESLURM_INVALID_ARGUMENT;
	if (u->check_part && (rc = job_desc_partition_open(u->ctld, &u->nd)) != 0)
		return rc;
	if (u->check_resources &&
	    (rc = job_desc_check_resources(u->ctld, &u->nd, &p)) != 0)
		return rc;
	if (u->check_part) { /* as at submit: who the partitions let in */
		struct caller owner;
		caller_init_user(&owner, u->ctld, u->job->owner->uid, u->job->owner->gid);
		if ((rc = part_access_submit_all(u->ctld, p, u->who, &owner, &u->nd)) !=
		    0)
			return rc;
	}
	if (u->check_resv && (rc = resv_job_check(u->ctld, u->job->owner->user, &u->nd)))
		return rc;
	if (u->throttle != NO_VAL) {
		struct ev_array_throttle tev = {.job_id = u->job->job_id,
		                                .time = u->ev.time,
		                                .throttle = u->throttle};
		if (ev_array_throttle_commit(u->ctld, &tev) < 0)
			return SLURM_ERROR;
	}
	if (u->desc_changed) {
		/* what no update changes stays out of the journal */
		evd = u->nd;
		evd.script = NULL;
		evd.env = evd.argv = NULL;
		u->ev.desc = &evd;
		u->ev.desc_count = 1;
	}
	rc = ev_update_commit(u->ctld, &u->ev) < 0 ? SLURM_ERROR : 0;
	u->ev.desc = NULL;
	u->ev.desc_count = 0;
	return rc;
}

static int update_kv(struct ctld *ctld, struct caller *who, struct job *job, char **kv)
{
	struct update u = {.ctld = ctld,
	                   .job = job,
	                   .who = who,
	                   .admin = caller_is_admin(who),
	                   .ev = {.job_id = job->job_id,
	                          .time = time(NULL),
	                          .time_limit = NO_VAL,
	                          .priority = NO_VAL},
	                   .throttle = NO_VAL};
	int rc = 0;

	if (job_is_finished(job))
		return -ESLURM_ALREADY_DONE;
	codec_copy(&job_desc_type, &u.nd, &job->desc);
	for (size_t i = 0; kv && kv[i] && !rc; i++) {
		const char *eq = strchr(kv[i], '=');
		size_t kl = eq ? (size_t)(eq - kv[i]) : strlen(kv[i]);
		rc = update_key(&u, kv[i], kl, eq ? eq + 1 : "");
	}
	if (!rc)
		rc = update_commit(&u);
	if (!rc && u.shrink_to)
		rc = job_shrink(ctld, job, u.shrink_to);
	if (!rc && u.keep_nodes)
		rc = job_shrink_to(ctld, job, u.keep_nodes);
	codec_release(&job_desc_type, &u.nd);
	return rc;
}

/* scontrol top: put the job above every other pending job of its user.  Only
 * operators, or the owner where SchedulerParameters has enable_user_top. */
static int update_top(struct ctld *ctld, struct caller *who, struct job *job)
{
	struct ev_update ev = {
	    .job_id = job->job_id, .time = time(NULL), .time_limit = NO_VAL};
	struct sched_params sp;
	uint32_t top = 0;

	sched_params_parse(ctld->conf->scheduler_params, &sp);
	if (!caller_is_admin(who) && !sp.enable_user_top)
		return -ESLURM_ACCESS_DENIED;
	if (!job_is_pending(job))
		return -ESLURM_JOB_NOT_PENDING;
	if (job->hold)
		return -ESLURM_JOB_HELD;
	for (struct job *j = job_first(ctld->jobs); j; j = j->next)
		if (j != job && j->owner->uid == job->owner->uid && job_is_pending(j) &&
		    !j->hold && j->priority > top)
			top = j->priority;
	if (job->priority > top)
		return 0; /* already first */
	if (top >= 0xfffffffdu)
		return -ESLURM_INVALID_ARGUMENT;
	ev.priority = top + 1;
	return ev_update_commit(ctld, &ev) < 0 ? SLURM_ERROR : 0;
}

static int is_requeue(const struct job_update_req *req)
{
	return req->op == JOB_OP_REQUEUE || req->op == JOB_OP_REQUEUE_HOLD ||
	       req->op == JOB_OP_REQUEUE_SE;
}

/* The operation on one record; returns 0 or -ESLURM_*. */
static int update_one(struct ctld *ctld, struct caller *who, struct job *job,
                      const struct job_update_req *req)
{
	if (!job_may_touch(who, job))
		return -ESLURM_ACCESS_DENIED;
	int rc;

	/* requeue incomplete: what is not running is left as it is */
	if (is_requeue(req) && (req->flags & JOB_UPDATE_F_INCOMPLETE) &&
	    !job_is_running(job))
		return 0;
	/* a crontab's entry changes through scrontab (crontab.h) */
	if (req->op != JOB_OP_REQUEUE && crontab_listed(ctld, job))
		return -ESLURM_CANNOT_MODIFY_CRON_JOB;
	switch (req->op) {
	case JOB_OP_HOLD:
	case JOB_OP_UHOLD:
	case JOB_OP_RELEASE:
		return update_hold(ctld, who, job, req->op);
	case JOB_OP_REQUEUE:
		return job_requeue(ctld, job);
	case JOB_OP_REQUEUE_HOLD:
	case JOB_OP_REQUEUE_SE:
		if ((rc = job_requeue(ctld, job)) != 0)
			return rc;
		/* scontrol requeuehold: its user's hold whoever asked (Slurm's
		 * JobHeldUser); State=SpecialExit: SPECIAL_EXIT until released */
		return job_hold_requeued(
		    ctld, job, req->op == JOB_OP_REQUEUE_SE ? JOB_HOLD_SPECIAL_EXIT : 1);
	case JOB_OP_TOP:
		return update_top(ctld, who, job);
	case JOB_OP_UPDATE:
		return update_kv(ctld, who, job, req->kv);
	default:
		return -ESLURM_NOT_SUPPORTED;
	}
}

/* N_T: the task's record, split off the remainder first when it has not
 * started (requeue has nothing to do there). */
static int update_array_task(struct ctld *ctld, struct caller *who,
                             const struct job_update_req *req)
{
	struct job *job, *meta;
	int rc = job_array_task_lookup(ctld, who, req->job_id, req->array_task_id, &job,
	                               &meta);

	if (rc)
		return rc;
	if (job)
		return update_one(ctld, who, job, req);
	if (is_requeue(req))
		return req->flags & JOB_UPDATE_F_INCOMPLETE ? 0 : -ESLURM_JOB_PENDING;
	job = job_array_split(ctld, meta, req->array_task_id);
	return job ? update_one(ctld, who, job, req) : SLURM_ERROR;
}

void job_mgr_update(struct ctld *ctld, struct caller *who,
                    const struct job_update_req *req, struct chan *ch)
{
	int rc = -ESLURM_INVALID_JOB_ID, any = 0;

	if (req->flags & JOB_UPDATE_F_ARRAY_TASK) {
		rc = update_array_task(ctld, who, req);
		any = !rc;
	} else {
		/* the record with this id and, for an array, every task of it:
		 * done where it applies, the first refusal said when none */
		for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
			int one;
			/* a heterogeneous job's leader: every component */
			if (!req->job_id ||
			    (j->job_id != req->job_id && j->array_job_id != req->job_id &&
			     ((req->flags & JOB_UPDATE_F_ONE) ||
			      job_x(j)->het_job_id != req->job_id)))
				continue;
			one = update_one(ctld, who, j, req);
			if (!one)
				any = 1;
			else if (rc == -ESLURM_INVALID_JOB_ID)
				rc = one;
		}
	}
	chan_send_rc(ch, any ? 0 : rc, NULL);
	if (any)
		ctld_sched_kick(ctld);
}
