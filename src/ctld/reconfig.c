#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/states.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/listener.h"
#include "ctld/node_mgr.h"
#include "ctld/node_feat.h"
#include "ctld/job_event.h"
#include "ctld/part_update.h"
#include "ctld/reconfig.h"
#include "ctld/trigger.h"
#include "common/trigtype.h"
#include "ctld/sched_pass.h"
#include "ctld/topo.h"
#include "proto/conf_files.h"
#include "common/common.h"

struct old_conf {
	struct conf *conf;
	struct old_conf *next;
};

static int node_busy(const struct node *n)
{
	return n->alloc_cpus || n->run_jobs || n->completing || n->norphans;
}

/* What would be lost: a node in use that goes or changes its CPUs, a
 * partition with jobs that goes.  map: old node index -> new, or -1. */
static int check(struct ctld *ctld, struct node_mgr *nm, const int *map,
                 struct rota_error *err)
{
	for (size_t i = 0; i < node_mgr_count(ctld->nodes); i++) {
		struct node *o = node_mgr_get(ctld->nodes, i);
		if (!node_busy(o))
			continue;
		if (map[i] < 0)
			return errprintf(err, "node %s is in use: it cannot be removed",
			                 o->cfg->name);
		if (node_mgr_get(nm, (size_t)map[i])->cpus != o->cpus)
			return errprintf(err, "node %s is in use: its CPUs cannot change",
			                 o->cfg->name);
	}
	for (struct job *j = job_first(ctld->jobs); j; j = j->next)
		if (!job_is_finished(j) && j->part &&
		    !node_mgr_part_find(nm, j->part->cfg->name))
			return errprintf(err,
			                 "partition %s has jobs (JobId=%u): it cannot "
			                 "be removed",
			                 j->part->cfg->name, j->job_id);
	return 0;
}

/* The new node takes over what the old one is now: allocations, state,
 * reason, its daemon's link.  The old one is left holding nothing. */
static void node_adopt(struct node *n, struct node *o)
{
	n->alloc_cpus = o->alloc_cpus;
	n->shared_cpus = o->shared_cpus;
	n->alloc_mem = o->alloc_mem;
	n->run_jobs = o->run_jobs;
	n->excl_user_jobs = o->excl_user_jobs;
	n->excl_uid = o->excl_uid;
	n->mcs_jobs = o->mcs_jobs;
	n->mcs_label = o->mcs_label;
	o->mcs_label = NULL;
	o->mcs_jobs = 0;
	n->completing = o->completing;
	if (n->cpus == o->cpus) {
		uint8_t *t = n->core_used;
		n->core_used = o->core_used;
		o->core_used = t;
	}
	n->flags = o->flags;
	n->down = o->down;
	n->admin_down = o->admin_down;
	n->registered = o->registered;
	n->power = o->power;
	n->power_since = o->power_since;
	n->reboot = o->reboot;
	n->reboot_time = o->reboot_time;
	free(n->reason);
	n->reason = o->reason;
	o->reason = NULL;
	n->reason_time = o->reason_time;
	n->reason_uid = o->reason_uid;
	n->boot_time = o->boot_time;
	n->slurmd_start_time = o->slurmd_start_time;
	n->last_seen = o->last_seen;
	n->last_busy = o->last_busy;
	n->free_mem = o->free_mem;
	n->cpu_load = o->cpu_load;
	n->tmp_disk_found = o->tmp_disk_found;
	n->os = o->os, o->os = NULL;
	n->arch = o->arch, o->arch = NULL;
	n->version = o->version, o->version = NULL;
	n->gres_found = o->gres_found, o->gres_found = NULL;
	n->gres_devs = o->gres_devs, o->gres_devs = NULL;
	n->ngres_devs = o->ngres_devs, o->ngres_devs = 0;
	n->link = o->link, o->link = NULL;
	n->orphans = o->orphans, o->orphans = NULL;
	n->norphans = o->norphans, o->norphans = 0;
}

static void jobs_remap(struct ctld *ctld, struct node_mgr *nm, const int *map)
{
	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		for (uint32_t k = 0; j->run->node_idx && k < j->run->nnodes; k++) {
			if (map[j->run->node_idx[k]] >= 0)
				j->run->node_idx[k] = (uint32_t)map[j->run->node_idx[k]];
			/* the devices it holds, in the new kinds */
			if (j->run->gres && j->run->held && j->run->held[k])
				gres_use_claim(
				    node_mgr_gres_kinds(nm),
				    &node_mgr_get(nm, j->run->node_idx[k])->gres_use,
				    j->run->gres[k]);
		}
		for (struct step *st = j->run->steps; st; st = st->next)
			for (uint32_t i = 0; i < st->nnodes; i++)
				if (map[st->node_idx[i]] >= 0)
					st->node_idx[i] = (uint32_t)map[st->node_idx[i]];
		j->part = j->part ? node_mgr_part_find(nm, j->part->cfg->name) : NULL;
		if (job_is_pending(j) && job_multi_part(j)) /* what is left of its list */
			j->part = job_part_first(nm, j->desc.partition);
		job_mgr_classify(ctld->jobs, j);
		job_clear_plan(j);
	}
}

void ctld_conf_files_load(struct ctld *ctld)
{
	struct conf_files *r = NULL;
	struct rota_error err = {""};

	if (conf_configless(ctld->conf)) {
		r = xcalloc(1, sizeof(*r));
		if (conf_files_collect(ctld->conf, r, &err) < 0) {
			log_err(
			    "configless: the configuration files cannot be served: %s",
			    err.text);
			free(r);
			r = NULL;
		}
	}
	msg_body_free(MSG_CONF_FILES_RESP, ctld->conf_files);
	ctld->conf_files = r;
}

/* After a reconfigure, as slurmd is told: the nodes get the files again (a
 * configless rotad refreshes its cache), or, with no configless, are told to
 * read their own slurm.conf again (a rotad whose files changed starts again
 * with them: a new Prolog runs for the next job). */
static void conf_files_push(struct ctld *ctld)
{
	ctld_conf_files_load(ctld);
	for (size_t i = 0; i < node_mgr_count(ctld->nodes); i++) {
		struct node *n = node_mgr_get(ctld->nodes, i);
		if (!n->link)
			continue;
		if (ctld->conf_files)
			node_send(n, MSG_CONF_FILES_RESP, ctld->conf_files);
		else
			node_send(n, MSG_RECONFIG_REQ, &(struct empty_msg){0});
	}
}

int ctld_reconfigure(struct ctld *ctld, struct rota_error *err)
{
	const struct conf *old = ctld->conf;
	struct conf *nc = NULL;
	struct node_mgr *nm = NULL;
	struct old_conf *keep;
	struct ctld_topo *topo = NULL;
	size_t n_old = node_mgr_count(ctld->nodes);
	int *map;
	struct part_carry *carry;
	int feat_reset;

	if (conf_load(old->path, &nc, err) < 0)
		return -1;
	if (ctld->state_dir) { /* rotactld -s: still ours */
		free(nc->state_save_location);
		nc->state_save_location = xstrdup(ctld->state_dir);
	}
	if (conf_reload_check(old, nc, err) < 0 || prio_tres_check(nc, err) < 0) {
		conf_destroy(nc);
		return -1;
	}
	ctld->conf = nc; /* node_mgr_create reads it, and what partitions keep */
	node_mgr_create(ctld, &nm);
	carry = part_reconfigure_begin(ctld, ctld->nodes, nm);
	feat_reset = node_feat_changed(ctld->nodes);
	ctld->conf = old;
	map = xcalloc(n_old + 1, sizeof(*map));
	for (size_t i = 0; i < n_old; i++)
		map[i] = node_mgr_find(nm, node_mgr_get(ctld->nodes, i)->cfg->name);
	if (check(ctld, nm, map, err) < 0 || ctld_topo_load(nc, nm, &topo, err) < 0) {
		node_mgr_destroy(nm);
		conf_destroy(nc);
		free(map);
		part_carry_free(carry);
		return -1;
	}
	/* a backfill run holds pointers to the nodes it planned with */
	backfill_abandon(ctld);
	for (size_t i = 0; i < n_old; i++)
		if (map[i] >= 0)
			node_adopt(node_mgr_get(nm, (size_t)map[i]),
			           node_mgr_get(ctld->nodes, i));
	jobs_remap(ctld, nm, map);
	listener_remap_nodes(ctld->listener, map, n_old);
	node_mgr_destroy(ctld->nodes);
	ctld->nodes = nm;
	ctld_topo_destroy(ctld->topo);
	ctld->topo = topo;
	keep = xcalloc(1, sizeof(*keep));
	keep->conf = (struct conf *)old;
	keep->next = ctld->old_confs;
	ctld->old_confs = keep;
	ctld->conf = nc;
	ctld->res_gen++;
	/* as Slurm: what scontrol changed in the partitions is dropped (the
	 * journal says so), unless ReconfigFlags keeps it */
	part_reconfigure_end(ctld, carry);
	/* so are the nodes' features (the new nodes have slurm.conf's) */
	if (feat_reset) {
		struct ev_node_features ev = {.set = NODE_FEAT_RESET};
		ev_node_features_commit(ctld, &ev);
		log_info("reconfigure: the nodes' features are slurm.conf's again");
	}
	log_info("reconfigured from %s: %zu nodes, %zu partitions", nc->path,
	         node_mgr_count(nm), node_mgr_part_count(nm));
	free(map);
	conf_files_push(ctld);
	trigger_note(ctld, TRIG_T_RECONFIG); /* strigger --reconfig */
	ctld_sched_kick(ctld);
	return 0;
}

void ctld_reconfig_release(struct ctld *ctld)
{
	msg_body_free(MSG_CONF_FILES_RESP, ctld->conf_files);
	ctld->conf_files = NULL;
	while (ctld->old_confs) {
		struct old_conf *o = ctld->old_confs;
		ctld->old_confs = o->next;
		conf_destroy(o->conf);
		free(o);
	}
}
