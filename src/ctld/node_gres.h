/* node_gres.h - the controller's view of each node's generic resources: what
 * the node registered, checked against its slurm.conf Gres=, and what jobs
 * use of it (GresUsed, from what the scheduler allocated: gres_use.h).
 * Event-loop thread only.
 */
#ifndef ROTA_CTLD_NODE_GRES_H
#define ROTA_CTLD_NODE_GRES_H

#include <stddef.h>
#include <stdint.h>
#include "common/gres_inv.h"
#include "ctld/node_mgr.h"
#include "proto/messages.h"

/* Keep what reg says the node found (n->gres_found and n->gres_devs take
 * reg's gres and gres_devs, at most GRES_DEVS_MAX devices; reg's fields are
 * then empty).  A node that told nothing (an older rotad) is taken
 * to have its slurm.conf Gres=.  Returns 0, or -1 when it found fewer of a
 * GRES than slurm.conf says, with reason in Slurm's words ("gres/gpu count
 * reported lower than configured (1 < 4)"): the caller drains it. */
int node_gres_register(struct node *n, struct node_register *reg, char *reason,
                       size_t len);

/* Free what node_gres_register kept in n. */
void node_gres_release(struct node *n);

/* The devices of name:type on n that jobs hold (gres_use.h; numbered within
 * the node's GRES of that name, across its types), as bits into
 * used[GRES_DEVS_MAX / 64]; returns how many are held.  gk: the cluster's
 * kinds (NULL: none held). */
uint64_t node_gres_used_idx(const struct gres_kinds *gk, const struct node *n,
                            const char *name, const char *type, uint64_t *used);

/* The CPUs near device index (within its name) of name on n, from its
 * gres.conf Cores= (or NVML), into cores[GRES_CORE_WORDS].  0, or -1 when the
 * node did not say. */
int node_gres_dev_cores(const struct node *n, const char *name, uint32_t index,
                        uint64_t *cores);

/* The union of the CPUs near the devices of allocation s (common/gres_req.h)
 * on n into near[GRES_CORE_WORDS]; 1 when any, else 0. */
int node_gres_near(const struct node *n, const char *s, uint64_t *near);

/* --gres-flags=enforce-binding: can a job given allocation s on n have its
 * cpus CPUs among the free ones near those devices?  1 yes (also when no
 * device of s says which CPUs are near it: they are near all), else 0. */
int node_gres_bind_fits(const struct node *n, const char *s, uint32_t cpus);

/* GresUsed as scontrol -d show node prints it, one item per GRES of the
 * node's Gres=: "gpu:h100:0(IDX:N/A),nic:0", the indexes ("(IDX:0-1)", or
 * N/A) for a GRES the node registered device files of; NULL when the node
 * has no Gres=.  Caller frees. */
char *node_gres_used(const struct gres_kinds *gk, const struct node *n);

#endif
