/* resv_flags.h - an advanced reservation's Flags= (scontrol create|update
 * reservation): the names Slurm gives them, parsed and printed in its order.
 *
 * A Flags= value is a comma list; a name may be abbreviated (MAINT, IGN),
 * "+NAME" adds and "-NAME" takes a flag away (update), and PURGE_COMP may
 * carry a time ("PURGE_COMP=5:00", minutes[:seconds] as a time limit).
 * LICENSE_ONLY is the older name of ANY_NODES; OVERLAP, REPLACE,
 * REPLACE_DOWN and NO_HOLD_JOBS_AFTER_END cannot be taken away.
 */
#ifndef ROTA_COMMON_RESV_FLAGS_H
#define ROTA_COMMON_RESV_FLAGS_H

#include <stddef.h>
#include <stdint.h>

#define RESV_F_MAINT       (1u << 0) /* maintenance: nodes show MAINT */
#define RESV_F_FLEX        (1u << 1) /* its jobs may use nodes outside it */
#define RESV_F_OVERLAP     (1u << 2) /* may share nodes with others */
#define RESV_F_IGNORE_JOBS (1u << 3) /* made even where jobs run */
#define RESV_F_HOURLY      (1u << 4) /* repeats: moved on when it ends */
#define RESV_F_DAILY       (1u << 5)
#define RESV_F_WEEKDAY     (1u << 6)
#define RESV_F_WEEKEND     (1u << 7)
#define RESV_F_WEEKLY      (1u << 8)
#define RESV_F_SPEC_NODES  (1u << 9)  /* its nodes were named (Nodes=) */
#define RESV_F_PART_NODES  (1u << 10) /* all of its partition's nodes */
#define RESV_F_PURGE_COMP  (1u << 11) /* deleted once empty that long */
#define RESV_F_NO_HOLD     (1u << 12) /* NO_HOLD_JOBS_AFTER_END */
#define RESV_F_MAGNETIC    (1u << 13) /* jobs that may use it do, unasked */
#define RESV_F_ALL_NODES   (1u << 14) /* Nodes=ALL without a partition */
#define RESV_F_ANY_NODES   (1u << 15) /* licenses alone (LICENSE_ONLY): no nodes */
#define RESV_F_REPLACE                                                                   \
	(1u << 16)                     /* nodes taken by jobs, down or drained           \
	                                * are replaced by idle ones */
#define RESV_F_REPLACE_DOWN (1u << 17) /* down or drained ones replaced */
#define RESV_F_REPLACES     (RESV_F_REPLACE | RESV_F_REPLACE_DOWN)
#define RESV_F_REPEATS                                                                   \
	(RESV_F_HOURLY | RESV_F_DAILY | RESV_F_WEEKDAY | RESV_F_WEEKEND | RESV_F_WEEKLY)
/* what a user may set (the rest the controller sets) */
#define RESV_F_SETTABLE (~(RESV_F_SPEC_NODES | RESV_F_ALL_NODES))

/* Parse a Flags= value: *ret_add the flags named (or "+NAME"), *ret_del
 * those given as "-NAME", *ret_purge PURGE_COMP's seconds (0: none given).
 * Returns 0, or -1 with the offending word in bad[badlen]. */
int resv_flags_parse(const char *s, uint32_t *ret_add, uint32_t *ret_del,
                     uint32_t *ret_purge, char *bad, size_t badlen);

/* "MAINT,SPEC_NODES", "PURGE_COMP=00:05:00" (purge: seconds, 0 none), ""
 * for none, into buf; returns buf. */
char *resv_flags_format(uint32_t flags, uint32_t purge, char *buf, size_t len);

#endif
