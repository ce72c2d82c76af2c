/* reboot.c - scontrol reboot and cancel_reboot (reboot.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/node_mgr.h"
#include "ctld/power.h"
#include "ctld/reboot.h"
#include "common/common.h"

uint32_t reboot_state_flags(const struct node *n)
{
	return ((n->reboot & REBOOT_REQUESTED) ? NODE_REBOOT_REQUESTED : 0) |
	       ((n->reboot & REBOOT_ISSUED) ? NODE_REBOOT_ISSUED : 0);
}

const char *reboot_next_state(const struct node *n)
{
	if (!(n->reboot & (REBOOT_REQUESTED | REBOOT_ISSUED)))
		return NULL;
	if (n->reboot & REBOOT_NEXT_DOWN)
		return "DOWN";
	return (n->reboot & REBOOT_NEXT_RESUME) ? "RESUME" : NULL;
}

/* ev's reason becomes the node's with what happened added, as Slurm's
 * set_node_reboot_reason words it: "Reboot ASAP : reboot issued", given by
 * SlurmUser now. */
static void reason_add(struct ctld *ctld, struct ev_node_state *ev, const char *what,
                       time_t now)
{
	char *text = ev->text && *ev->text && !strstr(ev->text, what)
	                 ? xasprintf("%s : %s", ev->text, what)
	                 : xstrdup(what);

	free(ev->text);
	ev->text = text;
	ev->uid = ctld->slurm_uid;
	ev->time = now;
}

/* The record of n as it is now, to change and commit.  A node down for not
 * responding stays down, as the admin's DOWN (the journal knows no other). */
static void node_event(const struct node *n, struct ev_node_state *ev)
{
	node_mgr_state_event(n, ev);
	if (n->down && !(n->reboot & REBOOT_ISSUED))
		ev->state |= NODE_DOWN;
}

/* Apply and journal ev (taken). */
static int commit(struct ctld *ctld, struct ev_node_state *ev)
{
	int rc = ev_node_state_commit(ctld, ev);

	codec_release(&ev_node_state_type, ev);
	return rc;
}

/* The REBOOT_NEXT_* bit of nextstate= (NULL: none); -1 for another word. */
static int next_state_bits(const char *s)
{
	if (!s || !*s)
		return 0;
	if (!strcasecmp(s, "RESUME"))
		return REBOOT_NEXT_RESUME;
	if (!strcasecmp(s, "DOWN"))
		return REBOOT_NEXT_DOWN;
	return -1;
}

/* Mark n to reboot as req asks; 1 when it is, 0 when it is left alone (a
 * reboot already to come, or not powered up), as Slurm leaves it. */
static int request_one(struct ctld *ctld, const struct caller *who, struct node *n,
                       const struct reboot_req *req, uint32_t next, time_t now)
{
	struct ev_node_state ev;

	if (n->reboot || n->power != NODE_POWER_ON)
		return 0;
	node_event(n, &ev);
	ev.reboot = REBOOT_REQUESTED | next;
	if (req->reason && *req->reason) {
		free(ev.text);
		ev.text = xstrdup(req->reason);
		ev.uid = who->uid;
		ev.time = now;
	}
	if (req->flags & REBOOT_F_ASAP) {
		if (!next)
			ev.reboot |= REBOOT_NEXT_RESUME;
		if (!(n->flags & NODE_DRAIN))
			ev.reboot |= REBOOT_UNDRAIN;
		ev.state |= NODE_DRAIN;
	}
	if (!ev.text || !*ev.text) {
		free(ev.text);
		ev.text = xstrdup((req->flags & REBOOT_F_ASAP) ? "Reboot ASAP"
		                                               : "reboot requested");
		ev.uid = who->uid;
		ev.time = now;
	}
	return commit(ctld, &ev) == 0;
}

void reboot_request(struct ctld *ctld, const struct caller *who,
                    const struct reboot_req *req, struct chan *ch)
{
	struct rota_error err = {""};
	size_t count = node_mgr_count(ctld->nodes), nnames = 0, nsel = 0;
	char **names = NULL, **sel = NULL, *hosts;
	int next = next_state_bits(req->next_state), all;
	time_t now = time(NULL);

	if (!caller_is_admin(who)) {
		log_err("Security violation, REBOOT_NODES RPC from uid=%u",
		        (unsigned)who->uid);
		chan_send_rc(ch, -EACCES, "Permission denied");
		return;
	}
	if (!ctld->conf->reboot_program || !*ctld->conf->reboot_program) {
		chan_send_rc(ch, SLURM_ERROR, "RebootProgram isn't defined");
		return;
	}
	if (next < 0) {
		chan_send_rc(ch, -ESLURM_INVALID_NODE_STATE, NULL);
		return;
	}
	all = !req->nodes || !*req->nodes || !strcasecmp(req->nodes, "ALL");
	if (!all && hostlist_expand(req->nodes, &names, &nnames, &err) < 0) {
		log_err("Bad node list in REBOOT_NODES request: \"%s\"", req->nodes);
		chan_send_rc(ch, -ESLURM_INVALID_NODE_NAME, NULL);
		return;
	}
	for (size_t i = 0; i < nnames; i++)
		if (node_mgr_find(ctld->nodes, names[i]) < 0) {
			log_err("Bad node list in REBOOT_NODES request: \"%s\"",
			        req->nodes);
			chan_send_rc(ch, -ESLURM_INVALID_NODE_NAME, NULL);
			goto out;
		}
	sel = xcalloc((all ? count : nnames) + 1, sizeof(char *));
	for (size_t i = 0; i < (all ? count : nnames); i++) {
		struct node *n = node_mgr_get(
		    ctld->nodes, all ? i : (size_t)node_mgr_find(ctld->nodes, names[i]));
		if (request_one(ctld, who, n, req, (uint32_t)next, now))
			sel[nsel++] = (char *)n->cfg->name;
	}
	if (nsel) {
		hosts = hostlist_compress(sel, nsel);
		log_info("reboot request queued for nodes %s", hosts);
		free(hosts);
	}
	chan_send_rc(ch, 0, NULL);
	reboot_tick(ctld, now); /* those free now go at once */
	ctld_sched_kick(ctld);
out:
	free(sel);
	hostlist_free(names);
}

int reboot_cancel(struct ctld *ctld, struct node *n)
{
	struct ev_node_state ev;

	if (!(n->reboot & REBOOT_REQUESTED)) {
		log_info("Invalid node state transition requested for node %s: "
		         "no reboot to cancel",
		         n->cfg->name);
		return -ESLURM_INVALID_NODE_STATE;
	}
	node_event(n, &ev);
	ev.reboot = 0;
	if (n->reboot & REBOOT_UNDRAIN) { /* ASAP's drain, and its reason */
		ev.state &= ~NODE_DRAIN;
		free(ev.text);
		ev.text = NULL;
	}
	log_info("node %s: reboot cancelled", n->cfg->name);
	return commit(ctld, &ev);
}

/* May n be told to reboot now? */
static int reboot_free(const struct node *n)
{
	return n->registered && n->link && !(n->flags & NODE_NO_RESPOND) &&
	       n->power == NODE_POWER_ON && !n->run_jobs && !n->alloc_cpus &&
	       !n->completing && !n->norphans;
}

/* Tell n's rotad to reboot; DOWN+REBOOT_ISSUED from now.  Journaled first:
 * an order lost with a controller that stopped leaves the node timing out,
 * never rebooting twice. */
static void issue(struct ctld *ctld, struct node *n, time_t now)
{
	struct ev_node_state ev;
	struct reboot_req order = {.nodes = (char *)n->cfg->name,
	                           .next_state = (char *)reboot_next_state(n),
	                           .flags =
	                               (n->reboot & REBOOT_UNDRAIN) ? REBOOT_F_ASAP : 0};

	node_event(n, &ev);
	ev.reboot = (n->reboot & ~REBOOT_REQUESTED) | REBOOT_ISSUED;
	ev.reboot_time = now;
	reason_add(ctld, &ev, "reboot issued", now);
	order.reason = ev.text;
	if (ev_node_state_commit(ctld, &ev) == 0) {
		log_info("node %s: reboot issued", n->cfg->name);
		if (node_send(n, MSG_REBOOT_REQ, &order) < 0)
			log_err("node %s: the reboot order could not be sent",
			        n->cfg->name);
	}
	codec_release(&ev_node_state_type, &ev);
}

/* Not back within ResumeTimeout: DOWN, as Slurm's check_reboot_nodes. */
static void timed_out(struct ctld *ctld, struct node *n, time_t now)
{
	struct ev_node_state ev;

	node_event(n, &ev);
	ev.reboot = 0;
	ev.reboot_time = 0;
	ev.state = (ev.state & ~NODE_DRAIN) | NODE_DOWN;
	reason_add(ctld, &ev, "reboot timed out", now);
	log_err("node %s: not back from its reboot within ResumeTimeout (%us), "
	        "setting DOWN",
	        n->cfg->name, ctld->conf->resume_timeout);
	commit(ctld, &ev);
}

void reboot_node_registered(struct ctld *ctld, struct node *n,
                            const struct node_register *reg, time_t now)
{
	struct ev_node_state ev;

	if (!(n->reboot & REBOOT_ISSUED))
		return;
	if ((time_t)reg->boot_time < n->reboot_time &&
	    (time_t)reg->start_time < n->reboot_time) {
		log_info("node %s: still waiting for its reboot", n->cfg->name);
		return;
	}
	node_event(n, &ev);
	ev.reboot = 0;
	ev.reboot_time = 0;
	if (n->reboot & (REBOOT_NEXT_RESUME | REBOOT_NEXT_DOWN))
		ev.state &= ~NODE_DRAIN;
	if (n->reboot & REBOOT_NEXT_DOWN) {
		ev.state |= NODE_DOWN;
		reason_add(ctld, &ev, "reboot complete", now);
	} else {
		ev.state &= ~NODE_DOWN; /* the reboot brings a DOWN node back */
	}
	log_info("node %s returned to service", n->cfg->name);
	commit(ctld, &ev);
}

void reboot_tick(struct ctld *ctld, time_t now)
{
	size_t count = node_mgr_count(ctld->nodes);

	for (size_t i = 0; i < count; i++) {
		struct node *n = node_mgr_get(ctld->nodes, i);

		if ((n->reboot & REBOOT_REQUESTED) && reboot_free(n))
			issue(ctld, n, now);
		else if ((n->reboot & REBOOT_ISSUED) &&
		         now - n->reboot_time > (time_t)ctld->conf->resume_timeout)
			timed_out(ctld, n, now);
	}
}
