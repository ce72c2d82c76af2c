/* stepd.h - rotastepd's context, shared by its modules (stepd/ only).
 *
 * DESIGN: rotad forks one step daemon per launch (the batch script, or one
 * step's tasks on this node) and hands it the MSG_LAUNCH_REQ on fd 3: a child
 * of rotad that runs stepd_main() (no exec: noded/stepd_mgr.c), or the
 * rotastepd binary, which does the same on its own.  The stepd
 * setsid()s so that it outlives rotad restarts, forks the tasks as the user and
 * then runs one poll() loop (no threads: it forks user code) over:
 *   - a signalfd (SIGCHLD, and SIGTERM/SIGINT = terminate the step),
 *   - the rotad link (fd 3, or a re-attached connection on the spool socket),
 *   - the srun I/O link (steps) and the tasks' stdout/stderr/stdin pipes.
 * When every task has exited and its pipes are drained it reports
 * MSG_STEP_COMPLETE to rotad (or leaves a .done file in the spool when no rotad
 * is there, see common/spool.h) and exits.
 */
#ifndef ROTA_STEPD_H
#define ROTA_STEPD_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "common/cpubind.h"
#include "common/membind.h"
#include "common/error.h"
#include "common/linebuf.h"
#include "common/rlimits.h"
#include "common/spool.h"
#include "proto/messages.h"

struct cgroup;
struct conf;
struct container;
struct launch_req;
struct msglink;
struct nvml_watch;
struct pmi;

/* sattach connections a step daemon keeps at once (stepd/io.c). */
#define STEPD_ATTACH_MAX 16

/* Local tasks per node we accept (each costs up to four descriptors). */
#define STEPD_MAX_TASKS      4096
#define STEPD_MAX_STEP_TASKS (1u << 22) /* of the step, all nodes */

/* Exit status of rotastepd when it could not even report a launch failure;
 * rotad then reports STEP_DONE_LAUNCH_FAILED itself. */
#define STEPD_EXIT_SETUP SPOOL_STEPD_EXIT_SETUP

struct stepd_task {
	uint32_t gtid; /* global task id (SLURM_PROCID) */
	uint32_t ltid; /* local task id (SLURM_LOCALID) */
	pid_t pid;     /* 0 once reaped */
	pid_t pgid;    /* its process group (the first pid) */
	int status;    /* wait status, valid when exited */
	int exited;
	int reported; /* MSG_TASK_EXIT sent (or nowhere to send it) */
	pid_t epilog; /* its --task-epilog's supervisor while it runs: the exit
	               * is reported after it, as Slurm's */
	int out_fd;   /* our end of the task's stdout pipe, -1 if none/closed */
	int err_fd;   /* same for stderr */
	int in_fd;    /* our end of the stdin pipe (task 0, or srun -i), -1 if none */
	char *in_buf; /* stdin bytes from srun not yet written */
	size_t in_len;
	int in_eof;   /* srun sent EOF: close in_fd once in_buf is written */
	int pty;      /* --pty: in_fd and out_fd are the master of its terminal */
	int pty_idle; /* its slave side is closed for now: out_fd not polled */
	/* srun -l with its own output files (-o out.%t): the files, opened as the
	 * user, that out_fd's and err_fd's lines go to labelled (one fd when both
	 * streams share a file); -1 none.  lb: each stream's unfinished line. */
	int out_file, err_file;
	struct linebuf lb[2];
};

struct stepd_given;

/* What the step's processes use (usage.c): sampled every
 * JobAcctGatherFrequency seconds and whenever sstat asks, so that the high-
 * water marks hold where the kernel keeps none (cgroup v1 without
 * max_usage_in_bytes, no cgroups at all). */
struct task_use {
	uint64_t rss_kib, max_rss_kib, vsize_kib, max_vsize_kib, cpu_usec;
	uint64_t read_bytes, write_bytes;
};
struct stepd_usage {
	uint32_t period; /* seconds between samples; 0: only when asked */
	int none;        /* jobacct_gather/none: nothing is gathered */
	int proc_only;   /* jobacct_gather/linux: /proc alone, not the cgroup */
	time_t next;     /* the next periodic sample, 0: none */
	uint64_t rss_kib, max_rss_kib, vsize_kib, max_vsize_kib;
	uint64_t user_usec, sys_usec, read_bytes, write_bytes;
	pid_t *pids; /* the processes found by the last sample */
	size_t npids;
	/* each task's share, by process group, when 1 < ntasks <= USAGE_TASKS_MAX
	 * (the cgroup is the step's: only /proc tells tasks apart) */
	struct task_use *task;
	/* the step's GPUs through NVML (common/nvml_dl.h), opened at the first
	 * sample: gpu_state 0 not yet tried, 1 watched, -1 none (no GPUs, no
	 * NVML) */
	struct nvml_watch *gpu;
	int gpu_state;
	uint32_t ngpus, gpu_util, max_gpu_util;
	uint64_t gpu_mem, max_gpu_mem;
	uint64_t gpu_samples, gpu_mem_sum, gpu_util_sum; /* for the averages */
};

#define STEPD_EARLY_SIGNALS 16

struct stepd {
	const struct conf *conf;
	struct conf *own_conf; /* conf when read here, NULL when given by rotad */
	const struct stepd_given *given; /* stepd_main.h; NULL in rotastepd */
	struct launch_req *req;
	const char *conf_path; /* absolute SLURM_CONF */
	int batch;             /* step_id == STEP_BATCH */
	int verbose;
	struct logtee *logtee; /* srun --slurmd-debug (logtee.h); NULL: none */
	/* what the tasks used (uncontain()), sent with the step's end */
	uint64_t max_rss_kib, user_usec, sys_usec;
	struct stepd_usage usage;

	char *user; /* borrowed from req or looked up */
	uid_t uid;
	gid_t gid;
	int as_root; /* we switch users in the children */
	gid_t *gids; /* the user's groups for setgroups(); NULL: initgroups() */
	int ngids;
	mode_t umask;

	char *spool;      /* SlurmdSpoolDir for this node */
	char *sock_path;  /* <spool>/<node>_<job>.<step>, NULL if no socket */
	char *job_dir;    /* <spool>/job%05u (batch only) */
	char *script;     /* <job_dir>/slurm_script (batch only) */
	uint32_t node_id; /* a step's node index (SLURM_NODEID), 0 for batch */
	/* --task-epilog runs not yet over (task.c): the step ends after them */
	pid_t *epilogs;
	uint32_t nepilogs;
	uint32_t gtid_base; /* global id of local task 0 */

	struct stepd_task *tasks;
	uint32_t ntasks;
	char **env; /* environment shared by all tasks (caller of env_build frees) */

	int sigfd;
	int listen_fd;       /* spool socket for re-attaching rotads, -1 if none */
	struct msglink *ctl; /* rotad, NULL while detached */
	struct msglink *io;  /* srun, NULL if none or lost */
	/* sattach's, as many as came and are still there */
	struct msglink *attach[STEPD_ATTACH_MAX];
	uint8_t attach_dead[STEPD_ATTACH_MAX]; /* to go (io_attach_reap) */
	uint32_t nattach;
	struct cgroup *cg;        /* the step's containment (stepd/cgroup.h) */
	struct cpubind cpubind;   /* the step's --cpu-bind (common/cpubind.h) */
	struct membind membind;   /* its --mem-bind (common/membind.h) */
	uint32_t numa_nodes;      /* NUMA nodes of this node (0: not known) */
	uint8_t cpu_node[1024];   /* --mem-bind=local: each CPU's NUMA node */
	struct rlimits_want rlim; /* the submit host's limits (common/rlimits.h) */
	struct container *ctr;    /* --container-image (stepd/container.h), or NULL */
	struct pmi *pmi;          /* --mpi=pmi2 (stepd/pmi.h), or NULL */

	time_t kill_at;  /* SIGKILL the tasks at this time (0: not terminating) */
	time_t drain_by; /* after the last task exits, stop waiting for pipes */
	int terminating;
	int started; /* the tasks were forked (not a step ended in its setup) */
	/* signals (not terminates) that came before the tasks were started,
	 * delivered to them once they are (scontrol suspend, srun's Ctrl-C) */
	uint32_t early_sig[STEPD_EARLY_SIGNALS], early_flags[STEPD_EARLY_SIGNALS];
	uint32_t nearly;
};

/* The job and step ids a step's tasks see: over several components of a
 * heterogeneous job (or parts of one job), the leader's (or the job's) and
 * the first part's, the same in every part (launch_req.het_leader). */
static inline uint32_t stepd_seen_job(const struct launch_req *r)
{
	return r->het_leader ? r->het_leader : r->job_id;
}
static inline uint32_t stepd_seen_step(const struct launch_req *r)
{
	return r->het_leader ? r->het_step_id : r->step_id;
}

/* ---- env.c ---- */
/* Environment shared by all tasks: launch env + job (+ step) SLURM_* variables.
 * Caller frees with strv_free. */
char **env_build(const struct stepd *st);
/* Add one task's variables (SLURM_PROCID, SLURM_TASK_PID...) in the child. */
char **env_add_task(char **env, const struct stepd *st, const struct stepd_task *t);
/* --gpu-bind (or --gpus-per-task's per_task:N, common/gpubind.h): the GPUs
 * task t is bound to, as its CUDA_VISIBLE_DEVICES; NULL when it sees all the
 * step's.  *ret_say: with verbose, the line for its stderr, else NULL.  Made
 * in the step daemon (a vfork child allocates nothing); caller frees both. */
char *env_task_gpus(const struct stepd *st, const struct stepd_task *t, char **ret_say);

/* ---- userenv.c ---- */
/* The user's login environment on this node (sbatch --get-user-env), read with
 * `su - USER` when we are root.  Returns 0 and *ret_env (caller frees with
 * strv_free), or -1 with err.  Blocks for up to two minutes. */
int userenv_load(const struct stepd *st, char ***ret_env, struct rota_error *err);

/* ---- task.c ---- */
/* Create the tasks' output files as the user (steps with srun -o), pipes, and
 * fork+exec every task.  Returns 0 or -1 with err (nothing left running). */
int task_launch_all(struct stepd *st, struct rota_error *err);
/* Send sig to the process group of every task not yet reaped. */
void task_signal_all(struct stepd *st, int sig);
/* Send sig to the tasks' own processes only (the batch shell, not what it
 * started). */
void task_signal_leaders(struct stepd *st, int sig);
/* SIGKILL what is left in the groups of tasks that have all exited (processes
 * they left behind, as Slurm's proctrack does at step end). */
void task_kill_leftovers(struct stepd *st);
/* Whether a step task that exited with a failure was ended by the step's
 * memory limit (an oom_kill in the step's cgroup).  Never for the batch step. */
int task_oom_killed(const struct stepd *st, const struct stepd_task *t);
/* Reap exited children; returns how many tasks exited. */
int task_reap(struct stepd *st);
/* Append text to the first task's stderr when it is a file (the batch script's
 * output file, srun -e), as the user.  Returns 1 if written, 0 if that stderr
 * is not a file, -1 on failure. */
int task_write_err_file(struct stepd *st, const char *text);

/* ---- pdebug.c: a step under a parallel debugger (STEP_F_PARALLEL_DEBUG) ---- */
/* Whether the step's tasks stop for a debugger (a step with the flag). */
int pdebug_wanted(const struct stepd *st);
/* In the task's child, right before its exec: PTRACE_TRACEME when wanted.
 * Returns 0 or -errno. */
int pdebug_traceme(const struct stepd *st);
/* After t's exec: take its exec stop, leave it stopped (SIGSTOP) and
 * untraced.  A task that ended instead is marked exited.  Returns 0 (also
 * when not wanted) or -errno. */
int pdebug_stop(struct stepd *st, struct stepd_task *t);
/* MSG_DEBUG_WAKE: continue the stopped tasks no debugger traces. */
void pdebug_wake(struct stepd *st);
/* The node's tasks, pids (0: ended) and programs for MSG_TASK_PIDS; release
 * with pdebug_pids_release (node_name is borrowed from st). */
void pdebug_pids(const struct stepd *st, struct task_pids *ret);
void pdebug_pids_release(struct task_pids *p);

/* ---- io.c ---- */
/* Connect to srun and say hello (steps with an io_host); on failure st->io stays
 * NULL and the tasks' output is discarded. */
void io_connect(struct stepd *st);
/* After the launch: the tasks' pids (MSG_TASK_PIDS) once they started, and
 * EOF for the streams that go to files, so srun sees exactly one EOF per task
 * and stream. */
void io_launched(struct stepd *st);
/* Poll events for the srun link (adjusts stdin back-pressure). */
short io_link_events(struct stepd *st);
/* Whether the tasks' output pipes should be polled (srun keeps up). */
int io_want_output(const struct stepd *st);
void io_on_link(struct stepd *st, short revents);
/* stream: 1 stdout, 2 stderr. */
void io_on_pipe(struct stepd *st, struct stepd_task *t, int stream);
void io_on_stdin(struct stepd *st, struct stepd_task *t, short revents);
/* sattach (MSG_STEP_ATTACH_REQ from rotad): connect to it, say hello, and
 * from then on send it what srun gets (what is over before: each finished
 * stream's EOF and each reported task's exit). */
struct step_attach;
void io_attach(struct stepd *st, const struct step_attach *req);
/* Close the sattach links that went away or fell behind (between polls). */
void io_attach_reap(struct stepd *st);
/* sattach link i's poll events (and fd), -1 when none. */
int io_attach_fd(const struct stepd *st, uint32_t i, short *events);
void io_on_attach(struct stepd *st, uint32_t i, short revents);
/* Send MSG_TASK_EXIT for exited tasks whose output is drained. */
void io_report_exits(struct stepd *st);
/* Whether every task's output pipes have reached EOF. */
int io_drained(const struct stepd *st);
/* Close every remaining pipe (sending EOFs), report the exits, flush and close
 * the srun link. */
void io_finish(struct stepd *st);

/* ---- main.c ---- */
/* A "slurmstepd: error: ..." line (with its newline) for the user: appended to
 * the first task's stderr file, else sent on its stderr stream to srun. */
void stepd_tell_user(struct stepd *st, const char *line);
/* The same line on task t's stderr stream to srun (NULL: the first task's). */
void stepd_user_error(struct stepd *st, const struct stepd_task *t, const char *line);

/* ---- usage.c ---- */
struct step_stat_req;
/* Read JobAcctGatherFrequency / JobAcctGatherType (SLURM_ACCTG_FREQ in the
 * launch environment, from srun/sbatch --acctg-freq, overrides the period). */
void usage_init(struct stepd *st);
/* Sample if one is due at now; returns ms until the next one, -1 for none. */
int usage_tick(struct stepd *st, time_t now);
/* Sample now (no-op with jobacct_gather/none). */
void usage_sample(struct stepd *st);
/* Answer rotad's MSG_STEP_STAT_REQ (sstat) with a fresh sample. */
void usage_answer(struct stepd *st, const struct step_stat_req *req);
/* The step's GPU figures into sc's GPU_USE_FIELDS (gpus 0: none watched). */
struct step_complete;
void usage_gpu_report(const struct stepd *st, struct step_complete *sc);
/* ... and each task's (sc->tasks, allocated; the caller frees it). */
void usage_tasks_report(const struct stepd *st, struct step_complete *sc);
void usage_release(struct stepd *st);

/* ---- names.c ---- */
/* Make the cluster's node names resolve for the step's processes where they
 * do not already (the local cluster's virtual nodes): as root, a mount
 * namespace of the step daemon's own, slave to the host's, with
 * <spool>/etc_hosts (the host's /etc/hosts plus the nodes of slurm.conf,
 * common/hostsfile.h) bound over /etc/hosts.  The host's /etc/hosts is left
 * alone.  Call before forking the tasks; failures are logged at debug level
 * and the step goes on with the host's names. */
void names_setup(const struct stepd *st);

/* ---- pids_file.c ---- */
/* <spool>/<node>_<job>.<step>.pids (common/spool_pids.h): written once the
 * tasks run, removed when the step reports its end (pids_file.c). */
void pids_file_write(const struct stepd *st);
void pids_file_remove(const struct stepd *st);

/* ---- ctl.c ---- */
/* Listen on the spool socket so that a restarted rotad can re-attach. */
void ctl_listen(struct stepd *st);
void ctl_on_listen(struct stepd *st);
void ctl_on_link(struct stepd *st, short revents);
/* Handle what rotad has already sent (a terminate request that raced the
 * tasks' exit still gets its notice), without waiting. */
void ctl_drain(struct stepd *st);
/* Apply a MSG_SIGNAL_REQ's signal and flags.  A signal (not a terminate)
 * that comes before the tasks are started is kept for them. */
void ctl_signal(struct stepd *st, uint32_t sig, uint32_t flags);
/* The tasks were started: deliver the signals kept for them. */
void ctl_signal_early(struct stepd *st);
/* Report completion to rotad (or into the spool when no rotad holds the link)
 * and remove the socket. */
void ctl_report(struct stepd *st, uint32_t status, uint32_t flags, const char *msg);

#endif
