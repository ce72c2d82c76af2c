/* messages.c - descriptors generated from the declarations in messages.h. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "proto/messages.h"
#include "common/common.h"

ROTA_DEFINE_EXT(job_desc, JOB_DESC_FIELDS)
ROTA_DEFINE(job_info, JOB_INFO_FIELDS)
ROTA_DEFINE(node_info, NODE_INFO_FIELDS)
ROTA_DEFINE(part_info, PART_INFO_FIELDS)
ROTA_DEFINE(kv, KV_FIELDS)
ROTA_DEFINE(rc_msg, RC_MSG_FIELDS)
ROTA_DEFINE(empty_msg, EMPTY_MSG_FIELDS)
ROTA_DEFINE(ping_resp, PING_RESP_FIELDS)
ROTA_DEFINE(submit_resp, SUBMIT_RESP_FIELDS)
ROTA_DEFINE(will_run_resp, WILL_RUN_RESP_FIELDS)
ROTA_DEFINE(job_script_req, JOB_SCRIPT_REQ_FIELDS)
ROTA_DEFINE(job_script_resp, JOB_SCRIPT_RESP_FIELDS)
ROTA_DEFINE(set_debug_req, SET_DEBUG_REQ_FIELDS)
ROTA_DEFINE(job_notify_req, JOB_NOTIFY_REQ_FIELDS)
ROTA_DEFINE(user_msg, USER_MSG_FIELDS)
ROTA_DEFINE(step_update_req, STEP_UPDATE_REQ_FIELDS)
ROTA_DEFINE(reboot_req, REBOOT_REQ_FIELDS)
ROTA_DEFINE(job_info_req, JOB_INFO_REQ_FIELDS)
ROTA_DEFINE(job_list_req, JOB_LIST_REQ_FIELDS)
ROTA_DEFINE(job_list_resp, JOB_LIST_RESP_FIELDS)
ROTA_DEFINE(job_info_resp, JOB_INFO_RESP_FIELDS)
ROTA_DEFINE(prio_info, PRIO_INFO_FIELDS)
ROTA_DEFINE(prio_info_resp, PRIO_INFO_RESP_FIELDS)
ROTA_DEFINE(stats_req, STATS_REQ_FIELDS)
ROTA_DEFINE(rpc_stat, RPC_STAT_FIELDS)
ROTA_DEFINE(stats_resp, STATS_RESP_FIELDS)
ROTA_DEFINE(shutdown_req, SHUTDOWN_REQ_FIELDS)
ROTA_DEFINE(follow_req, FOLLOW_REQ_FIELDS)
ROTA_DEFINE(repl_data, REPL_DATA_FIELDS)
ROTA_DEFINE(follow_ack, FOLLOW_ACK_FIELDS)
ROTA_DEFINE(node_info_resp, NODE_INFO_RESP_FIELDS)
ROTA_DEFINE(part_info_resp, PART_INFO_RESP_FIELDS)
ROTA_DEFINE(config_resp, CONFIG_RESP_FIELDS)
ROTA_DEFINE(cancel_req, CANCEL_REQ_FIELDS)
ROTA_DEFINE(job_update_req, JOB_UPDATE_REQ_FIELDS)
ROTA_DEFINE(node_update_req, NODE_UPDATE_REQ_FIELDS)
ROTA_DEFINE(alloc_resp, ALLOC_RESP_FIELDS)
ROTA_DEFINE(step_create_req, STEP_CREATE_REQ_FIELDS)
ROTA_DEFINE(step_create_resp, STEP_CREATE_RESP_FIELDS)
ROTA_DEFINE(step_het_create_req, STEP_HET_CREATE_REQ_FIELDS)
ROTA_DEFINE(step_het_create_resp, STEP_HET_CREATE_RESP_FIELDS)
ROTA_DEFINE(job_complete_req, JOB_COMPLETE_REQ_FIELDS)
ROTA_DEFINE(step_info, STEP_INFO_FIELDS)
ROTA_DEFINE(step_info_resp, STEP_INFO_RESP_FIELDS)
ROTA_DEFINE(acct_step, ACCT_STEP_FIELDS)
ROTA_DEFINE(acct_job, ACCT_JOB_FIELDS)
ROTA_DEFINE(acct_query, ACCT_QUERY_FIELDS)
ROTA_DEFINE(acct_job_modify, ACCT_JOB_MODIFY_FIELDS)
ROTA_DEFINE(acct_jobs, ACCT_JOBS_FIELDS)
ROTA_DEFINE(assoc_account, ASSOC_ACCOUNT_FIELDS)
ROTA_DEFINE(assoc_user, ASSOC_USER_FIELDS)
ROTA_DEFINE(assoc_rec, ASSOC_REC_FIELDS)
ROTA_DEFINE(assoc_qos, ASSOC_QOS_FIELDS)
ROTA_DEFINE(assoc_res, ASSOC_RES_FIELDS)
ROTA_DEFINE(assoc_update, ASSOC_UPDATE_FIELDS)
ROTA_DEFINE(assoc_update_resp, ASSOC_UPDATE_RESP_FIELDS)
ROTA_DEFINE(assoc_list_resp, ASSOC_LIST_RESP_FIELDS)
ROTA_DEFINE(assoc_mgr_req, ASSOC_MGR_REQ_FIELDS)
ROTA_DEFINE(tres_use, TRES_USE_FIELDS)
ROTA_DEFINE(assoc_mgr_assoc, ASSOC_MGR_ASSOC_FIELDS)
ROTA_DEFINE(qos_used, QOS_USED_FIELDS)
ROTA_DEFINE(assoc_mgr_qos, ASSOC_MGR_QOS_FIELDS)
ROTA_DEFINE(assoc_mgr_resp, ASSOC_MGR_RESP_FIELDS)
ROTA_DEFINE(share_row, SHARE_ROW_FIELDS)
ROTA_DEFINE(share_resp, SHARE_RESP_FIELDS)
ROTA_DEFINE(lic_info, LIC_INFO_FIELDS)
ROTA_DEFINE(lic_info_resp, LIC_INFO_RESP_FIELDS)
ROTA_DEFINE(resv_desc, RESV_DESC_FIELDS)
ROTA_DEFINE(job_suspend_req, JOB_SUSPEND_REQ_FIELDS)
ROTA_DEFINE(resv_resp, RESV_RESP_FIELDS)
ROTA_DEFINE(part_update_req, PART_UPDATE_REQ_FIELDS)
ROTA_DEFINE(part_update_resp, PART_UPDATE_RESP_FIELDS)
ROTA_DEFINE(resv_info, RESV_INFO_FIELDS)
ROTA_DEFINE(resv_info_req, RESV_INFO_REQ_FIELDS)
ROTA_DEFINE(resv_info_resp, RESV_INFO_RESP_FIELDS)
ROTA_DEFINE(acct_report_req, ACCT_REPORT_REQ_FIELDS)
ROTA_DEFINE(acct_report_row, ACCT_REPORT_ROW_FIELDS)
ROTA_DEFINE(acct_report_resp, ACCT_REPORT_RESP_FIELDS)
ROTA_DEFINE(dbd_diag, DBD_DIAG_FIELDS)
ROTA_DEFINE(auth_challenge, AUTH_CHALLENGE_FIELDS)
ROTA_DEFINE(auth_response, AUTH_RESPONSE_FIELDS)
ROTA_DEFINE(auth_proof, AUTH_PROOF_FIELDS)
ROTA_DEFINE(gres_dev_info, GRES_DEV_INFO_FIELDS)
ROTA_DEFINE(node_register, NODE_REGISTER_FIELDS)
ROTA_DEFINE(node_ping, NODE_PING_FIELDS)
ROTA_DEFINE(node_ack, NODE_ACK_FIELDS)
ROTA_DEFINE(launch_req, LAUNCH_REQ_FIELDS)
ROTA_DEFINE(signal_req, SIGNAL_REQ_FIELDS)
ROTA_DEFINE(task_used, TASK_USE_FIELDS)
ROTA_DEFINE(step_complete, STEP_COMPLETE_FIELDS)
ROTA_DEFINE(stepd_groups, STEPD_GROUPS_FIELDS)
ROTA_DEFINE(io_hello, IO_HELLO_FIELDS)
ROTA_DEFINE(io_data, IO_DATA_FIELDS)
ROTA_DEFINE(task_exit, TASK_EXIT_FIELDS)
ROTA_DEFINE(task_pids, TASK_PIDS_FIELDS)
ROTA_DEFINE(pmi_fence, PMI_FENCE_FIELDS)
ROTA_DEFINE(pmix_setup, PMIX_SETUP_FIELDS)
ROTA_DEFINE(pmix_env, PMIX_ENV_FIELDS)
ROTA_DEFINE(io_winsize, IO_WINSIZE_FIELDS)
ROTA_DEFINE(step_attach, STEP_ATTACH_FIELDS)
ROTA_DEFINE(step_attach_resp, STEP_ATTACH_RESP_FIELDS)
ROTA_DEFINE(task_stat, TASK_STAT_FIELDS)
ROTA_DEFINE(node_stat, NODE_STAT_FIELDS)
ROTA_DEFINE(step_stat_req, STEP_STAT_REQ_FIELDS)
ROTA_DEFINE(step_stat, STEP_STAT_FIELDS)
ROTA_DEFINE(step_stat_resp, STEP_STAT_RESP_FIELDS)
ROTA_DEFINE(node_stat_resp, NODE_STAT_RESP_FIELDS)
ROTA_DEFINE(file_bcast, FILE_BCAST_FIELDS)
ROTA_DEFINE(file_bcast_resp, FILE_BCAST_RESP_FIELDS)
ROTA_DEFINE(trigger, TRIGGER_FIELDS)
ROTA_DEFINE(trigger_list, TRIGGER_LIST_FIELDS)
ROTA_DEFINE(submit_het, SUBMIT_HET_FIELDS)
ROTA_DEFINE(crontab_update, CRONTAB_UPDATE_FIELDS)
ROTA_DEFINE(crontab_update_resp, CRONTAB_UPDATE_RESP_FIELDS)
ROTA_DEFINE(crontab_get, CRONTAB_GET_FIELDS)
ROTA_DEFINE(crontab_get_resp, CRONTAB_GET_RESP_FIELDS)
ROTA_DEFINE(conf_file, CONF_FILE_FIELDS)
ROTA_DEFINE(conf_files, CONF_FILES_FIELDS)
ROTA_DEFINE(act_as, ACT_AS_FIELDS)
ROTA_DEFINE(token_req, TOKEN_REQ_FIELDS)
ROTA_DEFINE(token_resp, TOKEN_RESP_FIELDS)

struct msg_entry {
	uint16_t type;
	const char *name;
	const struct rota_type *body;
};

#define ROTA_MSG_ENTRY(e, n, s) {n, #e, &s##_type},
static const struct msg_entry msg_table[] = {ROTA_MESSAGES(ROTA_MSG_ENTRY)};

static const struct msg_entry *msg_lookup(uint16_t type)
{
	for (size_t i = 0; i < sizeof(msg_table) / sizeof(msg_table[0]); i++)
		if (msg_table[i].type == type)
			return &msg_table[i];
	return NULL;
}

const struct rota_type *msg_body_type(uint16_t type)
{
	const struct msg_entry *e = msg_lookup(type);
	return e ? e->body : NULL;
}

const char *msg_name(uint16_t type)
{
	const struct msg_entry *e = msg_lookup(type);
	return e ? e->name : "MSG_UNKNOWN";
}

void *msg_body_new(uint16_t type)
{
	const struct rota_type *t = msg_body_type(type);
	return xcalloc(1, t ? t->size : 1);
}

void msg_body_free(uint16_t type, void *body)
{
	const struct rota_type *t = msg_body_type(type);
	if (!body)
		return;
	if (t)
		codec_release(t, body);
	free(body);
}

void job_desc_init(struct job_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->min_nodes = d->max_nodes = NO_VAL;
	d->num_tasks = d->ntasks_per_node = d->cpus_per_task = NO_VAL;
	d->mem_per_node = d->mem_per_cpu = NO_VAL64;
	d->time_limit = NO_VAL;
	d->umask = NO_VAL;
	d->pn_min_cpus = NO_VAL;
	d->wait4switch = NO_VAL;
}
