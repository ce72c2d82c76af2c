/* trigger.h - strigger's event triggers: a program run when a node goes down
 * or up, drains or stays idle, a job ends or nears its time limit, the
 * configuration is read again, or a standby takes control.
 *
 * DESIGN: a trigger is journaled as EV_TRIGGER (job_event.h), the record
 * whole or its deletion, applied by trigger_apply() live and in replay and
 * written whole by every compaction (trigger_snapshot), so triggers survive
 * restarts and reach a standby.  What the nodes looked like is kept here, not
 * journaled: each second (trigger_tick) the nodes are compared with the last
 * look, and an event found makes its triggers due at once (or --offset
 * seconds later; --idle: after that long idle; --time: the offset from the
 * job's end).  A due trigger's program runs on this host as the trigger's
 * user with its argument (the nodes, as a host list, or the job id), in a
 * process of its own that the loop does not wait for (killed after five
 * minutes); a trigger without PERM is deleted once it ran.  Who may set them:
 * anyone when SlurmUser is root, else SlurmUser only (the program runs as the
 * setter, which a daemon not run as root cannot do for others).  Job triggers
 * of jobs that ended or left the table are deleted; --fini fires first.
 */
#ifndef ROTA_CTLD_TRIGGER_H
#define ROTA_CTLD_TRIGGER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct caller;
struct chan;
struct trigger;
struct ev_trigger;
struct trigger_mgr;

/* Triggers a user other than root may hold at once, in all. */
#define TRIGGER_MAX         10000
#define TRIGGER_PROGRAM_MAX 4096
#define TRIGGER_RUN_LIMIT_S 300

/* EV_TRIGGER: 0, or -ENOENT (deleting one that does not exist). */
int trigger_apply(struct ctld *ctld, const struct ev_trigger *ev);
/* The i-th trigger as its EV_TRIGGER (copies: the writer releases them);
 * returns 1, or 0 past the last. */
int trigger_snapshot(const struct trigger_mgr *m, size_t i, struct ev_trigger *ev);
/* Forget every trigger (a state reload); NULL allowed. */
void trigger_mgr_clear(struct trigger_mgr *m);
void trigger_mgr_destroy(struct trigger_mgr *m);

/* strigger --set, --clear, --get: each answered on ch. */
void trigger_set_request(struct ctld *ctld, const struct caller *who,
                         const struct trigger *req, struct chan *ch);
void trigger_clear_request(struct ctld *ctld, const struct caller *who,
                           const struct trigger *req, struct chan *ch);
void trigger_get_request(struct ctld *ctld, struct chan *ch);

/* An event that is not a node's or a job's (TRIG_T_RECONFIG,
 * TRIG_T_PRI_CTLD_FAIL, TRIG_T_BU_CTLD_AS_CTRL): its triggers fire at the
 * next tick. */
void trigger_note(struct ctld *ctld, uint32_t type);
/* Each second: find the events, run what is due. */
void trigger_tick(struct ctld *ctld, time_t now);

#endif
