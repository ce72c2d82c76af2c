/* pmi.h - the step's PMI server, for MPI launched by srun itself
 * (srun --mpi=pmi2, or MpiDefault=pmi2 in slurm.conf).
 *
 * Each task gets one end of a socket pair as PMI_FD, with PMI_RANK, PMI_SIZE
 * and PMI_JOBID ("job.step", also the KVS name); the step daemon keeps the
 * other end in its poll loop and speaks the PMI wire protocol the task starts
 * with: PMI-1 (`cmd=init pmi_version=1`: lines of space-separated key=value,
 * MPICH's simple PMI) or PMI-2 (`cmd=init pmi_version=2`, then 6-byte length
 * headers and `cmd=...;key=value;` bodies, Slurm's libpmi2 and MPICH's pmi2
 * client).  Puts are kept until a fence (PMI-1 barrier_in, PMI-2 kvs-fence):
 * once every task here has entered it, this node's puts go to srun
 * (MSG_PMI_FENCE), which answers every node with all nodes' puts
 * (MSG_PMI_FENCE_DONE); then the fence returns and gets see every rank's keys.
 * A one-node step fences here alone.  `PMI_process_mapping` (the block layout
 * of ranks on nodes, in MPICH's vector form) is a job attribute and a key.
 * An abort asks srun to end the step (MSG_PMI_ABORT).  Spawn, name publishing
 * and job connect are refused (rc=-1).
 */
#ifndef ROTA_STEPD_PMI_H
#define ROTA_STEPD_PMI_H

#include <stdint.h>

struct stepd;
struct stepd_task;
struct pmi_fence;
struct rota_error;

/* The variables a task gets (PMI_FD, PMI_RANK, PMI_SIZE, PMI_JOBID). */
#define PMI_TASK_VARS   4
#define PMI_TASK_VARLEN 64

/* The step's MPI type: SLURM_MPI_TYPE of the launch environment, else
 * MpiDefault ("none", "pmi2", "pmix"; NULL means none).  Borrowed. */
const char *pmi_type(const struct stepd *st);
/* Before the tasks are forked: with --mpi=pmi2, a socket pair per task.
 * Returns 0 (st->pmi stays NULL without PMI) or -1 with err. */
int pmi_setup(struct stepd *st, struct rota_error *err);
/* Task t's PMI variables, "NAME=value", into vars (made before its fork, no
 * allocation).  Returns how many (0 without PMI). */
int pmi_task_vars(const struct stepd *st, const struct stepd_task *t,
                  char vars[PMI_TASK_VARS][PMI_TASK_VARLEN]);
/* In the task's child, after its descriptors were marked close-on-exec:
 * keep its PMI_FD open across the exec (async-signal-safe). */
void pmi_child_keep(const struct stepd *st, const struct stepd_task *t);
/* After task t's fork: close its end here. */
void pmi_task_forked(struct stepd *st, const struct stepd_task *t);

/* The poll descriptor and events of local task i's PMI connection; -1 when
 * none. */
int pmi_poll_fd(const struct stepd *st, uint32_t i, short *events);
void pmi_on_client(struct stepd *st, uint32_t i, short revents);
/* srun answered a fence (MSG_PMI_FENCE_DONE). */
void pmi_on_fence_done(struct stepd *st, const struct pmi_fence *f);

void pmi_release(struct stepd *st);

#endif
