/* devcg.c - the device cgroup for ConstrainDevices (see devcg.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "common/gres_req.h"
#include "stepd/devcg.h"

#define INSNS_HEAD 4 /* loads of the context */
#define INSNS_RULE 5
#define INSNS_TAIL 2
#define INSNS_MAX  (INSNS_HEAD + INSNS_RULE * DEVCG_RULES_MAX + INSNS_TAIL)

/* Whether index idx of GRES name is among the allocation's items. */
static int allocated(const struct gres_alloc_item *it, size_t n, const char *name,
                     uint32_t idx)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(it[i].name, name))
			continue;
		for (uint32_t j = 0; j < it[i].nidx; j++)
			if (it[i].idx[j] == idx)
				return 1;
	}
	return 0;
}

int devcg_deny_build(const struct gres_dev_info *devs, size_t ndevs, const char *alloc,
                     struct devcg_list *ret, const char **ret_skipped)
{
	struct gres_alloc_item it[GRES_MAX_ITEMS];
	size_t nit = 0;

	ret->n = 0;
	if (alloc && gres_alloc_parse(alloc, it, GRES_MAX_ITEMS, &nit) < 0)
		return -EINVAL;
	for (size_t d = 0; d < ndevs; d++) {
		const char *name = devs[d].name ? devs[d].name : "";
		uint32_t idx = 0;
		struct stat st;

		for (size_t e = 0; e < d; e++)
			idx += devs[e].name && !strcmp(devs[e].name, name);
		if (allocated(it, nit, name, idx) || !devs[d].file)
			continue;
		if (stat(devs[d].file, &st) < 0 ||
		    !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
			if (ret_skipped)
				*ret_skipped = devs[d].file;
			continue;
		}
		if (ret->n == DEVCG_RULES_MAX)
			break;
		ret->v[ret->n++] = (struct devcg_rule){
		    .type = S_ISCHR(st.st_mode) ? DEVCG_CHAR : DEVCG_BLOCK,
		    .major = major(st.st_rdev),
		    .minor = minor(st.st_rdev),
		};
	}
	return (int)ret->n;
}

int devcg_v1_deny(const char *dir, const struct devcg_list *l)
{
	char path[4096], line[64];
	int fd, rc = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/devices.deny", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	/* one rule a write: the kernel reads one per write */
	for (size_t i = 0; i < l->n && rc == 0; i++) {
		int n = snprintf(line, sizeof(line), "%c %u:%u rwm", l->v[i].type,
		                 l->v[i].major, l->v[i].minor);
		if (write(fd, line, (size_t)n) < 0)
			rc = -errno;
	}
	close(fd);
	return rc;
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off,
                            int32_t imm)
{
	return (struct bpf_insn){
	    .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};
}

/* r2 = device type, r3 = major, r4 = minor (struct bpf_cgroup_dev_ctx: the
 * access in the upper half of access_type, the type in the lower); for each
 * rule, all three equal: return 0 (denied); else return 1. */
int devcg_bpf_assemble(const struct devcg_list *l, struct bpf_insn *p, size_t max)
{
	size_t n = 0;

	if (max < INSNS_HEAD + INSNS_RULE * l->n + INSNS_TAIL)
		return -E2BIG;
	p[n++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1,
	              offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
	p[n++] = insn(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
	p[n++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1,
	              offsetof(struct bpf_cgroup_dev_ctx, major), 0);
	p[n++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1,
	              offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
	for (size_t i = 0; i < l->n; i++) {
		int32_t type =
		    l->v[i].type == DEVCG_CHAR ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK;
		/* a jump's offset counts from the next instruction */
		p[n++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 4, type);
		p[n++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 3,
		              (int32_t)l->v[i].major);
		p[n++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 2,
		              (int32_t)l->v[i].minor);
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
		p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return (int)n;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int devcg_bpf_load(const struct devcg_list *l, char *log, size_t len)
{
	static struct bpf_insn insns[INSNS_MAX];
	union bpf_attr a;
	int n = devcg_bpf_assemble(l, insns, INSNS_MAX), fd;

	if (n < 0)
		return n;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = (uint32_t)n;
	a.license = (uint64_t)(uintptr_t) "MIT"; /* no GPL-only helper is called */
	if (log && len > 1) {
		log[0] = '\0';
		a.log_buf = (uint64_t)(uintptr_t)log;
		a.log_size = (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len);
		a.log_level = 1;
	}
	fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0 && log && len > 1 && errno == ENOSPC) {
		/* the verifier's log did not fit: load without it */
		a.log_buf = 0, a.log_size = 0, a.log_level = 0;
		fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
	}
	return fd < 0 ? -errno : fd;
}

int devcg_bpf_attach(const char *dir, const struct devcg_list *l, const char **ret_what)
{
	union bpf_attr a;
	int prog, cg, rc = 0;

	if ((prog = devcg_bpf_load(l, NULL, 0)) < 0) {
		*ret_what = "BPF_PROG_LOAD";
		return prog;
	}
	if ((cg = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = -errno;
		*ret_what = "open";
		close(prog);
		return rc;
	}
	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)cg;
	a.attach_bpf_fd = (uint32_t)prog;
	a.attach_type = BPF_CGROUP_DEVICE;
	a.attach_flags = BPF_F_ALLOW_MULTI;
	if (sys_bpf(BPF_PROG_ATTACH, &a) < 0) {
		rc = -errno;
		*ret_what = "BPF_PROG_ATTACH";
	}
	close(cg);
	close(prog); /* the cgroup holds the program now */
	return rc;
}
