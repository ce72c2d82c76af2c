/* gres_use.h - GRES as the controller schedules them: the cluster's kinds
 * (name:type pairs, the scheduling core's kind numbers) and, per node, how
 * many of each kind it has and which device indexes jobs hold.
 *
 * A node's devices of one name are numbered 0.. in the order of its Gres=
 * (gpu:a100:2,gpu:h100:2 -> a100 0-1, h100 2-3), as Slurm numbers them; what
 * a job holds on a node is journaled as an allocation string
 * (common/gres_req.h), so a restart or a snapshot claims the same devices.
 *
 * Limits: SCHED_GRES_KINDS kinds in a cluster (more are logged and never
 * allocated), GRES_USE_MAX_DEV devices of one kind on a node are told apart
 * by index (beyond, a kind is counted only).
 */
#ifndef ROTA_CTLD_GRES_USE_H
#define ROTA_CTLD_GRES_USE_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"
#include "common/gres.h"
#include "sched/select.h"

#define GRES_USE_MAX_DEV 64

struct gres_kind {
	char name[GRES_NAME_MAX];
	char type[GRES_NAME_MAX]; /* "" untyped */
};

struct gres_kinds {
	size_t n;
	struct gres_kind k[SCHED_GRES_KINDS];
};

struct gres_use {
	uint32_t count[SCHED_GRES_KINDS]; /* of each kind on the node */
	uint32_t first[SCHED_GRES_KINDS]; /* index of its first device in its name */
	uint32_t alloc[SCHED_GRES_KINDS]; /* held by jobs */
	uint64_t used[SCHED_GRES_KINDS];  /* bit i: device first + i held */
};

struct job_desc;
struct sched_req;

/* Add the kinds of one node's Gres= (conf syntax) to gk and set ng's counts
 * and first indexes.  Kinds that do not fit are logged once. */
void gres_use_setup(struct gres_kinds *gk, struct gres_use *ng, const char *node_gres,
                    const char *node_name);

/* Fill r->gres[]/ngres from the job's --gres and GPU options, and adjust its
 * CPUs and memory for --cpus-per-gpu and --mem-per-gpu: --gres's items first,
 * one want each in order (per_node: its count, at most GRES_REQ_MAX_COUNT),
 * then one for each GPU option given.  -EINVAL when a name or type no kind
 * has (err says which; ESLURM_INVALID_GRES to the user) or the request has
 * too many items. */
int gres_use_wants(const struct gres_kinds *gk, const struct job_desc *d,
                   struct sched_req *r, struct rota_error *err);

/* How many of r->gres[] (as gres_use_wants filled them from d) are --gres's
 * items. */
uint32_t gres_use_wants_items(const struct job_desc *d, const struct sched_req *r);

/* The devices of kind k a pick of take would hold on ng: the free ones, those
 * with the highest score first (score, when not NULL: [i] for device
 * first[k] + i), then the lowest index.  Their numbers within the kind
 * (0..GRES_USE_MAX_DEV-1) into idx[GRES_USE_MAX_DEV], best first; returns
 * how many (at most take).  Allocates nothing: the scheduling pass asks it
 * for every node. */
uint32_t gres_use_rank(const struct gres_use *ng, size_t k, uint32_t take,
                       const uint32_t *score, uint32_t *idx);

/* Device indexes for take[SCHED_GRES_KINDS] (what the scheduler gave a job on
 * node ng): the free ones with the highest score first (score, when not NULL:
 * [kind * GRES_USE_MAX_DEV + i] for device first[kind] + i, e.g. how many free
 * CPUs are near it), then the lowest index.  The allocation string, "" when
 * nothing (caller frees). */
char *gres_use_pick(const struct gres_kinds *gk, const struct gres_use *ng,
                    const uint32_t *take, const uint32_t *score);

/* Hold (or give back) the devices allocation s names on ng.  Claiming takes
 * what it can: a journal from another configuration is not refused. */
void gres_use_claim(const struct gres_kinds *gk, struct gres_use *ng, const char *s);
void gres_use_release(const struct gres_kinds *gk, struct gres_use *ng, const char *s);

/* Counts of each kind allocation s holds, into take[SCHED_GRES_KINDS]. */
void gres_use_counts(const struct gres_kinds *gk, const char *s, uint32_t *take);

/* Slurm's GresUsed= for a node: "gpu:h100:2(IDX:0-1),nic:0"; "" when the node
 * has none (caller frees). */
char *gres_use_str(const struct gres_kinds *gk, const struct gres_use *ng);

#endif
