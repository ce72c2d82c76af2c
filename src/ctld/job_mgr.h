/* job_mgr.h - the controller's job table. */
#ifndef ROTA_JOB_MGR_H
#define ROTA_JOB_MGR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <string.h>
#include <time.h>
#include "common/states.h"
#include "ctld/job_event.h"
#include "ctld/owner.h"
#include "proto/messages.h"

struct ctld;
struct caller;
struct chan;
struct part;
struct node_mgr;
struct constraint;

struct step {
	uint32_t step_id;
	uint32_t nnodes;
	uint32_t *node_idx;
	uint32_t pending_nodes; /* nodes yet to report completion */
	uint8_t *node_done;     /* [nnodes]: that node reported (duplicates ignored) */
	uint32_t status;        /* highest wait status so far */
	struct chan *client; /* where the srun that asked for it waits (ref), or NULL */
	char *name;
	char *nodes;
	uint32_t num_tasks, num_cpus;
	uint32_t *tasks;    /* [nnodes] tasks on each, or NULL */
	uint32_t task_dist; /* how they are numbered (common/taskdist.h) */
	uint32_t *task_map; /* arbitrary: each task's node (index in node_idx) */
	uint32_t ntask_map;
	time_t start_time;
	/* what it holds of the allocation, per step node: positions in the job's
	 * cores on that node, and memory (MB) */
	uint32_t *nslots;
	uint32_t **slots;
	uint64_t *mem;
	int overlap;           /* --overlap: holds nothing, shares everything */
	uint32_t time_limit;   /* minutes (srun -t, scontrol update); 0: the job's */
	int limit_sent;        /* killed for its time limit */
	uint32_t sus_at_start; /* the job's run->sus_secs when it started */
	char **gres;           /* [nnodes] the job's GRES it holds on each, or NULL */
	char *resv_ports;      /* MpiParams ports it holds: "12000-12003"; or NULL */
	struct step *next;
};

/* What a job holds once it has started: its allocation, steps and times.
 * Made at its start (or when it ends without starting: end_time), given back
 * when it is purged or requeued.  A job that has none points at job_run_none,
 * all zero, so that reading needs no test; writing goes through
 * job_run_mut().  A pending job does not carry these bytes. */
struct job_run {
	time_t start_time, end_time;
	uint32_t nnodes;
	uint32_t share; /* jobs per core it may share with (part_job_share) */
	/* the batch host: the position in node_idx (and cpus, cores, ...) of
	 * the node its script runs on (sbatch --batch; else 0, the first) */
	uint32_t batch_node;
	uint32_t *node_idx;
	uint32_t *cpus;
	uint32_t *tasks;
	uint64_t *mem;
	uint32_t **cores; /* [nnodes][cpus[i]] core ids on each node */
	uint8_t *held;    /* [nnodes] resources still held (COMPLETING) */
	char **gres;      /* [nnodes] GRES held on each (common/gres_req.h), or
	                   * NULL when the job holds none */
	char *nodes_str;
	/* of a job that names several reservations (--reservation=a,b): the
	 * one it runs in; NULL: its only one, or none */
	char *resv;
	struct step *steps;
	uint32_t next_step_id;
	uint32_t exit_code;
	uint32_t derived_exit; /* highest wait status of the job's steps */
	int warn_sent;         /* --signal delivered for this run */
	int power_wait;        /* launch held until its nodes boot (ctld/power.h) */
	time_t preempt_at;     /* preempted: stopped then (ctld/preempt.h); 0 not */
	/* scontrol suspend (ctld/suspend.h): when last suspended or resumed,
	 * seconds it ran before the last suspension, seconds spent suspended
	 * before the current one */
	time_t suspend_time;
	uint32_t pre_sus_secs;
	uint32_t sus_secs;
	int sus_preempted;  /* suspended by preemption (PreemptMode=SUSPEND) */
	int sus_gang;       /* by time slicing, its CPUs kept (ctld/gang.h) */
	uint32_t mail_sent; /* the TIME_LIMIT_* mails sent (ctld/mail.h) */
	/* holds its nodes for its user alone: --exclusive=user, or its
	 * partition's ExclusiveUser=YES when it started */
	int excl_user;
	/* keeps its nodes to its MCS label (ctld/mcs_label.h) */
	int mcs_select;
};

extern const struct job_run job_run_none;

/* What the scheduler found out about a pending job (derived, not
 * journaled): made when first set, NULL while there is nothing to say. */
struct job_sched {
	time_t est_start;  /* backfill's expected start, 0 unknown */
	char *sched_nodes; /* owned: nodes planned for it, NULL unknown */
	/* ReqNodeNotAvail: the -w nodes that are down, drained or not
	 * responding (owned) */
	char *unavail_nodes;
	char *reason_detail;           /* owned: shown after the reason */
	struct constraint *constraint; /* owned: desc.features parsed, lazily */
	struct constraint *prefer;     /* owned: --prefer parsed, lazily */
	/* owned: a GRES job's request of sched_select (job_desc_req), made
	 * once for the node configuration of generation req_gen */
	struct sched_req *req;
	uint32_t req_gen;
	/* it preempted jobs: it waits for them to go until then (preempt.h) */
	time_t preempt_wait;
	/* the backfill run (its start) est_start is of: a job of several
	 * partitions keeps the earliest of its run's plans */
	time_t plan_run;
	/* of a job that names several reservations: which of them (0 the
	 * first) the scheduler tries it in now */
	uint32_t resv_try;
};

enum job_list_on { JOB_ON_NONE, JOB_ON_ACTIVE, JOB_ON_WAITING };

/* One per job in the table, pending or not: kept small (each byte costs
 * every job of a deep queue).  4-byte fields together, pointers together:
 * no holes. */
struct job {
	uint32_t job_id;
	uint32_t state; /* enum job_state | flags */
	uint32_t reason;
	uint32_t priority;
	uint32_t time_limit; /* minutes or INFINITE32 */
	uint32_t restart_cnt;
	uint32_t array_job_id;  /* 0: not an array */
	uint32_t array_task_id; /* NO_VAL: not an array, or the pending remainder */
	uint8_t hold;     /* 0, 1 user, 2 admin, JOB_HOLD_RESV, JOB_HOLD_SPECIAL_EXIT */
	uint8_t prio_set; /* an admin set the priority: the scheduler keeps it */
	uint8_t on_list;  /* enum job_list_on */
	const struct owner *owner; /* counted: uid, gid, user and group names */
	struct part *part;
	const struct job_run *run;   /* job_run_none until it starts */
	struct job_sched *sched;     /* owned, or NULL */
	struct chan *alloc_client;   /* srun/salloc waiting for/holding it (ref) */
	struct arrayspec *array_rem; /* owned: an array's tasks not started yet */
	time_t submit_time, eligible_time;
	struct job_desc desc; /* owned; what was asked */
	struct job *hnext;    /* hash chain */
	/* the list the per-second work walks instead of every job
	 * (job_mgr_classify): started or ended jobs (job_first_active), or
	 * pending jobs the scheduler must consider, in a partition and not held
	 * (job_first_waiting) */
	struct job *lnext, *lprev;
	struct job *prev, *next; /* submission order */
};

/* job->hold of a job whose reservation was deleted (ctld/resv.c): its owner
 * may release it, as a user's hold */
#define JOB_HOLD_RESV 3
/* job->hold of scontrol requeuehold State=SpecialExit: a user's hold, the job
 * shown SPECIAL_EXIT until released */
#define JOB_HOLD_SPECIAL_EXIT 4
/* job->hold of a batch job requeued because its launch failed (a Prolog):
 * a user's hold, the reason shown "launch failed requeued held" (as Slurm) */
#define JOB_HOLD_LAUNCH_FAILED JOB_INFO_HOLD_LAUNCH_FAILED

/* Why a held job waits. */
static inline uint32_t job_hold_reason(const struct job *job)
{
	return job->hold == 1 || job->hold == JOB_HOLD_SPECIAL_EXIT ||
	               job->hold == JOB_HOLD_LAUNCH_FAILED
	           ? WAIT_HELD_USER
	       : job->hold == JOB_HOLD_RESV ? WAIT_RESV_DELETED
	                                    : WAIT_HELD;
}

/* Its request's seldom-given fields (proto/declare.h: out of line), to read. */
static inline const struct job_desc_ext *job_x(const struct job *job)
{
	return job_desc_X(&job->desc);
}

/* The features its batch host must have (sbatch --batch), or NULL: none,
 * or a job that runs no script (srun, salloc, a heterogeneous job's
 * component other than the first). */
static inline const char *job_batch_features(const struct job *job)
{
	const struct job_desc_ext *x = job_x(job);

	if (!x->batch_features || (job->desc.flags & JOB_F_INTERACTIVE) ||
	    (x->het_job_id && HET_OFFSET(x->het_offset) > 0))
		return NULL;
	return x->batch_features;
}

/* The batch host of a job that holds nodes (run->nnodes > 0): its index in
 * the node table. */
static inline uint32_t job_batch_node(const struct job *job)
{
	const struct job_run *run = job->run;

	return run->node_idx[run->batch_node < run->nnodes ? run->batch_node : 0];
}

/* The nodes it asked for at least (-N). */
static inline uint32_t job_min_nodes(const struct job *job)
{
	return job->desc.min_nodes == NO_VAL ? 1 : job->desc.min_nodes;
}

/* The tasks a running job asked for (-n, else --ntasks-per-node times its
 * nodes), NO_VAL when it named neither. */
static inline uint32_t job_num_tasks_asked(const struct job *job)
{
	if (job->desc.num_tasks != NO_VAL)
		return job->desc.num_tasks;
	if (job->desc.ntasks_per_node != NO_VAL && job->run)
		return job->desc.ntasks_per_node * job->run->nnodes;
	return NO_VAL;
}

/* The task count an allocation's srun/salloc is told: the one asked for,
 * else what the layout gave (laid_out; -O lays out one a node). */
static inline uint32_t job_alloc_tasks(const struct job *job, uint32_t laid_out)
{
	uint32_t asked = job_num_tasks_asked(job);

	return asked != NO_VAL ? asked : laid_out;
}

/* Its nice value (--nice), 0 when none was given. */
static inline int32_t job_nice(const struct job *job)
{
	return job->desc.nice == NO_VAL ? 0 : (int32_t)job->desc.nice;
}

/* Seconds job may wait for its --switches: its @max-time, at most
 * SchedulerParameters max_switch_wait (max). */
static inline uint32_t job_switch_wait(const struct job *job, uint32_t max)
{
	uint32_t w = job->desc.wait4switch;
	return w == NO_VAL || w > max ? max : w;
}

/* What the request d makes of sched_select(), from d alone (the partition's
 * OverSubscribe is the caller's): nodes, tasks, CPUs, memory and the GRES
 * wants in the node manager's kinds gk.  Returns 0, or -EINVAL with err set
 * (err may be NULL) for GRES the kinds cannot express. */
struct gres_kinds;
struct sched_req;
struct rota_error;
int job_desc_req(const struct gres_kinds *gk, const struct job_desc *d,
                 struct sched_req *r, struct rota_error *err);

/* job->run, made writable: allocated the first time. */
struct job_run *job_run_mut(struct job *job);
/* job->sched, made the first time. */
struct job_sched *job_sched_mut(struct job *job);
/* Forget all of job->sched (the job started, ended or was held). */
void job_sched_clear(struct job *job);
/* Give back the run (requeue): the job points at job_run_none again. */
void job_run_clear(struct job *job);

struct job_mgr;

int job_mgr_create(struct ctld *ctld, struct job_mgr **ret);
void job_mgr_destroy(struct job_mgr *jm);

struct job *job_find(struct job_mgr *jm, uint32_t job_id);
struct job *job_first(struct job_mgr *jm); /* iterate with job->next */
/* Jobs that have started (running, completing or ended): iterate with
 * ->lnext.  Pending jobs in a partition and not held: iterate with ->lnext. */
struct job *job_first_active(struct job_mgr *jm);
struct job *job_first_waiting(struct job_mgr *jm);
size_t job_waiting_count(const struct job_mgr *jm);
/* The scheduling order: higher partition PriorityTier, then higher priority,
 * then lower job id first (<0: x before y). */
int job_prio_cmp(const struct job *x, const struct job *y);
/* The waiting list is kept in job_prio_cmp order where it is cheap to tell:
 * a job added out of order, or whose priority or partition changed before a
 * job_mgr_classify, marks it unsorted (other changes of priority are found by
 * the scheduler's full pass).  The scheduler sorts it (job_waiting_reorder:
 * order[0..n) is every waiting job, in their new order). */
int job_waiting_sorted(const struct job_mgr *jm);
void job_waiting_reorder(struct job_mgr *jm, struct job **order, size_t n);
/* Put job on the lists its state says (after each change of state, hold or
 * partition: job_event_apply). */
void job_mgr_classify(struct job_mgr *jm, struct job *job);
size_t job_count(const struct job_mgr *jm);
uint32_t job_mgr_next_id(struct job_mgr *jm);
void job_mgr_set_next_id(struct job_mgr *jm, uint32_t id);
/* After replay: open StateSaveLocation/job_id_hwm, the job id high-water mark
 * kept apart from the journal (ids are reserved in blocks, one fdatasync a
 * block); when the journal may have lost records (lost: why, "journal
 * damaged" or "journal tail torn"; NULL: it did not), the next id is raised to
 * it, so that no id already acknowledged is handed out again. */
void job_mgr_id_restore(struct ctld *ctld, const char *lost);

/* The strings and string vectors of a job's request (d is job->desc) become
 * the copies kept once for every job that has the same (common/intern.h):
 * shared, never changed in place.  After a job's request is set (EV_SUBMIT,
 * an array task's split, an update).  job_desc_unshare() gives them back and
 * leaves them NULL, before the request is released or replaced. */
void job_desc_share(struct job_mgr *jm, struct job_desc *d);
void job_desc_unshare(struct job_mgr *jm, struct job_desc *d);
/* Set the job's owner (user and group: owned, handed over); given back when
 * the job is removed. */
void job_owner_set(struct job_mgr *jm, struct job *job, uid_t uid, gid_t gid, char *user,
                   char *group);
/* The owner of another job (an array task's, from its array). */
void job_owner_share(struct job *job, const struct job *from);
/* Set the job's owner to a record of the table (counted once more). */
void job_owner_use(struct job_mgr *jm, struct job *job, const struct owner *o);
/* A record of the table's (owner_get: user and group handed over), counted
 * for the caller until job_mgr_owner_drop: a loader's, shared by its jobs. */
const struct owner *job_mgr_owner_get(struct job_mgr *jm, uid_t uid, gid_t gid,
                                      char *user, char *group);
void job_mgr_owner_drop(struct job_mgr *jm, const struct owner *o);
/* The kept copies themselves (the journal writes each text once). */
struct intern *job_mgr_texts(struct job_mgr *jm);

/* Insert a new record (from EV_SUBMIT) / remove one (purge). */
struct job *job_mgr_insert(struct job_mgr *jm, uint32_t job_id);
void job_mgr_remove(struct job_mgr *jm, struct job *job);

/* The record of task `task` of array `array_job_id`, or NULL. */
struct job *job_array_task_find(struct job_mgr *jm, uint32_t array_job_id, uint32_t task);
/* Journal EV_ARRAY_SPLIT: task `task` of the pending remainder `meta` becomes its
 * own pending record (meta itself when it is the last task).  Returns that
 * record (borrowed), or NULL. */
struct job *job_array_split(struct ctld *ctld, struct job *meta, uint32_t task);
/* Running tasks of the array. */
uint32_t job_array_running(struct job_mgr *jm, uint32_t array_job_id);
/* What the array's records in memory say (tasks ended and purged since are
 * not counted): how many have begun (run now, ended, or were requeued), how
 * many are not finished (its pending remainder too), how many were requeued,
 * and the lowest and highest wait status of those finished (0 when none; one
 * that ended otherwise than COMPLETED with status 0 counts as killed by
 * signal 9, as Slurm counts it). */
struct job_array_sum {
	uint32_t begun, open, requeued;
	uint32_t min_exit, max_exit;
};
void job_array_sum(struct job_mgr *jm, uint32_t array_job_id, struct job_array_sum *s);

int job_is_pending(const struct job *job);
/* Forget backfill's plan for the job (est_start, sched_nodes). */
void job_clear_plan(struct job *job);
int job_is_running(const struct job *job);
int job_is_finished(const struct job *job);

/* Operations (ops.h): who asks, the request, where the answer goes. */
void job_mgr_submit(struct ctld *ctld, struct caller *who, struct job_desc *desc,
                    int alloc, struct chan *ch);
/* An allocation's record is durable: tried at once, and client told
 * MSG_ALLOC_PENDING only when it still waits (its MSG_ALLOC_RESP goes when
 * it starts).  Also a heterogeneous allocation's, by its leader. */
void job_mgr_alloc_recorded(struct ctld *ctld, uint32_t job_id, struct chan *client);
void job_mgr_info(struct ctld *ctld, struct caller *who, const struct job_info_req *req,
                  struct chan *ch);
/* A submission checked and given its id, its event ready to commit
 * (ev_submit_commit): ev.user/group point into this. */
struct job_submit_prep {
	struct ev_submit ev;
	char user[64], group[64];
};
enum job_submit_flags {
	JOB_SUBMIT_ALLOC = 1 << 0, /* an allocation (srun, salloc), not a batch job */
	JOB_SUBMIT_PROBE = 1 << 1, /* --test-only: the id it would get, not taken */
};
/* Check d (defaults filled in) as a submission by who (flags: enum
 * job_submit_flags): 0 and *out, or a -ESLURM_* with *ret_msg (caller frees;
 * NULL: Slurm's words for it). */
int job_submit_prepare(struct ctld *ctld, const struct caller *who, struct job_desc *d,
                       unsigned flags, struct job_submit_prep *out, char **ret_msg);
/* The line Slurm's controller adds to a refusal rc of d (its err_msg:
 * "invalid partition specified: NAME"), or NULL; caller frees. */
char *job_submit_detail(struct ctld *ctld, const struct job_desc *d, int rc);
/* squeue's listing, printed here (job_list.c). */
void job_mgr_list(struct ctld *ctld, struct caller *who, const struct job_list_req *req,
                  struct chan *ch);
/* The listing's buffers are kept for the next one while listings come, and
 * freed after a few seconds without (each second), or now (at exit). */
void job_list_tick(struct ctld *ctld, time_t now);
void job_list_bufs_free(struct ctld *ctld);

/* The fields of mask (JI() bits) of job into o, which the caller zeroed; a few
 * others are set anyway.  Strings and arrays are the job's own, lent while o
 * is used, but for those job_info_release() frees (job_info.c). */
void job_info_fill(struct ctld *ctld, const struct job *job, struct job_info *o,
                   uint64_t mask);
void job_info_release(struct job_info *o);
void job_mgr_cancel(struct ctld *ctld, struct caller *who, const struct cancel_req *req,
                    struct chan *ch);
void job_mgr_update(struct ctld *ctld, struct caller *who,
                    const struct job_update_req *req, struct chan *ch);
void job_mgr_complete_req(struct ctld *ctld, struct caller *who,
                          const struct job_complete_req *req, struct chan *ch);
/* srun's or salloc's allocation job started: MSG_ALLOC_RESP r to its
 * connection, which salloc --no-shell then lets go of (the job stays). */
struct alloc_resp;
void job_alloc_granted(struct ctld *ctld, struct job *job, const struct alloc_resp *r);
/* Nobody listens on ch any more: an allocation held there is given up. */
void job_mgr_chan_gone(struct ctld *ctld, struct chan *ch);

/* A job ends now (state: JOB_COMPLETE, JOB_FAILED...): journal it, kill what is
 * left on its nodes, free its resources, wake the scheduler. */
void job_end(struct ctld *ctld, struct job *job, uint32_t state, uint32_t reason,
             uint32_t exit_code);
/* job_end(JOB_CANCELLED) asked by uid (sacct's "CANCELLED by uid"). */
void job_cancel(struct ctld *ctld, struct job *job, uint32_t reason, uid_t uid);

/* Give back node k's resources (once); clears COMPLETING when none are held. */
void job_release_node(struct ctld *ctld, struct job *job, uint32_t k, time_t now);
void job_release_all(struct ctld *ctld, struct job *job, time_t now);

/* Refuse control characters (below 0x20, and DEL) in the short strings of a
 * request: name, comment, account, partition, features, dependency, node lists,
 * array spec, working directory and standard stream paths (the script, its
 * arguments and environment may hold any byte).  Slurm takes any byte, but a
 * newline in a job name breaks every line-oriented consumer (squeue, logs,
 * accounting dumps).  Returns 0 or -ESLURM_INVALID_ARGUMENT with *ret_field
 * (static) and *ret_pos (0-based byte) set. */
int job_desc_check_strings(const struct job_desc *d, const char **ret_field,
                           size_t *ret_pos);

/* The partition a new job of d goes to, as at submit: d's (or the default),
 * unless that takes no new jobs (DRAIN, INACTIVE): then its Alternate, which
 * d->partition is set to.  0 (also when there is no such partition:
 * job_desc_check_resources says so), -ESLURM_PARTITION_NOT_AVAIL,
 * -ESLURM_INVALID_PARTITION_NAME. */
int job_desc_partition_open(struct ctld *ctld, struct job_desc *d);
/* A job may name several partitions (-p a,b): it runs in whichever gives it
 * resources first (sched_pass.c: one queue record per partition, as Slurm's
 * build_job_queue).  desc.partition keeps the list as given (duplicates
 * dropped at submit) for good: a requeued job is back to it.  job->part is the
 * partition it runs in once started (EV_START's partition), and while it
 * waits the first of its list that exists (the scheduler points it at each in
 * turn during a pass and puts it back after). */
#define JOB_PARTS_MAX 64
/* The partitions of list ("a,b"), in its order, that exist: up to max in
 * out[] (borrowed), how many.  NULL list: none. */
size_t job_parts_of(struct node_mgr *nm, const char *list, struct part **out, size_t max);
/* The first partition of list that exists, or NULL. */
struct part *job_part_first(struct node_mgr *nm, const char *list);
/* Does the job name more than one partition? */
static inline int job_multi_part(const struct job *job)
{
	return job->desc.partition && strchr(job->desc.partition, ',') != NULL;
}
/* Its partition as squeue and scontrol show it: the list while it waits
 * (Slurm's), the one it runs or ran in once started (borrowed). */
char *job_part_name(const struct job *job);
/* The time limit of a job of request d in partition p: its own, else p's
 * DefaultTime, else p's MaxTime (minutes or INFINITE32). */
uint32_t job_desc_time_limit(const struct part *p, const struct job_desc *d);
/* The time limit a pending job would have in the partition it is considered
 * in now (job->part): a job of several (-p a,b) that gave none takes the
 * one's it starts in; any other job its own. */
uint32_t job_limit_in_part(const struct job *job);

/* The checks of a request against the cluster, at submit and when scontrol
 * update changes it: partition (the default one filled in), node and task
 * counts, requested nodes, could it ever run.  Returns 0 and sets *ret_part
 * (borrowed), or -ESLURM_*. */
int job_desc_check_resources(struct ctld *ctld, struct job_desc *d,
                             struct part **ret_part);

/* who is the job's owner or an admin. */
int job_may_touch(const struct caller *who, const struct job *job);
/* Task `task` of array `array_id` for who: its own record in *ret_job
 * (*ret_meta NULL), or while it waits in the pending remainder, *ret_job NULL
 * and the remainder in *ret_meta.  Returns 0, -ESLURM_INVALID_JOB_ID, or
 * -ESLURM_ACCESS_DENIED (the remainder is not who's to touch). */
int job_array_task_lookup(struct ctld *ctld, const struct caller *who, uint32_t array_id,
                          uint32_t task, struct job **ret_job, struct job **ret_meta);

/* scontrol requeue; returns 0 or -ESLURM_*. */
int job_requeue(struct ctld *ctld, struct job *job);
/* The job just requeued is held too (hold: 1, a user's, or JOB_HOLD_*): 0,
 * -ESLURM_JOB_NOT_PENDING, or SLURM_ERROR when it cannot be recorded. */
int job_hold_requeued(struct ctld *ctld, struct job *job, uint8_t hold);
/* ... for the reason ended (JOB_NODE_FAIL: its accounting record says so;
 * 0: REQUEUED). */
int job_requeue_as(struct ctld *ctld, struct job *job, uint32_t ended);

/* The job's run is lost with node node_name (borrowed): it failed, or its
 * batch step's stepd died.  A batch job is requeued as Slurm does (JobRequeue=1
 * or --requeue, and not --no-requeue); any other job ends NODE_FAIL. */
void job_node_failed(struct ctld *ctld, struct job *job, const char *node_name);

/* Per-second duties: time limits, purge after MinJobAge. */
void job_mgr_tick(struct ctld *ctld, time_t now);

/* Steps (step_mgr.c). */
void step_create(struct ctld *ctld, struct caller *who, struct step_create_req *req,
                 struct chan *ch);
/* srun over several components (step_het.c, MSG_STEP_HET_CREATE_REQ). */
struct step_het_create_req;
void step_het_create(struct ctld *ctld, struct caller *who,
                     struct step_het_create_req *req, struct chan *ch);
/* The pieces of a step's creation: may who make a step of job now (0, or
 * -ESLURM_*: ESLURM_NODES_BUSY while it is suspended); lay req out over the
 * job, away from the job node positions taken[] marks (NULL: none) (0 with
 * *l filled, release with step_layout_release; or -ESLURM_*,
 * ESLURM_NODES_BUSY when it must wait); journal the laid-out step as
 * step_id, srun waiting on ch (the job's record, or NULL when the journal
 * refused it: l is kept). */
struct step_layout;
int step_may_create(const struct caller *who, const struct job *job);
int step_layout_for(struct ctld *ctld, struct job *job, struct step_create_req *req,
                    const uint8_t *taken, struct step_layout *l);
struct step *step_record(struct ctld *ctld, struct job *job,
                         const struct step_create_req *req, struct step_layout *l,
                         uint32_t step_id, struct chan *ch);
void step_complete(struct ctld *ctld, const struct step_complete *msg);
/* A node ran the job's Prolog (MSG_PROLOG_COMPLETE): a CONFIGURING job is now
 * RUNNING.  A duplicate or late report is ignored. */
void job_mgr_prolog_complete(struct ctld *ctld, const struct step_complete *msg);
void step_free_all(struct job *job);

/* A node (re)registered listing the steps it still has (or has yet to report):
 * the steps the controller thinks run there and that it lacks are over there. */
void step_mgr_reconcile(struct ctld *ctld, uint32_t node_idx,
                        const struct node_register *reg);

/* The journal's side of steps (EV_STEP_START / EV_STEP_END): rebuild a step
 * record, drop one, and describe a live step as the event that rebuilds it
 * (compaction).  Apply functions return 0, -EINVAL or -ENOENT. */
struct ev_step_start;
struct ev_step_end;
int step_apply_start(struct ctld *ctld, struct job *job, const struct ev_step_start *ev);
int step_apply_end(struct job *job, const struct ev_step_end *ev);
struct step *step_find(const struct job *job, uint32_t step_id);

/* Steps' own time limits (step_limit.c): EV_STEP_LIMIT applied; scontrol
 * update StepId= (MSG_STEP_UPDATE_REQ); each second, the running steps of
 * job past theirs killed (Slurm's "CANCELLED ... DUE TO TIME LIMIT"). */
struct ev_step_limit;
struct step_update_req;
int step_apply_limit(struct job *job, const struct ev_step_limit *ev);
void step_update(struct ctld *ctld, struct caller *who, const struct step_update_req *req,
                 struct chan *ch);
void step_limits_tick(struct ctld *ctld, struct job *job, time_t now);
void step_event_fill(const struct job *job, const struct step *st,
                     struct ev_step_start *ev);
void step_info(struct ctld *ctld, struct caller *who, const struct job_info_req *req,
               struct chan *ch);

/* A step over several components as each of its launches tells it: the
 * whole step (ctld/step_het.c). */
struct step_het_view {
	uint32_t leader;           /* the heterogeneous job's leader (or the job) */
	uint32_t step_id;          /* the id its tasks see (the first part's) */
	const char *nodes;         /* every component's step nodes, "a,b,c" */
	struct rota_u32v tasks;    /* tasks on each of them */
	struct rota_u32v map;      /* each task's index in nodes */
	const uint32_t *at;        /* where this component's nodes are there */
	const char *job_nodes;     /* every component's allocation, compressed */
	struct rota_u32v job_cpus; /* CPUs on each of job_nodes */
};

/* Launch (launch.c): send the batch script to its batch host (job_batch_node); send a
 * step's tasks (tasks[i] on the i-th of nodes) to its nodes (0, or -1 when a node is not
 * reachable); het: the whole step when it spans components, else NULL. */
void launch_batch(struct ctld *ctld, struct job *job);
int launch_step(struct ctld *ctld, struct job *job, const struct step *st,
                const struct step_create_req *req, const uint32_t *tasks,
                const char *nodes, const struct step_het_view *het);
/* sig to every process of the batch script's step (scancel --full). */
void job_signal_batch_step(struct ctld *ctld, struct job *job, uint32_t sig);
/* Send SIGNAL_REQ to every node of the job. */
void job_signal_nodes(struct ctld *ctld, struct job *job, uint32_t step_id, uint32_t sig,
                      uint32_t flags);

/* Priority (prio_info.c).  The parameters from slurm.conf and the cluster;
 * a job's factors at time now (see sched/priority.h); answer sprio. */
struct priority_params;
struct priority_factors;
void job_priority_params(struct ctld *ctld, struct priority_params *ret);
/* PriorityWeightTRES parses (slurm.conf read at start or reconfigure):
 * 0, or -1 with err saying which item does not. */
struct conf;
struct rota_error;
int prio_tres_check(const struct conf *cf, struct rota_error *err);
/* part: the partition it is weighed in (-p a,b: each), NULL: job->part. */
void job_priority_factors(struct ctld *ctld, const struct priority_params *pp,
                          const struct job *job, const struct part *part, time_t now,
                          struct priority_factors *ret);
/* A pending job's multifactor priority as of now (the scheduler's full pass
 * refreshes them all); nothing for priority/basic, a held job or one whose
 * priority an admin set. */
void job_priority_refresh(struct ctld *ctld, struct job *job, time_t now);
void prio_info(struct ctld *ctld, struct caller *who, const struct job_info_req *req,
               struct chan *ch);

/* Scheduling (sched_pass.c): a pass over the pending jobs in priority order.
 * SCHED_PASS_FULL considers every one (and recomputes multifactor
 * priorities); otherwise, as after an event, at most default_queue_depth
 * and none once every partition has a job that waits for resources. */
enum sched_pass_flags { SCHED_PASS_FULL = 1 };
void sched_pass(struct ctld *ctld, time_t now, unsigned flags);

#endif
