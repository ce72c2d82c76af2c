/* topo_info.c - `scontrol show topology`: the switches (Slurm 22.05's
 * lines) or the blocks (Slurm 23.11's), one line each. */
#include <stdio.h>
#include <stdlib.h>
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/topo.h"
#include "common/common.h"
#include "common/hostlist.h"
#include "common/topo_conf.h"
#include "proto/messages.h"

/* Names of the nodes under switch s, appended to names[*n]. */
static void nodes_under(const struct topo_conf *tc, size_t s, char **names, size_t *n)
{
	const struct topo_switch *sw = &tc->sw[s];

	for (size_t k = 0; k < sw->nnodes; k++)
		names[(*n)++] = sw->nodes[k];
	for (size_t c = 0; c < sw->nchildren; c++)
		nodes_under(tc, sw->children[c], names, n);
}

static char *switch_line(const struct topo_conf *tc, size_t s, char **scratch)
{
	const struct topo_switch *sw = &tc->sw[s];
	size_t n = 0;
	char *nodes, *line, *kids = NULL;

	nodes_under(tc, s, scratch, &n);
	nodes = hostlist_compress(scratch, n);
	if (tc->kind == TOPO_BLOCK) {
		line = xasprintf("BlockName=%s BlockIndex=%zu Nodes=%s BlockSize=%zu",
		                 sw->name, s, nodes ? nodes : "", sw->nnodes);
	} else {
		if (sw->nchildren) {
			char **cn = xcalloc(sw->nchildren, sizeof(*cn));
			for (size_t c = 0; c < sw->nchildren; c++)
				cn[c] = tc->sw[sw->children[c]].name;
			kids = hostlist_compress(cn, sw->nchildren);
			free(cn);
		}
		line = xasprintf("SwitchName=%s Level=%u LinkSpeed=%u Nodes=%s%s%s",
		                 sw->name, sw->level, sw->link_speed, nodes ? nodes : "",
		                 kids ? " Switches=" : "", kids ? kids : "");
	}
	free(nodes);
	free(kids);
	return line;
}

void topo_info(struct ctld *ctld, struct chan *ch)
{
	const struct topo_conf *tc = ctld_topo_conf(ctld->topo);
	struct config_resp r = {0};
	size_t total = 0;
	char **scratch;

	for (size_t s = 0; tc && s < tc->nsw; s++)
		total += tc->sw[s].nnodes;
	scratch = xcalloc(total + 1, sizeof(*scratch));
	r.items = xcalloc(tc ? tc->nsw + 1 : 1, sizeof(*r.items));
	for (size_t s = 0; tc && s < tc->nsw; s++) {
		r.items[s].key = tc->sw[s].name;
		r.items[s].value = switch_line(tc, s, scratch);
	}
	r.items_count = tc ? (uint32_t)tc->nsw : 0;
	chan_send(ch, MSG_TOPO_INFO_RESP, &r);
	for (uint32_t i = 0; i < r.items_count; i++)
		free(r.items[i].value);
	free(r.items);
	free(scratch);
}
