/* conf.h - slurm.conf, parsed into an immutable object.
 *
 * DESIGN: every known key lives in one table in conf_keys.c (name, type,
 * default, bounds, reloadable).  Parsing fills a struct conf; unknown keys log a
 * warning (file:line) and are kept for `scontrol show config`; errors in known
 * keys fail with "file:line: message".  Keys are case-insensitive as in Slurm.
 * "Include PATH" (glob allowed, relative to the including file's directory) nests
 * up to 8 deep.  NodeName= and PartitionName= lines take hostlist expressions;
 * per-node Port=, NodeHostname=, NodeAddr= may be lists/ranges that are spread
 * over the expanded names (Port=[7001-7004] for node[01-04]).
 * NodeName=DEFAULT and PartitionName=DEFAULT set defaults for later lines.
 */
#ifndef ROTA_CONF_H
#define ROTA_CONF_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

enum conf_node_state {
	CONF_NODE_UNKNOWN,
	CONF_NODE_IDLE,
	CONF_NODE_DOWN,
	CONF_NODE_DRAIN,
	CONF_NODE_FUTURE,
	CONF_NODE_CLOUD /* powered down until a job needs it (power saving) */
};
enum conf_part_state {
	CONF_PART_UP,
	CONF_PART_DOWN,
	CONF_PART_DRAIN,
	CONF_PART_INACTIVE
};

struct conf_node {
	char *name;
	char *hostname; /* NodeHostname, defaults to name */
	char *addr;     /* NodeAddr, defaults to hostname */
	uint16_t port;  /* Port, defaults to SlurmdPort */
	uint32_t cpus;  /* CPUs; default Boards*Sockets*Cores*Threads, or 1 */
	/* sockets counts the sockets of all boards */
	uint32_t boards, sockets, cores_per_socket, threads_per_core;
	uint64_t real_memory; /* MB, default 1 */
	uint64_t tmp_disk;    /* MB */
	uint32_t weight;      /* default 1 */
	char *features;       /* Features= as written, NULL if none */
	char *gres;           /* Gres= as written, NULL if none */
	enum conf_node_state state;
	char *reason; /* Reason= */
};

struct conf_part {
	char *name;
	char *nodes;       /* Nodes= as written (hostlist expression), may be "ALL" */
	char **node_names; /* expanded, NULL-terminated */
	size_t node_count;
	int is_default;         /* Default=YES */
	uint32_t max_time;      /* minutes, TIME_INFINITE when UNLIMITED (default) */
	uint32_t default_time;  /* minutes, TIME_INFINITE when unset */
	uint32_t max_nodes;     /* UINT32_MAX when UNLIMITED (default) */
	uint32_t min_nodes;     /* default 1 */
	uint32_t priority_tier; /* default 1 */
	uint32_t priority_job_factor; /* default 1 */
	char *oversubscribe; /* NO (default), YES, FORCE, EXCLUSIVE (as written) */
	char *allow_groups;  /* NULL = ALL */
	/* TRESBillingWeights: "CPU=1.0,Mem=0.25G,Node=2" (NULL: billing = CPUs) */
	char *tres_billing_weights;
	enum conf_part_state state;
	char *preempt_mode;  /* PreemptMode= of its jobs; NULL: the global one */
	uint32_t grace_time; /* GraceTime=: seconds a preempted job is given */
	/* AllowAccounts/AllowQos (NULL: ALL), else DenyAccounts/DenyQos (NULL:
	 * none): comma lists of names, as written */
	char *allow_accounts, *deny_accounts;
	char *allow_qos, *deny_qos;
	char *qos;             /* QOS=: the partition's QOS, NULL: none (shown only) */
	char *alternate;       /* Alternate=: where submissions go while DRAIN/INACTIVE */
	char *alloc_nodes;     /* AllocNodes= hosts jobs may come from (NULL: ALL) */
	int hidden;            /* Hidden=YES: not shown without -a */
	int root_only;         /* RootOnly=YES: only root and SlurmUser submit */
	int req_resv;          /* ReqResv=YES: jobs must name a reservation */
	int exclusive_user;    /* ExclusiveUser=YES */
	int lln;               /* LLN=YES */
	int disable_root_jobs; /* DisableRootJobs=YES: no jobs run as root */
	uint32_t max_cpus_per_node; /* UINT32_MAX: UNLIMITED */
	uint32_t
	    over_time_limit; /* minutes; UINT32_MAX: UNLIMITED, NO_VAL: the cluster's */
	/* DefMemPerCPU, DefMemPerNode, MaxMemPerCPU, MaxMemPerNode: MB, 0 none
	 * (ctld/part_mem.h) */
	uint64_t def_mem_per_cpu, def_mem_per_node, max_mem_per_cpu, max_mem_per_node;
};

/* One key=value as written (last one wins), for `scontrol show config`. */
struct conf_kv {
	char *key; /* canonical spelling from the table, or as written if unknown */
	char *value;
};

#define CONF_BACKUPS_MAX 3 /* SlurmctldHost lines after the first */

struct conf {
	char *path;
	char *cluster_name;   /* ClusterName, default "cluster" */
	char *slurmctld_host; /* first SlurmctldHost, host part */
	char *slurmctld_addr; /* "(addr)" part of SlurmctldHost, or NULL */
	/* the SlurmctldHost lines after the first: standby controllers, in the
	 * order they take over */
	char *backup_host[CONF_BACKUPS_MAX];
	char *backup_addr[CONF_BACKUPS_MAX]; /* or NULL */
	size_t backup_count;
	uint16_t slurmctld_port; /* SlurmctldPort, default 6817 */
	uint16_t slurmd_port;    /* SlurmdPort, default 6818 */
	char *slurm_user;        /* SlurmUser, default root */
	char *auth_type;         /* AuthType, default auth/munge */
	char *auth_info;         /* AuthInfo, NULL */
	char *auth_alt_types;    /* AuthAltTypes: "auth/jwt" or NULL */
	char *auth_alt_params;   /* AuthAltParameters: "jwt_key=PATH", NULL */
	char *tls_type;          /* TLSType: the daemons' RPCs stay unencrypted */
	char *tls_params;        /* TLSParameters: rotarestd's certificate and key */
	char *licenses; /* Licenses: "name:count,..." (common/licenses.h), NULL */
	/* PreemptType, PreemptMode, PreemptExemptTime (ctld/preempt.h) */
	char *preempt_type, *preempt_mode, *preempt_exempt_time;
	/* GresTypes: the GRES names nodes may have ("gpu,nic"), NULL; a node's
	 * Gres= naming another is warned about; gres.conf sits beside
	 * slurm.conf (common/gres_conf.h) */
	char *gres_types;
	char *state_save_location; /* default /var/spool/rotactld */
	char *slurmd_spool_dir;    /* default /var/spool/rotad */
	char *tmp_fs;              /* TmpFS, default /tmp: its size is TmpDisk */
	char *slurmctld_log_file;  /* NULL = stderr */
	char *slurmd_log_file;
	char *scheduler_type;         /* default sched/backfill */
	char *scheduler_params;       /* SchedulerParameters, NULL; kill_invalid_depend */
	char *slurmctld_params;       /* SlurmctldParameters, NULL; enable_configless */
	char *select_type;            /* default select/cons_tres */
	char *topology_plugin;        /* NULL: none (topology.conf not read) */
	char *select_type_parameters; /* default CR_Core_Memory? as written, NULL */
	char *propagate_rlimits;      /* PropagateResourceLimits; NULL: ALL */
	char *propagate_rlimits_except;
	char *enforce_part_limits; /* EnforcePartLimits: NO (default), ALL, ANY, YES */
	/* ReconfigFlags: KeepPartInfo, KeepPartState (partitions changed by
	 * scontrol outlive a reconfigure, ctld/part_update.h), NULL */
	char *reconfig_flags;
	char *priority_type;      /* default priority/basic */
	uint32_t prio_weight_age; /* PriorityWeight*: default 0 */
	uint32_t prio_weight_fairshare;
	uint32_t prio_weight_job_size;
	uint32_t prio_weight_partition;
	uint32_t prio_weight_qos;
	uint32_t prio_weight_assoc;
	char *prio_weight_tres; /* PriorityWeightTRES: "cpu=N,mem=N", NULL */
	uint32_t prio_max_age;  /* PriorityMaxAge, minutes, default 7-0 */
	/* fairshare (ctld/fairshare.c): PriorityDecayHalfLife in minutes
	 * (default 7-0, 0: no decay), PriorityUsageResetPeriod (NONE, DAILY,
	 * WEEKLY, MONTHLY, QUARTERLY, YEARLY), PriorityFlags (NO_FAIR_TREE:
	 * the classic factor; MAX_TRES) */
	uint32_t prio_decay_half_life;
	char *prio_usage_reset;
	char *prio_flags;
	int prio_favor_small; /* PriorityFavorSmall=YES */
	char *proctrack_type, *task_plugin;
	/* srun's MPI type when it has no --mpi (none, pmi2, pmix; stepd/pmi.h) */
	char *mpi_default;
	/* sbcast: BcastParameters (DestDir=, send_libs, Compression=) and
	 * BcastExclude (directories whose libraries --send-libs leaves out) */
	char *bcast_parameters, *bcast_exclude;
	/* MailProg (run as `MailProg -s SUBJECT USER`) and MailDomain (added to
	 * a --mail-user without '@') */
	char *mail_prog, *mail_domain;
	/* ScronParameters: scrontab is there with "enable" (ctld/crontab.h) */
	char *scron_parameters;
	uint32_t min_job_age;       /* seconds, default 300 */
	uint32_t slurmd_timeout;    /* seconds, default 300 */
	uint32_t slurmctld_timeout; /* seconds, default 120 */
	uint32_t kill_wait;         /* seconds, default 30 */
	uint32_t resv_over_run;     /* minutes a job may run past its reservation's
	                             * end; UINT32_MAX UNLIMITED */
	/* JobAcctGatherFrequency ("task=N,..." or "N", default 30) and
	 * JobAcctGatherType (jobacct_gather/cgroup, /linux, /none), as
	 * written; common/acctg.h reads them */
	char *acctg_freq, *acctg_type;
	uint32_t kill_on_bad_exit;  /* KillOnBadExit: srun's default for -K */
	uint32_t job_requeue;       /* JobRequeue: batch jobs requeued by default */
	uint32_t inactive_limit;    /* default 0 */
	uint32_t message_timeout;   /* default 10 */
	uint32_t return_to_service; /* 0..2, default 0 */
	/* power saving (ctld/power.h): programs given a hostlist; suspend_time
	 * is UINT32_MAX (NONE, -1, INFINITE, the default) when off; rates are
	 * nodes per minute, 0 unlimited */
	char *suspend_program, *resume_program;
	uint32_t suspend_time, suspend_timeout, resume_timeout;
	uint32_t suspend_rate, resume_rate;
	char *suspend_exc_nodes, *suspend_exc_parts;
	/* scontrol reboot (ctld/reboot.h): the command line rotad runs */
	char *reboot_program;
	uint32_t max_job_count;      /* default 10000 */
	uint32_t max_array_size;     /* default 1001 */
	uint32_t max_tasks_per_node; /* default 512 */
	uint32_t over_time_limit;  /* minutes past a time limit; UINT32_MAX: UNLIMITED */
	uint32_t first_job_id;     /* default 1 */
	uint32_t max_job_id;       /* default 0x03ff0000 */
	uint32_t sched_time_slice; /* SchedulerTimeSlice, default 30 */
	uint64_t def_mem_per_cpu;  /* MB, 0 = unset */
	uint64_t def_mem_per_node; /* MB, 0 = unset */
	char *prolog, *epilog, *task_prolog;
	char *srun_prolog, *srun_epilog; /* srun runs them (--prolog, --epilog) */
	char *prolog_flags; /* PrologFlags: Contain gives each job N.extern */
	char *mpi_params;   /* MpiParams (common/mpiparams.h) */
	/* --container-image: where a node keeps imported images (NULL:
	 * SlurmdSpoolDir/containers) and the directory of OCI layouts that
	 * registry references name (NULL: none) */
	char *container_cache, *container_mirror;
	/* accounting: accounting_storage/slurmdbd has the controller feed
	 * rotadbd; events it has not stored are kept (up to MaxDBDMsgs, 0:
	 * Slurm's default, max(10000, 2 * MaxJobCount + 4 * nodes)) */
	char *accounting_storage_type;
	char *accounting_storage_host;
	uint16_t accounting_storage_port;
	uint32_t max_dbd_msgs;
	/* AccountingStorageEnforce: associations, limits, qos, safe, ... */
	char *accounting_storage_enforce;
	/* AccountingStorageTRES: typed GRES listed ("gres/gpu:h100") are shown
	 * in TRES; a GRES's total always is (common/gres_req.h) */
	char *accounting_storage_tres;
	/* PrivateData: what users see of others' records ("usage,users");
	 * read by scontrol show assoc_mgr (ctld/assoc_info.c) only */
	char *private_data;
	/* MCSPlugin and MCSParameters, as given (common/mcs.h reads them) */
	char *mcs_plugin;
	char *mcs_params;
	int allow_spec_resources; /* AllowSpecResourcesUsage: -S/--thread-spec not
	                           * refused (they still keep no cores aside) */

	struct conf_node *nodes;
	size_t node_count;
	struct conf_part *parts;
	size_t part_count;

	struct conf_kv *kv; /* every key=value line that is not NodeName/PartitionName */
	size_t kv_count;
	/* every file read: path first, then each Include'd one in the order
	 * read (as its Include line resolved it) */
	char **files;
	size_t file_count;
};

/* Parse path.  Warnings (unknown keys) are logged at LOG_WARNING with file:line.
 * Returns 0 and sets *ret (caller destroys) or -1 with err "file:line: why". */
int conf_load(const char *path, struct conf **ret, struct rota_error *err);

/* Same, from a string (for tests); name is used in messages; Include paths are
 * relative to the current directory. */
int conf_load_string(const char *text, const char *name, struct conf **ret,
                     struct rota_error *err);

void conf_destroy(struct conf *conf); /* NULL allowed */

/* Find a node/partition by name; NULL if none.  Borrowed. */
const struct conf_node *conf_node_find(const struct conf *conf, const char *name);
const struct conf_part *conf_part_find(const struct conf *conf, const char *name);

/* The path to read: $SLURM_CONF, else $ROTA_CONF, else /etc/slurm/slurm.conf
 * when it exists, else conf_run_dir()/slurm.conf when it exists (a configless
 * node's, as its rotad fetched it), else /etc/slurm/slurm.conf.  Borrowed
 * (a thread's own buffer for the last). */
const char *conf_default_path(void);
/* UP, DOWN, DRAIN, INACTIVE (UNKNOWN for a value out of range). */
const char *conf_part_state_str(uint32_t state);
/* Would slurm.conf take Key=value for the whole cluster (not on a NodeName=
 * or PartitionName= line): a key it knows, a value it can read?  Returns 1,
 * 2 when value is the key's default as written (none: 0, NO or empty), or 0. */
int conf_global_value_ok(const char *key, const char *value);
/* Where a configless rotad links its cache (rotad --conf-server):
 * $ROTA_RUN_CONF, else /run/rota/conf (Slurm's is /run/slurm/conf). */
const char *conf_run_dir(void);

/* The controllers: 0 the primary (the first SlurmctldHost), then the backups.
 * conf_ctld_addr is where controller i listens: its "(addr)", else its name. */
/* AccountingStorageType=accounting_storage/slurmdbd: rotadbd keeps the
 * accounts (the controller feeds it, sacct asks it). */
int conf_accounting(const struct conf *conf);
size_t conf_ctld_count(const struct conf *conf);
/* SlurmctldParameters has enable_configless: the controller serves its
 * configuration files to nodes (common/conf_files.h). */
int conf_configless(const struct conf *conf);
/* AuthAltTypes names auth/jwt: the HS256 key's path (AuthAltParameters
 * jwt_key=, else StateSaveLocation/jwt_hs256.key unless jwks= is given, as
 * Slurm), malloc'd; NULL when JWT or HS256 is not enabled. */
char *conf_jwt_key_path(const struct conf *conf);
/* TLSParameters' key=PATH (restd_cert_file, restd_cert_key_file), else
 * dflt beside slurm.conf, as Slurm; malloc'd. */
char *conf_tls_file(const struct conf *conf, const char *key, const char *dflt);
const char *conf_ctld_host(const struct conf *conf, size_t i);
const char *conf_ctld_addr(const struct conf *conf, size_t i);

/* Seconds between a node daemon's pings of its controller: a third of the
 * shorter of SlurmctldTimeout and SlurmdTimeout, from 1 to
 * CONF_NODE_PING_MAX_S (both sides read the one slurm.conf).  The node leaves
 * a controller silent for SlurmctldTimeout. */
#define CONF_NODE_PING_MAX_S  10
#define CONF_NODE_PING_MISSED 2
uint32_t conf_node_ping_s(const struct conf *conf);
/* Silence after which the controller marks a node NOT_RESPONDING (and closes
 * its connection): CONF_NODE_PING_MISSED pings and a second, never more than
 * SlurmdTimeout, after which it is set DOWN. */
uint32_t conf_node_silence_s(const struct conf *conf);

/* Is memory a consumable resource (SelectTypeParameters CR_*_Memory, the
 * default), or only a per-node limit (CR_CPU, CR_Core, CR_Socket)? */
int conf_mem_consumable(const struct conf *conf);

/* A partition made outside slurm.conf (scontrol create partition): every key
 * at its default, named name (copied).  Returns 0 or -ENOMEM. */
int conf_part_init(struct conf_part *p, const char *name);
/* dst (uninitialised) becomes a deep copy of src.  Returns 0 or -ENOMEM
 * (dst then holds nothing). */
int conf_part_copy(struct conf_part *dst, const struct conf_part *src);
/* Free what p holds (NULL allowed) and zero it. */
void conf_part_release(struct conf_part *p);
/* Set one key of a PartitionName= line in p (its name as slurm.conf spells
 * it, case-insensitive, aliases too) from a value written as slurm.conf would
 * have it.  Setting Nodes= empties node_names: the caller expands it again.
 * Returns 0; -EINVAL with err "Key=value: expected ..." (p unchanged); or
 * -ENOENT for a key that is not a partition's setting (PartitionName, keys
 * Rota ignores, unknown ones). */
int conf_part_set(struct conf_part *p, const char *key, const char *value,
                  struct rota_error *err);
/* p's every key that has a field, in the table's order, as "Key=Value" that
 * conf_part_set reads back to the same partition (keys whose string value is
 * NULL left out: a partition made by conf_part_init has them NULL too).  A
 * NULL-terminated vector, caller frees (strv_free); aborts on ENOMEM. */
char **conf_part_format(const struct conf_part *p);

/* The default partition (the last one written with Default=YES), or NULL.
 * Borrowed.  conf_load leaves is_default set on that one partition only. */
const struct conf_part *conf_part_default(const struct conf *conf);

/* The effective global configuration for `scontrol show config` and
 * `rotactld -T`: every key Rota uses, in table order, with its value or default
 * as Slurm prints it ("MinJobAge = 300 sec" gives key MinJobAge, value
 * "300 sec"), then every accepted-but-unused and unknown key as written.
 * Sets *ret (caller frees with conf_kv_free) and *ret_count.
 * Returns 0 or -ENOMEM. */
int conf_dump_kv(const struct conf *conf, struct conf_kv **ret, size_t *ret_count);
void conf_kv_free(struct conf_kv *kv, size_t count); /* NULL allowed */

/* For reconfigure: 0 if every global key that needs a restart is the same in
 * old and new, else -1 with err naming the first key that differs. */
int conf_reload_check(const struct conf *old, const struct conf *new_conf,
                      struct rota_error *err);

/* PrologFlags holds Contain (or X11, which implies it): each job has an
 * extern step. */
int conf_prolog_contain(const struct conf *c);

#endif
