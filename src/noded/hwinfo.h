/* hwinfo.h - this machine's hardware as slurmd reports it (rotad -C), and the
 * load figures rotad sends with its pings.  Reads /proc and sysconf. */
#ifndef ROTA_NODED_HWINFO_H
#define ROTA_NODED_HWINFO_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* The Slurm version rotad reports (clients compare it with their own). */
#define ROTA_NODED_VERSION "22.05.11"

struct hwinfo {
	char host[256]; /* short host name */
	uint32_t cpus, boards, sockets, cores,
	    threads;          /* cores per socket, threads per core */
	uint64_t real_memory; /* MB */
	long uptime;          /* seconds */
};

/* Fill hw; never fails (falls back to one socket of cpus single-thread cores). */
void hwinfo_detect(struct hwinfo *hw);
/* Print as `slurmd -C` does: "NodeName=... CPUs=...\nUpTime=D-HH:MM:SS\n". */
void hwinfo_print(const struct hwinfo *hw, FILE *out);

uint64_t hwinfo_free_memory(void); /* MB available, 0 if unknown */
uint32_t hwinfo_cpu_load(void);    /* 1-minute load average * 100 */
/* The size of the file system holding dir, in MB (slurmd's TmpDisk); 0 if
 * it cannot be read. */
uint64_t hwinfo_fs_size(const char *dir);
time_t hwinfo_boot_time(void); /* 0 if unknown */

struct conf_node;
struct node_register;
/* The registration of node cn started at start_time: for a virtual node
 * (and so for each emulated one) its slurm.conf line wins over this
 * machine's hardware; this machine's host name, OS and architecture.  A
 * node line without TmpDisk reports the size of tmp_fs (TmpFS), as slurmd
 * does.  The strings reg points to are cn's or static: valid until the next
 * call. */
void hwinfo_register_fill(const struct conf_node *cn, const char *tmp_fs,
                          time_t start_time, struct node_register *reg);

#endif
