/* reboot.c - run RebootProgram for scontrol reboot (reboot.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/log.h"
#include "noded/reboot.h"
#include "common/common.h"

/* The signals rotad handles through its loop, back to their defaults. */
static void signals_default(void)
{
	static const int sigs[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR2, SIGPIPE};
	sigset_t none;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the program's process: never returns. */
static void program_exec(const struct node_reboot_opts *o, int out)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(127);
	setenv("SLURMD_NODENAME", o->node_name, 1);
	execl("/bin/sh", "sh", "-c", o->program, (char *)NULL);
	_exit(127);
}

/* In the watcher: run the program, log its output and how it ended. */
static int program_watch(const struct node_reboot_opts *o)
{
	char line[1024];
	int p[2], status = 0;
	pid_t pid;
	FILE *f;

	if (pipe2(p, O_CLOEXEC) < 0) {
		log_err("RebootProgram: pipe: %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		log_err("RebootProgram: fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0)
		program_exec(o, p[1]);
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		log_info("RebootProgram: %s", line);
	}
	if (f)
		fclose(f);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (status)
		log_err("system(%s) returned %d", o->program, status);
	return 0;
}

int node_reboot_run(const struct node_reboot_opts *o)
{
	char *first;
	pid_t pid;
	int rc;

	if (!o->program || !*o->program) {
		log_err("RebootProgram isn't defined in config");
		return -ENOENT;
	}
	/* the command line's first word must be a program we may run */
	first = xstrndup(o->program, strcspn(o->program, " \t"));
	if (access(first, R_OK | X_OK) < 0) {
		log_err("Cannot run RebootProgram [%s]: %s", first, strerror(errno));
		free(first);
		return -EACCES;
	}
	free(first);
	log_info("Node reboot request being processed");
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		log_err("RebootProgram: fork: %s", strerror(errno));
		return rc;
	}
	if (pid > 0)
		return 0;
	/* the watcher: none of rotad's connections or sockets held open */
	setsid();
	signals_default();
	if (close_range(3, ~0U, 0) < 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	log_forget_file();
	if (o->log_file)
		log_init("rotad", o->verbose ? LOG_DEBUG : LOG_INFO, o->log_file);
	_exit(program_watch(o));
}
