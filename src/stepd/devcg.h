/* devcg.h - ConstrainDevices: the GRES device files a step may not open.
 *
 * DESIGN: rotad hands its stepd the node's GRES devices (launch_req
 * node_gres_devs, in the order that numbers them: a device's index is its
 * position among the node's devices of its name, as the controller counts
 * them).  Every one the job (or step) was not allocated is denied, by its
 * major:minor; other devices (/dev/null, ttys) stay as they are.  Where the
 * kernel has a v1 devices controller, the denial is "c MAJ:MIN rwm" written
 * to devices.deny of the job's and the step's cgroup; on cgroup v2 it is a
 * BPF_PROG_TYPE_CGROUP_DEVICE program, assembled here by hand (no libbpf)
 * and attached to the step's cgroup with BPF_F_ALLOW_MULTI (programs of the
 * parents still apply: a device is opened only when every one allows it).
 * Root only.  No threads; the program stays attached until the cgroup goes.
 */
#ifndef ROTA_STEPD_DEVCG_H
#define ROTA_STEPD_DEVCG_H

#include <stddef.h>
#include <stdint.h>
#include "proto/messages.h"

#define DEVCG_RULES_MAX 128 /* GRES_DEVS_MAX: one rule a device file */

enum devcg_type { DEVCG_BLOCK = 'b', DEVCG_CHAR = 'c' };

struct devcg_rule {
	char type; /* enum devcg_type */
	uint32_t major, minor;
};

struct devcg_list {
	struct devcg_rule v[DEVCG_RULES_MAX];
	size_t n;
};

/* The devices of devs[0..ndevs) (borrowed) that allocation alloc ("gpu:2(IDX:0-1)",
 * common/gres_req.h; NULL or "": none) does not hold, as rules into *ret.
 * Each file is stat()ed: one that is not there or not a device is skipped
 * (its path, when ret_skipped is given, is the last one skipped; borrowed
 * from devs).  Returns how many rules, or -EINVAL for an allocation that
 * does not parse. */
int devcg_deny_build(const struct gres_dev_info *devs, size_t ndevs, const char *alloc,
                     struct devcg_list *ret, const char **ret_skipped);

/* v1: write each rule to dir/devices.deny.  0 or -errno. */
int devcg_v1_deny(const char *dir, const struct devcg_list *l);

/* struct bpf_insn is the kernel's; the program denying l into insns[max].
 * Returns how many instructions, or -E2BIG. */
struct bpf_insn;
int devcg_bpf_assemble(const struct devcg_list *l, struct bpf_insn *insns, size_t max);

/* Load the program denying l (BPF_PROG_LOAD); returns its fd (caller
 * closes) or -errno, the verifier's words in log[len] when len > 0. */
int devcg_bpf_load(const struct devcg_list *l, char *log, size_t len);

/* Load it and attach it to the cgroup v2 directory dir.  0 or -errno, with
 * *ret_what (static) naming the step that failed. */
int devcg_bpf_attach(const char *dir, const struct devcg_list *l, const char **ret_what);

#endif
