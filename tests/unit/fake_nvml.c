/* fake_nvml.c - a stand-in libnvidia-ml for test_nvml (common/nvml_dl.h):
 * four "NVIDIA H100 80GB HBM3" GPUs with minor numbers 0, 1, 2 and 5, CPUs
 * 0-7 near GPUs 0-1 and 8-15 near GPUs 2-3, and two NVLinks from each GPU to
 * each other.  $FAKE_NVML_FAIL makes nvmlInit_v2 fail.  Built as a shared
 * library by the Makefile; only the exported functions matter. */
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
