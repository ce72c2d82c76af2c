/* relay.c - one REST request's call to the controller: a connection of its
 * own, MSG_ACT_AS for the user (answered before anything else is sent, so
 * that a refusal can never leave the request running as rotarestd), then
 * the request, then its answer (a job listing in several frames is put
 * back together). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/states.h"
#include "proto/client.h"
#include "proto/conn.h"
#include "proto/messages.h"
#include "restd/restd.h"
#include "common/common.h"

struct relay {
	struct restd *r;
	struct conn *c;
	int acting;     /* MSG_ACT_AS answered */
	uint16_t type;  /* the request */
	void *body;     /* sent once acting */
	uint16_t rtype; /* the answer so far */
	void *rbody;    /* a listing being put together */
	relay_done_f done;
	void *arg;
	struct relay *prev, *next;
};

static void unlink_relay(struct relay *rl)
{
	struct restd *r = rl->r;

	if (rl->prev)
		rl->prev->next = rl->next;
	else
		r->relays = rl->next;
	if (rl->next)
		rl->next->prev = rl->prev;
	r->nrelays--;
}

/* Call done once and free rl (its conn closed unless already gone). */
static void finish(struct relay *rl, int rc, const char *msg, uint16_t type, void **body)
{
	unlink_relay(rl);
	if (rl->c)
		conn_close(rl->c);
	rl->done(rl->arg, rc, msg, type, body);
	msg_body_free(rl->type, rl->body);
	msg_body_free(rl->rtype, rl->rbody);
	free(rl);
}

/* A frame of a listing: appended to what came before; 1 while more follow. */
static int gather_jobs(struct relay *rl, void **body)
{
	struct job_info_resp *part = *body, *all = rl->rbody;

	if (!all) {
		rl->rtype = MSG_JOB_INFO_RESP;
		rl->rbody = part;
		*body = NULL;
		return part->more;
	}
	all->jobs = xrealloc(all->jobs,
	                     (all->jobs_count + part->jobs_count) * sizeof(*all->jobs));
	memcpy(all->jobs + all->jobs_count, part->jobs,
	       part->jobs_count * sizeof(*part->jobs));
	all->jobs_count += part->jobs_count;
	all->more = part->more;
	free(part->jobs); /* its entries are all's now */
	part->jobs = NULL;
	part->jobs_count = 0;
	return all->more;
}

static void on_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct relay *rl = arg;
	const struct rc_msg *rc = *body;

	if (!rl->acting) {
		if (type != MSG_RC || rc->rc) {
			rl->c = NULL;
			conn_close(c);
			finish(rl, type == MSG_RC ? rc->rc : ESLURM_ACCESS_DENIED,
			       type == MSG_RC ? rc->msg : NULL, 0, NULL);
			return;
		}
		rl->acting = 1;
		if (conn_send(c, rl->type, rl->body) < 0)
			finish(rl, ESLURM_INVALID_ARGUMENT,
			       "the request cannot be encoded", 0, NULL);
		return;
	}
	if (type == MSG_JOB_INFO_RESP && gather_jobs(rl, body))
		return;
	if (type == MSG_RC) {
		finish(rl, rc->rc, rc->msg, type, body);
		return;
	}
	if (rl->rbody) { /* the last frame of a listing */
		finish(rl, 0, NULL, rl->rtype, &rl->rbody);
		return;
	}
	finish(rl, 0, NULL, type, body);
}

static void on_close(struct conn *c, void *arg)
{
	struct relay *rl = arg;

	rl->c = NULL; /* conn frees itself */
	finish(rl, SLURM_ERROR, "the controller closed the connection", 0, NULL);
}

static void on_timeout(struct conn *c, void *arg)
{
	finish(arg, SLURM_ERROR, "the controller did not answer in time", 0, NULL);
}

int relay_call(struct restd *r, const struct rest_user *u, uint16_t type, void *body,
               relay_done_f done, void *arg)
{
	struct rota_error err = {""};
	struct act_as as = {.uid = u->uid, .gid = u->gid};
	struct relay *rl;
	int fd;

	if (r->nrelays >= RESTD_MAX_CALLS) {
		msg_body_free(type, body);
		return -1;
	}
	fd = client_connect(r->conf, r->auth, NULL, 0, &err);
	if (fd < 0) {
		log_err("cannot reach the controller: %s", err.text);
		msg_body_free(type, body);
		return -1;
	}
	rl = xcalloc(1, sizeof(*rl));
	rl->r = r;
	rl->type = type;
	rl->body = body;
	rl->done = done;
	rl->arg = arg;
	rl->next = r->relays;
	if (r->relays)
		r->relays->prev = rl;
	r->relays = rl;
	r->nrelays++;
	rl->c = conn_create(r->base, fd, "rotactld", on_msg, on_close, rl);
	conn_set_deadline(rl->c, RESTD_CTLD_WAIT, on_timeout, rl);
	if (u->uid != getuid()) {
		conn_send(rl->c, MSG_ACT_AS, &as);
		return 0;
	}
	/* the user running rotarestd (inetd mode, say) asks as itself */
	rl->acting = 1;
	if (conn_send(rl->c, rl->type, rl->body) < 0) {
		finish(rl, ESLURM_INVALID_ARGUMENT, "the request cannot be encoded", 0,
		       NULL);
		return 0;
	}
	return 0;
}

void relay_stop_all(struct restd *r)
{
	while (r->relays)
		finish(r->relays, SLURM_ERROR, "rotarestd is stopping", 0, NULL);
}
