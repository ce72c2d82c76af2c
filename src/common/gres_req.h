/* gres_req.h - a job's GPU options (--gpus, --gpus-per-node, --gpus-per-task,
 * --gpus-per-socket: "[type:]count") and what a job is allocated of GRES on
 * one node, as the controller journals it and the nodes read it:
 *
 *   "gpu:h100:2(IDX:0-1),nic:1(IDX:0)"
 *
 * items name[:type]:count(IDX:list), the list of device indexes within the
 * node's GRES of that name (ranges a-b, separated by commas inside the
 * parentheses), as Slurm's GresUsed= shows them.
 *
 * Limits: GRES_NAME_MAX-1 bytes for a type, counts up to GRES_REQ_MAX_COUNT,
 * GRES_ALLOC_MAX_INDEX device indexes per name on a node.
 */
#ifndef ROTA_GRES_REQ_H
#define ROTA_GRES_REQ_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"
#include "common/gres.h"

#define GRES_REQ_MAX_COUNT   65536
#define GRES_ALLOC_MAX_INDEX 1024

/* "[type:]count" into type ("" when none) and count (1..GRES_REQ_MAX_COUNT).
 * 0 or -EINVAL (err says why). */
int gres_gpu_parse(const char *spec, char type[GRES_NAME_MAX], uint32_t *ret_count,
                   struct rota_error *err);

/* One item of an allocation string. */
struct gres_alloc_item {
	char name[GRES_NAME_MAX];
	char type[GRES_NAME_MAX];
	uint32_t count;
	uint32_t nidx;
	uint32_t idx[64]; /* the first 64 device indexes (ascending) */
};

/* Parse an allocation string into items[0..*ret_n) (caller's array of max).
 * "" is no item.  0 or -EINVAL. */
int gres_alloc_parse(const char *s, struct gres_alloc_item *items, size_t max,
                     size_t *ret_n);

/* The device indexes of GRES `name` in allocation s, as "0,1" (ascending;
 * caller frees); NULL when none. */
char *gres_alloc_indexes(const char *s, const char *name);

/* How many of GRES `name` allocation s holds. */
uint32_t gres_alloc_count(const char *s, const char *name);

/* What allocations per_node[0..nnodes) hold in all, as TRES in Slurm's
 * words: "gres/gpu=3,gres/gpu:h100=2,gres/gpu:a100=1" (a name's total, then
 * each type); NULL when nothing (caller frees). */
char *gres_alloc_tres(char *const *per_node, size_t nnodes);

/* The same for one node's GRES as slurm.conf's Gres= or GresUsed= give them
 * ("gpu:h100:4(S:0-1)", "gpu:h100:0(IDX:N/A)"): what parentheses hold is
 * ignored, items of count 0 are left out.  NULL when nothing or when spec
 * does not parse (caller frees). */
char *gres_spec_tres(const char *spec);

/* TRES text as Slurm accounts it: the items of tres ("gres/gpu=2,
 * gres/gpu:h100=2", as above) into buf, leaving out a typed one
 * ("gres/gpu:h100") unless tracked (slurm.conf AccountingStorageTRES,
 * "gres/gpu:h100,license/x"; case-insensitive) names it.  A name's total is
 * always kept.  Returns buf ("" for NULL tres; cut at len). */
char *gres_tres_tracked(const char *tres, const char *tracked, char *buf, size_t len);

/* "0-3,5" for idx[0..n) (ascending); caller frees. */
char *gres_idx_ranges(const uint32_t *idx, size_t n);

#endif
