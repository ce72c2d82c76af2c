/* job_event.h - the only way job state changes, and what the journal stores.
 *
 * Each event type is declared once, below, as its own field list: that list
 * generates `struct ev_NAME` and its codec descriptor, as messages.h does for
 * what crosses a socket.  ROTA_JOB_EVENTS lists the types: name, number,
 * member of `union job_event`.  Every event begins with the same two fields
 * (EV_HEAD: its type and the journal's sequence number), so any event can be
 * read through `head`.  An event carries everything its application needs:
 * times, and the names of users and groups as they were resolved when it was
 * made.  Field names are the journal's keys: never reuse one with a new
 * meaning (a journal written by an older build must replay).
 *
 * job_event_apply() is the one pure state transition on the job table (and
 * the node allocation counters): it reads no clock and looks nothing up, never
 * sends anything, and does the same live and in replay.  Side effects
 * (launching, signalling, replying) are done by the caller after a successful
 * apply and are idempotent, so replaying the journal at start-up needs none.
 */
#ifndef ROTA_JOB_EVENT_H
#define ROTA_JOB_EVENT_H

#include "proto/declare.h"
#include "proto/messages.h"

/* type: enum job_event_type; seq: set by the journal (1, 2, ...; 0 in a
 * snapshot) */
#define EV_HEAD_FIELDS(F, S)                                                             \
	F(S, u32, type, _)                                                               \
	F(S, u64, seq, _)
ROTA_DECLARE(ev_head, EV_HEAD_FIELDS)

/* Every event of one job begins so: the head, then the job's id. */
#define EV_JOB_HEAD_FIELDS(F, S)                                                         \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, u32, job_id, _)
ROTA_DECLARE(ev_job_head, EV_JOB_HEAD_FIELDS)

/* The first record of a snapshot, a new history's first record, and a
 * takeover's mark (repl.h).  lineage: which history this is (random, made
 * with the first journal; 0 in a journal older than it): terms compare only
 * within one. */
#define EV_META_FIELDS(F, S)                                                             \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, u32, next_job_id, _)                                                        \
	F(S, u64, seq_base, _) /* a snapshot's: the last seq it covers */                \
	F(S, u32, term, _)     /* takeovers so far */                                    \
	F(S, i64, time, _)                                                               \
	F(S, u64, lineage, _)
ROTA_DECLARE(ev_meta, EV_META_FIELDS)

/* A job accepted; from a snapshot also what it had become since (a requeued
 * job's eligible time and restarts, an admin-set priority, an array's
 * remainder). */
#define EV_SUBMIT_FIELDS(F, S)                                                           \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)                                                                \
	F(S, str, user, _)         /* the owner's name, as resolved at submit */         \
	F(S, str, group, _)        /* its group's name */                                \
	F(S, list, desc, job_desc) /* exactly one */                                     \
	F(S, u32, priority, _)                                                           \
	F(S, u32, hold, _) /* 0 none, 1 user, 2 admin */                                 \
	F(S, u32, time_limit, _)                                                         \
	F(S, u32, restart_cnt, _)                                                        \
	F(S, u32, state, _)         /* JOB_REQUEUE_FLAG or 0 */                          \
	F(S, u32, flags, _)         /* SUBMIT_EV_* */                                    \
	F(S, i64, eligible_time, _) /* 0: from time and the request */                   \
	F(S, u32, array_job_id, _)  /* 0: a fresh submit */                              \
	F(S, u32, array_task_id, _)                                                      \
	F(S, u32, throttle, _)                                                           \
	F(S, str, array_pending, _) /* the remainder's tasks */                          \
	F(S, u64, env_text, _)      /* journal: desc's env is that TEXT (0: inline) */   \
	F(S, u64, script_text, _)   /* journal: desc's script is that TEXT */
ROTA_DECLARE(ev_submit, EV_SUBMIT_FIELDS)
#define SUBMIT_EV_PRIO_SET 1u /* an admin set its priority */

/* A job given its nodes.  state: JOB_CONFIGURING when a Prolog must run
 * first; slots (a snapshot's): the cores it holds, concatenated. */
#define EV_START_FIELDS(F, S)                                                            \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, str, nodes, _)                                                              \
	F(S, u32v, cpus_per_node, _)                                                     \
	F(S, u32v, tasks_per_node, _)                                                    \
	F(S, u32v, mem_per_node, _)                                                      \
	F(S, u32, state, _)                                                              \
	F(S, u32v, slots, _)                                                             \
	F(S, u32, next_step_id, _)                                                       \
	F(S, u32, derived_exit, _)                                                       \
	F(S, strv, gres, _) /* per node: GRES held (common/gres_req.h); none: no GRES */ \
	F(S, u32, time_limit, _) /* 0: unchanged; else (--deadline, -p a,b) its limit */ \
	/* of a job that names several (-p a,b): the one it runs in; absent              \
	 * (older journals, one partition): its only one */                              \
	F(S, str, partition, _)                                                          \
	/* of one that names several reservations: the one it runs in */                 \
	F(S, str, reservation, _)                                                        \
	/* the batch host: its position in nodes (sbatch --batch); absent (0,            \
	 * older journals): the first */                                                 \
	F(S, u32, batch_node, _)                                                         \
	/* 1: it keeps its nodes to its MCS label (ctld/mcs_label.h) */                  \
	F(S, u32, mcs_select, _)
ROTA_DECLARE(ev_start, EV_START_FIELDS)

#define EV_END_FIELDS(F, S)                                                              \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, u32, state, _) /* the final state */                                        \
	F(S, u32, reason, _)                                                             \
	F(S, u32, exit_code, _)                                                          \
	F(S, u32, derived_exit, _) /* the steps' highest status */                       \
	F(S, u32, cancel_by, _)    /* uid + 1 of who cancelled it; 0 none, unknown */
ROTA_DECLARE(ev_end, EV_END_FIELDS)

#define EV_HOLD_FIELDS(F, S)                                                             \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, u32, hold, _) /* 0 release, 1 user, 2 admin, 4 special exit */              \
	F(S, u32, priority, _)
ROTA_DECLARE(ev_hold, EV_HOLD_FIELDS)

/* time_limit, priority: NO_VAL = unchanged; desc (none or one): the job's new
 * request, without script, env and argv (kept). */
#define EV_UPDATE_FIELDS(F, S)                                                           \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, list, desc, job_desc)                                                       \
	F(S, u32, time_limit, _)                                                         \
	F(S, u32, priority, _)
ROTA_DECLARE(ev_update, EV_UPDATE_FIELDS)

/* A node drained, resumed, set down: state has the NODE_DRAIN / NODE_DOWN
 * flags it keeps; text is the reason, uid and time who gave it and when.
 * reboot: the REBOOT_* bits of scontrol reboot (ctld/reboot.h), 0: none;
 * reboot_time: when its rotad was told to reboot (REBOOT_ISSUED). */
#define EV_NODE_STATE_FIELDS(F, S)                                                       \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, str, node_name, _)                                                          \
	F(S, u32, state, _)                                                              \
	F(S, str, text, _)                                                               \
	F(S, u32, uid, _)                                                                \
	F(S, i64, time, _)                                                               \
	F(S, u32, reboot, _)                                                             \
	F(S, i64, reboot_time, _)
ROTA_DECLARE(ev_node_state, EV_NODE_STATE_FIELDS)

/* Back to PENDING, eligible again at `time`. */
#define EV_REQUEUE_FIELDS(F, S)                                                          \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	/* scrontab's next run of an ended job (its new begin time); 0: none */          \
	F(S, i64, begin_time, _)                                                         \
	F(S, u32, ended, _) /* how the old run ended (JOB_NODE_FAIL); 0: requeued */
ROTA_DECLARE(ev_requeue, EV_REQUEUE_FIELDS)

/* Task array_task_id of an array's pending remainder (job_id) becomes its own
 * record new_job_id (0: it was the last task, the record itself becomes it). */
#define EV_ARRAY_SPLIT_FIELDS(F, S)                                                      \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, u32, array_task_id, _)                                                      \
	F(S, u32, new_job_id, _)
ROTA_DECLARE(ev_array_split, EV_ARRAY_SPLIT_FIELDS)

#define EV_ARRAY_THROTTLE_FIELDS(F, S)                                                   \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, u32, throttle, _) /* 0 none */
ROTA_DECLARE(ev_array_throttle, EV_ARRAY_THROTTLE_FIELDS)

/* The job's nodes are ready (its Prolog is done): no longer CONFIGURING. */
#define EV_CONFIGURED_FIELDS(F, S)                                                       \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)
ROTA_DECLARE(ev_configured, EV_CONFIGURED_FIELDS)

/* A step: its nodes (in the step's order), the cores it holds on each
 * (cpus_per_node of them there; slots: those cores, concatenated), memory,
 * name (text), tasks, cpus and flags (STEP_EV_OVERLAP). */
#define EV_STEP_START_FIELDS(F, S)                                                       \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, u32, step_id, _)                                                            \
	F(S, str, nodes, _)                                                              \
	F(S, u32v, cpus_per_node, _)                                                     \
	F(S, u32v, slots, _)                                                             \
	F(S, u32v, mem_per_node, _)                                                      \
	F(S, str, text, _)                                                               \
	F(S, u32, num_tasks, _)                                                          \
	F(S, u32, num_cpus, _)                                                           \
	F(S, u32, flags, _)                                                              \
	F(S, strv, gres, _) /* per node: the job's GRES it holds; none: no GRES */       \
	F(S, u32v, tasks_per_node, _) /* none: not known (older journals) */             \
	F(S, u32, task_dist, _)       /* their numbering (common/taskdist.h) */          \
	F(S, u32v, task_map, _)       /* arbitrary: each task's node */                  \
	F(S, u32, time_limit, _)      /* minutes (srun -t); 0: the job's */              \
	F(S, str, resv_ports, _)      /* MpiParams ports it holds (resv_ports.h) */
ROTA_DECLARE(ev_step_start, EV_STEP_START_FIELDS)
#define STEP_EV_OVERLAP 1u

#define EV_STEP_END_FIELDS(F, S)                                                         \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, u32, step_id, _)                                                            \
	F(S, i64, time, _)                                                               \
	F(S, u32, exit_code, _) /* the step's highest wait status */                     \
	F(S, u32, state, _)     /* JOB_TIMEOUT (its own limit); 0: from exit_code */
ROTA_DECLARE(ev_step_end, EV_STEP_END_FIELDS)

/* What a step's tasks used on one node (its cgroup, or the step daemon's
 * waited children where there is none), as the node reported it with the
 * step's end: for accounting only (rotadbd), not a change of state.  Only
 * written while accounting is on. */
#define EV_USAGE_FIELDS(F, S)                                                            \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, u32, step_id, _)                                                            \
	F(S, str, node, _)                                                               \
	F(S, u64, max_rss, _) /* KiB, the peak */                                        \
	F(S, u64, user_usec, _)                                                          \
	F(S, u64, sys_usec, _)                                                           \
	GPU_USE_FIELDS(F, S)                                                             \
	F(S, list, tasks, task_used) /* each task's (messages.h) */
ROTA_DECLARE(ev_usage, EV_USAGE_FIELDS)

/* Accounts, users, associations, QOS, resources (ctld/assoc.h), one request's change
 * at once: the del_ records go (by name; an association by account, user
 * and partition), then each record of the others is added or replaces the
 * one of its name, whole. */
/* A user association's decayed usage (fairshare.c), in a snapshot's
 * EV_ASSOC: billing-milliseconds as of the record's usage_time. */
#define SHARE_USAGE_FIELDS(F, S)                                                         \
	F(S, str, account, _)                                                            \
	F(S, str, user, _)                                                               \
	F(S, str, partition, _)                                                          \
	F(S, u64, raw_ms, _)                                                             \
	F(S, u64, cpu_ms, _) /* CPU-milliseconds (GrpTRESMins=cpu=) */
ROTA_DECLARE(share_usage, SHARE_USAGE_FIELDS)

#define EV_ASSOC_FIELDS(F, S)                                                            \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, strv, del_accounts, _)                                                      \
	F(S, strv, del_users, _)                                                         \
	F(S, list, del_assocs, assoc_rec)                                                \
	F(S, strv, del_qos, _)                                                           \
	F(S, strv, del_res, _) /* resources: "name@server" */                            \
	F(S, list, accounts, assoc_account)                                              \
	F(S, list, users, assoc_user)                                                    \
	F(S, list, assocs, assoc_rec)                                                    \
	F(S, list, qos, assoc_qos)                                                       \
	F(S, list, res, assoc_res)                                                       \
	F(S, list, usage, share_usage) /* a snapshot's: every usage, */                  \
	F(S, i64, usage_time, _)       /* ... decayed to then (0: not a snapshot) */
ROTA_DECLARE(ev_assoc, EV_ASSOC_FIELDS)

/* A text the journal's later records refer to by id (ctld/jtext.h): a job's
 * environment (vec) or script (text), written once instead of with every
 * SUBMIT that has it.  Not a change of state: only the journal reads it. */
#define EV_TEXT_FIELDS(F, S)                                                             \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, u64, id, _)                                                                 \
	F(S, u32, is_vec, _)                                                             \
	F(S, str, text, _)                                                               \
	F(S, strv, vec, _)
ROTA_DECLARE(ev_text, EV_TEXT_FIELDS)

/* An advanced reservation made, changed (the record whole, by name) or
 * deleted (del: 1), ctld/resv.h.  nodes: the ones it holds, as chosen when
 * it was made; users and accounts as given ("a,b" or "-a,-b"). */
#define EV_RESV_FIELDS(F, S)                                                             \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, str, name, _)                                                               \
	F(S, u32, del, _)                                                                \
	F(S, i64, start, _)                                                              \
	F(S, i64, end, _)                                                                \
	F(S, str, nodes, _)                                                              \
	F(S, str, partition, _)                                                          \
	F(S, u32, flags, _) /* RESV_F_* (common/resv_flags.h) */                         \
	F(S, u32, purge_comp, _)                                                         \
	F(S, str, users, _)                                                              \
	F(S, str, accounts, _)                                                           \
	F(S, str, licenses, _)                                                           \
	F(S, i64, time, _)                                                               \
	/* a core reservation's CPUs on each of its nodes (in the order of               \
	 * nodes expanded); none: whole nodes */                                         \
	F(S, u32v, cores, _)
ROTA_DECLARE(ev_resv, EV_RESV_FIELDS)

/* A running job suspended (suspend 1: its CPUs given up unless by gang,
 * its processes stopped) or resumed (0), ctld/suspend.h. */
#define EV_SUSPEND_FIELDS(F, S)                                                          \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, u32, suspend, _)                                                            \
	F(S, u32, preempted, _) /* suspended by preemption: resumed when it fits */      \
	F(S, u32, gang, _)      /* by time slicing: its CPUs kept (ctld/gang.h) */
ROTA_DECLARE(ev_suspend, EV_SUSPEND_FIELDS)

/* An event trigger set (the record whole) or cleared (del: 1), by id
 * (ctld/trigger.h; the fields as in proto's struct trigger). */
#define EV_TRIGGER_FIELDS(F, S)                                                          \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, u32, id, _)                                                                 \
	F(S, u32, del, _)                                                                \
	F(S, u32, res_type, _)                                                           \
	F(S, str, res_id, _)                                                             \
	F(S, u32, trig_type, _)                                                          \
	F(S, i32, offset, _)                                                             \
	F(S, u32, flags, _)                                                              \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)                                                                \
	F(S, str, program, _)
ROTA_DECLARE(ev_trigger, EV_TRIGGER_FIELDS)

/* A user's crontab as it now is (ctld/crontab.h): its text (NULL: removed),
 * the lines of entries cancelled since ("first-last,..."), and the jobs of
 * its entries, which recur while they are listed here. */
#define EV_CRONTAB_FIELDS(F, S)                                                          \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, u32, uid, _)                                                                \
	F(S, str, text, _)                                                               \
	F(S, str, disabled, _)                                                           \
	F(S, u32v, job_ids, _)
ROTA_DECLARE(ev_crontab, EV_CRONTAB_FIELDS)

/* A running job goes on without one of its nodes, which failed (--no-kill,
 * ctld/nokill.h): the node leaves its allocation, its resources given back. */
#define EV_EXCISE_FIELDS(F, S)                                                           \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, i64, time, _)                                                               \
	F(S, str, node, _)                                                               \
	F(S, u32, cpus, _) /* the job's CPUs there (accounting); 0 in older journals */
ROTA_DECLARE(ev_excise, EV_EXCISE_FIELDS)

/* A step's time limit changed (scontrol update StepId=): minutes. */
#define EV_STEP_LIMIT_FIELDS(F, S)                                                       \
	EV_JOB_HEAD_FIELDS(F, S)                                                         \
	F(S, u32, step_id, _)                                                            \
	F(S, u32, time_limit, _)
ROTA_DECLARE(ev_step_limit, EV_STEP_LIMIT_FIELDS)

/* A partition made or changed by scontrol (settings: the partition whole, as
 * "Key=Value" of a PartitionName= line, common/conf.h conf_part_format; it
 * replaces the one of that name), deleted (del: PART_EV_DELETE), or every
 * partition back to slurm.conf's (del: PART_EV_RESET, no name: scontrol
 * reconfigure), ctld/part_update.h.  uid, time: who did it, when. */
#define EV_PART_FIELDS(F, S)                                                             \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, str, name, _)                                                               \
	F(S, u32, del, _)                                                                \
	F(S, strv, settings, _)                                                          \
	F(S, u32, uid, _)                                                                \
	F(S, i64, time, _)
ROTA_DECLARE(ev_part, EV_PART_FIELDS)
#define PART_EV_DELETE 1u
#define PART_EV_RESET  2u

/* A node's features as scontrol update set them: set (NODE_FEAT_AVAIL,
 * NODE_FEAT_ACTIVE, proto/messages.h) says which of features (AvailableFeatures)
 * and features_act (ActiveFeatures) replace slurm.conf's (NULL: none);
 * NODE_FEAT_RESET with no node_name: every node back to slurm.conf's
 * (scontrol reconfigure, as Slurm). */
#define EV_NODE_FEATURES_FIELDS(F, S)                                                    \
	EV_HEAD_FIELDS(F, S)                                                             \
	F(S, str, node_name, _)                                                          \
	F(S, u32, set, _)                                                                \
	F(S, str, features, _)                                                           \
	F(S, str, features_act, _)
ROTA_DECLARE(ev_node_features, EV_NODE_FEATURES_FIELDS)

/* name, number (in the journal: never reuse one), member of union job_event */
#define ROTA_JOB_EVENTS(E)                                                               \
	E(EV_META, 1, meta)                                                              \
	E(EV_SUBMIT, 2, submit)                                                          \
	E(EV_START, 3, start)                                                            \
	E(EV_END, 4, end)                                                                \
	E(EV_HOLD, 5, hold)                                                              \
	E(EV_UPDATE, 6, update)                                                          \
	E(EV_NODE_STATE, 7, node_state)                                                  \
	E(EV_REQUEUE, 8, requeue)                                                        \
	E(EV_ARRAY_SPLIT, 9, array_split)                                                \
	E(EV_ARRAY_THROTTLE, 10, array_throttle)                                         \
	E(EV_CONFIGURED, 11, configured)                                                 \
	E(EV_STEP_START, 12, step_start)                                                 \
	E(EV_STEP_END, 13, step_end)                                                     \
	E(EV_TEXT, 14, text)                                                             \
	E(EV_USAGE, 15, usage)                                                           \
	E(EV_ASSOC, 16, assoc)                                                           \
	E(EV_RESV, 17, resv)                                                             \
	E(EV_SUSPEND, 18, suspend)                                                       \
	E(EV_TRIGGER, 19, trigger)                                                       \
	E(EV_CRONTAB, 20, crontab)                                                       \
	E(EV_EXCISE, 21, excise)                                                         \
	E(EV_STEP_LIMIT, 22, step_limit)                                                 \
	E(EV_PART, 23, part)                                                             \
	E(EV_NODE_FEATURES, 24, node_features)

#define ROTA_EV_ENUM(name, num, m) name = num,
enum job_event_type { ROTA_JOB_EVENTS(ROTA_EV_ENUM) EV_TYPE_END };
#undef ROTA_EV_ENUM

#define ROTA_EV_MEMBER(name, num, m) struct ev_##m m;
union job_event {
	struct ev_head head;
	struct ev_job_head job; /* all but META, NODE_STATE, TEXT, ASSOC, RESV,
	                         * TRIGGER, CRONTAB, PART, NODE_FEATURES */
	ROTA_JOB_EVENTS(ROTA_EV_MEMBER)
};
#undef ROTA_EV_MEMBER

struct ctld;
struct rota_error;

/* The descriptor of events of type `type`, or NULL for an unknown type. */
const struct rota_type *job_event_type_of(uint32_t type);

/* "SUBMIT", "START", ... ("?" for an unknown type). */
const char *job_event_name(uint32_t type);

/* Encode ev (its head.type says which); *ret_buf: the caller frees.  -EINVAL
 * for an unknown type. */
int job_event_encode(const union job_event *ev, char **ret_buf, size_t *ret_len);

/* Decode one journal record into ev (need not be zeroed).  -EPROTO (err
 * says why) for a record that does not decode or has an unknown type. */
int job_event_decode(const char *data, size_t len, union job_event *ev,
                     struct rota_error *err);

/* Free the members of ev (of its type) and zero it. */
void job_event_release(union job_event *ev);

/* Apply ev to the controller's state.  Returns 0 or -ENOENT/-EINVAL (an event
 * that does not fit the state, e.g. END of an unknown job: skipped on replay). */
int job_event_apply(struct ctld *ctld, const union job_event *ev);

/* job_event_apply, taking what it keeps from ev instead of copying it (an
 * event decoded for this, released after: the journal's replay). */
int job_event_apply_owned(struct ctld *ctld, union job_event *ev);

/* job_event_apply_owned of a SUBMIT (its request taken) whose owner is had
 * already, counted once more for the job (a state image, ctld/image.h): its
 * uid, gid, user and group are not looked at.  The request's texts are kept
 * copies (job_mgr_texts) that the caller counts for the job once it is in
 * (intern_hold_*: many jobs at once), not job_desc_share. */
struct owner;
int job_event_apply_submit_as(struct ctld *ctld, struct ev_submit *ev,
                              const struct owner *owner);

/* Apply and journal in one step.  Returns job_event_apply's rc; nothing is
 * journaled when it fails. */
int job_event_commit(struct ctld *ctld, const union job_event *ev);

/* The typed way in: ev_submit_commit(ctld, &submit) etc. set the type and
 * commit (the event is not changed). */
#define ROTA_EV_COMMIT(name, num, m)                                                     \
	int ev_##m##_commit(struct ctld *ctld, const struct ev_##m *ev);
ROTA_JOB_EVENTS(ROTA_EV_COMMIT)
#undef ROTA_EV_COMMIT

#endif
