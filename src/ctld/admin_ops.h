/* admin_ops.h - scontrol's smaller requests: a job's batch script
 * (write batch_script), a message to a job (notify) and the controller's log level
 * (setdebug, setdebugflags, schedloglevel). */
#ifndef ROTA_CTLD_ADMIN_OPS_H
#define ROTA_CTLD_ADMIN_OPS_H

struct ctld;
struct caller;
struct chan;
struct job_script_req;
struct set_debug_req;

/* The job's script to its user or an operator. */
void admin_job_script(struct ctld *ctld, const struct caller *who,
                      const struct job_script_req *req, struct chan *ch);

/* scontrol notify: the message to the job's salloc or srun, or to its batch
 * script's error output; its user or an operator. */
struct job_notify_req;
void admin_job_notify(struct ctld *ctld, const struct caller *who,
                      const struct job_notify_req *req, struct chan *ch);

/* Admins only (ops.c): the level from now on (until a restart), or the
 * flags noted. */
void admin_set_debug(struct ctld *ctld, const struct caller *who,
                     const struct set_debug_req *req, struct chan *ch);

#endif
