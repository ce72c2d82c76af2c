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
#include "proto/messages.h"

/* Fill reg->gres ("gpu:h100:8,nic:2", "" for none) and reg->gres_devs (one
 * per device file found), both owned by reg until gres_found_release.
 * Returns 0, or a negative error with err "gres.conf:3: why" (a bad
 * gres.conf, NVML asked for and not working); reg is then unchanged. */
int gres_found_detect(const char *conf_path, const struct conf_node *cn,
                      struct node_register *reg, struct rota_error *err);

/* Free what gres_found_detect put into reg and clear those fields. */
void gres_found_release(struct node_register *reg);

#endif
