/* nokill.h - -k/--no-kill: a job that loses a node goes on without it.
 *
 * A job submitted with --no-kill whose node fails (DOWN by an admin or for
 * not responding) is neither requeued nor ended NODE_FAIL, as long as it has
 * other nodes left and the one lost is not where its batch script runs: the
 * steps that used the node are killed, and the node leaves the job (Slurm's
 * "Removing failed node X from JobId=N"), its resources given back; new
 * steps run on the nodes it still has.  The change is EV_EXCISE, journaled
 * and replayed like a start: squeue, scontrol show job and a restarted
 * controller see the smaller allocation.  A node that comes back still
 * running the job's processes is told to kill them (an orphan, node_mgr.c).
 *
 * Accounting keeps what the job holds at the end (rotadbd applies EV_EXCISE:
 * node list, node and CPU counts).  Not (yet) as in Slurm: srun -k inside an
 * allocation does not keep a step going on its other nodes.
 */
#ifndef ROTA_CTLD_NOKILL_H
#define ROTA_CTLD_NOKILL_H

#include <time.h>

struct ctld;
struct job;
struct ev_excise;

/* Does job go on without node_name (--no-kill, as above)? */
int nokill_keeps(struct ctld *ctld, const struct job *job, const char *node_name);

/* It goes on without it: its steps there killed, EV_EXCISE committed. */
void nokill_excise(struct ctld *ctld, struct job *job, const char *node_name);

/* The same for any reason (a shrink: scontrol update NumNodes=): the node
 * leaves the running job, its steps there killed, what is left there killed
 * too.  whole_steps: those steps' tasks on other nodes are killed as well (a
 * failed node); else they go on there (a shrink, as Slurm's).  0, or -1 when
 * it is not the job's or the journal refused. */
int job_excise_node(struct ctld *ctld, struct job *job, const char *node_name,
                    int whole_steps);

/* scontrol update JobId= NumNodes=N of a running job: N < its node count
 * keeps its first N nodes, its batch host among them (the last of those
 * makes room for it), as Slurm's resize.
 * 0 or -ESLURM_*. */
int job_shrink(struct ctld *ctld, struct job *job, uint32_t nodes);

/* scontrol update JobId= NodeList=LIST of a running job: the nodes not in
 * LIST leave it (LIST a subset of its nodes, with the batch script's).  0
 * or -ESLURM_*. */
int job_shrink_to(struct ctld *ctld, struct job *job, const char *list);

/* Is LIST (a host list) a subset of the running job's nodes that keeps its
 * batch host?  0 or -ESLURM_INVALID_NODE_NAME. */
int job_shrink_check(struct ctld *ctld, const struct job *job, const char *list);

/* EV_EXCISE: the node leaves the job's allocation.  0 or -EINVAL. */
int nokill_apply(struct ctld *ctld, const struct ev_excise *ev, struct job *job);

#endif
