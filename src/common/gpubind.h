/* gpubind.h - --gpu-bind=[verbose,]TYPE, and which of a step's GPUs on a node
 * each of its tasks there is bound to (the task's CUDA_VISIBLE_DEVICES).
 *
 * TYPE, as Slurm takes it:
 *   closest          the GPUs near the task's CPUs (gres.conf Cores=)
 *   single:N         one GPU each: tasks 0..N-1 the first of those near them,
 *                    the next N the second, ...
 *   per_task:N       N GPUs each, in order: task 0 the first N, ...
 *   map_gpu:ID,...   one GPU each, by local task, the list cycled (ID*N repeats)
 *   mask_gpu:MASK,...  a hex mask of GPUs each, the same way
 *   none             no binding: every task sees all the step's GPUs
 * IDs (and mask bits) count the step's GPUs on the node from 0 when a device
 * cgroup leaves the task only those (ConstrainDevices), else they are the
 * node's GPU indexes, as Slurm reads them.  --gpus-per-task=N without
 * --gpu-bind binds as per_task:N.
 *
 * Limits: GPUBIND_MAX_GPUS GPUs of a step on a node are told apart; map and
 * mask lists as cpubind.h's (CPUBIND_MAX_ENTRIES entries).
 */
#ifndef ROTA_COMMON_GPUBIND_H
#define ROTA_COMMON_GPUBIND_H

#include <stdint.h>
#include "common/cpubind.h"
#include "common/error.h"

#define GPUBIND_MAX_GPUS 64

enum gpubind_type {
	GPUBIND_DEFAULT = 0, /* not given */
	GPUBIND_NONE,
	GPUBIND_CLOSEST,
	GPUBIND_SINGLE,
	GPUBIND_PER_TASK,
	GPUBIND_MAP,
	GPUBIND_MASK,
};

struct gpubind {
	enum gpubind_type type;
	int verbose;
	uint32_t n;          /* SINGLE: tasks per GPU; PER_TASK: GPUs per task */
	struct cpubind list; /* MAP/MASK: the entries, as GPU ids */
};

/* Parse arg into *out (release with gpubind_release).  0, or -EINVAL with
 * err in Slurm's words (nothing to release then). */
int gpubind_parse(const char *arg, struct gpubind *out, struct rota_error *err);

void gpubind_release(struct gpubind *b);

/* A step's GPUs on one node. */
struct gpubind_node {
	uint32_t ngpus;      /* at most GPUBIND_MAX_GPUS are bound */
	const uint32_t *idx; /* [ngpus] their node indexes, ascending (borrowed) */
	int relative;        /* IDs count these from 0 (ConstrainDevices) */
};

/* The GPUs local task ltid is bound to, bit p for n->idx[p].  close: those
 * near the task's CPUs, as the same bits (0: not known, all are), for
 * closest and single.  All of the step's GPUs when b binds nothing (none, not
 * given) or names none of them. */
uint64_t gpubind_task(const struct gpubind *b, const struct gpubind_node *n,
                      uint32_t ltid, uint64_t close);

/* "1,3": the GPUs of bits, as positions (relative) or node indexes; caller
 * frees. */
char *gpubind_list(const struct gpubind_node *n, uint64_t bits, int relative);

#endif
