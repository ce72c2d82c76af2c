/* cgroup.c - cgroups (v2, or v1 controllers beside v2) and CPU binding for one
 * step.  See cgroup.h for the design. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "proto/messages.h"
#include "common/spool_pids.h"
#include "stepd/cgroup.h"
#include "stepd/devcg.h"
#include "common/cpubind.h"
#include "common/spool.h"
#include "common/common.h"

#define CG_MAX_HIER  5
#define CG_BUSY_MS   2000 /* how long to wait for a cgroup to empty */
#define CG_POLL_MS   10
#define CG_MOUNTINFO "/proc/self/mountinfo"
#define CG_CPULIST   (CPU_SETSIZE * 6)

enum cg_role { CG_MEM = 1, CG_CPUSET = 2, CG_TRACK = 4, CG_DEV = 8 };

/* v1 controllers we use, each on its own mount (or sharing one). */
enum cg_v1 { V1_MEMORY, V1_CPUSET, V1_FREEZER, V1_PIDS, V1_DEVICES, V1_COUNT };
static const char *const v1_names[V1_COUNT] = {"memory", "cpuset", "freezer", "pids",
                                               "devices"};

struct cg_mounts {
	char *v2;           /* the cgroup2 mount, NULL if none */
	char *v1[V1_COUNT]; /* mount of each v1 controller, NULL if none */
};

struct cg_hier {
	char *mount;
	int v2;
	int freezer; /* v1 freezer: freeze before killing */
	unsigned roles;
	char *node;  /* <mount>/rota/<node>_<instance> */
	char *job;   /* <node>/job_<id> */
	char *step;  /* <job>/step_<id> */
	char *procs; /* <step>/cgroup.procs, written by cgroup_enter */
};

struct cgroup {
	char ids[64]; /* "JobId=1 StepId=1.batch" for the log */
	struct cg_hier h[CG_MAX_HIER];
	int n;
	int bind; /* cpus is set: bind the tasks */
	cpu_set_t cpus;
	cpu_set_t *task_cpus; /* [ntask_cpus] each local task's share, or NULL */
	uint32_t ntask_cpus;
	uint64_t oom_base, failcnt_base;
};

/* ---- small file helpers (cgroup files are short and need no locking) ---- */

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* No allocation: cgroup_enter uses it between fork and exec. */
static int cg_write_path(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int cg_write(const char *dir, const char *file, const char *s)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	return cg_write_path(path, s);
}

/* Read a small file into buf, NUL-terminated and without trailing newlines.
 * Returns 0 or -errno. */
static int cg_read(const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return 0;
}

static int cg_read_u64(const char *dir, const char *file, uint64_t *ret)
{
	char buf[64], *end;
	unsigned long long v;

	if (cg_read(dir, file, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -1;
	*ret = v;
	return 0;
}

/* The value of "key N" in a flat keyed file (memory.events, memory.oom_control). */
static int keyed_value(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			*ret = strtoull(p + klen + 1, NULL, 10);
			return 0;
		}
	return -1;
}

static int cg_read_key(const char *dir, const char *file, const char *key, uint64_t *ret)
{
	char buf[1024];

	if (cg_read(dir, file, buf, sizeof(buf)) < 0)
		return -1;
	return keyed_value(buf, key, ret);
}

/* Whether word is one of the words of list (separated by sep). */
static int has_word(const char *list, const char *word, char sep)
{
	size_t wl = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, sep);
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == wl && !strncmp(p, word, wl))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* ---- finding the hierarchies ---- */

/* mountinfo escapes blanks in paths as \040 and such: undo it in place. */
static void unescape_octal(char *s)
{
	char *w = s;

	for (char *r = s; *r; w++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' &&
		    r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w = *r++;
		}
	}
	*w = '\0';
}

/* Split one mountinfo line (modified in place): the mount point (5th field)
 * and, after the "-" separator, the fs type and super options.  Returns 0, or
 * -1 for a line that does not look like mountinfo. */
static int mountinfo_split(char *line, char **ret_mnt, char **ret_type, char **ret_opts)
{
	char *p = line, *f = NULL, *mnt = NULL, *type, *opts;

	line[strcspn(line, "\n")] = '\0';
	for (int i = 0; i < 6; i++) {
		f = strsep(&p, " ");
		if (!f || !p)
			return -1;
		if (i == 4)
			mnt = f;
	}
	while ((f = strsep(&p, " ")) && strcmp(f, "-"))
		;
	if (!f || !(type = strsep(&p, " ")) || !strsep(&p, " ") || !p)
		return -1;
	opts = strsep(&p, " ");
	unescape_octal(mnt);
	*ret_mnt = mnt;
	*ret_type = type;
	*ret_opts = opts;
	return 0;
}

/* Remember a cgroup mount from one mountinfo line (the first of each kind). */
static void mounts_add_line(struct cg_mounts *m, char *line)
{
	char *mnt, *type, *opts;

	if (mountinfo_split(line, &mnt, &type, &opts) < 0)
		return;
	if (!strcmp(type, "cgroup2")) {
		if (!m->v2)
			m->v2 = xstrdup(mnt);
		return;
	}
	if (strcmp(type, "cgroup"))
		return;
	for (int k = 0; k < V1_COUNT; k++)
		if (!m->v1[k] && has_word(opts, v1_names[k], ','))
			m->v1[k] = xstrdup(mnt);
}

static void mounts_release(struct cg_mounts *m)
{
	free(m->v2);
	for (int k = 0; k < V1_COUNT; k++)
		free(m->v1[k]);
}

static void mounts_load(struct cg_mounts *m)
{
	FILE *f = fopen(CG_MOUNTINFO, "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0)
		mounts_add_line(m, line);
	free(line);
	fclose(f);
}

/* mountinfo is read once a process (cgroup_preload: rotad, before the step
 * daemons it forks); m gets copies. */
static struct cg_mounts mounts_cache;
static int mounts_cached;

static void mounts_read(struct cg_mounts *m)
{
	if (!mounts_cached) {
		mounts_load(&mounts_cache);
		mounts_cached = 1;
	}
	m->v2 = mounts_cache.v2 ? xstrdup(mounts_cache.v2) : NULL;
	for (int k = 0; k < V1_COUNT; k++)
		m->v1[k] = mounts_cache.v1[k] ? xstrdup(mounts_cache.v1[k]) : NULL;
}

/* Does the top v1 cpuset balance the load over all CPUs (the default)?  Then
 * a cpuset below it may stop asking for that (cpuset.sched_load_balance 0)
 * without any effect on scheduling, and should: the kernel rebuilds its
 * scheduling domains, walking every task, each time a balancing cpuset's CPUs
 * are set and when one is removed (twice per level per job). */
static int cpuset_root_balance = -1;

static int cpuset_top_balances(const char *mount)
{
	char v[8] = "";

	if (cpuset_root_balance < 0)
		cpuset_root_balance =
		    cg_read(mount, "cpuset.sched_load_balance", v, sizeof(v)) == 0 &&
		    v[0] == '1';
	return cpuset_root_balance;
}

void cgroup_preload(void)
{
	struct cg_mounts m = {NULL};

	mounts_read(&m);
	if (m.v1[V1_CPUSET])
		cpuset_top_balances(m.v1[V1_CPUSET]);
	mounts_release(&m);
}

static struct cg_hier *hier_add(struct cgroup *cg, const char *mount, int v2,
                                unsigned roles)
{
	struct cg_hier *h;

	for (int i = 0; i < cg->n; i++)
		if (!strcmp(cg->h[i].mount, mount)) {
			cg->h[i].roles |= roles;
			return &cg->h[i];
		}
	if (cg->n == CG_MAX_HIER)
		return NULL;
	h = &cg->h[cg->n++];
	*h = (struct cg_hier){.mount = xstrdup(mount), .v2 = v2, .roles = roles};
	return h;
}

static struct cg_hier *hier_with(const struct cgroup *cg, unsigned role)
{
	for (int i = 0; i < cg->n; i++)
		if (cg->h[i].roles & role)
			return (struct cg_hier *)&cg->h[i];
	return NULL;
}

/* Which mount does what: v2 for what its controllers cover, v1 for the rest.
 * Killing goes through v2 when there is one (cgroup.kill works without any
 * controller), else the v1 freezer, pids, or whatever hierarchy we have.
 * Devices: the v1 controller where mounted (a BPF program on v2 would do as
 * well, but the v1 rules are what the admin of such a host sees), else v2. */
static void hier_plan(struct cgroup *cg, const struct cg_mounts *m, int want_cpuset,
                      int want_dev)
{
	unsigned v2roles = 0;
	struct cg_hier *h;

	if (m->v2) {
		char ctl[512] = "";
		cg_read(m->v2, "cgroup.controllers", ctl, sizeof(ctl));
		v2roles = CG_TRACK;
		if (has_word(ctl, "memory", ' '))
			v2roles |= CG_MEM;
		if (want_cpuset && has_word(ctl, "cpuset", ' '))
			v2roles |= CG_CPUSET;
		hier_add(cg, m->v2, 1, v2roles);
	}
	if (!(v2roles & CG_MEM) && m->v1[V1_MEMORY])
		hier_add(cg, m->v1[V1_MEMORY], 0, CG_MEM);
	if (want_cpuset && !(v2roles & CG_CPUSET) && m->v1[V1_CPUSET])
		hier_add(cg, m->v1[V1_CPUSET], 0, CG_CPUSET);
	if (want_dev && m->v1[V1_DEVICES])
		hier_add(cg, m->v1[V1_DEVICES], 0, CG_DEV);
	else if (want_dev && m->v2)
		hier_add(cg, m->v2, 1, CG_DEV);
	if (hier_with(cg, CG_TRACK))
		return;
	if (m->v1[V1_FREEZER] && (h = hier_add(cg, m->v1[V1_FREEZER], 0, CG_TRACK)))
		h->freezer = 1;
	else if (m->v1[V1_PIDS])
		hier_add(cg, m->v1[V1_PIDS], 0, CG_TRACK);
	else if (cg->n)
		cg->h[0].roles |= CG_TRACK;
}

/* ---- CPUs ---- */

/* Real CPUs for abstract core ids: core c runs on the (c mod n)-th of the n
 * CPUs we may use.  Where ids collide (more virtual cores than real ones), the
 * lowest unused CPUs make up the difference, so k cores get min(k, n) CPUs and
 * nproc in a -c 2 job says 2.  Returns how many CPUs are in *ret. */
/* The CPUs in avail, ascending, into list; returns how many. */
static int cpus_list(const cpu_set_t *avail, int list[CPU_SETSIZE])
{
	int n = 0;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, avail))
			list[n++] = c;
	return n;
}

static int cpus_map(const uint32_t *cores, uint32_t ncores, const cpu_set_t *avail,
                    cpu_set_t *ret)
{
	int list[CPU_SETSIZE], n = cpus_list(avail, list), got = 0, want;
	cpu_set_t set;

	CPU_ZERO(&set);
	if (!n || !ncores)
		return 0;
	for (uint32_t i = 0; i < ncores; i++) {
		int cpu = list[cores[i] % (uint32_t)n];
		if (!CPU_ISSET(cpu, &set)) {
			CPU_SET(cpu, &set);
			got++;
		}
	}
	want = ncores < (uint32_t)n ? (int)ncores : n;
	for (int i = 0; i < n && got < want; i++)
		if (!CPU_ISSET(list[i], &set)) {
			CPU_SET(list[i], &set);
			got++;
		}
	*ret = set;
	return got;
}

/* "0-3,6" for cpuset.cpus. */
static void cpus_format(const cpu_set_t *set, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && off < size; c++) {
		int e = c;
		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		off += (size_t)snprintf(buf + off, size - off, "%s%d", off ? "," : "", c);
		if (e > c && off < size)
			off += (size_t)snprintf(buf + off, size - off, "-%d", e);
		c = e;
	}
}

/* ---- creating the directories ---- */

static void cpuset_inherit(const char *parent, const char *dir, const char *file)
{
	char cur[CG_CPULIST];

	if (cg_read(dir, file, cur, sizeof(cur)) == 0 && cur[0])
		return;
	if (cg_read(parent, file, cur, sizeof(cur)) == 0)
		cg_write(dir, file, cur);
}

/* One level of the tree.  inner: it gets children (v2: hand the controllers
 * down). */
static int level_make(const struct cg_hier *h, const char *parent, const char *dir,
                      int inner)
{
	int made = mkdir(dir, 0755) == 0;

	if (!made && errno != EEXIST)
		return -errno;
	/* new, its CPUs still empty: no rebuild for the flag either */
	if (made && !h->v2 && (h->roles & CG_CPUSET) && cpuset_top_balances(h->mount))
		cg_write(dir, "cpuset.sched_load_balance", "0");
	if (!h->v2 && (h->roles & CG_CPUSET)) {
		cpuset_inherit(parent, dir, "cpuset.cpus");
		cpuset_inherit(parent, dir, "cpuset.mems");
	}
	if (h->v2 && inner) {
		if (h->roles & CG_MEM)
			cg_write(dir, "cgroup.subtree_control", "+memory");
		if (h->roles & CG_CPUSET)
			cg_write(dir, "cgroup.subtree_control", "+cpuset");
	}
	return 0;
}

static void limits_apply(const struct cgroup *cg, const struct cg_hier *h,
                         const char *dir, uint64_t mem, const char *cpus)
{
	char v[32];
	int rc = 0;

	snprintf(v, sizeof(v), "%llu", (unsigned long long)mem);
	if ((h->roles & CG_MEM) && mem && h->v2) {
		rc = cg_write(dir, "memory.max", v);
		cg_write(dir, "memory.swap.max", "0"); /* absent without swap */
	} else if ((h->roles & CG_MEM) && mem) {
		/* memsw >= limit at all times: raise memsw, set, then lower it */
		cg_write(dir, "memory.memsw.limit_in_bytes", "-1");
		rc = cg_write(dir, "memory.limit_in_bytes", v);
		cg_write(dir, "memory.memsw.limit_in_bytes", v);
	}
	if (rc < 0)
		log_err("%s cannot set the memory limit in %s: %s", cg->ids, dir,
		        strerror(-rc));
	if ((h->roles & CG_CPUSET) && cpus[0] &&
	    (rc = cg_write(dir, "cpuset.cpus", cpus)) < 0)
		log_err("%s cannot set cpuset.cpus %s in %s: %s", cg->ids, cpus, dir,
		        strerror(-rc));
}

/* Create rota/<node>/job_<id>/step_<id> under h->mount.  Another stepd of the
 * job may remove the job's directory as we create ours: try again then. */
static int hier_create(struct cgroup *cg, struct cg_hier *h, uint64_t mem,
                       uint64_t step_mem, const char *cpus, const char *step_cpus)
{
	char *rota = xasprintf("%s/rota", h->mount);
	int rc = 0;

	level_make(h, h->mount, h->mount, 1); /* v2: controllers for rota/ */
	for (int attempt = 0; attempt < 3; attempt++) {
		if ((rc = level_make(h, h->mount, rota, 1)) < 0 ||
		    (rc = level_make(h, rota, h->node, 1)) < 0 ||
		    (rc = level_make(h, h->node, h->job, 1)) < 0)
			continue;
		limits_apply(cg, h, h->job, mem, cpus);
		if ((rc = level_make(h, h->job, h->step, 0)) == 0)
			break;
	}
	free(rota);
	if (rc < 0)
		return rc;
	/* v2: the step inherits the job's cpuset unless it has its own */
	limits_apply(cg, h, h->step, step_mem ? step_mem : mem,
	             step_cpus[0] ? step_cpus
	             : h->v2      ? ""
	                          : cpus);
	return 0;
}

static void hier_release(struct cg_hier *h)
{
	free(h->mount);
	free(h->node);
	free(h->job);
	free(h->step);
	free(h->procs);
}

static void hier_setup_all(struct cgroup *cg, const struct cgroup_opts *o,
                           const char *cpus, const char *step_cpus)
{
	char *nodedir = spool_cgroup_name(o->node_name, o->instance);
	char step[16];

	if (o->step_id == STEP_BATCH)
		snprintf(step, sizeof(step), "batch");
	else
		snprintf(step, sizeof(step), "%u", o->step_id);
	for (int i = 0; i < cg->n;) {
		struct cg_hier *h = &cg->h[i];
		int rc;

		h->node = xasprintf("%s/rota/%s", h->mount, nodedir);
		h->job = xasprintf("%s/job_%u", h->node, o->job_id);
		h->step = xasprintf("%s/step_%s", h->job, step);
		h->procs = xasprintf("%s/cgroup.procs", h->step);
		if ((rc = hier_create(cg, h, o->mem_bytes, o->step_mem_bytes, cpus,
		                      step_cpus)) == 0) {
			log_debug("%s cgroup %s", cg->ids, h->step);
			i++;
			continue;
		}
		log_debug("%s cannot use the cgroup hierarchy %s: %s", cg->ids, h->mount,
		          strerror(-rc));
		hier_release(h);
		memmove(h, h + 1, (size_t)(cg->n - i - 1) * sizeof(*h));
		cg->n--;
	}
	free(nodedir);
}

/* --cpu-bind=map_cpu/mask_cpu: task i's entry as real CPUs (the node's ids
 * taken modulo the CPUs we may use), within the step's.  0 if none remain. */
static int task_cpus_listed(const struct cgroup *cg, const struct cpubind *b, uint32_t i,
                            const cpu_set_t *avail, cpu_set_t *ret)
{
	const uint32_t e = i % b->n;
	int list[CPU_SETSIZE], n = cpus_list(avail, list);
	cpu_set_t want;

	if (!n)
		return 0;
	/* exactly the listed ones: unlike a share, a list is not padded */
	CPU_ZERO(&want);
	for (uint32_t k = 0; k < b->cnt[e]; k++)
		CPU_SET(list[b->ids[e][k] % (uint32_t)n], &want);
	CPU_AND(ret, &want, &cg->cpus);
	return CPU_COUNT(ret);
}

/* --cpu-bind: local task i gets the i-th equal share of the step's cores
 * (cycling when there are more tasks than cores), as real CPUs of the step;
 * or with a map or mask its own entry. */
static void task_cpus_plan(struct cgroup *cg, const struct cgroup_opts *o,
                           const cpu_set_t *avail)
{
	const uint32_t *sc = o->nstep_cores ? o->step_cores : o->cores;
	uint32_t nsc = o->nstep_cores ? o->nstep_cores : o->ncores;
	const struct cpubind *b = o->cpubind;
	uint32_t per, *slice;

	if (!cg->bind || !o->bind_tasks || !nsc)
		return;
	per = nsc / o->bind_tasks ? nsc / o->bind_tasks : 1;
	slice = xcalloc(per, sizeof(uint32_t));
	cg->task_cpus = xcalloc(o->bind_tasks, sizeof(cpu_set_t));
	cg->ntask_cpus = o->bind_tasks;
	for (uint32_t i = 0; i < o->bind_tasks; i++) {
		if (b && b->n && (b->type == CPUBIND_MAP || b->type == CPUBIND_MASK)) {
			if (!task_cpus_listed(cg, b, i, avail, &cg->task_cpus[i]))
				cg->task_cpus[i] = cg->cpus;
			continue;
		}
		for (uint32_t j = 0; j < per; j++)
			slice[j] = sc[((uint64_t)i * per + j) % nsc];
		if (cpus_map(slice, per, &cg->cpus, &cg->task_cpus[i]) <= 0)
			cg->task_cpus[i] = cg->cpus;
	}
	free(slice);
}

/* ConstrainDevices: deny the job's and the step's unallocated GRES devices.
 * A failure is an error in the log: the tasks are not isolated. */
static void devices_apply(const struct cgroup *cg, const struct cgroup_opts *o)
{
	const struct cg_hier *h = hier_with(cg, CG_DEV);
	const char *what = "";
	int rc = 0;

	if (!o->step_deny)
		return;
	if (!h) {
		log_err("%s ConstrainDevices: no device cgroup: the tasks may open "
		        "every GRES device",
		        cg->ids);
		return;
	}
	if (!h->v2) {
		if ((rc = devcg_v1_deny(h->job, o->job_deny)) < 0)
			what = h->job;
		else if ((rc = devcg_v1_deny(h->step, o->step_deny)) < 0)
			what = h->step;
	} else if (o->step_deny->n) {
		rc = devcg_bpf_attach(h->step, o->step_deny, &what);
	}
	if (rc < 0)
		log_err("%s ConstrainDevices: %s: %s: the tasks may open every GRES "
		        "device",
		        cg->ids, what, strerror(-rc));
	else
		log_debug("%s %zu GRES devices denied in %s", cg->ids, o->step_deny->n,
		          h->step);
}

struct cgroup *cgroup_create(const struct cgroup_opts *o)
{
	struct cgroup *cg = xcalloc(1, sizeof(*cg));
	struct cg_mounts m = {NULL};
	char cpus[CG_CPULIST] = "", step_cpus[CG_CPULIST] = "";
	cpu_set_t avail, job_set;

	if (o->step_id == STEP_BATCH)
		snprintf(cg->ids, sizeof(cg->ids), "JobId=%u StepId=%u.batch", o->job_id,
		         o->job_id);
	else
		snprintf(cg->ids, sizeof(cg->ids), "JobId=%u StepId=%u.%u", o->job_id,
		         o->job_id, o->step_id);
	if (o->ncores && sched_getaffinity(0, sizeof(avail), &avail) == 0 &&
	    cpus_map(o->cores, o->ncores, &avail, &job_set) > 0) {
		cg->bind = 1;
		cg->cpus = job_set;
		cpus_format(&job_set, cpus, sizeof(cpus));
		/* the step's cores among the job's CPUs, so they stay a subset */
		if (o->nstep_cores &&
		    cpus_map(o->step_cores, o->nstep_cores, &job_set, &cg->cpus) > 0)
			cpus_format(&cg->cpus, step_cpus, sizeof(step_cpus));
		else
			cg->cpus = job_set;
		task_cpus_plan(cg, o, &avail);
	}
	if (geteuid() != 0) {
		log_debug("%s not root: no cgroups, the tasks run unconfined", cg->ids);
		return cg;
	}
	mounts_read(&m);
	hier_plan(cg, &m, cg->bind, o->step_deny != NULL);
	mounts_release(&m);
	hier_setup_all(cg, o, cpus, step_cpus);
	devices_apply(cg, o);
	if (cg->n && !hier_with(cg, CG_TRACK)) /* the tracker was unusable */
		cg->h[0].roles |= CG_TRACK;
	if (!cg->n)
		log_debug("%s no usable cgroup hierarchy: the tasks run unconfined",
		          cg->ids);
	cg->oom_base = cgroup_oom_kills(cg, 0);
	if (hier_with(cg, CG_MEM))
		cg_read_u64(hier_with(cg, CG_MEM)->step, "memory.failcnt",
		            &cg->failcnt_base);
	return cg;
}

int cgroup_enter(const struct cgroup *cg, uint32_t ltid, const char **ret_path)
{
	char pid[24];
	int rc;

	if (!cg)
		return 0;
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	for (int i = 0; i < cg->n; i++)
		if ((rc = cg_write_path(cg->h[i].procs, pid)) < 0) {
			*ret_path = cg->h[i].procs;
			return rc;
		}
	/* a cpuset already binds us; this covers hosts without one.  A failure
	 * is not worth failing the task for. */
	if (cg->bind)
		sched_setaffinity(0, sizeof(cg->cpus),
		                  ltid < cg->ntask_cpus ? &cg->task_cpus[ltid]
		                                        : &cg->cpus);
	return 0;
}

/* ---- signals ---- */

/* Send sig to every process listed in dir/cgroup.procs but those sent says
 * were sent it already; returns how many. */
static int procs_signal_unsent(const char *dir, int sig, cgroup_sent_fn sent, void *ctx)
{
	char path[PATH_MAX];
	FILE *f;
	int pid, n = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= sizeof(path))
		return 0;
	if (!(f = fopen(path, "re")))
		return 0;
	while (fscanf(f, "%d", &pid) == 1)
		if (pid > 0 && !(sent && sent(pid, ctx)) && kill(pid, sig) == 0)
			n++;
	fclose(f);
	return n;
}

static int procs_signal(const char *dir, int sig)
{
	return procs_signal_unsent(dir, sig, NULL, NULL);
}

/* procs_signal on dir and, with tree, on its subdirectories (v1 steps). */
static int tree_signal(const char *dir, int sig, int tree)
{
	int n = procs_signal(dir, sig);
	struct dirent *e;
	DIR *d;

	if (!tree || !(d = opendir(dir)))
		return n;
	while ((e = readdir(d))) {
		char *sub;
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", dir, e->d_name);
		n += procs_signal(sub, sig);
		free(sub);
	}
	closedir(d);
	return n;
}

static void freezer_set(const char *dir, const char *state)
{
	char cur[32];

	if (cg_write(dir, "freezer.state", state) < 0)
		return;
	for (int i = 0; i < CG_BUSY_MS / CG_POLL_MS; i++) {
		if (cg_read(dir, "freezer.state", cur, sizeof(cur)) < 0 ||
		    !strcmp(cur, state))
			return;
		sleep_ms(CG_POLL_MS);
	}
}

/* SIGKILL everything in dir (and below, with tree): at once with cgroup.kill;
 * else frozen so that nothing forks away, then thawed to die; else kill until
 * nothing is left to kill. */
static void hier_kill(const struct cg_hier *h, const char *dir, int tree)
{
	if (h->v2 && cg_write(dir, "cgroup.kill", "1") == 0)
		return;
	if (h->freezer) {
		freezer_set(dir, "FROZEN");
		tree_signal(dir, SIGKILL, tree);
		freezer_set(dir, "THAWED");
		return;
	}
	for (int i = 0; i < CG_BUSY_MS / CG_POLL_MS; i++) {
		if (!tree_signal(dir, SIGKILL, tree))
			return;
		sleep_ms(CG_POLL_MS);
	}
}

void cgroup_signal(const struct cgroup *cg, int sig, cgroup_sent_fn sent, void *ctx)
{
	const struct cg_hier *h = cg ? hier_with(cg, CG_TRACK) : NULL;

	if (!h)
		return;
	if (sig == SIGKILL)
		hier_kill(h, h->step, 0);
	else
		procs_signal_unsent(h->step, sig, sent, ctx);
}

int cgroup_busy(const struct cgroup *cg, int whole_job)
{
	const struct cg_hier *h = cg ? hier_with(cg, CG_TRACK) : NULL;

	if (!h)
		return 0;
	return tree_signal(whole_job ? h->job : h->step, 0, whole_job) > 0;
}

void cgroup_kill_job(const struct cgroup *cg)
{
	const struct cg_hier *h = cg ? hier_with(cg, CG_TRACK) : NULL;

	if (h)
		hier_kill(h, h->job, 1);
}

/* ---- accounting ---- */

uint64_t cgroup_oom_kills(const struct cgroup *cg, int task_sigkilled)
{
	const struct cg_hier *h = cg ? hier_with(cg, CG_MEM) : NULL;
	uint64_t v = 0;

	if (!h)
		return 0;
	if (cg_read_key(h->step, h->v2 ? "memory.events" : "memory.oom_control",
	                "oom_kill", &v) == 0)
		return v > cg->oom_base ? v - cg->oom_base : 0;
	if (!h->v2 && task_sigkilled && cg_read_u64(h->step, "memory.failcnt", &v) == 0 &&
	    v > cg->failcnt_base)
		return 1;
	return 0;
}

uint64_t cgroup_max_rss(const struct cgroup *cg)
{
	const struct cg_hier *h = cg ? hier_with(cg, CG_MEM) : NULL;
	uint64_t v = 0;

	if (!h ||
	    cg_read_u64(h->step, h->v2 ? "memory.peak" : "memory.max_usage_in_bytes",
	                &v) < 0)
		return 0;
	return v;
}

uint64_t cgroup_mem_current(const struct cgroup *cg)
{
	const struct cg_hier *h = cg ? hier_with(cg, CG_MEM) : NULL;
	uint64_t v = 0;

	if (!h || cg_read_u64(h->step, h->v2 ? "memory.current" : "memory.usage_in_bytes",
	                      &v) < 0)
		return 0;
	return v;
}

size_t cgroup_procs(const struct cgroup *cg, pid_t *pids, size_t max)
{
	const struct cg_hier *h = cg ? hier_with(cg, CG_TRACK) : NULL;

	return h ? spool_pids_cgroup_procs(h->step, pids, max) : 0;
}

const char *cgroup_step_dir(const struct cgroup *cg)
{
	const struct cg_hier *h = cg ? hier_with(cg, CG_TRACK) : NULL;

	return h ? h->step : NULL;
}

int cgroup_cpu_usage(const struct cgroup *cg, uint64_t *user_usec, uint64_t *sys_usec)
{
	char buf[1024];

	for (int i = 0; cg && i < cg->n; i++) {
		const struct cg_hier *h = &cg->h[i];
		/* every v2 cgroup keeps cpu.stat, with or without the cpu controller */
		if (!h->v2 || !h->step ||
		    cg_read(h->step, "cpu.stat", buf, sizeof(buf)) < 0)
			continue;
		if (keyed_value(buf, "user_usec", user_usec) < 0 ||
		    keyed_value(buf, "system_usec", sys_usec) < 0)
			return -1;
		return 0;
	}
	return -1;
}

/* ---- teardown ---- */

/* rmdir, waiting while processes are still leaving.  Returns 0 or -errno. */
static int rmdir_wait(const char *dir)
{
	for (int i = 0; i < CG_BUSY_MS / CG_POLL_MS; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		sleep_ms(CG_POLL_MS);
	}
	return -EBUSY;
}

/* Whether dir still has child cgroups (other steps of the job). */
static int has_subdirs(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)))
		found = e->d_type == DT_DIR && e->d_name[0] != '.';
	closedir(d);
	return found;
}

void cgroup_destroy(struct cgroup *cg)
{
	const struct cg_hier *t;
	int rc;

	if (!cg)
		return;
	if ((t = hier_with(cg, CG_TRACK)))
		hier_kill(t, t->step, 0);
	for (int i = 0; i < cg->n; i++) {
		struct cg_hier *h = &cg->h[i];

		if ((rc = rmdir_wait(h->step)) < 0)
			log_err("%s cannot remove %s: %s", cg->ids, h->step,
			        strerror(-rc));
		/* the last step of the job to leave removes the job's directory
		 * (whoever creates it retries); the node's stays while rotad
		 * runs: in cgroup v1 a cpuset directory costs 0.5 ms to make */
		else if (!has_subdirs(h->job))
			rmdir_wait(h->job);
		hier_release(h);
	}
	free(cg->task_cpus);
	free(cg);
}

/* ---- rotad's side ---- */

/* Every distinct cgroup mount: the v2 one first, then each v1 controller's.
 * Returns how many (at most 1 + V1_COUNT); the strings are borrowed from m. */
static int mounts_all(const struct cg_mounts *m, const char **ret)
{
	int n = 0;

	if (m->v2)
		ret[n++] = m->v2;
	for (int k = 0; k < V1_COUNT; k++) {
		int seen = 0;
		if (!m->v1[k])
			continue;
		for (int i = 0; i < n; i++)
			seen |= !strcmp(ret[i], m->v1[k]);
		if (!seen)
			ret[n++] = m->v1[k];
	}
	return n;
}

static void step_dir_name(uint32_t step_id, char *buf, size_t size)
{
	if (step_id == STEP_BATCH)
		snprintf(buf, size, "step_batch");
	else
		snprintf(buf, size, "step_%u", step_id);
}

/* rmdir, waiting while processes are still leaving (with wait).  0 or -errno. */
static int rmdir_maybe_wait(const char *dir, int wait)
{
	if (wait)
		return rmdir_wait(dir);
	return rmdir(dir) == 0 || errno == ENOENT ? 0 : -errno;
}

/* rmdir every child cgroup of dir, then dir itself.  0 or -errno. */
static int tree_rmdir(const char *dir, int wait)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int rc = 0, one;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		char *sub;
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", dir, e->d_name);
		if ((one = rmdir_maybe_wait(sub, wait && !rc)) < 0)
			rc = one;
		free(sub);
	}
	closedir(d);
	if ((one = rmdir_maybe_wait(dir, wait && !rc)) < 0)
		rc = one;
	return rc;
}

int cgroup_reap(const char *node_name, const char *instance, uint32_t job_id,
                uint32_t step_id)
{
	struct cg_mounts m = {NULL};
	const char *mnt[1 + V1_COUNT];
	char *nodedir = spool_cgroup_name(node_name, instance), step[32];
	int n, left = 0, killed = 0;

	if (geteuid() != 0) {
		free(nodedir);
		return 0;
	}
	step_dir_name(step_id, step, sizeof(step));
	mounts_read(&m);
	n = mounts_all(&m, mnt);
	/* kill first in every hierarchy, then wait and remove: a process
	 * is in all of them.  Once something would not go, the rest is not
	 * waited for (the caller tries again later): rotad must not block. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			int v2 = m.v2 && mnt[i] == m.v2;
			int freezer =
			    !v2 && m.v1[V1_FREEZER] && !strcmp(mnt[i], m.v1[V1_FREEZER]);
			struct cg_hier h = {.v2 = v2, .freezer = freezer};
			char *job =
			    xasprintf("%s/rota/%s/job_%u", mnt[i], nodedir, job_id);
			char *dir = step_id == NO_VAL ? xstrdup(job)
			                              : xasprintf("%s/%s", job, step);
			int rc;
			struct stat sb;

			if (stat(dir, &sb) < 0) {
				free(job);
				free(dir);
				continue;
			}
			if (pass == 0) {
				if (!killed) /* the same processes in each */
					killed = tree_signal(dir, 0, step_id == NO_VAL);
				hier_kill(&h, dir, step_id == NO_VAL);
			} else {
				rc = step_id == NO_VAL ? tree_rmdir(dir, !left)
				                       : rmdir_maybe_wait(dir, !left);
				if (rc == 0 && step_id != NO_VAL && !has_subdirs(job))
					rmdir_maybe_wait(job, !left);
				if (rc < 0) {
					log_err("JobId=%u cannot remove %s: %s", job_id,
					        dir, strerror(-rc));
					left = 1;
				}
			}
			free(job);
			free(dir);
		}
	}
	if (killed)
		log_info("JobId=%u: killed %d process(es) left in its cgroup%s", job_id,
		         killed, step_id == NO_VAL ? "s" : "");
	mounts_release(&m);
	free(nodedir);
	return left;
}

void cgroup_node_release(const char *node_name, const char *instance)
{
	struct cg_mounts m = {NULL};
	const char *mnt[1 + V1_COUNT];
	char *nodedir;
	int n;

	if (geteuid() != 0)
		return;
	nodedir = spool_cgroup_name(node_name, instance);
	mounts_read(&m);
	n = mounts_all(&m, mnt);
	for (int i = 0; i < n; i++) {
		char *node = xasprintf("%s/rota/%s", mnt[i], nodedir);
		if (!has_subdirs(node))
			rmdir(node); /* EBUSY or ENOENT otherwise: fine */
		free(node);
	}
	mounts_release(&m);
	free(nodedir);
}

size_t cgroup_node_jobs(const char *node_name, const char *instance, uint32_t **ret)
{
	struct cg_mounts m = {NULL};
	const char *mnt[1 + V1_COUNT];
	char *nodedir = spool_cgroup_name(node_name, instance);
	uint32_t *ids = xcalloc(1, sizeof(uint32_t));
	size_t count = 0;
	int n;

	mounts_read(&m);
	n = mounts_all(&m, mnt);
	for (int i = 0; i < n; i++) {
		char *node = xasprintf("%s/rota/%s", mnt[i], nodedir);
		DIR *d = opendir(node);
		struct dirent *e;

		free(node);
		while (d && (e = readdir(d))) {
			unsigned long id;
			char *end;
			size_t k;

			if (e->d_type != DT_DIR || strncmp(e->d_name, "job_", 4))
				continue;
			errno = 0;
			id = strtoul(e->d_name + 4, &end, 10);
			if (errno || *end || end == e->d_name + 4 || id > UINT32_MAX)
				continue;
			for (k = 0; k < count && ids[k] != id; k++)
				;
			if (k < count)
				continue;
			ids = xrealloc(ids, (count + 1) * sizeof(uint32_t));
			ids[count++] = (uint32_t)id;
		}
		if (d)
			closedir(d);
	}
	mounts_release(&m);
	free(nodedir);
	*ret = ids;
	return count;
}
