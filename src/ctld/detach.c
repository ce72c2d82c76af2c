/* detach.c - programs the controller runs without waiting (see detach.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ctld/detach.h"
#include "common/common.h"

extern char **environ;

#define DETACH_GROUPS_MAX 1024

/* The user's groups, looked up before the fork (the controller has threads:
 * a forked child must not use NSS). */
struct groups {
	gid_t v[DETACH_GROUPS_MAX];
	int n;
};

/* The program's own process: its group, its user, then exec. */
static void exec_it(const struct detached *d, const struct groups *g)
{
	setpgid(0, 0);
	if (getuid() == 0 && (setgroups((size_t)g->n, g->v) < 0 || setgid(d->gid) < 0 ||
	                      setuid(d->uid) < 0))
		_exit(126);
	if (chdir("/") < 0)
		_exit(126);
	execve(d->argv[0], d->argv, d->env ? d->env : environ);
	_exit(127);
}

/* The watcher: starts the program, kills its group past the limit. */
static void watch(const struct detached *d, const struct groups *g)
{
	pid_t prog = fork();

	if (prog == 0)
		exec_it(d, g);
	if (prog < 0)
		_exit(1);
	setpgid(prog, prog);
	if (!d->limit_s) {
		waitpid(prog, NULL, 0);
		_exit(0);
	}
	for (int i = 0; i < d->limit_s * 10; i++) {
		if (waitpid(prog, NULL, WNOHANG) == prog)
			_exit(0);
		usleep(100000);
	}
	kill(-prog, SIGKILL);
	waitpid(prog, NULL, 0);
	_exit(0);
}

int ctld_run_detached(const struct detached *d)
{
	static struct groups g; /* the loop's thread only */
	pid_t pid;

	g.n = 0;
	if (d->user && getuid() == 0) {
		g.n = DETACH_GROUPS_MAX;
		if (getgrouplist(d->user, d->gid, g.v, &g.n) < 0)
			g.n = DETACH_GROUPS_MAX; /* more than that: the first ones */
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		setsid();
		if (fork() != 0)
			_exit(0); /* the watcher goes on, a child of init */
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		close_range(3, ~0U, 0);
		watch(d, &g);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}
