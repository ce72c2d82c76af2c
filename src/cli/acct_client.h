/* acct_client.h - asking rotadbd for job records (its unix socket,
 * MSG_ACCT_QUERY), for sacct and rota eff, and for sreport's sums
 * (MSG_ACCT_REPORT_REQ).  Errors are printed in Slurm's
 * words ("Slurm accounting storage is disabled", "Problem talking to the
 * database: ..."). */
#ifndef ROTA_CLI_ACCT_CLIENT_H
#define ROTA_CLI_ACCT_CLIENT_H

struct acct_query;
struct acct_job;
struct acct_report_req;
struct acct_report_resp;

struct acct_fetch_cb {
	void (*connected)(void *arg); /* the query is sent (may be NULL) */
	void (*job)(void *arg, const struct acct_job *job);
	void *arg;
};

/* Every record q selects, in order, to cb->job.  Returns 0, or 1 after an
 * error was printed. */
int acct_fetch(const struct acct_query *q, const struct acct_fetch_cb *cb);

/* sreport's sums: 0 and *ret (caller frees with msg_body_free(
 * MSG_ACCT_REPORT_RESP, ...)), or 1 after an error was printed. */
int acct_report(const struct acct_report_req *q, struct acct_report_resp **ret);

/* sacctmgr modify job: 0 and *ret (rc, text, changed; caller frees with
 * msg_body_free(MSG_ACCT_JOB_MODIFY_RESP, ...)), or 1 after an error was
 * printed. */
struct acct_job_modify;
struct assoc_update_resp;
int acct_job_modify(const struct acct_job_modify *q, struct assoc_update_resp **ret);

/* sacctmgr show config: rotadbd's settings, 0 and *ret (caller frees with
 * msg_body_free(MSG_DBD_CONFIG_RESP, ...)), or 1 after an error was
 * printed. */
struct config_resp;
int acct_dbd_config(struct config_resp **ret);

/* sacctmgr show stats: rotadbd's request counts, 0 and *ret (caller frees
 * with msg_body_free(MSG_DBD_DIAG_RESP, ...)), or 1 after an error was
 * printed.  clear stats: 0, or 1 after an error was printed (rotadbd lets
 * administrators only). */
struct dbd_diag;
int acct_dbd_diag(struct dbd_diag **ret);
int acct_dbd_clear_stats(void);

#endif
