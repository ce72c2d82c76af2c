/* cpubind.h - srun --cpu-bind=[quiet|verbose,]TYPE, parsed once.
 *
 * TYPE is none (no), a unit each task gets a share of (cores, threads,
 * sockets, ldoms, boards, rank and their singulars), or an explicit list per
 * local task, cycled when there are more tasks than entries:
 *   map_cpu:ID[,ID...]      one CPU each (decimal, or hex with 0x)
 *   mask_cpu:MASK[,MASK...] a hex mask each (0x optional)
 * An entry may be repeated with *N (map_cpu:0*4,1*4).  map_ldom:, mask_ldom:
 * and rank_ldom are taken as the default share.  IDs are the node's CPU numbers.
 *
 * Limits: CPUBIND_MAX_ENTRIES entries, CPU ids below CPUBIND_MAX_CPU.
 */
#ifndef ROTA_COMMON_CPUBIND_H
#define ROTA_COMMON_CPUBIND_H

#include <stdint.h>
#include "common/error.h"

#define CPUBIND_MAX_ENTRIES 4096
#define CPUBIND_MAX_CPU     4096

enum cpubind_type {
	CPUBIND_DEFAULT = 0, /* not given: TaskPlugin decides */
	CPUBIND_NONE,
	CPUBIND_SHARE, /* cores, threads, ...: an equal share each */
	CPUBIND_MAP,
	CPUBIND_MASK,
};

struct cpubind {
	enum cpubind_type type;
	int verbose;
	uint32_t n;     /* MAP/MASK: entries */
	uint32_t *cnt;  /* [n] CPUs in entry i */
	uint32_t **ids; /* [n][cnt[i]] its CPU ids, ascending */
};

/* Parse arg into *out (release with cpubind_release).  Returns 0; 1 when it
 * asks for help (nothing to release); or -EINVAL with err saying what is
 * wrong (nothing to release then).  q and v abbreviate quiet and verbose. */
int cpubind_parse(const char *arg, struct cpubind *out, struct rota_error *err);

void cpubind_release(struct cpubind *b);

/* A map or mask list alone ("0*2,3", "0x3,0xc": mask nonzero) appended to
 * b's entries (as map_cpu:/mask_cpu: take it; also gpubind.h's map_gpu: and
 * mask_gpu:).  0 or -EINVAL; on failure b may hold part of the list. */
int cpubind_list_parse(const char *list, int mask, struct cpubind *b);

/* Slurm's word for the type in verbose lines: "MASK", "MAP ", "NONE"... */
const char *cpubind_word(const struct cpubind *b);

#endif
