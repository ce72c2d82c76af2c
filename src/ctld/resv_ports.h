/* resv_ports.h - ports reserved for steps (slurm.conf MpiParams=ports=MIN-MAX,
 * srun --resv-ports[=N]), as Slurm's controller does.
 *
 * A step asks N ports (--resv-ports=N; 0 or --resv-ports alone: none) or,
 * when MpiParams names ports and it does not say, its most tasks on one node
 * plus one.  It gets ports that no running step on any of its nodes holds,
 * searched from where the last search stopped, written "12000-12003,12010" in
 * the step (journaled with it: what a running step holds is found again
 * after a restart by looking at the steps, nothing else is kept) and given
 * to its tasks as SLURM_STEP_RESV_PORTS. */
#ifndef ROTA_CTLD_RESV_PORTS_H
#define ROTA_CTLD_RESV_PORTS_H

struct ctld;
struct job;
struct step_create_req;
struct step_layout;

/* Reserve the ports req asks for its layout l over job into l->resv_ports
 * (NULL when none).  0, -ESLURM_PORTS_INVALID (more than the range has, or
 * none configured), -ESLURM_PORTS_BUSY (the others' steps hold too many). */
int resv_ports_alloc(struct ctld *ctld, const struct job *job,
                     const struct step_create_req *req, struct step_layout *l);

#endif
