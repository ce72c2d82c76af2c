/* rota_gpus.h - `rota up --gpus N`: N virtual GPUs on each node of the local
 * cluster.
 *
 * The virtual nodes share this host's file systems (rotastepd gives a step
 * its own UTS namespace, and a mount namespace that only changes /etc/hosts:
 * stepd/names.c), so each node's GPUs are files of its
 * own, DIR/dev/NODE/nvidiaK, named by gres.conf's File=: character devices
 * 195:K like the real /dev/nvidiaK (no driver answers them: an open gives
 * ENXIO, while a device cgroup that denies them gives EPERM), or empty
 * files when this process may not mknod (not root).
 */
#ifndef ROTA_CLI_ROTA_GPUS_H
#define ROTA_CLI_ROTA_GPUS_H

#include <stdint.h>
#include <stdio.h>

#define ROTA_GPUS_MAX 64 /* --gpus bound */

/* Make the device files of each node of the hostlist nodes under dir/dev
 * (mode 0666: the device cgroup, not the mode, keeps jobs apart), write
 * dir/gres.conf, and dir/cgroup.conf with ConstrainDevices=yes unless one is
 * there.  Returns 0, or -1 after saying why on stderr. */
int rota_gpus_setup(const char *dir, const char *nodes, uint32_t gpus);

#endif
