/* part_mem.h - a partition's memory defaults and limits, as Slurm 22.05
 * applies them: DefMemPerCPU/DefMemPerNode give a job that asked no memory
 * its partition's default (else slurm.conf's); MaxMemPerCPU/MaxMemPerNode
 * refuse (EnforcePartLimits) or hold (MaxMemPerLimit) a job that asks more,
 * except that a per-CPU request over MaxMemPerCPU is spread over more CPUs a
 * task, as Slurm's _valid_pn_min_mem does.  Runs on the controller's event
 * loop. */
#ifndef ROTA_CTLD_PART_MEM_H
#define ROTA_CTLD_PART_MEM_H

#include <stdint.h>

struct conf;
struct ctld;
struct part;
struct job;
struct job_desc;

/* The parts of a job's request the memory limits read and may change
 * (NO_VAL / NO_VAL64: not given, as in struct job_desc). */
struct part_mem_req {
	uint64_t mem_per_node, mem_per_cpu; /* MB */
	uint32_t cpus_per_task, num_tasks, ntasks_per_node, max_nodes, pn_min_cpus;
	int exclusive; /* --exclusive: whole nodes */
};

void part_mem_req_of(const struct job_desc *d, struct part_mem_req *r);

/* The default memory of a job of p (NULL: slurm.conf's alone) that asked
 * none: one of *ret_node, *ret_cpu set (MB), the other NO_VAL64; both
 * NO_VAL64 when there is no default. */
void part_mem_default(const struct conf *conf, const struct part *p, uint64_t *ret_node,
                      uint64_t *ret_cpu);

/* Does r fit p's MaxMemPerCPU/MaxMemPerNode?  A per-CPU request over
 * MaxMemPerCPU is changed to fit (more CPUs a task, less memory a CPU) and
 * a per-node one under MaxMemPerCPU gets the CPUs it needs (pn_min_cpus).
 * 0, or -ESLURM_INVALID_TASK_MEMORY (r then unchanged). */
int part_mem_check(struct ctld *ctld, const struct part *p, struct part_mem_req *r);

/* At submission, d to p (its first partition of a list): the default
 * memory when it asked none (and no --mem-per-gpu; JOB_F_MEM_DEFAULT then
 * set), then what part_mem_check changes.  Never fails: a job over the
 * limit is refused with EnforcePartLimits (job_mgr.c), else waits. */
void part_mem_submit(struct ctld *ctld, const struct part *p, struct job_desc *d);

/* The memory request of job considered in partition p: its own, or p's
 * default (as it is now) where it asked none (a job of several partitions
 * takes the default of the one it is considered in), changed to fit p's
 * limits.
 * 0, or -ESLURM_INVALID_TASK_MEMORY: over p's limit (WAIT_PN_MEM_LIMIT). */
int part_mem_job(struct ctld *ctld, const struct part *p, const struct job *job,
                 struct part_mem_req *r);

#endif
