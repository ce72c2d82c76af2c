/* job_mgr.c - the job table and the requests that create or read jobs. */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/arrayspec.h"
#include "common/batch_feat.h"
#include "common/constraint.h"
#include "common/conf.h"
#include "common/gres.h"
#include "common/gres_req.h"
#include "common/hostlist.h"
#include "common/seqfile.h"
#include "common/slab.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "ctld/assoc.h"
#include "ctld/assoc_limits.h"
#include "ctld/licenses.h"
#include "ctld/resv.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"
#include "ctld/ctld.h"
#include "common/intern.h"
#include "ctld/depend.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/mcs_label.h"
#include "ctld/journal.h"
#include "ctld/node_mgr.h"
#include "ctld/node_feat.h"
#include "ctld/part_access.h"
#include "ctld/part_mem.h"
#include "ctld/sched_pass.h"
#include "ctld/owner.h"
#include "sched/select.h"
#include "sched/priority.h"
#include "common/common.h"

#define SCRIPT_MAX (4u << 20)
#define ENV_MAX    (1u << 16) /* entries */
#define ARGV_MAX   (1u << 14)
#define ID_BLOCK   1000u /* job ids reserved per write of the high-water mark */
/* Jobs a newly waiting job is walked past, from the end, to its place. */
#define WAIT_INSERT_WALK 64

struct job_mgr {
	struct job **hash;
	size_t hsize;
	size_t count;
	struct job *head, *tail;
	struct job *ahead, *atail; /* job_first_active */
	struct job *whead, *wtail; /* job_first_waiting */
	size_t nwaiting;           /* ... how many */
	int wunsorted;             /* ... not in job_prio_cmp order */
	uint32_t next_id;
	char *hwm_path;       /* StateSaveLocation/job_id_hwm */
	struct seqfile *hwm;  /* NULL until opened (retried when it fails) */
	uint32_t reserved;    /* ids below this are covered by the stored mark */
	struct intern *texts; /* the jobs' scripts and environments, once each */
	struct slab *slab;    /* the job records */
	struct owner_table *owners;
};

int job_mgr_create(struct ctld *ctld, struct job_mgr **ret)
{
	struct job_mgr *jm = xcalloc(1, sizeof(*jm));
	jm->hsize = 1 << 16;
	jm->hash = xcalloc(jm->hsize, sizeof(struct job *));
	jm->next_id = ctld->conf->first_job_id ? ctld->conf->first_job_id : 1;
	jm->texts = intern_create();
	jm->owners = owner_table_create(jm->texts);
	jm->slab = slab_create(sizeof(struct job));
	if (!jm->slab)
		fatal("job table: %s", strerror(ENOMEM));
	*ret = jm;
	return 0;
}

const struct job_run job_run_none = {0}; /* initialized: read-only memory */

struct job_run *job_run_mut(struct job *job)
{
	if (job->run == &job_run_none)
		job->run = xcalloc(1, sizeof(struct job_run));
	return (struct job_run *)job->run;
}

struct job_sched *job_sched_mut(struct job *job)
{
	if (!job->sched)
		job->sched = xcalloc(1, sizeof(struct job_sched));
	return job->sched;
}

static void run_free(const struct job_run *run)
{
	if (run == &job_run_none)
		return;
	free(run->node_idx);
	free(run->cpus);
	free(run->tasks);
	for (uint32_t i = 0; run->cores && i < run->nnodes; i++)
		free(run->cores[i]);
	free(run->cores);
	for (uint32_t i = 0; run->gres && i < run->nnodes; i++)
		free(run->gres[i]);
	free(run->gres);
	free(run->held);
	free(run->mem);
	free(run->nodes_str);
	free(run->resv);
	free((void *)run);
}

void job_run_clear(struct job *job)
{
	step_free_all(job);
	run_free(job->run);
	job->run = &job_run_none;
}

void job_sched_clear(struct job *job)
{
	struct job_sched *s = job->sched;

	if (!s)
		return;
	free(s->sched_nodes);
	free(s->unavail_nodes);
	free(s->reason_detail);
	constraint_destroy(s->constraint);
	constraint_destroy(s->prefer);
	free(s->req);
	free(s);
	job->sched = NULL;
}

void job_clear_plan(struct job *job)
{
	if (!job->sched)
		return;
	job->sched->est_start = 0;
	free(job->sched->sched_nodes);
	job->sched->sched_nodes = NULL;
}

/* Every string and string vector of a request: most are alike from job to
 * job (the environment, the script, the name, partition, directory, paths,
 * submit host). */
void job_desc_share(struct job_mgr *jm, struct job_desc *d)
{
	for (size_t i = 0; i < job_desc_type.nfields; i++) {
		const struct rota_field *f = &job_desc_type.fields[i];
		char *p = codec_field_if(f, d);

		if (!p)
			continue;
		if (f->kind == FK_STR)
			*(char **)p = intern_str(jm->texts, *(char **)p);
		else if (f->kind == FK_STRV)
			*(char ***)p = intern_strv(jm->texts, *(char ***)p);
	}
}

void job_desc_unshare(struct job_mgr *jm, struct job_desc *d)
{
	for (size_t i = 0; i < job_desc_type.nfields; i++) {
		const struct rota_field *f = &job_desc_type.fields[i];
		char *p = codec_field_if(f, d);

		if (!p)
			continue;
		if (f->kind == FK_STR)
			intern_drop_str(jm->texts, *(char **)p);
		else if (f->kind == FK_STRV)
			intern_drop_strv(jm->texts, *(char ***)p);
		else
			continue;
		*(void **)p = NULL;
	}
}

void job_owner_set(struct job_mgr *jm, struct job *job, uid_t uid, gid_t gid, char *user,
                   char *group)
{
	owner_drop(jm->owners, job->owner);
	job->owner = owner_get(jm->owners, uid, gid, user, group);
}

void job_owner_share(struct job *job, const struct job *from)
{
	job->owner = owner_ref(from->owner);
}

void job_owner_use(struct job_mgr *jm, struct job *job, const struct owner *o)
{
	const struct owner *old = job->owner;

	job->owner = owner_ref(o);
	owner_drop(jm->owners, old);
}

const struct owner *job_mgr_owner_get(struct job_mgr *jm, uid_t uid, gid_t gid,
                                      char *user, char *group)
{
	return owner_get(jm->owners, uid, gid, user, group);
}

void job_mgr_owner_drop(struct job_mgr *jm, const struct owner *o)
{
	owner_drop(jm->owners, o);
}

struct intern *job_mgr_texts(struct job_mgr *jm)
{
	return jm->texts;
}

static void job_free(struct job_mgr *jm, struct job *job)
{
	job_desc_unshare(jm, &job->desc);
	codec_release(&job_desc_type, &job->desc);
	owner_drop(jm->owners, job->owner);
	arrayspec_release(job->array_rem);
	free(job->array_rem);
	job_sched_clear(job);
	job_run_clear(job);
	slab_free(jm->slab, job);
}

void job_mgr_destroy(struct job_mgr *jm)
{
	if (!jm)
		return;
	seqfile_destroy(jm->hwm);
	free(jm->hwm_path);
	for (struct job *j = jm->head, *n; j; j = n) {
		n = j->next;
		chan_unref(j->alloc_client);
		job_free(jm, j);
	}
	owner_table_destroy(jm->owners);
	intern_destroy(jm->texts);
	slab_destroy(jm->slab);
	free(jm->hash);
	free(jm);
}

struct job *job_find(struct job_mgr *jm, uint32_t job_id)
{
	for (struct job *j = jm->hash[job_id & (jm->hsize - 1)]; j; j = j->hnext)
		if (j->job_id == job_id)
			return j;
	return NULL;
}

struct job *job_first(struct job_mgr *jm)
{
	return jm->head;
}

struct job *job_first_active(struct job_mgr *jm)
{
	return jm->ahead;
}

struct job *job_first_waiting(struct job_mgr *jm)
{
	return jm->whead;
}

size_t job_waiting_count(const struct job_mgr *jm)
{
	return jm->nwaiting;
}

int job_waiting_sorted(const struct job_mgr *jm)
{
	return !jm->wunsorted;
}

void job_waiting_reorder(struct job_mgr *jm, struct job **order, size_t n)
{
	jm->whead = jm->wtail = NULL;
	for (size_t i = 0; i < n; i++) {
		struct job *j = order[i];
		j->lprev = jm->wtail;
		j->lnext = NULL;
		if (jm->wtail)
			jm->wtail->lnext = j;
		else
			jm->whead = j;
		jm->wtail = j;
	}
	jm->wunsorted = 0;
}

int job_prio_cmp(const struct job *x, const struct job *y)
{
	uint32_t tx = x->part->cfg->priority_tier, ty = y->part->cfg->priority_tier;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/* Is j out of order with its neighbours on the waiting list? */
static int wait_misplaced(const struct job *j)
{
	return (j->lprev && job_prio_cmp(j->lprev, j) > 0) ||
	       (j->lnext && job_prio_cmp(j, j->lnext) > 0);
}

/* Link j after `after` (NULL: first) on the list head..tail. */
static void list_link(struct job **head, struct job **tail, struct job *after,
                      struct job *j)
{
	j->lprev = after;
	j->lnext = after ? after->lnext : *head;
	if (j->lnext)
		j->lnext->lprev = j;
	else
		*tail = j;
	if (after)
		after->lnext = j;
	else
		*head = j;
}

static void list_unlink(struct job **head, struct job **tail, struct job *j)
{
	if (j->lprev)
		j->lprev->lnext = j->lnext;
	else
		*head = j->lnext;
	if (j->lnext)
		j->lnext->lprev = j->lprev;
	else
		*tail = j->lprev;
	j->lnext = j->lprev = NULL;
}

/* Where a new waiting job goes: in its place when that is near the end (a
 * new job usually goes last), else last and the list marked unsorted (a bulk
 * release is sorted once, by the next pass). */
static struct job *wait_after(struct job_mgr *jm, const struct job *j)
{
	struct job *after = jm->wtail;
	int steps = 0;

	while (after && job_prio_cmp(after, j) > 0 && steps++ < WAIT_INSERT_WALK)
		after = after->lprev;
	if (after && job_prio_cmp(after, j) > 0) {
		jm->wunsorted = 1;
		after = jm->wtail;
	}
	return after;
}

/* Move j to list `on` (enum job_list_on): a job is on one list at most. */
static void list_set(struct job_mgr *jm, struct job *j, uint8_t on)
{
	if (on == j->on_list) {
		/* its priority or partition may have changed */
		if (on == JOB_ON_WAITING && !jm->wunsorted && wait_misplaced(j))
			jm->wunsorted = 1;
		return;
	}
	if (j->on_list == JOB_ON_ACTIVE)
		list_unlink(&jm->ahead, &jm->atail, j);
	else if (j->on_list == JOB_ON_WAITING) {
		list_unlink(&jm->whead, &jm->wtail, j);
		jm->nwaiting--;
	}
	if (on == JOB_ON_ACTIVE) {
		list_link(&jm->ahead, &jm->atail, jm->atail, j);
	} else if (on == JOB_ON_WAITING) {
		list_link(&jm->whead, &jm->wtail, wait_after(jm, j), j);
		jm->nwaiting++;
	}
	j->on_list = on;
}

void job_mgr_classify(struct job_mgr *jm, struct job *job)
{
	if (!job_is_pending(job))
		list_set(jm, job, JOB_ON_ACTIVE);
	else if (!job->hold && job->part)
		list_set(jm, job, JOB_ON_WAITING);
	else
		list_set(jm, job, JOB_ON_NONE);
}

size_t job_count(const struct job_mgr *jm)
{
	return jm->count;
}

uint32_t job_mgr_next_id(struct job_mgr *jm)
{
	return jm->next_id;
}

void job_mgr_set_next_id(struct job_mgr *jm, uint32_t id)
{
	jm->next_id = id;
}

/* Open the high-water-mark file; *ret_value: what it holds. */
static int hwm_open(struct job_mgr *jm, uint64_t *ret_value)
{
	struct rota_error err = {""};

	if (seqfile_open(jm->hwm_path, &jm->hwm, ret_value, &err) < 0) {
		log_err("job id high-water mark: %s", err.text);
		return -1;
	}
	return 0;
}

void job_mgr_id_restore(struct ctld *ctld, const char *lost)
{
	struct job_mgr *jm = ctld->jobs;
	uint64_t stored = 0;

	free(jm->hwm_path);
	jm->hwm_path = xasprintf("%s/job_id_hwm", ctld->conf->state_save_location);
	/* again (a backup taking over): the file is read afresh */
	seqfile_destroy(jm->hwm);
	jm->hwm = NULL;
	if (hwm_open(jm, &stored) < 0)
		stored = 0;
	if (stored > UINT32_MAX)
		stored = UINT32_MAX;
	if (lost && stored > jm->next_id) {
		log_warn("%s: next job id raised from %u to %u, above every id that may "
		         "have been handed out",
		         lost, jm->next_id, (uint32_t)stored);
		jm->next_id = (uint32_t)stored;
	}
	jm->reserved = stored > jm->next_id ? (uint32_t)stored : jm->next_id;
}

/* Make sure id is below the stored high-water mark (a write and fdatasync
 * every ID_BLOCK ids).  Returns 0 or -errno. */
static int hwm_cover(struct job_mgr *jm, uint32_t id)
{
	uint64_t stored, want = (uint64_t)id + ID_BLOCK;
	int rc;

	if (id < jm->reserved || !jm->hwm_path)
		return 0;
	if (!jm->hwm && hwm_open(jm, &stored) < 0)
		return -EIO;
	if ((rc = seqfile_store(jm->hwm, want)) < 0) {
		log_err("job id high-water mark %s: %s", jm->hwm_path, strerror(-rc));
		return rc;
	}
	jm->reserved = want > UINT32_MAX ? UINT32_MAX : (uint32_t)want;
	return 0;
}

struct job *job_mgr_insert(struct job_mgr *jm, uint32_t job_id)
{
	struct job *j = slab_alloc(jm->slab);
	size_t h = job_id & (jm->hsize - 1);

	if (!j)
		fatal("job table: %s", strerror(ENOMEM));
	j->job_id = job_id;
	j->run = &job_run_none;
	j->hnext = jm->hash[h];
	jm->hash[h] = j;
	j->prev = jm->tail;
	if (jm->tail)
		jm->tail->next = j;
	else
		jm->head = j;
	jm->tail = j;
	jm->count++;
	return j;
}

void job_mgr_remove(struct job_mgr *jm, struct job *job)
{
	struct job **pp = &jm->hash[job->job_id & (jm->hsize - 1)];

	while (*pp && *pp != job)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = job->hnext;
	if (job->prev)
		job->prev->next = job->next;
	else
		jm->head = job->next;
	if (job->next)
		job->next->prev = job->prev;
	else
		jm->tail = job->prev;
	list_set(jm, job, JOB_ON_NONE);
	jm->count--;
	if (job->alloc_client)
		chan_unref(job->alloc_client);
	job_free(jm, job);
}

int job_is_pending(const struct job *job)
{
	return (job->state & JOB_STATE_BASE) == JOB_PENDING;
}

int job_is_running(const struct job *job)
{
	return (job->state & JOB_STATE_BASE) == JOB_RUNNING;
}

int job_is_finished(const struct job *job)
{
	return (job->state & JOB_STATE_BASE) >= JOB_COMPLETE;
}

/* ---- submission ---- */

struct submit_reply {
	struct ctld *ctld;
	struct chan *client;
	uint32_t job_id;
	int alloc;
};

/* The journal could not record the submission: it is refused, and the job
 * goes (never acknowledged, so no one knows its id). */
static void submit_failed(struct submit_reply *r, int rc)
{
	struct job *job = job_find(r->ctld->jobs, r->job_id);

	log_err("JobId=%u refused: its record cannot be written (%s)", r->job_id,
	        strerror(-rc));
	if (job && job_is_pending(job)) {
		if (r->alloc && r->client->alloc_job_id == r->job_id)
			r->client->alloc_job_id = 0;
		job_mgr_remove(r->ctld->jobs, job);
	} else if (job && !job_is_finished(job)) {
		job_end(r->ctld, job, JOB_CANCELLED, 0, 0);
	}
	chan_send_rc(r->client, -ESLURM_WRITING_TO_FILE, NULL);
}

/* Why an allocation request waits when Slurm tells srun/salloc so at once
 * (the codes its controller answers a queued request with); NULL for a
 * plain wait. */
static const char *alloc_pending_why(const struct job *job)
{
	switch (job->reason) {
	case WAIT_PART_DOWN:
		return slurm_strerror(ESLURM_PARTITION_DOWN);
	case WAIT_HELD:
	case WAIT_HELD_USER:
		return slurm_strerror(ESLURM_JOB_HELD);
	case WAIT_NODE_NOT_AVAIL:
	case WAIT_NODES_DOWN:
	case WAIT_RESV_MAINT:
	case WAIT_RESV_OTHER:
		return slurm_strerror(ESLURM_NODE_NOT_AVAIL);
	case WAIT_PART_NODE_LIMIT:
	case WAIT_PART_TIME_LIMIT:
	case WAIT_PN_MEM_LIMIT:
		return slurm_strerror(ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE);
	case WAIT_RESERVATION:
		return slurm_strerror(ESLURM_RESERVATION_NOT_USABLE);
	default:
		return NULL;
	}
}

void job_mgr_alloc_recorded(struct ctld *ctld, uint32_t job_id, struct chan *client)
{
	struct job *job = job_find(ctld->jobs, job_id);

	if (!job || !job_is_pending(job))
		return;
	/* try at once, so that "queued and waiting" is only said when true */
	sched_pass(ctld, time(NULL), 0);
	if (job_is_pending(job)) {
		struct submit_resp resp = {.job_id = job_id,
		                           .msg = (char *)alloc_pending_why(job)};
		chan_send(client, MSG_ALLOC_PENDING, &resp);
	}
}

static void submit_durable(void *arg, int rc)
{
	struct submit_reply *r = arg;

	if (rc < 0) {
		submit_failed(r, rc);
	} else if (!r->alloc) {
		struct submit_resp resp = {.job_id = r->job_id};
		chan_send(r->client, MSG_SUBMIT_RESP, &resp);
	} else {
		job_mgr_alloc_recorded(r->ctld, r->job_id, r->client);
	}
	ctld_sched_kick(r->ctld);
	chan_unref(r->client);
	free(r);
}

int job_desc_req(const struct gres_kinds *gk, const struct job_desc *d,
                 struct sched_req *r, struct rota_error *err)
{
	const struct job_desc_ext *x = job_desc_X(d);
	*r = (struct sched_req){
	    .min_nodes = d->min_nodes == NO_VAL ? 1 : d->min_nodes,
	    .max_nodes = d->max_nodes == NO_VAL ? SCHED_UNSET : d->max_nodes,
	    .num_tasks = d->num_tasks == NO_VAL ? SCHED_UNSET : d->num_tasks,
	    .ntasks_per_node =
	        d->ntasks_per_node == NO_VAL ? SCHED_UNSET : d->ntasks_per_node,
	    .cpus_per_task = d->cpus_per_task == NO_VAL ? 1 : d->cpus_per_task,
	    .mem_per_node = d->mem_per_node == NO_VAL64 ? 0 : d->mem_per_node,
	    .mem_per_cpu = d->mem_per_cpu == NO_VAL64 ? 0 : d->mem_per_cpu,
	    .exclusive = !!(d->flags & JOB_F_EXCLUSIVE),
	    .min_cpus = d->pn_min_cpus == NO_VAL ? 0 : d->pn_min_cpus,
	    .spread = !!(d->flags & JOB_F_SPREAD),
	    .contiguous = !!(d->flags & JOB_F_CONTIGUOUS),
	    .most_nodes = d->max_nodes != NO_VAL && d->min_nodes != NO_VAL &&
	                  d->max_nodes > d->min_nodes &&
	                  !(d->flags & JOB_F_USE_MIN_NODES),
	    .threads_per_core = x->threads_per_core,
	    .ntasks_per_core = x->ntasks_per_core,
	    .ntasks_per_socket = x->ntasks_per_socket,
	};
	/* -O: CPUs as if one task a node (cpus_per_task each) */
	if (d->flags & JOB_F_OVERCOMMIT)
		r->num_tasks = r->ntasks_per_node = SCHED_UNSET;
	if (!x->gres && !x->gpus && !x->gpus_per_node && !x->gpus_per_task &&
	    !x->gpus_per_socket)
		return 0;
	return gres_use_wants(gk, d, r, err);
}

/* The --batch of a request that runs a script (job_batch_features), or
 * NULL. */
static const char *desc_batch_features(const struct job_desc *d)
{
	return d->flags & JOB_F_INTERACTIVE ? NULL : job_desc_X(d)->batch_features;
}

/* sbatch --batch: every name one of -C's (cons, NULL: none given) and a
 * node of p that has them all, else Slurm's ESLURM_BATCH_CONSTRAINT. */
static int job_desc_batch(struct ctld *ctld, const struct part *p,
                          const struct job_desc *d, const struct constraint *cons)
{
	const char *batch = desc_batch_features(d);

	if (!batch)
		return 0;
	if (batch_feat_check(batch, cons) < 0) {
		log_info("submit rejected: --batch \"%s\" is not a subset of -C \"%s\"",
		         batch, d->features ? d->features : "");
		return -ESLURM_BATCH_CONSTRAINT;
	}
	for (size_t i = 0; i < p->nnodes; i++)
		if (batch_feat_match(batch, node_feat_avail(node_mgr_get(
		                                ctld->nodes, p->node_idx[i]))))
			return 0;
	log_info("submit rejected: no node of partition %s has --batch features %s",
	         p->cfg->name, batch);
	return -ESLURM_BATCH_CONSTRAINT;
}

/* Could the request ever run in the partition (every node idle and up, with
 * the features of some alternative of the constraint cons, which may be
 * NULL, and a node with its --batch features)? */
static int job_desc_fits(struct ctld *ctld, const struct part *p,
                         const struct job_desc *d, const struct constraint *cons)
{
	const struct job_desc_ext *x = job_desc_X(d);
	struct sched_node *nodes = xcalloc(p->nnodes + 1, sizeof(*nodes));
	uint32_t *u32 = xcalloc(3 * (p->nnodes + 1), sizeof(uint32_t));
	uint64_t *mem = xcalloc(p->nnodes + 1, sizeof(uint64_t));
	struct sched_alloc out = {.node_idx = u32,
	                          .cpus = u32 + p->nnodes + 1,
	                          .tasks = u32 + 2 * (p->nnodes + 1),
	                          .mem = mem};
	struct sched_req req;
	size_t alts = cons ? constraint_alternatives(cons) : 1;
	const char *batch = desc_batch_features(d);
	int rc = -EINVAL;

	/* GRES checked by job_desc_gres before */
	if (job_desc_req(node_mgr_gres_kinds(ctld->nodes), d, &req, NULL) < 0)
		alts = 0;
	sched_pass_part_req(ctld->conf, p, &req);
	sched_pass_feat_req(cons, batch, &req);

	for (size_t alt = 0; alt < alts && rc == -EINVAL; alt++) {
		for (size_t i = 0; i < p->nnodes; i++) {
			struct node *n = node_mgr_get(ctld->nodes, p->node_idx[i]);
			nodes[i].cpus = n->cpus;
			nodes[i].mem = n->mem;
			nodes[i].sockets = n->sockets;
			nodes[i].cores = n->cores;
			nodes[i].threads = node_cpu_threads(n);
			nodes[i].feat =
			    sched_pass_feat_bits(cons, batch, node_feat_avail(n));
			nodes[i].usable =
			    (!cons || constraint_match(cons, alt, node_feat_avail(n))) &&
			    node_layout_fits(n, x) && node_tmp_disk(n) >= x->pn_min_tmp;
			memcpy(nodes[i].gres, n->gres_use.count, sizeof(nodes[i].gres));
		}
		rc = sched_select(nodes, p->nnodes, &req, &out);
	}
	free(nodes);
	free(u32);
	free(mem);
	return rc == -EINVAL ? -1 : 0;
}

/* Parse -C (or --prefer) text into *ret (NULL when none): a malformed
 * expression, or a feature that no node of the partition has, is
 * ESLURM_INVALID_FEATURE. */
static int job_desc_constraint(struct ctld *ctld, const struct part *p, const char *text,
                               struct constraint **ret)
{
	struct rota_error err = {{0}};
	struct constraint *c = NULL;
	const char *const *names;
	size_t nnames;

	*ret = NULL;
	if (!text)
		return 0;
	if (constraint_parse(text, &c, &err) < 0) {
		log_info("submit rejected: constraint \"%s\": %s", text, err.text);
		return -ESLURM_INVALID_FEATURE;
	}
	nnames = constraint_names(c, &names);
	for (size_t k = 0; k < nnames; k++) {
		size_t i;
		for (i = 0; i < p->nnodes; i++)
			if (feature_list_has(node_feat_avail(node_mgr_get(
			                         ctld->nodes, p->node_idx[i])),
			                     names[k]))
				break;
		if (i == p->nnodes) {
			log_info("submit rejected: no node of partition %s has feature "
			         "%s",
			         p->cfg->name, names[k]);
			constraint_destroy(c);
			return -ESLURM_INVALID_FEATURE;
		}
	}
	*ret = c;
	return 0;
}

/* Check a -w (p given) or -x (p NULL) host list: every name is a configured node,
 * for -w one of p's.  A list naming nodes more than once is rewritten with each
 * name once, so what is kept and expanded at every scheduling pass is never
 * longer than the node table; hostlist_expand bounds the work done here
 * (HOSTLIST_MAX names, refused before any is made). */
static int job_desc_nodes(struct ctld *ctld, const struct part *p, char **list)
{
	size_t count = 0, n = 0, nn = node_mgr_count(ctld->nodes);
	char **names = NULL, **uniq;
	unsigned char *seen;
	int rc = 0;

	if (!*list)
		return 0;
	if (hostlist_expand(*list, &names, &count, NULL) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	seen = xcalloc(nn + 1, 1);
	uniq = xcalloc(count + 1, sizeof(*uniq));
	for (size_t i = 0; i < count && !rc; i++) {
		int idx = node_mgr_find(ctld->nodes, names[i]);

		if (idx < 0)
			rc = -ESLURM_INVALID_NODE_NAME;
		else if (p && !part_has_node(p, idx))
			rc = -ESLURM_REQUESTED_NODES_NOT_IN_PARTITION;
		else if (!seen[idx]) {
			seen[idx] = 1;
			uniq[n++] = names[i];
		}
	}
	if (!rc && n < count) {
		char *once = hostlist_compress(uniq, n);

		if (once) {
			free(*list);
			*list = once;
		}
	}
	free(uniq);
	free(seen);
	hostlist_free(names);
	return rc;
}

/* A GPU option as a --gres item of one: its name and type are checked
 * against the partition here, its count by job_desc_fits.  0 when there is no
 * room. */
static int items_add_gpu(struct gres_item *items, size_t *n, const char *type)
{
	if (*n == GRES_MAX_ITEMS)
		return 0;
	memset(&items[*n], 0, sizeof(items[*n]));
	memcpy(items[*n].name, "gpu", 4);
	memcpy(items[*n].type, type, strnlen(type, GRES_NAME_MAX - 1));
	items[(*n)++].count = 1;
	return 1;
}

/* --gres and the GPU options: each GRES named must be configured on a node of
 * p (Gres= in slurm.conf), else ESLURM_INVALID_GRES as Slurm says; one no node
 * has as many of as asked cannot run there. */
static int job_desc_gres(const struct ctld *ctld, const struct part *p,
                         const struct job_desc *d)
{
	const struct job_desc_ext *x = job_desc_X(d);
	struct gres_item items[GRES_MAX_ITEMS];
	struct rota_error err = {{0}};
	struct sched_req r;
	size_t n = 0;
	const char *gpu_opts[] = {x->gpus, x->gpus_per_node, x->gpus_per_task,
	                          x->gpus_per_socket};

	for (size_t i = 0; i < sizeof(gpu_opts) / sizeof(gpu_opts[0]); i++) {
		char type[GRES_NAME_MAX];
		uint32_t count;
		if (!gpu_opts[i])
			continue;
		if (gres_gpu_parse(gpu_opts[i], type, &count, &err) < 0) {
			log_info("submit rejected: %s", err.text);
			return -ESLURM_INVALID_GRES;
		}
		if (!items_add_gpu(items, &n, type))
			return -ESLURM_INVALID_GRES;
	}
	if (x->gres) {
		size_t m = 0;
		if (gres_parse(x->gres, items + n, &m, &err) < 0 ||
		    n + m > GRES_MAX_ITEMS) {
			log_info("submit rejected: %s", err.text);
			return -ESLURM_INVALID_GRES;
		}
		n += m;
	}
	for (size_t k = 0; k < n; k++) {
		int known = 0, enough = 0;

		for (size_t i = 0; i < p->nnodes && !enough; i++) {
			const char *g =
			    node_mgr_get(ctld->nodes, p->node_idx[i])->cfg->gres;

			known |= gres_node_count(g, items[k].name, "") > 0;
			enough = gres_node_count(g, items[k].name, items[k].type) >=
			         items[k].count;
		}
		if (!known) {
			log_info("submit rejected: no node of partition %s has gres %s",
			         p->cfg->name, items[k].name);
			return -ESLURM_INVALID_GRES;
		}
		if (!enough)
			return -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	/* too many items for the scheduler to tell apart */
	if (n && job_desc_req(node_mgr_gres_kinds(ctld->nodes), d, &r, &err) < 0) {
		log_info("submit rejected: %s", err.text);
		return -ESLURM_INVALID_GRES;
	}
	return 0;
}

int job_desc_partition_open(struct ctld *ctld, struct job_desc *d)
{
	struct part *p = d->partition ? node_mgr_part_find(ctld->nodes, d->partition)
	                              : node_mgr_part_default(ctld->nodes);
	int rc;

	if (!p || (d->partition && strchr(d->partition, ','))) /* a list: each */
		return 0;                                      /* checked later */
	if ((rc = part_access_state(ctld, &p)) != 0)
		return rc;
	if (!d->partition || strcmp(d->partition, p->cfg->name)) {
		free(d->partition);
		d->partition = xstrdup(p->cfg->name);
	}
	return 0;
}

size_t job_parts_of(struct node_mgr *nm, const char *list, struct part **out, size_t max)
{
	size_t n = 0;

	while (list && *list && n < max) {
		size_t len = strcspn(list, ",");
		char name[256];

		if (len && len < sizeof(name)) {
			memcpy(name, list, len);
			name[len] = 0;
			if ((out[n] = node_mgr_part_find(nm, name)))
				n++;
		}
		list += len;
		list += *list == ',';
	}
	return n;
}

struct part *job_part_first(struct node_mgr *nm, const char *list)
{
	struct part *p = NULL;

	return job_parts_of(nm, list, &p, 1) ? p : NULL;
}

uint32_t job_limit_in_part(const struct job *job)
{
	if (job_is_pending(job) && job_multi_part(job) &&
	    job->desc.time_limit == NO_VAL && job->part)
		return job_desc_time_limit(job->part, &job->desc);
	return job->time_limit;
}

char *job_part_name(const struct job *job)
{
	if (!job_multi_part(job) || job_is_pending(job) || !job->part ||
	    !job->run->start_time)
		return job->desc.partition;
	return job->part->cfg->name;
}

/* -p a,b: every name must be a partition (else Slurm's "Invalid partition
 * name specified"), each kept once, in the order given.  The list is
 * rewritten in d->partition; its partitions in out[0..*ret_n). */
static int job_desc_parts(struct ctld *ctld, struct job_desc *d, struct part **out,
                          size_t *ret_n)
{
	const char *s = d->partition;
	char *list = NULL;
	size_t n = 0, len = 0;

	while (*s) {
		size_t l = strcspn(s, ",");
		char name[256];
		struct part *p;
		int dup = 0;

		if (!l || l >= sizeof(name))
			goto bad;
		memcpy(name, s, l);
		name[l] = 0;
		if (!(p = node_mgr_part_find(ctld->nodes, name)))
			goto bad;
		for (size_t k = 0; k < n; k++)
			dup |= out[k] == p;
		if (!dup) {
			if (n == JOB_PARTS_MAX)
				goto bad;
			out[n++] = p;
			list = xrealloc(list, len + l + 2);
			if (len)
				list[len++] = ',';
			memcpy(list + len, name, l + 1);
			len += l;
		}
		s += l;
		s += *s == ',';
	}
	if (!n)
		goto bad;
	free(d->partition);
	d->partition = list;
	*ret_n = n;
	return 0;
bad:
	free(list);
	return -ESLURM_INVALID_PARTITION_NAME;
}

/* -w names nodes the job must have, each of them: as Slurm, they are its
 * least node count (more than -N's most: ESLURM_INVALID_NODE_COUNT), and none
 * may be in -x (ESLURM_INVALID_NODE_NAME). */
static int job_desc_req_count(struct ctld *ctld, struct job_desc *d)
{
	size_t count = 0, n = 0, nn = node_mgr_count(ctld->nodes);
	char **names = NULL;
	unsigned char *seen;
	int overlap = 0;

	if (!d->req_nodes || !*d->req_nodes)
		return 0;
	if (hostlist_expand(d->req_nodes, &names, &count, NULL) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	seen = xcalloc(nn + 1, 1);
	for (size_t i = 0; i < count; i++) {
		int idx = node_mgr_find(ctld->nodes, names[i]);
		if (idx >= 0 && !seen[idx]) {
			seen[idx] = 1;
			n++;
		}
	}
	hostlist_free(names);
	names = NULL;
	count = 0;
	/* a node both required and excluded: Slurm's refusal */
	if (d->exc_nodes && *d->exc_nodes &&
	    hostlist_expand(d->exc_nodes, &names, &count, NULL) < 0)
		count = 0;
	for (size_t i = 0; i < count && !overlap; i++) {
		int idx = node_mgr_find(ctld->nodes, names[i]);
		overlap = idx >= 0 && seen[idx];
	}
	hostlist_free(names);
	free(seen);
	if (overlap)
		return -ESLURM_INVALID_NODE_NAME;
	if (!n)
		return 0; /* unknown names: job_desc_nodes says so */
	if (d->max_nodes != NO_VAL && d->max_nodes && d->max_nodes < n)
		return -ESLURM_INVALID_NODE_COUNT;
	if (d->min_nodes == NO_VAL || d->min_nodes < n)
		d->min_nodes = (uint32_t)n;
	return 0;
}

/* What job_desc_check_resources checks of one partition p. */
static int job_desc_check_part(struct ctld *ctld, struct part *p, struct job_desc *d)
{
	struct constraint *cons = NULL;
	int rc;

	if (p->cfg->state == CONF_PART_INACTIVE)
		return -ESLURM_PARTITION_NOT_AVAIL;
	if (d->min_nodes != NO_VAL && d->min_nodes > p->nnodes)
		return -ESLURM_INVALID_NODE_COUNT;
	rc = job_desc_nodes(ctld, p, &d->req_nodes);
	if (!rc)
		rc = job_desc_gres(ctld, p, d);
	if (rc)
		return rc;
	/* --prefer: tried first, so named as -C's features are */
	rc = job_desc_constraint(ctld, p, job_desc_X(d)->prefer, &cons);
	constraint_destroy(cons);
	if (!rc)
		rc = job_desc_constraint(ctld, p, d->features, &cons);
	if (rc)
		return rc;
	rc = job_desc_batch(ctld, p, d, cons);
	if (!rc)
		rc = job_desc_fits(ctld, p, d, cons) < 0
		         ? -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE
		         : 0;
	constraint_destroy(cons);
	return rc;
}

int job_desc_check_resources(struct ctld *ctld, struct job_desc *d,
                             struct part **ret_part)
{
	struct part *parts[JOB_PARTS_MAX], *p;
	size_t nparts = 1;
	int rc;

	if (d->partition && strchr(d->partition, ',')) {
		if ((rc = job_desc_parts(ctld, d, parts, &nparts)) < 0)
			return rc;
	} else {
		p = d->partition ? node_mgr_part_find(ctld->nodes, d->partition)
		                 : node_mgr_part_default(ctld->nodes);
		if (!p)
			return d->partition ? -ESLURM_INVALID_PARTITION_NAME
			                    : -ESLURM_DEFAULT_PARTITION_NOT_SET;
		parts[0] = p;
	}
	if (!d->partition)
		d->partition = xstrdup(parts[0]->cfg->name);
	if ((rc = job_desc_req_count(ctld, d)) < 0)
		return rc;
	if (d->min_nodes == 0 || (d->max_nodes != NO_VAL && d->max_nodes < d->min_nodes &&
	                          d->min_nodes != NO_VAL))
		return -ESLURM_INVALID_NODE_COUNT;
	if (d->num_tasks == 0 || d->cpus_per_task == 0 || d->ntasks_per_node == 0)
		return -ESLURM_BAD_DIST;
	if (d->ntasks_per_node != NO_VAL &&
	    d->ntasks_per_node > ctld->conf->max_tasks_per_node)
		return -ESLURM_BAD_TASK_COUNT;
	rc = job_desc_nodes(ctld, NULL, &d->exc_nodes);
	if (!rc)
		rc = lic_desc_check(ctld, d);
	if (rc)
		return rc;
	/* of a list, it is enough that it could run in one (Slurm tries
	 * each); the error is the first partition's */
	for (size_t k = 0; k < nparts; k++) {
		int r = job_desc_check_part(ctld, parts[k], d);
		if (!r) {
			*ret_part = parts[k];
			return 0;
		}
		if (!k)
			rc = r;
	}
	return rc;
}

int job_desc_check_strings(const struct job_desc *d, const char **ret_field,
                           size_t *ret_pos)
{
	const struct job_desc_ext *x = job_desc_X(d);
	const struct {
		const char *field, *value;
	} strs[] = {
	    {"job name", d->name},
	    {"comment", x->comment},
	    {"account", d->account},
	    {"partition", d->partition},
	    {"constraint", d->features},
	    {"prefer", x->prefer},
	    {"batch", x->batch_features},
	    {"dependency", d->dependency},
	    {"node list", d->req_nodes},
	    {"excluded node list", d->exc_nodes},
	    {"array", d->array_inx},
	    {"working directory", d->work_dir},
	    {"stdout path", d->std_out},
	    {"stderr path", d->std_err},
	    {"stdin path", x->std_in},
	    {"gres", x->gres},
	    {"licenses", x->licenses},
	    {"reservation", x->reservation},
	    {"gpus", x->gpus},
	    {"gpus-per-node", x->gpus_per_node},
	    {"gpus-per-task", x->gpus_per_task},
	    {"gpus-per-socket", x->gpus_per_socket},
	    {"gpu-bind", x->gpu_bind},
	    {"submit host", d->submit_host},
	    {"container image", x->container_image},
	    {"container mounts", x->container_mounts},
	    {"container workdir", x->container_workdir},
	    {"container env", x->container_env},
	    {"container name", x->container_name},
	    {"container", x->container},
	    {"mcs label", x->mcs_label},
	};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const unsigned char *v = (const unsigned char *)strs[i].value;

		for (size_t k = 0; v && v[k]; k++)
			if (v[k] < 0x20 || v[k] == 0x7f) {
				*ret_field = strs[i].field;
				*ret_pos = k;
				return -ESLURM_INVALID_ARGUMENT;
			}
	}
	return 0;
}

/* Fill defaults and check what can be checked now; returns 0 or -ESLURM_*. */
static int job_desc_validate(struct ctld *ctld, struct job_desc *d, int alloc,
                             struct part **ret_part)
{
	int rc;

	if (!alloc && (!d->script || !d->script[0]))
		return -ESLURM_JOB_SCRIPT_MISSING;
	if ((d->script && strlen(d->script) > SCRIPT_MAX) || strv_len(d->env) > ENV_MAX ||
	    strv_len(d->argv) > ARGV_MAX)
		return -ESLURM_PATHNAME_TOO_LONG;
	if (job_count(ctld->jobs) + ctld->submit_extra >= ctld->conf->max_job_count)
		return -ESLURM_REACHED_MAX_JOB_COUNT;
	if (d->array_inx) {
		struct arrayspec a;
		if (alloc || arrayspec_parse(d->array_inx, ctld->conf->max_array_size, &a,
		                             NULL) < 0)
			return -ESLURM_INVALID_ARRAY;
		arrayspec_release(&a);
	}
	if (d->dependency) {
		struct rota_error err = {{0}};
		rc = depend_validate(ctld, d->dependency, 0, &err);
		if (rc) {
			log_info("submit rejected: %s", err.text);
			return rc;
		}
	}
	/* DRAIN and INACTIVE take no new jobs: they go to its Alternate */
	rc = job_desc_partition_open(ctld, d);
	if (rc)
		return rc;
	/* DefMemPer*, MaxMemPerCPU of its (first) partition, as Slurm's
	 * submission does; a job of several takes each one's when considered
	 * there (part_mem_job) */
	part_mem_submit(ctld,
	                d->partition ? job_part_first(ctld->nodes, d->partition)
	                             : node_mgr_part_default(ctld->nodes),
	                d);
	return job_desc_check_resources(ctld, d, ret_part);
}

uint32_t job_desc_time_limit(const struct part *p, const struct job_desc *d)
{
	if (d->time_limit == 0 || d->time_limit == INFINITE32)
		return INFINITE32;
	if (d->time_limit != NO_VAL)
		return d->time_limit;
	return p->cfg->default_time != TIME_INFINITE ? p->cfg->default_time
	                                             : p->cfg->max_time;
}

/* EnforcePartLimits=ALL|ANY|YES: a job over its partition's MaxTime,
 * MaxNodes, MaxMemPerCPU/MaxMemPerNode or under its MinNodes is refused at
 * submit (with NO, Slurm's default, it waits with PartitionTimeLimit,
 * PartitionNodeLimit, MaxMemPerLimit). */
static int job_part_limits_one(struct ctld *ctld, const struct part *p,
                               const struct job_desc *d)
{
	const struct conf_part *cp = p->cfg;
	uint32_t tl = job_desc_time_limit(p, d);
	uint32_t nodes = d->min_nodes == NO_VAL ? 1 : d->min_nodes;
	struct part_mem_req mr;

	part_mem_req_of(d, &mr);
	if (d->flags & JOB_F_MEM_DEFAULT)
		part_mem_default(ctld->conf, p, &mr.mem_per_node, &mr.mem_per_cpu);
	if (part_mem_check(ctld, p, &mr) < 0)
		return -ESLURM_INVALID_TASK_MEMORY;

	if (cp->max_time != TIME_INFINITE && (tl == INFINITE32 || tl > cp->max_time))
		return -ESLURM_INVALID_TIME_LIMIT;
	if ((cp->max_nodes != UINT32_MAX && nodes > cp->max_nodes) ||
	    nodes < cp->min_nodes)
		return -ESLURM_INVALID_NODE_COUNT;
	return 0;
}

/* Of a list (-p a,b), as Slurm's _valid_job_part: with ALL every partition's
 * limits must hold (the first broken one's error), with ANY (or YES) one's
 * (the last error when none). */
static int job_part_limits(struct ctld *ctld, const struct part *p,
                           const struct job_desc *d)
{
	const char *e = ctld->conf->enforce_part_limits;
	struct part *parts[JOB_PARTS_MAX];
	size_t n;
	int rc = 0;

	if (!e || !strcasecmp(e, "NO"))
		return 0;
	if (!d->partition || !strchr(d->partition, ','))
		return job_part_limits_one(ctld, p, d);
	n = job_parts_of(ctld->nodes, d->partition, parts, JOB_PARTS_MAX);
	for (size_t k = 0; k < n; k++) {
		int r = job_part_limits_one(ctld, parts[k], d);
		if (r && !strcasecmp(e, "ALL"))
			return r;
		if (!r && strcasecmp(e, "ALL"))
			return 0;
		rc = r ? r : rc;
	}
	return rc;
}

/* --time-min and --deadline, as Slurm checks them at submission: the
 * deadline must be ahead, a --time-min must fit before it.  A time limit
 * that does not fit is taken (Slurm's controller checks it only for a
 * --time-min of 0, which Rota does not tell from none): the scheduler ends
 * the job DEADLINE when it looks at it (sched_pass.c).  A job with a deadline
 * and neither limit may run a minute. */
static int job_times_check(const struct part *p, struct job_desc *d, time_t now)
{
	uint32_t tl = job_desc_time_limit(p, d);
	const struct job_desc_ext *x = job_desc_X(d);

	if (x->time_min && tl != INFINITE32 && x->time_min > tl)
		return -ESLURM_INVALID_TIME_MIN_LIMIT;
	if (!x->deadline)
		return 0;
	if (x->deadline < now)
		return -ESLURM_INVALID_TIME_LIMIT;
	if (x->time_min && x->deadline < now + (int64_t)x->time_min * 60)
		return -ESLURM_INVALID_TIME_MIN_LIMIT;
	if (d->time_limit == NO_VAL && !x->time_min)
		d->ext->time_min = 1; /* a deadline: it has one */
	return 0;
}

/* The id after id: from MaxJobId back to FirstJobId. */
static uint32_t job_id_after(uint32_t id, const struct conf *conf)
{
	uint32_t first = conf->first_job_id ? conf->first_job_id : 1;
	uint32_t max = conf->max_job_id ? conf->max_job_id : 0x03ff0000;

	return id >= max ? first : id + 1;
}

/* A new job id, or 0 when its high-water mark cannot be stored. */
static uint32_t job_new_id(struct job_mgr *jm, const struct conf *conf)
{
	for (;;) {
		uint32_t id = jm->next_id;
		if (hwm_cover(jm, id) < 0)
			return 0;
		jm->next_id = job_id_after(id, conf);
		if (!job_find(jm, id))
			return id;
	}
}

/* --uid/--gid (root's): the job is that user's, in that group (the user's
 * own unless given); the checks are still root's, as Slurm's.  A command
 * that says it is another user than its connection's is refused. */
static int submit_as(const struct caller *who, struct job_desc *d, struct caller *as)
{
	struct job_desc_ext *x = d->ext;

	*as = *who;
	if (x && x->self_uid && x->self_uid - 1 != who->uid && !caller_is_admin(who)) {
		log_warn("Security violation: a job from uid %u that says it is uid %u",
		         (unsigned)who->uid, x->self_uid - 1);
		return -ESLURM_USER_ID_MISSING;
	}
	if (!x || (!x->as_uid && !x->as_gid))
		return 0;
	if (!caller_is_admin(who)) /* root or SlurmUser */
		return -ESLURM_ACCESS_DENIED;
	if (x->as_uid) {
		struct passwd pw, *got = NULL;
		char buf[4096];
		if (getpwuid_r(x->as_uid - 1, &pw, buf, sizeof(buf), &got) || !got)
			return -ESLURM_USER_ID_MISSING;
		as->uid = pw.pw_uid;
		as->gid = pw.pw_gid;
	}
	if (x->as_gid)
		as->gid = x->as_gid - 1;
	as->gids_known = false;
	as->ngids = 0;
	x->as_uid = x->as_gid = 0;
	return 0;
}

/* The id job_new_id would give now; nothing taken, nothing stored. */
static uint32_t job_peek_id(struct job_mgr *jm, const struct conf *conf)
{
	uint32_t id = jm->next_id;

	while (job_find(jm, id))
		id = job_id_after(id, conf);
	return id;
}

int job_submit_prepare(struct ctld *ctld, const struct caller *caller, struct job_desc *d,
                       unsigned flags, struct job_submit_prep *out, char **ret_msg)
{
	int alloc = !!(flags & JOB_SUBMIT_ALLOC);
	struct caller as_user;
	const struct caller *who = &as_user;
	struct ev_submit *ev = &out->ev;
	struct part *p = NULL;
	const char *field;
	char *user = out->user;
	size_t pos;
	int rc;

	*ret_msg = NULL;
	memset(ev, 0, sizeof(*ev));
	rc = submit_as(caller, d, &as_user);
	if (rc)
		return rc;
	if (d->ext) /* the controller's (hetjob.c) */
		d->ext->het_job_id = d->ext->het_offset = 0;
	if (alloc)
		d->flags |= JOB_F_INTERACTIVE;
	rc = job_desc_check_strings(d, &field, &pos);
	if (rc) {
		*ret_msg = xasprintf("Invalid %s: control character at position %zu",
		                     field, pos + 1);
		return rc;
	}
	/* JobRequeue=0: not requeued unless --requeue (fixed at submit, as
	 * Slurm: scontrol show job says Requeue=0) */
	if (!ctld->conf->job_requeue && !(d->flags & JOB_F_REQUEUE))
		d->flags |= JOB_F_NO_REQUEUE;
	rc = job_desc_validate(ctld, d, alloc, &p);
	if (!rc)
		rc = job_part_limits(ctld, p, d);
	if (!rc)
		rc = job_times_check(p, d, time(NULL));
	/* the names as they are now, in the event: a replay looks nothing up */
	uid_to_name(who->uid, user, sizeof(out->user));
	if (!rc)
		rc = assoc_job_account(ctld, user, p ? p->cfg->name : NULL, d);
	if (!rc)
		rc = assoc_job_qos(ctld, user, p ? p->cfg->name : NULL, d);
	if (!rc)
		rc = mcs_submit_label(ctld, &as_user, user, d);
	if (!rc)
		rc = part_access_submit_all(ctld, p, caller, &as_user, d);
	if (!rc)
		rc = resv_job_check(ctld, user, d);
	if (!rc)
		rc =
		    assoc_limits_submit(ctld, who->uid, user, d, p ? p->cfg->name : NULL);
	if (!rc && (int32_t)d->nice < 0 && !caller_is_admin(caller))
		rc = -ESLURM_ACCESS_DENIED; /* only operators may raise a priority */
	/* --reboot: admins' (Slurm's "rebooting of nodes is only allowed for
	 * admins"); the job has its nodes to itself */
	if (!rc && (d->flags & JOB_F_REBOOT) && !caller_is_admin(caller))
		rc = -ESLURM_ACCESS_DENIED;
	if (!rc && (d->flags & JOB_F_REBOOT))
		d->flags |= JOB_F_EXCLUSIVE;
	if (!rc && d->ext && d->ext->priority && !caller_is_operator(caller))
		d->ext->priority = 0; /* --priority: operators', ignored for others */
	if (!rc && d->ext && !caller_is_operator(caller))
		d->ext->site_factor = 0; /* SiteFactor: set by operators' updates */
	/* what cannot be recorded is not accepted (a full disk) */
	if (!rc && journal_error(ctld->journal))
		rc = -ESLURM_WRITING_TO_FILE;
	if (!rc && (flags & JOB_SUBMIT_PROBE))
		ev->job_id = job_peek_id(ctld->jobs, ctld->conf);
	else if (!rc && !(ev->job_id = job_new_id(ctld->jobs, ctld->conf)))
		rc = -ESLURM_WRITING_TO_FILE;
	if (rc)
		return rc;
	ev->time = time(NULL);
	ev->uid = who->uid;
	ev->gid = who->gid;
	gid_to_name(who->gid, out->group, sizeof(out->group));
	ev->user = out->user;
	ev->group = out->group;
	ev->desc = d;
	ev->desc_count = 1;
	ev->hold = d->hold ? 1 : 0;
	ev->priority =
	    ev->hold
	        ? 0
	        : priority_basic(ev->job_id, d->nice == NO_VAL ? 0 : (int32_t)d->nice);
	if (job_desc_X(d)->priority && !ev->hold) { /* kept: the scheduler leaves it */
		ev->priority =
		    d->ext->priority > JOB_PRIO_TOP ? JOB_PRIO_TOP : d->ext->priority;
		ev->flags |= SUBMIT_EV_PRIO_SET;
	}
	ev->time_limit = job_desc_time_limit(p, d);
	return 0;
}

char *job_submit_detail(struct ctld *ctld, const struct job_desc *d, int rc)
{
	const char *s = d->partition;

	if (rc != -ESLURM_INVALID_PARTITION_NAME || !s)
		return NULL;
	while (*s) { /* the first name of the list that is no partition */
		size_t l = strcspn(s, ",");
		char *name = xstrndup(s, l);
		if (l && !node_mgr_part_find(ctld->nodes, name)) {
			char *detail = xasprintf("invalid partition specified: %s", name);
			free(name);
			return detail;
		}
		free(name);
		s += l;
		s += *s == ',';
	}
	return NULL;
}

void job_mgr_submit(struct ctld *ctld, struct caller *who, struct job_desc *d, int alloc,
                    struct chan *ch)
{
	struct job_submit_prep prep;
	struct submit_reply *r;
	char *msg;
	int rc;

	/* scrontab's jobs come through its own request (ctld/crontab.h) */
	if (d->ext && d->ext->cron_spec) {
		free(d->ext->cron_spec);
		d->ext->cron_spec = NULL;
	}
	rc = job_submit_prepare(ctld, who, d, alloc ? JOB_SUBMIT_ALLOC : 0, &prep, &msg);
	if (rc) {
		char *detail = job_submit_detail(ctld, d, rc);
		chan_send_rc_detail(ch, rc, msg, detail);
		free(detail);
		free(msg);
		return;
	}
	if (ev_submit_commit(ctld, &prep.ev) < 0) {
		chan_send_rc(ch, SLURM_ERROR, "internal error recording the job");
		return;
	}
	if (alloc) {
		struct job *job = job_find(ctld->jobs, prep.ev.job_id);
		job->alloc_client = ch;
		chan_ref(ch);
		ch->alloc_job_id = prep.ev.job_id;
	}
	log_info("JobId=%u submitted by uid %u (%s)", prep.ev.job_id, (unsigned)who->uid,
	         alloc ? "allocation" : "batch");
	r = xcalloc(1, sizeof(*r));
	r->ctld = ctld;
	r->client = ch;
	r->job_id = prep.ev.job_id;
	r->alloc = alloc;
	chan_ref(ch);
	journal_when_durable(ctld->journal, submit_durable, r);
}

/* ---- arrays ---- */

struct job *job_array_task_find(struct job_mgr *jm, uint32_t array_job_id, uint32_t task)
{
	for (struct job *j = jm->head; j; j = j->next)
		if (j->array_job_id == array_job_id && j->array_task_id == task)
			return j;
	return NULL;
}

uint32_t job_array_running(struct job_mgr *jm, uint32_t array_job_id)
{
	uint32_t n = 0;

	for (struct job *j = jm->head; j; j = j->next)
		if (j->array_job_id == array_job_id && job_is_running(j))
			n++;
	return n;
}

void job_array_sum(struct job_mgr *jm, uint32_t array_job_id, struct job_array_sum *s)
{
	int any = 0;

	memset(s, 0, sizeof(*s));
	for (struct job *j = jm->head; j; j = j->next) {
		if (j->array_job_id != array_job_id)
			continue;
		uint32_t st = j->run->exit_code;

		s->begun += j->run->start_time || j->restart_cnt || job_is_finished(j);
		s->requeued += j->restart_cnt != 0;
		if (!job_is_finished(j)) {
			s->open++;
			continue;
		}
		if (!st && (j->state & JOB_STATE_BASE) != JOB_COMPLETE)
			st = SIGKILL; /* a wait status: killed by it */
		if (!any || st < s->min_exit)
			s->min_exit = st;
		if (!any || st > s->max_exit)
			s->max_exit = st;
		any = 1;
	}
}

struct job *job_array_split(struct ctld *ctld, struct job *meta, uint32_t task)
{
	struct ev_array_split ev = {
	    .job_id = meta->job_id, .time = time(NULL), .array_task_id = task};

	if (!meta->array_rem)
		return NULL;
	if (meta->array_rem->count > 1 &&
	    !(ev.new_job_id = job_new_id(ctld->jobs, ctld->conf)))
		return NULL;
	if (ev_array_split_commit(ctld, &ev) < 0)
		return NULL;
	return ev.new_job_id ? job_find(ctld->jobs, ev.new_job_id) : meta;
}
