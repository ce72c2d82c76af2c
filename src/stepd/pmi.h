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
 *
 * srun --mpi=pmix (OpenMPI's direct launch): the PMIx server is OpenPMIx's
 * library in a process of its own, rotapmix (src/pmix/rotapmix.c: the library
 * runs threads, the step daemon forks user code), started as the job's user
 * with a link to the step daemon and a rendezvous directory in the spool;
 * the tasks get the variables it gives each (PMIX_NAMESPACE, PMIX_RANK,
 * PMIX_SERVER_URI*...), and its fences travel through the step daemon and
 * srun as above, the data being PMIx's own.
 */
#ifndef ROTA_STEPD_PMI_H
#define ROTA_STEPD_PMI_H

#include <stdint.h>

struct stepd;
struct stepd_task;
struct pmi_fence;
struct rota_error;

/* The step's MPI type: SLURM_MPI_TYPE of the launch environment, else
 * MpiDefault ("none", "pmi2", "pmix"; NULL means none).  Borrowed. */
const char *pmi_type(const struct stepd *st);
/* Before the tasks are forked: with pmi2, a socket pair per task; with pmix,
 * rotapmix started and each task's variables from it.  Returns 0 (st->pmi
 * stays NULL without PMI) or -1 with err. */
int pmi_setup(struct stepd *st, struct rota_error *err);
/* Task t's PMI variables, "NAME=value", NULL-terminated (borrowed; made
 * before its fork), or NULL without PMI. */
char *const *pmi_task_env(const struct stepd *st, const struct stepd_task *t);
/* In the task's child, after its descriptors were marked close-on-exec:
 * keep its PMI_FD open across the exec (async-signal-safe). */
void pmi_child_keep(const struct stepd *st, const struct stepd_task *t);
/* After task t's fork: close its end here. */
void pmi_task_forked(struct stepd *st, const struct stepd_task *t);

/* The poll descriptor and events of local task i's PMI connection; -1 when
 * none. */
int pmi_poll_fd(const struct stepd *st, uint32_t i, short *events);
void pmi_on_client(struct stepd *st, uint32_t i, short revents);
/* --mpi=pmix: rotapmix's link, -1 when none. */
int pmi_link_fd(const struct stepd *st, short *events);
void pmi_on_link(struct stepd *st, short revents);
/* srun answered a fence (MSG_PMI_FENCE_DONE). */
void pmi_on_fence_done(struct stepd *st, const struct pmi_fence *f);

void pmi_release(struct stepd *st);

#endif
