/* node_feat.c - a node's available and active features (see node_feat.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/log.h"
#include "common/states.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/node_feat.h"
#include "ctld/node_mgr.h"
#include "proto/messages.h"
#include "common/common.h"

const char *node_feat_avail(const struct node *n)
{
	return (n->feat_set & NODE_FEAT_AVAIL) ? n->feat_avail : n->cfg->features;
}

const char *node_feat_active(const struct node *n)
{
	return (n->feat_set & NODE_FEAT_ACTIVE) ? n->feat_act : n->cfg->features;
}

/* Is the feature word (len bytes) one of the comma list `list`? */
static int in_list(const char *word, size_t len, const char *list)
{
	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l == len && !strncmp(p, word, len))
			return 1;
		p += l + (p[l] == ',');
	}
	return 0;
}

/* "" stands for no features */
static const char *none_if_empty(const char *s)
{
	return s && *s ? s : NULL;
}

int node_feat_check(const struct node *n, const struct node_update_req *r)
{
	const char *act = (r->feat_set & NODE_FEAT_ACTIVE)
	                      ? none_if_empty(r->features_act)
	                      : node_feat_active(n);
	const char *avail = (r->feat_set & NODE_FEAT_AVAIL) ? none_if_empty(r->features)
	                                                    : node_feat_avail(n);

	/* the available ones alone: the active ones become the same */
	if ((r->feat_set & NODE_FEAT_AVAIL) && !(r->feat_set & NODE_FEAT_ACTIVE))
		return 0;
	for (const char *p = act; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l && !in_list(p, l, avail))
			return -ESLURM_ACTIVE_FEATURE_NOT_SUBSET;
		p += l + (p[l] == ',');
	}
	return 0;
}

int node_feat_update(struct ctld *ctld, struct node *n, const struct node_update_req *r)
{
	/* what it has, changed by r */
	struct ev_node_features ev = {.node_name = (char *)n->cfg->name,
	                              .set = n->feat_set,
	                              .features = n->feat_avail,
	                              .features_act = n->feat_act};

	if (r->feat_set & NODE_FEAT_AVAIL) {
		ev.features = (char *)none_if_empty(r->features);
		ev.set |= NODE_FEAT_AVAIL;
		if (!(r->feat_set & NODE_FEAT_ACTIVE)) {
			ev.features_act = ev.features;
			ev.set |= NODE_FEAT_ACTIVE;
		}
	}
	if (r->feat_set & NODE_FEAT_ACTIVE) {
		ev.features_act = (char *)none_if_empty(r->features_act);
		ev.set |= NODE_FEAT_ACTIVE;
	}
	if (ev_node_features_commit(ctld, &ev) < 0)
		return -1;
	log_info("node %s: AvailableFeatures=%s ActiveFeatures=%s", n->cfg->name,
	         node_feat_avail(n) ? node_feat_avail(n) : "(null)",
	         node_feat_active(n) ? node_feat_active(n) : "(null)");
	return 0;
}

static void feat_clear(struct node *n)
{
	free(n->feat_avail);
	free(n->feat_act);
	n->feat_avail = n->feat_act = NULL;
	n->feat_set = 0;
}

int node_feat_apply(struct ctld *ctld, const struct ev_node_features *ev)
{
	int idx;
	struct node *n;
	char *avail, *act;

	ctld->res_gen++;
	if ((ev->set & NODE_FEAT_RESET) && !ev->node_name) {
		for (size_t i = 0; i < node_mgr_count(ctld->nodes); i++)
			feat_clear(node_mgr_get(ctld->nodes, i));
		return 0;
	}
	if (!ev->node_name || (idx = node_mgr_find(ctld->nodes, ev->node_name)) < 0)
		return -ENOENT;
	n = node_mgr_get(ctld->nodes, (size_t)idx);
	/* copied first: ev may borrow the node's own (node_feat_update) */
	avail = (ev->set & NODE_FEAT_AVAIL) ? xstrdup(none_if_empty(ev->features)) : NULL;
	act = (ev->set & NODE_FEAT_ACTIVE) ? xstrdup(none_if_empty(ev->features_act))
	                                   : NULL;
	feat_clear(n);
	n->feat_avail = avail;
	n->feat_act = act;
	n->feat_set = ev->set & (NODE_FEAT_AVAIL | NODE_FEAT_ACTIVE);
	return 0;
}

int node_feat_snapshot(const struct node *n, struct ev_node_features *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (!n->feat_set)
		return 0;
	ev->type = EV_NODE_FEATURES;
	ev->node_name = xstrdup(n->cfg->name);
	ev->set = n->feat_set;
	ev->features = xstrdup(n->feat_avail);
	ev->features_act = xstrdup(n->feat_act);
	return 1;
}

int node_feat_changed(struct node_mgr *nm)
{
	for (size_t i = 0; i < node_mgr_count(nm); i++)
		if (node_mgr_get(nm, i)->feat_set)
			return 1;
	return 0;
}
