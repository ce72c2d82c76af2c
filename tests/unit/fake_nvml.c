/* fake_nvml.c - a stand-in libnvidia-ml for test_nvml (common/nvml_dl.h):
 * four "NVIDIA H100 80GB HBM3" GPUs with minor numbers 0, 1, 2 and 5, CPUs
 * 0-7 near GPUs 0-1 and 8-15 near GPUs 2-3, and two NVLinks from each GPU to
 * each other.  $FAKE_NVML_FAIL makes nvmlInit_v2 fail.  Built as a shared
 * library by the Makefile; only the exported functions matter.
 *
 * What the GPUs run, read at each call from $FAKE_NVML_USE, or else from the
 * file $FAKE_NVML_USE_FILE names (so that a test changes it while a step
 * daemon has the library loaded): words separated by blanks or commas,
 *   utilI=P        GPU I (NVML index) is P % busy
 *   memI=B         GPU I has B bytes in use in all
 *   procI=PID:B    process PID holds B bytes on GPU I (PID "na": memory
 *                  not available)
 *   noprocs        no process list: "not supported"
 *   putilI=PID:P   process PID keeps GPU I's SMs P % busy (a sample now)
 *   noputil        no process samples: "not supported"
 * (integration tests: tests/integration/test_gpu_usage.py). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NGPU 4

struct fake_pci {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

struct nvml_device {
	unsigned int index;
};

static struct nvml_device gpus[NGPU] = {{0}, {1}, {2}, {3}};
static const unsigned int minors[NGPU] = {0, 1, 2, 5};

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, struct nvml_device **d);
int nvmlDeviceGetName(struct nvml_device *d, char *name, unsigned int len);
int nvmlDeviceGetMinorNumber(struct nvml_device *d, unsigned int *minor);
int nvmlDeviceGetCpuAffinity(struct nvml_device *d, unsigned int words,
                             unsigned long *set);
int nvmlDeviceGetPciInfo_v3(struct nvml_device *d, struct fake_pci *pci);
int nvmlDeviceGetNvLinkState(struct nvml_device *d, unsigned int link, int *active);
int nvmlDeviceGetNvLinkRemotePciInfo_v2(struct nvml_device *d, unsigned int link,
                                        struct fake_pci *pci);

struct fake_proc {
	unsigned int pid;
	unsigned long long used;
	unsigned int gpu_instance, compute_instance;
};
struct fake_util {
	unsigned int gpu, memory;
};
struct fake_mem {
	unsigned long long total, free, used;
};
int nvmlDeviceGetComputeRunningProcesses_v3(struct nvml_device *d, unsigned int *n,
                                            struct fake_proc *infos);
int nvmlDeviceGetUtilizationRates(struct nvml_device *d, struct fake_util *u);
struct fake_putil {
	unsigned int pid;
	unsigned long long time_stamp;
	unsigned int sm, mem, enc, dec;
};
int nvmlDeviceGetProcessUtilization(struct nvml_device *d, struct fake_putil *s,
                                    unsigned int *n, unsigned long long last_seen);
int nvmlDeviceGetMemoryInfo(struct nvml_device *d, struct fake_mem *m);

int nvmlInit_v2(void)
{
	return getenv("FAKE_NVML_FAIL") ? 999 : 0;
}

int nvmlShutdown(void)
{
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
	*n = NGPU;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, struct nvml_device **d)
{
	if (i >= NGPU)
		return 2;
	*d = &gpus[i];
	return 0;
}

int nvmlDeviceGetName(struct nvml_device *d, char *name, unsigned int len)
{
	snprintf(name, len, "NVIDIA H100 80GB HBM3");
	return 0;
}

int nvmlDeviceGetMinorNumber(struct nvml_device *d, unsigned int *minor)
{
	*minor = minors[d->index];
	return 0;
}

int nvmlDeviceGetCpuAffinity(struct nvml_device *d, unsigned int words,
                             unsigned long *set)
{
	memset(set, 0, words * sizeof(*set));
	set[0] = d->index < 2 ? 0xfful : 0xff00ul;
	return 0;
}

static void bus_id(unsigned int i, struct fake_pci *pci)
{
	memset(pci, 0, sizeof(*pci));
	snprintf(pci->bus_id, sizeof(pci->bus_id), "00000000:%02X:00.0", 0x10 + i);
}

int nvmlDeviceGetPciInfo_v3(struct nvml_device *d, struct fake_pci *pci)
{
	bus_id(d->index, pci);
	return 0;
}

int nvmlDeviceGetNvLinkState(struct nvml_device *d, unsigned int link, int *active)
{
	*active = link < 6;
	return link < 18 ? 0 : 2;
}

int nvmlDeviceGetNvLinkRemotePciInfo_v2(struct nvml_device *d, unsigned int link,
                                        struct fake_pci *pci)
{
	bus_id((d->index + 1 + link % 3) % NGPU, pci);
	return 0;
}

/* The usage words (see the top) into buf; "" when none. */
static void use_text(char *buf, size_t len)
{
	const char *env = getenv("FAKE_NVML_USE"), *path = getenv("FAKE_NVML_USE_FILE");
	FILE *f;
	size_t n;

	buf[0] = '\0';
	if (env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	if (!path || !(f = fopen(path, "re")))
		return;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Call fn for each word "KEYI=VALUE" of GPU gpu with key key. */
static int use_each(unsigned int gpu, const char *key,
                    void (*fn)(const char *value, void *arg), void *arg)
{
	char buf[4096], *p, *save = NULL;
	size_t klen = strlen(key);
	int found = 0;

	use_text(buf, sizeof(buf));
	for (p = strtok_r(buf, " \t\n,", &save); p; p = strtok_r(NULL, " \t\n,", &save)) {
		char *end;
		unsigned long i;

		if (!strcmp(p, key)) /* a word without index or value: noprocs */
			found++;
		if (strncmp(p, key, klen) || !isdigit((unsigned char)p[klen]))
			continue;
		i = strtoul(p + klen, &end, 10);
		if (i != gpu || *end != '=')
			continue;
		found++;
		if (fn)
			fn(end + 1, arg);
	}
	return found;
}

static void take_u64(const char *value, void *arg)
{
	*(unsigned long long *)arg = strtoull(value, NULL, 10);
}

struct proc_list {
	struct fake_proc *infos;
	unsigned int cap, n;
};

static void take_proc(const char *value, void *arg)
{
	struct proc_list *l = arg;
	const char *colon = strchr(value, ':');

	if (l->n < l->cap && colon) {
		l->infos[l->n].pid = (unsigned int)strtoul(value, NULL, 10);
		l->infos[l->n].used =
		    strncmp(colon + 1, "na", 2) ? strtoull(colon + 1, NULL, 10) : ~0ULL;
	}
	l->n++;
}

int nvmlDeviceGetComputeRunningProcesses_v3(struct nvml_device *d, unsigned int *n,
                                            struct fake_proc *infos)
{
	struct proc_list l = {infos, *n, 0};

	if (use_each(0, "noprocs", NULL, NULL))
		return 3; /* NVML_ERROR_NOT_SUPPORTED */
	use_each(d->index, "proc", take_proc, &l);
	*n = l.n;
	return l.n > l.cap ? 7 : 0; /* NVML_ERROR_INSUFFICIENT_SIZE */
}

int nvmlDeviceGetUtilizationRates(struct nvml_device *d, struct fake_util *u)
{
	unsigned long long v = 0;

	use_each(d->index, "util", take_u64, &v);
	u->gpu = (unsigned int)v;
	u->memory = 0;
	return 0;
}

int nvmlDeviceGetMemoryInfo(struct nvml_device *d, struct fake_mem *m)
{
	unsigned long long v = 0;

	use_each(d->index, "mem", take_u64, &v);
	m->total = 80ULL << 30;
	m->used = v;
	m->free = m->total - v;
	return 0;
}

struct putil_list {
	struct fake_putil *s;
	unsigned int cap, n;
	unsigned long long stamp;
};

static void take_putil(const char *value, void *arg)
{
	struct putil_list *l = arg;
	const char *colon = strchr(value, ':');

	if (l->s && l->n < l->cap && colon) {
		memset(&l->s[l->n], 0, sizeof(l->s[l->n]));
		l->s[l->n].pid = (unsigned int)strtoul(value, NULL, 10);
		l->s[l->n].sm = (unsigned int)strtoul(colon + 1, NULL, 10);
		l->s[l->n].time_stamp = l->stamp;
	}
	l->n++;
}

/* Every putil word is a sample taken just now (later than any seen). */
int nvmlDeviceGetProcessUtilization(struct nvml_device *d, struct fake_putil *s,
                                    unsigned int *n, unsigned long long last_seen)
{
	static unsigned long long stamp = 1000;
	struct putil_list l = {s, s ? *n : 0, 0, ++stamp + last_seen};

	if (use_each(0, "noputil", NULL, NULL))
		return 3; /* NVML_ERROR_NOT_SUPPORTED */
	use_each(d->index, "putil", take_putil, &l);
	*n = l.n;
	if (!l.n)
		return 6; /* NVML_ERROR_NOT_FOUND */
	return !s || l.n > l.cap ? 7 : 0;
}
