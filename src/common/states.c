#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "common/states.h"
#include "common/common.h"

static const struct {
	const char *name, *code;
} job_states[JOB_END] = {
    [JOB_PENDING] = {"PENDING", "PD"},     [JOB_RUNNING] = {"RUNNING", "R"},
    [JOB_SUSPENDED] = {"SUSPENDED", "S"},  [JOB_COMPLETE] = {"COMPLETED", "CD"},
    [JOB_CANCELLED] = {"CANCELLED", "CA"}, [JOB_FAILED] = {"FAILED", "F"},
    [JOB_TIMEOUT] = {"TIMEOUT", "TO"},     [JOB_NODE_FAIL] = {"NODE_FAIL", "NF"},
    [JOB_PREEMPTED] = {"PREEMPTED", "PR"}, [JOB_BOOT_FAIL] = {"BOOT_FAIL", "BF"},
    [JOB_DEADLINE] = {"DEADLINE", "DL"},   [JOB_OOM] = {"OUT_OF_MEMORY", "OOM"},
};

const char *job_state_name(uint32_t state)
{
	uint32_t base = state & JOB_STATE_BASE;
	if (state & JOB_COMPLETING)
		return "COMPLETING";
	if (state & JOB_CONFIGURING)
		return "CONFIGURING";
	if (state & JOB_REQUEUE_FLAG)
		return "REQUEUED";
	if (state & JOB_SPECIAL_EXIT)
		return "SPECIAL_EXIT";
	return base < JOB_END ? job_states[base].name : "UNKNOWN";
}

const char *job_state_code(uint32_t state)
{
	uint32_t base = state & JOB_STATE_BASE;
	if (state & JOB_COMPLETING)
		return "CG";
	if (state & JOB_CONFIGURING)
		return "CF";
	if (state & JOB_REQUEUE_FLAG)
		return "RQ";
	if (state & JOB_SPECIAL_EXIT)
		return "SE";
	return base < JOB_END ? job_states[base].code : "?";
}

int job_state_parse(const char *s)
{
	for (int i = 0; i < JOB_END; i++)
		if (!strcasecmp(s, job_states[i].name) ||
		    !strcasecmp(s, job_states[i].code))
			return i;
	if (!strcasecmp(s, "COMPLETING") || !strcasecmp(s, "CG"))
		return JOB_COMPLETING;
	if (!strcasecmp(s, "CONFIGURING") || !strcasecmp(s, "CF"))
		return JOB_CONFIGURING;
	if (!strcasecmp(s, "REQUEUED") || !strcasecmp(s, "RQ"))
		return JOB_REQUEUE_FLAG;
	if (!strcasecmp(s, "SPECIAL_EXIT") || !strcasecmp(s, "SE"))
		return JOB_SPECIAL_EXIT;
	if (!strcasecmp(s, "OOM"))
		return JOB_OOM;
	return -1;
}

int job_state_is_finished(uint32_t state)
{
	return (state & JOB_STATE_BASE) >= JOB_COMPLETE && !(state & JOB_COMPLETING);
}

static const char *const reasons[WAIT_REASON_END] = {
    [WAIT_NO_REASON] = "None",
    [WAIT_PRIORITY] = "Priority",
    [WAIT_DEPENDENCY] = "Dependency",
    [WAIT_RESOURCES] = "Resources",
    [WAIT_PART_NODE_LIMIT] = "PartitionNodeLimit",
    [WAIT_PART_TIME_LIMIT] = "PartitionTimeLimit",
    [WAIT_PART_DOWN] = "PartitionDown",
    [WAIT_PART_INACTIVE] = "PartitionInactive",
    [WAIT_HELD] = "JobHeldAdmin",
    [WAIT_HELD_USER] = "JobHeldUser",
    [WAIT_ARRAY_TASK_LIMIT] = "JobArrayTaskLimit",
    [WAIT_ASSOC_MAX_JOBS] = "AssocMaxJobsLimit",
    [WAIT_ASSOC_GRP_JOBS] = "AssocGrpJobsLimit",
    [WAIT_ASSOC_GRP_CPU] = "AssocGrpCpuLimit",
    [WAIT_ASSOC_GRP_NODE] = "AssocGrpNodeLimit",
    [WAIT_ASSOC_GRP_MEM] = "AssocGrpMemLimit",
    [WAIT_ASSOC_MAX_WALL] = "AssocMaxWallDurationPerJobLimit",
    [WAIT_ASSOC_MAX_CPU_PER_JOB] = "AssocMaxCpuPerJobLimit",
    [WAIT_ASSOC_MAX_NODE_PER_JOB] = "AssocMaxNodePerJobLimit",
    [WAIT_QOS_MAX_JOBS_PER_USER] = "QOSMaxJobsPerUserLimit",
    [WAIT_QOS_MAX_CPU_PER_USER] = "QOSMaxCpuPerUserLimit",
    [WAIT_QOS_MAX_WALL] = "QOSMaxWallDurationPerJobLimit",
    [WAIT_QOS_GRP_JOBS] = "QOSGrpJobsLimit",
    [WAIT_ASSOC_GRP_CPU_MIN] = "AssocGrpCPUMinutesLimit",
    [WAIT_QOS_GRP_CPU] = "QOSGrpCpuLimit",
    [WAIT_QOS_GRP_NODE] = "QOSGrpNodeLimit",
    [WAIT_QOS_GRP_MEM] = "QOSGrpMemLimit",
    [WAIT_QOS_MAX_CPU_PER_JOB] = "QOSMaxCpuPerJobLimit",
    [WAIT_QOS_MAX_NODE_PER_JOB] = "QOSMaxNodePerJobLimit",
    [WAIT_TIME] = "BeginTime",
    [WAIT_NODE_NOT_AVAIL] = "ReqNodeNotAvail",
    [WAIT_NODES_DOWN] = "Nodes required for job are DOWN, DRAINED or reserved for "
                        "jobs in higher priority partitions",
    [WAIT_DEP_INVALID] = "DependencyNeverSatisfied",
    [WAIT_LICENSES] = "Licenses",
    [FAIL_DEADLINE] = "DeadLine",
    [WAIT_RESERVATION] = "Reservation",
    [WAIT_RESV_DELETED] = "ReservationDeleted",
    [WAIT_RESV_MAINT] = "ReqNodeNotAvail, Reserved for maintenance",
    [WAIT_RESV_OTHER] = "ReqNodeNotAvail, May be reserved for other job",
    [WAIT_ACCOUNT] = "AccountNotAllowed",
    [WAIT_QOS] = "QOSNotAllowed",
    [WAIT_PN_MEM_LIMIT] = "MaxMemPerLimit",
    [WAIT_ASSOC_MAX_CPU_PER_NODE] = "AssocMaxCpuPerNode",
    [WAIT_ASSOC_MAX_MEM_PER_NODE] = "AssocMaxMemPerNode",
    [WAIT_QOS_MAX_CPU_PER_NODE] = "QOSMaxCpuPerNode",
    [WAIT_QOS_MAX_MEM_PER_NODE] = "QOSMaxMemoryPerNode",
    [WAIT_QOS_MIN_CPU] = "QOSMinCpuNotSatisfied",
    [WAIT_QOS_MIN_NODE] = "QOSMinNode",
    [WAIT_QOS_MIN_MEM] = "QOSMinMemory",
    [FAIL_EXIT_CODE] = "NonZeroExitCode",
    [FAIL_TIMEOUT] = "TimeLimit",
    [FAIL_LAUNCH] = "JobLaunchFailure",
    [FAIL_DOWN_NODE] = "NodeDown",
    [FAIL_OOM] = "OutOfMemory",
};

const char *job_reason_name(uint32_t reason)
{
	return reason < WAIT_REASON_END ? reasons[reason] : "None";
}

static const char *node_base_short(uint32_t base, int drain)
{
	if (drain)
		return (base == NODE_ALLOCATED || base == NODE_MIXED) ? "drng" : "drain";
	switch (base) {
	case NODE_DOWN:
		return "down";
	case NODE_IDLE:
		return "idle";
	case NODE_ALLOCATED:
		return "alloc";
	case NODE_MIXED:
		return "mix";
	case NODE_FUTURE:
		return "futr";
	case NODE_ERROR:
		return "err";
	default:
		return "unk";
	}
}

/* sinfo's one-character suffix: maintenance, a reboot, not responding, then
 * power saving. */
static const char *node_suffix(uint32_t state)
{
	if (state & NODE_MAINT)
		return "$";
	if (state & NODE_REBOOT_ISSUED)
		return "^";
	if (state & NODE_REBOOT_REQUESTED)
		return "@";
	if (state & NODE_NO_RESPOND)
		return "*";
	if (state & NODE_POWERED_DOWN)
		return "~";
	if (state & NODE_POWERING_UP)
		return "#";
	if (state & NODE_POWERING_DOWN)
		return "%";
	if (state & NODE_POWER_DOWN)
		return "!";
	return "";
}

/* An idle node a reservation holds: "maint" (maintenance) or "resv", as
 * Slurm names it when nothing else is to say; NULL otherwise. */
static const char *node_resv_name(uint32_t state, int up)
{
	uint32_t base = state & NODE_STATE_BASE;
	int busy = base == NODE_ALLOCATED || base == NODE_MIXED || base == NODE_DOWN ||
	           (state & (NODE_DRAIN | NODE_COMPLETING));

	if ((state & NODE_MAINT) && !busy)
		return (state & NODE_NO_RESPOND) ? (up ? "MAINT*" : "maint*")
		                                 : (up ? "MAINT" : "maint");
	if ((state & NODE_RESERVED) && base == NODE_IDLE && !busy &&
	    !*node_suffix(state & ~NODE_MAINT))
		return up ? "RESERVED" : "resv";
	return NULL;
}

/* A node to reboot that runs no job: "boot" ("reboot" in the long form),
 * with "^" once the reboot is under way or "*" when not responding; NULL
 * for any other. */
static const char *node_boot_name(uint32_t state, int lng)
{
	uint32_t base = state & NODE_STATE_BASE;

	if (!(state & (NODE_REBOOT_REQUESTED | NODE_REBOOT_ISSUED)) ||
	    base == NODE_ALLOCATED || base == NODE_MIXED)
		return NULL;
	if (state & NODE_REBOOT_ISSUED)
		return lng ? "reboot^" : "boot^";
	if (state & NODE_NO_RESPOND)
		return lng ? "reboot*" : "boot*";
	return lng ? "reboot" : "boot";
}

const char *node_state_short(uint32_t state, char *buf, int len)
{
	uint32_t base = state & NODE_STATE_BASE;
	const char *s;

	if (node_resv_name(state, 0) || node_boot_name(state, 0)) {
		snprintf(buf, len, "%s",
		         node_resv_name(state, 0) ? node_resv_name(state, 0)
		                                  : node_boot_name(state, 0));
		return buf;
	}
	if (base == NODE_DOWN)
		s = "down";
	else if ((state & NODE_FAIL) && !(state & NODE_DRAIN))
		s = (base == NODE_ALLOCATED || base == NODE_MIXED ||
		     (state & NODE_COMPLETING))
		        ? "failg"
		        : "fail";
	else if ((state & NODE_COMPLETING) && !(state & NODE_DRAIN))
		s = "comp";
	else
		s = node_base_short(base, !!(state & NODE_DRAIN));
	snprintf(buf, len, "%s%s", s, node_suffix(state));
	return buf;
}

const char *node_state_long(uint32_t state, char *buf, int len)
{
	uint32_t base = state & NODE_STATE_BASE;
	const char *s;

	if (node_resv_name(state, 0)) {
		snprintf(buf, len, "%s",
		         (state & NODE_MAINT) ? node_resv_name(state, 0) : "reserved");
		return buf;
	}
	if (node_boot_name(state, 1)) {
		snprintf(buf, len, "%s", node_boot_name(state, 1));
		return buf;
	}
	if (base == NODE_DOWN)
		s = (state & NODE_DRAIN) ? "drained" : "down";
	else if (state & NODE_DRAIN)
		s = (base == NODE_ALLOCATED || base == NODE_MIXED) ? "draining"
		                                                   : "drained";
	else if (state & NODE_FAIL)
		s = (base == NODE_ALLOCATED || base == NODE_MIXED ||
		     (state & NODE_COMPLETING))
		        ? "failing"
		        : "fail";
	else if (state & NODE_COMPLETING)
		s = "completing";
	else if (base == NODE_IDLE)
		s = "idle";
	else if (base == NODE_ALLOCATED)
		s = "allocated";
	else if (base == NODE_MIXED)
		s = "mixed";
	else if (base == NODE_FUTURE)
		s = "future";
	else
		s = "unknown";
	snprintf(buf, len, "%s%s", s, node_suffix(state));
	return buf;
}

const char *node_state_upper(uint32_t state, char *buf, int len)
{
	static const char *const base_names[NODE_END] = {
	    "UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE"};
	uint32_t base = state & NODE_STATE_BASE;

	snprintf(buf, len, "%s%s%s%s%s%s%s%s%s%s%s%s%s%s",
	         base < NODE_END ? base_names[base] : "UNKNOWN",
	         (state & NODE_CLOUD) ? "+CLOUD" : "",
	         (state & NODE_COMPLETING) ? "+COMPLETING" : "",
	         (state & NODE_DRAIN) ? "+DRAIN" : "", (state & NODE_FAIL) ? "+FAIL" : "",
	         (state & NODE_MAINT) ? "+MAINTENANCE" : "",
	         (state & NODE_REBOOT_REQUESTED) ? "+REBOOT_REQUESTED" : "",
	         (state & NODE_REBOOT_ISSUED) ? "+REBOOT_ISSUED" : "",
	         (state & NODE_RESERVED) ? "+RESERVED" : "",
	         (state & NODE_NO_RESPOND) ? "+NOT_RESPONDING" : "",
	         (state & NODE_POWER_DOWN) ? "+POWER_DOWN" : "",
	         (state & NODE_POWERED_DOWN) ? "+POWERED_DOWN" : "",
	         (state & NODE_POWERING_DOWN) ? "+POWERING_DOWN" : "",
	         (state & NODE_POWERING_UP) ? "+POWERING_UP" : "");
	return buf;
}

const char *slurm_strerror(int rc)
{
	switch (rc) {
	case SLURM_OK:
		return "No error";
	case SLURM_COMMUNICATIONS_CONNECTION_ERROR:
		return "Unable to contact slurm controller (connect failure)";
	case SLURM_PROTOCOL_AUTHENTICATION_ERROR:
		return "Protocol authentication error";
	case ESLURM_INVALID_PARTITION_NAME:
		return "Invalid partition name specified";
	case ESLURM_DEFAULT_PARTITION_NOT_SET:
		return "No partition specified or system default partition";
	case ESLURM_ACCESS_DENIED:
		return "Access/permission denied";
	case ESLURM_USER_ID_MISSING:
		return "Invalid user id";
	case ESLURM_INVALID_ACCOUNT:
		return "Invalid account or account/partition combination specified";
	case ESLURM_INVALID_QOS:
		return "Invalid qos specification";
	case ESLURM_INVALID_MCS_LABEL:
		return "Invalid mcs_label specified";
	case ESLURM_INVALID_PARENT_ACCOUNT:
		return "Invalid parent account specified";
	case ESLURM_ACCOUNTING_POLICY:
		return "Job violates accounting/QOS policy (job submit limit, user's "
		       "size and/or time limits)";
	case ESLURM_IN_STANDBY_MODE:
		return "Slurm backup controller in standby mode";
	case ESLURM_REQUESTED_NODES_NOT_IN_PARTITION:
		return "Requested nodes not in this partition";
	case ESLURM_TOO_MANY_REQUESTED_CPUS:
		return "More processors requested than permitted";
	case ESLURM_INVALID_NODE_COUNT:
		return "Node count specification invalid";
	case ESLURM_JOB_SCRIPT_MISSING:
		return "Job script not specified";
	case ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE:
		return "Requested node configuration is not available";
	case ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE:
		return "Requested partition configuration not available now";
	case ESLURM_NODES_BUSY:
		return "Requested nodes are busy";
	case ESLURM_INVALID_ARRAY:
		return "Invalid job array specification";
	case ESLURM_INVALID_TIME_MIN_LIMIT:
		return "Invalid time-min specification (exceeds job's time or other "
		       "limits)";
	case ESLURM_INVALID_LICENSES:
		return "Invalid license specification";
	case ESLURM_RESERVATION_INVALID:
		return "Requested reservation is invalid";
	case ESLURM_RESERVATION_ACCESS:
		return "Access denied to requested reservation";
	case ESLURM_INVALID_TIME_VALUE:
		return "Invalid time specified";
	case ESLURM_RESERVATION_BUSY:
		return "Requested reservation is in use";
	case ESLURM_RESERVATION_NOT_USABLE:
		return "Requested reservation not usable now";
	case ESLURM_RESERVATION_OVERLAP:
		return "Requested reservation overlaps with another reservation";
	case ESLURM_RESERVATION_EMPTY:
		return "Reservation request lacks users, groups or accounts";
	case ESLURM_RESERVATION_NAME_DUP:
		return "Duplicate reservation name";
	case ESLURM_JOB_SUSPENDED:
		return "Job is current suspended, requested operation disabled";
	case ESLURM_JOB_NOT_SUSPENDED:
		return "Job is not suspended";
	case ESLURM_INVALID_CPU_COUNT:
		return "CPU count specification invalid";
	case ESLURM_CORE_RESERVATION_UPDATE:
		return "Core-based reservation can not be updated";
	case ESLURM_INVALID_JOB_ID:
		return "Invalid job id specified";
	case ESLURM_INVALID_NODE_NAME:
		return "Invalid node name specified";
	case ESLURM_WRITING_TO_FILE:
		return "I/O error writing script/environment to file";
	case ESLURM_TRANSITION_STATE_NO_UPDATE:
		return "Job can not be altered now, try again later";
	case ESLURM_ALREADY_DONE:
		return "Job/step already completing or completed";
	case ESLURM_JOB_PENDING:
		return "Job is pending execution";
	case ESLURM_DISABLED:
		return "Requested operation is presently disabled";
	case ESLURM_JOB_NOT_PENDING:
		return "Job is no longer pending execution";
	case ESLURM_JOB_NOT_RUNNING:
		return "Job is not running";
	case ESLURM_JOB_HELD:
		return "Job is in held state, pending scheduler release";
	case ESLURM_INVALID_TIME_LIMIT:
		return "Requested time limit is invalid (missing or exceeds some limit)";
	case ESLURM_NOT_SUPPORTED:
		return "Requested operation not supported on this system";
	case ESLURM_INVALID_NODE_STATE:
		return "Invalid node state specified";
	case ESLURM_REBOOT_IN_PROGRESS:
		return "Reboot already in progress";
	case ESLURM_INVALID_DEPENDENCY:
		return "Job dependency problem";
	case ESLURM_BAD_DIST:
		return "Task distribution specification invalid";
	case ESLURM_BAD_TASK_COUNT:
		return "Task count specification invalid";
	case ESLURM_INVALID_TASK_MEMORY:
		return "Memory required by task is not available";
	case ESLURM_INVALID_FEATURE:
		return "Invalid feature specification";
	case ESLURM_ACTIVE_FEATURE_NOT_SUBSET:
		return "Active features not subset of available features";
	case ESLURM_BATCH_CONSTRAINT:
		return "Job --batch option is invalid or not a subset of --constraints";
	case ESLURM_PARTITION_DOWN:
		return "Partition in DOWN state";
	case ESLURM_PORTS_BUSY:
		return "Required ports are in use";
	case ESLURM_PORTS_INVALID:
		return "Requires more ports than can be reserved";
	case ESLURM_NODE_NOT_AVAIL:
		return "Required node not available (down, drained or reserved)";
	case ESLURM_PARTITION_NOT_AVAIL:
		return "Required partition not available (inactive or drain)";
	case ESLURM_PARTITION_IN_USE:
		return "Partition is in use";
	case ESLURM_INVALID_TRES_BILLING_WEIGHTS:
		return "Invalid TRESBillingWeights specification";
	case ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP:
		return "User's group not permitted to use this partition";
	case ESLURM_CONFIGLESS_DISABLED:
		return "ConfigLess mode is disabled in slurm configuration.";
	case ESLURM_ENVIRONMENT_MISSING:
		return "Batch job submission failed: environment variables missing";
	case ESLURM_REACHED_MAX_JOB_COUNT:
		return "Slurm temporarily unable to accept job, sleeping and retrying";
	case ESLURM_PATHNAME_TOO_LONG:
		return "Pathname of a file, directory or other parameter too long";
	case ESLURM_INVALID_ARGUMENT:
		return "Invalid argument";
	case ESLURM_INVALID_GRES:
		return "Invalid generic resource (gres) specification";
	case ESLURM_TRIGGER_DUP:
		return "Duplicate event trigger";
	case ESLURM_NOT_HET_JOB_LEADER:
		return "Job not heterogeneous job leader";
	case ESLURM_NOT_WHOLE_HET_JOB:
		return "Operation not permitted on individual component of heterogeneous "
		       "job";
	case ESLURM_CANNOT_MODIFY_CRON_JOB:
		return "Cannot modify scrontab jobs through scontrol";
	default:
		return "Unspecified error";
	}
}
