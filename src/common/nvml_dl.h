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

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/error.h"
#include "common/gres_inv.h"

#define NVML_SONAME "libnvidia-ml.so.1"

/* The type Slurm gives a GPU named name (see above) into type[GRES_NAME_MAX];
 * node_gres (a node's Gres=, NULL: none) may name the configured types. */
void nvml_type_name(const char *name, const char *node_gres, char *type);

/* Add every GPU NVML sees to inv.  Returns the number added, or -ENOENT (no
 * library), -EIO (NVML failed) or -E2BIG with err saying why. */
int nvml_detect(struct gres_inv *inv, const char *node_gres, struct rota_error *err);

/* ---- a step's GPUs watched while it runs (stepd/usage.c) ----
 *
 * NVML stays open from nvml_watch_create to nvml_watch_destroy; each sample
 * asks it for the GPUs' running compute processes and their utilization.
 * Memory is what the given processes (the step's) hold on the GPUs, from the
 * per-process list; where NVML has no such list for a GPU (no
 * nvmlDeviceGetComputeRunningProcesses, or "not supported") the GPU's memory
 * used in all counts, the GPU being the step's.  Utilization is the SM
 * utilization of the given processes (nvmlDeviceGetProcessUtilization, each
 * one's newest sample since the last look), summed over the processes and
 * the GPUs as Slurm sums them (two busy GPUs: 200); where NVML has no
 * process samples for a GPU, the GPU's busy percentage
 * (nvmlDeviceGetUtilizationRates .gpu).
 */
struct nvml_watch;

/* One GPU to watch: the NVML device whose minor number is minor (>= 0),
 * else (none has it, or minor < 0) the one of NVML index index. */
struct nvml_gpu_ref {
	unsigned int index;
	int minor;
};

struct nvml_use {
	uint64_t mem_bytes; /* GPU memory of the processes, summed over the GPUs */
	uint32_t util;      /* percent, summed over the GPUs */
};

/* Load NVML and find refs[0..n) (n <= GRES_DEVS_MAX).  0 and *ret (caller
 * destroys), or -ENOENT (no library), -EIO (NVML failed, a GPU not found)
 * with err saying why. */
int nvml_watch_create(const struct nvml_gpu_ref *refs, size_t n, struct nvml_watch **ret,
                      struct rota_error *err);

/* What pids[0..npids) (borrowed) use on the watched GPUs now into *ret.
 * 0, or -EIO when NVML answered nothing for any GPU. */
int nvml_watch_sample(struct nvml_watch *w, const pid_t *pids, size_t npids,
                      struct nvml_use *ret);

/* Shut NVML down and unload it.  Accepts NULL. */
void nvml_watch_destroy(struct nvml_watch *w);

#endif
