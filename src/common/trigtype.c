/* trigtype.c - strigger's type names (see trigtype.h). */
#include "common/trigtype.h"
#include "common/common.h"

const char *trig_res_name(uint32_t res)
{
	switch (res) {
	case TRIG_RES_JOB:
		return "job";
	case TRIG_RES_NODE:
		return "node";
	case TRIG_RES_SLURMCTLD:
		return "slurmctld";
	case TRIG_RES_SLURMDBD:
		return "slurmdbd";
	case TRIG_RES_DATABASE:
		return "database";
	case TRIG_RES_FRONT_END:
		return "front_end";
	case TRIG_RES_OTHER:
		return "other";
	default:
		return "unknown";
	}
}

static const struct {
	uint32_t bit;
	const char *name;
} names[] = {
    {TRIG_T_UP, "up"},
    {TRIG_T_DOWN, "down"},
    {TRIG_T_FAIL, "fail"},
    {TRIG_T_TIME, "time"},
    {TRIG_T_FINI, "fini"},
    {TRIG_T_RECONFIG, "reconfig"},
    {TRIG_T_IDLE, "idle"},
    {TRIG_T_DRAINED, "drained"},
    {TRIG_T_PRI_CTLD_FAIL, "primary_slurmctld_failure"},
    {TRIG_T_PRI_CTLD_RES_OP, "primary_slurmctld_resumed_operation"},
    {TRIG_T_PRI_CTLD_RES_CTRL, "primary_slurmctld_resumed_control"},
    {TRIG_T_PRI_CTLD_ACCT_FULL, "primary_slurmctld_acct_buffer_full"},
    {TRIG_T_BU_CTLD_FAIL, "backup_slurmctld_failure"},
    {TRIG_T_BU_CTLD_RES_OP, "backup_slurmctld_resumed_operation"},
    {TRIG_T_BU_CTLD_AS_CTRL, "backup_slurmctld_assumed_control"},
    {TRIG_T_PRI_DBD_FAIL, "primary_slurmdbd_failure"},
    {TRIG_T_PRI_DBD_RES_OP, "primary_slurmdbd_resumed_operation"},
    {TRIG_T_PRI_DB_FAIL, "primary_database_failure"},
    {TRIG_T_PRI_DB_RES_OP, "primary_database_resumed_operation"},
    {TRIG_T_BURST_BUFFER, "burst_buffer"},
};

const char *trig_type_name(uint32_t type)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].bit == type)
			return names[i].name;
	return "unknown";
}
