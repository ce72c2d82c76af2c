/* licenses.h - the cluster's licenses (slurm.conf's Licenses=) as the
 * scheduler counts them: a job holds what its -L names from its start to its
 * end, and one that asks for more than is free waits with reason Licenses.
 *
 * As the association limits (assoc_limits.h), a pass counts the running
 * jobs once (lic_pool_begin), asks for each job it would start
 * (lic_pool_check) and adds what it starts (lic_pool_take); a job that waits
 * for licenses does not hold back the jobs after it.  Nothing is kept
 * between passes: Licenses= may change with scontrol reconfigure, and a
 * resource's share at once with sacctmgr modify resource. */
#ifndef ROTA_CTLD_LICENSES_H
#define ROTA_CTLD_LICENSES_H

#include <stdint.h>

struct ctld;
struct job;
struct job_desc;
struct caller;
struct chan;
struct lic_pool;
struct lic;

/* The licenses the cluster has: slurm.conf's Licenses=, then those of the
 * resources given to it (sacctmgr add resource ... Cluster=, "name@server":
 * assoc.h's assoc_res_licenses), into have[LIC_MAX].  *ret_nlocal (NULL
 * allowed): how many come from slurm.conf (the others are remote).  Returns
 * their number. */
int lic_have(const struct ctld *ctld, struct lic *have, int *ret_nlocal);

/* At submission: every license d names is configured, and no more of it is
 * asked for than the cluster has; d->licenses is written as "name:count,...".
 * 0 or -ESLURM_INVALID_LICENSES. */
int lic_desc_check(const struct ctld *ctld, struct job_desc *d);

/* NULL when no license is configured and no job holds one: nothing to
 * check. */
struct lic_pool *lic_pool_begin(struct ctld *ctld);
/* WAIT_LICENSES when too few of what job asks for are free, else 0. */
uint32_t lic_pool_check(const struct lic_pool *p, const struct job *job);
void lic_pool_take(struct lic_pool *p, const struct job *job);
void lic_pool_end(struct lic_pool *p); /* NULL allowed */

/* scontrol show licenses: each license, its total and what running jobs
 * hold. */
void lic_info(struct ctld *ctld, struct caller *who, struct chan *ch);

#endif
