/* preempt.c - preempt/partition_prio (preempt.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/log.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "ctld/assoc.h"
#include "ctld/ctld.h"
#include "proto/messages.h"
#include "ctld/gres_use.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/preempt.h"
#include "ctld/suspend.h"
#include "ctld/sched_pass.h"
#include "sched/topo.h"
#include "sched/view.h"
#include "common/common.h"

#define PREEMPT_VICTIMS_MAX 1024 /* running jobs looked at for one job */

enum mode { MODE_OFF, MODE_CANCEL, MODE_REQUEUE, MODE_SUSPEND };
enum type { TYPE_NONE, TYPE_PARTITION, TYPE_QOS };

static enum mode mode_of(const char *s)
{
	if (!s)
		return MODE_OFF;
	if (strcasestr(s, "REQUEUE"))
		return MODE_REQUEUE;
	if (strcasestr(s, "CANCEL"))
		return MODE_CANCEL;
	if (strcasestr(s, "SUSPEND"))
		return MODE_SUSPEND;
	return MODE_OFF; /* OFF; GANG alone slices time and preempts nothing */
}

static enum type type_of(const struct conf *c)
{
	if (!c->preempt_type)
		return TYPE_NONE;
	if (!strcasecmp(c->preempt_type, "preempt/partition_prio"))
		return TYPE_PARTITION;
	if (!strcasecmp(c->preempt_type, "preempt/qos"))
		return TYPE_QOS;
	return TYPE_NONE;
}

/* A job's QOS record (NULL: none kept, no accounting). */
static const struct assoc_qos *qos_of(const struct ctld *ctld, const struct job *job)
{
	return assoc_qos_get(ctld->assoc, job->desc.qos ? job->desc.qos : "normal");
}

const char *preempt_mode_name(const struct ctld *ctld, const struct conf_part *cp)
{
	static const char *const names[] = {"OFF", "CANCEL", "REQUEUE", "SUSPEND"};

	switch (type_of(ctld->conf)) {
	case TYPE_PARTITION:
		return names[mode_of(cp->preempt_mode ? cp->preempt_mode
		                                      : ctld->conf->preempt_mode)];
	case TYPE_QOS: /* each QOS may say otherwise */
		return names[mode_of(ctld->conf->preempt_mode)];
	default:
		return "OFF";
	}
}

/* What becomes of job when preempted: its partition's (partition_prio) or
 * its QOS's (qos) PreemptMode, else the global one. */
static enum mode job_mode(const struct ctld *ctld, const struct job *job)
{
	const char *m = NULL;
	const struct assoc_qos *q;

	if (type_of(ctld->conf) == TYPE_PARTITION && job->part)
		m = job->part->cfg->preempt_mode;
	else if ((q = qos_of(ctld, job)) && q->preempt_mode &&
	         strcasecmp(q->preempt_mode, "cluster"))
		m = q->preempt_mode;
	return mode_of(m ? m : ctld->conf->preempt_mode);
}

/* Seconds v gets between SIGTERM and its end. */
static uint32_t grace_of(const struct ctld *ctld, const struct job *v)
{
	const struct assoc_qos *q;

	if (type_of(ctld->conf) == TYPE_QOS)
		return (q = qos_of(ctld, v)) ? q->grace_time : 0;
	return v->part ? v->part->cfg->grace_time : 0;
}

/* Jobs that have run less than this are left alone (PreemptExemptTime:
 * the QOS's with preempt/qos, else the cluster's). */
static time_t exempt_secs(const struct ctld *ctld, const struct job *v)
{
	const struct conf *c = ctld->conf;
	const struct assoc_qos *q;
	uint32_t min;

	if (type_of(c) == TYPE_QOS && (q = qos_of(ctld, v)) &&
	    q->preempt_exempt_time != NO_VAL)
		return q->preempt_exempt_time;
	if (!c->preempt_exempt_time || !strcmp(c->preempt_exempt_time, "-1") ||
	    timefmt_parse_limit(c->preempt_exempt_time, &min) < 0 || min == INFINITE32)
		return 0;
	return (time_t)min * 60;
}

/* May job preempt the running job v?  partition_prio: v's partition has a
 * lower PriorityTier; qos: v's QOS is in the Preempt list of job's. */
static int may_preempt(const struct ctld *ctld, const struct job *job,
                       const struct job *v)
{
	const struct assoc_qos *q;
	const char *vq;

	if (!v->part || job_mode(ctld, v) == MODE_OFF)
		return 0;
	if (type_of(ctld->conf) == TYPE_PARTITION)
		return job->part &&
		       v->part->cfg->priority_tier < job->part->cfg->priority_tier;
	if (!(q = qos_of(ctld, job)) || !q->preempt)
		return 0;
	vq = v->desc.qos ? v->desc.qos : "normal";
	for (size_t i = 0; q->preempt[i]; i++)
		if (!strcasecmp(q->preempt[i], vq))
			return 1;
	return 0;
}

/* The order victims are taken in: lower ranks first (the partition's tier,
 * or the QOS's priority). */
struct victim {
	struct job *job;
	uint32_t rank;
};

/* Victims first: already being preempted, then the lowest rank, then the
 * youngest. */
static int victim_cmp(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;

	if (!!x->job->run->preempt_at != !!y->job->run->preempt_at)
		return x->job->run->preempt_at ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->job->run->start_time != y->job->run->start_time)
		return x->job->run->start_time > y->job->run->start_time ? -1 : 1;
	return x->job->job_id > y->job->job_id ? -1 : 1;
}

/* Give back what v holds in nodes (a copy of the pass's snapshot); 0 when
 * none of it is on a node the preemptor may use.  A job that has ended
 * gives back what its nodes still hold (COMPLETING). */
static int release(const struct ctld *ctld, const struct sched_snap *s,
                   struct sched_node *nodes, const struct job *v)
{
	const struct job_run *r = v->run;
	int useful = 0, ended = !job_is_running(v);
	int suspend = !ended && job_mode(ctld, v) == MODE_SUSPEND;

	for (uint32_t k = 0; k < r->nnodes; k++) {
		struct sched_node *n = &nodes[r->node_idx[k]];
		uint32_t take[SCHED_GRES_KINDS] = {0};

		if (r->node_idx[k] >= s->nnodes || (ended && !(r->held && r->held[k])))
			continue;
		useful |= n->usable;
		n->alloc_cpus -= r->cpus[k] < n->alloc_cpus ? r->cpus[k] : n->alloc_cpus;
		if (r->share > 1)
			n->shared_cpus -=
			    r->cpus[k] < n->shared_cpus ? r->cpus[k] : n->shared_cpus;
		if (suspend) /* a suspended job keeps its memory and GRES */
			continue;
		if (s->mem_consumable)
			n->alloc_mem -=
			    r->mem[k] < n->alloc_mem ? r->mem[k] : n->alloc_mem;
		if (r->gres && r->gres[k]) {
			gres_use_counts(node_mgr_gres_kinds(ctld->nodes), r->gres[k],
			                take);
			for (unsigned g = 0; g < SCHED_GRES_KINDS; g++)
				n->gres_alloc[g] -= take[g] < n->gres_alloc[g]
				                        ? take[g]
				                        : n->gres_alloc[g];
		}
	}
	return useful;
}

/* Stop v now, as its mode says. */
static void finish(struct ctld *ctld, struct job *v)
{
	if (job_mode(ctld, v) == MODE_REQUEUE && job_requeue(ctld, v) == 0) {
		log_info("JobId=%u preempted: requeued", v->job_id);
		return;
	}
	log_info("JobId=%u preempted: ended", v->job_id);
	job_end(ctld, v, JOB_PREEMPTED, WAIT_NO_REASON, SIGTERM);
}

static void start(struct ctld *ctld, struct job *v, const struct job *by, time_t now)
{
	uint32_t grace = grace_of(ctld, v);

	if (job_mode(ctld, v) == MODE_SUSPEND) { /* at once: nothing ends */
		log_info("JobId=%u preempted by JobId=%u: suspended", v->job_id,
		         by->job_id);
		suspend_by_preemption(ctld, v);
		ctld_sched_kick(ctld); /* its CPUs are free now */
		return;
	}
	log_info("JobId=%u preempted by JobId=%u (grace %u s)", v->job_id, by->job_id,
	         grace);
	if (!grace) {
		finish(ctld, v);
		return;
	}
	job_run_mut(v)->preempt_at = now + grace;
	job_signal_nodes(ctld, v, NO_VAL, SIGCONT, 0);
	job_signal_nodes(ctld, v, NO_VAL, SIGTERM, 0);
}

void preempt_for(struct sched_pass *ps, struct job *job, const struct sched_job *sj)
{
	struct ctld *ctld = ps->ctld;
	struct sched_snap *s = &ps->snap;
	enum type type = type_of(ctld->conf);
	struct victim *v;
	struct sched_node *copy;
	size_t n = 0, used = 0;
	int fits;

	if (type == TYPE_NONE || !job->part)
		return;
	/* its victims are still on their way out (a requeued job's nodes are
	 * not scheduled until they confirm it gone) */
	if (job->sched && job->sched->preempt_wait > ps->now)
		return;
	v = xcalloc(PREEMPT_VICTIMS_MAX, sizeof(*v));
	for (struct job *j = job_first_active(ctld->jobs); j && n < PREEMPT_VICTIMS_MAX;
	     j = j->lnext) {
		time_t exempt;
		/* one time slicing stopped still holds its CPUs: a victim */
		if (!job_is_running(j) || suspend_cpus_given_up(j) ||
		    !may_preempt(ctld, job, j))
			continue;
		exempt = exempt_secs(ctld, j);
		if (!j->run->preempt_at && exempt &&
		    ps->now - j->run->start_time < exempt)
			continue;
		v[n].job = j;
		v[n++].rank =
		    type == TYPE_PARTITION
		        ? j->part->cfg->priority_tier
		        : assoc_qos_priority(ctld->assoc,
		                             j->desc.qos ? j->desc.qos : "normal");
	}
	if (!n) {
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), victim_cmp);
	copy = xmalloc(s->nnodes * sizeof(*copy) + 1);
	memcpy(copy, s->nodes, s->nnodes * sizeof(*copy));
	/* what ending jobs still hold is about to be free (the victims of an
	 * earlier pass among them): perhaps enough */
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext)
		if (!job_is_running(j) && (j->state & JOB_COMPLETING))
			release(ctld, s, copy, j);
	fits = sched_select_topo(copy, s->nnodes, &sj->req, s->topo, &s->out) == 0;
	for (size_t i = 0; i < n && !fits; i++) {
		if (!release(ctld, s, copy, v[i].job))
			continue;
		v[used++] = v[i];
		fits =
		    sched_select_topo(copy, s->nnodes, &sj->req, s->topo, &s->out) == 0;
	}
	for (size_t i = 0; fits && i < used; i++) {
		struct job *x = v[i].job;
		time_t wait =
		    job_mode(ctld, x) == MODE_SUSPEND
		        ? 5 /* its CPUs are free at once */
		        : (time_t)grace_of(ctld, x) + ctld->conf->kill_wait + 30;
		if (x->run->preempt_at)
			continue;
		if (job_sched_mut(job)->preempt_wait < ps->now + wait)
			job_sched_mut(job)->preempt_wait = ps->now + wait;
		if (ctld->preempt_until < ps->now + wait)
			ctld->preempt_until = ps->now + wait;
		start(ctld, x, job, ps->now);
	}
	free(copy);
	free(v);
}

void preempt_tick(struct ctld *ctld, struct job *job, time_t now)
{
	if (job->run->preempt_at && now >= job->run->preempt_at && job_is_running(job))
		finish(ctld, job);
}
