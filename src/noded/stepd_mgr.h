/* stepd_mgr.h - the step daemons (rotastepd) of this node.
 *
 * One per launch (batch script or a step's tasks here): a child of rotad that
 * runs the step daemon without an exec (stepd/stepd_main.h: an exec of
 * rotastepd, its loader and its libraries cost about 1 ms of CPU a job), with
 * the launch request on fd 3 (a socketpair whose other end stays here as a
 * conn).  Stepds are
 * independent sessions: rotad exiting or restarting does not touch them; a new
 * rotad re-attaches through their spool sockets (stepd_mgr_scan) and forwards
 * completions they left in the spool meanwhile.
 *
 * A stepd reports MSG_STEP_COMPLETE once; it is passed to the done callback.
 * A stepd that goes away without reporting is reported as failed (status =
 * wait status of exit 1; STEP_DONE_LAUNCH_FAILED when it failed during setup),
 * after everything left in its step's cgroup is killed.
 *
 * rotad owns its jobs' cgroups (stepd/cgroup.h, cgroup_reap): a job the
 * controller terminates is reported gone (STEP_DONE_JOB_GONE) only when its
 * stepds are gone and nothing is left in its cgroups, which are removed; the
 * Epilog runs after that.  The live list sent at registration names the jobs
 * with a cgroup here too, so that the controller can have orphans killed.
 */
#ifndef ROTA_NODED_STEPD_MGR_H
#define ROTA_NODED_STEPD_MGR_H

#include "proto/messages.h"

struct conf;

struct event_base;
struct stepd_mgr;

/* sc is borrowed for the call. */
typedef void (*stepd_done_f)(void *arg, const struct step_complete *sc);

struct stepd_mgr_opts {
	const char *node_name;
	const char *spool; /* this node's spool dir (rotad's cwd) */
	/* rotad's argv area (contiguous), which a step daemon's title replaces
	 * (ps shows "rotastepd: [12.batch]"); NULL: left as it is */
	char *title;
	size_t title_len;
	const char *conf_path;   /* absolute, passed as SLURM_CONF */
	const struct conf *conf; /* rotad's, handed to forked step daemons */
	const char *epilog;      /* slurm.conf Epilog, or NULL */
	const char *cluster;     /* ClusterName */
	const char *log_file;    /* NULL: stepds log to rotad's stderr */
	int verbose;
	int no_spawner; /* fork step daemons from rotad itself (noded/spawner.h) */
	/* cgroup.conf ConstrainDevices=yes: every launch tells its stepd so
	 * (LAUNCH_NF_CONSTRAIN_DEVICES) with the node's GRES devices, gres_devs
	 * [ngres_devs] (borrowed: must outlive the manager) */
	int constrain_devices;
	const struct gres_dev_info *gres_devs;
	uint32_t ngres_devs;
	stepd_done_f done;
	stepd_done_f prolog_done; /* MSG_PROLOG_COMPLETE from a stepd */
	/* a stepd's MSG_NODE_STAT_RESP (sstat), borrowed for the call; also
	 * called here with rc -ESLURM_INVALID_JOB_ID for a step not running */
	void (*stat_done)(void *arg, const struct node_stat_resp *r);
	void *arg;
};

/* Strings in opts are borrowed and must outlive the manager. */
struct stepd_mgr *stepd_mgr_create(struct event_base *base,
                                   const struct stepd_mgr_opts *o);
/* Lets go of the stepds without signalling them.  NULL allowed. */
void stepd_mgr_destroy(struct stepd_mgr *m);

/* Re-attach to stepds left by an earlier rotad and collect their completions
 * from the spool (reported through the done callback). */
void stepd_mgr_scan(struct stepd_mgr *m);

/* Start a stepd for req (borrowed).  A failure is reported through the done
 * callback as STEP_DONE_LAUNCH_FAILED. */
void stepd_mgr_launch(struct stepd_mgr *m, const struct launch_req *req);

/* Is a stepd of this job step known here (running, or not yet reaped)? */
int stepd_mgr_has(struct stepd_mgr *m, uint32_t job_id, uint32_t step_id);

/* Forward a signal to the matching stepds (step_id NO_VAL: all of the job). */
void stepd_mgr_signal(struct stepd_mgr *m, const struct signal_req *req);

/* sstat: ask the stepd of req's step for its usage now; the answer comes
 * through stat_done (at once when there is no such stepd). */
void stepd_mgr_stat(struct stepd_mgr *m, const struct step_stat_req *req);
/* sattach: hand the step's stepd a MSG_STEP_ATTACH_REQ (req borrowed);
 * nothing when no such step runs here. */
struct step_attach;
void stepd_mgr_attach(struct stepd_mgr *m, const struct step_attach *req);

/* Jobs whose end is being seen to here (their Epilog, their processes
 * killed): a rotad executed again now would lose track of them. */
int stepd_mgr_ending(const struct stepd_mgr *m);

/* The (job, step) pairs of live stepds, and (job, NO_VAL) for each job with a
 * cgroup here; caller frees jobs->v and steps->v. */
void stepd_mgr_live(struct stepd_mgr *m, struct rota_u32v *jobs, struct rota_u32v *steps);

#endif
