/* power.c - power saving (power.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/strv.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "ctld/hetjob.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/detach.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/power.h"
#include "ctld/reboot.h"
#include "common/common.h"

uint32_t power_state_flags(const struct node *n)
{
	uint32_t f = n->cfg->state == CONF_NODE_CLOUD ? NODE_CLOUD : 0;

	switch (n->power) {
	case NODE_POWER_DOWN_ASKED:
		return f | NODE_POWER_DOWN;
	case NODE_POWER_GOING_DOWN:
		return f | NODE_POWERING_DOWN;
	case NODE_POWER_OFF:
		return f | NODE_POWERED_DOWN;
	case NODE_POWER_GOING_UP:
		return f | NODE_POWERING_UP;
	default:
		return f;
	}
}

int power_node_allocatable(const struct node *n)
{
	return (n->power == NODE_POWER_OFF || n->power == NODE_POWER_GOING_UP) &&
	       !n->down && !(n->flags & (NODE_DRAIN | NODE_FAIL));
}

static int node_up(const struct node *n)
{
	return (n->power == NODE_POWER_ON || n->power == NODE_POWER_DOWN_ASKED) &&
	       n->registered && n->link;
}

int power_nodes_ready(struct ctld *ctld, const uint32_t *idx, uint32_t nnodes)
{
	for (uint32_t k = 0; k < nnodes; k++)
		if (!node_up(node_mgr_get(ctld->nodes, idx[k])))
			return 0;
	return 1;
}

/* Run prog with the hostlist as its argument, as SlurmUser, detached; its
 * exit status is ignored (as Slurm does). */
static void program_run(struct ctld *ctld, const char *prog, const char *hosts)
{
	char *argv[] = {(char *)prog, (char *)hosts, NULL};
	struct detached d = {
	    .argv = argv, .uid = ctld->slurm_uid, .gid = (gid_t)ctld->slurm_uid};
	int rc;

	if (!prog || !*prog)
		return;
	if ((rc = ctld_run_detached(&d)) < 0) {
		log_err("power: %s: %s", prog, strerror(-rc));
		return;
	}
	log_info("power: ran %s %s", prog, hosts);
}

/* Journal n's power state (PJ_ON, PJ_OFF: NODE_POWERED_DOWN, PJ_BOOTING:
 * NODE_POWERING_UP), keeping its drain/down and reason. */
enum { PJ_ON, PJ_OFF, PJ_BOOTING };

static void journal_power(struct ctld *ctld, struct node *n, int what, time_t now)
{
	/* the reason copied: applying the event replaces n's */
	char *reason = xstrdup(n->reason);
	struct ev_node_state ev = {.time = n->reason_time ? n->reason_time : now,
	                           .node_name = (char *)n->cfg->name,
	                           .state = (n->flags & (NODE_DRAIN | NODE_FAIL)) |
	                                    (n->admin_down ? NODE_DOWN : 0) |
	                                    (what == PJ_OFF       ? NODE_POWERED_DOWN
	                                     : what == PJ_BOOTING ? NODE_POWERING_UP
	                                                          : 0),
	                           .uid = n->reason_uid,
	                           .text = reason,
	                           .reboot = n->reboot,
	                           .reboot_time = n->reboot_time};

	ev_node_state_commit(ctld, &ev);
	free(reason);
}

static void rates_roll(struct ctld *ctld, time_t now)
{
	if (now - ctld->power_rates.window >= 60) {
		ctld->power_rates.window = now;
		ctld->power_rates.suspended = ctld->power_rates.resumed = 0;
	}
}

/* Is name one of the comma-separated list's items? */

static int excluded(struct ctld *ctld, size_t idx, char **exc, size_t nexc)
{
	const char *name = node_mgr_get(ctld->nodes, idx)->cfg->name;
	const char *parts = ctld->conf->suspend_exc_parts;

	for (size_t k = 0; k < nexc; k++)
		if (!strcmp(exc[k], name))
			return 1;
	for (size_t i = 0; parts && i < node_mgr_part_count(ctld->nodes); i++) {
		struct part *p = node_mgr_part(ctld->nodes, i);
		if (part_has_node(p, idx) && list_has(parts, p->cfg->name, 0))
			return 1;
	}
	return 0;
}

static int node_idle(const struct node *n)
{
	return !n->down && n->registered && !n->alloc_cpus && !n->run_jobs &&
	       !n->completing && !n->norphans;
}

/* Power down the nodes in names[count] (indexes idx). */
static void suspend_nodes(struct ctld *ctld, char **names, const size_t *idx,
                          size_t count, time_t now)
{
	char *hosts;

	if (!count)
		return;
	for (size_t k = 0; k < count; k++) {
		struct node *n = node_mgr_get(ctld->nodes, idx[k]);
		journal_power(ctld, n, PJ_OFF, now);
		n->power = NODE_POWER_GOING_DOWN;
		n->power_since = now;
		n->registered = 0;
	}
	hosts = hostlist_compress(names, count);
	log_info("power: suspending %s", hosts);
	program_run(ctld, ctld->conf->suspend_program, hosts);
	free(hosts);
	ctld->res_gen++;
}

static void suspend_idle(struct ctld *ctld, time_t now)
{
	const struct conf *conf = ctld->conf;
	size_t count = node_mgr_count(ctld->nodes), nsel = 0, nexc = 0;
	char **names = xcalloc(count + 1, sizeof(char *)), **exc = NULL;
	size_t *idx = xcalloc(count + 1, sizeof(size_t));

	if (conf->suspend_exc_nodes)
		hostlist_expand(conf->suspend_exc_nodes, &exc, &nexc, NULL);
	for (size_t i = 0; i < count; i++) {
		struct node *n = node_mgr_get(ctld->nodes, i);
		time_t since =
		    n->last_busy > n->power_since ? n->last_busy : n->power_since;
		int asked = n->power == NODE_POWER_DOWN_ASKED;

		if (n->power != NODE_POWER_ON && !asked)
			continue;
		if (!node_idle(n) || (n->flags & NODE_DRAIN) || n->reboot)
			continue; /* nor one to reboot, as Slurm's */
		if (!asked && (conf->suspend_time == UINT32_MAX ||
		               now - since < (time_t)conf->suspend_time ||
		               excluded(ctld, i, exc, nexc)))
			continue;
		if (conf->suspend_rate &&
		    ctld->power_rates.suspended >= conf->suspend_rate)
			break;
		ctld->power_rates.suspended++;
		names[nsel] = n->cfg->name;
		idx[nsel++] = i;
	}
	suspend_nodes(ctld, names, idx, nsel, now);
	hostlist_free(exc);
	free(names);
	free(idx);
}

/* Run ResumeProgram for the nodes marked to boot (power_since 0), within
 * ResumeRate. */
static void resume_marked(struct ctld *ctld, time_t now)
{
	size_t count = node_mgr_count(ctld->nodes), nsel = 0;
	char **names = xcalloc(count + 1, sizeof(char *)), *hosts;

	for (size_t i = 0; i < count; i++) {
		struct node *n = node_mgr_get(ctld->nodes, i);
		if (n->power != NODE_POWER_GOING_UP || n->power_since)
			continue;
		if (ctld->conf->resume_rate &&
		    ctld->power_rates.resumed >= ctld->conf->resume_rate)
			break;
		ctld->power_rates.resumed++;
		n->power_since = now;
		names[nsel++] = n->cfg->name;
	}
	if (nsel) {
		hosts = hostlist_compress(names, nsel);
		log_info("power: resuming %s", hosts);
		program_run(ctld, ctld->conf->resume_program, hosts);
		free(hosts);
	}
	free(names);
}

void power_job_hold(struct ctld *ctld, struct job *job)
{
	time_t now = time(NULL);

	job_run_mut(job)->power_wait = 1;
	for (uint32_t k = 0; k < job->run->nnodes; k++) {
		struct node *n = node_mgr_get(ctld->nodes, job->run->node_idx[k]);
		if (n->power != NODE_POWER_OFF)
			continue;
		journal_power(ctld, n, PJ_BOOTING, now);
		n->power = NODE_POWER_GOING_UP;
		n->power_since = 0; /* resume_marked runs the program */
	}
	log_info("JobId=%u waits for its nodes to boot", job->job_id);
	rates_roll(ctld, now);
	resume_marked(ctld, now);
}

int power_job_reboots(struct ctld *ctld, const struct job *job)
{
	const char *prog = ctld->conf->reboot_program;

	return (job->desc.flags & JOB_F_REBOOT) && prog && *prog;
}

void power_job_reboot(struct ctld *ctld, struct job *job)
{
	time_t now = time(NULL);
	for (uint32_t k = 0; k < job->run->nnodes; k++) {
		struct node *n = node_mgr_get(ctld->nodes, job->run->node_idx[k]);
		struct reboot_req order = {.nodes = (char *)n->cfg->name,
		                           .reason = (char *)"--reboot"};
		if (n->power == NODE_POWER_OFF || n->power == NODE_POWER_GOING_UP)
			continue; /* booting anyway: power_job_hold resumes it */
		journal_power(ctld, n, PJ_BOOTING, now);
		n->power = NODE_POWER_GOING_UP;
		n->power_since = now; /* no ResumeProgram: ResumeTimeout counts */
		if (node_send(n, MSG_REBOOT_REQ, &order) < 0)
			log_err("JobId=%u: node %s: the reboot order could not be sent",
			        job->job_id, n->cfg->name);
	}
	log_info("JobId=%u: rebooting its nodes first (--reboot)", job->job_id);
	power_job_hold(ctld, job);
}

/* Launch a held job whose nodes are all up now. */
static void job_release(struct ctld *ctld, struct job *job)
{
	struct ev_configured ev = {.job_id = job->job_id, .time = time(NULL)};
	int batch = !job->alloc_client && !(job->desc.flags & JOB_F_INTERACTIVE);

	job_run_mut(job)->power_wait = 0;
	if (!batch || !ctld->conf->prolog)
		ev_configured_commit(ctld, &ev);
	log_info("JobId=%u: its nodes are up, launching", job->job_id);
	if (job->alloc_client) {
		uint32_t ntasks = 0;
		for (uint32_t k = 0; k < job->run->nnodes; k++)
			ntasks += job->run->tasks[k];
		struct alloc_resp r = {
		    .job_id = job->job_id,
		    .nodes = job->run->nodes_str,
		    .cpus_per_node = {job->run->cpus, job->run->nnodes},
		    .num_tasks = job_alloc_tasks(job, ntasks),
		    .partition = job_part_name(job),
		    .het_env = hetjob_batch_env(ctld, job)};
		job_alloc_granted(ctld, job, &r);
		strv_free(r.het_env);
	} else if (batch && !hetjob_follower(job)) { /* the leader runs the script */
		launch_batch(ctld, job);
	}
}

static void held_jobs_check(struct ctld *ctld)
{
	for (struct job *j = job_first_active(ctld->jobs), *nx; j; j = nx) {
		nx = j->lnext;
		if (job_is_running(j) && j->run->power_wait &&
		    power_nodes_ready(ctld, j->run->node_idx, j->run->nnodes))
			job_release(ctld, j);
	}
}

void power_node_registered(struct ctld *ctld, struct node *n)
{
	time_t now = time(NULL);

	if (n->power == NODE_POWER_OFF || n->power == NODE_POWER_GOING_DOWN ||
	    n->power == NODE_POWER_GOING_UP)
		journal_power(ctld, n, PJ_ON, now); /* booted, or came back on its own */
	if (n->power != NODE_POWER_DOWN_ASKED)
		n->power = NODE_POWER_ON;
	n->power_since = now;
	held_jobs_check(ctld);
}

/* A node that did not register within ResumeTimeout: DOWN, and the jobs
 * waiting for it requeued. */
static void resume_failed(struct ctld *ctld, size_t idx, time_t now)
{
	struct node *n = node_mgr_get(ctld->nodes, idx);

	log_err("node %s: ResumeTimeout reached, setting DOWN", n->cfg->name);
	journal_power(ctld, n, PJ_OFF, now);
	n->power = NODE_POWER_OFF;
	n->down = 1;
	free(n->reason);
	n->reason = xstrdup("ResumeTimeout reached");
	n->reason_time = now;
	n->reason_uid = 0;
	ctld->res_gen++;
	for (struct job *j = job_first_active(ctld->jobs), *nx; j; j = nx) {
		nx = j->lnext;
		if (!job_is_running(j) || !j->run->power_wait)
			continue;
		for (uint32_t k = 0; k < j->run->nnodes; k++)
			if (j->run->node_idx[k] == idx) {
				job_node_failed(ctld, j, n->cfg->name);
				break;
			}
	}
}

void power_tick(struct ctld *ctld, time_t now)
{
	size_t count = node_mgr_count(ctld->nodes);

	rates_roll(ctld, now);
	for (size_t i = 0; i < count; i++) {
		struct node *n = node_mgr_get(ctld->nodes, i);
		if (n->power == NODE_POWER_GOING_DOWN &&
		    now - n->power_since >= (time_t)ctld->conf->suspend_timeout) {
			n->power = NODE_POWER_OFF;
			n->power_since = now;
			ctld->res_gen++;
			ctld_sched_kick(ctld);
		} else if (n->power == NODE_POWER_GOING_UP && n->power_since &&
		           now - n->power_since >= (time_t)ctld->conf->resume_timeout) {
			resume_failed(ctld, i, now);
		}
	}
	resume_marked(ctld, now);
	suspend_idle(ctld, now);
}

int power_request(struct ctld *ctld, struct node *n, int up)
{
	time_t now = time(NULL);

	if (up) {
		if (n->power == NODE_POWER_DOWN_ASKED)
			n->power = NODE_POWER_ON;
		if (n->power != NODE_POWER_OFF)
			return 0;
		journal_power(ctld, n, PJ_BOOTING, now);
		n->power = NODE_POWER_GOING_UP;
		n->power_since = 0;
		resume_marked(ctld, now);
		return 0;
	}
	if (n->power == NODE_POWER_ON)
		n->power = NODE_POWER_DOWN_ASKED; /* suspend_idle does it when idle */
	ctld->res_gen++;
	return 0;
}

void power_restore(struct ctld *ctld)
{
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext) {
		if (!job_is_running(j) || !(j->state & JOB_CONFIGURING))
			continue;
		for (uint32_t k = 0; k < j->run->nnodes; k++)
			if (node_mgr_get(ctld->nodes, j->run->node_idx[k])->power ==
			    NODE_POWER_GOING_UP) {
				job_run_mut(j)->power_wait = 1;
				break;
			}
	}
}
