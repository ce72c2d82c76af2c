/* slurm_json44.h - the controller's answers as the documents of Slurm 25.11's
 * slurm v0.0.44 plugin (data_parser/v0.0.44): the response head ({"meta",
 * "errors", "warnings"}), v0.0.44_job_info, v0.0.44_node,
 * v0.0.44_partition_info, v0.0.44_controller_ping and v0.0.44_stats_msg,
 * from the same records as the v0.0.38 ones (slurm_json.h).
 *
 * Numbers Slurm may leave unset or make unlimited are its no_val structs,
 * {"set", "infinite", "number"}: NO_VAL is {false, false, 0}, INFINITE
 * {false, true, 0}.  A field Rota keeps no value for is given as Slurm gives
 * an unset one ("", [], {}, 0, false or an unset no_val struct). */
#ifndef ROTA_SLURM_JSON44_H
#define ROTA_SLURM_JSON44_H

#include <jansson.h>
#include "proto/messages.h"

/* Who asks and where (meta.client and meta.slurm); strings borrowed, NULL
 * written as "". */
struct sj44_meta {
	const char *cluster;
	const char *accounting_storage; /* AccountingStorageType */
	const char *source;             /* the client's address */
	const char *user, *group;
	const char *plugin; /* "slurmdbd"; NULL: "slurmctld" */
};

/* {"meta", "errors": [], "warnings": []}: a response to add the payload to. */
json_t *sj44_response(const struct sj44_meta *m);

/* Add {description: msg, error_number, error: Slurm's words for errnum,
 * source} to response's "errors". */
void sj44_add_error(json_t *response, const char *msg, int errnum, const char *source);

/* A no_val struct of a u32 field (NO_VAL unset, INFINITE32 infinite). */
json_t *sj44_no_val(uint32_t v);

/* A wait status as v0.0.44_process_exit_code_verbose: {"status": [...],
 * "return_code", "signal": {"id", "name"}} (NO_VAL: PENDING). */
json_t *sj44_exit_code(uint32_t status);

/* A job as v0.0.44_job_info, written as text (a listing is written job by
 * job), or as a jansson value read back from that text. */
struct jsonw;
void sj44_job_write(struct jsonw *w, const struct job_info *j, const char *cluster);
json_t *sj44_job(const struct job_info *j, const char *cluster);
/* GET jobs/state's jobs[]: {"job_id": "12" (an array's task "12_3", its
 * pending remainder "12_[4-9]"), "state": [...]} of each job of r. */
json_t *sj44_job_states(const struct job_info_resp *r);
/* GET shares' "shares": {"shares": [v0.0.44_assoc_shares_obj_wrap],
 * "total_shares"} of sshare's rows. */
json_t *sj44_shares(const struct share_resp *r);
json_t *sj44_node(const struct node_info *n);
json_t *sj44_partition(const struct part_info *p);
/* One controller's answer to a ping: mode "primary" or "backup", latency
 * in microseconds. */
json_t *sj44_ping(const struct ping_resp *p, const char *mode, long long latency_us);
/* sdiag's statistics as v0.0.44_stats_msg. */
json_t *sj44_diag(const struct stats_resp *s);

#endif
