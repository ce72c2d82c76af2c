/* salloc.c - get an allocation, run a command (default: the user's shell) with
 * the allocation's SLURM_* environment, and give the allocation back when the
 * command ends.
 *
 * The allocation lives on the connection that asked for it (doc/flows.md): if
 * the controller ends the job (scancel, time limit) that connection closes,
 * salloc says the allocation was revoked and signals the command.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/jobctl.h"
#include "cli/jobopt.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/jobfmt.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

extern char **environ;

#define SALLOC_BELL_DELAY 10 /* seconds pending before the bell rings */

static const int salloc_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};

struct salloc {
	struct jobopt o;    /* the (first) component's */
	struct jobopt *het; /* components 1..nhet of a heterogeneous allocation */
	size_t nhet;
	char **cmd;
	char *shell[2];
	struct jobctl_alloc alloc;
	int sig_fd;
	sigset_t old_mask;
	int interactive; /* we own the terminal: the command gets its foreground */
	pid_t child;
	int revoked;
};

static char **alloc_env(const struct salloc *s)
{
	const struct job_desc *d = &s->o.desc;
	const struct alloc_resp *r = s->alloc.resp;
	const struct jobfmt_tasks t = {.num_tasks = d->num_tasks,
	                               .ntasks_per_node = d->ntasks_per_node,
	                               .cpus_per_task = d->cpus_per_task};
	char **env = strv_dup(environ), **names = NULL;
	uint32_t *cpus;
	size_t n = 0;

	if (hostlist_expand(r->nodes, &names, &n, NULL) < 0)
		n = 0;
	hostlist_free(names);
	cpus = xcalloc(n + 1, sizeof(*cpus));
	jobfmt_node_cpus(r->cpus_per_node.v, r->cpus_per_node.n, cpus, n);
	env = strv_setenvf(env, "SLURM_JOB_ID", "%u", r->job_id);
	env = strv_setenvf(env, "SLURM_JOBID", "%u", r->job_id);
	env = strv_setenv(env, "SLURM_JOB_NAME", d->name);
	env = jobopt_dist_env(&s->o, env);
	env = strv_setenv(env, "SLURM_JOB_NODELIST", r->nodes);
	env = strv_setenv(env, "SLURM_NODELIST", r->nodes);
	env = strv_setenvf(env, "SLURM_JOB_NUM_NODES", "%zu", n);
	env = strv_setenvf(env, "SLURM_NNODES", "%zu", n);
	env = strv_setenv_take(env, "SLURM_JOB_CPUS_PER_NODE", jobfmt_counts(cpus, n));
	if (n)
		env = strv_setenv_take(env, "SLURM_TASKS_PER_NODE",
		                       jobfmt_tasks_per_node(&t, cpus, n));
	if (d->num_tasks != NO_VAL) {
		env = strv_setenvf(env, "SLURM_NTASKS", "%u", d->num_tasks);
		env = strv_setenvf(env, "SLURM_NPROCS", "%u", d->num_tasks);
	}
	if (d->flags & JOB_F_OVERCOMMIT) /* its sruns overcommit too */
		env = strv_setenv(env, "SLURM_OVERCOMMIT", "1");
	if (d->ntasks_per_node != NO_VAL)
		env =
		    strv_setenvf(env, "SLURM_NTASKS_PER_NODE", "%u", d->ntasks_per_node);
	if (d->cpus_per_task != NO_VAL)
		env = strv_setenvf(env, "SLURM_CPUS_PER_TASK", "%u", d->cpus_per_task);
	if (s->o.ntasks_per_gpu)
		env =
		    strv_setenvf(env, "SLURM_NTASKS_PER_GPU", "%u", s->o.ntasks_per_gpu);
	/* the command's steps bind and ask so (as sbatch's, jobopt.c) */
	if (s->o.mem_bind)
		env = strv_setenv(env, "SLURM_MEM_BIND", s->o.mem_bind);
	if (s->o.cpu_freq)
		env = strv_setenv(env, "SLURM_CPU_FREQ_REQ", s->o.cpu_freq);
	if (d->mem_per_node != NO_VAL64)
		env = strv_setenvf(env, "SLURM_MEM_PER_NODE", "%llu",
		                   (unsigned long long)d->mem_per_node);
	if (d->mem_per_cpu != NO_VAL64)
		env = strv_setenvf(env, "SLURM_MEM_PER_CPU", "%llu",
		                   (unsigned long long)d->mem_per_cpu);
	if (r->partition)
		env = strv_setenv(env, "SLURM_JOB_PARTITION", r->partition);
	if (d->account)
		env = strv_setenv(env, "SLURM_JOB_ACCOUNT", d->account);
	env = strv_setenv(env, "SLURM_CLUSTER_NAME", cli_conf()->cluster_name);
	env = strv_setenv(env, "SLURM_SUBMIT_DIR", d->work_dir);
	env = strv_setenv(env, "SLURM_SUBMIT_HOST", d->submit_host);
	free(cpus);
	return env;
}

/* A heterogeneous allocation's: as Slurm's salloc, the leader's id, every
 * component's variables with _HET_GROUP_n (the controller's), and the
 * total of tasks when each component gave its count. */
static char **het_alloc_env(const struct salloc *s)
{
	const struct alloc_resp *r = s->alloc.resp;
	char **env = strv_dup(environ);
	uint64_t ntasks = 0;
	int counted = 1;

	env = strv_setenvf(env, "SLURM_JOB_ID", "%u", r->job_id);
	env = strv_setenv_from(env, r->het_env, "SLURM_");
	for (size_t k = 0; k <= s->nhet; k++) {
		const struct job_desc *d = k ? &s->het[k - 1].desc : &s->o.desc;
		char *key = xasprintf("SLURM_NTASKS_HET_GROUP_%zu", k);
		const char *v = strv_getenv(env, key);
		free(key);
		if (d->num_tasks == NO_VAL && d->ntasks_per_node == NO_VAL)
			counted = 0;
		else if (v)
			ntasks += strtoull(v, NULL, 10);
	}
	if (counted) {
		env =
		    strv_setenvf(env, "SLURM_NTASKS", "%llu", (unsigned long long)ntasks);
		env =
		    strv_setenvf(env, "SLURM_NPROCS", "%llu", (unsigned long long)ntasks);
	}
	env = strv_setenv(env, "SLURM_CLUSTER_NAME", cli_conf()->cluster_name);
	env = strv_setenv(env, "SLURM_SUBMIT_DIR", s->o.desc.work_dir);
	env = strv_setenv(env, "SLURM_SUBMIT_HOST", s->o.desc.submit_host);
	return env;
}

static void run_child(struct salloc *s, char **env)
{
	s->child = fork();
	if (s->child < 0)
		fatal("fork: %s", strerror(errno));
	if (s->child > 0) {
		if (s->interactive) {
			setpgid(s->child, s->child);
			tcsetpgrp(0, s->child);
		}
		return;
	}
	if (s->interactive) {
		setpgid(0, 0);
		tcsetpgrp(0, getpid());
	}
	signal(SIGTTOU, SIG_DFL);
	sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
	if (chdir(s->o.desc.work_dir) < 0) {
		cli_error("chdir(%s): %s", s->o.desc.work_dir, strerror(errno));
		_exit(1);
	}
	execvpe(s->cmd[0], s->cmd, env);
	cli_error("Unable to exec command \"%s\": %s", s->cmd[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static void signal_child(const struct salloc *s, int sig)
{
	if (s->child > 0)
		kill(s->interactive ? -s->child : s->child, sig);
}

/* The controller spoke (or hung up) on the allocation's connection. */
static void on_alloc_conn(struct salloc *s)
{
	struct rota_error err = {""};
	uint16_t type = 0;
	void *body = NULL;
	int rc = net_recv(s->alloc.fd, &type, &body, 5000, &err);
	int gone = rc < 0 || (type == MSG_RC && cli_rc(type, body, NULL) != 0);

	if (rc >= 0 && type == MSG_USER_MSG) /* scontrol notify */
		cli_user_msg(body);
	msg_body_free(type, body);
	if (!gone)
		return;
	fprintf(stderr, "salloc: Job allocation %u has been revoked.\n",
	        s->alloc.resp->job_id);
	close(s->alloc.fd);
	s->alloc.fd = -1;
	s->revoked = 1;
	signal_child(s, s->o.kill_signal ? s->o.kill_signal : SIGHUP);
}

/* Wait for the command; returns its wait status. */
static int wait_child(struct salloc *s)
{
	for (;;) {
		struct pollfd p[2] = {{.fd = s->sig_fd, .events = POLLIN},
		                      {.fd = s->alloc.fd, .events = POLLIN}};
		int status, sig;
		pid_t pid;

		while ((pid = waitpid(s->child, &status, WNOHANG)) < 0 && errno == EINTR)
			;
		if (pid == s->child)
			return status;
		if (pid < 0)
			fatal("waitpid: %s", strerror(errno));
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			fatal("poll: %s", strerror(errno));
		while ((sig = jobctl_signal_read(s->sig_fd)) > 0)
			if (sig == SIGTERM || sig == SIGHUP)
				signal_child(s, sig);
		if (p[1].revents && s->alloc.fd >= 0)
			on_alloc_conn(s);
	}
}

/* One component's options: its command-line list over what the one
 * before was given (prev, NULL for the first) and SALLOC_* (which every
 * component takes, as Slurm). */
static void component(struct jobopt *o, struct jobopt_list *cmdline,
                      const struct jobopt *prev)
{
	jobopt_init(o, JOBOPT_SALLOC);
	jobopt_apply_env(o, environ);
	if (prev)
		jobopt_carry(o, prev, JOBOPT_SRC_ARGV);
	jobopt_apply_list(o, cmdline, JOBOPT_SRC_ARGV);
	jobopt_list_release(cmdline);
	jobopt_finish(o);
	o->desc.flags |= JOB_F_INTERACTIVE;
}

static void parse(struct salloc *s, int argc, char **argv)
{
	struct jobopt_list cmdline, *more = NULL;
	const char *shell = getenv("SHELL"), *name;
	int idx;

	jobopt_collect(JOBOPT_SALLOC, argc, argv, &cmdline, &idx);
	/* options : options : ... command: a heterogeneous allocation */
	while (idx < argc && !strcmp(argv[idx], ":")) {
		int sub;
		if (s->nhet + 1 >= HET_MAX) {
			cli_error("too many components (%d at most)", HET_MAX);
			exit(cli_exit_error());
		}
		more = xrealloc(more, (s->nhet + 1) * sizeof(*more));
		jobopt_collect(JOBOPT_SALLOC, argc - idx, argv + idx, &more[s->nhet++],
		               &sub);
		idx += sub;
	}
	if (idx < argc) {
		s->cmd = argv + idx;
	} else {
		s->shell[0] = (char *)(shell && *shell ? shell : "/bin/sh");
		s->cmd = s->shell;
	}
	component(&s->o, &cmdline, NULL);
	s->het = s->nhet ? xcalloc(s->nhet, sizeof(*s->het)) : NULL;
	for (size_t k = 0; k < s->nhet; k++)
		component(&s->het[k], &more[k], k ? &s->het[k - 1] : &s->o);
	free(more);
	/* unnamed components take the last one's name, else Slurm's
	 * "interactive" */
	name = s->nhet ? s->het[s->nhet - 1].desc.name : NULL;
	if (!name)
		name = "interactive";
	for (size_t k = 0; k <= s->nhet; k++) {
		struct job_desc *d = k ? &s->het[k - 1].desc : &s->o.desc;
		if (!d->name)
			d->name = xstrdup(name);
	}
}

/* Ask for the allocation: one job, or the components together. */
static void allocate(struct salloc *s)
{
	struct submit_het het = {.jobs_count = (uint32_t)s->nhet + 1};

	if (!s->nhet) {
		jobctl_allocate(MSG_ALLOC_REQ, &s->o.desc, JOBCTL_SALLOC, s->o.quiet,
		                s->o.immediate, s->sig_fd, &s->alloc);
		return;
	}
	het.jobs = xcalloc(s->nhet + 1, sizeof(*het.jobs));
	het.jobs[0] = s->o.desc; /* shallow: the options keep them */
	for (size_t k = 0; k < s->nhet; k++)
		het.jobs[k + 1] = s->het[k].desc;
	jobctl_allocate(MSG_ALLOC_HET_REQ, &het, JOBCTL_SALLOC, s->o.quiet,
	                s->o.immediate, s->sig_fd, &s->alloc);
	free(het.jobs);
}

int cmd_salloc(int argc, char **argv)
{
	struct salloc s = {.alloc = {.fd = -1}};
	char **env;
	int status, code;
	time_t before;

	parse(&s, argc, argv);
	s.sig_fd = jobctl_signalfd(salloc_signals,
	                           sizeof(salloc_signals) / sizeof(salloc_signals[0]),
	                           &s.old_mask);
	before = time(NULL);
	allocate(&s);
	/* the terminal's bell, as Slurm's: --bell, or after a long wait */
	if ((s.o.bell > 0 || (!s.o.bell && time(NULL) - before > SALLOC_BELL_DELAY)) &&
	    isatty(1)) {
		fputc('\a', stdout);
		fflush(stdout);
	}
	/* --no-shell: the job goes on without us (srun --jobid, scancel) */
	if (s.o.desc.flags & JOB_F_NO_SHELL) {
		jobctl_alloc_release(&s.alloc);
		return 0;
	}
	s.interactive = isatty(0) && tcgetpgrp(0) == getpgrp();
	if (s.interactive)
		signal(SIGTTOU, SIG_IGN); /* so we can take the terminal back */
	env = s.nhet ? het_alloc_env(&s) : alloc_env(&s);
	run_child(&s, env);
	status = wait_child(&s);
	if (s.interactive)
		tcsetpgrp(0, getpgrp());
	if (!s.revoked) {
		if (!s.o.quiet)
			fprintf(stderr, "salloc: Relinquishing job allocation %u\n",
			        s.alloc.resp->job_id);
		jobctl_complete(&s.alloc, (uint32_t)status);
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	strv_free(env);
	jobctl_alloc_release(&s.alloc);
	jobopt_release(&s.o);
	for (size_t k = 0; k < s.nhet; k++)
		jobopt_release(&s.het[k]);
	free(s.het);
	return code;
}
