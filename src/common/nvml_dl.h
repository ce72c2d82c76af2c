/* nvml_dl.h - NVIDIA GPUs found through NVML (gres.conf AutoDetect=nvml).
 *
 * libnvidia-ml.so.1 is loaded with dlopen when asked (no build dependency,
 * as proto/munge_dl.h does for libmunge) and closed again; $ROTA_NVML_LIB
 * names another library (the tests' fake).  Each GPU becomes a device of
 * GRES "gpu": file /dev/nvidiaN (N its minor number), the CPUs of its
 * affinity as its cores, and its NVLinks to the other GPUs as Links
 * ("-1" for itself, else the count of links to that GPU, in index order).
 * Its type is Slurm's: the device name lower-cased with spaces as '_'
 * ("NVIDIA H100 80GB HBM3" gives "nvidia_h100_80gb_hbm3"), replaced by a
 * type the node's slurm.conf Gres= gives for gpu that is a part of it ("h100"),
 * else none, as Slurm does with autodetected types no configured one matches.
 *
 * Limits: GRES_DEVS_MAX GPUs (common/gres_inv.h), names of 95 bytes, CPU ids
 * below GRES_CORES_MAX.  Not thread-safe (dlopen, NVML's own state).
 */
#ifndef ROTA_NVML_DL_H
#define ROTA_NVML_DL_H

#include "common/error.h"
#include "common/gres_inv.h"

#define NVML_SONAME "libnvidia-ml.so.1"

/* The type Slurm gives a GPU named name (see above) into type[GRES_NAME_MAX];
 * node_gres (a node's Gres=, NULL: none) may name the configured types. */
void nvml_type_name(const char *name, const char *node_gres, char *type);

/* Add every GPU NVML sees to inv.  Returns the number added, or -ENOENT (no
 * library), -EIO (NVML failed) or -E2BIG with err saying why. */
int nvml_detect(struct gres_inv *inv, const char *node_gres, struct rota_error *err);

#endif
