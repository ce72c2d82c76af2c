#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/states.h"
#include "ctld/client.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/node_mgr.h"
#include "ctld/rpc.h"
#include "proto/conn.h"
#include "common/common.h"

enum rpc_perm { P_USER, P_ADMIN, P_NODE };

typedef void (*rpc_f)(struct ctld *ctld, struct client *c, void **body);

static void rpc_ping(struct ctld *ctld, struct client *c, void **body)
{
	struct ping_resp r = {
	    .host = ctld->hostname, .start_time = ctld->start_time, .version = "22.05.8"};
	client_send(c, MSG_PING_RESP, &r);
}

static void rpc_submit(struct ctld *ctld, struct client *c, void **body)
{
	job_mgr_submit(ctld, c, *body, 0);
}

static void rpc_alloc(struct ctld *ctld, struct client *c, void **body)
{
	job_mgr_submit(ctld, c, *body, 1);
}

static void rpc_job_info(struct ctld *ctld, struct client *c, void **body)
{
	job_mgr_info(ctld, c, *body);
}

static void rpc_node_info(struct ctld *ctld, struct client *c, void **body)
{
	node_mgr_info(ctld, c);
}

static void rpc_part_info(struct ctld *ctld, struct client *c, void **body)
{
	node_mgr_part_info(ctld, c);
}

static void rpc_cancel(struct ctld *ctld, struct client *c, void **body)
{
	job_mgr_cancel(ctld, c, *body);
}

static void rpc_job_update(struct ctld *ctld, struct client *c, void **body)
{
	job_mgr_update(ctld, c, *body);
}

static void rpc_node_update(struct ctld *ctld, struct client *c, void **body)
{
	node_mgr_update(ctld, c, *body);
}

static void rpc_step_create(struct ctld *ctld, struct client *c, void **body)
{
	step_create(ctld, c, *body);
}

static void rpc_step_info(struct ctld *ctld, struct client *c, void **body)
{
	step_info(ctld, c, *body);
}

static void rpc_prio_info(struct ctld *ctld, struct client *c, void **body)
{
	prio_info(ctld, c, *body);
}

static void rpc_job_complete(struct ctld *ctld, struct client *c, void **body)
{
	job_mgr_complete_req(ctld, c, *body);
}

static void rpc_config(struct ctld *ctld, struct client *c, void **body)
{
	config_info(ctld, c);
}

static void rpc_node_register(struct ctld *ctld, struct client *c, void **body)
{
	node_mgr_register(ctld, c, *body);
}

static void rpc_node_ping(struct ctld *ctld, struct client *c, void **body)
{
	node_mgr_ping(ctld, c, *body);
}

static void rpc_step_complete(struct ctld *ctld, struct client *c, void **body)
{
	step_complete(ctld, *body);
}

static void rpc_prolog_complete(struct ctld *ctld, struct client *c, void **body)
{
	job_mgr_prolog_complete(ctld, *body);
}

static const struct rpc_entry {
	uint16_t type;
	enum rpc_perm perm;
	rpc_f fn;
} rpc_table[] = {
    {MSG_PING_REQ, P_USER, rpc_ping},
    {MSG_SUBMIT_REQ, P_USER, rpc_submit},
    {MSG_ALLOC_REQ, P_USER, rpc_alloc},
    {MSG_JOB_INFO_REQ, P_USER, rpc_job_info},
    {MSG_NODE_INFO_REQ, P_USER, rpc_node_info},
    {MSG_PART_INFO_REQ, P_USER, rpc_part_info},
    {MSG_CONFIG_REQ, P_USER, rpc_config},
    {MSG_CANCEL_REQ, P_USER, rpc_cancel},
    {MSG_JOB_UPDATE_REQ, P_USER, rpc_job_update},
    {MSG_NODE_UPDATE_REQ, P_ADMIN, rpc_node_update},
    {MSG_STEP_CREATE_REQ, P_USER, rpc_step_create},
    {MSG_JOB_COMPLETE_REQ, P_USER, rpc_job_complete},
    {MSG_STEP_INFO_REQ, P_USER, rpc_step_info},
    {MSG_PRIO_INFO_REQ, P_USER, rpc_prio_info},
    {MSG_NODE_REGISTER, P_NODE, rpc_node_register},
    {MSG_NODE_PING, P_NODE, rpc_node_ping},
    {MSG_STEP_COMPLETE, P_NODE, rpc_step_complete},
    {MSG_PROLOG_COMPLETE, P_NODE, rpc_prolog_complete},
};

/* Requests whose answer promises a change that the journal must hold: refused
 * while it cannot be written (a full disk).  Submissions are refused by
 * job_mgr_submit; queries, steps of running jobs and the nodes' reports go on. */
static int rpc_needs_journal(uint16_t type)
{
	switch (type) {
	case MSG_CANCEL_REQ:
	case MSG_JOB_UPDATE_REQ:
	case MSG_NODE_UPDATE_REQ:
		return 1;
	default:
		return 0;
	}
}

int rpc_serves(uint16_t type)
{
	for (size_t i = 0; i < sizeof(rpc_table) / sizeof(rpc_table[0]); i++)
		if (rpc_table[i].type == type)
			return 1;
	return 0;
}

void rpc_dispatch(struct client *c, uint16_t type, void **body)
{
	const struct rpc_entry *e = NULL;

	for (size_t i = 0; i < sizeof(rpc_table) / sizeof(rpc_table[0]); i++)
		if (rpc_table[i].type == type)
			e = &rpc_table[i];
	if (!e) {
		log_err("unexpected %s from %s", msg_name(type), conn_name(c->conn));
		client_send_rc(c, ESLURM_NOT_SUPPORTED, NULL);
		return;
	}
	if ((e->perm == P_NODE && c->role != ROLE_NODE) ||
	    (e->perm == P_ADMIN && !ctld_is_admin(c->ctld, c->uid))) {
		log_err("%s from uid %d refused: access denied", msg_name(type),
		        (int)c->uid);
		client_send_rc(c, ESLURM_ACCESS_DENIED, NULL);
		return;
	}
	if (rpc_needs_journal(type) && journal_error(c->ctld->journal)) {
		client_send_rc(c, ESLURM_TRANSITION_STATE_NO_UPDATE, NULL);
		return;
	}
	client_ref(c);
	e->fn(c->ctld, c, body);
	client_unref(c);
}
