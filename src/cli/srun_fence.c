/* srun_fence.c - gathering a step's PMI fence (see srun_fence.h). */
#include <stdlib.h>
#include <string.h>
#include "cli/srun_fence.h"
#include "proto/frame.h"
#include "common/common.h"

/* Room left in a frame for the rest of MSG_PMI_FENCE_DONE. */
#define FENCE_MAX (FRAME_MAX_BODY - 4096)

struct part {
	uint8_t *data;
	size_t len;
	int in;
};

struct srun_fence {
	struct part *part; /* one per node */
	size_t nnodes, have, total;
	uint32_t seq; /* the fence being gathered */
};

struct srun_fence *srun_fence_create(size_t nnodes)
{
	struct srun_fence *f = xcalloc(1, sizeof(*f));

	f->part = xcalloc(nnodes ? nnodes : 1, sizeof(*f->part));
	f->nnodes = nnodes;
	return f;
}

static void reset(struct srun_fence *f)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		free(f->part[i].data);
		f->part[i] = (struct part){NULL, 0, 0};
	}
	f->have = f->total = 0;
}

void srun_fence_destroy(struct srun_fence *f)
{
	if (!f)
		return;
	reset(f);
	free(f->part);
	free(f);
}

int srun_fence_add(struct srun_fence *f, size_t node, uint32_t seq, const uint8_t *data,
                   size_t len, uint8_t **ret, size_t *ret_len, struct rota_error *err)
{
	uint8_t *all, *p;

	if (node >= f->nnodes || seq != f->seq || f->part[node].in)
		return errprintf(err, "mpi/pmi2: node %zu entered fence %u out of order",
		                 node, seq);
	if (len > FENCE_MAX - f->total)
		return errprintf(err, "mpi/pmi2: the fence's data exceeds %u bytes",
		                 (unsigned)FENCE_MAX);
	f->part[node].data = len ? xmalloc(len) : NULL;
	if (len)
		memcpy(f->part[node].data, data, len);
	f->part[node].len = len;
	f->part[node].in = 1;
	f->total += len;
	if (++f->have < f->nnodes)
		return 0;
	all = p = xmalloc(f->total ? f->total : 1);
	for (size_t i = 0; i < f->nnodes; i++) {
		if (f->part[i].len)
			memcpy(p, f->part[i].data, f->part[i].len);
		p += f->part[i].len;
	}
	*ret = all;
	*ret_len = f->total;
	reset(f);
	f->seq++;
	return 1;
}
