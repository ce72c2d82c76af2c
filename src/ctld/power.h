/* power.h - power saving, as Slurm's power_save: idle nodes are handed to
 * SuspendProgram and powered down; a job given powered-down nodes waits
 * CONFIGURING while ResumeProgram boots them, and starts when their rotad
 * registers.
 *
 * DESIGN: all on the event loop, from the per-second tick.  The programs are
 * started detached (a double fork: nothing to reap, their exit ignored).
 * "Powered down" and "booting" are journaled, as an EV_NODE_STATE carrying
 * NODE_POWERED_DOWN or NODE_POWERING_UP: a restarted controller keeps a node
 * powered down, and keeps waiting for one booting (ResumeTimeout counted
 * from the journaled time, the ResumeProgram not run again) with the jobs
 * that wait CONFIGURING for it, launched once it registers.  Powering down
 * is a moment a restart ends.  Nodes with State=CLOUD start powered down. */
#ifndef ROTA_POWER_H
#define ROTA_POWER_H

#include <stdint.h>
#include <time.h>

struct ctld;
struct job;
struct node;

enum node_power {
	NODE_POWER_ON,         /* up, or never powered down */
	NODE_POWER_DOWN_ASKED, /* scontrol power down while busy: when idle */
	NODE_POWER_GOING_DOWN, /* SuspendProgram run; SuspendTimeout not over */
	NODE_POWER_OFF,        /* powered down: may be allocated, then resumed */
	NODE_POWER_GOING_UP,   /* resumed for a job, waiting for its rotad */
};

/* Counters of the programs run in the current minute (ResumeRate,
 * SuspendRate); embedded in struct ctld. */
struct power_rates {
	time_t window;
	uint32_t suspended, resumed;
};

/* The NODE_POWER* / NODE_CLOUD state flags for n. */
uint32_t power_state_flags(const struct node *n);
/* May a job be given n although it is not up (powered down, or booting)? */
int power_node_allocatable(const struct node *n);
/* Are all nnodes nodes in idx up and registered (the job may launch)? */
int power_nodes_ready(struct ctld *ctld, const uint32_t *idx, uint32_t nnodes);
/* A job just started (CONFIGURING) on nodes some of which are not up: resume
 * those powered down and hold its launch until all register. */
void power_job_hold(struct ctld *ctld, struct job *job);
/* Does the job starting now reboot its nodes first (--reboot, with a
 * RebootProgram; without one it is ignored, as Slurm does)? */
int power_job_reboots(struct ctld *ctld, const struct job *job);
/* It does (CONFIGURING): each of its nodes is booting from now (NO_RESPOND,
 * POWERING_UP, as Slurm shows it; one powered down is resumed as by
 * power_job_hold) and its rotad told to run RebootProgram; the job launches
 * once all registered again, or is requeued when one is not back within
 * ResumeTimeout. */
void power_job_reboot(struct ctld *ctld, struct job *job);
/* n's rotad registered: a node booting for jobs is up; launch the jobs whose
 * nodes are all up now. */
void power_node_registered(struct ctld *ctld, struct node *n);
/* Per-second duties: suspend idle nodes, end SuspendTimeout, run the
 * ResumeProgram within ResumeRate, fail nodes past ResumeTimeout. */
void power_tick(struct ctld *ctld, time_t now);
/* After a restart: the CONFIGURING jobs on nodes still booting wait for
 * them again (their launch held, as power_job_hold did). */
void power_restore(struct ctld *ctld);
/* scontrol power up|down: 0, or a negative ESLURM_* error. */
int power_request(struct ctld *ctld, struct node *n, int up);

#endif
