/* conf_keys.c - every slurm.conf key Rota knows, and how its value is read. */
#include <ctype.h>
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/conf_keys.h"
#include "common/timefmt.h"
#include "common/common.h"

#define R      CONF_KEY_RELOAD
#define U32MAX ((uint64_t)UINT32_MAX)

/* One macro per row shape keeps the table one line per key. */
#define ROW(nm, sc, ty, id, st, fld, def, lo, hi, unit, fl)                              \
	{                                                                                \
		nm, NULL, sc, ty, id, offsetof(struct st, fld), def, lo, hi, unit, fl    \
	}
#define G_STR(nm, fld, def, fl)                                                          \
	ROW(nm, CONF_SCOPE_GLOBAL, CONF_T_STR, CONF_ID_NONE, conf, fld, def, 0, 0, NULL, \
	    fl)
#define G_U16(nm, fld, def, lo, hi, fl)                                                  \
	ROW(nm, CONF_SCOPE_GLOBAL, CONF_T_U16, CONF_ID_NONE, conf, fld, def, lo, hi,     \
	    NULL, fl)
#define G_U32(nm, fld, def, lo, hi, unit, fl)                                            \
	ROW(nm, CONF_SCOPE_GLOBAL, CONF_T_U32, CONF_ID_NONE, conf, fld, def, lo, hi,     \
	    unit, fl)
#define G_MEM(nm, fld, fl)                                                               \
	ROW(nm, CONF_SCOPE_GLOBAL, CONF_T_MEM, CONF_ID_NONE, conf, fld, "0", 0,          \
	    UINT64_MAX, NULL, fl)
#define G_SPECIAL(nm, id)                                                                \
	{                                                                                \
		nm, NULL, CONF_SCOPE_GLOBAL, CONF_T_SPECIAL, id, CONF_NO_FIELD, NULL, 0, \
		    0, NULL, 0                                                           \
	}
#define IGNORE(nm)                                                                       \
	{                                                                                \
		nm, NULL, CONF_SCOPE_GLOBAL, CONF_T_IGNORED, CONF_ID_NONE,               \
		    CONF_NO_FIELD, NULL, 0, 0, NULL, R                                   \
	}
#define N_ROW(nm, ty, id, fld, def, lo, hi)                                              \
	ROW(nm, CONF_SCOPE_NODE, ty, id, conf_node, fld, def, lo, hi, NULL, R)
#define N_IGNORE(nm)                                                                     \
	{                                                                                \
		nm, NULL, CONF_SCOPE_NODE, CONF_T_IGNORED, CONF_ID_NONE, CONF_NO_FIELD,  \
		    NULL, 0, 0, NULL, R                                                  \
	}
#define P_ROW(nm, ty, fld, def, lo, hi)                                                  \
	ROW(nm, CONF_SCOPE_PART, ty, CONF_ID_NONE, conf_part, fld, def, lo, hi, NULL, R)
#define P_IGNORE(nm)                                                                     \
	{                                                                                \
		nm, NULL, CONF_SCOPE_PART, CONF_T_IGNORED, CONF_ID_NONE, CONF_NO_FIELD,  \
		    NULL, 0, 0, NULL, R                                                  \
	}
/* An alias row only names its canonical row; conf_key_find follows it. */
#define ALIAS(nm, of, sc)                                                                \
	{                                                                                \
		nm, of, sc, CONF_T_IGNORED, CONF_ID_NONE, CONF_NO_FIELD, NULL, 0, 0,     \
		    NULL, 0                                                              \
	}

const struct conf_key conf_keys[] = {
    /* global keys Rota uses */
    G_STR("ClusterName", cluster_name, "cluster", 0),
    {"SlurmctldHost", NULL, CONF_SCOPE_GLOBAL, CONF_T_SPECIAL, CONF_ID_SLURMCTLD_HOST,
     offsetof(struct conf, slurmctld_host), NULL, 0, 0, NULL, 0},
    G_SPECIAL("ControlMachine", CONF_ID_CONTROL_MACHINE),
    G_SPECIAL("ControlAddr", CONF_ID_CONTROL_ADDR),
    G_U16("SlurmctldPort", slurmctld_port, "6817", 1, 65535, 0),
    G_U16("SlurmdPort", slurmd_port, "6818", 1, 65535, 0),
    G_STR("SlurmUser", slurm_user, "root", 0),
    G_STR("AuthType", auth_type, "auth/munge", 0),
    G_STR("AuthInfo", auth_info, NULL, 0),
    G_STR("AuthAltTypes", auth_alt_types, NULL, 0),
    G_STR("AuthAltParameters", auth_alt_params, NULL, 0),
    G_STR("TLSType", tls_type, NULL, 0),
    G_STR("TLSParameters", tls_params, NULL, 0),
    G_STR("Licenses", licenses, NULL, R),
    G_STR("PreemptType", preempt_type, "preempt/none", R),
    G_STR("PreemptMode", preempt_mode, "OFF", R),
    G_STR("PreemptExemptTime", preempt_exempt_time, NULL, R),
    G_STR("GresTypes", gres_types, NULL, 0),
    G_STR("StateSaveLocation", state_save_location, "/var/spool/rotactld", 0),
    G_STR("SlurmdSpoolDir", slurmd_spool_dir, "/var/spool/rotad", 0),
    G_STR("SlurmctldLogFile", slurmctld_log_file, NULL, R),
    G_STR("SlurmdLogFile", slurmd_log_file, NULL, R),
    G_STR("SchedulerType", scheduler_type, "sched/backfill", 0),
    G_STR("SchedulerParameters", scheduler_params, NULL, R),
    G_STR("SlurmctldParameters", slurmctld_params, NULL, R),
    G_STR("SelectType", select_type, "select/cons_tres", 0),
    G_STR("SelectTypeParameters", select_type_parameters, NULL, 0),
    G_STR("PropagateResourceLimits", propagate_rlimits, NULL, R),
    G_STR("PropagateResourceLimitsExcept", propagate_rlimits_except, NULL, R),
    G_STR("EnforcePartLimits", enforce_part_limits, "NO", R),
    G_STR("ReconfigFlags", reconfig_flags, NULL, R),
    G_STR("PriorityType", priority_type, "priority/basic", 0),
    G_U32("PriorityWeightAge", prio_weight_age, "0", 0, U32MAX - 1, NULL, R),
    G_U32("PriorityWeightFairshare", prio_weight_fairshare, "0", 0, U32MAX - 1, NULL, R),
    G_U32("PriorityWeightJobSize", prio_weight_job_size, "0", 0, U32MAX - 1, NULL, R),
    G_U32("PriorityWeightPartition", prio_weight_partition, "0", 0, U32MAX - 1, NULL, R),
    G_U32("PriorityWeightQOS", prio_weight_qos, "0", 0, U32MAX - 1, NULL, R),
    G_U32("PriorityWeightAssoc", prio_weight_assoc, "0", 0, U32MAX - 1, NULL, R),
    G_STR("PriorityWeightTRES", prio_weight_tres, NULL, R),
    ROW("PriorityMaxAge", CONF_SCOPE_GLOBAL, CONF_T_TIME, CONF_ID_NONE, conf,
        prio_max_age, "7-0", 0, 0, NULL, R),
    ROW("PriorityDecayHalfLife", CONF_SCOPE_GLOBAL, CONF_T_TIME, CONF_ID_NONE, conf,
        prio_decay_half_life, "7-0", 0, 0, NULL, R),
    G_STR("PriorityUsageResetPeriod", prio_usage_reset, "NONE", R),
    G_STR("PriorityFlags", prio_flags, NULL, R),
    ROW("PriorityFavorSmall", CONF_SCOPE_GLOBAL, CONF_T_BOOL, CONF_ID_NONE, conf,
        prio_favor_small, "NO", 0, 0, NULL, R),
    G_STR("ProctrackType", proctrack_type, "proctrack/cgroup", 0),
    G_STR("TaskPlugin", task_plugin, NULL, 0),
    G_U32("MinJobAge", min_job_age, "300", 0, U32MAX, "sec", R),
    G_U32("SlurmdTimeout", slurmd_timeout, "300", 0, 65533, "sec", R),
    G_U32("SlurmctldTimeout", slurmctld_timeout, "120", 0, 65533, "sec", R),
    G_U32("KillWait", kill_wait, "30", 0, 65533, "sec", R),
    ROW("ResvOverRun", CONF_SCOPE_GLOBAL, CONF_T_COUNT, CONF_ID_NONE, conf, resv_over_run,
        "0", 0, 65533, "min", R),
    /* the step daemons' sampling (common/acctg.h) */
    G_STR("JobAcctGatherFrequency", acctg_freq, "30", R),
    G_STR("JobAcctGatherType", acctg_type, "jobacct_gather/cgroup", R),
    G_U32("KillOnBadExit", kill_on_bad_exit, "0", 0, 1, NULL, R),
    G_STR("MpiDefault", mpi_default, "none", R),
    /* --mail-type's mails (ctld/mail.h) */
    G_STR("MailProg", mail_prog, "/bin/mail", R),
    G_STR("MailDomain", mail_domain, NULL, R),
    /* sbcast (cli/sbcast.c) */
    G_STR("BcastParameters", bcast_parameters, NULL, R),
    G_STR("BcastExclude", bcast_exclude, "/lib,/usr/lib,/lib64,/usr/lib64", R),
    /* scrontab (ctld/crontab.h): "enable" turns it on */
    G_STR("ScronParameters", scron_parameters, NULL, R),
    G_U32("JobRequeue", job_requeue, "1", 0, 1, NULL, R),
    G_U32("InactiveLimit", inactive_limit, "0", 0, 65533, "sec", R),
    G_U32("MessageTimeout", message_timeout, "10", 1, 100, "sec", R),
    G_U32("ReturnToService", return_to_service, "0", 0, 2, NULL, R),
    G_STR("SuspendProgram", suspend_program, NULL, R),
    G_STR("ResumeProgram", resume_program, NULL, R),
    ROW("SuspendTime", CONF_SCOPE_GLOBAL, CONF_T_COUNT, CONF_ID_NONE, conf, suspend_time,
        "NONE", 0, U32MAX - 1, "sec", R | CONF_KEY_NONE_OFF),
    G_U32("SuspendTimeout", suspend_timeout, "30", 0, 65533, "sec", R),
    G_U32("ResumeTimeout", resume_timeout, "60", 0, 65533, "sec", R),
    G_U32("SuspendRate", suspend_rate, "60", 0, 65533, NULL, R),
    G_U32("ResumeRate", resume_rate, "300", 0, 65533, NULL, R),
    G_STR("SuspendExcNodes", suspend_exc_nodes, NULL, R),
    G_STR("SuspendExcParts", suspend_exc_parts, NULL, R),
    G_STR("RebootProgram", reboot_program, NULL, R),
    G_U32("MaxJobCount", max_job_count, "10000", 1, U32MAX - 1, NULL, R),
    G_U32("MaxArraySize", max_array_size, "1001", 0, 4000001, NULL, R),
    ROW("OverTimeLimit", CONF_SCOPE_GLOBAL, CONF_T_COUNT, CONF_ID_NONE, conf,
        over_time_limit, "0", 0, 65533, "min", R),
    G_U32("MaxTasksPerNode", max_tasks_per_node, "512", 1, 65533, NULL, R),
    G_U32("FirstJobId", first_job_id, "1", 1, 0x03ff0000, NULL, R),
    G_U32("MaxJobId", max_job_id, "67043328", 1, 0x03ff0000, NULL, 0),
    G_U32("SchedulerTimeSlice", sched_time_slice, "30", 5, 65533, "sec", R),
    G_MEM("DefMemPerCPU", def_mem_per_cpu, R | CONF_KEY_ZERO_UNLIMITED),
    G_MEM("DefMemPerNode", def_mem_per_node, R | CONF_KEY_ZERO_UNLIMITED),
    G_STR("Prolog", prolog, NULL, R),
    G_STR("MpiParams", mpi_params, NULL, R),
    G_STR("PrologFlags", prolog_flags, NULL, R),
    G_STR("Epilog", epilog, NULL, R),
    G_STR("TaskProlog", task_prolog, NULL, R),
    G_STR("SrunProlog", srun_prolog, NULL, R),
    G_STR("SrunEpilog", srun_epilog, NULL, R),
    /* Rota's: --container-image (doc/containers.md); NULL cache: in the spool */
    G_STR("ContainerImageCache", container_cache, NULL, R),
    G_STR("ContainerImageMirror", container_mirror, NULL, R),
    G_STR("AccountingStorageType", accounting_storage_type, "accounting_storage/none", 0),
    G_STR("AccountingStorageHost", accounting_storage_host, NULL, 0),
    G_U16("AccountingStoragePort", accounting_storage_port, "6819", 1, 65535, 0),
    G_U32("MaxDBDMsgs", max_dbd_msgs, "0", 0, U32MAX - 1, NULL, R),
    G_STR("AccountingStorageEnforce", accounting_storage_enforce, NULL, R),
    G_STR("AccountingStorageTRES", accounting_storage_tres, NULL, R),
    G_STR("PrivateData", private_data, "none", R),
    G_STR("MCSPlugin", mcs_plugin, "mcs/none", R),
    G_STR("MCSParameters", mcs_params, NULL, R),
    ROW("AllowSpecResourcesUsage", CONF_SCOPE_GLOBAL, CONF_T_BOOL, CONF_ID_NONE, conf,
        allow_spec_resources, "NO", 0, 0, NULL, R),

    /* line types Rota does not use; the whole line is skipped */
    G_SPECIAL("NodeSet", CONF_ID_LINE_IGNORED),
    G_SPECIAL("DownNodes", CONF_ID_LINE_IGNORED),
    G_SPECIAL("FrontendName", CONF_ID_LINE_IGNORED),
    G_SPECIAL("SwitchName", CONF_ID_LINE_IGNORED),

    /* real Slurm keys accepted without a warning and not used */
    IGNORE("AccountingStorageBackupHost"),
    IGNORE("AccountingStorageExternalHost"),
    IGNORE("AccountingStorageLoc"),
    IGNORE("AccountingStorageParameters"),
    IGNORE("AccountingStoragePass"),
    IGNORE("AccountingStorageUser"),
    IGNORE("AccountingStoreFlags"),
    IGNORE("AccountingStoreJobComment"),
    IGNORE("AcctGatherEnergyType"),
    IGNORE("AcctGatherFilesystemType"),
    IGNORE("AcctGatherInterconnectType"),
    IGNORE("AcctGatherNodeFreq"),
    IGNORE("AcctGatherProfileType"),
    IGNORE("AuthInfo2"),
    IGNORE("BackupAddr"),
    IGNORE("BackupController"),
    IGNORE("BatchStartTimeout"),
    IGNORE("BurstBufferType"),
    IGNORE("CheckpointType"),
    IGNORE("CliFilterPlugins"),
    IGNORE("CommunicationParameters"),
    IGNORE("CompleteWait"),
    IGNORE("CoreSpecPlugin"),
    IGNORE("CpuFreqDef"),
    IGNORE("CpuFreqGovernors"),
    IGNORE("CredType"),
    IGNORE("CryptoType"),
    IGNORE("DebugFlags"),
    IGNORE("DefCpuPerGPU"),
    IGNORE("DefMemPerGPU"),
    IGNORE("DependencyParameters"),
    IGNORE("DisableRootJobs"),
    IGNORE("EioTimeout"),
    IGNORE("EpilogMsgTime"),
    IGNORE("EpilogSlurmctld"),
    IGNORE("ExtSensorsFreq"),
    IGNORE("ExtSensorsType"),
    IGNORE("FairShareDampeningFactor"),
    IGNORE("FastSchedule"),
    IGNORE("FederationParameters"),
    IGNORE("FirstJobId2"),
    IGNORE("GetEnvTimeout"),
    IGNORE("GroupUpdateForce"),
    IGNORE("GroupUpdateTime"),
    IGNORE("GpuFreqDef"),
    IGNORE("HashPlugin"),
    IGNORE("HealthCheckInterval"),
    IGNORE("HealthCheckNodeState"),
    IGNORE("HealthCheckProgram"),
    IGNORE("InteractiveStepOptions"),
    IGNORE("JobAcctGatherParams"),
    IGNORE("JobCompHost"),
    IGNORE("JobCompLoc"),
    IGNORE("JobCompParams"),
    IGNORE("JobCompPass"),
    IGNORE("JobCompPort"),
    IGNORE("JobCompType"),
    IGNORE("JobCompUser"),
    IGNORE("JobContainerType"),
    IGNORE("JobCredentialPrivateKey"),
    IGNORE("JobCredentialPublicCertificate"),
    IGNORE("JobFileAppend"),
    IGNORE("JobSubmitPlugins"),
    IGNORE("KeepAliveTime"),
    IGNORE("LaunchParameters"),
    IGNORE("LaunchType"),
    IGNORE("LogTimeFormat"),
    IGNORE("MaxMemPerCPU"),
    IGNORE("MaxMemPerNode"),
    IGNORE("MaxNodeCount"),
    IGNORE("MaxStepCount"),
    IGNORE("MemLimitEnforce"),
    IGNORE("NodeFeaturesPlugins"),
    IGNORE("PluginDir"),
    IGNORE("PlugStackConfig"),
    IGNORE("PowerParameters"),
    IGNORE("PowerPlugin"),
    IGNORE("PreemptParameters"),
    IGNORE("PrEpParameters"),
    IGNORE("PrEpPlugins"),
    IGNORE("PriorityCalcPeriod"),
    IGNORE("PriorityParameters"),
    IGNORE("PrioritySiteFactorParameters"),
    IGNORE("PrioritySiteFactorPlugin"),
    IGNORE("PrologEpilogTimeout"),
    IGNORE("PrologSlurmctld"),
    IGNORE("PropagatePrioProcess"),
    IGNORE("RequeueExit"),
    IGNORE("RequeueExitHold"),
    IGNORE("ResumeFailProgram"),
    IGNORE("ResvEpilog"),
    IGNORE("ResvProlog"),
    IGNORE("RoutePlugin"),
    IGNORE("SbcastParameters"),
    IGNORE("SlurmctldAddr"),
    IGNORE("SlurmctldDebug"),
    IGNORE("SlurmctldPidFile"),
    IGNORE("SlurmctldPlugstack"),
    IGNORE("SlurmctldPrimaryOffProg"),
    IGNORE("SlurmctldPrimaryOnProg"),
    IGNORE("SlurmctldSyslogDebug"),
    IGNORE("SlurmdDebug"),
    IGNORE("SlurmdParameters"),
    IGNORE("SlurmdPidFile"),
    IGNORE("SlurmdSyslogDebug"),
    IGNORE("SlurmdUser"),
    IGNORE("SlurmSchedLogFile"),
    IGNORE("SlurmSchedLogLevel"),
    IGNORE("SrunPortRange"),
    IGNORE("SuspendExcStates"),
    IGNORE("SwitchParameters"),
    IGNORE("SwitchType"),
    IGNORE("TaskEpilog"),
    IGNORE("TaskPluginParam"),
    IGNORE("TCPTimeout"),
    G_STR("TmpFS", tmp_fs, "/tmp", R),
    IGNORE("TopologyParam"),
    G_STR("TopologyPlugin", topology_plugin, NULL, R),
    IGNORE("TrackWCKey"),
    IGNORE("TreeWidth"),
    IGNORE("UnkillableStepProgram"),
    IGNORE("UnkillableStepTimeout"),
    IGNORE("UsePAM"),
    IGNORE("VSizeFactor"),
    IGNORE("WaitTime"),
    IGNORE("X11Parameters"),

    /* NodeName= lines */
    N_ROW("NodeName", CONF_T_SPECIAL, CONF_ID_NODE_NAME, name, NULL, 0, 0),
    N_ROW("NodeHostname", CONF_T_SPECIAL, CONF_ID_NODE_HOSTNAME, hostname, NULL, 0, 0),
    N_ROW("NodeAddr", CONF_T_SPECIAL, CONF_ID_NODE_ADDR, addr, NULL, 0, 0),
    N_ROW("Port", CONF_T_SPECIAL, CONF_ID_PORT, port, NULL, 1, 65535),
    N_ROW("CPUs", CONF_T_U32, CONF_ID_CPUS, cpus, "1", 1, 65535),
    ALIAS("Procs", "CPUs", CONF_SCOPE_NODE),
    N_ROW("Boards", CONF_T_U32, CONF_ID_BOARDS, boards, "1", 1, 65535),
    N_ROW("Sockets", CONF_T_U32, CONF_ID_SOCKETS, sockets, "1", 1, 65535),
    {"SocketsPerBoard", NULL, CONF_SCOPE_NODE, CONF_T_U32, CONF_ID_SOCKETS_PER_BOARD,
     CONF_NO_FIELD, NULL, 1, 65535, NULL, R},
    N_ROW("CoresPerSocket", CONF_T_U32, CONF_ID_CORES, cores_per_socket, "1", 1, 65535),
    N_ROW("ThreadsPerCore", CONF_T_U32, CONF_ID_THREADS, threads_per_core, "1", 1, 65535),
    N_ROW("RealMemory", CONF_T_MEM, CONF_ID_NONE, real_memory, "1", 1, UINT64_MAX),
    N_ROW("TmpDisk", CONF_T_MEM, CONF_ID_NONE, tmp_disk, "0", 0, UINT64_MAX),
    N_ROW("Weight", CONF_T_U32, CONF_ID_NONE, weight, "1", 0, U32MAX - 1),
    N_ROW("Features", CONF_T_STR, CONF_ID_NONE, features, NULL, 0, 0),
    ALIAS("Feature", "Features", CONF_SCOPE_NODE),
    N_ROW("Gres", CONF_T_STR, CONF_ID_NONE, gres, NULL, 0, 0),
    N_ROW("State", CONF_T_NODE_STATE, CONF_ID_NONE, state, "UNKNOWN", 0, 0),
    N_ROW("Reason", CONF_T_STR, CONF_ID_NONE, reason, NULL, 0, 0),
    N_IGNORE("BcastAddr"),
    N_IGNORE("CoreSpecCount"),
    N_IGNORE("CpuBind"),
    N_IGNORE("CpuSpecList"),
    N_IGNORE("Extra"),
    N_IGNORE("MemSpecLimit"),
    N_IGNORE("Parameters"),
    N_IGNORE("RestrictedCoresPerGPU"),
    N_IGNORE("Topology"),
    N_IGNORE("TRESWeights"),

    /* PartitionName= lines */
    {"PartitionName", NULL, CONF_SCOPE_PART, CONF_T_SPECIAL, CONF_ID_PART_NAME,
     offsetof(struct conf_part, name), NULL, 0, 0, NULL, R},
    P_ROW("Nodes", CONF_T_STR, nodes, NULL, 0, 0),
    P_ROW("Default", CONF_T_BOOL, is_default, "NO", 0, 0),
    P_ROW("MaxTime", CONF_T_TIME, max_time, "UNLIMITED", 0, 0),
    P_ROW("DefaultTime", CONF_T_TIME, default_time, "UNLIMITED", 0, 0),
    P_ROW("MaxNodes", CONF_T_COUNT, max_nodes, "UNLIMITED", 0, U32MAX - 1),
    P_ROW("MinNodes", CONF_T_U32, min_nodes, "1", 0, U32MAX - 1),
    P_ROW("PriorityTier", CONF_T_U32, priority_tier, "1", 0, 65533),
    P_ROW("TRESBillingWeights", CONF_T_STR, tres_billing_weights, NULL, 0, 0),
    P_ROW("PriorityJobFactor", CONF_T_U32, priority_job_factor, "1", 0, 65533),
    P_ROW("OverSubscribe", CONF_T_OVERSUB, oversubscribe, "NO", 0, 0),
    ALIAS("Shared", "OverSubscribe", CONF_SCOPE_PART),
    P_ROW("AllowGroups", CONF_T_GROUPS, allow_groups, NULL, 0, 0),
    P_ROW("State", CONF_T_PART_STATE, state, "UP", 0, 0),
    P_ROW("PreemptMode", CONF_T_STR, preempt_mode, NULL, 0, 0),
    P_ROW("GraceTime", CONF_T_U32, grace_time, "0", 0, U32MAX - 1),
    P_ROW("AllowAccounts", CONF_T_GROUPS, allow_accounts, NULL, 0, 0),
    P_ROW("DenyAccounts", CONF_T_STR, deny_accounts, NULL, 0, 0),
    P_ROW("AllowQos", CONF_T_GROUPS, allow_qos, NULL, 0, 0),
    P_ROW("DenyQos", CONF_T_STR, deny_qos, NULL, 0, 0),
    P_ROW("QOS", CONF_T_STR, qos, NULL, 0, 0),
    P_ROW("Alternate", CONF_T_STR, alternate, NULL, 0, 0),
    P_ROW("AllocNodes", CONF_T_GROUPS, alloc_nodes, NULL, 0, 0),
    P_ROW("Hidden", CONF_T_BOOL, hidden, "NO", 0, 0),
    P_ROW("RootOnly", CONF_T_BOOL, root_only, "NO", 0, 0),
    P_ROW("ReqResv", CONF_T_BOOL, req_resv, "NO", 0, 0),
    P_ROW("ExclusiveUser", CONF_T_BOOL, exclusive_user, "NO", 0, 0),
    P_ROW("LLN", CONF_T_BOOL, lln, "NO", 0, 0),
    P_ROW("DisableRootJobs", CONF_T_BOOL, disable_root_jobs, "NO", 0, 0),
    P_ROW("MaxCPUsPerNode", CONF_T_COUNT, max_cpus_per_node, "UNLIMITED", 0, U32MAX - 1),
    ROW("OverTimeLimit", CONF_SCOPE_PART, CONF_T_COUNT, CONF_ID_NONE, conf_part,
        over_time_limit, "NONE", 0, 65533, NULL, R | CONF_KEY_NONE_UNSET),
    P_ROW("DefMemPerCPU", CONF_T_MEM, def_mem_per_cpu, "0", 0, UINT64_MAX),
    P_ROW("DefMemPerNode", CONF_T_MEM, def_mem_per_node, "0", 0, UINT64_MAX),
    P_ROW("MaxMemPerCPU", CONF_T_MEM, max_mem_per_cpu, "0", 0, UINT64_MAX),
    P_ROW("MaxMemPerNode", CONF_T_MEM, max_mem_per_node, "0", 0, UINT64_MAX),
    P_IGNORE("CpuBind"),
    P_IGNORE("DefCpuPerGPU"),
    P_IGNORE("DefMemPerGPU"),
    P_IGNORE("MaxCPUsPerSocket"),
    P_IGNORE("PowerDownOnIdle"),
    P_IGNORE("ResumeTimeout"),
    P_IGNORE("SelectTypeParameters"),
    P_IGNORE("SuspendTime"),
    P_IGNORE("SuspendTimeout"),
};

const size_t conf_keys_count = sizeof(conf_keys) / sizeof(conf_keys[0]);

const struct conf_key *conf_key_find(enum conf_scope scope, const char *name)
{
	for (size_t i = 0; i < conf_keys_count; i++) {
		const struct conf_key *k = &conf_keys[i];

		if (k->scope == scope && !strcasecmp(k->name, name))
			return k->alias_of ? conf_key_find(scope, k->alias_of) : k;
	}
	return NULL;
}

const char *conf_key_canon(const struct conf_key *k)
{
	return k->alias_of ? k->alias_of : k->name;
}

#define FIELD(base, k, type) ((type *)(void *)((char *)(base) + (k)->offset))
#define CFIELD(base, k, type)                                                            \
	((const type *)(const void *)((const char *)(base) + (k)->offset))

static int owns_string(const struct conf_key *k)
{
	return !k->alias_of && k->offset != CONF_NO_FIELD &&
	       (k->type == CONF_T_STR || k->type == CONF_T_OVERSUB ||
	        k->type == CONF_T_GROUPS);
}

int conf_key_parse_num(const struct conf_key *k, const char *value, uint64_t *ret,
                       const char *where, struct rota_error *err)
{
	uint64_t v = 0;
	const char *s = value;

	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			goto bad;
		v = v * 10 + d;
	}
	if (s == value || *s || v < k->min || v > k->max)
		goto bad;
	*ret = v;
	return 0;
bad:
	return errprintf(err, "%s: %s=%.64s: expected a number from %llu to %llu", where,
	                 conf_key_canon(k), value, (unsigned long long)k->min,
	                 (unsigned long long)k->max);
}

/* Store a copy of value (NULL allowed) into a char * field. */
static int set_string(char **field, const char *value, struct rota_error *err)
{
	char *copy = NULL;

	if (value && !(copy = strdup(value)))
		return errprintf(err, "out of memory");
	free(*field);
	*field = copy;
	return 0;
}

/* NO, EXCLUSIVE, YES[:N], FORCE[:N] as Slurm's OverSubscribe accepts. */
static int oversub_valid(const char *v)
{
	const char *colon = strchr(v, ':');
	size_t n = colon ? (size_t)(colon - v) : strlen(v);

	if (!colon)
		return !strcasecmp(v, "NO") || !strcasecmp(v, "EXCLUSIVE") ||
		       !strcasecmp(v, "YES") || !strcasecmp(v, "FORCE");
	if (!((n == 3 && !strncasecmp(v, "YES", 3)) ||
	      (n == 5 && !strncasecmp(v, "FORCE", 5))))
		return 0;
	if (!colon[1] || strlen(colon + 1) > 5)
		return 0;
	for (const char *p = colon + 1; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return 0;
	}
	return 1;
}

static const char *const node_state_names[] = {
    [CONF_NODE_UNKNOWN] = "UNKNOWN", [CONF_NODE_IDLE] = "IDLE",
    [CONF_NODE_DOWN] = "DOWN",       [CONF_NODE_DRAIN] = "DRAIN",
    [CONF_NODE_FUTURE] = "FUTURE",   [CONF_NODE_CLOUD] = "CLOUD",
};
static const char *const part_state_names[] = {
    [CONF_PART_UP] = "UP",
    [CONF_PART_DOWN] = "DOWN",
    [CONF_PART_DRAIN] = "DRAIN",
    [CONF_PART_INACTIVE] = "INACTIVE",
};

static int name_index(const char *const *names, size_t n, const char *v)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(names[i], v))
			return (int)i;
	}
	return -1;
}

static int parse_bool(const char *v)
{
	if (!strcasecmp(v, "YES") || !strcasecmp(v, "TRUE") || !strcmp(v, "1"))
		return 1;
	if (!strcasecmp(v, "NO") || !strcasecmp(v, "FALSE") || !strcmp(v, "0"))
		return 0;
	return -1;
}

/* The value types that are not plain numbers. */
static int set_other(const struct conf_key *k, void *base, const char *value,
                     const char *where, struct rota_error *err)
{
	const char *name = conf_key_canon(k);
	uint64_t mb;
	uint32_t min;
	int i;

	switch (k->type) {
	case CONF_T_MEM:
		if (timefmt_parse_mem(value, &mb) || mb < k->min || mb > k->max)
			return errprintf(err,
			                 "%s: %s=%.64s: expected a size in megabytes "
			                 "(suffix K, M, G or T allowed)",
			                 where, name, value);
		*FIELD(base, k, uint64_t) = mb;
		return 0;
	case CONF_T_TIME:
		if (timefmt_parse_limit(value, &min))
			return errprintf(err,
			                 "%s: %s=%.64s: expected minutes, [D-]HH:MM:SS "
			                 "or UNLIMITED",
			                 where, name, value);
		*FIELD(base, k, uint32_t) = min;
		return 0;
	case CONF_T_BOOL:
		if ((i = parse_bool(value)) < 0)
			return errprintf(err, "%s: %s=%.64s: expected YES or NO", where,
			                 name, value);
		*FIELD(base, k, int) = i;
		return 0;
	case CONF_T_NODE_STATE:
		if ((i = name_index(node_state_names, 6, value)) < 0)
			return errprintf(err,
			                 "%s: %s=%.64s: expected UNKNOWN, IDLE, DOWN, "
			                 "DRAIN, FUTURE or CLOUD",
			                 where, name, value);
		*FIELD(base, k, enum conf_node_state) = (enum conf_node_state)i;
		return 0;
	case CONF_T_PART_STATE:
		if ((i = name_index(part_state_names, 4, value)) < 0)
			return errprintf(err,
			                 "%s: %s=%.64s: expected UP, DOWN, DRAIN or "
			                 "INACTIVE",
			                 where, name, value);
		*FIELD(base, k, enum conf_part_state) = (enum conf_part_state)i;
		return 0;
	case CONF_T_OVERSUB:
		if (!oversub_valid(value))
			return errprintf(err,
			                 "%s: %s=%.64s: expected NO, YES, FORCE or "
			                 "EXCLUSIVE",
			                 where, name, value);
		return set_string(FIELD(base, k, char *), value, err);
	case CONF_T_GROUPS:
		if (!strcasecmp(value, "ALL"))
			value = NULL;
		return set_string(FIELD(base, k, char *), value, err);
	default:
		return errprintf(err, "%s: %s: no parser for this key", where, name);
	}
}

int conf_key_set(const struct conf_key *k, void *base, const char *value,
                 const char *where, struct rota_error *err)
{
	uint64_t v;

	if (k->type == CONF_T_IGNORED || k->type == CONF_T_SPECIAL ||
	    k->offset == CONF_NO_FIELD)
		return 0;
	if (!*value && k->type == CONF_T_STR)
		value = k->def;
	switch (k->type) {
	case CONF_T_STR:
		return set_string(FIELD(base, k, char *), value, err);
	case CONF_T_U16:
	case CONF_T_U32:
	case CONF_T_U64:
		if (conf_key_parse_num(k, value, &v, where, err))
			return -1;
		if (k->type == CONF_T_U16)
			*FIELD(base, k, uint16_t) = (uint16_t)v;
		else if (k->type == CONF_T_U32)
			*FIELD(base, k, uint32_t) = (uint32_t)v;
		else
			*FIELD(base, k, uint64_t) = v;
		return 0;
	case CONF_T_COUNT:
		if ((k->flags & CONF_KEY_NONE_UNSET) && !strcasecmp(value, "NONE")) {
			*FIELD(base, k, uint32_t) = CONF_COUNT_UNSET;
			return 0;
		}
		if (!strcasecmp(value, "UNLIMITED") || !strcasecmp(value, "INFINITE") ||
		    ((k->flags & CONF_KEY_NONE_OFF) &&
		     (!strcasecmp(value, "NONE") || !strcmp(value, "-1")))) {
			*FIELD(base, k, uint32_t) = UINT32_MAX;
			return 0;
		}
		if (conf_key_parse_num(k, value, &v, where, err))
			return -1;
		*FIELD(base, k, uint32_t) = (uint32_t)v;
		return 0;
	default:
		return set_other(k, base, value, where, err);
	}
}

int conf_key_defaults(enum conf_scope scope, void *base, struct rota_error *err)
{
	for (size_t i = 0; i < conf_keys_count; i++) {
		const struct conf_key *k = &conf_keys[i];

		if (k->scope != scope || !k->def || k->alias_of)
			continue;
		if (conf_key_set(k, base, k->def, "default", err))
			return -1;
	}
	return 0;
}

/* The rows of each scope that own a string field, found once: release and
 * copy run for each of a cluster's nodes (thousands), the table has hundreds
 * of rows. */
#define SCOPE_STRINGS_MAX 64
static struct {
	size_t n;
	const struct conf_key *keys[SCOPE_STRINGS_MAX];
} scope_strings[CONF_SCOPE_PART + 1];
static pthread_once_t scope_strings_once = PTHREAD_ONCE_INIT;

static void scope_strings_find(void)
{
	for (size_t i = 0; i < conf_keys_count; i++) {
		const struct conf_key *k = &conf_keys[i];
		if (!owns_string(k))
			continue;
		assert(scope_strings[k->scope].n < SCOPE_STRINGS_MAX);
		scope_strings[k->scope].keys[scope_strings[k->scope].n++] = k;
	}
}

void conf_key_release(enum conf_scope scope, void *base)
{
	pthread_once(&scope_strings_once, scope_strings_find);
	for (size_t i = 0; i < scope_strings[scope].n; i++) {
		const struct conf_key *k = scope_strings[scope].keys[i];
		free(*FIELD(base, k, char *));
		*FIELD(base, k, char *) = NULL;
	}
}

int conf_key_copy_strings(enum conf_scope scope, void *dst)
{
	int rc = 0;

	pthread_once(&scope_strings_once, scope_strings_find);
	for (size_t i = 0; i < scope_strings[scope].n; i++) {
		char **field = FIELD(dst, scope_strings[scope].keys[i], char *);
		if (rc == 0 && *field && !(*field = strdup(*field)))
			rc = -ENOMEM;
		else if (rc)
			*field = NULL;
	}
	return rc;
}

/* Format a number the way show config prints it. */
static int format_num(const struct conf_key *k, unsigned long long v, char **ret)
{
	int n;

	if (v == 0 && (k->flags & CONF_KEY_ZERO_UNLIMITED))
		n = asprintf(ret, "UNLIMITED");
	else
		n = asprintf(ret, "%llu%s%s", v, k->unit ? " " : "",
		             k->unit ? k->unit : "");
	return n < 0 ? -ENOMEM : 0;
}

int conf_key_format(const struct conf_key *k, const void *base, char **ret)
{
	char buf[32];
	const char *s = buf;
	uint32_t v32;

	if (k->offset == CONF_NO_FIELD || k->type == CONF_T_SPECIAL ||
	    k->type == CONF_T_IGNORED)
		return -ENOENT;
	switch (k->type) {
	case CONF_T_STR:
	case CONF_T_OVERSUB:
	case CONF_T_GROUPS:
		s = *CFIELD(base, k, char *);
		if (!s)
			s = "(null)";
		break;
	case CONF_T_U16:
		return format_num(k, *CFIELD(base, k, uint16_t), ret);
	case CONF_T_U64:
	case CONF_T_MEM:
		return format_num(k, *CFIELD(base, k, uint64_t), ret);
	case CONF_T_TIME:
		timefmt_limit(*CFIELD(base, k, uint32_t), buf, sizeof(buf));
		break;
	case CONF_T_BOOL:
		s = *CFIELD(base, k, int) ? "YES" : "NO";
		break;
	case CONF_T_NODE_STATE:
		s = node_state_names[*CFIELD(base, k, enum conf_node_state)];
		break;
	case CONF_T_PART_STATE:
		s = part_state_names[*CFIELD(base, k, enum conf_part_state)];
		break;
	default: /* U32, COUNT */
		v32 = *CFIELD(base, k, uint32_t);
		if (k->type == CONF_T_COUNT && v32 == CONF_COUNT_UNSET &&
		    (k->flags & CONF_KEY_NONE_UNSET))
			return (*ret = strdup("NONE")) ? 0 : -ENOMEM;
		if (k->type != CONF_T_COUNT || v32 != UINT32_MAX)
			return format_num(k, v32, ret);
		s = (k->flags & CONF_KEY_NONE_OFF) ? "NONE" : "UNLIMITED";
		break;
	}
	return (*ret = strdup(s)) ? 0 : -ENOMEM;
}

int conf_key_equal(const struct conf_key *k, const void *a, const void *b)
{
	char *va = NULL, *vb = NULL;
	int eq = 1;

	if (k->offset == CONF_NO_FIELD)
		return 1;
	if (k->type == CONF_T_SPECIAL || owns_string(k)) {
		/* SlurmctldHost is the only special row with a char * field here */
		const char *sa = *CFIELD(a, k, char *), *sb = *CFIELD(b, k, char *);

		return (!sa && !sb) || (sa && sb && !strcmp(sa, sb));
	}
	if (!conf_key_format(k, a, &va) && !conf_key_format(k, b, &vb))
		eq = !strcmp(va, vb);
	free(va);
	free(vb);
	return eq;
}
