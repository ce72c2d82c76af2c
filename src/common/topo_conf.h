/* topo_conf.h - topology.conf: the network's switches (topology/tree) or
 * blocks (topology/block), as slurm.conf's TopologyPlugin chooses.
 *
 * topology.conf sits beside slurm.conf.  Each line is Key=Value pairs (keys
 * case-insensitive, '#' starts a comment):
 *   tree:  SwitchName=s1 Nodes=node[01-04] [LinkSpeed=N]   (a leaf switch)
 *          SwitchName=top Switches=s[1-2] [LinkSpeed=N]    (above switches)
 *   block: BlockName=b1 Nodes=node[01-04]
 *          BlockSizes=4,8,16   (alone on its line: the base block size, then
 *                               the sizes of aggregated blocks, in nodes)
 * A leaf switch's level is 0, a switch above switches is one more than the
 * highest below it.  Refused: a switch with both Nodes= and Switches=, or
 * neither; a name given twice; Switches= naming an unknown switch, a switch
 * with two parents, or a loop; a node in two leaf switches or blocks;
 * BlockSizes not ascending multiples of the first.  Nodes named in no switch
 * are allowed (Slurm then keeps them out of multi-node jobs); names slurm.conf
 * does not define are the caller's to warn about.  Without BlockSizes=, the
 * base size is the smallest block's and the aggregates are its doublings.
 *
 * Limits: TOPO_CONF_LINE_MAX bytes a line, TOPO_CONF_FILE_MAX bytes,
 * TOPO_SWITCHES_MAX switches or blocks, HOSTLIST_MAX names a list,
 * TOPO_NODES_MAX node names in all, TOPO_SIZES_MAX BlockSizes values.
 * Errors are "file:line: why".  Pure but for reading the file.
 */
#ifndef ROTA_TOPO_CONF_H
#define ROTA_TOPO_CONF_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

#define TOPO_CONF_LINE_MAX 65536
#define TOPO_CONF_FILE_MAX (16 * 1024 * 1024)
#define TOPO_SWITCHES_MAX  65536
#define TOPO_NODES_MAX     (1024 * 1024)
#define TOPO_SIZES_MAX     16

enum topo_kind {
	TOPO_NONE,  /* topology/default, topology/flat, or not set */
	TOPO_TREE,  /* topology/tree */
	TOPO_BLOCK, /* topology/block */
};

/* A switch (tree) or a block.  Read-only once loaded. */
struct topo_switch {
	char *name;
	uint32_t level;      /* 0: a leaf (has nodes) */
	uint32_t link_speed; /* LinkSpeed=, 1 when not given */
	int32_t parent;      /* index of the switch above, -1: none */
	char **nodes;        /* leaf: its node names (hostlist_free), else NULL */
	size_t nnodes;
	uint32_t *children; /* switches below (indexes), NULL on a leaf */
	size_t nchildren;
};

/* The parsed file.  Read-only once loaded. */
struct topo_conf {
	enum topo_kind kind;
	struct topo_switch *sw; /* [nsw] in file order */
	size_t nsw;
	uint32_t sizes[TOPO_SIZES_MAX]; /* block: base size, then aggregates */
	size_t nsizes;                  /* block: >= 1 */
};

/* TopologyPlugin= value (NULL: not set) to a kind; -EINVAL for a plugin
 * Rota does not know (err says which). */
int topo_kind_parse(const char *plugin, enum topo_kind *ret, struct rota_error *err);

/* Parse path for kind (TOPO_NONE: *ret = NULL, nothing read).  A missing
 * file is an error for tree and block.  0 and *ret (caller destroys), or a
 * negative error with err "file:line: why". */
int topo_conf_load(const char *path, enum topo_kind kind, struct topo_conf **ret,
                   struct rota_error *err);

/* The same from text; name stands for the file in messages. */
int topo_conf_load_string(const char *text, const char *name, enum topo_kind kind,
                          struct topo_conf **ret, struct rota_error *err);

void topo_conf_destroy(struct topo_conf *tc); /* NULL allowed */

/* "DIR/topology.conf" for slurm.conf at "DIR/slurm.conf".  Caller frees. */
char *topo_conf_path(const char *slurm_conf_path);

/* Every key the parser accepts, its own table (the man page is generated from
 * it, common/conf_doc.h).  Borrowed, static; *ret_n is their number. */
const char *const *topo_conf_keys(size_t *ret_n);
/* Index of the switch or block called name, or -1. */
int topo_conf_find(const struct topo_conf *tc, const char *name);

#endif
