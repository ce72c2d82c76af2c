/* membind.h - --mem-bind=[{quiet|verbose},][prefer,]TYPE, parsed once.
 *
 * TYPE is none (no), local (each task's memory on the NUMA node it runs
 * near), rank (task n on NUMA node n), or a list per local task, cycled
 * when there are more tasks than entries:
 *   map_mem:NODE[,NODE...]   one NUMA node each (repeat with *N)
 *   mask_mem:MASK[,MASK...]  a hex mask of NUMA nodes each
 * prefer takes the first of a task's nodes as preferred rather than bound;
 * sort and nosort (page randomization on KNL) are accepted and change
 * nothing.  Limits: as cpubind.h's lists; NUMA nodes below 64.
 */
#ifndef ROTA_COMMON_MEMBIND_H
#define ROTA_COMMON_MEMBIND_H

#include <stdint.h>
#include "common/cpubind.h"
#include "common/error.h"

#define MEMBIND_MAX_NODE 64

enum membind_type {
	MEMBIND_DEFAULT = 0, /* not given: the system's policy */
	MEMBIND_NONE,
	MEMBIND_LOCAL,
	MEMBIND_RANK,
	MEMBIND_MAP,
	MEMBIND_MASK,
};

struct membind {
	enum membind_type type;
	int verbose, prefer;
	struct cpubind list; /* MAP/MASK: the entries, as NUMA node ids */
};

/* Parse arg into *out (release with membind_release).  0; 1 when it asks
 * for help; -EINVAL with err in Slurm's words. */
int membind_parse(const char *arg, struct membind *out, struct rota_error *err);

void membind_release(struct membind *b);

/* The NUMA nodes local task ltid is bound to (rank, map, mask), as a mask
 * into *ret (0: the type names none), on a node with nnodes of them.  0, or
 * -1 when a node named is not there (Slurm refuses to start the task). */
int membind_nodes(const struct membind *b, uint32_t ltid, uint32_t nnodes, uint64_t *ret);

/* Slurm's word for verbose lines: "MAP", "MASK", "LOC", "RANK", "NONE". */
const char *membind_word(const struct membind *b);

#endif
