/* step_alloc.h - which of its job's CPUs and memory a new step gets.
 *
 * As Slurm since 21.08: a step holds CPUs of the allocation, all of each of its
 * nodes by default, only ntasks x cpus-per-task with --exact (which -c implies).
 * Steps that hold CPUs do not share them: a step that does not fit beside the
 * running ones waits (ESLURM_NODES_BUSY: srun asks again), one that could never
 * fit in the allocation fails.  An --overlap step holds nothing and may use
 * anything.  The batch step holds nothing either.  Pure: no I/O, no globals.
 */
#ifndef ROTA_CTLD_STEP_ALLOC_H
#define ROTA_CTLD_STEP_ALLOC_H

#include <stdint.h>
#include "ctld/job_mgr.h"

struct step_layout {
	uint32_t n;         /* nodes of the step */
	uint32_t *pos;      /* [n] their positions in the job's node list */
	uint32_t *tasks;    /* [n] tasks on each */
	uint32_t *nslots;   /* [n] CPUs the step gets on each */
	uint32_t **slots;   /* [n][nslots] positions in job->cores[pos] */
	uint64_t *mem;      /* [n] MB held on each (0: none) */
	char **gres;        /* [n] the job's GRES it gets on each (common/gres_req.h;
	                     * NULL: none), or NULL when the job has no GRES */
	uint32_t *task_map; /* [num_tasks] -m arbitrary: each task's node; or NULL */
	uint32_t num_tasks, num_cpus;
	char *resv_ports; /* the ports reserved for it (resv_ports.h), or NULL */
};

/* Lay out req over the job.  cand[0..ncand-1]: the job node positions it may
 * use, in order; fixed: it must use all of them (-w); counts[ncand] (with
 * fixed; NULL: none): the tasks each gets (-m arbitrary).  Returns 0 with
 * *out filled (release with step_layout_release), -ESLURM_NODES_BUSY when it
 * would fit once other steps end, or another -ESLURM_* when it never can. */
int step_alloc(const struct job *job, const struct step_create_req *req,
               const uint32_t *cand, uint32_t ncand, int fixed, const uint32_t *counts,
               struct step_layout *out);

void step_layout_release(struct step_layout *l);

/* Which of the job's GRES devices the laid-out step gets on each of its nodes
 * (step_gres.c): what it asks (--gres, --gpus*) from the devices no other
 * step holds, or without a request all of the job's there.  Fills l->gres.
 * Returns 0, -ESLURM_NODES_BUSY (held by other steps now) or
 * -ESLURM_INVALID_GRES (the job has not that many). */
int step_gres_alloc(const struct job *job, const struct step_create_req *req,
                    struct step_layout *l);

#endif
