/* gres_conf.h - gres.conf, and a node's GRES inventory from the configuration.
 *
 * gres.conf sits beside slurm.conf.  Each line is Key=Value pairs (keys
 * case-insensitive, '#' starts a comment):
 *   Name=gpu Type=h100 File=/dev/nvidia[0-7] Cores=0-31 Links=-1,2 Flags=...
 *   Name=nic Count=2              (no File=: counted only, like a license)
 *   NodeName=gpu[01-04] Name=...  (the line is for those nodes only)
 *   AutoDetect=nvml|off           (alone: every node; with NodeName=: those
 *                                  nodes; the last line that covers a node
 *                                  wins, also when it has a Name=)
 * Cores= may be written CPUs= (its old name in Slurm).
 * File= takes a list with ranges ("/dev/nvidia[0-3],/dev/nvidia7"); Count=
 * (suffix k/m/g) defaults to the number of files and must match it when both
 * are given.  A GRES a node's slurm.conf Gres= names and no gres.conf line of
 * that node describes is taken as slurm.conf says (Slurm does the same).
 *
 * Limits: GRES_CONF_LINES_MAX lines, GRES_CONF_LINE_MAX bytes a line, a file
 * of GRES_CONF_FILE_MAX bytes, GRES_DEVS_MAX files a line (common/gres_inv.h
 * gives the per-node limits), GRES_CONF_NODES_MAX names in all NodeName=.
 * Errors are "file:line: why".  Pure but for reading the file.
 */
#ifndef ROTA_GRES_CONF_H
#define ROTA_GRES_CONF_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"
#include "common/gres_inv.h"

#define GRES_CONF_LINES_MAX 4096
#define GRES_CONF_LINE_MAX  4096
#define GRES_CONF_FILE_MAX  (1024 * 1024)
#define GRES_CONF_NODES_MAX 65536 /* NodeName= names, all lines together */

enum gres_autodetect {
	GRES_AUTODETECT_UNSET,
	GRES_AUTODETECT_OFF,
	GRES_AUTODETECT_NVML,
};

struct gres_conf;

/* Parse path; a missing file is an empty configuration.  Returns 0 and sets
 * *ret (caller destroys), or a negative error with err "file:line: why". */
int gres_conf_load(const char *path, struct gres_conf **ret, struct rota_error *err);

/* The same from text; name stands for the file in messages. */
int gres_conf_load_string(const char *text, const char *name, struct gres_conf **ret,
                          struct rota_error *err);

void gres_conf_destroy(struct gres_conf *gc); /* NULL allowed */
/* The keys a gres.conf line may hold, the parser's own table (CPUs= aside, the
 * old name of Cores=): borrowed, static; *ret_n is their number.  The man
 * page is generated from it (common/conf_doc.h). */
const char *const *gres_conf_keys(size_t *ret_n);

/* "DIR/gres.conf" for slurm.conf at "DIR/slurm.conf".  Caller frees; NULL on
 * ENOMEM. */
char *gres_conf_path(const char *slurm_conf_path);

/* AutoDetect for node: that of the last line with AutoDetect= that covers
 * it, else GRES_AUTODETECT_OFF. */
enum gres_autodetect gres_conf_autodetect(const struct gres_conf *gc, const char *node);

/* How a node's inventory is built.  dev_exists (NULL: every file counts) is
 * asked for each File= of the node's lines: rotad passes a stat(), the
 * controller nothing.  detected (NULL: none) is what autodetection found
 * (NVML): its names replace the gres.conf lines of the same name. */
struct gres_node_opts {
	int (*dev_exists)(const char *file, void *arg);
	void *arg;
	const struct gres_inv *detected; /* borrowed */
};

/* Node's inventory: the gres.conf lines for node (gc may be NULL), the
 * detected devices, then what node_gres (slurm.conf Gres=, NULL: none) names
 * that neither describes.  Returns 0 and sets *ret (caller destroys with
 * gres_inv_destroy), or a negative error with err. */
int gres_conf_node_inventory(const struct gres_conf *gc, const char *node,
                             const char *node_gres, const struct gres_node_opts *o,
                             struct gres_inv **ret, struct rota_error *err);

#endif
