/* states.h - job and node states, pending reasons and Slurm error numbers, with
 * the exact names Slurm's tools print. */
#ifndef ROTA_STATES_H
#define ROTA_STATES_H

#include <stdint.h>

enum job_state {
	JOB_PENDING = 0,
	JOB_RUNNING,
	JOB_SUSPENDED,
	JOB_COMPLETE,
	JOB_CANCELLED,
	JOB_FAILED,
	JOB_TIMEOUT,
	JOB_NODE_FAIL,
	JOB_PREEMPTED,
	JOB_BOOT_FAIL,
	JOB_DEADLINE,
	JOB_OOM,
	JOB_END
};
#define JOB_STATE_BASE   0x00ffu
#define JOB_REQUEUE_FLAG 0x0400u
/* held after scontrol requeuehold State=SpecialExit: shown SPECIAL_EXIT */
#define JOB_SPECIAL_EXIT 0x1000u
#define JOB_SUSPEND_FLAG                                                                 \
	0x2000u /* the controller's: a RUNNING job stopped                               \
	         * (scontrol suspend), shown SUSPENDED */
#define JOB_CONFIGURING 0x4000u
#define JOB_COMPLETING  0x8000u

/* "PENDING", "COMPLETING", "OUT_OF_MEMORY" ... (flags win over the base). */
const char *job_state_name(uint32_t state);
/* squeue's compact code: "PD", "CG", "OOM" ... */
const char *job_state_code(uint32_t state);
/* Parse a name or code (case-insensitive) for squeue -t; -1 if unknown. */
int job_state_parse(const char *s);
/* A finished base state (COMPLETE and later). */
int job_state_is_finished(uint32_t state);

enum job_reason {
	WAIT_NO_REASON = 0,
	WAIT_PRIORITY,
	WAIT_DEPENDENCY,
	WAIT_RESOURCES,
	WAIT_PART_NODE_LIMIT,
	WAIT_PART_TIME_LIMIT,
	WAIT_PART_DOWN,
	WAIT_PART_INACTIVE,
	WAIT_HELD,      /* JobHeldAdmin */
	WAIT_HELD_USER, /* JobHeldUser */
	WAIT_TIME,      /* BeginTime */
	WAIT_NODE_NOT_AVAIL,
	WAIT_DEP_INVALID,
	FAIL_EXIT_CODE,
	FAIL_TIMEOUT,
	FAIL_LAUNCH,
	FAIL_DOWN_NODE,
	FAIL_OOM,
	WAIT_ARRAY_TASK_LIMIT, /* JobArrayTaskLimit */
	/* association and QOS limits (ctld/assoc_limits.h) */
	WAIT_ASSOC_MAX_JOBS,
	WAIT_ASSOC_GRP_JOBS,
	WAIT_ASSOC_GRP_CPU,
	WAIT_ASSOC_GRP_NODE,
	WAIT_ASSOC_GRP_MEM,
	WAIT_ASSOC_MAX_WALL,
	WAIT_ASSOC_MAX_CPU_PER_JOB,
	WAIT_ASSOC_MAX_NODE_PER_JOB,
	WAIT_QOS_MAX_JOBS_PER_USER,
	WAIT_QOS_MAX_CPU_PER_USER,
	WAIT_QOS_MAX_WALL,
	WAIT_QOS_GRP_JOBS,
	WAIT_ASSOC_GRP_CPU_MIN, /* GrpTRESMins=cpu= used up */
	WAIT_QOS_GRP_CPU,
	WAIT_QOS_GRP_NODE,
	WAIT_QOS_GRP_MEM,
	WAIT_QOS_MAX_CPU_PER_JOB,
	WAIT_QOS_MAX_NODE_PER_JOB,
	/* the partition's nodes that are up are too few for the job, all of
	 * them would do: some are down, drained, powering down (Slurm's words) */
	WAIT_NODES_DOWN,
	WAIT_LICENSES,     /* too few of its -L licenses are free */
	FAIL_DEADLINE,     /* it could not end before its --deadline */
	WAIT_RESERVATION,  /* its --reservation has not begun */
	WAIT_RESV_DELETED, /* its --reservation is gone */
	/* nodes it could use are reserved (ctld/resv.h): for maintenance, or
	 * for others (Slurm's words, with ReqNodeNotAvail) */
	WAIT_RESV_MAINT,
	WAIT_RESV_OTHER,
	/* its partition does not allow (or denies) its account, its QOS: the
	 * partition changed since it was submitted, or EnforcePartLimits=NO */
	WAIT_ACCOUNT,
	WAIT_QOS,
	/* over its partition's MaxMemPerCPU/MaxMemPerNode (EnforcePartLimits=NO) */
	WAIT_PN_MEM_LIMIT,
	/* per node and minimum limits (MaxTRESPerNode, MinTRES) */
	WAIT_ASSOC_MAX_CPU_PER_NODE,
	WAIT_ASSOC_MAX_MEM_PER_NODE,
	WAIT_QOS_MAX_CPU_PER_NODE,
	WAIT_QOS_MAX_MEM_PER_NODE,
	WAIT_QOS_MIN_CPU,
	WAIT_QOS_MIN_NODE,
	WAIT_QOS_MIN_MEM,
	WAIT_REASON_END
};

/* "Resources", "JobHeldUser", "NonZeroExitCode" ... */
const char *job_reason_name(uint32_t reason);

enum node_state {
	NODE_UNKNOWN = 0,
	NODE_DOWN,
	NODE_IDLE,
	NODE_ALLOCATED,
	NODE_ERROR,
	NODE_MIXED,
	NODE_FUTURE,
	NODE_END
};
#define NODE_STATE_BASE 0x000fu
#define NODE_DRAIN      0x0200u
#define NODE_COMPLETING 0x0400u
#define NODE_NO_RESPOND 0x0800u
/* power saving (ctld/power.h); sinfo's suffixes ~ # % ! */
#define NODE_POWERED_DOWN  0x1000u
#define NODE_POWERING_UP   0x2000u
#define NODE_POWERING_DOWN 0x4000u
#define NODE_POWER_DOWN    0x8000u /* asked to power down once its jobs end */
#define NODE_CLOUD         0x10000u
/* in an active advanced reservation (ctld/resv.h); of one for maintenance */
#define NODE_RESERVED 0x20000u
#define NODE_MAINT    0x40000u
/* scontrol update State=FAIL: expected to fail, no new jobs (strigger --fail) */
#define NODE_FAIL 0x80000u
/* scontrol reboot (ctld/reboot.h): to reboot once free (sinfo "@", "boot"
 * while idle); RebootProgram run, the node not back yet ("^") */
#define NODE_REBOOT_REQUESTED 0x100000u
#define NODE_REBOOT_ISSUED    0x200000u

/* sinfo's short name: "idle", "alloc", "mix", "down", "drain", "drng", "comp",
 * with "*" appended when not responding. */
const char *node_state_short(uint32_t state, char *buf, int len);
/* sinfo %T / -l long name: "idle", "allocated", "mixed", "drained", "draining". */
const char *node_state_long(uint32_t state, char *buf, int len);
/* scontrol's "IDLE+DRAIN", "DOWN+NOT_RESPONDING". */
const char *node_state_upper(uint32_t state, char *buf, int len);

/* The Slurm release whose commands, wire shapes and JSON Rota matches. */
#define ROTA_SLURM_VERSION "22.05.8"

/* Slurm 22.05's error numbers (REST clients see them), so the CLIs can
 * print Slurm's words.  The few Rota has of its own say so. */
enum slurm_errno {
	SLURM_OK = 0,
	SLURM_ERROR = -1,
	SLURM_COMMUNICATIONS_CONNECTION_ERROR = 1001,
	SLURM_PROTOCOL_AUTHENTICATION_ERROR = 1007,
	ESLURM_INVALID_PARTITION_NAME = 2000,
	ESLURM_DEFAULT_PARTITION_NOT_SET = 2001,
	ESLURM_ACCESS_DENIED = 2002,
	ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP = 2003,
	ESLURM_REQUESTED_NODES_NOT_IN_PARTITION = 2004,
	ESLURM_TOO_MANY_REQUESTED_CPUS = 2005,
	ESLURM_INVALID_NODE_COUNT = 2006,
	ESLURM_JOB_SCRIPT_MISSING = 2009,
	ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE = 2014,
	ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE = 2015,
	ESLURM_NODES_BUSY = 2016,
	ESLURM_INVALID_JOB_ID = 2017,
	ESLURM_INVALID_NODE_NAME = 2018,
	ESLURM_WRITING_TO_FILE = 2019,
	ESLURM_TRANSITION_STATE_NO_UPDATE = 2020,
	ESLURM_ALREADY_DONE = 2021,
	ESLURM_IN_STANDBY_MODE = 2027,
	ESLURM_JOB_PENDING = 2024,
	ESLURM_DISABLED = 2037,
	ESLURM_JOB_NOT_PENDING = 2073,
	ESLURM_JOB_NOT_RUNNING = 2085,
	ESLURM_JOB_HELD = 2042,
	ESLURM_INVALID_TIME_LIMIT = 2051,
	ESLURM_NOT_SUPPORTED = 2036,
	ESLURM_INVALID_NODE_STATE = 2028,
	ESLURM_INVALID_DEPENDENCY = 2038,
	ESLURM_BAD_DIST = 2023,
	ESLURM_BAD_TASK_COUNT = 2025,
	ESLURM_INVALID_TASK_MEMORY = 2044,
	ESLURM_INVALID_FEATURE = 2029,
	ESLURM_ACTIVE_FEATURE_NOT_SUBSET = 2031,
	ESLURM_BATCH_CONSTRAINT = 2114, /* sbatch --batch not a subset of -C */
	ESLURM_PARTITION_DOWN = 2101,
	ESLURM_REBOOT_IN_PROGRESS = 2120,
	ESLURM_PARTITION_NOT_AVAIL = 2070,
	ESLURM_PARTITION_IN_USE = 2075,
	ESLURM_INVALID_TRES_BILLING_WEIGHTS = 2116,
	ESLURM_ENVIRONMENT_MISSING = 2127,
	ESLURM_CONFIGLESS_DISABLED = 2126,   /* no enable_configless */
	ESLURM_REACHED_MAX_JOB_COUNT = 2190, /* Rota's (Slurm says EAGAIN) */
	ESLURM_PATHNAME_TOO_LONG = 2012,
	ESLURM_INVALID_ARGUMENT = 2071, /* Rota's: a request it cannot read */
	ESLURM_INVALID_GRES = 2072,
	ESLURM_INVALID_ARRAY = 2081,
	ESLURM_RESERVATION_INVALID = 2053,
	ESLURM_INVALID_LICENSES = 2048,
	ESLURM_INVALID_TIME_MIN_LIMIT = 2124,
	ESLURM_RESERVATION_ACCESS = 2052,
	ESLURM_INVALID_TIME_VALUE = 2054,
	ESLURM_RESERVATION_BUSY = 2055,
	ESLURM_PORTS_BUSY = 2059,
	ESLURM_PORTS_INVALID = 2060,
	ESLURM_RESERVATION_NOT_USABLE = 2056,
	ESLURM_NODE_NOT_AVAIL = 2068,
	ESLURM_RESERVATION_OVERLAP = 2058,
	ESLURM_RESERVATION_EMPTY = 2080,
	ESLURM_RESERVATION_NAME_DUP = 2082,
	ESLURM_CORE_RESERVATION_UPDATE = 2109,
	ESLURM_INVALID_CPU_COUNT = 2069,
	ESLURM_JOB_SUSPENDED = 2077,
	ESLURM_JOB_NOT_SUSPENDED = 2087,
	ESLURM_TRIGGER_DUP = 2089,
	ESLURM_CANNOT_MODIFY_CRON_JOB = 2095,
	ESLURM_NOT_HET_JOB_LEADER = 2107,
	ESLURM_NOT_WHOLE_HET_JOB = 2108,
	ESLURM_INVALID_MCS_LABEL = 2099,
	/* accounting */
	ESLURM_INVALID_ACCOUNT = 2045,
	ESLURM_INVALID_QOS = 2066,
	ESLURM_INVALID_PARENT_ACCOUNT = 2046,
	ESLURM_ACCOUNTING_POLICY = 2050,
	ESLURM_USER_ID_MISSING = 2010, /* slurmd: not the job's user (sstat) */
};

/* Slurm's message for an error number ("Invalid job id specified"). */
const char *slurm_strerror(int rc);

#endif
