/* pdebug.c - a step under a parallel debugger (STEP_F_PARALLEL_DEBUG).
 *
 * srun sets the flag when a debugger drives it through the MPIR interface
 * (cli/srun_mpir.h) or with --debugger-test.  Each task then stops at the
 * first instruction of its program, before it has run any of it: the child
 * asks to be traced (PTRACE_TRACEME) right before its exec, so the exec stops
 * it with SIGTRAP; the step daemon, its tracer, waits for that stop, sends
 * SIGSTOP, detaches and waits for that stop.  The task is left in an
 * ordinary stop (State T), not traced, for the debugger to attach to.  Its
 * pid, host and program go to srun (MSG_TASK_PIDS, io.c) for MPIR_proctable.
 * Once srun has been to MPIR_Breakpoint it sends MSG_DEBUG_WAKE: the tasks no
 * debugger traces are continued; the traced ones are the debugger's.
 *
 * A stopped task needs nothing else: the step daemon's waitpid() never asks
 * for stops (no WUNTRACED) once the exec stop is taken here; a terminate
 * sends it SIGTERM before SIGCONT (ctl.c), so it dies before running a
 * single instruction; SIGKILL ends it in any state.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/multiprog.h"
#include "stepd/stepd.h"
#include "common/common.h"

int pdebug_wanted(const struct stepd *st)
{
	return !st->batch && (st->req->flags & STEP_F_PARALLEL_DEBUG);
}

int pdebug_traceme(const struct stepd *st)
{
	if (!pdebug_wanted(st))
		return 0;
	return ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0 ? -errno : 0;
}

int pdebug_stop(struct stepd *st, struct stepd_task *t)
{
	int status = 0;
	pid_t pid = t->pid;

	if (!pdebug_wanted(st) || pid <= 0)
		return 0;
	while (waitpid(pid, &status, WUNTRACED) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFSTOPPED(status)) { /* it ended before its program started */
		log_err("JobId=%u StepId=%u task %u ended before it could be stopped "
		        "for the debugger",
		        st->req->job_id, st->req->step_id, t->gtid);
		t->pid = 0;
		t->exited = 1;
		t->status = status;
		return 0;
	}
	if (kill(pid, SIGSTOP) < 0 || ptrace(PTRACE_DETACH, pid, NULL, NULL) < 0) {
		int e = errno;
		log_err("JobId=%u StepId=%u task %u: cannot stop it for the debugger: "
		        "%s",
		        st->req->job_id, st->req->step_id, t->gtid, strerror(e));
		return -e;
	}
	/* its stop, once detached: until then it runs (no instruction of its
	 * program, but State R), and srun would show it so */
	while (waitpid(pid, &status, WUNTRACED) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFSTOPPED(status)) {
		t->pid = 0;
		t->exited = 1;
		t->status = status;
		return 0;
	}
	log_debug("JobId=%u StepId=%u task %u stopped for the debugger, pid %d",
	          st->req->job_id, st->req->step_id, t->gtid, (int)pid);
	return 0;
}

/* The pid tracing pid (TracerPid of /proc/pid/status), 0 for none, -1 when
 * it cannot be read. */
static long tracer_of(pid_t pid)
{
	char path[64], buf[4096];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "TracerPid:");
	return p ? strtol(p + strlen("TracerPid:"), NULL, 10) : -1;
}

void pdebug_wake(struct stepd *st)
{
	if (!pdebug_wanted(st))
		return;
	for (uint32_t i = 0; i < st->ntasks; i++) {
		const struct stepd_task *t = &st->tasks[i];
		/* unknown: woken, as a debugger that traces it copes with that */
		if (t->pid > 0 && tracer_of(t->pid) <= 0 && kill(t->pid, SIGCONT) == 0)
			log_debug("JobId=%u StepId=%u task %u continued after the "
			          "debugger's breakpoint",
			          st->req->job_id, st->req->step_id, t->gtid);
	}
}

/* Task t's program: argv[0] of its command line. */
static char *task_exe(const struct stepd *st, const struct stepd_task *t)
{
	char **argv = NULL, *exe;

	if (!st->req->argv || !st->req->argv[0])
		return xstrdup("");
	if (!(st->req->flags & STEP_F_MULTI_PROG))
		return xstrdup(st->req->argv[0]);
	if (multiprog_argv(st->req->argv[0], t->gtid, &argv, NULL) < 0 || !argv ||
	    !argv[0]) {
		strv_free(argv);
		return xstrdup("");
	}
	exe = xstrdup(argv[0]);
	strv_free(argv);
	return exe;
}

void pdebug_pids(const struct stepd *st, struct task_pids *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->node_name = st->req->node_name;
	ret->tasks.v = xcalloc(st->ntasks + 1, sizeof(uint32_t));
	ret->pids.v = xcalloc(st->ntasks + 1, sizeof(uint32_t));
	ret->exes = xcalloc(st->ntasks + 1, sizeof(char *));
	for (uint32_t i = 0; i < st->ntasks; i++) {
		const struct stepd_task *t = &st->tasks[i];
		ret->tasks.v[i] = t->gtid;
		ret->pids.v[i] = t->pid > 0 ? (uint32_t)t->pid : 0;
		ret->exes[i] = task_exe(st, t);
	}
	ret->tasks.n = ret->pids.n = st->ntasks;
}

void pdebug_pids_release(struct task_pids *p)
{
	free(p->tasks.v);
	free(p->pids.v);
	strv_free(p->exes);
	memset(p, 0, sizeof(*p));
}
