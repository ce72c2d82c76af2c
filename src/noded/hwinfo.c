#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "common/conf.h"
#include "proto/messages.h"
#include "noded/hwinfo.h"
#include "common/common.h"

#define HW_MAX_IDS 4096

/* Read "Key: value kB" from /proc/meminfo, in MB. */
static uint64_t meminfo_mb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	size_t kl = strlen(key);
	uint64_t mb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			mb = strtoull(line + kl + 1, NULL, 10) / 1024;
			break;
		}
	}
	fclose(f);
	return mb;
}

/* Add v to a small set; returns its new size. */
static size_t set_add(long *set, size_t n, long v)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == v)
			return n;
	if (n < HW_MAX_IDS)
		set[n++] = v;
	return n;
}

/* Count sockets and cores from /proc/cpuinfo's "physical id" / "core id". */
static void cpuinfo_topology(uint32_t *ret_sockets, uint32_t *ret_cores)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	long *sockets = xcalloc(HW_MAX_IDS, sizeof(long));
	long *cores = xcalloc(HW_MAX_IDS, sizeof(long));
	size_t ns = 0, nc = 0;
	long phys = 0;
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!strncmp(line, "physical id", 11)) {
			phys = strtol(colon + 1, NULL, 10);
			ns = set_add(sockets, ns, phys);
		} else if (!strncmp(line, "core id", 7)) {
			nc = set_add(cores, nc,
			             phys * 100000 + strtol(colon + 1, NULL, 10));
		}
	}
	if (f)
		fclose(f);
	*ret_sockets = (uint32_t)ns;
	*ret_cores = (uint32_t)nc;
	free(sockets);
	free(cores);
}

void hwinfo_detect(struct hwinfo *hw)
{
	struct sysinfo si;
	uint32_t sockets = 0, cores = 0;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	char *dot;

	memset(hw, 0, sizeof(*hw));
	gethostname(hw->host, sizeof(hw->host) - 1);
	if ((dot = strchr(hw->host, '.')))
		*dot = '\0';
	hw->cpus = n > 0 ? (uint32_t)n : 1;
	hw->boards = 1;
	cpuinfo_topology(&sockets, &cores);
	if (!sockets || !cores || cores % sockets || hw->cpus % cores) {
		sockets = 1; /* no usable topology (VMs, some arches) */
		cores = hw->cpus;
	}
	hw->sockets = sockets;
	hw->cores = cores / sockets;
	hw->threads = hw->cpus / cores;
	hw->real_memory = meminfo_mb("MemTotal");
	if (sysinfo(&si) == 0)
		hw->uptime = si.uptime;
}

void hwinfo_print(const struct hwinfo *hw, FILE *out)
{
	long up = hw->uptime;

	fprintf(out,
	        "NodeName=%s CPUs=%u Boards=%u SocketsPerBoard=%u CoresPerSocket=%u "
	        "ThreadsPerCore=%u RealMemory=%llu\n",
	        hw->host, hw->cpus, hw->boards, hw->sockets, hw->cores, hw->threads,
	        (unsigned long long)hw->real_memory);
	fprintf(out, "UpTime=%ld-%02ld:%02ld:%02ld\n", up / 86400, up % 86400 / 3600,
	        up % 3600 / 60, up % 60);
}

uint64_t hwinfo_free_memory(void)
{
	return meminfo_mb("MemAvailable");
}

uint32_t hwinfo_cpu_load(void)
{
	double load[1];

	if (getloadavg(load, 1) < 1)
		return 0;
	return (uint32_t)(load[0] * 100.0 + 0.5);
}

time_t hwinfo_boot_time(void)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	time_t t = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "btime ", 6))
			t = (time_t)strtoll(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return t;
}

uint64_t hwinfo_fs_size(const char *dir)
{
	struct statvfs st;

	if (!dir || statvfs(dir, &st) < 0)
		return 0;
	return (uint64_t)st.f_blocks * st.f_frsize / (1024 * 1024);
}

void hwinfo_register_fill(const struct conf_node *cn, const char *tmp_fs,
                          time_t start_time, struct node_register *reg)
{
	static struct utsname u;
	static char host[256], os[3 * sizeof(u.release) + 3];

	gethostname(host, sizeof(host) - 1);
	uname(&u);
	snprintf(os, sizeof(os), "%s %s %s", u.sysname, u.release, u.version);
	*reg = (struct node_register){
	    .os = os,
	    .name = cn->name,
	    .hostname = host,
	    .cpus = cn->cpus,
	    .boards = cn->boards,
	    .sockets = cn->sockets,
	    .cores = cn->cores_per_socket,
	    .threads = cn->threads_per_core,
	    .real_memory = cn->real_memory,
	    .tmp_disk =
	        cn->tmp_disk ? cn->tmp_disk : hwinfo_fs_size(tmp_fs ? tmp_fs : "/tmp"),
	    .boot_time = hwinfo_boot_time(),
	    .start_time = start_time,
	    .arch = u.machine,
	    .version = ROTA_NODED_VERSION,
	    .gres = cn->gres, /* a virtual node has what it is configured with */
	};
}
