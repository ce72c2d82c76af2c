#include <stdlib.h>
#include <string.h>
#include "common/states.h"
#include "common/uid.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/stats.h"
#include "proto/messages.h"
#include "common/common.h"

#define USERS_MAX 4096 /* users tracked; more share one row, "other" */

struct rpc_count {
	uint32_t count;
	uint64_t total_us;
};

struct user_count {
	uid_t uid;
	struct rpc_count c;
};

struct ctld_stats {
	time_t since;
	uint32_t submitted, started, completed, canceled, failed;
	uint32_t sched_last, sched_max, sched_cycles, sched_queue;
	uint64_t sched_sum, sched_depth_sum;
	uint32_t bf_total; /* since start: not reset */
	uint32_t bf_backfilled, bf_cycles, bf_last, bf_max, bf_depth, bf_depth_try;
	uint32_t bf_queue;
	time_t bf_when;
	uint64_t bf_sum, bf_depth_sum, bf_depth_try_sum, bf_queue_sum;
	uint32_t syncs, sync_last, sync_max;
	uint64_t sync_sum;
	struct rpc_count types[MSG_TYPE_MAX + 4]; /* the last few: see rpc_slot */
	struct user_count *users;
	size_t nusers;
	struct rpc_count other_users;
};

/* Slurm's name and number for what each operation is (sdiag prints them;
 * tools that parse sdiag know these). */
static const struct {
	uint16_t type;
	uint32_t id;
	const char *name;
} slurm_rpcs[] = {
    {MSG_PING_REQ, 1008, "REQUEST_PING"},
    {MSG_SUBMIT_REQ, 4003, "REQUEST_SUBMIT_BATCH_JOB"},
    {MSG_SUBMIT_HET_REQ, 4028, "REQUEST_SUBMIT_BATCH_HET_JOB"},
    {MSG_CRONTAB_GET_REQ, 2200, "REQUEST_CRONTAB"},
    {MSG_CRONTAB_UPDATE_REQ, 2202, "REQUEST_UPDATE_CRONTAB"},
    {MSG_JOB_INFO_REQ, 2003, "REQUEST_JOB_INFO"},
    {MSG_NODE_INFO_REQ, 2007, "REQUEST_NODE_INFO"},
    {MSG_PART_INFO_REQ, 2009, "REQUEST_PARTITION_INFO"},
    {MSG_CONFIG_REQ, 2001, "REQUEST_BUILD_INFO"},
    {MSG_CANCEL_REQ, 5032, "REQUEST_KILL_JOB"},
    {MSG_JOB_UPDATE_REQ, 3001, "REQUEST_UPDATE_JOB"},
    {MSG_NODE_UPDATE_REQ, 3002, "REQUEST_UPDATE_NODE"},
    {MSG_PART_UPDATE_REQ, 3005, "REQUEST_UPDATE_PARTITION"},
    {MSG_ALLOC_REQ, 4001, "REQUEST_RESOURCE_ALLOCATION"},
    {MSG_ALLOC_HET_REQ, 4025, "REQUEST_HET_JOB_ALLOCATION"},
    {MSG_WILL_RUN_REQ, 4012, "REQUEST_JOB_WILL_RUN"},
    {MSG_JOB_SCRIPT_REQ, 2051, "REQUEST_BATCH_SCRIPT"},
    {MSG_SET_DEBUG_REQ, 1010, "REQUEST_SET_DEBUG_LEVEL"},
    {MSG_JOB_NOTIFY_REQ, 4022, "REQUEST_JOB_NOTIFY"},
    {MSG_REBOOT_REQ, 1015, "REQUEST_REBOOT_NODES"},
    {MSG_STEP_CREATE_REQ, 5001, "REQUEST_JOB_STEP_CREATE"},
    {MSG_STEP_HET_CREATE_REQ, 5001, "REQUEST_JOB_STEP_CREATE"},
    {MSG_JOB_COMPLETE_REQ, 5017, "REQUEST_COMPLETE_JOB_ALLOCATION"},
    {MSG_STEP_INFO_REQ, 2005, "REQUEST_JOB_STEP_INFO"},
    {MSG_PRIO_INFO_REQ, 2026, "REQUEST_PRIORITY_FACTORS"},
    {MSG_SHARE_REQ, 2022, "REQUEST_SHARE_INFO"},
    {MSG_ASSOC_MGR_REQ, 2043, "REQUEST_ASSOC_MGR_INFO"},
    {MSG_STATS_REQ, 2035, "REQUEST_STATS_INFO"},
    {MSG_TOPO_INFO_REQ, 2018, "REQUEST_TOPO_INFO"},
    {MSG_LIC_INFO_REQ, 1021, "REQUEST_LICENSE_INFO"},
    {MSG_NODE_REGISTER, 1002, "MESSAGE_NODE_REGISTRATION_STATUS"},
    {MSG_NODE_PING, 1009, "RESPONSE_PING_SLURMD"},
    {MSG_STEP_COMPLETE, 5016, "REQUEST_STEP_COMPLETE"},
    {MSG_PROLOG_COMPLETE, 5019, "REQUEST_COMPLETE_PROLOG"},
};

/* The one message type counted apart from its own: a batch script's end. */
#define RPC_COMPLETE_BATCH_ID   5018
#define RPC_COMPLETE_BATCH_SLOT (MSG_TYPE_MAX + 1)

struct ctld_stats *stats_create(time_t now)
{
	struct ctld_stats *st = xcalloc(1, sizeof(*st));
	st->since = now;
	return st;
}

void stats_destroy(struct ctld_stats *st)
{
	if (!st)
		return;
	free(st->users);
	free(st);
}

void stats_reset(struct ctld_stats *st, time_t now)
{
	uint32_t bf_total = st->bf_total;
	struct user_count *users = st->users;

	memset(st, 0, sizeof(*st));
	free(users);
	st->since = now;
	st->bf_total = bf_total;
}

uint64_t stats_usec_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)(t.tv_sec - t0->tv_sec) * 1000000u +
	       (uint64_t)((t.tv_nsec - t0->tv_nsec) / 1000);
}

static void add(struct rpc_count *c, uint64_t usec)
{
	c->count++;
	c->total_us += usec;
}

static struct rpc_count *user_slot(struct ctld_stats *st, uid_t uid)
{
	size_t lo = 0, hi = st->nusers;

	/* sorted by uid: a binary search, an insertion when new */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (st->users[mid].uid == uid)
			return &st->users[mid].c;
		if (st->users[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (st->nusers == USERS_MAX)
		return &st->other_users;
	if (!st->users)
		st->users = xcalloc(USERS_MAX, sizeof(*st->users));
	memmove(&st->users[lo + 1], &st->users[lo],
	        (st->nusers - lo) * sizeof(*st->users));
	st->users[lo] = (struct user_count){uid, {0, 0}};
	st->nusers++;
	return &st->users[lo].c;
}

void stats_rpc(struct ctld_stats *st, uint16_t type, uint32_t rpc_id, uid_t uid,
               uint64_t usec)
{
	if (type == MSG_JOB_LIST_REQ) /* squeue's listing: Slurm's REQUEST_JOB_INFO */
		type = MSG_JOB_INFO_REQ;
	if (rpc_id == RPC_COMPLETE_BATCH_ID)
		add(&st->types[RPC_COMPLETE_BATCH_SLOT], usec);
	else if (type < MSG_TYPE_MAX)
		add(&st->types[type], usec);
	add(user_slot(st, uid), usec);
}

void stats_sched(struct ctld_stats *st, uint64_t usec, uint32_t depth, uint32_t queue)
{
	st->sched_last = (uint32_t)usec;
	if (st->sched_last > st->sched_max)
		st->sched_max = st->sched_last;
	st->sched_cycles++;
	st->sched_sum += usec;
	st->sched_depth_sum += depth;
	st->sched_queue = queue;
}

void stats_backfill(struct ctld_stats *st, time_t when, uint64_t usec, uint32_t depth,
                    uint32_t queue, uint32_t started)
{
	st->bf_when = when;
	st->bf_last = (uint32_t)usec;
	if (st->bf_last > st->bf_max)
		st->bf_max = st->bf_last;
	st->bf_cycles++;
	st->bf_sum += usec;
	st->bf_depth = st->bf_depth_try = depth;
	st->bf_depth_sum += depth;
	st->bf_depth_try_sum += depth;
	st->bf_queue = queue;
	st->bf_queue_sum += queue;
	st->bf_backfilled += started;
	st->bf_total += started;
}

void stats_sync(struct ctld_stats *st, uint64_t usec)
{
	st->syncs++;
	st->sync_last = (uint32_t)usec;
	if (st->sync_last > st->sync_max)
		st->sync_max = st->sync_last;
	st->sync_sum += usec;
}

void stats_job_event(struct ctld_stats *st, const union job_event *ev)
{
	switch (ev->head.type) {
	case EV_SUBMIT:
		st->submitted++;
		break;
	case EV_START:
		st->started++;
		break;
	case EV_END:
		switch (ev->end.state & JOB_STATE_BASE) {
		case JOB_COMPLETE:
			st->completed++;
			break;
		case JOB_CANCELLED:
			st->canceled++;
			break;
		default:
			st->failed++;
		}
		break;
	default:
		break;
	}
}

static void row(struct rpc_stat *r, const char *name, uint32_t id,
                const struct rpc_count *c)
{
	r->name = xstrdup(name);
	r->id = id;
	r->count = c->count;
	r->total_us = c->total_us;
}

void stats_fill(struct ctld *ctld, struct stats_resp *r)
{
	struct ctld_stats *st = ctld->stats;
	size_t n = 0, ntypes = sizeof(slurm_rpcs) / sizeof(slurm_rpcs[0]) + 1;
	char name[64];

	r->now = time(NULL);
	r->since = st->since;
	r->threads = 2; /* the event loop and the journal's writer */
	r->jobs_submitted = st->submitted;
	r->jobs_started = st->started;
	r->jobs_completed = st->completed;
	r->jobs_canceled = st->canceled;
	r->jobs_failed = st->failed;
	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		if (job_is_pending(j))
			r->jobs_pending++;
		else if (job_is_running(j))
			r->jobs_running++;
	}
	r->sched_last_us = st->sched_last;
	r->sched_max_us = st->sched_max;
	r->sched_cycles = st->sched_cycles;
	r->sched_sum_us = st->sched_sum;
	r->sched_depth_sum = st->sched_depth_sum;
	r->sched_last_queue = st->sched_queue;
	r->bf_backfilled = st->bf_total;
	r->bf_backfilled_stats = st->bf_backfilled;
	r->bf_cycles = st->bf_cycles;
	r->bf_last_when = st->bf_when;
	r->bf_last_us = st->bf_last;
	r->bf_max_us = st->bf_max;
	r->bf_sum_us = st->bf_sum;
	r->bf_last_depth = st->bf_depth;
	r->bf_last_depth_try = st->bf_depth_try;
	r->bf_depth_sum = st->bf_depth_sum;
	r->bf_depth_try_sum = st->bf_depth_try_sum;
	r->bf_last_queue = st->bf_queue;
	r->bf_queue_sum = st->bf_queue_sum;
	r->journal_syncs = st->syncs;
	r->journal_sync_last_us = st->sync_last;
	r->journal_sync_max_us = st->sync_max;
	r->journal_sync_sum_us = st->sync_sum;
	r->journal_seq = journal_last_seq(ctld->journal);
	r->journal_bytes = journal_size(ctld->journal);
	r->journal_compactions = journal_compactions(ctld->journal);
	r->rpc_types = xcalloc(ntypes, sizeof(struct rpc_stat));
	for (size_t i = 0; i + 1 < ntypes; i++) {
		const struct rpc_count *c = &st->types[slurm_rpcs[i].type];
		if (c->count)
			row(&r->rpc_types[n++], slurm_rpcs[i].name, slurm_rpcs[i].id, c);
	}
	if (st->types[RPC_COMPLETE_BATCH_SLOT].count)
		row(&r->rpc_types[n++], "REQUEST_COMPLETE_BATCH_SCRIPT",
		    RPC_COMPLETE_BATCH_ID, &st->types[RPC_COMPLETE_BATCH_SLOT]);
	r->rpc_types_count = n;
	r->rpc_users = xcalloc(st->nusers + 2, sizeof(struct rpc_stat));
	n = 0;
	for (size_t i = 0; i < st->nusers; i++) {
		uid_to_name(st->users[i].uid, name, sizeof(name));
		row(&r->rpc_users[n++], name, st->users[i].uid, &st->users[i].c);
	}
	if (st->other_users.count)
		row(&r->rpc_users[n++], "(others)", UINT32_MAX, &st->other_users);
	r->rpc_users_count = n;
}
