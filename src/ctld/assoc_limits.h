/* assoc_limits.h - the association and QOS limits a job may not start past
 * (AccountingStorageEnforce=limits; qos for the QOS's), checked by each
 * scheduling pass with Slurm's pending reasons.
 *
 * A pass counts the running jobs once (assoc_limits_begin), per user
 * association, per account (a job counts in its account and every account
 * above it) and per QOS and user, then asks for each job it would start
 * (assoc_limits_check) and adds what it starts (assoc_limits_started).  A
 * job held by a limit does not hold back the jobs after it.  Nothing is kept
 * between passes: the records may change at any time (sacctmgr).
 *
 * A job meets the limits of two QOS: its own and its partition's (QOS= of
 * the partition it runs or is considered in, Slurm's partition QOS).  Each
 * QOS counts the jobs using it either way (once when they are the same).
 * Where both set a limit, the partition QOS's wins, unless the job's QOS has
 * Flags=OverPartQOS: then the job QOS's does.
 */
#ifndef ROTA_CTLD_ASSOC_LIMITS_H
#define ROTA_CTLD_ASSOC_LIMITS_H

#include <stdint.h>
#include <sys/types.h>

struct ctld;
struct job;
struct assoc_limits;

/* NULL when no limit is enforced or none is set: nothing to check. */
struct assoc_limits *assoc_limits_begin(struct ctld *ctld);
/* The WAIT_* reason job must wait for, or 0. */
uint32_t assoc_limits_check(struct assoc_limits *l, const struct job *job);
void assoc_limits_started(struct assoc_limits *l, const struct job *job);
void assoc_limits_end(struct assoc_limits *l); /* NULL allowed */

/* At submission: would the user's pending and running jobs in its
 * association (MaxSubmitJobs, GrpSubmitJobs of the accounts above) or QOS
 * (MaxSubmitJobsPerUser of its QOS and partition's QOS, as above) pass a
 * limit with one more?  0 or
 * -ESLURM_ACCOUNTING_POLICY. */
struct job_desc;
int assoc_limits_submit(struct ctld *ctld, uid_t uid, const char *user,
                        const struct job_desc *d, const char *partition);

/* Jobs a record stands for at submission (MaxSubmitJobs and the others
 * count an array's tasks, as Slurm does): a pending remainder's tasks, else
 * 1. */
uint32_t assoc_limits_job_weight(const struct job *j);

#endif
