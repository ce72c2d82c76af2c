#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/nvml_dl.h"
#include "common/gres.h"

/* The few NVML declarations used (nvml.h is not needed to build). */
typedef int nvml_ret;
typedef struct nvml_device *nvml_dev;
struct nvml_pci {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

/* nvmlUtilization_t, nvmlMemory_t, nvmlProcessInfo_v1_t and _v2_t (the
 * _v2 and _v3 functions' entries: two more unsigned ints) */
struct nvml_util {
	unsigned int gpu, memory;
};
struct nvml_mem {
	unsigned long long total, free, used;
};
struct nvml_proc_v1 {
	unsigned int pid;
	unsigned long long used;
};
struct nvml_proc_v2 {
	unsigned int pid;
	unsigned long long used;
	unsigned int gpu_instance, compute_instance;
};

/* nvmlProcessUtilizationSample_t */
struct nvml_putil {
	unsigned int pid;
	unsigned long long time_stamp;
	unsigned int sm, mem, enc, dec;
};

#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_NOT_FOUND         6
#define NVML_VALUE_NOT_AVAILABLE     (~0ULL)
#define NVML_NAME_LEN                96
#define NVML_LINKS_MAX               18 /* NVML_NVLINK_MAX_LINKS */
#define CPUSET_WORDS                 (GRES_CORES_MAX / (8 * sizeof(unsigned long)))

struct nvml_lib {
	void *h;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	nvml_ret (*count)(unsigned int *n);
	nvml_ret (*handle)(unsigned int i, nvml_dev *d);
	nvml_ret (*name)(nvml_dev d, char *name, unsigned int len);
	nvml_ret (*minor)(nvml_dev d, unsigned int *minor);
	nvml_ret (*affinity)(nvml_dev d, unsigned int words, unsigned long *set);
	/* optional: without them no Links */
	nvml_ret (*pci)(nvml_dev d, struct nvml_pci *pci);
	nvml_ret (*link_state)(nvml_dev d, unsigned int link, int *active);
	nvml_ret (*link_pci)(nvml_dev d, unsigned int link, struct nvml_pci *pci);
	/* for a watch (optional: without them no figure) */
	nvml_ret (*procs)(nvml_dev d, unsigned int *n, void *infos);
	size_t proc_size; /* of one entry of procs' infos */
	nvml_ret (*util)(nvml_dev d, struct nvml_util *u);
	nvml_ret (*putil)(nvml_dev d, struct nvml_putil *s, unsigned int *n,
	                  unsigned long long last_seen);
	nvml_ret (*mem)(nvml_dev d, struct nvml_mem *m);
};

void nvml_type_name(const char *name, const char *node_gres, char *type)
{
	struct gres_item items[GRES_MAX_ITEMS];
	char full[NVML_NAME_LEN];
	size_t i, n = 0;

	for (i = 0; name[i] && i < sizeof(full) - 1; i++)
		full[i] = name[i] == ' ' ? '_' : (char)tolower((unsigned char)name[i]);
	full[i] = '\0';
	type[0] = '\0';
	if (!node_gres || gres_parse_node(node_gres, items, &n, NULL) < 0)
		n = 0;
	for (i = 0; i < n; i++) {
		char low[GRES_NAME_MAX];
		size_t k;

		if (strcmp(items[i].name, "gpu") || !items[i].type[0])
			continue;
		for (k = 0; items[i].type[k]; k++)
			low[k] = (char)tolower((unsigned char)items[i].type[k]);
		low[k] = '\0';
		if (strstr(full, low)) {
			memcpy(type, items[i].type, k + 1);
			return;
		}
	}
}

static int lib_open(struct nvml_lib *l, struct rota_error *err)
{
	const char *path = getenv("ROTA_NVML_LIB");
	const char *why;

	memset(l, 0, sizeof(*l));
	l->h = dlopen(path && *path ? path : NVML_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!l->h) {
		why = dlerror();
		return errprintf(err, "cannot load NVML: %s", why ? why : "not found"),
		       -ENOENT;
	}
	/* POSIX: a function pointer from dlsym() through a void * */
	*(void **)&l->init = dlsym(l->h, "nvmlInit_v2");
	*(void **)&l->shutdown = dlsym(l->h, "nvmlShutdown");
	*(void **)&l->count = dlsym(l->h, "nvmlDeviceGetCount_v2");
	*(void **)&l->handle = dlsym(l->h, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&l->name = dlsym(l->h, "nvmlDeviceGetName");
	*(void **)&l->minor = dlsym(l->h, "nvmlDeviceGetMinorNumber");
	*(void **)&l->affinity = dlsym(l->h, "nvmlDeviceGetCpuAffinity");
	*(void **)&l->pci = dlsym(l->h, "nvmlDeviceGetPciInfo_v3");
	*(void **)&l->link_state = dlsym(l->h, "nvmlDeviceGetNvLinkState");
	*(void **)&l->link_pci = dlsym(l->h, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	/* the newest process list the library has (the entry grew in _v2) */
	*(void **)&l->procs = dlsym(l->h, "nvmlDeviceGetComputeRunningProcesses_v3");
	l->proc_size = sizeof(struct nvml_proc_v2);
	if (!l->procs)
		*(void **)&l->procs =
		    dlsym(l->h, "nvmlDeviceGetComputeRunningProcesses_v2");
	if (!l->procs) {
		*(void **)&l->procs = dlsym(l->h, "nvmlDeviceGetComputeRunningProcesses");
		l->proc_size = sizeof(struct nvml_proc_v1);
	}
	*(void **)&l->util = dlsym(l->h, "nvmlDeviceGetUtilizationRates");
	*(void **)&l->mem = dlsym(l->h, "nvmlDeviceGetMemoryInfo");
	*(void **)&l->putil = dlsym(l->h, "nvmlDeviceGetProcessUtilization");
	if (!l->init || !l->shutdown || !l->count || !l->handle || !l->name ||
	    !l->minor || !l->affinity) {
		dlclose(l->h);
		return errprintf(err, "cannot load NVML: a function is missing"), -ENOENT;
	}
	return 0;
}

/* Links of device i to each of the n devices: "-1" for itself, else how many
 * of its active NVLinks reach that device's PCI bus id. */
static void links_fill(const struct nvml_lib *l, nvml_dev *devs, unsigned int n,
                       struct nvml_pci *pcis, unsigned int i, char *buf, size_t len)
{
	unsigned int count[GRES_DEVS_MAX] = {0};
	size_t off = 0;

	buf[0] = '\0';
	if (!l->pci || !l->link_state || !l->link_pci)
		return;
	for (unsigned int link = 0; link < NVML_LINKS_MAX; link++) {
		struct nvml_pci remote;
		int active = 0;

		if (l->link_state(devs[i], link, &active) != 0 || !active ||
		    l->link_pci(devs[i], link, &remote) != 0)
			continue;
		for (unsigned int j = 0; j < n; j++)
			if (j != i && !strncmp(remote.bus_id, pcis[j].bus_id,
			                       sizeof(remote.bus_id)))
				count[j]++;
	}
	for (unsigned int j = 0; j < n; j++) {
		int w = j == i ? snprintf(buf + off, len - off, "%s-1", j ? "," : "")
		               : snprintf(buf + off, len - off, "%s%u", j ? "," : "",
		                          count[j]);

		if (w < 0 || (size_t)w >= len - off) {
			buf[0] = '\0'; /* too many GPUs for Links: none */
			return;
		}
		off += (size_t)w;
	}
}

/* One GPU into inv. */
static int device_add(const struct nvml_lib *l, nvml_dev *devs, unsigned int n,
                      struct nvml_pci *pcis, unsigned int i, const char *node_gres,
                      struct gres_inv *inv, struct rota_error *err)
{
	char name[NVML_NAME_LEN] = "", type[GRES_NAME_MAX], file[32];
	char links[GRES_LINKS_MAX];
	unsigned long set[CPUSET_WORDS] = {0};
	uint64_t cores[GRES_CORE_WORDS] = {0};
	unsigned int minor = 0;

	if (l->name(devs[i], name, sizeof(name)) != 0 || l->minor(devs[i], &minor) != 0)
		return errprintf(err, "NVML: no name or minor number for GPU %u", i),
		       -EIO;
	name[sizeof(name) - 1] = '\0';
	if (l->affinity(devs[i], (unsigned int)CPUSET_WORDS, set) == 0)
		for (size_t c = 0; c < GRES_CORES_MAX; c++)
			if (set[c / (8 * sizeof(long))] >> (c % (8 * sizeof(long))) & 1)
				cores[c / 64] |= UINT64_C(1) << (c % 64);
	nvml_type_name(name, node_gres, type);
	snprintf(file, sizeof(file), "/dev/nvidia%u", minor);
	links_fill(l, devs, n, pcis, i, links, sizeof(links));
	return gres_inv_add_dev(inv, "gpu", type, file, cores, links, err);
}

int nvml_detect(struct gres_inv *inv, const char *node_gres, struct rota_error *err)
{
	nvml_dev devs[GRES_DEVS_MAX];
	struct nvml_pci pcis[GRES_DEVS_MAX];
	struct nvml_lib l;
	unsigned int n = 0;
	int rc = lib_open(&l, err);

	if (rc < 0)
		return rc;
	if (l.init() != 0) {
		dlclose(l.h);
		return errprintf(err, "NVML: initialisation failed"), -EIO;
	}
	if (l.count(&n) != 0)
		rc = (errprintf(err, "NVML: no device count"), -EIO);
	else if (n > GRES_DEVS_MAX)
		rc = (errprintf(err, "NVML: %u GPUs, more than %d", n, GRES_DEVS_MAX),
		      -E2BIG);
	for (unsigned int i = 0; rc == 0 && i < n; i++) {
		memset(&pcis[i], 0, sizeof(pcis[i]));
		if (l.handle(i, &devs[i]) != 0)
			rc = (errprintf(err, "NVML: no handle for GPU %u", i), -EIO);
		else if (l.pci)
			l.pci(devs[i], &pcis[i]);
	}
	for (unsigned int i = 0; rc == 0 && i < n; i++)
		rc = device_add(&l, devs, n, pcis, i, node_gres, inv, err);
	l.shutdown();
	dlclose(l.h);
	return rc < 0 ? rc : (int)n;
}

struct nvml_watch {
	struct nvml_lib l;
	nvml_dev dev[GRES_DEVS_MAX];
	size_t n;
	void *infos; /* room for cap process entries */
	unsigned int cap;
	struct nvml_putil *samples; /* room for scap utilization samples */
	unsigned int scap;
	unsigned long long last_seen[GRES_DEVS_MAX]; /* each GPU's newest sample */
};

static int pid_in(unsigned int pid, const pid_t *pids, size_t npids)
{
	for (size_t k = 0; k < npids; k++)
		if ((unsigned int)pids[k] == pid)
			return 1;
	return 0;
}

/* The NVML device of ref: by minor number where one has it, else by index. */
static int watch_find(struct nvml_watch *w, const struct nvml_gpu_ref *ref,
                      unsigned int count, nvml_dev *ret)
{
	for (unsigned int i = 0; ref->minor >= 0 && i < count; i++) {
		unsigned int minor;
		nvml_dev d;

		if (w->l.handle(i, &d) == 0 && w->l.minor(d, &minor) == 0 &&
		    minor == (unsigned int)ref->minor) {
			*ret = d;
			return 0;
		}
	}
	if (ref->index >= count || w->l.handle(ref->index, ret) != 0)
		return -EIO;
	return 0;
}

int nvml_watch_create(const struct nvml_gpu_ref *refs, size_t n, struct nvml_watch **ret,
                      struct rota_error *err)
{
	struct nvml_watch *w;
	unsigned int count = 0;
	int rc;

	if (n > GRES_DEVS_MAX)
		return errprintf(err, "NVML: %zu GPUs, more than %d", n, GRES_DEVS_MAX),
		       -E2BIG;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	if ((rc = lib_open(&w->l, err)) < 0) {
		free(w);
		return rc;
	}
	if (w->l.init() != 0) {
		dlclose(w->l.h);
		free(w);
		return errprintf(err, "NVML: initialisation failed"), -EIO;
	}
	rc =
	    w->l.count(&count) != 0 ? (errprintf(err, "NVML: no device count"), -EIO) : 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (watch_find(w, &refs[i], count, &w->dev[i]) < 0)
			rc = (errprintf(err, "NVML: no GPU %u (minor number %d)",
			                refs[i].index, refs[i].minor),
			      -EIO);
	if (rc < 0) {
		nvml_watch_destroy(w);
		return rc;
	}
	w->n = n;
	*ret = w;
	return 0;
}

/* The pid and memory of process entry i of w->infos. */
static void proc_entry(const struct nvml_watch *w, unsigned int i, unsigned int *pid,
                       unsigned long long *used)
{
	const char *e = (const char *)w->infos + (size_t)i * w->l.proc_size;

	if (w->l.proc_size == sizeof(struct nvml_proc_v1)) {
		*pid = ((const struct nvml_proc_v1 *)(const void *)e)->pid;
		*used = ((const struct nvml_proc_v1 *)(const void *)e)->used;
	} else {
		*pid = ((const struct nvml_proc_v2 *)(const void *)e)->pid;
		*used = ((const struct nvml_proc_v2 *)(const void *)e)->used;
	}
}

/* The memory pids hold on d; -1 when NVML has no process list for it. */
static int64_t watch_proc_mem(struct nvml_watch *w, nvml_dev d, const pid_t *pids,
                              size_t npids)
{
	unsigned int n = w->cap;
	nvml_ret r;
	int64_t sum = 0;

	if (!w->l.procs)
		return -1;
	while ((r = w->l.procs(d, &n, w->infos)) == NVML_ERROR_INSUFFICIENT_SIZE &&
	       n > w->cap && n <= 65536) {
		void *more = realloc(w->infos, (size_t)(n + 16) * w->l.proc_size);
		if (!more)
			return -1;
		w->infos = more;
		w->cap = n += 16;
	}
	if (r != 0) /* not supported (or failing): the GPU's memory in all */
		return -1;
	for (unsigned int i = 0; i < n && i < w->cap; i++) {
		unsigned long long used;
		unsigned int pid;

		proc_entry(w, i, &pid, &used);
		if (used == NVML_VALUE_NOT_AVAILABLE)
			continue;
		if (pid_in(pid, pids, npids))
			sum += (int64_t)used;
	}
	return sum;
}

/* The SM utilization of pids on GPU i: each one's newest sample since the
 * last look, summed; -1 when NVML has no process samples for it. */
static int64_t watch_proc_util(struct nvml_watch *w, size_t i, const pid_t *pids,
                               size_t npids)
{
	unsigned long long newest = w->last_seen[i];
	unsigned int n = 0;
	int64_t sum = 0;
	nvml_ret r;

	if (!w->l.putil)
		return -1;
	r = w->l.putil(w->dev[i], NULL, &n, w->last_seen[i]);
	if (r == NVML_ERROR_NOT_FOUND) /* no sample since: nothing ran */
		return 0;
	if ((r != 0 && r != NVML_ERROR_INSUFFICIENT_SIZE) || n > 65536)
		return -1;
	if (n > w->scap) {
		struct nvml_putil *more = realloc(w->samples, n * sizeof(*more));
		if (!more)
			return -1;
		w->samples = more;
		w->scap = n;
	}
	n = w->scap;
	if ((r = w->l.putil(w->dev[i], w->samples, &n, w->last_seen[i])) != 0)
		return r == NVML_ERROR_NOT_FOUND ? 0 : -1;
	for (unsigned int k = 0; k < n && k < w->scap; k++) {
		const struct nvml_putil *s = &w->samples[k];
		int later = 0;

		if (s->time_stamp > newest)
			newest = s->time_stamp;
		if (!pid_in(s->pid, pids, npids))
			continue;
		/* several samples of one process: its newest counts */
		for (unsigned int j = 0; j < n && !later; j++)
			later = j != k && w->samples[j].pid == s->pid &&
			        (w->samples[j].time_stamp > s->time_stamp ||
			         (w->samples[j].time_stamp == s->time_stamp && j > k));
		if (!later)
			sum += s->sm;
	}
	w->last_seen[i] = newest;
	return sum;
}

int nvml_watch_sample(struct nvml_watch *w, const pid_t *pids, size_t npids,
                      struct nvml_use *ret)
{
	struct nvml_use use = {0};
	size_t answered = 0;

	for (size_t i = 0; i < w->n; i++) {
		int64_t mem = watch_proc_mem(w, w->dev[i], pids, npids);
		int64_t util = watch_proc_util(w, i, pids, npids);
		struct nvml_util u;
		struct nvml_mem m;
		int got = 0;

		if (mem >= 0) {
			use.mem_bytes += (uint64_t)mem;
			got = 1;
		} else if (w->l.mem && w->l.mem(w->dev[i], &m) == 0) {
			use.mem_bytes += m.used;
			got = 1;
		}
		if (util >= 0) {
			use.util += (uint32_t)util;
			got = 1;
		} else if (w->l.util && w->l.util(w->dev[i], &u) == 0) {
			use.util += u.gpu;
			got = 1;
		}
		answered += (size_t)got;
	}
	if (w->n && !answered)
		return -EIO;
	*ret = use;
	return 0;
}

void nvml_watch_destroy(struct nvml_watch *w)
{
	if (!w)
		return;
	w->l.shutdown();
	dlclose(w->l.h);
	free(w->infos);
	free(w->samples);
	free(w);
}
