/* job_event.h - the only way job state changes, and what the journal stores.
 *
 * job_event_apply() is pure state transition on the job table (and the node
 * allocation counters); it never sends anything.  Side effects (launching,
 * signalling, replying) are done by the caller after a successful apply and
 * are idempotent, so replaying the journal at start-up needs none of them.
 */
#ifndef ROTA_JOB_EVENT_H
#define ROTA_JOB_EVENT_H

#include "proto/declare.h"
#include "proto/messages.h"

enum job_event_type {
	EV_META = 1, /* next_job_id; seq_base in a snapshot */
	EV_SUBMIT,   /* job_id uid gid user group time desc priority hold */
	EV_START,    /* job_id time nodes cpus_per_node tasks_per_node mem_per_node
	              * state (JOB_CONFIGURING: a Prolog must run first) */
	EV_END,      /* job_id time state reason exit_code */
	EV_HOLD,     /* job_id hold (0 release, 1 user, 2 admin) priority */
	/* job_id time_limit priority (NO_VAL = unchanged); desc (when present):
	 * the job's new request, without script, env and argv (kept) */
	EV_UPDATE,
	EV_NODE_STATE, /* node_name state (NODE_DRAIN / NODE_DOWN flags) text uid time */
	EV_REQUEUE,    /* job_id time: back to PENDING, eligible again at `time` */
	/* job_id (an array's pending remainder) array_task_id new_job_id: the task
	 * becomes its own record new_job_id (0: the remainder's last task, the
	 * record itself becomes the task) */
	EV_ARRAY_SPLIT,
	EV_ARRAY_THROTTLE, /* job_id throttle (0 none) */
	EV_CONFIGURED, /* job_id: its nodes are ready (Prolog done), not CONFIGURING */
	/* job_id time step_id nodes (in the step's order) cpus_per_node (cores
	 * held on each) slots (those cores, concatenated) mem_per_node text (name)
	 * num_tasks num_cpus flags (STEP_EV_OVERLAP) */
	EV_STEP_START,
	EV_STEP_END, /* job_id step_id exit_code (the step's highest wait status) */
};

#define STEP_EV_OVERLAP    1u
#define SUBMIT_EV_PRIO_SET 1u /* SUBMIT (compaction): an admin set its priority */

#define JOB_EVENT_FIELDS(F, S)                                                           \
	F(S, u32, type, _)                                                               \
	F(S, u32, job_id, _)                                                             \
	F(S, i64, time, _)                                                               \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)                                                                \
	F(S, list, desc, job_desc)                                                       \
	F(S, str, nodes, _)                                                              \
	F(S, u32v, cpus_per_node, _)                                                     \
	F(S, u32v, tasks_per_node, _)                                                    \
	F(S, u32v, mem_per_node, _)                                                      \
	F(S, u32, state, _)                                                              \
	F(S, u32, reason, _)                                                             \
	F(S, u32, exit_code, _)                                                          \
	F(S, u32, hold, _)                                                               \
	F(S, u32, priority, _)                                                           \
	F(S, u32, time_limit, _)                                                         \
	F(S, u32, next_job_id, _)                                                        \
	F(S, str, node_name, _)                                                          \
	F(S, str, text, _)                                                               \
	F(S, u32, restart_cnt, _)                                                        \
	F(S, u32, array_job_id, _)  /* SUBMIT from compaction: 0 = fresh submit */       \
	F(S, u32, array_task_id, _) /* SUBMIT (compaction), ARRAY_SPLIT */               \
	F(S, u32, new_job_id, _)    /* ARRAY_SPLIT */                                    \
	F(S, u32, throttle, _)      /* SUBMIT (compaction), ARRAY_THROTTLE */            \
	F(S, str, array_pending, _) /* SUBMIT (compaction): the remainder */             \
	F(S, u32, step_id, _)       /* STEP_START, STEP_END */                           \
	F(S, u32v, slots, _)        /* STEP_START */                                     \
	F(S, u32, num_tasks, _)     /* STEP_START */                                     \
	F(S, u32, num_cpus, _)      /* STEP_START */                                     \
	F(S, u32, flags, _)         /* STEP_START */                                     \
	F(S, u64, seq, _)           /* set by the journal: 1, 2, ...; 0 in a snapshot */ \
	F(S, u64, seq_base, _)      /* META of a snapshot: the last seq it covers */     \
	F(S, str, user, _)  /* SUBMIT: the owner's name, as resolved at submit */        \
	F(S, str, group, _) /* SUBMIT: its group's name */                               \
	/* what a snapshot (compaction) carries that no single live event does */        \
	F(S, i64, eligible_time, _) /* SUBMIT: a requeued job's (state: the flag) */     \
	F(S, u32, next_step_id, _)  /* START: the next step's id */                      \
	F(S, u32, derived_exit, _)  /* START, END: the steps' highest status */          \
	F(S, u32, term, _)          /* META: takeovers so far (repl.h) */
ROTA_DECLARE(job_event, JOB_EVENT_FIELDS)

struct ctld;

/* Apply ev to the controller's state.  Returns 0 or -ENOENT/-EINVAL (an event
 * that does not fit the state, e.g. END of an unknown job: skipped on replay). */
int job_event_apply(struct ctld *ctld, const struct job_event *ev);

/* Apply and journal in one step (the normal path).  Returns job_event_apply's rc;
 * nothing is journaled when it fails. */
int job_event_commit(struct ctld *ctld, const struct job_event *ev);

#endif
