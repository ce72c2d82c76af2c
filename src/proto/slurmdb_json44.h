/* slurmdb_json44.h - the accounting side as the documents of Slurm 25.11's
 * slurmdb v0.0.44 plugin (data_parser/v0.0.44): v0.0.44_job (a record
 * rotadbd keeps, with its steps), _account, _user, _assoc, _qos,
 * _cluster_rec and _stats_rec, from the same records as the dbv0.0.38 ones
 * (slurmdb_json.h, sacct.h).
 *
 * Numbers Slurm may leave unset are {"set", "infinite", "number"} (as
 * slurm_json44.h's); what Rota keeps no value for is Slurm's unset value
 * ("", [], 0, false, an unset struct), so that clients find every key. */
#ifndef ROTA_SLURMDB_JSON44_H
#define ROTA_SLURMDB_JSON44_H

#include <jansson.h>
#include "proto/messages.h"

struct sacct_ctx;
struct conf;

/* Record j (and its steps, unless with_steps is 0) added to jobs. */
void sdb44_job_add(const struct sacct_ctx *x, json_t *jobs, const struct acct_job *j,
                   int with_steps);

json_t *sdb44_account(const struct assoc_list_resp *l, const struct assoc_account *a);
json_t *sdb44_user(const struct assoc_list_resp *l, const struct assoc_user *u);
json_t *sdb44_assoc(const struct assoc_list_resp *l, const struct assoc_rec *r);
json_t *sdb44_qos(const struct assoc_list_resp *l, uint32_t i);
json_t *sdb44_cluster(const struct conf *cf);
/* rotadbd's statistics as v0.0.44_stats_rec (rollups: none kept, zeros). */
json_t *sdb44_diag(const struct dbd_diag *d);

#endif
