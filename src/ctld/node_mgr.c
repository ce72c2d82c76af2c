#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "ctld/preempt.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/listener.h"
#include "ctld/node_mgr.h"
#include "ctld/mcs_label.h"
#include "ctld/node_feat.h"
#include "ctld/resv.h"
#include "ctld/node_gres.h"
#include "ctld/power.h"
#include "ctld/reboot.h"
#include "ctld/repl.h"
#include "common/common.h"

struct node_mgr {
	struct node *nodes;
	size_t count;
	struct part **parts; /* each its own allocation: jobs point at them */
	size_t nparts;
	char **deleted;   /* slurm.conf's partitions removed at run time */
	int32_t *by_name; /* [hsize] open addressing: node index or -1 */
	size_t hsize;     /* a power of two > 2 * count */
	struct gres_kinds kinds;
	uint32_t gen; /* this configuration's number */
};

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void name_index_build(struct node_mgr *nm)
{
	nm->hsize = 16;
	while (nm->hsize <= 2 * nm->count)
		nm->hsize *= 2;
	nm->by_name = xcalloc(nm->hsize, sizeof(*nm->by_name));
	for (size_t i = 0; i < nm->hsize; i++)
		nm->by_name[i] = -1;
	for (size_t i = 0; i < nm->count; i++) {
		size_t h = name_hash(nm->nodes[i].cfg->name) & (nm->hsize - 1);
		while (nm->by_name[h] >= 0)
			h = (h + 1) & (nm->hsize - 1);
		nm->by_name[h] = (int32_t)i;
	}
}

static void part_free(struct part *p)
{
	if (!p)
		return;
	conf_part_release(p->own);
	free(p->own);
	free(p->node_idx);
	free(p->member);
	free(p);
}

/* p's nodes from its Nodes= (ALL: every node): node_idx, member,
 * total_cpus, and cfg's node_names.  Names that are no node are left out
 * (a journal's partition naming a node slurm.conf no longer has). */
static void part_nodes_build(struct node_mgr *nm, struct part *p)
{
	struct conf_part *cp = p->own;
	char **names = NULL;
	size_t n = 0;

	free(p->node_idx);
	free(p->member);
	p->nnodes = 0;
	p->total_cpus = p->max_cpus = 0;
	p->total_mem = 0;
	if (cp->nodes && !strcasecmp(cp->nodes, "ALL")) {
		names = xcalloc(nm->count + 1, sizeof(*names));
		for (n = 0; n < nm->count; n++)
			names[n] = xstrdup(nm->nodes[n].cfg->name);
	} else if (cp->nodes && hostlist_expand(cp->nodes, &names, &n, NULL) < 0) {
		log_err("partition %s: Nodes=%s cannot be read: it has none", cp->name,
		        cp->nodes);
		names = NULL;
		n = 0;
	}
	p->node_idx = xcalloc(n + 1, sizeof(uint32_t));
	p->member = xcalloc(nm->count + 1, 1);
	for (size_t k = 0; k < n; k++) {
		int idx = node_mgr_find(nm, names[k]);
		if (idx < 0) {
			log_err("partition %s: node %s is not configured: left out",
			        cp->name, names[k]);
			continue;
		}
		if (p->member[idx])
			continue;
		p->member[idx] = 1;
		p->node_idx[p->nnodes++] = (uint32_t)idx;
		p->total_cpus += nm->nodes[idx].cpus;
		p->total_mem += nm->nodes[idx].mem;
		if (nm->nodes[idx].cpus > p->max_cpus)
			p->max_cpus = nm->nodes[idx].cpus;
	}
	hostlist_free(cp->node_names);
	cp->node_names = xcalloc(p->nnodes + 1, sizeof(char *));
	for (size_t k = 0; k < p->nnodes; k++)
		cp->node_names[k] = xstrdup(nm->nodes[p->node_idx[k]].cfg->name);
	cp->node_count = p->nnodes;
	hostlist_free(names);
}

struct part *node_mgr_part_put(struct node_mgr *nm, struct conf_part *cp,
                               int *ret_created)
{
	struct part *p = node_mgr_part_find(nm, cp->name);

	if (ret_created)
		*ret_created = !p;
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		nm->parts = xrealloc(nm->parts, (nm->nparts + 2) * sizeof(*nm->parts));
		nm->parts[nm->nparts++] = p;
		nm->parts[nm->nparts] = NULL;
	} else {
		conf_part_release(p->own);
		free(p->own);
	}
	p->own = cp;
	p->cfg = cp;
	p->changed = 1;
	part_nodes_build(nm, p);
	for (size_t i = 0, w = 0;; i++) { /* made again: no longer removed */
		if (nm->deleted[i] && !strcmp(nm->deleted[i], cp->name)) {
			free(nm->deleted[i]);
			continue;
		}
		nm->deleted[w++] = nm->deleted[i];
		if (!nm->deleted[i])
			break;
	}
	/* as Slurm: one default partition, the last made so */
	for (size_t i = 0; cp->is_default && i < nm->nparts; i++)
		if (nm->parts[i] != p && nm->parts[i]->own->is_default) {
			nm->parts[i]->own->is_default = 0;
			nm->parts[i]->changed = 1;
		}
	return p;
}

int node_mgr_part_remove(struct node_mgr *nm, const char *name, int from_conf)
{
	size_t i;

	for (i = 0; i < nm->nparts; i++)
		if (!strcmp(nm->parts[i]->cfg->name, name))
			break;
	if (i == nm->nparts)
		return -ENOENT;
	part_free(nm->parts[i]);
	memmove(&nm->parts[i], &nm->parts[i + 1], (nm->nparts - i) * sizeof(*nm->parts));
	nm->nparts--;
	if (from_conf && !strv_has(nm->deleted, name, 0))
		nm->deleted = strv_append(nm->deleted, name);
	return 0;
}

void node_mgr_parts_sort(struct node_mgr *nm, const struct conf *conf)
{
	size_t w = 0;

	for (size_t c = 0; c < conf->part_count; c++)
		for (size_t i = w; i < nm->nparts; i++)
			if (!strcmp(nm->parts[i]->cfg->name, conf->parts[c].name)) {
				struct part *t = nm->parts[i];
				memmove(&nm->parts[w + 1], &nm->parts[w],
				        (i - w) * sizeof(*nm->parts));
				nm->parts[w++] = t;
				break;
			}
}

char *const *node_mgr_parts_deleted(const struct node_mgr *nm)
{
	return nm->deleted;
}

/* Node managers made by this process: each one's number (a reconfigure
 * makes one while the old one still serves; tests make many). */
static uint32_t generations;

int node_mgr_create(struct ctld *ctld, struct node_mgr **ret)
{
	const struct conf *conf = ctld->conf;
	struct node_mgr *nm = xcalloc(1, sizeof(*nm));

	nm->gen = ++generations;
	nm->count = conf->node_count;
	nm->nodes = xcalloc(nm->count ? nm->count : 1, sizeof(struct node));
	for (size_t i = 0; i < nm->count; i++) {
		struct node *n = &nm->nodes[i];
		const struct conf_node *cn = &conf->nodes[i];
		n->cfg = cn;
		n->cpus = cn->cpus;
		n->mem = cn->real_memory;
		n->boards = cn->boards;
		n->sockets = cn->sockets;
		n->cores = cn->cores_per_socket;
		n->threads = cn->threads_per_core;
		n->flags = NODE_NO_RESPOND;
		n->core_used = xcalloc(n->cpus ? n->cpus : 1, 1);
		gres_use_setup(&nm->kinds, &n->gres_use, cn->gres, cn->name);
		if (cn->state == CONF_NODE_CLOUD) /* not expected until resumed */
			n->power = NODE_POWER_OFF;
		if (cn->state == CONF_NODE_DOWN || cn->state == CONF_NODE_DRAIN) {
			n->down = n->admin_down = cn->state == CONF_NODE_DOWN;
			if (cn->state == CONF_NODE_DRAIN)
				n->flags |= NODE_DRAIN;
			n->reason =
			    xstrdup(cn->reason ? cn->reason : "set in slurm.conf");
			n->reason_time = time(NULL);
		}
	}
	name_index_build(nm);
	nm->parts = xcalloc(conf->part_count + 1, sizeof(*nm->parts));
	nm->deleted = xcalloc(1, sizeof(*nm->deleted));
	for (size_t i = 0; i < conf->part_count; i++) {
		struct conf_part *cp = xcalloc(1, sizeof(*cp));
		if (conf_part_copy(cp, &conf->parts[i]) < 0)
			fatal("out of memory");
		node_mgr_part_put(nm, cp, NULL)->changed = 0;
	}
	*ret = nm;
	return 0;
}

void node_mgr_destroy(struct node_mgr *nm)
{
	if (!nm)
		return;
	for (size_t i = 0; i < nm->count; i++) {
		chan_unref(nm->nodes[i].link);
		free(nm->nodes[i].reason);
		free(nm->nodes[i].core_used);
		free(nm->nodes[i].os);
		free(nm->nodes[i].arch);
		free(nm->nodes[i].version);
		node_gres_release(&nm->nodes[i]);
		free(nm->nodes[i].orphans);
		free(nm->nodes[i].feat_avail);
		free(nm->nodes[i].feat_act);
		free(nm->nodes[i].mcs_label);
	}
	for (size_t i = 0; i < nm->nparts; i++)
		part_free(nm->parts[i]);
	strv_free(nm->deleted);
	free(nm->by_name);
	free(nm->parts);
	free(nm->nodes);
	free(nm);
}

uint32_t node_mgr_generation(const struct node_mgr *nm)
{
	return nm->gen;
}

const struct gres_kinds *node_mgr_gres_kinds(const struct node_mgr *nm)
{
	return &nm->kinds;
}

size_t node_mgr_count(const struct node_mgr *nm)
{
	return nm->count;
}

struct node *node_mgr_get(struct node_mgr *nm, size_t idx)
{
	return idx < nm->count ? &nm->nodes[idx] : NULL;
}

char *node_mgr_hostlist(struct node_mgr *nm, const uint32_t *idx, size_t n)
{
	char **names = xcalloc(n + 1, sizeof(*names));
	char *list;

	for (size_t k = 0; k < n; k++)
		names[k] = nm->nodes[idx[k]].cfg->name;
	list = hostlist_compress(names, n);
	free(names);
	return list;
}

int node_mgr_find(const struct node_mgr *nm, const char *name)
{
	size_t h;

	if (!name) /* e.g. a journal record without one */
		return -1;
	h = name_hash(name) & (nm->hsize - 1);
	for (; nm->by_name[h] >= 0; h = (h + 1) & (nm->hsize - 1))
		if (!strcmp(nm->nodes[nm->by_name[h]].cfg->name, name))
			return nm->by_name[h];
	return -1;
}

size_t node_mgr_part_count(const struct node_mgr *nm)
{
	return nm->nparts;
}

struct part *node_mgr_part(struct node_mgr *nm, size_t i)
{
	return i < nm->nparts ? nm->parts[i] : NULL;
}

struct part *node_mgr_part_find(struct node_mgr *nm, const char *name)
{
	if (!name) /* a journal record without one (damaged or hand-made) */
		return NULL;
	for (size_t i = 0; i < nm->nparts; i++)
		if (!strcmp(nm->parts[i]->cfg->name, name))
			return nm->parts[i];
	return NULL;
}

struct part *node_mgr_part_default(struct node_mgr *nm)
{
	for (size_t i = 0; i < nm->nparts; i++)
		if (nm->parts[i]->cfg->is_default)
			return nm->parts[i];
	return NULL;
}

int part_has_node(const struct part *p, uint32_t node_idx)
{
	return p->member[node_idx];
}

uint32_t node_state(const struct node *n)
{
	uint32_t base, flags = n->flags;
	int away = n->power == NODE_POWER_OFF || n->power == NODE_POWER_GOING_UP ||
	           n->power == NODE_POWER_GOING_DOWN;

	if (away) /* not expected to answer */
		flags &= ~NODE_NO_RESPOND;
	if (n->down)
		base = NODE_DOWN;
	else if (!n->registered && !away)
		base = NODE_UNKNOWN;
	else if (n->alloc_cpus == 0 && n->run_jobs == 0)
		base = NODE_IDLE;
	else if (n->alloc_cpus >= n->cpus)
		base = NODE_ALLOCATED;
	else
		base = NODE_MIXED;
	return base | flags | power_state_flags(n) | reboot_state_flags(n) |
	       (n->completing || n->norphans ? NODE_COMPLETING : 0);
}

int node_layout_fits(const struct node *n, const struct job_desc_ext *x)
{
	return n->sockets >= x->sockets_per_node && n->cores >= x->cores_per_socket &&
	       n->threads >= x->threads_per_core;
}

uint32_t node_cpu_threads(const struct node *n)
{
	uint64_t threads = (uint64_t)n->sockets * n->cores * n->threads;

	return n->threads > 1 && n->cpus == threads ? n->threads : 1;
}

uint64_t node_tmp_disk(const struct node *n)
{
	return n->cfg->tmp_disk ? n->cfg->tmp_disk : n->tmp_disk_found;
}

int node_usable(const struct node *n)
{
	if (n->power == NODE_POWER_GOING_DOWN || n->power == NODE_POWER_DOWN_ASKED)
		return 0;
	return power_node_allocatable(n) ||
	       (!n->down && n->registered && !n->norphans &&
	        !(n->flags & (NODE_DRAIN | NODE_FAIL | NODE_NO_RESPOND)));
}

enum part_oversub part_oversub(const struct part *p, uint32_t *ret_jobs)
{
	const char *os = p->cfg->oversubscribe ? p->cfg->oversubscribe : "NO";
	enum part_oversub mode = PART_OVERSUB_NO;
	const char *colon = strchr(os, ':');
	uint32_t jobs = 1;

	if (!strncasecmp(os, "EXCLUSIVE", 9))
		mode = PART_OVERSUB_EXCLUSIVE;
	else if (!strncasecmp(os, "YES", 3))
		mode = PART_OVERSUB_YES;
	else if (!strncasecmp(os, "FORCE", 5))
		mode = PART_OVERSUB_FORCE;
	if (mode == PART_OVERSUB_YES || mode == PART_OVERSUB_FORCE) {
		unsigned long v = colon ? strtoul(colon + 1, NULL, 10) : 4;
		jobs = v < 1 ? 4 : v >= CORE_EXCL ? CORE_EXCL - 1 : (uint32_t)v;
	}
	*ret_jobs = jobs;
	return mode;
}

uint32_t part_job_share(const struct part *p, uint32_t job_flags)
{
	uint32_t jobs;
	enum part_oversub mode = part_oversub(p, &jobs);

	if (job_flags & JOB_F_EXCLUSIVE)
		return 1;
	if (mode == PART_OVERSUB_FORCE ||
	    (mode == PART_OVERSUB_YES && (job_flags & JOB_F_OVERSUBSCRIBE)))
		return jobs;
	return 1;
}

void node_alloc(struct node *n, uint32_t cpus, uint64_t mem, uint32_t share, time_t now)
{
	n->alloc_cpus += cpus;
	if (share > 1)
		n->shared_cpus += cpus;
	n->alloc_mem += mem;
	n->run_jobs++;
	n->last_busy = now;
}

void node_release(struct node *n, uint32_t cpus, uint64_t mem, uint32_t share, time_t now)
{
	n->alloc_cpus = n->alloc_cpus > cpus ? n->alloc_cpus - cpus : 0;
	if (share > 1)
		n->shared_cpus = n->shared_cpus > cpus ? n->shared_cpus - cpus : 0;
	n->alloc_mem = n->alloc_mem > mem ? n->alloc_mem - mem : 0;
	if (n->run_jobs)
		n->run_jobs--;
	n->last_busy = now;
}

/* ids[have..count) picked as node_cores_take says, none of ids[0..have)
 * again (each core once a job). */
static void cores_take(struct node *n, uint32_t have, uint32_t count, uint32_t share,
                       int pack, uint32_t *ids)
{
	uint8_t *mine = xcalloc(n->cpus + 1, 1);
	uint32_t k = have;

	for (uint32_t i = 0; i < have; i++)
		if (ids[i] < n->cpus)
			mine[ids[i]] = 1;
	/* a sharing job joins the cores of other sharing jobs first */
	for (uint32_t c = 0; pack && share > 1 && c < n->cpus && k < count; c++)
		if (!mine[c] && n->core_used[c] && n->core_used[c] != CORE_EXCL &&
		    n->core_used[c] < share) {
			n->core_used[c]++;
			mine[c] = 1;
			ids[k++] = c;
		}
	for (uint32_t c = 0; c < n->cpus && k < count; c++)
		if (!mine[c] && !n->core_used[c]) {
			n->core_used[c] = share > 1 ? 1 : CORE_EXCL;
			mine[c] = 1;
			ids[k++] = c;
		}
	/* then (time slicing) the least shared ones */
	for (uint32_t use = 1; !pack && share > 1 && use < share && k < count; use++)
		for (uint32_t c = 0; c < n->cpus && k < count; c++)
			if (!mine[c] && n->core_used[c] == use) {
				n->core_used[c]++;
				mine[c] = 1;
				ids[k++] = c;
			}
	free(mine);
	/* more than there is (a restart with a smaller node): share from the
	 * start, without counting */
	for (uint32_t c = 0; k < count; c = (c + 1) % (n->cpus ? n->cpus : 1))
		ids[k++] = c;
}

void node_cores_take(struct node *n, uint32_t count, uint32_t share, int pack,
                     uint32_t *ids)
{
	cores_take(n, 0, count, share, pack, ids);
}

void node_cores_take_near(struct node *n, uint32_t count, uint32_t share, int pack,
                          const uint64_t *near, uint32_t *ids)
{
	uint32_t k = 0;

	for (uint32_t c = 0;
	     near && share <= 1 && c < n->cpus && c < GRES_CORES_MAX && k < count; c++)
		if (!n->core_used[c] && (near[c / 64] >> (c % 64) & 1)) {
			n->core_used[c] = CORE_EXCL;
			ids[k++] = c;
		}
	cores_take(n, k, count, share, pack, ids);
	/* in core order, as the others */
	for (uint32_t a = 1; k && a < count; a++)
		for (uint32_t b = a; b > 0 && ids[b - 1] > ids[b]; b--) {
			uint32_t t = ids[b];
			ids[b] = ids[b - 1];
			ids[b - 1] = t;
		}
}

void node_cores_claim(struct node *n, uint32_t count, uint32_t share, int pack,
                      const uint32_t *want, uint32_t *ids)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < count; i++) {
		uint32_t c = want[i];
		if (c >= n->cpus)
			continue;
		if (!n->core_used[c])
			n->core_used[c] = share > 1 ? 1 : CORE_EXCL;
		else if (share > 1 && n->core_used[c] != CORE_EXCL &&
		         n->core_used[c] < share)
			n->core_used[c]++;
		else
			continue;
		ids[k++] = c;
	}
	if (k < count)
		cores_take(n, k, count, share, pack, ids);
}

void node_cores_give(struct node *n, uint32_t count, const uint32_t *ids)
{
	for (uint32_t i = 0; i < count; i++) {
		uint8_t *u = ids[i] < n->cpus ? &n->core_used[ids[i]] : NULL;
		if (!u || !*u)
			continue;
		*u = *u == CORE_EXCL ? 0 : *u - 1;
	}
}

int node_send(struct node *n, uint16_t type, const void *body)
{
	if (!n->link)
		return -EPIPE;
	return chan_send(n->link, type, body);
}

/* NODE_DOWN when n is down for a reason of its own: not while it reboots
 * (scontrol reboot's DOWN ends with the reboot). */
static uint32_t node_down_flag(const struct node *n)
{
	return n->admin_down || (n->down && !(n->reboot & REBOOT_ISSUED)) ? NODE_DOWN : 0;
}

/* No reason any more: nor who gave it, nor when. */
static void clear_reason(struct node *n)
{
	free(n->reason);
	n->reason = NULL;
	n->reason_uid = 0;
	n->reason_time = 0;
}

static void set_reason(struct node *n, const char *reason, uid_t uid, time_t when)
{
	char *copy = xstrdup(reason); /* reason may be n's own */

	free(n->reason);
	n->reason = copy;
	n->reason_uid = uid;
	n->reason_time = when;
}

static int job_on_node(const struct job *job, uint32_t node_idx, int held_only)
{
	for (uint32_t k = 0; k < job->run->nnodes; k++)
		if (job->run->node_idx[k] == node_idx &&
		    (!held_only || (job->run->held && job->run->held[k])))
			return 1;
	return 0;
}

/* Node idx is DOWN: the jobs running there lose it.  Batch jobs are
 * requeued (JobRequeue=1 or --requeue, not --no-requeue), the others end
 * NODE_FAIL, those of --no-kill go on without it (ctld/nokill.h). */
static void jobs_lose_node(struct ctld *ctld, uint32_t idx)
{
	const char *name = node_mgr_get(ctld->nodes, idx)->cfg->name;

	for (struct job *j = job_first_active(ctld->jobs), *nx; j; j = nx) {
		nx = j->lnext;
		if (job_is_running(j) && job_on_node(j, idx, 0))
			job_node_failed(ctld, j, name);
	}
}

/* The jobs a registering node reported (its live steps, its jobs' cgroups)
 * that do not run there: it is told to kill them.  Those that ended and still
 * hold the node (COMPLETING) are confirmed as usual; the others keep the node
 * out of scheduling until it confirms (Slurm: "Registered job N on node X,
 * but it's not running there"). */
static void orphans_find(struct ctld *ctld, struct node *n, uint32_t node_idx,
                         const struct node_register *reg)
{
	free(n->orphans);
	n->orphans = NULL;
	n->norphans = 0;
	for (uint32_t i = 0; i < reg->job_ids.n; i++) {
		uint32_t id = reg->job_ids.v[i];
		struct job *job = job_find(ctld->jobs, id);
		struct signal_req kill = {.job_id = id,
		                          .step_id = NO_VAL,
		                          .signal = SIGKILL,
		                          .flags = SIGNAL_F_TERMINATE};
		uint32_t k;

		if (job && job_is_running(job) && job_on_node(job, node_idx, 0))
			continue;
		for (k = 0; k < n->norphans && n->orphans[k] != id; k++)
			;
		if (k < n->norphans)
			continue;
		if (job && (job->state & JOB_COMPLETING) &&
		    job_on_node(job, node_idx, 1)) {
			node_send(n, MSG_SIGNAL_REQ, &kill); /* lost while it was away */
			continue;
		}
		log_err("Registered JobId=%u on node %s, but it's not running there: "
		        "killing it",
		        id, n->cfg->name);
		node_mgr_orphan_add(n, id);
		node_send(n, MSG_SIGNAL_REQ, &kill);
	}
}

void node_mgr_orphan_add(struct node *n, uint32_t job_id)
{
	for (uint32_t k = 0; k < n->norphans; k++)
		if (n->orphans[k] == job_id)
			return;
	n->orphans = xrealloc(n->orphans, (n->norphans + 1) * sizeof(uint32_t));
	n->orphans[n->norphans++] = job_id;
}

int node_mgr_orphan_gone(struct ctld *ctld, const char *name, uint32_t job_id)
{
	int idx = name ? node_mgr_find(ctld->nodes, name) : -1;
	struct node *n = idx < 0 ? NULL : node_mgr_get(ctld->nodes, idx);

	for (uint32_t k = 0; n && k < n->norphans; k++) {
		if (n->orphans[k] != job_id)
			continue;
		n->orphans[k] = n->orphans[--n->norphans];
		log_info("node %s: JobId=%u is gone%s", name, job_id,
		         n->norphans ? "" : ", the node is free again");
		ctld->res_gen++;
		return 1;
	}
	return 0;
}

int node_mgr_orphan_held(const struct ctld *ctld, uint32_t job_id)
{
	for (size_t i = 0; i < node_mgr_count(ctld->nodes); i++) {
		const struct node *n = node_mgr_get(ctld->nodes, i);
		for (uint32_t k = 0; k < n->norphans; k++)
			if (n->orphans[k] == job_id)
				return 1;
	}
	return 0;
}

void node_mgr_register(struct ctld *ctld, struct caller *who, struct node_register *reg,
                       struct chan *ch)
{
	struct node *n = node_mgr_get(ctld->nodes, who->node_idx);
	time_t now = time(NULL);
	char gres_why[160];

	if (!n || !reg->name || strcmp(reg->name, n->cfg->name)) {
		chan_send_rc(ch, -ESLURM_INVALID_NODE_NAME, "node name does not match");
		return;
	}
	if (reg->lineage == ctld->lineage && reg->term > ctld->term) {
		/* fenced: the node has obeyed a newer controller */
		char why[128];
		snprintf(why, sizeof(why), "node %s has obeyed term %u, ours is %u",
		         n->cfg->name, reg->term, ctld->term);
		chan_send_rc(ch, -ESLURM_IN_STANDBY_MODE, NULL);
		repl_step_down(ctld, why);
		return;
	}
	if (n->link && n->link != ch) {
		/* a restarted rotad: the old connection is stale */
		n->link->superseded = 1;
		chan_unref(n->link);
	}
	n->link = ch;
	chan_ref(ch);
	/* slurm.conf is authoritative; a node with less than configured is
	 * drained as Slurm does (virtual nodes report the configured values) */
	if (reg->cpus && reg->cpus < n->cfg->cpus && !(n->flags & NODE_DRAIN)) {
		n->flags |= NODE_DRAIN;
		set_reason(n, "Low socket*core*thread count", 0, now);
	}
	n->tmp_disk_found = reg->tmp_disk; /* used where TmpDisk= is not set */
	if (node_gres_register(n, reg, gres_why, sizeof(gres_why)) < 0 &&
	    !(n->flags & NODE_DRAIN)) {
		log_err("node %s: %s: draining it", n->cfg->name, gres_why);
		n->flags |= NODE_DRAIN;
		set_reason(n, gres_why, 0, now);
	}
	n->registered = 1;
	n->flags &= ~NODE_NO_RESPOND;
	ctld->res_gen++;
	/* back from scontrol reboot, or not yet (the daemon that was told) */
	reboot_node_registered(ctld, n, reg, now);
	/* ReturnToService: the only DOWN that is not the admin's is "Not
	 * responding", which 1 and 2 alike end here; with 0 it takes
	 * `scontrol update state=resume`, as one the admin set always does */
	if (n->down && !n->admin_down && !(n->reboot & REBOOT_ISSUED) &&
	    ctld->conf->return_to_service) {
		n->down = 0;
		clear_reason(n);
	}
	n->boot_time = reg->boot_time;
	n->slurmd_start_time = reg->start_time;
	n->last_seen = now;
	free(n->os);
	n->os = reg->os;
	reg->os = NULL;
	free(n->arch);
	n->arch = reg->arch;
	reg->arch = NULL;
	free(n->version);
	n->version = reg->version;
	reg->version = NULL;
	log_info("node %s registered", n->cfg->name);
	chan_send(ch, MSG_NODE_ACK,
	          &(struct node_ack){.term = ctld->term, .lineage = ctld->lineage});
	step_mgr_reconcile(ctld, who->node_idx, reg);
	orphans_find(ctld, n, who->node_idx, reg);
	power_node_registered(ctld, n); /* after the ack: it may launch jobs */
	ctld_sched_kick(ctld);
}

void node_mgr_ping(struct ctld *ctld, struct caller *who, const struct node_ping *p,
                   struct chan *ch)
{
	struct node *n = node_mgr_get(ctld->nodes, who->node_idx);
	if (!n)
		return;
	n->last_seen = time(NULL);
	n->free_mem = p->free_memory;
	n->cpu_load = p->cpu_load;
	/* heard: the node leaves a controller that stops answering */
	chan_send(ch, MSG_NODE_ACK,
	          &(struct node_ack){.term = ctld->term, .lineage = ctld->lineage});
}

void node_mgr_link_lost(struct ctld *ctld, const struct caller *who, struct chan *ch)
{
	struct node *n = node_mgr_get(ctld->nodes, who->node_idx);

	if (!n || n->link != ch)
		return;
	log_warn("node %s: connection lost", n->cfg->name);
	n->link = NULL;
	n->flags |= NODE_NO_RESPOND;
	ctld->res_gen++;
	chan_unref(ch);
}

void node_mgr_drain(struct ctld *ctld, const char *name, const char *reason)
{
	struct ev_node_state ev = {.time = time(NULL),
	                           .node_name = (char *)name,
	                           .state = NODE_DRAIN,
	                           .uid = 0,
	                           .text = (char *)reason};
	int idx = name ? node_mgr_find(ctld->nodes, name) : -1;
	struct node *n = idx < 0 ? NULL : node_mgr_get(ctld->nodes, idx);

	if (!n)
		return;
	ev.state |= node_down_flag(n);
	if (n->power == NODE_POWER_OFF)
		ev.state |= NODE_POWERED_DOWN;
	ev.reboot = n->reboot;
	ev.reboot_time = n->reboot_time;
	log_err("node %s drained: %s", name, reason);
	ev_node_state_commit(ctld, &ev);
}

/* A connected node not heard from for conf_node_silence_s: its link went
 * down, or it is partitioned from us, with no connection lost (TCP keeps a
 * silent connection for many minutes).  Not responding, as a lost connection
 * is; its daemon registers again when it reaches us. */
static void node_silent(struct ctld *ctld, struct node *n, time_t now)
{
	struct chan *ch = n->link;

	log_warn("node %s: not responding (nothing heard for %lds): closing its "
	         "connection",
	         n->cfg->name, (long)(now - n->last_seen));
	n->link = NULL;
	n->flags |= NODE_NO_RESPOND;
	ctld->res_gen++;
	listener_drop_node(ctld->listener, ch);
	chan_unref(ch);
}

void node_mgr_tick(struct ctld *ctld, time_t now)
{
	struct node_mgr *nm = ctld->nodes;
	time_t silence = (time_t)conf_node_silence_s(ctld->conf);

	for (size_t i = 0; i < nm->count; i++) {
		struct node *n = &nm->nodes[i];
		if (n->link && n->registered && !(n->flags & NODE_NO_RESPOND) &&
		    now - n->last_seen >= silence)
			node_silent(ctld, n, now);
		if (n->down || !n->registered || !(n->flags & NODE_NO_RESPOND) ||
		    n->power == NODE_POWER_GOING_UP)
			continue;
		/* SlurmdTimeout=0: never DOWN for not responding, as in Slurm */
		if (!ctld->conf->slurmd_timeout ||
		    now - n->last_seen < (time_t)ctld->conf->slurmd_timeout)
			continue;
		log_err("node %s not responding, setting DOWN", n->cfg->name);
		n->down = 1;
		ctld->res_gen++;
		set_reason(n, "Not responding", 0, now);
		jobs_lose_node(ctld, (uint32_t)i);
	}
	power_tick(ctld, now);
	reboot_tick(ctld, now);
}

static char *node_partitions(struct node_mgr *nm, uint32_t idx)
{
	char *s = NULL;
	for (size_t i = 0; i < nm->nparts; i++) {
		if (!part_has_node(nm->parts[i], idx))
			continue;
		char *t = xasprintf("%s%s%s", s ? s : "", s ? "," : "",
		                    nm->parts[i]->cfg->name);
		free(s);
		s = t;
	}
	return s;
}

void node_mgr_info(struct ctld *ctld, struct caller *who, struct chan *ch)
{
	struct node_mgr *nm = ctld->nodes;
	struct node_info_resp r = {.now = time(NULL)};

	r.nodes = xcalloc(nm->count ? nm->count : 1, sizeof(struct node_info));
	r.nodes_count = 0; /* those PrivateData lets who see */
	for (size_t i = 0; i < nm->count; i++) {
		struct node *n = &nm->nodes[i];
		struct node_info *o;
		if (mcs_node_hidden(ctld, who, n))
			continue;
		o = &r.nodes[r.nodes_count++];
		o->name = xstrdup(n->cfg->name);
		o->hostname = xstrdup(n->cfg->hostname);
		o->addr = xstrdup(n->cfg->addr);
		o->port = n->cfg->port;
		o->state = node_state(n) | resv_node_flags(ctld, i, (time_t)r.now);
		o->cpus = n->cpus;
		o->alloc_cpus = n->alloc_cpus < n->cpus ? n->alloc_cpus : n->cpus;
		o->boards = n->boards;
		o->sockets = n->sockets;
		o->cores = n->cores;
		o->threads = n->threads;
		o->real_memory = n->mem;
		o->alloc_memory = n->alloc_mem;
		o->free_memory = n->free_mem;
		o->tmp_disk = node_tmp_disk(n);
		o->weight = n->cfg->weight;
		o->features = xstrdup(node_feat_avail(n));
		o->features_act = xstrdup(node_feat_active(n));
		o->mcs_label = xstrdup(n->mcs_label);
		o->gres = xstrdup(n->cfg->gres);
		o->partitions = node_partitions(nm, i);
		o->reason = xstrdup(n->reason);
		o->reason_time = n->reason_time;
		o->reason_uid = n->reason_uid;
		o->boot_time = n->boot_time;
		o->slurmd_start_time = n->slurmd_start_time;
		o->last_busy = n->last_busy;
		o->cpu_load = n->cpu_load;
		o->os = xstrdup(n->os);
		o->arch = xstrdup(n->arch);
		o->version = xstrdup(n->version);
		o->gres_used = node_gres_used(&nm->kinds, n);
		o->next_state = xstrdup(reboot_next_state(n));
	}
	chan_send(ch, MSG_NODE_INFO_RESP, &r);
	codec_release(&node_info_resp_type, &r);
}

void node_mgr_part_fill(struct ctld *ctld, const struct part *p, struct part_info *o)
{
	struct node_mgr *nm = ctld->nodes;
	const struct conf_part *cp = p->cfg;

	o->name = xstrdup(cp->name);
	o->nodes = node_mgr_hostlist(nm, p->node_idx, p->nnodes);
	o->is_default = cp->is_default;
	o->state = cp->state;
	o->max_time = cp->max_time;
	o->default_time = cp->default_time;
	o->max_nodes = cp->max_nodes;
	o->min_nodes = cp->min_nodes;
	o->total_nodes = p->nnodes;
	o->total_cpus = p->total_cpus;
	o->priority_tier = cp->priority_tier;
	o->priority_job_factor = cp->priority_job_factor;
	o->oversubscribe = xstrdup(cp->oversubscribe ? cp->oversubscribe : "NO");
	o->allow_groups = xstrdup(cp->allow_groups ? cp->allow_groups : "ALL");
	o->preempt_mode = xstrdup(preempt_mode_name(ctld, cp));
	o->grace_time = cp->grace_time;
	o->allow_accounts = xstrdup(cp->allow_accounts);
	o->deny_accounts = xstrdup(cp->deny_accounts);
	o->allow_qos = xstrdup(cp->allow_qos);
	o->deny_qos = xstrdup(cp->deny_qos);
	o->qos = xstrdup(cp->qos);
	o->alternate = xstrdup(cp->alternate);
	o->alloc_nodes = xstrdup(cp->alloc_nodes);
	o->flags = (cp->hidden ? PART_INFO_F_HIDDEN : 0) |
	           (cp->root_only ? PART_INFO_F_ROOT_ONLY : 0) |
	           (cp->req_resv ? PART_INFO_F_REQ_RESV : 0) |
	           (cp->exclusive_user ? PART_INFO_F_EXCLUSIVE_USER : 0) |
	           (cp->lln ? PART_INFO_F_LLN : 0) |
	           (cp->disable_root_jobs ? PART_INFO_F_DISABLE_ROOT_JOBS : 0);
	o->max_cpus_per_node = cp->max_cpus_per_node;
	o->over_time_limit = cp->over_time_limit;
	o->def_mem_per_cpu = cp->def_mem_per_cpu;
	o->def_mem_per_node = cp->def_mem_per_node;
	o->max_mem_per_cpu = cp->max_mem_per_cpu;
	o->max_mem_per_node = cp->max_mem_per_node;
	o->tres_billing_weights = xstrdup(cp->tres_billing_weights);
}

void node_mgr_part_info(struct ctld *ctld, struct caller *who, struct chan *ch)
{
	struct node_mgr *nm = ctld->nodes;
	struct part_info_resp r = {.now = time(NULL)};

	r.parts = xcalloc(nm->nparts ? nm->nparts : 1, sizeof(struct part_info));
	r.parts_count = nm->nparts;
	for (size_t i = 0; i < nm->nparts; i++)
		node_mgr_part_fill(ctld, nm->parts[i], &r.parts[i]);
	chan_send(ch, MSG_PART_INFO_RESP, &r);
	codec_release(&part_info_resp_type, &r);
}

int node_mgr_apply_state(struct ctld *ctld, const struct ev_node_state *ev)
{
	int idx = node_mgr_find(ctld->nodes, ev->node_name);
	struct node *n = node_mgr_get(ctld->nodes, idx < 0 ? 0 : idx);
	uint32_t flags = ev->state;
	time_t when = (time_t)ev->time;

	ctld->res_gen++;
	if (idx < 0)
		return -ENOENT;
	n->flags =
	    (n->flags & ~(NODE_DRAIN | NODE_FAIL)) | (flags & (NODE_DRAIN | NODE_FAIL));
	n->down = n->admin_down = !!(flags & NODE_DOWN);
	n->reboot = ev->reboot;
	n->reboot_time = (time_t)ev->reboot_time;
	if (n->reboot & REBOOT_ISSUED) /* DOWN until it is back, as Slurm shows it */
		n->down = 1;
	if (flags & NODE_POWERED_DOWN) {
		n->power = NODE_POWER_OFF;
		n->registered = 0;
	} else if (flags & NODE_POWERING_UP) {
		/* booting since then: its ResumeProgram ran (power_restore) */
		n->power = NODE_POWER_GOING_UP;
		n->power_since = when > 0 ? when : 1;
		n->registered = 0;
	} else if (n->power == NODE_POWER_OFF || n->power == NODE_POWER_GOING_UP) {
		n->power = NODE_POWER_ON;
	}
	if ((flags & (NODE_DRAIN | NODE_DOWN | NODE_FAIL)) || n->reboot)
		set_reason(n, ev->text ? ev->text : "", ev->uid, when);
	else
		clear_reason(n);
	return 0;
}

void node_mgr_state_event(const struct node *n, struct ev_node_state *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = EV_NODE_STATE;
	ev->node_name = xstrdup(n->cfg->name);
	ev->state = (n->flags & (NODE_DRAIN | NODE_FAIL)) |
	            (n->admin_down ? NODE_DOWN : 0) |
	            (n->power == NODE_POWER_OFF || n->power == NODE_POWER_GOING_DOWN
	                 ? NODE_POWERED_DOWN
	             : n->power == NODE_POWER_GOING_UP ? NODE_POWERING_UP
	                                               : 0);
	ev->text = xstrdup(n->reason);
	ev->uid = n->reason_uid;
	ev->time = n->power == NODE_POWER_GOING_UP ? n->power_since : n->reason_time;
	ev->reboot = n->reboot;
	ev->reboot_time = n->reboot_time;
}

/* scontrol update NodeName=LIST State=DRAIN|DOWN|FAIL|RESUME|IDLE|UNDRAIN
 * Reason=... */
void node_mgr_update(struct ctld *ctld, struct caller *who,
                     const struct node_update_req *r, struct chan *ch)
{
	struct rota_error err = {""};
	char **names = NULL;
	size_t count = 0;
	uint32_t flags;
	const char *st = r->state;

	if (!r->nodes || hostlist_expand(r->nodes, &names, &count, &err) < 0) {
		chan_send_rc(ch, -ESLURM_INVALID_NODE_NAME, NULL);
		return;
	}
	for (size_t i = 0; i < count; i++)
		if (node_mgr_find(ctld->nodes, names[i]) < 0) {
			chan_send_rc(ch, -ESLURM_INVALID_NODE_NAME, NULL);
			goto out;
		}
	/* AvailableFeatures=, ActiveFeatures= (ctld/node_feat.h): all the
	 * nodes checked, then set */
	for (size_t i = 0; r->feat_set && i < count; i++) {
		int e = node_feat_check(
		    node_mgr_get(ctld->nodes, node_mgr_find(ctld->nodes, names[i])), r);
		if (e) {
			chan_send_rc(ch, e, NULL);
			goto out;
		}
	}
	for (size_t i = 0; r->feat_set && i < count; i++)
		if (node_feat_update(
		        ctld,
		        node_mgr_get(ctld->nodes, node_mgr_find(ctld->nodes, names[i])),
		        r) < 0) {
			chan_send_rc(ch, SLURM_ERROR,
			             "internal error recording the change");
			goto out;
		}
	if (r->feat_set)
		ctld_sched_kick(ctld);
	if (!st) {
		chan_send_rc(ch, 0, NULL);
		goto out;
	}
	if (!strncasecmp(st, "POWER_DOWN", 10) || !strcasecmp(st, "POWER_UP")) {
		for (size_t i = 0; i < count; i++) {
			struct node *n = node_mgr_get(
			    ctld->nodes, node_mgr_find(ctld->nodes, names[i]));
			int up = !strcasecmp(st, "POWER_UP");
			/* powering down takes back a reboot to come, as Slurm's */
			if (!up && (n->reboot & REBOOT_REQUESTED))
				reboot_cancel(ctld, n);
			power_request(ctld, n, up);
		}
		chan_send_rc(ch, 0, NULL);
		ctld_sched_kick(ctld);
		goto out;
	}
	if (!strcasecmp(st, "CANCEL_REBOOT")) {
		int rc = 0;
		for (size_t i = 0; i < count; i++) {
			struct node *n = node_mgr_get(
			    ctld->nodes, node_mgr_find(ctld->nodes, names[i]));
			int e = reboot_cancel(ctld, n);
			if (e < 0)
				rc = e; /* the others are cancelled all the same */
		}
		chan_send_rc(ch, rc, NULL);
		ctld_sched_kick(ctld);
		goto out;
	}
	if (!strcasecmp(st, "DRAIN"))
		flags = NODE_DRAIN;
	else if (!strcasecmp(st, "DOWN"))
		flags = NODE_DOWN;
	else if (!strcasecmp(st, "FAIL"))
		flags = NODE_FAIL;
	else if (!strcasecmp(st, "RESUME") || !strcasecmp(st, "IDLE") ||
	         !strcasecmp(st, "UNDRAIN"))
		flags = 0;
	else {
		chan_send_rc(ch, -ESLURM_INVALID_NODE_STATE, NULL);
		goto out;
	}
	if (flags && (!r->reason || !r->reason[0])) {
		chan_send_rc(ch, -ESLURM_INVALID_NODE_STATE,
		             "You must specify a reason when DOWNING or DRAINING a node. "
		             "Request denied");
		goto out;
	}
	for (size_t i = 0; i < count; i++) {
		struct ev_node_state ev = {.time = time(NULL),
		                           .node_name = names[i],
		                           .state = flags,
		                           .uid = who->uid,
		                           .text = r->reason};
		struct node *n =
		    node_mgr_get(ctld->nodes, node_mgr_find(ctld->nodes, names[i]));
		char *kept = NULL;
		if (!strcasecmp(st, "UNDRAIN"))
			ev.state = node_down_flag(n) | (n->flags & NODE_FAIL);
		else if (flags == NODE_FAIL || flags == NODE_DRAIN)
			ev.state |= n->admin_down ? NODE_DOWN : 0; /* one replaces
			                                            * the other */
		if (n->power == NODE_POWER_OFF)
			ev.state |= NODE_POWERED_DOWN;
		/* a reboot to come stays, but for RESUME (and IDLE), which
		 * ends it as Slurm's does */
		if (flags || !strcasecmp(st, "UNDRAIN")) {
			ev.reboot = n->reboot;
			ev.reboot_time = n->reboot_time;
		}
		if (ev.reboot && !ev.text)
			ev.text = kept = xstrdup(n->reason);
		if (ev_node_state_commit(ctld, &ev) == 0 && flags == NODE_DOWN)
			jobs_lose_node(ctld,
			               (uint32_t)node_mgr_find(ctld->nodes, names[i]));
		free(kept);
	}
	chan_send_rc(ch, 0, NULL);
	ctld_sched_kick(ctld);
out:
	hostlist_free(names);
}
