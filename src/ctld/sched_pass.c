/* sched_pass.c - the controller's driver of the main scheduling pass
 * (src/sched/pass.h): snapshot the nodes, put the pending jobs in priority
 * order, answer for each job what the pass asks, start what it places, and
 * keep every pending job's reason current. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/arrayspec.h"
#include "common/batch_feat.h"
#include "common/constraint.h"
#include "common/gres.h"
#include "common/gres_req.h"
#include "common/strv.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/schedparams.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "ctld/hetjob.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"
#include "ctld/assoc_limits.h"
#include "ctld/preempt.h"
#include "ctld/resv.h"
#include "common/resv_flags.h"
#include "ctld/licenses.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/mcs_label.h"
#include "ctld/mail.h"
#include "common/mailtype.h"
#include "ctld/node_gres.h"
#include "ctld/node_mgr.h"
#include "ctld/node_feat.h"
#include "ctld/part_access.h"
#include "ctld/part_mem.h"
#include "ctld/sched_pass.h"
#include "ctld/topo.h"
#include "ctld/stats.h"
#include "ctld/suspend.h"
#include "sched/pass.h"
#include "sched/policy.h"
#include "sched/priority.h"
#include "sched/queue.h"
#include "sched/select.h"
#include "common/common.h"

/* A waiting job's place in the scheduling order as one key (job_prio_cmp's
 * order): sorting keys is cheaper than comparing through each job's
 * partition. */
struct prio_key {
	uint64_t key; /* PriorityTier << 32 | priority: higher first */
	uint32_t job_id;
	struct job *job;
};

static int cmp_key(const void *a, const void *b)
{
	const struct prio_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/* Stores only what changes: every pass visits every pending job, and a
 * store to a job that is already so still dirties its memory page (which
 * after a fork for compaction costs a copy of the page, journal.h). */
void sched_pass_set_reason(struct job *job, uint32_t reason, char *detail)
{
	struct job_sched *s = job->sched;

	if (s && s->unavail_nodes) {
		free(s->unavail_nodes);
		s->unavail_nodes = NULL;
	}
	if (job->reason != reason)
		job->reason = reason;
	if (detail && s && s->reason_detail && !strcmp(detail, s->reason_detail)) {
		free(detail);
	} else if (detail || (s && s->reason_detail)) {
		s = job_sched_mut(job);
		free(s->reason_detail);
		s->reason_detail = detail;
	}
}

size_t sched_pass_part_index(struct ctld *ctld, const struct part *p)
{
	for (size_t i = 0; i < node_mgr_part_count(ctld->nodes); i++)
		if (node_mgr_part(ctld->nodes, i) == p)
			return i;
	return 0;
}

struct sched_qrec *sched_pass_queue(struct ctld *ctld, struct job **pending, size_t n,
                                    size_t *ret_n)
{
	struct sched_qrec *r;
	size_t m = 0, any = 0;

	for (size_t i = 0; i < n && !any; i++)
		any = (job_multi_part(pending[i]) || resv_job_count(pending[i]) > 1) &&
		      !hetjob_follower(pending[i]);
	if (!any)
		return NULL;
	r = xcalloc(n, sizeof(*r));
	for (size_t i = 0, cap = n; i < n; i++) {
		struct part *parts[JOB_PARTS_MAX];
		size_t np = 0, nr = resv_job_count(pending[i]);
		/* pending[] is in the pass's order (priority, or saf_aged's):
		 * kept within a tier */
		uint32_t rank = (uint32_t)(n - i);

		if (job_multi_part(pending[i]))
			np = job_parts_of(ctld->nodes, pending[i]->desc.partition, parts,
			                  JOB_PARTS_MAX);
		if (np <= 1) {
			np = 1;
			parts[0] = pending[i]->part;
		}
		/* --reservation=a,b: a record per reservation too, tried in
		 * its list's order within each partition (as Slurm) */
		if (nr < 1 || hetjob_follower(pending[i]))
			nr = 1;
		if (nr > JOB_PARTS_MAX)
			nr = JOB_PARTS_MAX;
		if (m + np * nr > cap) {
			cap = 2 * cap + np * nr;
			r = xrealloc(r, cap * sizeof(*r));
		}
		for (size_t k = 0; k < np; k++)
			for (size_t v = 0; v < nr; v++)
				r[m++] = (struct sched_qrec){
				    .job = (uint32_t)i,
				    .at = (uint32_t)k,
				    .resv = (uint32_t)v,
				    .tier = parts[k] ? parts[k]->cfg->priority_tier : 0,
				    .prio = rank,
				    .job_id = pending[i]->job_id};
	}
	sched_queue_sort(r, m);
	*ret_n = m;
	return r;
}

int sched_pass_use_part(struct ctld *ctld, struct job *job, uint32_t at)
{
	struct part *parts[JOB_PARTS_MAX];
	size_t np;

	if (!job_multi_part(job))
		return at ? -1 : 0;
	np = job_parts_of(ctld->nodes, job->desc.partition, parts, JOB_PARTS_MAX);
	if (at >= np)
		return -1;
	if (job->part != parts[at])
		job->part = parts[at];
	return 0;
}

void sched_pass_part_reset(struct ctld *ctld, struct job *job)
{
	struct part *p;

	if (!job_is_pending(job) || !job_multi_part(job))
		return;
	p = job_part_first(ctld->nodes, job->desc.partition);
	if (p && job->part != p)
		job->part = p;
}

/* Can the job no longer end before its --deadline, even run for its
 * --time-min (else its time limit)?  Slurm ends it then, DEADLINE. */
static int deadline_missed(const struct job *job, time_t now)
{
	uint32_t run = job_x(job)->time_min ? job_x(job)->time_min : job->time_limit;

	return job_x(job)->deadline && run != INFINITE32 && run != NO_VAL &&
	       job_x(job)->deadline < now + (int64_t)run * 60;
}

/* Limits that keep a job waiting whatever the nodes do. */
static int job_blocked_by_limits(struct ctld *ctld, struct job *job, time_t now)
{
	const struct conf_part *cp = job->part->cfg;
	struct part_mem_req mr;
	uint32_t why;

	if (deadline_missed(job, now)) {
		log_info("JobId=%u cannot end before its deadline: ended DEADLINE",
		         job->job_id);
		job_end(ctld, job, JOB_DEADLINE, FAIL_DEADLINE, 1);
		return 1;
	}
	if (job->hold) {
		sched_pass_set_reason(job, job_hold_reason(job), NULL);
		return 1;
	}
	if (job->eligible_time > now) {
		sched_pass_set_reason(job, WAIT_TIME, NULL);
		return 1;
	}
	job->state &= ~JOB_REQUEUE_FLAG; /* a requeued job's old run is over */
	switch (depend_test(ctld, job, NO_VAL, now)) {
	case DEPEND_OK:
		break;
	case DEPEND_WAIT:
		sched_pass_set_reason(job, WAIT_DEPENDENCY, NULL);
		return 1;
	case DEPEND_NEVER:
		if (job->reason !=
		    WAIT_DEP_INVALID) /* once: the first pass that sees it */
			mail_job(ctld, job, MAIL_INVALID_DEPEND, job->state, 0, now);
		if ((job->desc.flags & JOB_F_KILL_INV_DEP) ||
		    (!(job->desc.flags & JOB_F_NO_KILL_INV_DEP) &&
		     depend_kill_invalid(ctld))) {
			log_info("JobId=%u: dependency can never be satisfied, "
			         "cancelling it (%s)",
			         job->job_id,
			         (job->desc.flags & JOB_F_KILL_INV_DEP)
			             ? "--kill-on-invalid-dep"
			             : "kill_invalid_depend");
			job_end(ctld, job, JOB_CANCELLED, WAIT_DEP_INVALID, 0);
		} else {
			sched_pass_set_reason(job, WAIT_DEP_INVALID, NULL);
		}
		return 1;
	}
	/* DOWN and INACTIVE start nothing; DRAIN runs what it has */
	if (cp->state == CONF_PART_DOWN || cp->state == CONF_PART_INACTIVE) {
		sched_pass_set_reason(job,
		                      cp->state == CONF_PART_DOWN ? WAIT_PART_DOWN
		                                                  : WAIT_PART_INACTIVE,
		                      NULL);
		return 1;
	}
	if ((why = part_access_wait(job->part, job->desc.account, job->desc.qos))) {
		sched_pass_set_reason(job, why, NULL);
		return 1;
	}
	if (cp->max_time != TIME_INFINITE && (job_limit_in_part(job) == INFINITE32 ||
	                                      job_limit_in_part(job) > cp->max_time)) {
		sched_pass_set_reason(job, WAIT_PART_TIME_LIMIT, NULL);
		return 1;
	}
	if ((cp->max_nodes != UINT32_MAX && job_min_nodes(job) > cp->max_nodes) ||
	    job_min_nodes(job) < cp->min_nodes) {
		sched_pass_set_reason(job, WAIT_PART_NODE_LIMIT, NULL);
		return 1;
	}
	if (part_mem_job(ctld, job->part, job, &mr) < 0) {
		sched_pass_set_reason(job, WAIT_PN_MEM_LIMIT, NULL);
		return 1;
	}
	if ((why = resv_job_wait(ctld, job, now))) {
		sched_pass_set_reason(job, why, NULL);
		return 1;
	}
	return 0;
}

/* The job's parsed --constraint (cached on the job), or NULL: none, or one
 * that does not parse (submit checked it, so only from an older journal; no
 * node suits it). */
static const struct constraint *job_constraint(struct job *job)
{
	if (!job->desc.features)
		return NULL;
	if (!job->sched || !job->sched->constraint)
		constraint_parse(job->desc.features, &job_sched_mut(job)->constraint,
		                 NULL);
	return job->sched->constraint;
}

/* The job's parsed --prefer (cached), or NULL. */
static const struct constraint *job_prefer(struct job *job)
{
	const char *text = job_x(job)->prefer;

	if (!text)
		return NULL;
	if (!job->sched || !job->sched->prefer)
		constraint_parse(text, &job_sched_mut(job)->prefer, NULL);
	return job->sched->prefer;
}

/* Has a node with features all that --prefer's node counts ask (a preferred
 * count is read as every node having it)? */
static int prefer_counts_met(const struct constraint *p, const char *features)
{
	size_t n = constraint_counts(p);

	return sched_pass_feat_bits(p, NULL, features) ==
	       (n ? (UINT32_MAX >> (32 - n)) : 0);
}

/* How many matching-OR alternatives the job's --prefer (tried first, in
 * place of -C, as Slurm) has, 0 when none. */
static size_t prefer_alternatives(struct job *job)
{
	const struct constraint *p = job_prefer(job);
	return p ? constraint_alternatives(p) : 0;
}

/* How many alternatives the job has: its --prefer's, then its constraint's
 * matching-OR ones (1 when none): sched_pass_mark_nodes() takes one. */
static size_t alternatives(struct job *job)
{
	const struct constraint *c = job_constraint(job);
	return prefer_alternatives(job) + (c ? constraint_alternatives(c) : 1);
}

static int job_req_has_gres(const struct job *job);
static void job_req(struct sched_pass *ps, struct job *job, struct sched_req *r);
static void mark_bind(struct sched_pass *ps, struct job *job, const struct sched_req *r);

/* job_req's stand-in for a request that names a kind no node has (any
 * longer): nothing fits it. */
static int req_unknown(const struct sched_req *r)
{
	return r->ngres == 1 && !r->gres[0].kinds;
}

/* Has n every item of the job's --gres in the count asked?  What
 * gres_node_has(--gres, n's Gres=) says, from the job's parsed request r
 * (--gres's items first: gres_use_wants) and n's count of each kind, without
 * parsing either for every node. */
static int gres_fits(const struct job *job, const struct sched_req *r,
                     const struct node *n)
{
	uint32_t items = gres_use_wants_items(&job->desc, r);

	if (req_unknown(r))
		return gres_node_has(job_x(job)->gres, n->cfg->gres);
	for (uint32_t w = 0; w < items; w++) {
		const struct sched_gres_want *g = &r->gres[w];
		uint64_t have = 0;
		if (g->per_node >= GRES_REQ_MAX_COUNT) /* cut to the limit */
			return gres_node_has(job_x(job)->gres, n->cfg->gres);
		for (uint32_t k = 0; k < SCHED_GRES_KINDS; k++)
			if (g->kinds >> k & 1)
				have += n->gres_use.count[k];
		if (have < g->per_node)
			return 0;
	}
	return 1;
}

/* --exclusive=user: keep the job off nodes where jobs of other users hold
 * resources (those started earlier in this pass too: they are applied). */
static void mark_user_exclusive(struct sched_pass *ps, const struct job *job)
{
	uid_t uid = job->owner->uid;

	for (struct job *j = job_first_active(ps->ctld->jobs); j; j = j->lnext) {
		const struct job_run *run = j->run;
		if (!run->held || j->owner->uid == uid)
			continue;
		for (uint32_t k = 0; k < run->nnodes; k++)
			if (run->held[k] && run->node_idx[k] < ps->snap.nnodes)
				ps->snap.nodes[run->node_idx[k]].usable = 0;
	}
}

/* part_cpus of every node: the CPUs the jobs of the job's partition hold
 * there (those started earlier in this pass too), which its MaxCPUsPerNode
 * counts; 0 where it has none. */
static void mark_part_cpus(struct sched_pass *ps, const struct job *job)
{
	const struct part *p = job->part;

	for (size_t i = 0; i < ps->snap.nnodes; i++)
		ps->snap.nodes[i].part_cpus = 0;
	if (p->cfg->max_cpus_per_node == UINT32_MAX)
		return;
	for (struct job *j = job_first_active(ps->ctld->jobs); j; j = j->lnext) {
		const struct job_run *run = j->run;
		if (j->part != p || !run->held || suspend_cpus_given_up(j))
			continue;
		for (uint32_t k = 0; k < run->nnodes; k++)
			if (run->held[k] && run->node_idx[k] < ps->snap.nnodes)
				ps->snap.nodes[run->node_idx[k]].part_cpus +=
				    run->cpus[k];
	}
}

/* Set usable/required for the job: up, in its partition, not excluded, with
 * the sockets (--sockets-per-node) and features its constraint asks, taking
 * alternative `alt` of a matching OR ([a|b]), and able to bind its CPUs near
 * its GRES (--gres-flags=enforce-binding); shared with other users only where
 * neither it nor a job there asked --exclusive=user, and as their MCS labels
 * allow (ctld/mcs_label.h). */
void sched_pass_mark_nodes(struct sched_pass *ps, struct job *job, size_t alt)
{
	struct ctld *ctld = ps->ctld;
	const struct constraint *cons = job_constraint(job), *ccons = cons;
	const char *features = job->desc.features;
	const char *batch = job_batch_features(job);
	uint32_t bbit = batch ? sched_pass_batch_bit(ccons) : 0;
	size_t npref = prefer_alternatives(job);
	char **req = NULL, **exc = NULL;
	size_t nreq = 0, nexc = 0;
	struct sched_req r = {0};
	int bind =
	    (job_x(job)->gres_flags & GRES_F_ENFORCE_BINDING) && job_req_has_gres(job);
	int mcs_keeps = mcs_job_keeps_nodes(ctld, job);

	if (job_x(job)->gres || bind) /* kept on the job: job_req */
		job_req(ps, job, &r);
	if (alt < npref) { /* --prefer's nodes first */
		cons = job_prefer(job);
		features = job_x(job)->prefer;
	} else {
		alt -= npref;
	}
	if (job->desc.req_nodes)
		hostlist_expand(job->desc.req_nodes, &req, &nreq, NULL);
	if (job->desc.exc_nodes)
		hostlist_expand(job->desc.exc_nodes, &exc, &nexc, NULL);
	for (size_t i = 0; i < ps->snap.nnodes; i++) {
		struct node *n = node_mgr_get(ctld->nodes, i);
		const char *have = node_feat_active(n);
		/* -C's node counts (a --prefer alternative stands in for -C)
		 * and --batch's */
		ps->snap.nodes[i].feat = sched_pass_feat_bits(ccons, batch, have);
		if (cons != ccons)
			ps->snap.nodes[i].feat |= UINT32_MAX & ~bbit;
		ps->snap.nodes[i].usable =
		    node_usable(n) && part_has_node(job->part, i) &&
		    (!features || (cons && constraint_match(cons, alt, have) &&
		                   (cons == ccons || prefer_counts_met(cons, have)))) &&
		    (!job_x(job)->gres || gres_fits(job, &r, n)) &&
		    node_layout_fits(n, job_x(job)) &&
		    node_tmp_disk(n) >= job_x(job)->pn_min_tmp &&
		    /* another user's --exclusive=user job runs there */
		    (!n->excl_user_jobs || n->excl_uid == job->owner->uid) &&
		    mcs_node_fits(n, job, mcs_keeps);
		ps->snap.nodes[i].required = 0;
	}
	/* by name lookup: linear in the lists and the nodes, not their product */
	for (size_t k = 0; k < nreq; k++) {
		int idx = node_mgr_find(ctld->nodes, req[k]);
		if (idx >= 0 && (size_t)idx < ps->snap.nnodes)
			ps->snap.nodes[idx].required = 1;
	}
	for (size_t k = 0; k < nexc; k++) {
		int idx = node_mgr_find(ctld->nodes, exc[k]);
		if (idx >= 0 && (size_t)idx < ps->snap.nnodes)
			ps->snap.nodes[idx].usable = 0;
	}
	hostlist_free(req);
	hostlist_free(exc);
	if ((job->desc.flags & JOB_F_EXCLUSIVE_USER) || job->part->cfg->exclusive_user)
		mark_user_exclusive(ps, job);
	mark_part_cpus(ps, job);
	if (bind)
		mark_bind(ps, job, &r);
	/* backfill plans reservations as holds over their windows */
	ps->resv_kept = 0;
	if (!ps->backfill) {
		size_t kept;
		uint32_t f = resv_mark(ctld, ps->resv, job, ps->now, ps->snap.nodes,
		                       ps->snap.nnodes, &kept);
		ps->resv_kept = kept ? f : 0;
	}
}

static int job_req_has_gres(const struct job *job)
{
	const struct job_desc *d = &job->desc;
	const struct job_desc_ext *x = job_desc_X(d);

	return x->gres || x->gpus || x->gpus_per_node || x->gpus_per_task ||
	       x->gpus_per_socket;
}

/* What the job's partition's memory defaults and limits make of r (only
 * what they change: a --mem-per-gpu request keeps its figure). */
static void part_mem_sched_req(struct ctld *ctld, const struct job *job,
                               struct sched_req *r)
{
	const struct job_desc *d = &job->desc;
	struct part_mem_req mr;

	if (part_mem_job(ctld, job->part, job, &mr) < 0)
		return; /* it waits: job_blocked_by_limits */
	if (mr.mem_per_node != d->mem_per_node || mr.mem_per_cpu != d->mem_per_cpu) {
		r->mem_per_node = mr.mem_per_node == NO_VAL64 ? 0 : mr.mem_per_node;
		r->mem_per_cpu = mr.mem_per_cpu == NO_VAL64 ? 0 : mr.mem_per_cpu;
	}
	if (mr.cpus_per_task != d->cpus_per_task)
		r->cpus_per_task = mr.cpus_per_task;
	if (mr.pn_min_cpus != d->pn_min_cpus)
		r->min_cpus = mr.pn_min_cpus;
}

/* The job's request of sched_select(): from its description (job_desc_req:
 * kept on a GRES job, whose wants take parsing, until its description or the
 * configuration changes), with its partition's OverSubscribe. */
static void job_req(struct sched_pass *ps, struct job *job, struct sched_req *r)
{
	const struct job_desc *d = &job->desc;
	const struct node_mgr *nm = ps->ctld->nodes;
	struct job_sched *s = job->sched;
	uint32_t jobs;

	if (!job_req_has_gres(job)) {
		job_desc_req(NULL, d, r, NULL);
	} else if (s && s->req && s->req_gen == node_mgr_generation(nm)) {
		*r = *s->req;
	} else {
		/* checked at submit; a reconfiguration may have taken a kind
		 * away since: then nothing fits it (req_unknown) */
		if (job_desc_req(node_mgr_gres_kinds(nm), d, r, NULL) < 0) {
			r->ngres = 1;
			r->gres[0] = (struct sched_gres_want){.kinds = 0, .per_node = 1};
		}
		s = job_sched_mut(job);
		if (!s->req)
			s->req = xmalloc(sizeof(*s->req));
		*s->req = *r;
		s->req_gen = node_mgr_generation(nm);
	}
	r->exclusive =
	    r->exclusive || part_oversub(job->part, &jobs) == PART_OVERSUB_EXCLUSIVE;
	r->share = r->exclusive ? 1 : part_job_share(job->part, d->flags);
	sched_pass_part_req(ps->ctld->conf, job->part, r);
	part_mem_sched_req(ps->ctld, job, r);
	sched_pass_feat_req(job_constraint(job), job_batch_features(job), r);
}

_Static_assert(CONSTRAINT_MAX_COUNTS + 1 <= SCHED_FEATS,
               "a bit for each count and --batch's");

void sched_pass_feat_req(const struct constraint *cons, const char *batch,
                         struct sched_req *r)
{
	size_t n = cons ? constraint_counts(cons) : 0;
	uint32_t need;

	r->nfeat = 0;
	for (size_t k = 0; k < n; k++) {
		struct constraint_count cc = constraint_count(cons, k);
		r->feat[r->nfeat++] =
		    (struct sched_feat){.nodes = cc.nodes, .own = cc.own};
	}
	if (batch) /* its script's node among its nodes */
		r->feat[r->nfeat++] = (struct sched_feat){.nodes = 1, .own = 0};
	need = n ? constraint_count_nodes(cons) : 0;
	/* -N 3 with "a*4": never (Slurm's "not available"); without -N, 4 */
	if (r->min_nodes < need && (r->max_nodes == SCHED_UNSET || r->max_nodes >= need))
		r->min_nodes = need;
}

uint32_t sched_pass_batch_bit(const struct constraint *cons)
{
	return UINT32_C(1) << (cons ? constraint_counts(cons) : 0);
}

uint32_t sched_pass_feat_bits(const struct constraint *cons, const char *batch,
                              const char *features)
{
	size_t n = cons ? constraint_counts(cons) : 0;
	uint32_t bits = 0;

	for (size_t k = 0; k < n; k++)
		if (constraint_count_match(cons, k, features))
			bits |= UINT32_C(1) << k;
	if (batch && batch_feat_match(batch, features))
		bits |= sched_pass_batch_bit(cons);
	return bits;
}

void sched_pass_part_req(const struct conf *conf, const struct part *p,
                         struct sched_req *r)
{
	const char *stp = conf->select_type_parameters;

	r->max_cpus_per_node =
	    p->cfg->max_cpus_per_node == UINT32_MAX ? 0 : p->cfg->max_cpus_per_node;
	r->lln = p->cfg->lln || (stp && strcasestr(stp, "CR_LLN"));
}

/* How many of the CPUs in near[GRES_CORE_WORDS] n has free (core_used: n's
 * cores in use, NULL for none).  By the bits set, not CPU by CPU: the pass
 * asks it for every device of every node at a mark. */
static uint32_t free_near_count(const struct node *n, const uint8_t *core_used,
                                const uint64_t *near)
{
	uint32_t lim = n->cpus < GRES_CORES_MAX ? n->cpus : GRES_CORES_MAX, f = 0;

	for (uint32_t w = 0; w < GRES_CORE_WORDS && w * 64 < lim; w++) {
		uint64_t bits = near[w];
		if ((w + 1) * 64 > lim)
			bits &= (UINT64_C(1) << (lim % 64)) - 1;
		if (!core_used) {
			f += (uint32_t)__builtin_popcountll(bits);
			continue;
		}
		for (; bits; bits &= bits - 1)
			f += !core_used[w * 64 + (uint32_t)__builtin_ctzll(bits)];
	}
	return f;
}

/* The CPUs near device dev (numbered within its name) of n into
 * cores[GRES_CORE_WORDS], and how many of them are free (core_used: n's
 * cores in use, NULL for none); -1 when the node did not say which. */
static int dev_free_near(const struct node *n, const uint8_t *core_used, const char *name,
                         uint32_t dev, uint64_t *cores)
{
	if (node_gres_dev_cores(n, name, dev, cores) < 0)
		return -1;
	return (int)free_near_count(n, core_used, cores);
}

/* The devices for take[] on n: those with the most free CPUs near them
 * (gres.conf Cores=) first, so that the job's CPUs, taken near its GPUs
 * (node_cores_take_near), are close to them; the lowest free ones with
 * --gres-flags=disable-binding (gres_flags: GRES_F_*). */
static char *gres_pick_near(struct ctld *ctld, const struct node *n, const uint32_t *take,
                            uint32_t gres_flags)
{
	const struct gres_kinds *gk = node_mgr_gres_kinds(ctld->nodes);
	uint32_t *score = NULL;
	char *out;

	for (size_t k = 0;
	     n->ngres_devs && !(gres_flags & GRES_F_DISABLE_BINDING) && k < gk->n; k++)
		for (uint32_t i = 0;
		     take[k] && i < n->gres_use.count[k] && i < GRES_USE_MAX_DEV; i++) {
			uint64_t c[GRES_CORE_WORDS];
			int f = dev_free_near(n, n->core_used, gk->k[k].name,
			                      n->gres_use.first[k] + i, c);
			if (f < 0)
				continue;
			if (!score)
				score = xcalloc(SCHED_GRES_KINDS * GRES_USE_MAX_DEV,
				                sizeof(*score));
			score[k * GRES_USE_MAX_DEV + i] = (uint32_t)f;
		}
	out = gres_use_pick(gk, &n->gres_use, take, score);
	free(score);
	return out;
}

/* Would the devices gres_pick_near picks for take[] on n leave cpus free
 * CPUs near them (node_gres_bind_fits of its pick)?  The same answer without
 * the allocation string: the scheduling pass asks it for every node at
 * every mark.  u: n's GRES, core_used: its cores in use (NULL: none). */
static int bind_take_fits(struct ctld *ctld, const struct node *n,
                          const struct gres_use *u, const uint8_t *core_used,
                          const uint32_t *take, uint32_t gres_flags, uint32_t cpus)
{
	const struct gres_kinds *gk = node_mgr_gres_kinds(ctld->nodes);
	int scored = !(gres_flags & GRES_F_DISABLE_BINDING);
	uint64_t near[GRES_CORE_WORDS] = {0};
	int any = 0;

	for (size_t k = 0; n->ngres_devs && k < gk->n; k++) {
		uint64_t cores[GRES_USE_MAX_DEV][GRES_CORE_WORDS], has = 0;
		uint32_t score[GRES_USE_MAX_DEV] = {0}, idx[GRES_USE_MAX_DEV], got;
		if (!take[k])
			continue;
		for (uint32_t i = 0; i < u->count[k] && i < GRES_USE_MAX_DEV; i++) {
			int f = dev_free_near(n, core_used, gk->k[k].name,
			                      u->first[k] + i, cores[i]);
			if (f < 0)
				continue;
			has |= 1ull << i;
			score[i] = scored ? (uint32_t)f : 0; /* all 0: lowest first */
		}
		got = gres_use_rank(u, k, take[k], score, idx);
		for (uint32_t j = 0; j < got; j++) {
			if (!(has >> idx[j] & 1))
				continue;
			for (size_t w = 0; w < GRES_CORE_WORDS; w++)
				near[w] |= cores[idx[j]][w];
			any = 1;
		}
	}
	if (!any) /* no device said which CPUs are near it: all are */
		return 1;
	return free_near_count(n, core_used, near) >= cpus;
}

/* --gres-flags=enforce-binding: could n give the job the fewest GRES and
 * CPUs it needs there (one task's, or --ntasks-per-node's) with the CPUs near
 * the GRES?  A node that could not is not usable for it, so the selection
 * looks elsewhere; sched_pass_start_job checks what was chosen.  Backfill
 * plans ahead: it asks whether n could once all it has is free. */
static int bind_possible(struct sched_pass *ps, const struct job *job,
                         const struct sched_req *r, size_t i)
{
	const struct node *n = node_mgr_get(ps->ctld->nodes, i);
	struct gres_use idle;
	const struct gres_use *u = &n->gres_use;
	const uint8_t *core_used = n->core_used;
	uint32_t take[SCHED_GRES_KINDS] = {0};
	uint32_t tasks = r->ntasks_per_node != SCHED_UNSET ? r->ntasks_per_node : 1;
	uint32_t per = sched_task_cpus(r, &ps->snap.nodes[i]);
	uint32_t cpus = per * (tasks ? tasks : 1);

	if (r->num_tasks != SCHED_UNSET && r->min_nodes == 1 && r->max_nodes == 1)
		cpus = r->num_tasks * per;
	if (r->min_cpus > cpus)
		cpus = r->min_cpus;
	if (ps->backfill) {
		idle = n->gres_use;
		memset(idle.alloc, 0, sizeof(idle.alloc));
		memset(idle.used, 0, sizeof(idle.used));
		u = &idle;
		core_used = NULL;
	}
	for (uint32_t w = 0; w < r->ngres; w++) {
		const struct sched_gres_want *g = &r->gres[w];
		uint32_t need = g->per_node   ? g->per_node
		                : g->per_task ? g->per_task * tasks
		                              : !!g->per_job;
		for (uint32_t k = 0; need && k < SCHED_GRES_KINDS; k++) {
			uint32_t avail = u->count[k] - u->alloc[k] - take[k];
			if (!(g->kinds >> k & 1) || u->count[k] < u->alloc[k] + take[k])
				continue;
			avail = avail < need ? avail : need;
			take[k] += avail;
			need -= avail;
		}
	}
	return bind_take_fits(ps->ctld, n, u, core_used, take, job_x(job)->gres_flags,
	                      cpus);
}

/* With --gres-flags=enforce-binding, only the nodes that could bind (r: the
 * job's request, job_req). */
static void mark_bind(struct sched_pass *ps, struct job *job, const struct sched_req *r)
{
	for (size_t i = 0; i < ps->snap.nnodes; i++)
		if (ps->snap.nodes[i].usable && !bind_possible(ps, job, r, i))
			ps->snap.nodes[i].usable = 0;
}

void sched_pass_job(struct sched_pass *ps, struct job *job, struct sched_job *ret)
{
	ret->part = (uint32_t)sched_pass_part_index(ps->ctld, job->part);
	job_req(ps, job, &ret->req);
	ret->req.switches =
	    job_switch_wait(job, ps->max_switch_wait) > ps->now - job->eligible_time
	        ? job_x(job)->req_switch
	        : 0;
	ret->nalts = alternatives(job);
}

/* --gres-flags=enforce-binding: the job's cpus CPUs on n must be free ones
 * near the devices picked (node_gres_bind_fits); when not, it keeps waiting
 * (Resources) and nothing is started. */
static int bind_fits(struct job *job, const struct node *n, const char *picked,
                     uint32_t cpus)
{
	if (!(job_x(job)->gres_flags & GRES_F_ENFORCE_BINDING) ||
	    node_gres_bind_fits(n, picked, cpus))
		return 1;
	sched_pass_set_reason(
	    job, WAIT_RESOURCES,
	    xasprintf("enforce-binding: %u CPUs near its GRES are not free on %s", cpus,
	              n->cfg->name));
	return 0;
}

/* A job with a --deadline runs no longer than to it, as in Slurm: its limit
 * (its partition's when it gave none) cut to the minutes left; 0 when that
 * changes nothing. */
static uint32_t deadline_limit(const struct job *job, time_t now)
{
	uint32_t left;

	if (!job_x(job)->deadline || job_x(job)->deadline <= now)
		return 0;
	left = (uint32_t)((job_x(job)->deadline - now) / 60);
	if (!left || (job->time_limit != INFINITE32 && job->time_limit <= left))
		return 0;
	return left;
}

/* The batch host of job on a's nodes: the first with its --batch features
 * (active ones, as -C's are matched), as Slurm picks it; the first node
 * when it asked none (or, from a reconfiguration since it was placed, none
 * has them). */
static uint32_t batch_pick(struct ctld *ctld, const struct job *job,
                           const struct sched_alloc *a)
{
	const char *batch = job_batch_features(job);

	for (uint32_t i = 0; batch && i < a->nnodes; i++)
		if (batch_feat_match(batch, node_feat_active(node_mgr_get(
		                                ctld->nodes, a->node_idx[i]))))
			return i;
	return 0;
}

int sched_pass_start_job(struct sched_pass *ps, struct job *job,
                         const struct sched_alloc *a)
{
	struct ctld *ctld = ps->ctld;
	struct job *task = job;
	char **names;
	uint32_t *mem32;
	struct ev_start ev = {.time = ps->now};
	int more = 0, boot, reboot;
	uint32_t resv_cut;

	names = xcalloc(a->nnodes + 1, sizeof(char *));
	mem32 = xcalloc(a->nnodes, sizeof(uint32_t));
	for (uint32_t i = 0; i < a->nnodes; i++) {
		const struct node *n = node_mgr_get(ctld->nodes, a->node_idx[i]);
		names[i] = n->cfg->name;
		mem32[i] = (uint32_t)a->mem[i];
		if (a->gres && job_req_has_gres(job)) {
			if (!ev.gres)
				ev.gres = xcalloc(a->nnodes + 1, sizeof(char *));
			ev.gres[i] = gres_pick_near(
			    ctld, n, a->gres + (size_t)i * SCHED_GRES_KINDS,
			    job_x(job)->gres_flags);
			if (!bind_fits(job, n, ev.gres[i], a->cpus[i]))
				goto not_started;
		}
	}
	if (job->array_rem) { /* split the next task off to start it */
		int64_t t = arrayspec_first(job->array_rem);
		task = t < 0 ? NULL : job_array_split(ctld, job, (uint32_t)t);
		if (!task)
			goto not_started;
		more = task != job;
	}
	if (ps->backfill)
		log_info("backfill: starting JobId=%u", task->job_id);
	for (uint32_t i = 0; ev.gres && i < a->nnodes; i++)
		if (!ev.gres[i]) /* a strv ends at its first NULL */
			ev.gres[i] = xstrdup("");
	ev.job_id = task->job_id;
	ev.mcs_select = (uint32_t)mcs_job_keeps_nodes(ctld, task);
	ev.time_limit = deadline_limit(task, ps->now);
	if (job_multi_part(task) && task->part) {
		/* of its list, the partition it starts in: its limit is that
		 * one's when it gave none */
		uint32_t tl = job_limit_in_part(task);
		ev.partition = task->part->cfg->name;
		if (tl != task->time_limit && (!ev.time_limit || tl < ev.time_limit))
			ev.time_limit = tl;
	}
	/* the record the pass placed (an array's, not the task just split off
	 * it) knows which of its reservations it was placed in */
	if ((resv_cut = resv_job_limit(ctld, job, ps->now, a)) &&
	    (!ev.time_limit || resv_cut < ev.time_limit))
		ev.time_limit = resv_cut; /* it ends with its reservation */
	/* of its reservations, the one it starts in */
	if (resv_job_count(job) > 1)
		ev.reservation = (char *)resv_job_name(ctld, job);
	ev.nodes = hostlist_compress(names, a->nnodes);
	ev.batch_node = batch_pick(ctld, task, a);
	ev.cpus_per_node = (struct rota_u32v){a->cpus, a->nnodes};
	ev.tasks_per_node = (struct rota_u32v){a->tasks, a->nnodes};
	ev.mem_per_node = (struct rota_u32v){mem32, a->nnodes};
	/* a batch job is CONFIGURING until its node has run the Prolog */
	if (ctld->conf->prolog && !(task->desc.flags & JOB_F_INTERACTIVE) &&
	    !hetjob_follower(task))
		ev.state = JOB_CONFIGURING;
	/* nodes powered down or booting, or to reboot first (--reboot):
	 * CONFIGURING until they register */
	reboot = power_job_reboots(ctld, task);
	boot = reboot || !power_nodes_ready(ctld, a->node_idx, a->nnodes);
	if (boot)
		ev.state = JOB_CONFIGURING;
	if (ev_start_commit(ctld, &ev) == 0) {
		log_info("JobId=%u started on %s", task->job_id, ev.nodes);
		mail_job(ctld, task, MAIL_BEGIN, task->state, 0, ev.time);
		resv_job_started(ctld, task);
		resv_pass_took(ps->resv, task, a);
		assoc_limits_started(ps->limits, task);
		lic_pool_take(ps->lics, task);
		if (reboot) {
			power_job_reboot(ctld, task);
		} else if (boot) {
			power_job_hold(ctld, task);
		} else if (task->alloc_client) {
			struct alloc_resp r = {.job_id = task->job_id,
			                       .nodes = ev.nodes,
			                       .cpus_per_node = ev.cpus_per_node,
			                       .num_tasks =
			                           job_alloc_tasks(task, a->ntasks),
			                       .partition = job_part_name(task),
			                       .het_env = hetjob_batch_env(ctld, task)};
			job_alloc_granted(ctld, task, &r);
			strv_free(r.het_env);
		} else if (!hetjob_follower(task)) { /* the leader runs the script */
			launch_batch(ctld, task);
		}
	}
	ps->running++;
	free(ev.nodes);
	strv_free(ev.gres);
	free(names);
	free(mem32);
	return more ? SCHED_MORE : SCHED_STARTED;
not_started:
	for (uint32_t i = 0; ev.gres && i < a->nnodes; i++)
		free(ev.gres[i]);
	free(ev.gres);
	free(names);
	free(mem32);
	return -EAGAIN;
}

static char *wait_detail(struct sched_pass *ps, struct job *job,
                         const struct sched_req *r)
{
	uint32_t per_node = r->ntasks_per_node != SCHED_UNSET
	                        ? r->ntasks_per_node * r->cpus_per_task
	                        : r->cpus_per_task;
	size_t fit = 0, exist = 0;

	for (size_t i = 0; i < ps->snap.nnodes; i++) {
		if (!part_has_node(job->part, i))
			continue;
		if (ps->snap.nodes[i].cpus >= per_node)
			exist++;
		if (ps->snap.nodes[i].usable &&
		    ps->snap.nodes[i].cpus > ps->snap.nodes[i].alloc_cpus &&
		    ps->snap.nodes[i].cpus - ps->snap.nodes[i].alloc_cpus >= per_node)
			fit++;
	}
	return xasprintf(
	    "needs %u node%s with %u free CPU%s; %zu such node%s free now, %zu "
	    "exist in partition %s",
	    r->min_nodes, r->min_nodes == 1 ? "" : "s", per_node,
	    per_node == 1 ? "" : "s", fit, fit == 1 ? " is" : "s are", exist,
	    job->part->cfg->name);
}

/* Would the job fit its partition's nodes were they all up (and idle), but
 * not the ones up: some it could use are down, drained, not responding or
 * powering down.  Nodes it cannot use anyway (features, -x, too few CPUs)
 * count for neither. */
static int short_of_up_nodes(struct sched_pass *ps, const struct job *job,
                             const struct sched_req *r)
{
	uint32_t per_node = r->ntasks_per_node != SCHED_UNSET
	                        ? r->ntasks_per_node * r->cpus_per_task
	                        : r->cpus_per_task;
	uint64_t need = (uint64_t)r->min_nodes * per_node, up_cpus = 0, all_cpus = 0;
	size_t up = 0, all = 0;

	if (r->num_tasks != SCHED_UNSET &&
	    (uint64_t)r->num_tasks * r->cpus_per_task > need)
		need = (uint64_t)r->num_tasks * r->cpus_per_task;
	for (size_t i = 0; i < ps->snap.nnodes; i++) {
		const struct node *n = node_mgr_get(ps->ctld->nodes, i);
		uint32_t cpus = ps->snap.nodes[i].cpus;

		/* withheld: kept for a job before it in this pass (Slurm's
		 * "reserved for jobs in higher priority partitions"), but
		 * not from a job of a reservation (sched/pass.c) */
		int held = ps->snap.withheld[i] && !job_x(job)->reservation;

		if (!part_has_node(job->part, i) || cpus < per_node)
			continue;
		if (ps->snap.nodes[i].usable && !held) {
			up++;
			up_cpus += cpus;
		} else if (node_usable(n) && !held) {
			continue; /* up, but not for this job */
		}
		all++;
		all_cpus += cpus;
	}
	return (up < r->min_nodes || up_cpus < need) && all >= r->min_nodes &&
	       all_cpus >= need;
}

/* A job that does not fit now: Resources, or with -w ReqNodeNotAvail naming
 * the requested nodes that are down, drained or not responding. */
static void set_wait_reason(struct sched_pass *ps, struct job *job,
                            const struct sched_req *r)
{
	char **req = NULL, **bad;
	size_t nreq = 0, nbad = 0;

	if (ps->resv_kept && !job->desc.req_nodes) { /* nodes reserved from it */
		sched_pass_set_reason(job,
		                      (ps->resv_kept & RESV_F_MAINT) ? WAIT_RESV_MAINT
		                                                     : WAIT_RESV_OTHER,
		                      wait_detail(ps, job, r));
		return;
	}
	if (!job->desc.req_nodes) {
		sched_pass_set_reason(
		    job, short_of_up_nodes(ps, job, r) ? WAIT_NODES_DOWN : WAIT_RESOURCES,
		    wait_detail(ps, job, r));
		return;
	}
	sched_pass_set_reason(job, WAIT_NODE_NOT_AVAIL, wait_detail(ps, job, r));
	if (hostlist_expand(job->desc.req_nodes, &req, &nreq, NULL) < 0)
		return;
	bad = xcalloc(nreq + 1, sizeof(char *));
	for (size_t k = 0; k < nreq; k++) {
		int idx = node_mgr_find(ps->ctld->nodes, req[k]);
		if (idx >= 0 && !node_usable(node_mgr_get(ps->ctld->nodes, (size_t)idx)))
			bad[nbad++] = req[k];
	}
	if (nbad)
		job_sched_mut(job)->unavail_nodes = hostlist_compress(bad, nbad);
	free(bad);
	hostlist_free(req);
}

/* A task split off before it started (scontrol hold/update of N_T, requeue)
 * still counts against its array's throttle, which lives with the remainder. */
static int task_throttled(struct ctld *ctld, const struct job *job)
{
	const struct job *meta;

	if (!job->array_job_id || job->array_rem)
		return 0;
	meta = job_find(ctld->jobs, job->array_job_id);
	return meta && meta->array_rem && meta->array_rem->throttle &&
	       job_array_running(ctld->jobs, job->array_job_id) >=
	           meta->array_rem->throttle;
}

/* The main pass's questions (src/sched/view.h), for ps->jobs[i]. */
static int main_admit(void *ctx, size_t i, uint32_t *ret_part)
{
	struct sched_pass *ps = ctx;
	struct job *job = ps->jobs[i];
	uint32_t why;

	/* one record of a job that names several partitions: it started from
	 * another, or is tried in this one now */
	if (ps->rec_part && ps->rec_part[i]) {
		if (!job_is_pending(job))
			return SCHED_SKIP;
		if (job->part != ps->rec_part[i])
			job->part = ps->rec_part[i];
	}
	/* and of one that names several reservations */
	if (ps->rec_resv && ps->rec_resv[i]) {
		if (!job_is_pending(job))
			return SCHED_SKIP;
		job_sched_mut(job)->resv_try = ps->rec_resv[i] - 1;
	}
	/* a heterogeneous job's other components start with its leader */
	if (hetjob_follower(job)) {
		const struct job *lead = job_find(ps->ctld->jobs, job_x(job)->het_job_id);
		if (lead && job_is_pending(lead))
			sched_pass_set_reason(job, lead->reason, NULL);
		return SCHED_SKIP;
	}
	if (job_blocked_by_limits(ps->ctld, job, ps->now))
		return SCHED_SKIP;
	/* an association's or QOS's limit holds this job, not the ones after */
	if (!job->array_rem && ((why = assoc_limits_check(ps->limits, job)) ||
	                        (why = lic_pool_check(ps->lics, job)))) {
		sched_pass_set_reason(job, why, NULL);
		return SCHED_SKIP;
	}
	*ret_part = (uint32_t)sched_pass_part_index(ps->ctld, job->part);
	/* a job in a reservation holds no one back, nor is held: its nodes
	 * are not the partition's others' */
	if (job_x(job)->reservation)
		*ret_part = (uint32_t)node_mgr_part_count(ps->ctld->nodes);
	return SCHED_TRY;
}

/* An array's pending remainder starts tasks while they fit and its throttle,
 * limits and (aftercorr) dependencies allow. */
static int array_next(struct sched_pass *ps, size_t i, struct job *meta)
{
	uint32_t throttle = meta->array_rem->throttle, why;
	int64_t t = arrayspec_first(meta->array_rem);

	if (ps->cur != i) {
		ps->cur = i;
		ps->running = job_array_running(ps->ctld->jobs, meta->array_job_id);
	}
	if (throttle && ps->running >= throttle) {
		sched_pass_set_reason(meta, WAIT_ARRAY_TASK_LIMIT, NULL);
		return SCHED_SKIP;
	}
	if ((why = assoc_limits_check(ps->limits, meta)) ||
	    (why = lic_pool_check(ps->lics, meta))) {
		sched_pass_set_reason(meta, why, NULL);
		return SCHED_SKIP;
	}
	/* aftercorr: each task waits for its own counterpart */
	if (t < 0 || depend_test(ps->ctld, meta, (uint32_t)t, ps->now) != DEPEND_OK) {
		sched_pass_set_reason(meta, WAIT_DEPENDENCY, NULL);
		return SCHED_SKIP;
	}
	return SCHED_TRY;
}

static int main_next(void *ctx, size_t i, struct sched_job *ret)
{
	struct sched_pass *ps = ctx;
	struct job *job = ps->jobs[i];

	if (job->array_rem) {
		if (array_next(ps, i, job) != SCHED_TRY)
			return SCHED_SKIP;
	} else if (task_throttled(ps->ctld, job)) {
		sched_pass_set_reason(job, WAIT_ARRAY_TASK_LIMIT, NULL);
		return SCHED_SKIP;
	}
	sched_pass_job(ps, job, ret);
	return SCHED_TRY;
}

static void main_mark(void *ctx, size_t i, size_t alt, struct sched_node *nodes)
{
	struct sched_pass *ps = ctx;

	(void)nodes; /* ps->snap.nodes */
	sched_pass_mark_nodes(ps, ps->jobs[i], alt);
}

static int main_start(void *ctx, size_t i, const struct sched_alloc *a)
{
	struct sched_pass *ps = ctx;

	if (job_x(ps->jobs[i])->het_job_id)
		return hetjob_start(ps, ps->jobs[i], a);
	return sched_pass_start_job(ps, ps->jobs[i], a);
}

static void main_wait(void *ctx, size_t i, enum sched_wait why,
                      const struct sched_job *job)
{
	struct sched_pass *ps = ctx;

	if (why == SCHED_WAIT_PRIORITY) {
		sched_pass_set_reason(ps->jobs[i], WAIT_PRIORITY, NULL);
	} else {
		set_wait_reason(ps, ps->jobs[i], &job->req);
		preempt_for(ps, ps->jobs[i], job);
	}
}

static const struct sched_ops main_ops = {
    .admit = main_admit,
    .next = main_next,
    .mark = main_mark,
    .start = main_start,
    .wait = main_wait,
};

/* priority/multifactor: each pending job's priority follows its factors, except
 * where an admin set it.  Derived state, so not journaled: every pass and every
 * restart computes it again. */
static void recompute_priorities(struct ctld *ctld, struct job **pending, size_t n,
                                 time_t now)
{
	struct priority_params pp;
	struct priority_factors f;

	job_priority_params(ctld, &pp);
	if (pp.type != PRIORITY_MULTIFACTOR)
		return;
	for (size_t i = 0; i < n; i++) {
		if (pending[i]->prio_set || !pending[i]->priority)
			continue;
		job_priority_factors(ctld, &pp, pending[i], NULL, now, &f);
		if (pending[i]->priority != f.priority)
			pending[i]->priority = f.priority;
	}
}

void sched_pass_init(struct sched_pass *ps, struct ctld *ctld)
{
	size_t nparts = node_mgr_part_count(ctld->nodes);
	struct sched_snap *s = &ps->snap;

	memset(ps, 0, sizeof(*ps));
	ps->ctld = ctld;
	ps->cur = SIZE_MAX;
	ps->limits = assoc_limits_begin(ctld);
	ps->lics = lic_pool_begin(ctld);
	ps->resv = resv_pass_begin(ctld);
	if (sched_snap_init(s, node_mgr_count(ctld->nodes), nparts) < 0)
		fatal("out of memory");
	s->mem_consumable = conf_mem_consumable(ctld->conf);
	s->topo = ctld_topo_view(ctld->topo);
	if (s->topo) {
		struct sched_params sp;
		sched_params_parse(ctld->conf->scheduler_params, &sp);
		ps->max_switch_wait = sp.max_switch_wait;
	}
	for (size_t i = 0; i < s->nnodes; i++) {
		struct node *nd = node_mgr_get(ctld->nodes, i);
		s->nodes[i].cpus = nd->cpus;
		s->nodes[i].alloc_cpus = nd->alloc_cpus;
		s->nodes[i].mem = nd->mem;
		s->nodes[i].alloc_mem = s->mem_consumable ? nd->alloc_mem : 0;
		s->nodes[i].weight = nd->cfg->weight;
		s->nodes[i].shared_cpus = nd->shared_cpus;
		s->nodes[i].sockets = nd->sockets;
		s->nodes[i].cores = nd->cores;
		s->nodes[i].threads = node_cpu_threads(nd);
		memcpy(s->nodes[i].gres, nd->gres_use.count, sizeof(s->nodes[i].gres));
		memcpy(s->nodes[i].gres_alloc, nd->gres_use.alloc,
		       sizeof(s->nodes[i].gres_alloc));
	}
	ps->parts = xcalloc(nparts + 1, sizeof(*ps->parts));
	for (size_t i = 0; i < nparts; i++) {
		const struct part *p = node_mgr_part(ctld->nodes, i);
		ps->parts[i] = (struct sched_group){p->node_idx, p->nnodes};
	}
	s->parts = ps->parts;
}

void sched_pass_release(struct sched_pass *ps)
{
	assoc_limits_end(ps->limits);
	ps->limits = NULL;
	lic_pool_end(ps->lics);
	resv_pass_end(ps->resv);
	ps->lics = NULL;
	sched_snap_release(&ps->snap);
	free(ps->parts);
	ps->parts = NULL;
}

/* Put the waiting list in scheduling order; pending[0..n) is all of it and is
 * rewritten in that order. */
static void sort_waiting(struct ctld *ctld, struct job **pending, size_t n)
{
	struct prio_key *keys = xcalloc(n, sizeof(*keys));

	for (size_t i = 0; i < n; i++) {
		struct job *j = pending[i];
		keys[i] = (struct prio_key){
		    .key = (uint64_t)j->part->cfg->priority_tier << 32 | j->priority,
		    .job_id = j->job_id,
		    .job = j};
	}
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (size_t i = 0; i < n; i++)
		pending[i] = keys[i].job;
	free(keys);
	job_waiting_reorder(ctld->jobs, pending, n);
}

/* A waiting job's place under sched_order=saf_aged. */
struct saf_key {
	uint32_t tier;
	double key;
	uint32_t job_id;
	struct job *job;
};

static int cmp_saf(const void *a, const void *b)
{
	const struct saf_key *x = a, *y = b;

	if (x->tier != y->tier)
		return x->tier > y->tier ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/* The CPUs a waiting job asks for at least: its tasks' CPUs, a CPU on each
 * of its nodes. */
static int64_t job_min_cpus(const struct job *job)
{
	uint32_t t = job->desc.num_tasks, c = job->desc.cpus_per_task;
	int64_t cpus = (t && t != NO_VAL ? t : 1) * (int64_t)(c && c != NO_VAL ? c : 1);

	return cpus > job_min_nodes(job) ? cpus : job_min_nodes(job);
}

/* sched_order=saf_aged: pending[0..n) rewritten in PriorityTier order, then
 * smallest estimated area first with aged jobs before all
 * (policy_saf_aged_key).  The key moves with time, so this pass's order is
 * its own: the waiting list (squeue's order) stays by priority. */
static void sort_saf_aged(struct ctld *ctld, const struct sched_params *sp,
                          struct job **pending, size_t n, time_t now)
{
	struct saf_key *keys = xcalloc(n, sizeof(*keys));

	for (size_t i = 0; i < n; i++) {
		struct job *j = pending[i];
		int64_t est = backfill_job_estimate(ctld, sp, j);
		keys[i] = (struct saf_key){
		    .tier = j->part->cfg->priority_tier,
		    .key = policy_saf_aged_key(est, job_min_cpus(j), j->submit_time, now),
		    .job_id = j->job_id,
		    .job = j};
	}
	qsort(keys, n, sizeof(*keys), cmp_saf);
	for (size_t i = 0; i < n; i++)
		pending[i] = keys[i].job;
	free(keys);
}

static int in_order(struct job **pending, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (job_prio_cmp(pending[i - 1], pending[i]) > 0)
			return 0;
	return 1;
}

/* Room for n job pointers, kept from pass to pass: a pass a second over a
 * deep queue does not map and unmap its list each time (an unmapping flushes
 * the TLB).  Made twice what is needed, so that a growing queue does not
 * remake it each pass; given back when it is four times what is needed. */
static struct job **pass_jobs(struct ctld *ctld, size_t n)
{
	if (n < 1024)
		n = 1024;
	if (n > ctld->pass_jobs_cap || ctld->pass_jobs_cap / 4 > n) {
		free(ctld->pass_jobs);
		ctld->pass_jobs_cap = 2 * n;
		ctld->pass_jobs = xcalloc(ctld->pass_jobs_cap, sizeof(struct job *));
	}
	return ctld->pass_jobs;
}

void sched_pass(struct ctld *ctld, time_t now, unsigned flags)
{
	struct sched_pass ps;
	struct sched_params sp;
	int full = (flags & SCHED_PASS_FULL) != 0;
	int all;
	size_t n = 0, cap = job_waiting_count(ctld->jobs), depth, considered = 0;
	struct job **pending;
	struct sched_qrec *recs;
	size_t nrecs = 0;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	sched_params_parse(ctld->conf->scheduler_params, &sp);
	/* every waiting job is needed to sort them or to start a backfill run */
	all = full || !job_waiting_sorted(ctld->jobs) || backfill_due(ctld, &sp, now) ||
	      sp.sched_order == SCHED_ORDER_SAF_AGED;
	depth = full ? cap : sp.default_queue_depth;
	if (!all && cap > depth)
		cap = depth;
	pending = pass_jobs(ctld, cap);
	/* the pending jobs in a partition and not held (held ones show their
	 * reason from the hold itself: job_event.c) */
	for (struct job *j = job_first_waiting(ctld->jobs); j && n < cap; j = j->lnext)
		pending[n++] = j;
	if (!n)
		goto out;
	if (full)
		recompute_priorities(ctld, pending, n, now);
	if (all && (!job_waiting_sorted(ctld->jobs) || !in_order(pending, n)))
		sort_waiting(ctld, pending, n);
	if (sp.sched_order == SCHED_ORDER_SAF_AGED)
		sort_saf_aged(ctld, &sp, pending, n, now);
	sched_pass_init(&ps, ctld);
	ps.jobs = pending;
	ps.now = now;
	if ((recs = sched_pass_queue(ctld, pending, n, &nrecs))) {
		/* -p a,b: a record per partition (sched/queue.h) */
		ps.jobs = xcalloc(nrecs, sizeof(*ps.jobs));
		ps.rec_part = xcalloc(nrecs, sizeof(*ps.rec_part));
		ps.rec_resv = xcalloc(nrecs, sizeof(*ps.rec_resv));
		for (size_t k = 0; k < nrecs; k++) {
			struct job *j = pending[recs[k].job];
			ps.jobs[k] = j;
			if (resv_job_count(j) > 1 && !hetjob_follower(j))
				ps.rec_resv[k] = recs[k].resv + 1;
			if (job_multi_part(j) &&
			    sched_pass_use_part(ctld, j, recs[k].at) == 0)
				ps.rec_part[k] = j->part;
		}
		for (size_t k = 0; k < nrecs; k++)
			sched_pass_part_reset(ctld, ps.jobs[k]);
	}
	considered =
	    sched_main_pass(&ps.snap, &main_ops, &ps, recs ? nrecs : n,
	                    &(struct sched_pass_opts){.depth = depth, .full = full});
	if (recs) {
		/* a job still waiting shows the first of its list again (its
		 * reason is the last partition's it was tried in) */
		for (size_t k = 0; k < nrecs; k++) {
			sched_pass_part_reset(ctld, ps.jobs[k]);
			if (ps.rec_resv[k] && ps.jobs[k]->sched)
				ps.jobs[k]->sched->resv_try = 0;
		}
		free(ps.jobs);
		free(ps.rec_part);
		free(ps.rec_resv);
		free(recs);
	}
	sched_pass_release(&ps);
	if (all)
		backfill_pass(ctld, &sp, pending, n, now);
out:
	if (ctld->stats)
		stats_sched(ctld->stats, stats_usec_since(&t0), (uint32_t)considered,
		            (uint32_t)n);
}
