/* fairshare.h - what each association has used, decayed over time, and the
 * fairshare factor that gives its users' jobs (priority/multifactor).
 *
 * DESIGN: a job's usage is charged when it ends, from the journal's END
 * event (its CPUs, or TRESBillingWeights' billing, times its run time, times
 * its QOS's UsageFactor), at the event's time: a replay or a standby charges
 * exactly what the controller did.  Usage decays with PriorityDecayHalfLife
 * (applied lazily, each time something is charged or read) and is cleared at
 * each PriorityUsageResetPeriod.  What jobs still running have used so far
 * is added when the factors are computed, not stored.  A snapshot's EV_ASSOC
 * carries every association's usage, so restarts keep it.
 *
 * The factor: Fair Tree by default (associations ranked depth-first, each
 * level by Level FS = share of its siblings' shares / share of their usage;
 * a user's factor is its rank over the number of user associations), the
 * classic 2^(-usage/shares) with PriorityFlags=NO_FAIR_TREE.  Both as in
 * Slurm; sshare shows the numbers.
 */
#ifndef ROTA_CTLD_FAIRSHARE_H
#define ROTA_CTLD_FAIRSHARE_H

#include <time.h>

struct assoc_mgr;
struct caller;
struct chan;
struct ctld;
struct ev_assoc;
struct fairshare;
struct job;

/* Charge job (running until end) to its user association. */
void fairshare_charge(struct ctld *ctld, const struct job *job, time_t end);

/* job's fairshare factor in [0, 1] as of now (computed at most once a
 * second, or after a change). */
double fairshare_factor(struct ctld *ctld, const struct job *job, time_t now);

struct assoc_rec;
/* The CPU-minutes association r and everything below it have used (decayed
 * as the fairshare usage is, running jobs so far included), and
 * (*running_left) what their running jobs may still use to their limits. */
double fairshare_cpu_mins(struct ctld *ctld, const struct assoc_rec *r, time_t now,
                          double *running_left);

/* What the factors' computation found for association r as of now
 * (scontrol show assoc_mgr): its share of its siblings' shares, its factor
 * (a user's; 0 for an account), the usage of it and everything below it
 * (billing-seconds, decayed, running jobs so far included), that usage over
 * the cluster's and over its parent's, and its CPU-seconds.  Returns 0, or
 * -ENOENT (r not kept: *ret untouched). */
struct fairshare_of {
	double norm_shares, factor, usage, norm_usage, eff_usage, cpu_secs;
};
int fairshare_get(struct ctld *ctld, const struct assoc_rec *r, time_t now,
                  struct fairshare_of *ret);

/* MSG_SHARE_REQ: every association's shares, usage and factor. */
void fairshare_list(struct ctld *ctld, struct caller *who, struct chan *ch);

/* A snapshot's usage records (into ev), and applying them (ev->usage_time
 * set: the usage is replaced). */
void fairshare_snapshot(const struct assoc_mgr *m, struct ev_assoc *ev);
void fairshare_restore(struct assoc_mgr *m, const struct ev_assoc *ev);

/* The usage of association r (being removed) forgotten. */
void fairshare_forget(struct assoc_mgr *m, const struct assoc_rec *r);

void fairshare_free(struct fairshare *fs); /* NULL allowed */

#endif
