/* assoc.h - accounts, users, associations and QOS: who may run under which
 * account, with what limits and shares (sacctmgr's records).
 *
 * DESIGN: the controller keeps them (a few thousand small records, in memory)
 * and is their one writer: sacctmgr asks it (MSG_ASSOC_UPDATE), it checks
 * the request and journals the records it adds, replaces or removes as one
 * EV_ASSOC, which the journal's followers (a standby, rotadbd) apply in turn.
 * So the limits a submission is checked against are there when rotadbd is
 * down, and survive restarts as jobs do.  Slurm keeps them in slurmdbd and
 * caches them in slurmctld; the commands and their words are Slurm's.
 *
 * Always present: account root (and its association), user root (an
 * Administrator, in root), QOS normal.
 */
#ifndef ROTA_CTLD_ASSOC_H
#define ROTA_CTLD_ASSOC_H

#include <stddef.h>
#include <sys/types.h>
#include "proto/messages.h"

struct ctld;
struct caller;
struct chan;
struct ev_assoc;

struct assoc_mgr *assoc_mgr_create(void);
void assoc_mgr_destroy(struct assoc_mgr *m);

/* Apply a journaled EV_ASSOC.  Returns 0. */
int assoc_apply(struct assoc_mgr *m, const struct ev_assoc *ev);

/* The whole state as one EV_ASSOC put (a snapshot's record; caller releases). */
void assoc_snapshot(const struct assoc_mgr *m, struct ev_assoc *ev);

/* MSG_ASSOC_UPDATE and MSG_ASSOC_LIST_REQ. */
void assoc_update(struct ctld *ctld, struct caller *who, const struct assoc_update *req,
                  struct chan *ch);
void assoc_list(struct ctld *ctld, struct caller *who, struct chan *ch);
/* MSG_ASSOC_MGR_REQ (scontrol show assoc_mgr, assoc_info.c): the records
 * req asks for that the caller may see, with what jobs use of each limit;
 * an MSG_RC error (access denied) to a user the records do not know while
 * PrivateData hides others'. */
struct assoc_mgr_req;
void assoc_info(struct ctld *ctld, struct caller *who, const struct assoc_mgr_req *req,
                struct chan *ch);

struct job_desc;
struct conf;

/* What AccountingStorageEnforce asks for: associations (ENFORCE_ASSOC),
 * limits or safe (ENFORCE_LIMITS: association and QOS limits), qos
 * (ENFORCE_QOS: a job's QOS must be one its association may use), all;
 * each implies associations, as in Slurm. */
enum assoc_enforce {
	ENFORCE_ASSOC = 1,
	ENFORCE_LIMITS = 2,
	ENFORCE_QOS = 4,
	ENFORCE_SAFE = 8 /* a job starts only if it fits GrpTRESMins to its end */
};
unsigned assoc_enforce(const struct conf *conf);

/* A submission's account (user: the submitter's name): the one asked for,
 * else the user's DefaultAccount
 * (set in d).  Where associations are enforced, the user must have one with
 * that account (for partition, or for all).  Returns 0 or
 * -ESLURM_INVALID_ACCOUNT. */
int assoc_job_account(const struct ctld *ctld, const char *user, const char *partition,
                      struct job_desc *d);

/* A submission's QOS: the one asked for (which must exist, and with qos
 * enforced be one of the association's), else the association's
 * DefaultQOS (set in d).  Call after assoc_job_account.  Returns 0 or
 * -ESLURM_INVALID_QOS. */
int assoc_job_qos(const struct ctld *ctld, const char *user, const char *partition,
                  struct job_desc *d);

struct assoc_rec;
/* The association a job of user under account runs in: the one for
 * partition, else the one for every partition; NULL if none. */
const struct assoc_rec *assoc_of_job(const struct assoc_mgr *m, const char *account,
                                     const char *user, const char *partition);

/* r's QOS list, or the nearest one above it (NULL: none); its DefaultQOS
 * likewise, else its only QOS, else "normal" (borrowed). */
char *const *assoc_qos_list(const struct assoc_mgr *m, const struct assoc_rec *r);
const char *assoc_def_qos(const struct assoc_mgr *m, const struct assoc_rec *r);

/* The Priority of QOS name (0: none such), and the largest of any QOS
 * (the multifactor QOS factor is one over the other). */
uint32_t assoc_qos_priority(const struct assoc_mgr *m, const char *name);
/* QOS name's record, or NULL (borrowed). */
struct assoc_qos;
const struct assoc_qos *assoc_qos_get(const struct assoc_mgr *m, const char *name);
uint32_t assoc_max_qos_priority(const struct assoc_mgr *m);

/* r's Priority: its own, else the nearest one above it (a user's
 * association inherits its account's, as in Slurm); 0 where none is set.
 * And the largest any association has (the multifactor association factor
 * is one over the other). */
uint32_t assoc_priority(const struct assoc_mgr *m, const struct assoc_rec *r);
uint32_t assoc_max_priority(const struct assoc_mgr *m);

/* The licenses cluster has of the resources (sacctmgr add resource ...
 * Cluster=): "name@server", Count*PercentAllowed/100 each (rounded down, as
 * Slurm), appended to l[n] up to LIC_MAX (a name l has already is passed
 * over).  Returns the new n. */
struct lic;
int assoc_res_licenses(const struct assoc_mgr *m, const char *cluster, struct lic *l,
                       int n);

/* user's DefaultAccount, or NULL (borrowed). */
const char *assoc_default_account(const struct assoc_mgr *m, const char *user);

/* Does user have an association with account (in partition, or one for
 * every partition)? */
int assoc_exists(const struct assoc_mgr *m, const char *user, const char *account,
                 const char *partition);

#endif
