/* ctld.h - rotactld's context: one struct that points to each module's state.
 *
 * DESIGN: one event-loop thread owns all of this.  Modules are created in the
 * order listed and destroyed in reverse.  Job state changes only through
 * job_event_apply() (job_event.c); every applied event is also journaled, and
 * replaying the journal at start-up applies the same events.
 */
#ifndef ROTA_CTLD_H
#define ROTA_CTLD_H

#include "ctld/power.h"
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct conf;
struct conf_files;
struct auth;
struct event_base;
struct event;
struct conn;
struct journal;
struct node_mgr;
struct job_mgr;
struct listener;
struct predict;
struct bf_ctld;
struct ctld_stats;
struct repl;
struct old_conf;
struct assoc_mgr;
struct step_stats;
struct bcasts;
struct trigger_mgr;
struct crontab_mgr;
struct ctld_topo;
struct resv_mgr;
struct ctld_mcs;

struct ctld {
	const struct conf *conf; /* borrowed from main */
	struct event_base *base;
	struct auth *auth;
	uid_t slurm_uid;
	struct power_rates power_rates; /* ctld/power.h */
	time_t start_time;
	char *hostname;
	struct node_mgr *nodes;
	struct job_mgr *jobs;
	struct journal *journal;
	struct listener *listener;
	char *notify_socket;       /* the service manager's (common/sdnotify.h) */
	struct event *sched_ev;    /* deferred scheduling pass */
	int sched_pending;         /* sched_ev is armed */
	int sched_full;            /* ... for a pass over every pending job */
	double sched_last;         /* monotonic seconds at the end of the last pass */
	struct event *tick_ev;     /* 1 s: time limits, node timeouts, purge */
	int replaying;             /* applying the journal: no side effects */
	time_t journal_retry_at;   /* journal failed: next rewrite try (main.c) */
	int journal_retry_wait;    /* seconds between tries, doubling */
	struct predict *predict;   /* users' runtimes, for bf_estimate=predict */
	struct predict *learned;   /* the learned model, for bf_estimate=learned */
	struct ctld_stats *stats;  /* sdiag's figures (stats.h) */
	size_t ctld_index;         /* which SlurmctldHost line this controller is */
	int standby;               /* a backup following the primary (repl.h) */
	size_t leader_index;       /* standby: the controller it follows */
	uint32_t term;             /* takeovers in the history (EV_META) */
	uint64_t lineage;          /* which history (EV_META): terms compare
	                            * only within one */
	int step_down;             /* a newer term serves: start again, to stand
	                            * by (repl_step_down) */
	struct repl *repl;         /* replication, either side (repl.c) */
	struct assoc_mgr *assoc;   /* accounts, users, QOS (assoc.h) */
	struct resv_mgr *resvs;    /* advanced reservations (resv.h) */
	time_t preempt_until;      /* a preemptor waits for its victims until
	                            * then: what preemption suspended stays so */
	int dbd_lost, backup_lost; /* strigger: a follower went away (repl.c) */
	time_t gang_next;          /* time slicing: the slice ends (gang.h) */
	uint64_t gang_gen;         /* res_gen when it last looked */
	int gang_again;            /* a job too young to stop: look again */
	/* applying a snapshot's or image's events: they describe state, not
	 * changes (nothing is charged to fairshare) */
	int restoring;
	struct {                   /* accounting (acct.h) */
		uint64_t stored;   /* rotadbd holds the events up to here */
		uint64_t saved;    /* what acct_seq says */
		int held_back;     /* a compaction waits for rotadbd */
		int compact_asked; /* SIGUSR1's compaction waits for it */
	} acct;
	struct old_conf *old_confs; /* replaced by reconfigure (reconfig.c) */
	const char *state_dir;      /* rotactld -s: StateSaveLocation overridden */
	char *clients_path;         /* the clients' unix socket (a backup serves it
	                             * once it takes over) */
	time_t bf_last;             /* the last backfill pass */
	struct bf_ctld *bf_run;     /* the backfill pass in progress (backfill.c) */
	struct ctld_topo *topo;     /* topology.conf (topo.h), NULL: none */
	/* enable_configless: the files served to nodes, as read with the
	 * running slurm.conf (reconfig.h); NULL: not configless, or unread */
	struct conf_files *conf_files;
	struct event *bf_ev;             /* its next slice */
	uint64_t res_gen;                /* bumped when a job takes or frees resources or
	                                  * a node changes state */
	struct job_list_bufs *list_bufs; /* squeue's, between listings (job_list.c) */
	struct job **pass_jobs;          /* sched_pass's, kept between passes */
	size_t pass_jobs_cap;
	size_t heap_free_after_trim;   /* main.c's heap_tick */
	struct step_stats *step_stats; /* sstat's requests waiting for nodes
	                                * (step_stat.h), made when first asked */
	struct trigger_mgr *triggers;  /* strigger's (trigger.h), or NULL */
	struct crontab_mgr *crontabs;  /* scrontab's (crontab.h), or NULL */
	/* jobs of one request checked but not recorded yet (a crontab's
	 * entries): counted against MaxJobCount and the submit limits */
	uint32_t submit_extra;
	struct bcasts *bcasts;   /* sbcast's blocks waiting for nodes (bcast.h) */
	uint32_t resv_port_next; /* MpiParams ports: where the next search
	                          * starts (resv_ports.h) */
	struct ctld_mcs *mcs;    /* MCSPlugin's settings, read when first asked
	                          * (mcs_label.h) */
};

/* Ask for a scheduling pass soon (coalesced: at most one per loop turn). */
void ctld_sched_kick(struct ctld *ctld);

/* Run the next slice of the backfill pass in progress at the loop's next
 * turn, after what is waiting (requests) has been served. */
void ctld_backfill_kick(struct ctld *ctld);

struct caller;
struct chan;
/* Answer MSG_CONFIG_REQ (config_info.c). */
void config_info(struct ctld *ctld, struct caller *who, struct chan *ch);

/* The name a controller gives when it connects to another (a backup to the
 * primary): no node can have it. */
#define CTLD_PEER_NAME "@slurmctld"

/* Is uid an operator (root or SlurmUser)? */
int ctld_is_admin(const struct ctld *ctld, uid_t uid);

#endif
