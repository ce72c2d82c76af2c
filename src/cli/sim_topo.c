/* sim_topo.c - `rota sim --topology FILE`: a topology.conf over the sim's
 * nodes, named n1..nN (node i is index i - 1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/sim.h"
#include "common/topo_conf.h"
#include "sched/topo.h"

static int sim_node_find(const char *name, void *arg)
{
	size_t n = *(const size_t *)arg;
	char *end;
	unsigned long i;

	if (name[0] != 'n' || name[1] < '1' || name[1] > '9')
		return -1;
	i = strtoul(name + 1, &end, 10);
	return *end || i > n ? -1 : (int)(i - 1);
}

struct sched_topo *sim_topo_load(const char *path, size_t nnodes)
{
	struct rota_error err = {{0}};
	struct topo_conf *tc = NULL;
	struct sched_topo *t;
	size_t unknown = 0;
	int rc = topo_conf_load(path, TOPO_TREE, &tc, &err);

	/* a file of BlockName= lines is a topology/block one */
	if (rc < 0 && strstr(err.text, "expected SwitchName=, found 'BlockName'"))
		rc = topo_conf_load(path, TOPO_BLOCK, &tc, &err);
	if (rc < 0) {
		fprintf(stderr, "rota sim: error: %s\n", err.text);
		return NULL;
	}
	t = sched_topo_create(tc, nnodes, sim_node_find, &nnodes, &unknown);
	topo_conf_destroy(tc);
	if (unknown)
		fprintf(stderr, "rota sim: warning: %s names %zu nodes beyond n1..n%zu\n",
		        path, unknown, nnodes);
	return t;
}
