/* part_access.h - what a partition lets in, as Slurm 22.05 decides it: its
 * State and Alternate at submission; RootOnly, ReqResv, DisableRootJobs and
 * AllowGroups; AllowAccounts/DenyAccounts and AllowQos/DenyQos (at
 * submission with EnforcePartLimits, else the job waits: AccountNotAllowed,
 * QOSNotAllowed, as it does when the partition changes under it).
 * Runs on the controller's event loop. */
#ifndef ROTA_CTLD_PART_ACCESS_H
#define ROTA_CTLD_PART_ACCESS_H

#include <stdint.h>

struct ctld;
struct caller;
struct part;
struct job_desc;

/* The partition a submission to *pp goes to: *pp while it takes submissions
 * (UP, DOWN), else the first of its Alternate chain that does (*pp set to
 * it).  0, -ESLURM_PARTITION_NOT_AVAIL (none does), or
 * -ESLURM_INVALID_PARTITION_NAME (an Alternate that is no partition). */
int part_access_state(struct ctld *ctld, struct part **pp);

/* A submission to p of d (its account and QOS settled) by submitter for
 * owner (the job's user; its groups may be looked up).  0, or
 * -ESLURM_ACCESS_DENIED (RootOnly, ReqResv, AllocNodes without the submit
 * host), -ESLURM_USER_ID_MISSING
 * (DisableRootJobs), -ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP,
 * -ESLURM_INVALID_ACCOUNT, -ESLURM_INVALID_QOS. */
int part_access_submit(struct ctld *ctld, const struct part *p,
                       const struct caller *submitter, struct caller *owner,
                       const struct job_desc *d);
/* The same for p and, where d names several partitions (-p a,b), every one
 * of them: the first refusal. */
int part_access_submit_all(struct ctld *ctld, const struct part *p,
                           const struct caller *submitter, struct caller *owner,
                           const struct job_desc *d);

/* Does p let a job of account and qos (NULL: none given; the QOS is then
 * "normal") in?  0, else WAIT_ACCOUNT or WAIT_QOS. */
uint32_t part_access_wait(const struct part *p, const char *account, const char *qos);

#endif
