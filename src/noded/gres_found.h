/* gres_found.h - the generic resources rotad reports at registration.
 *
 * From gres.conf beside slurm.conf (common/gres_conf.h): each File= of this
 * node's lines that exists is a device, Count= lines are counted, and with
 * AutoDetect=nvml the GPUs NVML sees (common/nvml_dl.h) replace the gpu
 * File= lines; what the node's slurm.conf Gres= names and none of these
 * describes is reported as configured.  The controller drains a node that
 * reports fewer than its Gres= (ctld/node_gres.h).  Main thread, at start.
 */
#ifndef ROTA_NODED_GRES_FOUND_H
#define ROTA_NODED_GRES_FOUND_H

#include "common/conf.h"
#include "common/error.h"

/* Sets *ret ("gpu:h100:8,nic:2", "" for none; caller frees) or returns a
 * negative error with err "gres.conf:3: why" (a bad gres.conf, NVML asked
 * for and not working). */
int gres_found_detect(const char *conf_path, const struct conf_node *cn, char **ret,
                      struct rota_error *err);

#endif
