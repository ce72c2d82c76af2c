/* node_feat.h - a node's features: slurm.conf's Features=, or those scontrol
 * update NodeName=... AvailableFeatures= (Features=) ActiveFeatures= set.
 *
 * The available features are those a job's --constraint may name (refused
 * at submission otherwise), the active ones those it is scheduled on.  Rota
 * has no node features plugin, so setting the available features alone sets
 * the active ones too, as Slurm does then; active features must be among
 * the available ones (ESLURM_ACTIVE_FEATURE_NOT_SUBSET).
 *
 * DESIGN: a change is EV_NODE_FEATURES, journaled (a restart keeps it, as
 * slurmctld -R does); scontrol reconfigure gives every node slurm.conf's
 * features again (a NODE_FEAT_RESET is journaled), as Slurm's reconfigure. */
#ifndef ROTA_CTLD_NODE_FEAT_H
#define ROTA_CTLD_NODE_FEAT_H

struct ctld;
struct node;
struct node_mgr;
struct node_update_req;
struct ev_node_features;

/* AvailableFeatures and ActiveFeatures of n (NULL: none). */
const char *node_feat_avail(const struct node *n);
const char *node_feat_active(const struct node *n);

/* May r's features be set on n?  0 or -ESLURM_ACTIVE_FEATURE_NOT_SUBSET. */
int node_feat_check(const struct node *n, const struct node_update_req *r);

/* r's features set on n (checked first): 0, or -1 when the journal refused. */
int node_feat_update(struct ctld *ctld, struct node *n, const struct node_update_req *r);

/* EV_NODE_FEATURES: 0, or -ENOENT for a node slurm.conf no longer has. */
int node_feat_apply(struct ctld *ctld, const struct ev_node_features *ev);

/* n's features as the EV_NODE_FEATURES that sets them (members owned by ev):
 * 1, or 0 when they are slurm.conf's. */
int node_feat_snapshot(const struct node *n, struct ev_node_features *ev);

/* Does any node of nm have features other than slurm.conf's? */
int node_feat_changed(struct node_mgr *nm);

#endif
