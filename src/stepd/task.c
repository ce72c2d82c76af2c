/* task.c - fork and exec the tasks as the user.
 *
 * Privileges are dropped in each child before it touches anything the user
 * names (output files, work dir, the command).  Output files are created (and
 * truncated, unless --open-mode=append) once by a helper child running as the
 * user, then every task opens them O_APPEND, so tasks sharing one file never
 * clobber each other.  A child that fails before exec writes why on a
 * close-on-exec pipe, so the launch fails with that text; a failed exec itself
 * is the task's exit status (errno, as Slurm does), reported normally.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mempolicy.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/jobfmt.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "stepd/cgroup.h"
#include "stepd/container.h"
#include "stepd/pmi.h"
#include "stepd/stepd.h"
#include "common/conf.h"
#include "common/multiprog.h"
#include "stepd/taskprolog.h"
#include "common/common.h"

extern char **environ;

/* Where one task's standard streams go: a file path, or NULL for a pipe
 * (steps) / /dev/null (stdin). err == out when both name the same file. */
struct task_io {
	char *in, *out, *err;
};

/* A line on fd from a child: no stdio (dprintf may allocate a buffer, and a
 * vfork child must not). */
static void child_vsay(int fd, const char *fmt, va_list ap)
{
	char buf[1024];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n > 0 &&
	    write(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1)) {
		/* nowhere else to say it */
	}
}

static void child_say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void child_say(int fd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	child_vsay(fd, fmt, ap);
	va_end(ap);
}

/* Say why on errfd (the parent reads it) and exit. */
static void child_fail(int errfd, const char *fmt, ...) __attribute__((noreturn))
__attribute__((format(printf, 2, 3)));

static void child_fail(int errfd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	child_vsay(errfd, fmt, ap);
	va_end(ap);
	_exit(1);
}

/* In a child: become the user.  Exits through child_fail on error. */
static void child_become_user(const struct stepd *st, int errfd)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (st->as_root) {
		if (st->gids ? setgroups((size_t)st->ngids, st->gids) < 0
		             : initgroups(st->user, st->gid) < 0)
			child_fail(errfd, "initgroups(%s): %s", st->user,
			           strerror(errno));
		if (setgid(st->gid) < 0)
			child_fail(errfd, "setgid(%u): %s", (unsigned)st->gid,
			           strerror(errno));
		/* in a container: root kept aside to enter it after the
		 * streams are opened as the user (container_child_enter) */
		if (st->ctr && setresuid(st->uid, st->uid, 0) < 0)
			child_fail(errfd, "setresuid(%u): %s", (unsigned)st->uid,
			           strerror(errno));
		if (!st->ctr && setuid(st->uid) < 0)
			child_fail(errfd, "setuid(%u): %s", (unsigned)st->uid,
			           strerror(errno));
	}
	umask(st->umask);
}

static int append_mode(const struct stepd *st)
{
	const char *m = strv_getenv(st->req->env, "SLURM_OPEN_MODE");

	if (st->batch)
		return (st->req->flags & JOB_F_OPEN_APPEND) != 0;
	return m && (m[0] == 'a' || m[0] == 'A');
}

/* O_TRUNC when the step's output files start empty: unless --open-mode=append,
 * and only on its first node (tasks elsewhere may be writing already).  A
 * step over several components appends, as Slurm's heterogeneous steps do
 * (no component knows when the others have started writing). */
static int output_trunc(const struct stepd *st)
{
	return append_mode(st) || st->node_id || st->req->het_leader ? 0 : O_TRUNC;
}

/* Absolute path of pattern expanded for task t (relative to work_dir). */
static char *task_path(const struct stepd *st, const char *pattern, uint32_t gtid)
{
	const struct launch_req *req = st->req;
	const char *aj = strv_getenv(req->env, "SLURM_ARRAY_JOB_ID");
	const char *at = strv_getenv(req->env, "SLURM_ARRAY_TASK_ID");
	struct jobfmt_ids ids = {
	    .job_id = req->job_id,
	    .step_id = req->step_id,
	    .array_job_id = req->array_job_id ? req->array_job_id
	                    : aj              ? (uint32_t)strtoul(aj, NULL, 10)
	                                      : 0,
	    .array_task_id = req->array_job_id ? req->array_task_id
	                     : at              ? (uint32_t)strtoul(at, NULL, 10)
	                                       : NO_VAL,
	    .node_index = st->node_id,
	    .task_id = gtid,
	    .job_name = req->job_name,
	    .user = st->user,
	    .node_name = req->node_name,
	};
	char *name = NULL, *path;

	if (jobfmt_filename(pattern, &ids, &name) < 0)
		return NULL;
	if (name[0] == '/')
		return name;
	path = xasprintf("%s/%s", req->work_dir ? req->work_dir : "/tmp", name);
	free(name);
	return path;
}

static void task_io_release(struct task_io *tio)
{
	if (tio->err != tio->out)
		free(tio->err);
	free(tio->out);
	free(tio->in);
}

/* srun -i N sends std_in "N": task N reads srun's stdin, the others /dev/null
 * (as Slurm's stepd does).  Returns N, or -1 when std_in is a file. */
static long stdin_task_filter(const struct stepd *st)
{
	const char *s = st->req->std_in;
	char *end;
	long v;

	if (st->batch || !s || !*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end ? -1 : v;
}

/* Whether task gtid's stdin is a pipe from srun (unless it reads a file). */
static int stdin_from_srun(const struct stepd *st, uint32_t gtid)
{
	long one = stdin_task_filter(st);

	if (st->req->flags & STEP_F_STDIN_ALL)
		return 1;
	return one >= 0 ? (uint32_t)one == gtid : gtid == 0;
}

static int task_io_resolve(const struct stepd *st, uint32_t gtid, struct task_io *ret,
                           struct rota_error *err)
{
	const struct launch_req *req = st->req;
	const char *aj = strv_getenv(req->env, "SLURM_ARRAY_TASK_ID");
	const char *out = req->std_out, *errp = req->std_err;
	struct task_io tio = {NULL};

	if (st->batch && !out)
		out = (aj || req->array_job_id) ? "slurm-%A_%a.out" : "slurm-%j.out";
	if (out && !(tio.out = task_path(st, out, gtid)))
		goto bad;
	if (errp && !(tio.err = task_path(st, errp, gtid)))
		goto bad;
	if (!tio.err || (tio.out && !strcmp(tio.err, tio.out))) {
		free(tio.err);
		tio.err = tio.out;
	}
	if (stdin_task_filter(st) >= 0) {
		if (!stdin_from_srun(st, gtid))
			tio.in = xstrdup("/dev/null");
	} else if (req->std_in && strcmp(req->std_in, "none") &&
	           !(tio.in = task_path(st, req->std_in, gtid))) {
		goto bad;
	}
	*ret = tio;
	return 0;
bad:
	task_io_release(&tio);
	return errprintf(err, "bad output file pattern");
}

/* Open a file as the (already switched) user onto fd target. */
static void child_open(int target, const char *path, int flags, int errfd)
{
	int fd = open(path, flags | O_CLOEXEC, 0666);

	if (fd < 0)
		child_fail(errfd, "Could not open %s file %s: %s",
		           target == 0   ? "stdin"
		           : target == 1 ? "stdout"
		                         : "stderr",
		           path, strerror(errno));
	if (dup2(fd, target) < 0)
		child_fail(errfd, "dup2: %s", strerror(errno));
	close(fd);
}

/* In a child: set up fds 0-2.  pipes[]: the child ends (-1 when unused).
 * trunc: O_TRUNC for the output files (the only task: prepare_files did not
 * run), else 0. */
static void child_stdio(const struct task_io *tio, const int pipes[3], int trunc,
                        int errfd)
{
	if (pipes[0] >= 0)
		dup2(pipes[0], 0);
	else
		child_open(0, tio->in ? tio->in : "/dev/null", O_RDONLY, errfd);
	if (tio->out)
		child_open(1, tio->out, O_WRONLY | O_CREAT | O_APPEND | trunc, errfd);
	else if (pipes[1] >= 0)
		dup2(pipes[1], 1);
	else
		child_open(1, "/dev/null", O_WRONLY, errfd);
	if (tio->err == tio->out && tio->out)
		dup2(1, 2);
	else if (tio->err)
		child_open(2, tio->err, O_WRONLY | O_CREAT | O_APPEND | trunc, errfd);
	else if (pipes[2] >= 0)
		dup2(pipes[2], 2);
	else
		dup2(1, 2);
}

static void child_chdir(const char *dir)
{
	if (!dir || chdir(dir) == 0)
		return;
	child_say(
	    2, "slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp instead\n",
	    dir, strerror(errno));
	if (chdir("/tmp") < 0) {
		/* nowhere better to go */
	}
}

/* --cpu-bind=verbose: say on the task's stderr which CPUs it is bound to, in
 * Slurm's words. */
static void child_say_binding(const struct stepd *st, const struct stepd_task *t)
{
	char hex[CPU_SETSIZE / 4 + 1];
	int top = 0, n = 0;
	cpu_set_t set;

	if (!st->cpubind.verbose || st->batch ||
	    sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			top = c;
	for (int d = top / 4; d >= 0; d--) {
		int v = 0;
		for (int b = 0; b < 4; b++)
			if (CPU_ISSET(d * 4 + b, &set))
				v |= 1 << b;
		hex[n++] = "0123456789abcdef"[v];
	}
	hex[n] = '\0';
	child_say(2, "cpu-bind=%s - %s, task %2u %2u [%d]: mask 0x%s set\n",
	          cpubind_word(&st->cpubind), st->req->node_name, t->gtid, t->ltid,
	          (int)getpid(), hex);
}

/* --mem-bind: the task's memory policy (common/membind.h), bound to what
 * it names (local: the NUMA nodes of the task's CPUs), said with verbose as
 * Slurm's lines say it; a NUMA node that is not there fails the task, as
 * Slurm's does.  Only system calls: the vfork child runs it too. */
static void child_mem_bind(const struct stepd *st, const struct stepd_task *t, int errfd)
{
	const struct membind *b = &st->membind;
	uint64_t want = 0;
	unsigned long mask = 0;
	int mode, rc = 0;

	if (st->batch || b->type == MEMBIND_DEFAULT)
		return;
	if (b->type == MEMBIND_LOCAL) {
		cpu_set_t set;
		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			for (int c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &set) && st->cpu_node[c] < 64)
					mask |= 1ul << st->cpu_node[c];
	} else if (b->type != MEMBIND_NONE) {
		if (membind_nodes(b, t->ltid, st->numa_nodes, &want) < 0) {
			uint64_t past =
			    want & ~(st->numa_nodes >= 64 ? ~0ull
			                                  : (1ull << st->numa_nodes) - 1);
			child_fail(
			    errfd,
			    "NUMA node %d does not exist; cannot bind local task %u "
			    "to it (--mem-bind=%s)",
			    past ? __builtin_ctzll(past) : 0, t->ltid,
			    b->type == MEMBIND_RANK  ? "rank"
			    : b->type == MEMBIND_MAP ? "map_mem"
			                             : "mask_mem");
		}
		mask = (unsigned long)want;
	}
	if (b->prefer && mask) /* the first of them, the others when it is full */
		mask &= -mask;
	mode = b->prefer ? MPOL_PREFERRED : MPOL_BIND;
	if (b->type == MEMBIND_NONE)
		;
	else if (mask)
		rc = (int)syscall(SYS_set_mempolicy, mode, &mask, 8 * sizeof(mask) + 1);
	else /* local, CPUs of no known node: the kernel's local */
		rc = (int)syscall(SYS_set_mempolicy, MPOL_LOCAL, NULL, 0UL);
	if (rc < 0)
		child_fail(errfd, "--mem-bind: set_mempolicy: %s", strerror(errno));
	if (b->verbose)
		child_say(2, "mem-bind%s%s - %s, task %2u %2u [%d]: mask 0x%lx%s\n",
		          b->prefer ? " PREFER " : "=", membind_word(b),
		          st->req->node_name, t->gtid, t->ltid, (int)getpid(), mask,
		          b->type == MEMBIND_NONE ? "" : " set");
}

static void say_rlimit(void *arg, const char *text)
{
	child_say(2, "slurmstepd: error: %s\n", text);
}

/* Right before the exec: the submit host's limits (common/rlimits.h), not
 * imposed on what the step daemon still does in the child (TaskProlog, the
 * container's entry, the environment's copies). */
static __attribute__((noreturn)) void child_exec(const struct stepd *st, char **argv)
{
	int rc;

	rlimits_apply(&st->rlim, say_rlimit, NULL);
	/* last: a traced child stops at every signal (stepd/pdebug.c) */
	if ((rc = pdebug_traceme(st)) < 0) {
		child_say(2, "slurmstepd: error: ptrace: %s\n", strerror(-rc));
		_exit(1);
	}
	execvp(argv[0], argv);
	/* as Slurm's: a name not found in PATH is the working directory's */
	if (errno == ENOENT && !strchr(argv[0], '/'))
		execv(argv[0], argv);
	child_say(2, "slurmstepd: error: execve(): %s: %s\n", argv[0], strerror(errno));
	_exit(errno ? errno : 1);
}

/* In the task's child: its process group or session, cgroups, user, standard
 * streams, CPU binding report, descriptors and directory.  Allocates nothing:
 * the vfork child (task_exec) runs it too. */
static void child_setup(const struct stepd *st, const struct stepd_task *t,
                        const struct task_io *tio, const int pipes[3], int errfd)
{
	const char *what = "";
	int rc;

	if (t->pty)
		setsid(); /* its own session, with the terminal as controlling tty */
	else
		setpgid(0, 0);
	if ((rc = cgroup_enter(st->cg, t->ltid, &what)) < 0) /* while still root */
		child_fail(errfd, "cannot join %s: %s", what, strerror(-rc));
	child_become_user(st, errfd);
	child_stdio(tio, pipes, st->ntasks == 1 ? output_trunc(st) : 0, errfd);
	if (t->pty && ioctl(0, TIOCSCTTY, 0) < 0)
		child_fail(errfd, "cannot take the terminal: %s", strerror(errno));
	child_say_binding(st, t);
	child_mem_bind(st, t, errfd);
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	pmi_child_keep(st, t);
	if (st->ctr) {
		char why[512];
		if (container_child_enter(st, why, sizeof(why)) < 0)
			child_fail(errfd, "%s", why);
		return;
	}
	child_chdir(st->req->work_dir);
}

/* --gpu-bind: the GPUs a task sees (env_task_gpus), made before its fork. */
#define GPU_VARS 3
static const char *const gpu_vars[GPU_VARS] = {
    "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES"};

struct task_gpus {
	char *visible;        /* NULL: the step's, as env_build set them */
	char *say;            /* verbose line, or NULL */
	char *vars[GPU_VARS]; /* vfork: "NAME=visible" */
	/* and the task's PMI variables (stepd/pmi.h), "NAME=value", borrowed */
	char *const *pmi;
	size_t npmi;
};

static int is_var(const char *kv, const char *name);

/* Whether kv sets one of the task's PMI variables (its own value wins). */
static int is_pmi_var(const struct task_gpus *g, const char *kv)
{
	for (size_t i = 0; i < g->npmi; i++) {
		size_t n = strcspn(g->pmi[i], "=");
		if (!strncmp(kv, g->pmi[i], n + 1))
			return 1;
	}
	return 0;
}

static int is_gpu_var(const struct task_gpus *g, const char *kv)
{
	for (size_t i = 0; g->visible && i < GPU_VARS; i++)
		if (is_var(kv, gpu_vars[i]))
			return 1;
	return 0;
}

/* The task child (of a fork): never returns. */
static void task_child(struct stepd *st, struct stepd_task *t, const struct task_io *tio,
                       const int pipes[3], int errfd, const struct task_gpus *g)
{
	char **env, **argv;

	child_setup(st, t, tio, pipes, errfd);
	env = env_add_task(st->env, st, t); /* the child's own copy since the fork */
	for (size_t i = 0; i < g->npmi; i++) {
		size_t n = strcspn(g->pmi[i], "=");
		char *name = xstrndup(g->pmi[i], n);
		env = strv_setenv(env, name, g->pmi[i][n] ? g->pmi[i] + n + 1 : "");
		free(name);
	}
	for (size_t i = 0; g->visible && i < GPU_VARS; i++)
		env = strv_setenv(env, gpu_vars[i], g->visible);
	if (g->say)
		child_say(2, "%s", g->say);
	if (st->conf->task_prolog) /* as the user, in the task's environment */
		env = task_prolog_apply(st->conf->task_prolog, env, 1);
	if (st->req->task_prolog) /* srun --task-prolog: after slurm.conf's */
		env = task_prolog_apply(st->req->task_prolog, env, 1);
	if (st->batch) {
		argv = strv_append(NULL, st->script);
		for (size_t i = 0; st->req->argv && st->req->argv[i]; i++)
			argv = strv_append(argv, st->req->argv[i]);
	} else if (st->req->flags & STEP_F_MULTI_PROG) {
		struct rota_error merr = {""};
		if (multiprog_argv(st->req->argv[0], t->gtid, &argv, &merr) < 0) {
			dprintf(2, "slurmstepd: error: %s\n", merr.text);
			_exit(1);
		}
	} else {
		argv = st->req->argv;
	}
	environ = env; /* execvp searches the task's PATH, not ours */
	child_exec(st, argv);
}

/* ---- tasks started with vfork ----
 * A fork copies the step daemon's page tables and write-protects its pages;
 * the exec then throws the copy away, and the step daemon's next writes each
 * take a copy-on-write fault.  On a host where page faults are dear (a VM
 * shadowing page tables) that is a large part of a job's cost.  A vfork child
 * borrows the step daemon's memory until its exec: everything it needs that
 * takes memory is made before (the environment with the task's variables, the
 * argument vector), and it writes only its pid into a buffer made for it.
 * Not with a TaskProlog or --multi-prog (they need memory in the child), nor
 * when the groups are to be looked up in the child, nor under AddressSanitizer
 * (its shadow stack and a shared stack do not mix). */
struct task_exec {
	char **env;  /* the step's strings, the task's own below; pointers only */
	char **argv; /* pointers only */
	char pid_var[40];
	char procid_var[40], localid_var[40];
};

static int can_vfork(const struct stepd *st)
{
#if defined(__SANITIZE_ADDRESS__)
	return 0;
#else
	return !st->conf->task_prolog && !st->req->task_prolog &&
	       !(st->req->flags & STEP_F_MULTI_PROG) && !st->ctr &&
	       (!st->as_root || st->gids);
#endif
}

static int is_var(const char *kv, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(kv, name, n) && kv[n] == '=';
}

/* As env_add_task and the argv of task_child, made in the step daemon. */
static void task_exec_prepare(const struct stepd *st, const struct stepd_task *t,
                              struct task_gpus *g, struct task_exec *te)
{
	size_t n = 0, k = 0, na = 0;

	while (st->env && st->env[n])
		n++;
	te->env = xcalloc(n + 4 + GPU_VARS + g->npmi, sizeof(char *));
	for (size_t i = 0; g->visible && i < GPU_VARS; i++)
		te->env[k++] = g->vars[i] = xasprintf("%s=%s", gpu_vars[i], g->visible);
	for (size_t i = 0; i < g->npmi; i++)
		te->env[k++] = g->pmi[i];
	for (size_t i = 0; i < n; i++)
		if (!is_var(st->env[i], "SLURM_TASK_PID") && !is_gpu_var(g, st->env[i]) &&
		    !is_pmi_var(g, st->env[i]) &&
		    (st->batch || (!is_var(st->env[i], "SLURM_PROCID") &&
		                   !is_var(st->env[i], "SLURM_LOCALID"))))
			te->env[k++] = st->env[i];
	snprintf(te->pid_var, sizeof(te->pid_var), "SLURM_TASK_PID=");
	te->env[k++] = te->pid_var;
	if (!st->batch) {
		snprintf(te->procid_var, sizeof(te->procid_var), "SLURM_PROCID=%u",
		         t->gtid);
		snprintf(te->localid_var, sizeof(te->localid_var), "SLURM_LOCALID=%u",
		         t->ltid);
		te->env[k++] = te->procid_var;
		te->env[k++] = te->localid_var;
	}
	if (!st->batch) {
		te->argv = NULL;
		return;
	}
	while (st->req->argv && st->req->argv[na])
		na++;
	te->argv = xcalloc(na + 2, sizeof(char *));
	te->argv[0] = st->script;
	for (size_t i = 0; i < na; i++)
		te->argv[i + 1] = st->req->argv[i];
}

/* The vfork child: never returns.  Writes only te->pid_var (and, like any
 * child, its own stack). */
static void task_exec_child(const struct stepd *st, const struct stepd_task *t,
                            const struct task_io *tio, const int pipes[3], int errfd,
                            const struct task_gpus *g, struct task_exec *te)
{
	char **argv = te->argv ? te->argv : st->req->argv;

	child_setup(st, t, tio, pipes, errfd);
	if (g->say)
		child_say(2, "%s", g->say);
	snprintf(te->pid_var, sizeof(te->pid_var), "SLURM_TASK_PID=%d", (int)getpid());
	environ = te->env; /* the parent puts its own back when it goes on */
	child_exec(st, argv);
}

/* Wait for a child's exec (EOF) or its failure text.  Returns 0 or -1 (err). */
static int wait_exec(int errfd, struct rota_error *err)
{
	char buf[512];
	ssize_t n;

	do
		n = read(errfd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(errfd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return errprintf(err, "%s", buf);
}

/* srun -l with output files of its own: the step daemon labels the tasks'
 * lines into them (stepd/io.c), as Slurm's does. */
static int labels_files(const struct stepd *st)
{
	return !st->batch && (st->req->flags & STEP_F_LABEL) &&
	       !(st->req->flags & STEP_F_PTY);
}

/* In prepare_files' child: fd to the parent (SCM_RIGHTS), for task i's
 * stream k. */
static void child_send_fd(int sock, int fd, int errfd)
{
	char tag = 'f', ctl[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {&tag, 1};
	struct msghdr m = {.msg_iov = &iov,
	                   .msg_iovlen = 1,
	                   .msg_control = ctl,
	                   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &m, MSG_NOSIGNAL) != 1)
		child_fail(errfd, "sendmsg: %s", strerror(errno));
}

/* One fd from prepare_files' child; -1 when it sent none (it failed). */
static int recv_fd(int sock)
{
	char tag, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&tag, 1};
	struct msghdr m = {.msg_iov = &iov,
	                   .msg_iovlen = 1,
	                   .msg_control = ctl,
	                   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	c = n == 1 ? CMSG_FIRSTHDR(&m) : NULL;
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* Only a regular file is written labelled by the step daemon: anything
 * else (/dev/null, a FIFO, a terminal) the task opens and writes itself, so
 * that nothing of the user's can make us wait.  fd, or -1 (closed). */
static int regular_or_none(int fd)
{
	struct stat sb;

	if (fd >= 0 && (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The file a path already opened in the child has: its index, or -1. */
static int path_seen(struct task_io *tios, uint32_t i, int k)
{
	const char *path = k ? tios[i].err : tios[i].out;

	for (uint32_t j = 0; j <= i; j++)
		for (int l = 0; l < 2 && (j < i || l < k); l++) {
			const char *o = l ? tios[j].err : tios[j].out;
			if (o && !strcmp(o, path))
				return (int)(j * 2 + (uint32_t)l);
		}
	return -1;
}

/* Create/truncate every output file once, as the user; with labels
 * (labels_files) the child sends each task's open files back, kept in the
 * tasks' out_file/err_file, and the tasks write to pipes. */
static int prepare_files(struct stepd *st, struct task_io *tios, struct rota_error *err)
{
	int ep[2], sp[2] = {-1, -1}, status, labels = labels_files(st);
	pid_t pid;

	if (pipe2(ep, O_CLOEXEC) < 0)
		return errprintf(err, "pipe: %s", strerror(errno));
	if (labels && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		close(ep[0]);
		close(ep[1]);
		return errprintf(err, "socketpair: %s", strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(ep[0]);
		close(ep[1]);
		if (labels) {
			close(sp[0]);
			close(sp[1]);
		}
		return errprintf(err, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* Truncating a file twice before any task runs is harmless; on
		 * other nodes of a step, tasks may already be writing to it. */
		int trunc = output_trunc(st);
		int *fds = labels ? xcalloc(st->ntasks * 2, sizeof(int)) : NULL;
		close(ep[0]);
		if (labels)
			close(sp[0]);
		child_become_user(st, ep[1]);
		for (uint32_t i = 0; i < st->ntasks; i++) {
			const char *paths[2] = {tios[i].out, tios[i].err};
			for (int k = 0; k < 2; k++) {
				int fd, seen = paths[k] && labels ? path_seen(tios, i, k)
				                                  : -1;
				if (!paths[k])
					continue;
				fd = seen >= 0
				         ? fds[seen]
				         : open(paths[k],
				                O_WRONLY | O_CREAT | O_APPEND | trunc |
				                    O_CLOEXEC | (labels ? O_NONBLOCK : 0),
				                0666);
				/* a FIFO nobody reads: not ours to wait on
				 * (regular_or_none leaves it to the task) */
				if (fd < 0 && labels && errno == ENXIO)
					fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
				if (fd >= 0 && labels && seen < 0)
					fcntl(fd, F_SETFL,
					      fcntl(fd, F_GETFL) & ~O_NONBLOCK);
				if (fd < 0)
					child_fail(ep[1], "Could not open %s file %s: %s",
					           k ? "stderr" : "stdout", paths[k],
					           strerror(errno));
				if (!labels) {
					close(fd);
					continue;
				}
				fds[i * 2 + (uint32_t)k] = fd;
				child_send_fd(sp[1], fd, ep[1]);
			}
		}
		_exit(0);
	}
	close(ep[1]);
	if (labels) {
		close(sp[1]);
		/* in the child's order; a file opened once comes again as
		 * another fd of it (one open file: one offset, O_APPEND) */
		for (uint32_t i = 0; i < st->ntasks; i++) {
			struct stepd_task *t = &st->tasks[i];
			if (tios[i].out)
				t->out_file = regular_or_none(recv_fd(sp[0]));
			if (tios[i].err)
				t->err_file = regular_or_none(recv_fd(sp[0]));
		}
		close(sp[0]);
	}
	status = wait_exec(ep[0], err);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* The terminal size srun sent (SLURM_PTY_WIN_ROW/COL), if any. */
static void pty_size(const struct stepd *st, int fd)
{
	const char *row = strv_getenv(st->req->env, "SLURM_PTY_WIN_ROW");
	const char *col = strv_getenv(st->req->env, "SLURM_PTY_WIN_COL");
	struct winsize ws = {0};

	if (row && col) {
		ws.ws_row = (unsigned short)strtoul(row, NULL, 10);
		ws.ws_col = (unsigned short)strtoul(col, NULL, 10);
	}
	if (ws.ws_row && ws.ws_col)
		ioctl(fd, TIOCSWINSZ, &ws);
}

/* --pty: task 0 gets a terminal.  The child's stdin and stdout (stderr
 * follows stdout) are its slave side; ours are the master, twice: in_fd to
 * write what srun sends, out_fd to read what the task prints. */
static int make_pty(const struct stepd *st, struct stepd_task *t, int child[3],
                    struct rota_error *err)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s = -1;
	const char *name;

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || !(name = ptsname(m)) ||
	    (s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		errprintf(err, "cannot open a pseudo-terminal: %s", strerror(errno));
		if (m >= 0)
			close(m);
		return -1;
	}
	pty_size(st, m);
	if (fchown(s, st->uid, (gid_t)-1) < 0)
		log_debug("fchown %s: %s", name, strerror(errno));
	child[0] = s;
	child[1] = fcntl(s, F_DUPFD_CLOEXEC, 0);
	child[2] = -1;
	t->out_fd = fcntl(m, F_DUPFD_CLOEXEC, 0);
	if (child[1] < 0 || t->out_fd < 0) {
		errprintf(err, "cannot open a pseudo-terminal: %s", strerror(errno));
		if (t->out_fd >= 0)
			close(t->out_fd);
		t->out_fd = -1;
		close(m);
		return -1; /* the caller closes child[] */
	}
	t->in_fd = m;
	t->err_fd = -1;
	t->pty = 1;
	fcntl(m, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Pipes for one task: child ends in child[] (-1 when the stream is a file or
 * /dev/null), our ends in t->in_fd/out_fd/err_fd (non-blocking). */
static int make_pipes(const struct stepd *st, struct stepd_task *t,
                      const struct task_io *tio, int child[3], struct rota_error *err)
{
	int want[3] = {
	    !tio->in && stdin_from_srun(st, t->gtid) && st->io != NULL,
	    !tio->out && (st->io != NULL || t->out_file >= 0),
	    !tio->err && (st->io != NULL || t->err_file >= 0),
	};
	int *ours[3] = {&t->in_fd, &t->out_fd, &t->err_fd};

	if (!st->batch && (st->req->flags & STEP_F_PTY) && t->gtid == 0 && st->io &&
	    !tio->in && !tio->out && !tio->err)
		return make_pty(st, t, child, err);
	for (int k = 0; k < 3; k++) {
		int p[2];

		child[k] = -1;
		*ours[k] = -1;
		if (st->batch || !want[k])
			continue;
		if (pipe2(p, O_CLOEXEC) < 0)
			return errprintf(err, "pipe: %s", strerror(errno));
		child[k] = k == 0 ? p[0] : p[1];
		*ours[k] = k == 0 ? p[1] : p[0];
		fcntl(*ours[k], F_SETFL, O_NONBLOCK);
	}
	return 0;
}

static void close_child_ends(int child[3])
{
	for (int k = 0; k < 3; k++)
		if (child[k] >= 0)
			close(child[k]);
}

static int launch_one(struct stepd *st, struct stepd_task *t, const struct task_io *tio,
                      struct rota_error *err)
{
	int child[3] = {-1, -1, -1}, ep[2];
	struct task_gpus g = {NULL};
	pid_t pid;

	if (make_pipes(st, t, tio, child, err) < 0) {
		close_child_ends(child);
		return -1;
	}
	if (pipe2(ep, O_CLOEXEC) < 0) {
		close_child_ends(child);
		return errprintf(err, "pipe: %s", strerror(errno));
	}
	g.visible = env_task_gpus(st, t, &g.say);
	g.pmi = pmi_task_env(st, t);
	while (g.pmi && g.pmi[g.npmi])
		g.npmi++;
	if (can_vfork(st)) {
		struct task_exec te = {0};
		char **our_environ = environ;

		task_exec_prepare(st, t, &g, &te);
		pid = vfork();
		if (pid == 0)
			task_exec_child(st, t, tio, child, ep[1], &g, &te);
		environ = our_environ;
		free(te.env);
		free(te.argv);
	} else {
		pid = fork();
		if (pid == 0) {
			close(ep[0]);
			task_child(st, t, tio, child, ep[1], &g);
		}
	}
	free(g.visible);
	free(g.say);
	for (size_t i = 0; i < GPU_VARS; i++)
		free(g.vars[i]);
	if (pid < 0) {
		int e = errno;
		close_child_ends(child);
		close(ep[0]);
		close(ep[1]);
		return errprintf(err, "fork: %s", strerror(e));
	}
	if (!t->pty) /* a session leader (setsid in the child) cannot be moved */
		setpgid(pid, pid); /* also done by the child: no window for kill(-pgid) */
	t->pid = t->pgid = pid;
	close_child_ends(child);
	pmi_task_forked(st, t);
	close(ep[1]);
	if (wait_exec(ep[0], err) < 0)
		return -1;
	if (pdebug_stop(st, t) < 0)
		return errprintf(err, "cannot stop task %u for the debugger", t->gtid);
	return 0;
}

static void reap_all_blocking(struct stepd *st)
{
	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct stepd_task *t = &st->tasks[i];
		while (t->pid > 0 && waitpid(t->pid, &t->status, 0) < 0 && errno == EINTR)
			;
		if (t->pid > 0) {
			t->pid = 0;
			t->exited = 1;
		}
	}
}

int task_launch_all(struct stepd *st, struct rota_error *err)
{
	struct task_io *tios = xcalloc(st->ntasks, sizeof(*tios));
	int rc = 0, files = 0;

	for (uint32_t i = 0; i < st->ntasks && rc == 0; i++) {
		rc = task_io_resolve(st, st->tasks[i].gtid, &tios[i], err);
		files |= tios[i].out || tios[i].err;
	}
	/* the only task opens (and truncates) its files itself: no process
	 * of its own for that, once a job (unless they are labelled) */
	if (rc == 0 && files && (st->ntasks > 1 || labels_files(st)))
		rc = prepare_files(st, tios, err);
	for (uint32_t i = 0; i < st->ntasks && rc == 0; i++) {
		/* a labelled file: the task writes to a pipe, we to the file */
		struct task_io use = tios[i];
		if (st->tasks[i].out_file >= 0)
			use.out = NULL;
		if (st->tasks[i].err_file >= 0)
			use.err = NULL;
		rc = launch_one(st, &st->tasks[i], &use, err);
		if (rc == 0)
			log_debug("JobId=%u StepId=%u task %u started, pid %d",
			          st->req->job_id, st->req->step_id, st->tasks[i].gtid,
			          (int)st->tasks[i].pid);
	}
	if (rc < 0) {
		task_signal_all(st, SIGKILL);
		reap_all_blocking(st);
	}
	for (uint32_t i = 0; i < st->ntasks; i++)
		task_io_release(&tios[i]);
	free(tios);
	return rc;
}

/* cgroup_sent_fn: is pid in the process group of a live task (signalled
 * through its group by task_signal_all)? */
static int in_task_group(pid_t pid, void *ctx)
{
	const struct stepd *st = ctx;
	pid_t pgid = getpgid(pid);

	if (pgid <= 0)
		return 0;
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].pid > 0 && st->tasks[i].pgid == pgid)
			return 1;
	return 0;
}

void task_signal_all(struct stepd *st, int sig)
{
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].pid > 0 && kill(-st->tasks[i].pgid, sig) < 0 &&
		    errno == ESRCH)
			kill(st->tasks[i].pid, sig); /* not yet in its own group */
	/* and the processes that left those groups, once each */
	cgroup_signal(st->cg, sig, in_task_group, st);
}

void task_signal_leaders(struct stepd *st, int sig)
{
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].pid > 0)
			kill(st->tasks[i].pid, sig);
}

void task_kill_leftovers(struct stepd *st)
{
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].pgid > 0)
			kill(-st->tasks[i].pgid, SIGKILL);
	/* daemonised processes too; when the batch script ends, the whole job */
	if (st->batch)
		cgroup_kill_job(st->cg);
	else
		cgroup_signal(st->cg, SIGKILL, NULL, NULL);
}

int task_oom_killed(const struct stepd *st, const struct stepd_task *t)
{
	int sigkilled = WIFSIGNALED(t->status) && WTERMSIG(t->status) == SIGKILL;

	/* the batch script's status stays the shell's; the job ends
	 * OUT_OF_MEMORY through STEP_DONE_OOM */
	if (st->batch || !t->exited || !t->status)
		return 0;
	return cgroup_oom_kills(st->cg, sigkilled) > 0;
}

/* srun --task-epilog, once a task has exited: as the user, in the task's
 * cgroup (the step's end kills what it leaves), in the step's environment
 * with the task's SLURM_TASK_PID, its output nowhere.  A supervisor child
 * kills it with what it started after TASK_EPILOG_SECS (meant to be short,
 * as in Slurm); the step daemon does not wait for it: its loop goes on
 * with the other tasks' output and messages, and task_reap reaps it. */
#define TASK_EPILOG_SECS 5

/* The supervisor's exit code for the epilog's wait status: its exit code
 * (below 128), or 128 and the signal that ended it. */
static int epilog_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status) > 127 ? 127 : WEXITSTATUS(status);
}

static void task_epilog(struct stepd *st, struct stepd_task *t, pid_t task_pid)
{
	const char *path = st->req->task_epilog, *what = "";
	pid_t pid;

	if (!path || !*path || (pid = fork()) < 0)
		return;
	if (pid > 0) {
		st->epilogs = xrealloc(st->epilogs, (st->nepilogs + 1) * sizeof(pid_t));
		st->epilogs[st->nepilogs++] = pid;
		t->epilog = pid;
		return;
	}
	/* the supervisor, still root: none of the step daemon's descriptors */
	close_range(3, ~0U, 0);
	if (cgroup_enter(st->cg, t->ltid, &what) < 0)
		_exit(1);
	if ((pid = fork()) == 0) {
		char **env = strv_setenvf(strv_dup(st->env), "SLURM_TASK_PID", "%d",
		                          (int)task_pid);
		char *argv[] = {(char *)path, NULL};
		int null = open("/dev/null", O_RDWR);
		setsid();
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		child_become_user(st, -1);
		if (st->req->work_dir && chdir(st->req->work_dir) < 0) {
			/* run where it is, as a task would in /tmp */
		}
		execve(path, argv, env);
		_exit(127);
	}
	for (int i = 0; pid > 0 && i < TASK_EPILOG_SECS * 100; i++) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid)
			_exit(epilog_exit_code(status));
		usleep(10000);
	}
	if (pid > 0)
		kill(-pid, SIGKILL);
	_exit(pid > 0 ? epilog_exit_code(SIGKILL) : 1 << 0);
}

/* The epilog's wait status from its supervisor's exit code (above). */
static int epilog_status(int supervisor_status)
{
	int code = WIFEXITED(supervisor_status) ? WEXITSTATUS(supervisor_status) : 0;

	return code >= 128 ? code - 128 : code << 8;
}

int task_reap(struct stepd *st)
{
	int status, n = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (uint32_t i = 0; i < st->nepilogs; i++)
			if (st->epilogs[i] == pid)
				st->epilogs[i] = st->epilogs[--st->nepilogs];
		for (uint32_t i = 0; i < st->ntasks; i++) {
			struct stepd_task *t = &st->tasks[i];
			if (t->epilog != pid)
				continue;
			t->epilog = 0;
			if (epilog_status(status)) {
				char *line =
				    xasprintf("slurmstepd: error: TaskEpilog failed "
				              "status=%d\n",
				              epilog_status(status));
				stepd_user_error(st, t, line);
				free(line);
			}
		}
		for (uint32_t i = 0; i < st->ntasks; i++) {
			struct stepd_task *t = &st->tasks[i];
			if (t->pid != pid)
				continue;
			t->pid = 0;
			t->exited = 1;
			t->status = status;
			n++;
			log_debug("JobId=%u StepId=%u task %u exited, status %d",
			          st->req->job_id, st->req->step_id, t->gtid, status);
			task_epilog(st, t, pid);
		}
	}
	return n;
}

int task_write_err_file(struct stepd *st, const char *text)
{
	struct task_io tio = {NULL};
	int ep[2], rc;
	pid_t pid;

	if (!st->ntasks || task_io_resolve(st, st->tasks[0].gtid, &tio, NULL) < 0)
		return -1;
	if (!tio.err) {
		task_io_release(&tio);
		return 0;
	}
	if (pipe2(ep, O_CLOEXEC) < 0) {
		task_io_release(&tio);
		return -1;
	}
	if ((pid = fork()) == 0) {
		close(ep[0]);
		child_become_user(st, ep[1]);
		/* created when the launch failed before the tasks made it */
		child_open(2, tio.err, O_WRONLY | O_APPEND | O_CREAT, ep[1]);
		_exit(net_write_all(2, text, strlen(text)) < 0);
	}
	close(ep[1]);
	rc = pid < 0 ? -1 : wait_exec(ep[0], NULL);
	if (pid < 0)
		close(ep[0]);
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	task_io_release(&tio);
	return rc < 0 ? -1 : 1;
}
