/* hwinfo.h - this machine's hardware as slurmd reports it (rotad -C), and the
 * load figures rotad sends with its pings.  Reads /proc and sysconf. */
#ifndef ROTA_NODED_HWINFO_H
#define ROTA_NODED_HWINFO_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

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
time_t hwinfo_boot_time(void);     /* 0 if unknown */

#endif
