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

#define NVML_NAME_LEN  96
#define NVML_LINKS_MAX 18 /* NVML_NVLINK_MAX_LINKS */
#define CPUSET_WORDS   (GRES_CORES_MAX / (8 * sizeof(unsigned long)))

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
