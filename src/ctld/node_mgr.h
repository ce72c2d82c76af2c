/* node_mgr.h - the controller's view of nodes and partitions. */
#ifndef ROTA_NODE_MGR_H
#define ROTA_NODE_MGR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "ctld/gres_use.h"
#include "proto/messages.h"

struct ctld;
struct caller;
struct chan;
struct conf_part;

struct node {
	const struct conf_node *cfg; /* borrowed from conf */
	uint32_t cpus;
	uint64_t mem;
	uint32_t sockets, cores, threads, boards;
	uint32_t alloc_cpus;  /* may exceed cpus where jobs oversubscribe */
	uint32_t shared_cpus; /* part of alloc_cpus held by jobs sharing cores */
	uint64_t alloc_mem;
	uint32_t run_jobs; /* jobs with an allocation here */
	/* of those, --exclusive=user jobs (all of one user: excl_uid) */
	uint32_t excl_user_jobs;
	uid_t excl_uid;
	/* of those, jobs that keep it to their MCS label (mcs_label.h), and
	 * that label (owned; NULL: none) */
	uint32_t mcs_jobs;
	char *mcs_label;
	uint32_t completing; /* ended jobs not yet confirmed gone here */
	uint8_t *core_used;  /* [cpus]: 0 free, CORE_EXCL held by one job, else how
	                      * many sharing jobs use the core */
	uint32_t flags;      /* NODE_DRAIN | NODE_NO_RESPOND */
	int down;            /* NODE_DOWN (admin or timeout) */
	int admin_down;      /* set by scontrol/config: needs RESUME */
	int registered;      /* has registered since start (or resume) */
	uint8_t power;       /* enum node_power (ctld/power.h) */
	time_t power_since;  /* when it last registered or changed power state; 0:
	                      * ResumeProgram not run yet */
	uint32_t reboot;     /* scontrol reboot's REBOOT_* bits (ctld/reboot.h) */
	time_t reboot_time;  /* REBOOT_ISSUED: when its rotad was told */
	char *reason;
	time_t reason_time;
	uid_t reason_uid;
	time_t boot_time, slurmd_start_time, last_seen, last_busy;
	uint64_t free_mem;
	uint32_t cpu_load;
	uint64_t tmp_disk_found; /* MB its rotad registered for TmpFS; 0 none yet */
	char *os, *arch, *version;
	char *gres_found; /* GRES the node registered ("gpu:h100:8"), NULL: none */
	struct gres_dev_info *gres_devs; /* [ngres_devs] its devices (node_gres.h) */
	uint32_t ngres_devs;
	struct chan *link; /* where the node's rotad takes orders (ref), or NULL */
	/* jobs the node was told to kill and must confirm gone
	 * (STEP_DONE_JOB_GONE) before it is scheduled again (it shows
	 * COMPLETING): those it reported at registration that are no longer
	 * its, and those requeued while running there */
	uint32_t *orphans; /* [norphans], owned */
	uint32_t norphans;
	struct gres_use gres_use; /* its GRES kinds and the devices jobs hold */
	/* scontrol update's AvailableFeatures= / ActiveFeatures= (owned; NULL:
	 * none), in force where feat_set has NODE_FEAT_AVAIL / NODE_FEAT_ACTIVE;
	 * slurm.conf's Features= otherwise (ctld/node_feat.h) */
	char *feat_avail, *feat_act;
	uint32_t feat_set;
};

/* A partition.  Each is its own allocation, where it stays while it exists
 * (jobs point at it); a change (ctld/part_update.h) replaces its settings
 * whole and rebuilds its nodes in place. */
struct part {
	const struct conf_part *cfg; /* its settings: own, never NULL */
	struct conf_part *own;       /* the same, owned (node_mgr's to change) */
	uint32_t *node_idx;          /* indexes into node_mgr's array */
	uint8_t *member;             /* [node count]: 1 for the partition's nodes */
	size_t nnodes;
	uint32_t total_cpus;
	uint64_t total_mem; /* MB: its nodes' RealMemory */
	uint32_t max_cpus;  /* of its largest node */
	int changed;        /* made or changed since slurm.conf was read (scontrol) */
};

#define CORE_EXCL 0xff

/* A partition's OverSubscribe= setting. */
enum part_oversub {
	PART_OVERSUB_NO,
	PART_OVERSUB_EXCLUSIVE,
	PART_OVERSUB_YES,
	PART_OVERSUB_FORCE,
};

struct node_mgr;

int node_mgr_create(struct ctld *ctld, struct node_mgr **ret);
void node_mgr_destroy(struct node_mgr *nm);

size_t node_mgr_count(const struct node_mgr *nm);
struct node *node_mgr_get(struct node_mgr *nm, size_t idx);
/* The names of nodes idx[0..n) as a hostlist, "node[01-03]" (malloc'd). */
char *node_mgr_hostlist(struct node_mgr *nm, const uint32_t *idx, size_t n);
int node_mgr_find(const struct node_mgr *nm, const char *name); /* idx or -1 */

size_t node_mgr_part_count(const struct node_mgr *nm);

/* The cluster's GRES kinds (gres_use.h), from the nodes' Gres=. */
const struct gres_kinds *node_mgr_gres_kinds(const struct node_mgr *nm);
/* A number that changes with each configuration (reconfigure makes a new
 * node manager): what was derived from the old one's GRES kinds is stale. */
uint32_t node_mgr_generation(const struct node_mgr *nm);
struct part *node_mgr_part(struct node_mgr *nm, size_t i);
struct part *node_mgr_part_find(struct node_mgr *nm, const char *name);
struct part *node_mgr_part_default(struct node_mgr *nm);
int part_has_node(const struct part *p, uint32_t node_idx);
/* cp (taken) becomes the partition of its name: it replaces that one's
 * settings (the struct part stays: jobs keep pointing at it) or is added
 * last (*ret_created set to 1 then, NULL allowed).  Its nodes are read from
 * cp->nodes (ALL: every node; names that are no node are left out, logged).
 * With Default=YES it is the only default partition.  It is marked changed.
 * Returns it. */
struct part *node_mgr_part_put(struct node_mgr *nm, struct conf_part *cp,
                               int *ret_created);
/* Remove the partition of name (no job may point at it any longer); with
 * from_conf, slurm.conf's partition of that name is remembered as removed
 * (node_mgr_parts_deleted).  0 or -ENOENT. */
int node_mgr_part_remove(struct node_mgr *nm, const char *name, int from_conf);
/* Put slurm.conf's partitions first, in its order; the others after, as
 * they were. */
struct conf;
void node_mgr_parts_sort(struct node_mgr *nm, const struct conf *conf);
/* slurm.conf's partitions removed since it was read (NULL-terminated,
 * borrowed). */
char *const *node_mgr_parts_deleted(const struct node_mgr *nm);
/* The partition as scontrol show partition and sinfo see it (o zeroed; its
 * members then owned, codec_release frees them). */
struct part_info;
void node_mgr_part_fill(struct ctld *ctld, const struct part *p, struct part_info *o);

/* Base state as Slurm shows it (NODE_IDLE ...) with flags. */
uint32_t node_state(const struct node *n);
/* Can new work start here? */
int node_usable(const struct node *n);
/* Has the node at least the sockets, cores a socket and threads a core the
 * job asks for (-B S:C:T and the long options; 0: any)? */
int node_layout_fits(const struct node *n, const struct job_desc_ext *x);
/* The threads a core its CPUs count: ThreadsPerCore, or 1 when CPUs= counts
 * its cores (CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=2 schedules
 * cores, as in Slurm). */
uint32_t node_cpu_threads(const struct node *n);
/* MB in its TmpFS: its TmpDisk=, or without one what its rotad registered
 * (0 until it has). */
uint64_t node_tmp_disk(const struct node *n);

/* The partition's OverSubscribe mode; *ret_jobs gets how many jobs may share
 * a core (YES[:N] and FORCE[:N], default 4), else 1. */
enum part_oversub part_oversub(const struct part *p, uint32_t *ret_jobs);
/* How many jobs may share a core with a job of these JOB_F_* flags in p: 1 when
 * it may not share (NO, EXCLUSIVE, YES without --oversubscribe, --exclusive). */
uint32_t part_job_share(const struct part *p, uint32_t job_flags);

/* Allocation bookkeeping (called from job_event_apply); share as
 * part_job_share() gave for the job. */
void node_alloc(struct node *n, uint32_t cpus, uint64_t mem, uint32_t share, time_t now);
void node_release(struct node *n, uint32_t cpus, uint64_t mem, uint32_t share,
                  time_t now);
/* Pick count cores into ids when a job starts: free ones lowest first; with
 * pack, a sharing job (share > 1) first joins cores other sharing jobs use
 * fewer than share times (without: it shares only when no core is free, as
 * time slicing wants, ctld/gang.h). */
void node_cores_take(struct node *n, uint32_t count, uint32_t share, int pack,
                     uint32_t *ids);

/* The same, free cores of near (a GRES_CORE_WORDS bitmap: the CPUs close to
 * the job's GPUs; NULL: none) first. */
void node_cores_take_near(struct node *n, uint32_t count, uint32_t share, int pack,
                          const uint64_t *near, uint32_t *ids);
/* The same, for the cores in want[count] where they are still free (a
 * snapshot of a running job); others as node_cores_take picks them. */
void node_cores_claim(struct node *n, uint32_t count, uint32_t share, int pack,
                      const uint32_t *want, uint32_t *ids);
void node_cores_give(struct node *n, uint32_t count, const uint32_t *ids);

/* Messages. */
void node_mgr_register(struct ctld *ctld, struct caller *who, struct node_register *reg,
                       struct chan *ch);
void node_mgr_ping(struct ctld *ctld, struct caller *who, const struct node_ping *p,
                   struct chan *ch);
/* The node daemon that spoke as who on ch is gone. */
void node_mgr_link_lost(struct ctld *ctld, const struct caller *who, struct chan *ch);
/* The node must confirm that job_id is gone (it was told to kill it) before
 * it is scheduled again. */
void node_mgr_orphan_add(struct node *n, uint32_t job_id);
/* The node (name, borrowed) confirmed that nothing of job_id is left there:
 * if it was one of its orphans, forget it.  Returns 1 if it was. */
int node_mgr_orphan_gone(struct ctld *ctld, const char *name, uint32_t job_id);
/* Is job_id still to be confirmed gone by some node? */
int node_mgr_orphan_held(const struct ctld *ctld, uint32_t job_id);
void node_mgr_info(struct ctld *ctld, struct caller *who, struct chan *ch);
void node_mgr_part_info(struct ctld *ctld, struct caller *who, struct chan *ch);
void node_mgr_update(struct ctld *ctld, struct caller *who,
                     const struct node_update_req *r, struct chan *ch);
/* Apply a journaled node state change (ev borrowed). */
struct ev_node_state;
int node_mgr_apply_state(struct ctld *ctld, const struct ev_node_state *ev);
/* The journal record of what n is now (drained, down, powered down, to
 * reboot, its reason): its strings are n's (borrowed). */
void node_mgr_state_event(const struct node *n, struct ev_node_state *ev);
/* Drain a node because of a failure (prolog, epilog) and journal it. */
void node_mgr_drain(struct ctld *ctld, const char *name, const char *reason);
/* Per-second duties: mark silent nodes DOWN; their batch jobs are requeued
 * (JobRequeue / --requeue), the others end NODE_FAIL. */
void node_mgr_tick(struct ctld *ctld, time_t now);
/* Send a message to the node's rotad; -EPIPE when it is not connected. */
int node_send(struct node *n, uint16_t type, const void *body);

#endif
