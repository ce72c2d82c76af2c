/* part_update.c - scontrol create|update|delete partition (part_update.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "common/billing.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "ctld/assoc.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/part_update.h"
#include "ctld/resv.h"
#include "ctld/sched_pass.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

#define PART_NAME_MAX     64   /* bytes of a partition's name */
#define PART_SETTINGS_MAX 128  /* settings one request may carry */
#define PART_COUNT_MAX    4096 /* partitions, as slurm.conf may have */

/* ---- reading settings ---- */

/* Each "Key=Value" of settings onto cp, in order.  Live (strict): the first
 * that does not read fails the whole (0 or -1, err).  In replay (lenient): a
 * record written by another build keeps what reads, the rest logged. */
static int settings_read(struct conf_part *cp, char *const *settings, int strict,
                         struct rota_error *err)
{
	for (size_t i = 0; settings && settings[i]; i++) {
		const char *eq = strchr(settings[i], '=');
		char key[64];
		size_t n = eq ? (size_t)(eq - settings[i]) : 0;

		if (!eq || !n || n >= sizeof(key)) {
			errprintf(err, "%.64s: not Key=Value", settings[i]);
		} else {
			memcpy(key, settings[i], n);
			key[n] = '\0';
			if (conf_part_set(cp, key, eq + 1, err) == 0)
				continue;
		}
		if (strict)
			return -1;
		log_err("partition %s: %s: left as it was", cp->name, err->text);
	}
	return 0;
}

/* A name a job's -p, a PartitionName= line and scontrol's K=V can all carry. */
static int name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n >= PART_NAME_MAX || !strcasecmp(name, "DEFAULT"))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] <= ' ' || name[i] == ',' || name[i] == '=' ||
		    name[i] == '#' || name[i] == 0x7f)
			return 0;
	return 1;
}

/* Every name of Nodes= is a node (ALL is every node).  0 or
 * -ESLURM_INVALID_NODE_NAME, as Slurm's answer to a partition's bad node. */
static int nodes_check(struct ctld *ctld, const struct conf_part *cp,
                       struct rota_error *err)
{
	char **names = NULL;
	size_t n = 0;
	int rc = 0;

	if (!cp->nodes || !strcasecmp(cp->nodes, "ALL"))
		return 0;
	if (hostlist_expand(cp->nodes, &names, &n, err) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	for (size_t i = 0; i < n && !rc; i++)
		if (node_mgr_find(ctld->nodes, names[i]) < 0) {
			errprintf(err, "node %s is not configured", names[i]);
			rc = -ESLURM_INVALID_NODE_NAME;
		}
	hostlist_free(names);
	return rc;
}

/* What slurm.conf's parser cannot know: the nodes, the partition's QOS,
 * its billing weights, a DefaultTime given (was: the one before) within the
 * limit (Slurm ignores one over it: here it is refused, as any bad value). */
static int settings_check(struct ctld *ctld, const struct conf_part *cp,
                          uint32_t was_default_time, struct rota_error *err)
{
	int rc = nodes_check(ctld, cp, err);

	if (rc)
		return rc;
	if (cp->qos && !assoc_qos_get(ctld->assoc, cp->qos)) {
		errprintf(err, "QOS %s does not exist", cp->qos);
		return -ESLURM_INVALID_QOS;
	}
	if (cp->tres_billing_weights &&
	    !billing_weights_valid(cp->tres_billing_weights)) {
		errprintf(err, "TRESBillingWeights=%s does not read",
		          cp->tres_billing_weights);
		return -ESLURM_INVALID_TRES_BILLING_WEIGHTS;
	}
	if (cp->default_time != was_default_time && cp->default_time != TIME_INFINITE &&
	    cp->max_time != TIME_INFINITE && cp->default_time > cp->max_time) {
		errprintf(err, "DefaultTime would exceed MaxTime");
		return -ESLURM_INVALID_TIME_LIMIT;
	}
	return 0;
}

/* ---- applying ---- */

/* The partition's jobs planned again; the scheduler's view rebuilt. */
static void parts_changed(struct ctld *ctld)
{
	backfill_abandon(ctld); /* it holds the partitions' node lists */
	ctld->res_gen++;
	for (struct job *j = job_first(ctld->jobs); j; j = j->next) {
		job_clear_plan(j);
		job_mgr_classify(ctld->jobs, j);
	}
}

/* Jobs that still point at p (ended ones: a live delete refuses while any
 * other is there) no longer do. */
static void jobs_let_go(struct ctld *ctld, const struct part *p)
{
	for (struct job *j = job_first(ctld->jobs); j; j = j->next)
		if (j->part == p)
			j->part = NULL;
}

/* Every partition back to slurm.conf's, in its order. */
static void parts_reset(struct ctld *ctld)
{
	struct node_mgr *nm = ctld->nodes;
	const struct conf *conf = ctld->conf;
	char **gone = strv_dup(node_mgr_parts_deleted(nm));

	for (size_t i = 0; i < node_mgr_part_count(nm);) {
		struct part *p = node_mgr_part(nm, i);
		const struct conf_part *orig = conf_part_find(conf, p->cfg->name);
		struct conf_part *cp;

		if (!p->changed) {
			i++;
			continue;
		}
		if (!orig) { /* made at run time */
			jobs_let_go(ctld, p);
			node_mgr_part_remove(nm, p->cfg->name, 0);
			continue;
		}
		cp = xcalloc(1, sizeof(*cp));
		if (conf_part_copy(cp, orig) < 0)
			fatal("out of memory");
		node_mgr_part_put(nm, cp, NULL)->changed = 0;
		i++;
	}
	for (size_t k = 0; gone[k]; k++) {
		const struct conf_part *orig = conf_part_find(conf, gone[k]);
		struct conf_part *cp = xcalloc(1, sizeof(*cp));

		if (!orig || conf_part_copy(cp, orig) < 0)
			fatal("partition %s: not in slurm.conf", gone[k]);
		node_mgr_part_put(nm, cp, NULL)->changed = 0;
	}
	strv_free(gone);
	node_mgr_parts_sort(nm, conf);
	/* slurm.conf's default again, whichever one a change made default */
	for (size_t i = 0; i < conf->part_count; i++)
		if (conf->parts[i].is_default)
			node_mgr_part_find(nm, conf->parts[i].name)->own->is_default = 1;
}

int part_apply(struct ctld *ctld, const struct ev_part *ev)
{
	struct rota_error err = {""};
	struct conf_part *cp;
	struct part *p;

	if (ev->del == PART_EV_RESET) {
		parts_reset(ctld);
		parts_changed(ctld);
		return 0;
	}
	if (!ev->name || !*ev->name)
		return -EINVAL;
	p = node_mgr_part_find(ctld->nodes, ev->name);
	if (ev->del == PART_EV_DELETE) {
		if (!p)
			return -ENOENT;
		jobs_let_go(ctld, p);
		node_mgr_part_remove(ctld->nodes, ev->name,
		                     conf_part_find(ctld->conf, ev->name) != NULL);
		parts_changed(ctld);
		return 0;
	}
	cp = xcalloc(1, sizeof(*cp));
	if (conf_part_init(cp, ev->name) < 0)
		fatal("out of memory");
	settings_read(cp, ev->settings, 0, &err);
	node_mgr_part_put(ctld->nodes, cp, NULL);
	parts_changed(ctld);
	return 0;
}

/* ---- requests ---- */

static void send_rc(struct chan *ch, int rc)
{
	chan_send_rc(ch, rc, slurm_strerror(rc < 0 ? -rc : rc));
}

/* A partition in use: a job not yet ended is in it, or a reservation
 * names it (Slurm's partition_in_use). */
static int part_in_use(struct ctld *ctld, const struct part *p)
{
	struct ev_resv r;

	for (struct job *j = job_first(ctld->jobs); j; j = j->next)
		if (j->part == p && !job_is_finished(j))
			return 1;
	for (size_t i = 0; resv_snapshot(ctld->resvs, i, &r); i++)
		if (r.partition && !strcmp(r.partition, p->cfg->name))
			return 1;
	return 0;
}

static void answer(struct ctld *ctld, struct chan *ch, const struct part *p)
{
	struct part_info info = {0};
	struct part_update_resp resp = {.parts = &info, .parts_count = p ? 1 : 0};

	if (p)
		node_mgr_part_fill(ctld, p, &info);
	chan_send(ch, MSG_PART_UPDATE_RESP, &resp);
	codec_release(&part_info_type, &info);
}

static void part_delete(struct ctld *ctld, struct caller *who, struct part *p,
                        const char *name, struct chan *ch)
{
	struct ev_part ev = {.name = (char *)name,
	                     .del = PART_EV_DELETE,
	                     .uid = who->uid,
	                     .time = time(NULL)};

	if (!p) {
		send_rc(ch, -ESLURM_INVALID_PARTITION_NAME);
		return;
	}
	if (part_in_use(ctld, p)) {
		log_info("partition %s not deleted: in use", name);
		send_rc(ch, -ESLURM_PARTITION_IN_USE);
		return;
	}
	if (p->cfg->is_default)
		log_err("deleting the default partition %s: there is none now", name);
	if (ev_part_commit(ctld, &ev) < 0) {
		chan_send_rc(ch, SLURM_ERROR, "internal error recording the partition");
		return;
	}
	log_info("partition %s deleted by uid %u", name, (unsigned)who->uid);
	answer(ctld, ch, NULL);
	ctld_sched_kick(ctld);
}

void part_update_request(struct ctld *ctld, struct caller *who,
                         const struct part_update_req *r, struct chan *ch)
{
	struct rota_error err = {""};
	struct part *p = r->name ? node_mgr_part_find(ctld->nodes, r->name) : NULL;
	struct conf_part cp;
	struct ev_part ev = {.uid = who->uid, .time = time(NULL)};
	int rc;

	if (!r->name || !*r->name || strlen(r->name) >= PART_NAME_MAX) {
		send_rc(ch, -ESLURM_INVALID_PARTITION_NAME);
		return;
	}
	if (r->op == PART_OP_DELETE) {
		part_delete(ctld, who, p, r->name, ch);
		return;
	}
	if (r->op == PART_OP_CREATE) {
		if (p || !name_ok(r->name) ||
		    node_mgr_part_count(ctld->nodes) >= PART_COUNT_MAX) {
			log_info("partition %s not created: %s", r->name,
			         p ? "it exists" : "an invalid name, or too many");
			send_rc(ch, -ESLURM_INVALID_PARTITION_NAME);
			return;
		}
		rc = conf_part_init(&cp, r->name);
	} else if (r->op == PART_OP_UPDATE) {
		if (!p) {
			send_rc(ch, -ESLURM_INVALID_PARTITION_NAME);
			return;
		}
		rc = conf_part_copy(&cp, p->cfg);
	} else {
		send_rc(ch, -ESLURM_INVALID_ARGUMENT);
		return;
	}
	if (rc < 0)
		fatal("out of memory");
	/* all read and checked on the copy before anything changes */
	if (strv_len(r->settings) > PART_SETTINGS_MAX) {
		errprintf(&err, "more than %d settings", PART_SETTINGS_MAX);
		rc = -ESLURM_INVALID_ARGUMENT;
	} else if (settings_read(&cp, r->settings, 1, &err) < 0) {
		rc = -ESLURM_INVALID_ARGUMENT;
	} else {
		rc = settings_check(ctld, &cp, p ? p->cfg->default_time : TIME_INFINITE,
		                    &err);
	}
	if (rc) {
		log_info("partition %s not %s: %s", r->name,
		         r->op == PART_OP_CREATE ? "created" : "updated", err.text);
		chan_send_rc(ch, rc,
		             rc == -ESLURM_INVALID_ARGUMENT ? err.text
		                                            : slurm_strerror(-rc));
		conf_part_release(&cp);
		return;
	}
	ev.name = cp.name;
	ev.settings = conf_part_format(&cp);
	rc = ev_part_commit(ctld, &ev);
	strv_free(ev.settings);
	conf_part_release(&cp);
	if (rc < 0) {
		chan_send_rc(ch, SLURM_ERROR, "internal error recording the partition");
		return;
	}
	log_info("partition %s %s by uid %u", r->name,
	         r->op == PART_OP_CREATE ? "created" : "updated", (unsigned)who->uid);
	answer(ctld, ch, node_mgr_part_find(ctld->nodes, r->name));
	ctld_sched_kick(ctld);
}

/* ---- snapshots ---- */

int part_snapshot(struct ctld *ctld, size_t i, struct ev_part *ev)
{
	struct node_mgr *nm = ctld->nodes;
	char *const *gone = node_mgr_parts_deleted(nm);

	memset(ev, 0, sizeof(*ev));
	ev->type = EV_PART;
	for (size_t k = 0; k < node_mgr_part_count(nm); k++) {
		const struct part *p = node_mgr_part(nm, k);
		if (!p->changed || i--)
			continue;
		ev->name = xstrdup(p->cfg->name);
		ev->settings = conf_part_format(p->cfg);
		return 1;
	}
	if (i >= strv_len(gone))
		return 0;
	ev->name = xstrdup(gone[i]);
	ev->del = PART_EV_DELETE;
	return 1;
}

/* ---- scontrol reconfigure ---- */

struct part_carry {
	int reset;     /* journal a PART_EV_RESET */
	char **states; /* KeepPartState: "NAME=STATE" to set again */
};

static int reconfig_flag(const struct conf *conf, const char *flag)
{
	return list_has(conf->reconfig_flags, flag, 1);
}

/* Does old differ from slurm.conf at all? */
static int has_changes(struct node_mgr *old)
{
	for (size_t i = 0; i < node_mgr_part_count(old); i++)
		if (node_mgr_part(old, i)->changed)
			return 1;
	return strv_len(node_mgr_parts_deleted(old)) > 0;
}

struct part_carry *part_reconfigure_begin(struct ctld *ctld, struct node_mgr *old,
                                          struct node_mgr *nm)
{
	const struct conf *nc = ctld->conf; /* the new one, while nm is made */
	struct part_carry *c;

	if (reconfig_flag(nc, "KeepPartInfo")) {
		/* nm takes old's partitions as they are: the journal's records
		 * of them stay what a restart reads */
		for (size_t i = 0; i < node_mgr_part_count(old); i++) {
			const struct part *p = node_mgr_part(old, i);
			struct conf_part *cp;
			if (!p->changed)
				continue;
			cp = xcalloc(1, sizeof(*cp));
			if (conf_part_copy(cp, p->cfg) < 0)
				fatal("out of memory");
			node_mgr_part_put(nm, cp, NULL);
		}
		for (char *const *g = node_mgr_parts_deleted(old); *g; g++)
			if (node_mgr_part_find(nm, *g))
				node_mgr_part_remove(nm, *g, 1);
		return NULL;
	}
	c = xcalloc(1, sizeof(*c));
	c->reset = has_changes(old);
	c->states = xcalloc(1, sizeof(*c->states));
	for (size_t i = 0;
	     reconfig_flag(nc, "KeepPartState") && i < node_mgr_part_count(old); i++) {
		const struct part *p = node_mgr_part(old, i);
		const struct part *n = node_mgr_part_find(nm, p->cfg->name);
		char *kv;
		if (!n || n->cfg->state == p->cfg->state)
			continue;
		kv = xasprintf("%s=%u", p->cfg->name, (unsigned)p->cfg->state);
		c->states = strv_append(c->states, kv);
		free(kv);
	}
	if (!c->reset && !c->states[0]) {
		part_carry_free(c);
		return NULL;
	}
	return c;
}

void part_carry_free(struct part_carry *c)
{
	if (!c)
		return;
	strv_free(c->states);
	free(c);
}

void part_reconfigure_end(struct ctld *ctld, struct part_carry *c)
{
	static const char *const state_words[] = {"UP", "DOWN", "DRAIN", "INACTIVE"};

	if (!c)
		return;
	if (c->reset) {
		struct ev_part ev = {.del = PART_EV_RESET, .time = time(NULL)};
		ev_part_commit(ctld, &ev);
		log_info("reconfigure: the partitions are slurm.conf's again");
	}
	for (size_t i = 0; c->states[i]; i++) {
		char *eq = strrchr(c->states[i], '=');
		unsigned st = (unsigned)strtoul(eq + 1, NULL, 10);
		struct part *p;
		struct conf_part cp;
		struct ev_part ev = {.time = time(NULL)};

		*eq = '\0';
		if (st > 3 || !(p = node_mgr_part_find(ctld->nodes, c->states[i])) ||
		    conf_part_copy(&cp, p->cfg) < 0)
			continue;
		cp.state = (enum conf_part_state)st;
		ev.name = cp.name;
		ev.settings = conf_part_format(&cp);
		ev_part_commit(ctld, &ev);
		log_info("reconfigure: partition %s kept State=%s (KeepPartState)",
		         cp.name, state_words[st]);
		strv_free(ev.settings);
		conf_part_release(&cp);
	}
	part_carry_free(c);
}
