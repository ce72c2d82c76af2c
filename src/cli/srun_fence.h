/* srun_fence.h - srun's part in a step's PMI fence (stepd/pmi.h): gather
 * each node's MSG_PMI_FENCE, and once every node's is in, the nodes' data
 * concatenated in node order for MSG_PMI_FENCE_DONE.  Fences come one after
 * another: a node's part of the next one before the others' parts of this one
 * is refused. */
#ifndef ROTA_CLI_SRUN_FENCE_H
#define ROTA_CLI_SRUN_FENCE_H

#include <stddef.h>
#include <stdint.h>

struct rota_error;
struct srun_fence;

struct srun_fence *srun_fence_create(size_t nnodes);
void srun_fence_destroy(struct srun_fence *f); /* NULL allowed */

/* Node's data (copied) for fence seq.  Returns 0 while parts are missing, 1
 * when this completed the fence (*ret: the whole, caller frees; *ret_len),
 * or -1 with err (a part out of order, or the whole over FRAME_MAX_BODY). */
int srun_fence_add(struct srun_fence *f, size_t node, uint32_t seq, const uint8_t *data,
                   size_t len, uint8_t **ret, size_t *ret_len, struct rota_error *err);

#endif
