#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <event2/event.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/states.h"
#include "ctld/admin_ops.h"
#include "ctld/hetjob.h"
#include "ctld/assoc.h"
#include "ctld/topo.h"
#include "ctld/fairshare.h"
#include "ctld/bcast.h"
#include "ctld/step_attach.h"
#include "ctld/trigger.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/node_mgr.h"
#include "ctld/ops.h"
#include "ctld/reboot.h"
#include "ctld/part_update.h"
#include "ctld/reconfig.h"
#include "ctld/repl.h"
#include "ctld/stats.h"
#include "ctld/step_stat.h"
#include "ctld/crontab.h"
#include "ctld/licenses.h"
#include "ctld/resv.h"
#include "ctld/suspend.h"
#include "ctld/token.h"
#include "ctld/will_run.h"
#include "common/common.h"

enum op_perm { P_USER, P_ADMIN, P_NODE, P_PEER };

typedef void (*op_f)(struct ctld *ctld, struct caller *who, void **body, struct chan *ch);

static void op_ping(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	struct ping_resp r = {.host = ctld->hostname,
	                      .start_time = ctld->start_time,
	                      .version = "22.05.8",
	                      .standby = (uint32_t)ctld->standby,
	                      .term = ctld->term};
	chan_send(ch, MSG_PING_RESP, &r);
}

static void op_submit(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	job_mgr_submit(ctld, who, *body, 0, ch);
}

static void op_alloc(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	job_mgr_submit(ctld, who, *body, 1, ch);
}

static void op_job_script(struct ctld *ctld, struct caller *who, void **body,
                          struct chan *ch)
{
	admin_job_script(ctld, who, *body, ch);
}

static void op_job_notify(struct ctld *ctld, struct caller *who, void **body,
                          struct chan *ch)
{
	admin_job_notify(ctld, who, *body, ch);
}

static void op_step_update(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	step_update(ctld, who, *body, ch);
}

static void op_set_debug(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	admin_set_debug(ctld, who, *body, ch);
}

static void op_reboot(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	reboot_request(ctld, who, *body, ch);
}

static void op_will_run(struct ctld *ctld, struct caller *who, void **body,
                        struct chan *ch)
{
	will_run_query(ctld, who, *body, ch);
}

static void op_job_info(struct ctld *ctld, struct caller *who, void **body,
                        struct chan *ch)
{
	job_mgr_info(ctld, who, *body, ch);
}

static void op_job_list(struct ctld *ctld, struct caller *who, void **body,
                        struct chan *ch)
{
	job_mgr_list(ctld, who, *body, ch);
}

static void op_node_info(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	node_mgr_info(ctld, who, ch);
}

static void op_part_info(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	node_mgr_part_info(ctld, who, ch);
}

static void op_cancel(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	job_mgr_cancel(ctld, who, *body, ch);
}

static void op_job_update(struct ctld *ctld, struct caller *who, void **body,
                          struct chan *ch)
{
	job_mgr_update(ctld, who, *body, ch);
}

static void op_node_update(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	node_mgr_update(ctld, who, *body, ch);
}

static void op_step_create(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	step_create(ctld, who, *body, ch);
}

static void op_step_het_create(struct ctld *ctld, struct caller *who, void **body,
                               struct chan *ch)
{
	step_het_create(ctld, who, *body, ch);
}

static void op_step_info(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	step_info(ctld, who, *body, ch);
}

static void op_prio_info(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	prio_info(ctld, who, *body, ch);
}

static void op_job_complete(struct ctld *ctld, struct caller *who, void **body,
                            struct chan *ch)
{
	job_mgr_complete_req(ctld, who, *body, ch);
}

static void op_config(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	config_info(ctld, who, ch);
}

static void op_topo_info(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	(void)who;
	(void)body;
	topo_info(ctld, ch);
}

static void op_node_register(struct ctld *ctld, struct caller *who, void **body,
                             struct chan *ch)
{
	node_mgr_register(ctld, who, *body, ch);
}

static void op_node_ping(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	node_mgr_ping(ctld, who, *body, ch);
}

static void op_step_complete(struct ctld *ctld, struct caller *who, void **body,
                             struct chan *ch)
{
	step_complete(ctld, *body);
}

static void op_prolog_complete(struct ctld *ctld, struct caller *who, void **body,
                               struct chan *ch)
{
	job_mgr_prolog_complete(ctld, *body);
}

/* sdiag: the statistics, or (-r, admins) clear them. */
static void op_stats(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	const struct stats_req *req = *body;
	struct stats_resp r = {0};

	if (req->flags & STATS_F_RESET) {
		if (!caller_is_operator(who)) {
			chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
			return;
		}
		stats_reset(ctld->stats, time(NULL));
		chan_send_rc(ch, 0, NULL);
		return;
	}
	stats_fill(ctld, &r);
	chan_send(ch, MSG_STATS_RESP, &r);
	codec_release(&stats_resp_type, &r);
}

/* scontrol shutdown: the node daemons are told first (unless only the
 * controller stops), the answer goes out, then the loop ends (main.c saves
 * what it must on the way out). */
static void op_shutdown(struct ctld *ctld, struct caller *who, void **body,
                        struct chan *ch)
{
	const struct shutdown_req *req = *body;
	char name[64];

	if (req->flags & SHUTDOWN_F_ABORT) {
		/* what was acknowledged reaches the disk first (submitters wait
		 * for it; updates may not have) */
		log_err("abort requested by %s", caller_name(who, name, sizeof(name)));
		if (journal_flush(ctld->journal) < 0)
			log_err("abort: the journal could not be flushed");
		chan_send_rc(ch, 0, NULL);
		chan_write_now(ch);
		abort();
	}
	log_info("shutdown requested by %s%s", caller_name(who, name, sizeof(name)),
	         req->flags & SHUTDOWN_F_CTLD_ONLY ? " (controller only)" : "");
	if (!(req->flags & SHUTDOWN_F_CTLD_ONLY))
		for (size_t i = 0; i < node_mgr_count(ctld->nodes); i++) {
			struct node *n = node_mgr_get(ctld->nodes, i);
			if (n->link) {
				node_send(n, MSG_NODE_SHUTDOWN, &(struct empty_msg){0});
				chan_write_now(n->link);
			}
		}
	chan_send_rc(ch, 0, NULL);
	chan_write_now(ch);
	/* soon, not now: what is queued for the nodes and the asker goes out */
	event_base_loopexit(ctld->base, &(struct timeval){0, 100000});
}

static void op_takeover(struct ctld *ctld, struct caller *who, void **body,
                        struct chan *ch)
{
	repl_takeover_request(ctld, ch);
}

/* Configless nodes (proto/conf_files.h): slurm.conf and the files it
 * includes or implies, as read with the running configuration. */
static void op_conf_files(struct ctld *ctld, struct caller *who, void **body,
                          struct chan *ch)
{
	if (!conf_configless(ctld->conf))
		chan_send_rc(ch, -ESLURM_CONFIGLESS_DISABLED, NULL);
	else if (!ctld->conf_files)
		chan_send_rc(ch, SLURM_ERROR,
		             "the controller could not read its configuration files "
		             "(see its log)");
	else
		chan_send(ch, MSG_CONF_FILES_RESP, ctld->conf_files);
}

/* scontrol reconfigure: slurm.conf again (reconfig.h). */
static void op_reconfig(struct ctld *ctld, struct caller *who, void **body,
                        struct chan *ch)
{
	struct rota_error err = {""};
	char name[64];

	if (ctld_reconfigure(ctld, &err) < 0) {
		log_err("reconfigure asked by %s refused: %s",
		        caller_name(who, name, sizeof(name)), err.text);
		chan_send_rc(ch, SLURM_ERROR, err.text);
		return;
	}
	chan_send_rc(ch, 0, NULL);
}

static void op_follow_ack(struct ctld *ctld, struct caller *who, void **body,
                          struct chan *ch)
{
	repl_ack(ctld, ch, ((const struct follow_ack *)*body)->seq);
}

static void op_follow(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	repl_follow(ctld, who, *body, ch);
}

static void op_assoc_update(struct ctld *ctld, struct caller *who, void **body,
                            struct chan *ch)
{
	assoc_update(ctld, who, *body, ch);
}

static void op_lic_info(struct ctld *ctld, struct caller *who, void **body,
                        struct chan *ch)
{
	lic_info(ctld, who, ch);
}

static void op_resv_update(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	resv_request(ctld, who, *body, ch);
}

static void op_resv_info(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	resv_info(ctld, who, *body, ch);
}

static void op_job_suspend(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	suspend_request(ctld, who, *body, ch);
}

static void op_share(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	fairshare_list(ctld, who, ch);
}

static void op_assoc_info(struct ctld *ctld, struct caller *who, void **body,
                          struct chan *ch)
{
	assoc_info(ctld, who, *body, ch);
}

static void op_assoc_list(struct ctld *ctld, struct caller *who, void **body,
                          struct chan *ch)
{
	assoc_list(ctld, who, ch);
}

/* sstat (step_stat.h): answered once the step's nodes have. */
static void op_step_stat(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	step_stat_request(ctld, who, *body, ch);
}

static void op_node_stat(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	step_stat_node_reply(ctld, who, *body);
}

/* sbcast (bcast.h): answered once the job's nodes have written the block. */
static void op_bcast(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	bcast_request(ctld, who, *body, ch);
}

static void op_bcast_node(struct ctld *ctld, struct caller *who, void **body,
                          struct chan *ch)
{
	bcast_node_reply(ctld, who, *body);
}

/* sattach (step_attach.h) */
static void op_step_attach(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	step_attach_request(ctld, who, *body, ch);
}

/* strigger (trigger.h) */
static void op_trigger_set(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	trigger_set_request(ctld, who, *body, ch);
}

static void op_trigger_clear(struct ctld *ctld, struct caller *who, void **body,
                             struct chan *ch)
{
	trigger_clear_request(ctld, who, *body, ch);
}

static void op_trigger_get(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	trigger_get_request(ctld, ch);
}

static void op_submit_het(struct ctld *ctld, struct caller *who, void **body,
                          struct chan *ch)
{
	hetjob_submit_request(ctld, who, *body, 0, ch);
}

static void op_alloc_het(struct ctld *ctld, struct caller *who, void **body,
                         struct chan *ch)
{
	hetjob_submit_request(ctld, who, *body, 1, ch);
}

static void op_crontab_update(struct ctld *ctld, struct caller *who, void **body,
                              struct chan *ch)
{
	crontab_update_request(ctld, who, *body, ch);
}

static void op_crontab_get(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	crontab_get_request(ctld, who, *body, ch);
}

/* A trusted daemon (P_ADMIN: root, SlurmUser) becomes the user it names on
 * this connection; the relayed caller is no admin, so it cannot switch again. */
static void op_act_as(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	const struct act_as *a = *body;
	struct caller as;
	char name[64];

	if (caller_init_relayed(&as, ctld, who, a->uid, a->gid) < 0) {
		chan_send_rc(ch, -ESLURM_ACCESS_DENIED, NULL);
		return;
	}
	*who = as;
	log_debug("now %s", caller_name(who, name, sizeof(name)));
	chan_send_rc(ch, 0, NULL);
}

static void op_token(struct ctld *ctld, struct caller *who, void **body, struct chan *ch)
{
	token_request(ctld, who, *body, ch);
}

static void op_part_update(struct ctld *ctld, struct caller *who, void **body,
                           struct chan *ch)
{
	part_update_request(ctld, who, *body, ch);
}

/* denied: the error a caller without perm gets (0: ESLURM_ACCESS_DENIED). */
static const struct op_entry {
	uint16_t type;
	enum op_perm perm;
	op_f fn;
	int denied;
} op_table[] = {
    {MSG_PING_REQ, P_USER, op_ping},
    {MSG_ASSOC_UPDATE, P_USER, op_assoc_update}, /* assoc.c checks who */
    {MSG_ASSOC_LIST_REQ, P_USER, op_assoc_list},
    {MSG_ASSOC_MGR_REQ, P_USER, op_assoc_info}, /* assoc_info.c: PrivateData */
    {MSG_SHARE_REQ, P_USER, op_share},
    {MSG_SUBMIT_REQ, P_USER, op_submit},
    {MSG_ALLOC_REQ, P_USER, op_alloc},
    {MSG_JOB_INFO_REQ, P_USER, op_job_info},
    {MSG_JOB_LIST_REQ, P_USER, op_job_list},
    {MSG_NODE_INFO_REQ, P_USER, op_node_info},
    {MSG_PART_INFO_REQ, P_USER, op_part_info},
    {MSG_CONFIG_REQ, P_USER, op_config},
    {MSG_TOPO_INFO_REQ, P_USER, op_topo_info},
    {MSG_LIC_INFO_REQ, P_USER, op_lic_info},
    {MSG_RESV_INFO_REQ, P_USER, op_resv_info},
    /* admins; a user may delete one (user_resv_delete): resv.c */
    {MSG_RESV_UPDATE_REQ, P_USER, op_resv_update},
    {MSG_JOB_SUSPEND_REQ, P_ADMIN, op_job_suspend},
    {MSG_CONF_FILES_REQ, P_USER, op_conf_files}, /* any authenticated caller */
    {MSG_CANCEL_REQ, P_USER, op_cancel},
    {MSG_JOB_UPDATE_REQ, P_USER, op_job_update},
    {MSG_NODE_UPDATE_REQ, P_ADMIN, op_node_update},
    /* Slurm answers others "Invalid user id" here */
    {MSG_PART_UPDATE_REQ, P_ADMIN, op_part_update, ESLURM_USER_ID_MISSING},
    {MSG_STEP_CREATE_REQ, P_USER, op_step_create},
    {MSG_STEP_HET_CREATE_REQ, P_USER, op_step_het_create},
    {MSG_JOB_COMPLETE_REQ, P_USER, op_job_complete},
    {MSG_STEP_INFO_REQ, P_USER, op_step_info},
    {MSG_PRIO_INFO_REQ, P_USER, op_prio_info},
    {MSG_STATS_REQ, P_USER, op_stats},
    {MSG_SHUTDOWN_REQ, P_ADMIN, op_shutdown},
    {MSG_FOLLOW_REQ, P_PEER, op_follow},
    {MSG_FOLLOW_ACK, P_PEER, op_follow_ack},
    {MSG_RECONFIG_REQ, P_ADMIN, op_reconfig},
    {MSG_TAKEOVER_REQ, P_ADMIN, op_takeover},
    {MSG_NODE_REGISTER, P_NODE, op_node_register},
    {MSG_NODE_PING, P_NODE, op_node_ping},
    {MSG_STEP_COMPLETE, P_NODE, op_step_complete},
    {MSG_PROLOG_COMPLETE, P_NODE, op_prolog_complete},
    {MSG_STEP_STAT_REQ, P_USER, op_step_stat},
    {MSG_ACT_AS, P_ADMIN, op_act_as},
    {MSG_TOKEN_REQ, P_USER, op_token},
    {MSG_NODE_STAT_RESP, P_NODE, op_node_stat},
    {MSG_FILE_BCAST_REQ, P_USER, op_bcast},
    {MSG_FILE_BCAST_RESP, P_NODE, op_bcast_node},
    {MSG_TRIGGER_SET_REQ, P_USER, op_trigger_set},
    {MSG_TRIGGER_CLEAR_REQ, P_USER, op_trigger_clear},
    {MSG_TRIGGER_GET_REQ, P_USER, op_trigger_get},
    {MSG_STEP_ATTACH_REQ, P_USER, op_step_attach},
    {MSG_CRONTAB_UPDATE_REQ, P_USER, op_crontab_update},
    {MSG_SUBMIT_HET_REQ, P_USER, op_submit_het},
    {MSG_ALLOC_HET_REQ, P_USER, op_alloc_het},
    {MSG_WILL_RUN_REQ, P_USER, op_will_run},
    {MSG_JOB_SCRIPT_REQ, P_USER, op_job_script},
    {MSG_SET_DEBUG_REQ, P_ADMIN, op_set_debug},
    {MSG_JOB_NOTIFY_REQ, P_USER, op_job_notify},
    {MSG_STEP_UPDATE_REQ, P_USER, op_step_update},
    {MSG_CRONTAB_GET_REQ, P_USER, op_crontab_get},
    {MSG_REBOOT_REQ, P_USER, op_reboot}, /* admins: reboot.c answers EACCES */
};

/* Requests whose answer promises a change that the journal must hold: refused
 * while it cannot be written (a full disk).  Submissions are refused by
 * job_mgr_submit; queries, steps of running jobs and the nodes' reports go on. */
static int op_needs_journal(uint16_t type)
{
	switch (type) {
	case MSG_CANCEL_REQ:
	case MSG_ASSOC_UPDATE:
	case MSG_JOB_UPDATE_REQ:
	case MSG_NODE_UPDATE_REQ:
	case MSG_REBOOT_REQ:
	case MSG_PART_UPDATE_REQ:
	case MSG_STEP_UPDATE_REQ:
	case MSG_RESV_UPDATE_REQ:
	case MSG_JOB_SUSPEND_REQ:
	case MSG_CRONTAB_UPDATE_REQ:
		return 1;
	default:
		return 0;
	}
}

int ops_serves(uint16_t type)
{
	for (size_t i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++)
		if (op_table[i].type == type)
			return 1;
	return 0;
}

void ops_call(struct ctld *ctld, struct caller *who, uint16_t type, void **body,
              struct chan *ch)
{
	const struct op_entry *e = NULL;
	struct timespec t0;
	uint32_t rpc_id = 0;
	char name[64];

	for (size_t i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++)
		if (op_table[i].type == type)
			e = &op_table[i];
	if (!e) {
		log_err("unexpected %s from %s", msg_name(type),
		        caller_name(who, name, sizeof(name)));
		chan_send_rc(ch, -ESLURM_NOT_SUPPORTED, NULL);
		return;
	}
	if ((e->perm == P_NODE && (who->role != CALLER_NODE || ch->superseded)) ||
	    (e->perm == P_PEER && who->role != CALLER_PEER) ||
	    (e->perm == P_ADMIN && !caller_is_admin(who) &&
	     !(type == MSG_SHUTDOWN_REQ && who->role == CALLER_PEER))) {
		log_err("%s from %s refused: access denied", msg_name(type),
		        caller_name(who, name, sizeof(name)));
		chan_send_rc(ch, -(e->denied ? e->denied : ESLURM_ACCESS_DENIED), NULL);
		return;
	}
	/* a backup that has not taken over answers pings only */
	if (ctld->standby && type != MSG_PING_REQ && type != MSG_STATS_REQ &&
	    type != MSG_TAKEOVER_REQ) {
		chan_send_rc(ch, -ESLURM_IN_STANDBY_MODE, NULL);
		return;
	}
	if (op_needs_journal(type) && journal_error(ctld->journal)) {
		chan_send_rc(ch, -ESLURM_TRANSITION_STATE_NO_UPDATE, NULL);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (type == MSG_STEP_COMPLETE && *body &&
	    ((const struct step_complete *)*body)->step_id == STEP_BATCH)
		rpc_id = 5018; /* Slurm's REQUEST_COMPLETE_BATCH_SCRIPT */
	chan_ref(ch);
	e->fn(ctld, who, body, ch);
	chan_unref(ch);
	if (ctld->stats)
		stats_rpc(ctld->stats, type, rpc_id, who->uid, stats_usec_since(&t0));
}
