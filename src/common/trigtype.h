/* trigtype.h - strigger's event types and resource types, their bits and
 * the names Slurm 22.05 prints (strigger --get), shared by the CLI and the
 * controller (ctld/trigger.h). */
#ifndef ROTA_COMMON_TRIGTYPE_H
#define ROTA_COMMON_TRIGTYPE_H

#include <stdint.h>

enum trig_res {
	TRIG_RES_JOB = 1,
	TRIG_RES_NODE = 2,
	TRIG_RES_SLURMCTLD = 3,
	TRIG_RES_SLURMDBD = 4,
	TRIG_RES_DATABASE = 5,
	TRIG_RES_FRONT_END = 6,
	TRIG_RES_OTHER = 7,
};

enum trig_type {
	TRIG_T_UP = 1u << 0,
	TRIG_T_DOWN = 1u << 1,
	TRIG_T_FAIL = 1u << 2,
	TRIG_T_TIME = 1u << 3,
	TRIG_T_FINI = 1u << 4,
	TRIG_T_RECONFIG = 1u << 5,
	TRIG_T_IDLE = 1u << 7,
	TRIG_T_DRAINED = 1u << 8,
	TRIG_T_PRI_CTLD_FAIL = 1u << 9,
	TRIG_T_PRI_CTLD_RES_OP = 1u << 10,
	TRIG_T_PRI_CTLD_RES_CTRL = 1u << 11,
	TRIG_T_PRI_CTLD_ACCT_FULL = 1u << 12,
	TRIG_T_BU_CTLD_FAIL = 1u << 13,
	TRIG_T_BU_CTLD_RES_OP = 1u << 14,
	TRIG_T_BU_CTLD_AS_CTRL = 1u << 15,
	TRIG_T_PRI_DBD_FAIL = 1u << 16,
	TRIG_T_PRI_DBD_RES_OP = 1u << 17,
	TRIG_T_PRI_DB_FAIL = 1u << 18,
	TRIG_T_PRI_DB_RES_OP = 1u << 19,
	TRIG_T_BURST_BUFFER = 1u << 20,
};

enum trig_flags { TRIG_F_PERM = 1 };

/* The controllers' events Rota sees (ctld/trigger.h). */
#define TRIG_T_CTLD_SEEN                                                                 \
	(TRIG_T_PRI_CTLD_FAIL | TRIG_T_PRI_CTLD_RES_OP | TRIG_T_PRI_CTLD_RES_CTRL |      \
	 TRIG_T_PRI_CTLD_ACCT_FULL | TRIG_T_BU_CTLD_FAIL | TRIG_T_BU_CTLD_RES_OP |       \
	 TRIG_T_BU_CTLD_AS_CTRL)
/* rotadbd's: it stops or starts following the controller. */
#define TRIG_T_DBD_SEEN (TRIG_T_PRI_DBD_FAIL | TRIG_T_PRI_DBD_RES_OP)

/* The types Rota watches for (the others need what it has not: a database
 * failure rotadbd would report, burst buffers, front-end nodes...). */
#define TRIG_T_SUPPORTED                                                                 \
	(TRIG_T_UP | TRIG_T_DOWN | TRIG_T_FAIL | TRIG_T_TIME | TRIG_T_FINI |             \
	 TRIG_T_RECONFIG | TRIG_T_IDLE | TRIG_T_DRAINED | TRIG_T_CTLD_SEEN |             \
	 TRIG_T_DBD_SEEN)

/* "job", "node", "slurmctld", ... ("unknown" for others). */
const char *trig_res_name(uint32_t res);
/* "up", "down", "time", "primary_slurmctld_failure", ... (one bit; several
 * or none: "unknown"). */
const char *trig_type_name(uint32_t type);

#endif
