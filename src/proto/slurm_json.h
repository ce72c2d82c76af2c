/* slurm_json.h - the controller's answers as Slurm's OpenAPI documents: the
 * slurm v0.0.38 plugin of slurmrestd 22.05 ({"meta", "errors", "jobs"},
 * v0.0.38_job_response_properties, v0.0.38_node, v0.0.38_partition,
 * v0.0.38_ping).  rotarestd serves them; the CLIs' --json is to print the
 * same documents from here. */
#ifndef ROTA_SLURM_JSON_H
#define ROTA_SLURM_JSON_H

#include <jansson.h>
#include "proto/messages.h"

/* {"meta": {plugin, Slurm version}, "errors": []}: a response to add the
 * payload to ("jobs", "nodes", ...). */
json_t *sj_response(void);
/* The same for another plugin (slurmdb's "openapi/dbv0.0.38"). */
json_t *sj_plugin_response(const char *type, const char *name);

/* Add {"error": msg, "error_number": errnum} to response's "errors". */
void sj_add_error(json_t *response, const char *msg, int errnum);

/* A job as v0.0.38_job_response_properties, written as text (the one
 * definition of its fields; a listing is written job by job), or as a
 * jansson value read back from that text. */
struct jsonw;
void sj_job_write(struct jsonw *w, const struct job_info *j, const char *cluster);
json_t *sj_job(const struct job_info *j, const char *cluster);
json_t *sj_node(const struct node_info *n);
json_t *sj_partition(const struct part_info *p);
/* sdiag's statistics as v0.0.38_diag's "statistics". */
json_t *sj_diag(const struct stats_resp *s);
/* One controller's answer to a ping (mode "primary" or "backup"). */
json_t *sj_ping(const struct ping_resp *p, const char *mode);

#endif
