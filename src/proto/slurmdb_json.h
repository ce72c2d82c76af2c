/* slurmdb_json.h - the accounting side as Slurm's OpenAPI documents: the
 * dbv0.0.38 plugin of slurmrestd 22.05 (dbv0.0.38_account, _user,
 * _association, _qos; a job record is sacct's, proto/sacct.h).  From the
 * controller's associations (MSG_ASSOC_LIST_RESP): limits not set
 * (NO_VAL) are null, TRES texts ("cpu=4,mem=1G") are dbv0.0.38_tres_list. */
#ifndef ROTA_SLURMDB_JSON_H
#define ROTA_SLURMDB_JSON_H

#include <jansson.h>
#include "proto/messages.h"

/* {"meta": {"plugin": dbv0.0.38, Slurm's version}, "errors": []}. */
json_t *sdb_response(void);

/* "cpu=4,mem=1G,node=2,gres/gpu=2" as [{"type", "name", "id", "count"}]
 * (mem in MB; GRES numbered from 1001 in the order given). */
json_t *sdb_tres_list(const char *tres);

json_t *sdb_account(const struct assoc_list_resp *l, const struct assoc_account *a);
json_t *sdb_user(const struct assoc_list_resp *l, const struct assoc_user *u);
json_t *sdb_assoc(const struct assoc_list_resp *l, const struct assoc_rec *r);
json_t *sdb_qos(const struct assoc_list_resp *l, uint32_t i);
/* The cluster as slurm.conf has it (controller, nodes, select plugin,
 * TRES: its nodes' CPUs, memory and count). */
struct conf;
json_t *sdb_cluster(const struct conf *cf);

/* rotadbd's statistics as dbv0.0.38_diag's "statistics"; the rows of one
 * of its tables as [{key: name, "count", "time": {"average", "total"}}]
 * (microseconds). */
json_t *sdb_diag(const struct dbd_diag *d);
json_t *sdb_rpc_rows(const struct rpc_stat *rows, uint32_t n, const char *key);
/* Either version's statistics: time_start, rollups (taken), RPCs, users;
 * the rollups' kinds. */
json_t *sdb_stats(const struct dbd_diag *d, json_t *rollups);
extern const char *const sdb_rollup_kinds[3];

/* Shared with slurmdb_json44.h: a value (aborts when NULL: out of memory);
 * a string (NULL as ""); names as a JSON list; "a,b" as ["A", "B"]
 * (NULL or "": none's words). */
json_t *sdb_or_fail(json_t *v);
json_t *sdb_str(const char *s);
json_t *sdb_names(char *const *v);
json_t *sdb_words(const char *s, const char *none);

#endif
