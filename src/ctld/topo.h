/* topo.h - the controller's copy of topology.conf, and the view of it the
 * scheduling passes take (sched/topo.h).
 *
 * Read at start and at reconfigure (TopologyPlugin=topology/tree or
 * topology/block in slurm.conf); a bad file stops the start and refuses the
 * reconfigure, with "file:line: why".
 */
#ifndef ROTA_CTLD_TOPO_H
#define ROTA_CTLD_TOPO_H

#include "common/error.h"

struct conf;
struct node_mgr;
struct ctld_topo;
struct topo_conf;
struct sched_topo;

/* Load conf's topology over nm's nodes.  *ret is NULL when none is
 * configured.  Warns (log) about names that are no node, and nodes in no
 * leaf.  0, or a negative error with err. */
int ctld_topo_load(const struct conf *conf, struct node_mgr *nm, struct ctld_topo **ret,
                   struct rota_error *err);
void ctld_topo_destroy(struct ctld_topo *ct); /* NULL allowed */

/* Borrowed; NULL when ct is NULL. */
const struct sched_topo *ctld_topo_view(const struct ctld_topo *ct);
const struct topo_conf *ctld_topo_conf(const struct ctld_topo *ct);

/* Answer MSG_TOPO_INFO_REQ: one line per switch (or block), as scontrol
 * show topology prints it (topo_info.c). */
struct ctld;
struct chan;
void topo_info(struct ctld *ctld, struct chan *ch);

#endif
