#include <errno.h>
#include <stdlib.h>
#include "ctld/topo.h"
#include "ctld/node_mgr.h"
#include "common/common.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/topo_conf.h"
#include "sched/topo.h"

struct ctld_topo {
	struct topo_conf *tc;
	struct sched_topo *view;
};

static int find_node(const char *name, void *arg)
{
	return node_mgr_find(arg, name);
}

int ctld_topo_load(const struct conf *conf, struct node_mgr *nm, struct ctld_topo **ret,
                   struct rota_error *err)
{
	enum topo_kind kind;
	struct topo_conf *tc = NULL;
	struct ctld_topo *ct;
	char *path;
	size_t unknown = 0, outside = 0;
	int rc = topo_kind_parse(conf->topology_plugin, &kind, err);

	if (rc < 0)
		return rc;
	if (kind == TOPO_NONE) {
		*ret = NULL;
		return 0;
	}
	path = topo_conf_path(conf->path);
	rc = topo_conf_load(path, kind, &tc, err);
	free(path);
	if (rc < 0)
		return rc;
	ct = xcalloc(1, sizeof(*ct));
	ct->tc = tc;
	ct->view = sched_topo_create(tc, node_mgr_count(nm), find_node, nm, &unknown);
	for (size_t i = 0; i < ct->view->nnodes; i++)
		outside += ct->view->leaf[i] < 0;
	if (unknown)
		log_warn("topology.conf names %zu nodes slurm.conf does not define",
		         unknown);
	if (outside)
		log_warn("switches lack access to %zu nodes: they take single-node jobs "
		         "only",
		         outside);
	*ret = ct;
	return 0;
}

void ctld_topo_destroy(struct ctld_topo *ct)
{
	if (!ct)
		return;
	sched_topo_destroy(ct->view);
	topo_conf_destroy(ct->tc);
	free(ct);
}

const struct sched_topo *ctld_topo_view(const struct ctld_topo *ct)
{
	return ct ? ct->view : NULL;
}

const struct topo_conf *ctld_topo_conf(const struct ctld_topo *ct)
{
	return ct ? ct->tc : NULL;
}
