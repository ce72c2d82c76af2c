/* The step daemon: supervise one job step (or a batch script) on this node.
 * stepd_main() runs in a child rotad forks for each launch (noded/stepd_mgr.c),
 * or as `rotastepd [-L logfile] [-v]` (stepd/rotastepd.c), with MSG_LAUNCH_REQ
 * on fd 3.  See stepd.h for the design. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/taskdist.h"
#include "common/grouplist.h"
#include "common/gres_inv.h"
#include "common/hostlist.h"
#include "common/spool.h"
#include "proto/auth.h"
#include "proto/cred.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "stepd/logtee.h"
#include "stepd/script_job.h"
#include "stepd/cgroup.h"
#include "stepd/devcg.h"
#include "stepd/msglink.h"
#include "stepd/pmi.h"
#include "stepd/stepd.h"
#include "stepd/container.h"
#include "stepd/stepd_main.h"
#include "common/script.h"
#include "proto/codec.h"
#include "common/common.h"

#define STEPD_LAUNCH_FD 3
#define STEPD_DRAIN_S   2 /* how long to wait for pipes after the last exit */

static void usage(void)
{
	fprintf(stderr, "usage: rotastepd [-L logfile] [-v]   (started by rotad)\n");
	exit(STEPD_EXIT_SETUP);
}

static int setup_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* The user's groups, once for all tasks: as rotad handed them (an earlier step
 * daemon's lookup, common/grouplist.h), else looked up here and sent to rotad
 * for the next ones.  Left NULL when the lookup fails: each task then calls
 * initgroups() and reports its error.  (The rotastepd binary, run by tests
 * that play rotad, sends nothing.) */
static void resolve_groups(struct stepd *st)
{
	const struct stepd_given *g = st->given;
	struct stepd_groups sg = {0};
	int n;

	if (g && g->gids && g->ngids && g->user && !strcmp(g->user, st->user) &&
	    g->gid == st->gid) {
		st->gids = xcalloc(g->ngids, sizeof(gid_t));
		memcpy(st->gids, g->gids, g->ngids * sizeof(gid_t));
		st->ngids = (int)g->ngids;
		return;
	}
	if ((n = grouplist_lookup(st->user, st->gid, &st->gids)) < 0) {
		log_debug("JobId=%u groups of %s: %s", st->req->job_id, st->user,
		          strerror(errno));
		return;
	}
	st->ngids = n;
	sg.user = st->user;
	sg.gid = st->gid;
	sg.gids.v = (uint32_t *)st->gids;
	sg.gids.n = (uint32_t)n;
	if (st->ctl && g) /* a rotad that keeps them: ours was forked by one */
		msglink_send(st->ctl, MSG_STEPD_GROUPS, &sg);
}

/* Who the tasks run as; fails unless we are root or already that user. */
static int resolve_user(struct stepd *st, struct rota_error *err)
{
	const struct launch_req *req = st->req;
	const char *um = strv_getenv(req->env, "SLURM_UMASK");

	st->uid = req->uid;
	st->gid = req->gid;
	st->as_root = geteuid() == 0;
	if (!st->as_root && st->uid != geteuid())
		return errprintf(err,
		                 "rotastepd runs as uid %u, cannot start jobs of uid %u",
		                 (unsigned)geteuid(), (unsigned)st->uid);
	if (req->user && *req->user) {
		st->user = xstrdup(req->user);
	} else {
		struct passwd pw, *res = NULL;
		char buf[4096];
		if (getpwuid_r(st->uid, &pw, buf, sizeof(buf), &res) || !res)
			return errprintf(err, "unknown uid %u", (unsigned)st->uid);
		st->user = xstrdup(pw.pw_name);
	}
	if (st->as_root)
		resolve_groups(st);
	/* SLURM_UMASK first, as Slurm's stepd reads it: srun sets it from its own
	 * umask outside a job and passes the job's on inside one */
	st->umask = 022;
	if (um && *um && strspn(um, "01234567") == strlen(um))
		st->umask = (mode_t)(strtoul(um, NULL, 8) & 0777);
	else if (req->umask && req->umask != NO_VAL)
		st->umask = (mode_t)(req->umask & 0777);
	return 0;
}

/* Batch: write the script into <spool>/job%05u/slurm_script, owned by the user.
 * The directory is handed to the user only once the script is in place, and
 * the script is created O_EXCL|O_NOFOLLOW, so nothing the user plants there is
 * followed by root. */
static int write_script(struct stepd *st, struct rota_error *err)
{
	const char *s = st->req->script;
	int fd, rc;

	if (!s)
		return errprintf(err, "batch script missing");
	st->job_dir = xasprintf("%s/job%05u", st->spool, st->req->job_id);
	st->script = xasprintf("%s/slurm_script", st->job_dir);
	if (mkdir(st->job_dir, 0700) < 0 && errno != EEXIST)
		return errprintf(err, "mkdir %s: %s", st->job_dir, strerror(errno));
	unlink(st->script);
	fd = open(st->script, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
	if (fd < 0)
		return errprintf(err, "create %s: %s", st->script, strerror(errno));
	rc = net_write_all(fd, s, strlen(s));
	if (rc == 0 && st->as_root && fchown(fd, st->uid, st->gid) < 0)
		rc = -errno;
	close(fd);
	if (rc < 0)
		return errprintf(err, "write %s: %s", st->script, strerror(-rc));
	if (st->as_root && chown(st->job_dir, st->uid, st->gid) < 0)
		return errprintf(err, "chown %s: %s", st->job_dir, strerror(errno));
	return 0;
}

/* Give the tasks the virtual node's name as their hostname (root only). */
static void set_hostname(const struct stepd *st)
{
	char host[256] = "";
	const char *name = st->req->node_name;

	gethostname(host, sizeof(host) - 1);
	if (!st->as_root || !name || !strcmp(host, name))
		return;
	if (unshare(CLONE_NEWUTS) < 0 || sethostname(name, strlen(name)) < 0)
		log_debug("JobId=%u StepId=%u cannot set hostname %s: %s",
		          st->req->job_id, st->req->step_id, name, strerror(errno));
}

/* Decide which tasks run here: batch = one; step = step_tasks_per_node. */
static int layout_tasks(struct stepd *st, struct rota_error *err)
{
	const struct launch_req *req = st->req;
	uint32_t n = 1, off = 0, total = 1, *gtids = NULL;
	uint64_t sum = 1;

	if (!st->batch) {
		if (req->node_index >= req->step_tasks_per_node.n)
			return errprintf(err, "node index %u outside the step",
			                 req->node_index);
		if (!req->argv || !req->argv[0])
			return errprintf(err, "no command to run");
		sum = 0; /* 64 bits: counts that wrap are refused, not summed */
		for (uint32_t i = 0; i < req->step_tasks_per_node.n; i++) {
			if (i < req->node_index)
				off += req->step_tasks_per_node.v[i];
			sum += req->step_tasks_per_node.v[i];
			if (sum > STEPD_MAX_STEP_TASKS)
				break;
		}
		n = req->step_tasks_per_node.v[req->node_index];
		st->node_id = req->node_index;
	}
	if (n > STEPD_MAX_TASKS || sum > STEPD_MAX_STEP_TASKS)
		return errprintf(err, "%u tasks on one node, %llu in all (limits %u, %u)",
		                 n, (unsigned long long)sum, STEPD_MAX_TASKS,
		                 STEPD_MAX_STEP_TASKS);
	total = (uint32_t)sum;
	/* which ids are ours: -m (common/taskdist.h), block by default */
	if (!st->batch) {
		gtids = xcalloc(total + 1, sizeof(*gtids));
		taskdist_gtids_map(req->task_dist, req->step_tasks_per_node.v,
		                   req->step_tasks_per_node.n, req->task_map.v,
		                   req->task_map.n, gtids);
		st->gtid_base = n ? gtids[off] : off;
	}
	st->ntasks = n;
	st->tasks = xcalloc(n ? n : 1, sizeof(*st->tasks));
	for (uint32_t i = 0; i < n; i++) {
		st->tasks[i].gtid = gtids ? gtids[off + i] : st->gtid_base + i;
		st->tasks[i].ltid = i;
		st->tasks[i].in_fd = st->tasks[i].out_fd = st->tasks[i].err_fd = -1;
		st->tasks[i].out_file = st->tasks[i].err_file = -1;
	}
	free(gtids);
	return 0;
}

/* CPUs of the job on this node: its cores, or (older controllers) its entry
 * in job_cpus_per_node. */
static uint32_t node_cpus(const struct stepd *st)
{
	const struct launch_req *req = st->req;
	char **names = NULL;
	size_t n = 0;
	uint32_t cpus = 0;

	if (req->cores.n)
		return req->cores.n;
	if (!req->job_nodes || hostlist_expand(req->job_nodes, &names, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n && i < req->job_cpus_per_node.n; i++)
		if (!strcmp(names[i], req->node_name))
			cpus = req->job_cpus_per_node.v[i];
	hostlist_free(names);
	return cpus;
}

/* --mem (per node) or --mem-per-cpu times our CPUs, in bytes; 0: no limit. */
static uint64_t mem_limit(const struct stepd *st)
{
	const struct launch_req *req = st->req;
	uint64_t mb = 0;

	if (req->mem_per_node && req->mem_per_node != NO_VAL64)
		mb = req->mem_per_node;
	else if (req->mem_per_cpu && req->mem_per_cpu != NO_VAL64)
		mb = req->mem_per_cpu * node_cpus(st);
	return mb > (UINT64_MAX >> 20) ? 0 : mb << 20;
}

/* --cpu-bind=cores (threads, sockets...), or TaskPlugin=task/affinity unless
 * --cpu-bind=none: each task of a step gets its own share of the CPUs. */
static int binds_tasks(const struct stepd *st)
{
	uint32_t f = st->req->flags;
	const char *tp = st->conf->task_plugin;

	if (st->batch || (f & STEP_F_CPU_BIND_NONE) || st->cpubind.type == CPUBIND_NONE)
		return 0;
	return (f & STEP_F_CPU_BIND) || st->cpubind.type != CPUBIND_DEFAULT ||
	       (tp && strstr(tp, "affinity"));
}

/* A /sys list ("0-3,8-11") into bits[GRES_CORE_WORDS]; 0, or -EINVAL
 * when it cannot be read (common/gres_inv.h's list parser). */
static int sys_list(const char *path, uint64_t *bits)
{
	FILE *f = fopen(path, "re");
	char buf[4096] = "";

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return gres_cores_parse(buf, bits);
}

/* NUMA nodes of this machine: the highest of /sys's online list, plus one
 * (1 when it cannot be read). */
static uint32_t numa_node_count(void)
{
	uint64_t on[GRES_CORE_WORDS];
	uint32_t top = 0;

	if (sys_list("/sys/devices/system/node/online", on) < 0)
		return 1;
	for (uint32_t i = 0; i < MEMBIND_MAX_NODE; i++)
		if (on[i / 64] >> (i % 64) & 1)
			top = i + 1;
	return top ? top : 1;
}

/* Each CPU's NUMA node, from /sys's nodeN/cpulist; CPUs it does not name
 * are on none (255). */
static void cpu_nodes(struct stepd *st)
{
	memset(st->cpu_node, 255, sizeof(st->cpu_node));
	for (uint32_t node = 0; node < st->numa_nodes; node++) {
		char path[64];
		uint64_t cpus[GRES_CORE_WORDS];
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist",
		         node);
		if (sys_list(path, cpus) < 0)
			continue;
		for (uint32_t c = 0; c < sizeof(st->cpu_node) && c < GRES_CORES_MAX; c++)
			if (cpus[c / 64] >> (c % 64) & 1)
				st->cpu_node[c] = (uint8_t)node;
	}
}

/* Put the step in its cgroups (memory limit, cores); see stepd/cgroup.h. */
static void read_cpu_bind(struct stepd *st)
{
	struct rota_error err = {""};

	/* srun checked it; what a node cannot read binds as the default */
	if (!st->batch && st->req->cpu_bind &&
	    cpubind_parse(st->req->cpu_bind, &st->cpubind, &err) < 0)
		log_err("JobId=%u StepId=%u %s", st->req->job_id, st->req->step_id,
		        err.text);
	if (!st->batch && st->req->mem_bind &&
	    membind_parse(st->req->mem_bind, &st->membind, &err) != 0) {
		log_err("JobId=%u StepId=%u %s", st->req->job_id, st->req->step_id,
		        err.text);
		membind_release(&st->membind);
	}
	if (st->membind.type > MEMBIND_NONE)
		st->numa_nodes = numa_node_count();
	if (st->membind.type == MEMBIND_LOCAL)
		cpu_nodes(st);
}

/* ConstrainDevices: the node's GRES device files the job, and the step,
 * were not given.  0, or -1 when devices are not constrained. */
static int devices_deny(const struct stepd *st, struct devcg_list *job,
                        struct devcg_list *step)
{
	const struct launch_req *r = st->req;
	const char *skipped = NULL;

	if (!(r->node_flags & LAUNCH_NF_CONSTRAIN_DEVICES))
		return -1;
	if (devcg_deny_build(r->node_gres_devs, r->node_gres_devs_count, r->gres, job,
	                     &skipped) < 0 ||
	    devcg_deny_build(r->node_gres_devs, r->node_gres_devs_count,
	                     r->step_gres ? r->step_gres : r->gres, step, &skipped) < 0) {
		/* deny them all rather than trust what does not parse */
		log_err("JobId=%u StepId=%u GRES allocation '%s' unreadable: every GRES "
		        "device denied",
		        r->job_id, r->step_id,
		        r->step_gres ? r->step_gres
		        : r->gres    ? r->gres
		                     : "");
		devcg_deny_build(r->node_gres_devs, r->node_gres_devs_count, NULL, job,
		                 NULL);
		*step = *job;
	}
	if (skipped)
		log_info("JobId=%u StepId=%u ConstrainDevices: %s is not a device file, "
		         "not constrained",
		         r->job_id, r->step_id, skipped);
	return 0;
}

static void contain(struct stepd *st)
{
	struct devcg_list *deny = xcalloc(2, sizeof(*deny));
	int constrain = devices_deny(st, &deny[0], &deny[1]) == 0;
	struct cgroup_opts o = {
	    .node_name = st->req->node_name,
	    .instance = st->spool,
	    .job_id = st->req->job_id,
	    .step_id = st->req->step_id,
	    .mem_bytes = mem_limit(st),
	    .cores = st->req->cores.v,
	    .ncores = st->req->cores.n,
	    .step_cores = st->req->step_cores.v,
	    .nstep_cores = st->req->step_cores.n,
	    .bind_tasks = binds_tasks(st) ? st->ntasks : 0,
	    .cpubind = &st->cpubind,
	    .step_mem_bytes = st->req->step_mem && st->req->step_mem < (UINT64_MAX >> 20)
	                          ? st->req->step_mem << 20
	                          : 0,
	    .job_deny = constrain ? &deny[0] : NULL,
	    .step_deny = constrain ? &deny[1] : NULL,
	};

	st->cg = cgroup_create(&o);
	free(deny);
}

#define PROLOG_TIMEOUT_S 300

static int prolog_failed;

/* slurm.conf Prolog: as root, once per job and node, before the first step's
 * tasks.  A failure stops the launch (the controller drains the node). */
static int run_prolog(struct stepd *st, struct rota_error *err)
{
	const struct launch_req *r = st->req;
	struct script_job *job;
	char **env;
	pid_t pid;
	int status;

	if (!(r->node_flags & LAUNCH_NF_PROLOG) || !st->conf->prolog || geteuid() != 0)
		return 0;
	job = script_job_of(r);
	env = script_env("prolog_slurmd", job, r->node_name, r->cluster_name,
	                 st->conf->path);
	script_job_free(job);
	pid = script_spawn(st->conf->prolog, env, -1);
	strv_free(env);
	status = pid < 0 ? (int)pid : script_wait(pid, PROLOG_TIMEOUT_S);
	if (status == 0)
		return 0;
	prolog_failed = 1;
	if (status < 0)
		return errprintf(err, "prolog %s failed: %s", st->conf->prolog,
		                 strerror(-status));
	return errprintf(err, "prolog %s failed: status %d", st->conf->prolog, status);
}

/* The job's first launch here got past the Prolog (or there is none): tell
 * the controller, which ends the job's CONFIGURING. */
static void prolog_report(struct stepd *st)
{
	struct step_complete sc = {.job_id = st->req->job_id,
	                           .step_id = st->req->step_id,
	                           .node_name = st->req->node_name,
	                           .start_time = st->req->start_time};

	if ((st->req->node_flags & LAUNCH_NF_PROLOG) && st->ctl)
		msglink_send(st->ctl, MSG_PROLOG_COMPLETE, &sc);
}

static void on_signal(struct stepd *st);

/* A terminate (scancel, a requeue, the node going down) or a SIGTERM that came
 * while the step was being set up (a Prolog, --get-user-env's login shell, a
 * container) is not left for the loop to act on once the tasks run: they are
 * not started at all, each counted as killed by SIGTERM.  Otherwise a step
 * daemon killed right after (rota down, KillWait over) leaves tasks that
 * nobody watches. */
static int terminated_in_setup(struct stepd *st)
{
	on_signal(st);
	ctl_drain(st);
	if (!st->terminating)
		return 0;
	log_info("JobId=%u StepId=%u terminated before its tasks started",
	         st->req->job_id, st->req->step_id);
	for (uint32_t i = 0; i < st->ntasks; i++) {
		st->tasks[i].exited = 1;
		st->tasks[i].status = SIGTERM;
	}
	return 1;
}

static int stepd_setup(struct stepd *st, struct rota_error *err)
{
	char host[256] = "";
	int rc;

	if (resolve_user(st, err) < 0 || layout_tasks(st, err) < 0)
		return -1;
	gethostname(host, sizeof(host) - 1);
	st->spool =
	    spool_dir_expand(st->conf->slurmd_spool_dir, st->req->node_name, host);
	if (!st->spool)
		fatal("out of memory");
	if ((rc = spool_mkdir(st->spool)) < 0)
		return errprintf(err, "mkdir %s: %s", st->spool, strerror(-rc));
	ctl_listen(st);
	if (st->batch && write_script(st, err) < 0)
		return -1;
	set_hostname(st);
	names_setup(st);
	read_cpu_bind(st);
	rlimits_from_env(st->req->env, &st->rlim);
	contain(st);
	if (run_prolog(st, err) < 0)
		return -1;
	prolog_report(st);
	st->env = env_build(st);
	if (container_setup(st, err) < 0) {
		char *line = xasprintf("slurmstepd: error: %s\n", err->text);
		if (st->batch) /* srun hears it from fail_tasks */
			task_write_err_file(st, line);
		free(line);
		return -1;
	}
	io_connect(st);
	logtee_flush(st);
	if (!terminated_in_setup(st)) {
		if (pmi_setup(st, err) < 0 || task_launch_all(st, err) < 0)
			return -1;
		st->started = 1;
		pids_file_write(st); /* as soon as there are pids: pidinfo asks */
	}
	io_launched(st);
	usage_init(st);
	if (st->started) {
		log_info("JobId=%u StepId=%u launched %u task(s) as %s", st->req->job_id,
		         st->req->step_id, st->ntasks, st->user);
		ctl_signal_early(st);
	}
	return 0;
}

enum pref_kind {
	PR_SIG,
	PR_CTL,
	PR_LISTEN,
	PR_IO,
	PR_OUT,
	PR_ERR,
	PR_IN,
	PR_PMI,
	PR_PMIX,
	PR_ATTACH
};
struct pref {
	enum pref_kind kind;
	struct stepd_task *task;
	uint32_t idx; /* PR_ATTACH: which */
};

struct pollset {
	struct pollfd *pfd;
	struct pref *ref;
	int n, cap;
};

static void pollset_add(struct pollset *ps, int fd, short events, enum pref_kind kind,
                        struct stepd_task *t)
{
	if (fd < 0 || !events)
		return;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 64;
		ps->pfd = xrealloc(ps->pfd, ps->cap * sizeof(*ps->pfd));
		ps->ref = xrealloc(ps->ref, ps->cap * sizeof(*ps->ref));
	}
	ps->pfd[ps->n] = (struct pollfd){.fd = fd, .events = events};
	ps->ref[ps->n] = (struct pref){.kind = kind, .task = t};
	ps->n++;
}

static void pollset_fill(struct stepd *st, struct pollset *ps)
{
	int output = io_want_output(st);

	ps->n = 0;
	pollset_add(ps, st->sigfd, POLLIN, PR_SIG, NULL);
	if (st->ctl)
		pollset_add(ps, msglink_fd(st->ctl), msglink_events(st->ctl), PR_CTL,
		            NULL);
	pollset_add(ps, st->listen_fd, POLLIN, PR_LISTEN, NULL);
	if (st->io)
		pollset_add(ps, msglink_fd(st->io), io_link_events(st), PR_IO, NULL);
	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct stepd_task *t = &st->tasks[i];
		if (output && !t->pty_idle) {
			pollset_add(ps, t->out_fd, POLLIN, PR_OUT, t);
			pollset_add(ps, t->err_fd, POLLIN, PR_ERR, t);
		}
		if (t->in_len)
			pollset_add(ps, t->in_fd, POLLOUT, PR_IN, t);
		if (st->pmi) {
			short ev = 0;
			int fd = pmi_poll_fd(st, i, &ev);
			pollset_add(ps, fd, ev, PR_PMI, t);
		}
	}
	if (st->pmi) {
		short ev = 0;
		int fd = pmi_link_fd(st, &ev);
		pollset_add(ps, fd, ev, PR_PMIX, NULL);
	}
	io_attach_reap(st);
	for (uint32_t i = 0; i < st->nattach; i++) {
		short ev = 0;
		int fd = io_attach_fd(st, i, &ev);
		pollset_add(ps, fd, ev, PR_ATTACH, NULL);
		if (ps->n && ps->ref[ps->n - 1].kind == PR_ATTACH)
			ps->ref[ps->n - 1].idx = i;
	}
}

static void on_signal(struct stepd *st)
{
	struct signalfd_siginfo si;

	while (read(st->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			task_reap(st);
		else if (si.ssi_signo != SIGHUP)
			ctl_signal(st, SIGTERM, SIGNAL_F_TERMINATE);
	}
}

static void pollset_dispatch(struct stepd *st, struct pollset *ps)
{
	for (int i = 0; i < ps->n; i++) {
		short rev = ps->pfd[i].revents;
		struct stepd_task *t = ps->ref[i].task;

		if (!rev)
			continue;
		switch (ps->ref[i].kind) {
		case PR_SIG:
			on_signal(st);
			break;
		case PR_CTL:
			if (st->ctl)
				ctl_on_link(st, rev);
			break;
		case PR_LISTEN:
			ctl_on_listen(st);
			break;
		case PR_IO:
			if (st->io)
				io_on_link(st, rev);
			break;
		case PR_OUT:
			io_on_pipe(st, t, 1);
			break;
		case PR_ERR:
			io_on_pipe(st, t, 2);
			break;
		case PR_IN:
			io_on_stdin(st, t, rev);
			break;
		case PR_PMI:
			pmi_on_client(st, t->ltid, rev);
			break;
		case PR_PMIX:
			pmi_on_link(st, rev);
			break;
		case PR_ATTACH:
			io_on_attach(st, ps->ref[i].idx, rev);
			break;
		}
	}
}

static int all_exited(const struct stepd *st)
{
	if (st->nepilogs) /* --task-epilog: what it does is the step's */
		return 0;
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (!st->tasks[i].exited)
			return 0;
	return 1;
}

/* poll() timeout until the next deadline (ms), -1 for none; sample_ms: the
 * next usage sample's (usage_tick). */
static int next_timeout(const struct stepd *st, int sample_ms, time_t now)
{
	time_t next = 0;
	int ms;

	if (st->kill_at)
		next = st->kill_at;
	if (st->drain_by && (!next || st->drain_by < next))
		next = st->drain_by;
	if (!next)
		return sample_ms;
	ms = next <= now ? 0 : (int)(next - now) * 1000;
	return sample_ms >= 0 && sample_ms < ms ? sample_ms : ms;
}

/* While the step is being terminated its tasks may end before KillWait is
 * over; what they leave (a batch script's srun, a step's children) gets the
 * rest of KillWait too, as in Slurm, before it is killed: an srun can then
 * print its step's notice and forward SIGTERM to its tasks. */
static int leftovers_in_grace(const struct stepd *st, time_t now)
{
	return st->terminating && st->kill_at && now < st->kill_at &&
	       cgroup_busy(st->cg, st->batch);
}

#define STEPD_GRACE_POLL_MS 100

static void stepd_loop(struct stepd *st)
{
	struct pollset ps = {0};

	for (;;) {
		time_t now = time(NULL);
		int timeout, grace = 0;

		if (st->kill_at && now >= st->kill_at) {
			task_signal_all(st, SIGKILL);
			st->kill_at = 0;
		}
		/* each task's exit as soon as its output is in (srun -K, -W
		 * act on the first) */
		io_report_exits(st);
		if (all_exited(st)) {
			if (!st->drain_by && leftovers_in_grace(st, now)) {
				grace = 1;
			} else {
				if (!st->drain_by) {
					task_kill_leftovers(st);
					st->drain_by = now + STEPD_DRAIN_S;
				}
				if (io_drained(st) || now >= st->drain_by) {
					ctl_drain(st);
					break;
				}
			}
		}
		pollset_fill(st, &ps);
		timeout = next_timeout(st, usage_tick(st, now), now);
		if (grace && (timeout < 0 || timeout > STEPD_GRACE_POLL_MS))
			timeout = STEPD_GRACE_POLL_MS;
		if (poll(ps.pfd, (nfds_t)ps.n, timeout) < 0 && errno != EINTR)
			fatal("poll: %s", strerror(errno));
		pollset_dispatch(st, &ps);
	}
	free(ps.pfd);
	free(ps.ref);
}

/* The step's status: the highest wait status of its tasks, as Slurm does. */
static uint32_t step_status(const struct stepd *st)
{
	uint32_t status = 0;

	for (uint32_t i = 0; i < st->ntasks; i++)
		if ((uint32_t)st->tasks[i].status > status)
			status = (uint32_t)st->tasks[i].status;
	return status;
}

static void stepd_cleanup(struct stepd *st)
{
	container_destroy(st->ctr);
	st->ctr = NULL;
	pmi_release(st);
	if (st->script)
		unlink(st->script);
	if (st->job_dir)
		rmdir(st->job_dir);
	/* A step daemon forked by rotad _exits next: its memory and descriptors
	 * go with it, and freeing would only write (copy) pages first.  The
	 * rotastepd binary frees everything, for leak checkers. */
	if (st->given)
		return;
	for (uint32_t i = 0; i < st->ntasks; i++)
		free(st->tasks[i].in_buf);
	free(st->tasks);
	free(st->epilogs);
	usage_release(st);
	strv_free(st->env);
	logtee_release(st); /* before the link its lines go to */
	msglink_destroy(st->ctl);
	msglink_destroy(st->io);
	free(st->sock_path);
	free(st->job_dir);
	free(st->script);
	free(st->spool);
	free(st->user);
	cpubind_release(&st->cpubind);
	membind_release(&st->membind);
	msg_body_free(MSG_LAUNCH_REQ, st->req);
	free(st->gids);
	conf_destroy(st->own_conf);
}

/* Check the launch's job credential again (proto/cred.h): rotad has, but we
 * run as root and fork whatever the request says.  rotad checked the expiry a
 * moment ago: a credential that expires between its check and ours (a loaded
 * node, a slow exec) is not refused.  Exits on failure. */
#define STEPD_CRED_SLACK_S 30
static void stepd_check_cred(struct stepd *st)
{
	struct rota_error err = {""};
	struct auth *auth = NULL;
	int rc;

	rc = auth_create(st->conf, AUTH_NEED_KEY, &auth, &err);
	if (rc == 0)
		rc = cred_check(auth, st->req, NULL, time(NULL) - STEPD_CRED_SLACK_S,
		                AUTH_CHECK_REPLAY_OK, &err);
	auth_destroy(auth);
	if (rc == 0)
		return;
	log_err("JobId=%u StepId=%u launch refused: credential %s", st->req->job_id,
	        st->req->step_id, err.text);
	ctl_report(st, 1 << 8, STEP_DONE_LAUNCH_FAILED, "Invalid job credential");
	exit(STEPD_EXIT_SETUP);
}

/* Read the launch request from fd 3 and the config.  Exits on failure: with no
 * request there is nobody to report to. */
static void stepd_load(struct stepd *st)
{
	struct rota_error err = {""};
	uint16_t type;
	void *body = NULL;
	static char conf_path[4096];

	fcntl(STEPD_LAUNCH_FD, F_SETFD, FD_CLOEXEC);
	if (net_recv(STEPD_LAUNCH_FD, &type, &body, 30000, &err) < 0) {
		log_err("no launch request on fd %d: %s", STEPD_LAUNCH_FD, err.text);
		exit(STEPD_EXIT_SETUP);
	}
	if (type != MSG_LAUNCH_REQ) {
		log_err("expected MSG_LAUNCH_REQ, got %s", msg_name(type));
		exit(STEPD_EXIT_SETUP);
	}
	st->req = body;
	st->batch = st->req->step_id == STEP_BATCH;
	st->ctl = msglink_create(STEPD_LAUNCH_FD, "rotad");
	if (!st->req->node_name)
		st->req->node_name = xstrdup("localhost");
	if (st->given && st->given->conf) {
		st->conf = st->given->conf;
		st->conf_path = st->given->conf_path;
		stepd_check_cred(st);
		return;
	}
	if (!realpath(conf_default_path(), conf_path))
		snprintf(conf_path, sizeof(conf_path), "%s", conf_default_path());
	st->conf_path = conf_path;
	if (conf_load(conf_path, &st->own_conf, &err) < 0) {
		log_err("JobId=%u StepId=%u launch failed: %s", st->req->job_id,
		        st->req->step_id, err.text);
		ctl_report(st, 1 << 8, STEP_DONE_LAUNCH_FAILED, err.text);
		exit(STEPD_EXIT_SETUP);
	}
	st->conf = st->own_conf;
	stepd_check_cred(st);
}

void stepd_user_error(struct stepd *st, const struct stepd_task *t, const char *line)
{
	if (st->io && st->ntasks) {
		struct io_data d = {.task = t ? t->gtid : st->tasks[0].gtid, .stream = 2};
		d.data.data = (uint8_t *)line;
		d.data.len = (uint32_t)strlen(line);
		msglink_send(st->io, MSG_IO_DATA, &d);
	}
}

/* The launch failed: tell srun (when there is one) on task stderr, and mark
 * every task as exited with status 1, so srun sees the whole step end. */
static void fail_tasks(struct stepd *st, const char *why)
{
	char *line = xasprintf("slurmstepd: error: %s\n", why);

	stepd_user_error(st, NULL, line);
	free(line);
	for (uint32_t i = 0; i < st->ntasks; i++) {
		st->tasks[i].exited = 1;
		st->tasks[i].status = 1 << 8;
	}
}

/* What the tasks used: the step's cgroups, else (no cgroups) what the
 * kernel counted for the children this step daemon waited for. */
static void measure(struct stepd *st, uint64_t rss)
{
	struct rusage ru;
	int have_cpu = cgroup_cpu_usage(st->cg, &st->user_usec, &st->sys_usec) == 0;

	st->max_rss_kib = rss >> 10;
	/* the samples' high-water mark, where the kernel keeps none */
	if (st->usage.max_rss_kib > st->max_rss_kib)
		st->max_rss_kib = st->usage.max_rss_kib;
	if ((have_cpu && st->max_rss_kib) || getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return;
	if (!have_cpu) {
		st->user_usec = (uint64_t)ru.ru_utime.tv_sec * 1000000 +
		                (uint64_t)ru.ru_utime.tv_usec;
		st->sys_usec = (uint64_t)ru.ru_stime.tv_sec * 1000000 +
		               (uint64_t)ru.ru_stime.tv_usec;
	}
	if (!st->max_rss_kib && ru.ru_maxrss > 0)
		st->max_rss_kib = (uint64_t)ru.ru_maxrss;
}

/* After the tasks: did the kernel OOM-kill any?  Tell the user as Slurm does
 * (in the output file, or through srun) and return STEP_DONE_OOM, else 0.
 * Also measure what the step used, then leave the cgroups. */
static uint32_t uncontain(struct stepd *st)
{
	char step[16], *line;
	uint64_t kills, rss = cgroup_max_rss(st->cg);
	int sigkilled = 0;

	if (st->started) /* else what setup ran (a Prolog, su) is no task's */
		measure(st, rss);

	for (uint32_t i = 0; i < st->ntasks; i++)
		if ((uint32_t)st->tasks[i].status == TASK_STATUS_OOM ||
		    (WIFSIGNALED(st->tasks[i].status) &&
		     WTERMSIG(st->tasks[i].status) == SIGKILL))
			sigkilled = 1;
	kills = cgroup_oom_kills(st->cg, sigkilled);
	if (rss)
		log_info("JobId=%u StepId=%u max RSS %lluK", st->req->job_id,
		         st->req->step_id, (unsigned long long)(rss >> 10));
	if (!kills) {
		cgroup_destroy(st->cg);
		st->cg = NULL;
		return 0;
	}
	if (st->batch)
		snprintf(step, sizeof(step), "batch");
	else
		snprintf(step, sizeof(step), "%u", st->req->step_id);
	line = xasprintf("slurmstepd: error: Detected %llu oom_kill event%s in "
	                 "StepId=%u.%s. Some of the step tasks have been OOM Killed.\n",
	                 (unsigned long long)kills, kills > 1 ? "s" : "", st->req->job_id,
	                 step);
	log_info("JobId=%u StepId=%u %llu oom_kill event(s)", st->req->job_id,
	         st->req->step_id, (unsigned long long)kills);
	stepd_tell_user(st, line);
	free(line);
	cgroup_destroy(st->cg);
	st->cg = NULL;
	return STEP_DONE_OOM;
}

void stepd_tell_user(struct stepd *st, const char *line)
{
	if (task_write_err_file(st, line) == 0)
		stepd_user_error(st, NULL, line);
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int stepd_main(int argc, char **argv, const struct stepd_given *given)
{
	struct stepd st = {.listen_fd = -1, .sigfd = -1, .given = given};
	struct rota_error err = {""};
	const char *logfile = NULL;
	int opt, level = LOG_INFO;

	optind = 0; /* in a child of rotad, its own parsing is done */
	while ((opt = getopt(argc, argv, "L:v")) != -1) {
		if (opt == 'L')
			logfile = optarg;
		else if (opt == 'v')
			level = LOG_DEBUG;
		else
			usage();
	}
	setsid(); /* survive rotad restarts and its process group's signals */
	if (log_init("rotastepd", level, logfile) < 0)
		log_init("rotastepd", level, NULL);
	umask(022);
	raise_nofile();
	if ((st.sigfd = setup_signals()) < 0)
		fatal("signalfd: %s", strerror(errno));
	stepd_load(&st);
	logtee_start(&st);
	if (stepd_setup(&st, &err) < 0) {
		log_err("JobId=%u StepId=%u launch failed: %s", st.req->job_id,
		        st.req->step_id, err.text);
		fail_tasks(&st, err.text);
		io_finish(&st);
		cgroup_destroy(st.cg);
		st.cg = NULL;
		ctl_report(&st, 1 << 8,
		           STEP_DONE_LAUNCH_FAILED |
		               (prolog_failed ? STEP_DONE_PROLOG_FAILED : 0),
		           err.text);
	} else {
		uint32_t flags;

		stepd_loop(&st);
		flags = uncontain(&st);
		if (st.req->step_id == STEP_BATCH) {
			io_finish(&st);
			ctl_report(&st, step_status(&st), flags, NULL);
		} else {
			/* srun returns once the link closes: the step's end goes to
			 * rotad first, so that what the job's script does next (its
			 * next step, its exit) reaches the controller after it */
			ctl_report(&st, step_status(&st), flags, NULL);
			io_finish(&st);
		}
		log_info("JobId=%u StepId=%u done, status %u", st.req->job_id,
		         st.req->step_id, step_status(&st));
	}
	stepd_cleanup(&st);
	return 0;
}
