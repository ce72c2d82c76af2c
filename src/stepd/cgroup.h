/* cgroup.h - containment of one step's tasks: cgroups and CPU affinity.
 *
 * DESIGN: every step gets a cgroup of its own under one per job, as Slurm lays
 * them out: <root>/rota/<node>_<instance>/job_<id>/step_<id|batch>.  <instance>
 * is a short hash of the node's spool directory, so that two clusters of
 * virtual nodes on one host (tests, a developer's cluster) never share a job's
 * cgroup.  The hierarchies are found at run time in /proc/self/mountinfo (once
 * a process: cgroup_preload):
 *   - pure cgroup v2 (Debian 12): one hierarchy does everything (memory.max,
 *     cpuset.cpus, memory.events, cgroup.kill);
 *   - hybrid (v1 controllers beside a controller-less v2 mount): v1 memory for
 *     the limit and the OOM count, v1 cpuset for the cores, and the v2 mount
 *     (cgroup.kill), else the v1 freezer, else v1 pids, to kill everything.
 * With ConstrainDevices (cgroup_opts.step_deny) the v1 devices controller
 * denies the GRES devices the job and the step were not given, or where
 * there is none a BPF program on the step's v2 cgroup does (stepd/devcg.h).
 * Only the tasks join the step's cgroups (rotastepd stays outside, so killing
 * the cgroup never kills the supervisor).  The memory limit is set on the job
 * and on the step, with no swap beyond it, so exceeding it ends in the kernel's
 * OOM killer.  Without a usable hierarchy (not root, read-only, none mounted)
 * everything here degrades to no-ops, logged at debug, and the tasks run
 * unconfined; CPU affinity is still applied.  No threads; not for libraries.
 */
#ifndef ROTA_STEPD_CGROUP_H
#define ROTA_STEPD_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cgroup;

struct cpubind;
struct devcg_list;

struct cgroup_opts {
	const char *node_name; /* borrowed: the virtual node */
	const char *instance;  /* borrowed: what tells clusters apart (spool dir) */
	uint32_t job_id;
	uint32_t step_id;      /* STEP_BATCH for the batch script */
	uint64_t mem_bytes;    /* memory limit, 0 for none */
	const uint32_t *cores; /* borrowed: abstract core ids (0..CPUs-1 of the node) */
	uint32_t ncores;       /* 0: the tasks are not confined to cores */
	/* the step's share of those (borrowed); none: all of them */
	const uint32_t *step_cores;
	uint32_t nstep_cores;
	uint64_t step_mem_bytes; /* the step's own memory limit, 0: mem_bytes */
	uint32_t bind_tasks;     /* tasks here, each bound to its share; 0: none */
	/* --cpu-bind=map_cpu/mask_cpu (borrowed, may be NULL): local task i gets
	 * entry i mod n, the node's CPU ids, kept to the step's CPUs */
	const struct cpubind *cpubind;
	/* ConstrainDevices (borrowed; NULL: devices not constrained): the GRES
	 * device files the job's and the step's tasks may not open */
	const struct devcg_list *job_deny, *step_deny;
};

/* Read what is the same for every step (the cgroup mounts) now, once for
 * this process and the step daemons it forks afterwards. */
void cgroup_preload(void);

/* Create (or join) the job's and the step's cgroups in every usable hierarchy
 * and apply the limits.  Never fails: what cannot be set up is logged and left
 * out.  Caller frees with cgroup_destroy. */
struct cgroup *cgroup_create(const struct cgroup_opts *o);

/* In a forked task child, before it drops privileges: join the step's cgroups
 * and bind to the step's CPUs (with bind_tasks, local task ltid's share of
 * them).  No allocation, no logging.  Returns 0, or -errno with *ret_path
 * (borrowed from cg) naming what failed.  cg may be NULL. */
int cgroup_enter(const struct cgroup *cg, uint32_t ltid, const char **ret_path);

/* Says whether pid was already sent the signal (cgroup_signal skips it). */
typedef int (*cgroup_sent_fn)(pid_t pid, void *ctx);

/* Send sig to every process in the step's cgroup (those that left the task's
 * process group too) for which sent, when given, says no: a process signalled
 * twice runs its handler twice.  SIGKILL kills the whole cgroup at once
 * (cgroup.kill, or freeze/kill/thaw).  No-op without cgroups; cg may be NULL. */
void cgroup_signal(const struct cgroup *cg, int sig, cgroup_sent_fn sent, void *ctx);

/* SIGKILL every process of the job on this node, all steps (the batch script
 * ended).  cg may be NULL. */
void cgroup_kill_job(const struct cgroup *cg);

/* Is any process left in the step's cgroup (with whole_job, in any step of
 * the job)?  0 without cgroups; cg may be NULL. */
int cgroup_busy(const struct cgroup *cg, int whole_job);

/* OOM kills in the step since cgroup_create.  Where the kernel keeps no such
 * count (v1 before 4.13), a hit limit (memory.failcnt) with task_sigkilled
 * set counts as one.  0 without a memory cgroup. */
uint64_t cgroup_oom_kills(const struct cgroup *cg, int task_sigkilled);

/* Peak memory use of the step in bytes (memory.max_usage_in_bytes, or
 * memory.peak), 0 when unknown. */
uint64_t cgroup_max_rss(const struct cgroup *cg);

/* Memory the step's cgroup is charged now (memory.current, v1
 * memory.usage_in_bytes), in bytes; 0 when unknown. */
uint64_t cgroup_mem_current(const struct cgroup *cg);

/* Up to max pids of the processes in the step's cgroup into pids; returns
 * how many (0 without cgroups).  For sampling: the list may be stale as soon
 * as it is read. */
size_t cgroup_procs(const struct cgroup *cg, pid_t *pids, size_t max);

/* The directory whose cgroup.procs cgroup_procs reads (borrowed), or NULL. */
const char *cgroup_step_dir(const struct cgroup *cg);

/* CPU time of the step's tasks (cpu.stat of its cgroup v2 directory: pure v2
 * or the hybrid's kill hierarchy).  Returns 0, or -1 where there is none. */
int cgroup_cpu_usage(const struct cgroup *cg, uint64_t *user_usec, uint64_t *sys_usec);

/* Kill what is left in the step, remove its directory (and the job's when no
 * other step is left; the node's stays, see cgroup_node_release), retrying
 * briefly while it is busy, and free.  NULL ok. */
void cgroup_destroy(struct cgroup *cg);

/* ---- rotad's side: the node owns its jobs' cgroups ----
 * These find the directories from the names alone (node_name and instance as
 * in cgroup_opts), in every cgroup hierarchy mounted, so that rotad can clean
 * up after a rotastepd that died or that an earlier rotad left behind. */

/* SIGKILL every process in the cgroups of job_id on this node (step_id
 * NO_VAL: all its steps; else that step only: STEP_BATCH for the batch
 * script), wait briefly for them to go, and remove the directories (the
 * job's when no step is left).  Returns 0 when nothing is left, 1 when
 * something still is (call again later).  No-op (0) without cgroups. */
int cgroup_reap(const char *node_name, const char *instance, uint32_t job_id,
                uint32_t step_id);

/* Remove this node's own directory in every hierarchy where no job has one
 * left (rotad exiting; the jobs' steps remove only their job's). */
void cgroup_node_release(const char *node_name, const char *instance);

/* The ids of the jobs that have a cgroup directory of this node in any
 * hierarchy (each once).  Returns how many; *ret (caller frees) is set even
 * when there are none. */
size_t cgroup_node_jobs(const char *node_name, const char *instance, uint32_t **ret);

#endif
