#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "proto/codec.h"
#include "stepd/taskprolog.h"
#include "common/common.h"

#define TASK_PROLOG_OUTPUT_MAX (1u << 20)

static char **apply_line(char **env, char *line, int out_fd)
{
	if (!strncmp(line, "export ", 7)) {
		char *kv = line + 7, *eq = strchr(kv, '=');
		if (eq && eq != kv) {
			*eq = '\0';
			env = strv_setenv(env, kv, eq + 1);
		}
	} else if (!strncmp(line, "unset ", 6)) {
		env = strv_unsetenv(env, line + 6);
	} else if (!strncmp(line, "print ", 6)) {
		size_t n = strlen(line + 6);
		line[6 + n] = '\n';
		if (write(out_fd, line + 6, n + 1) < 0) {
			/* the task's output is gone; nothing to do */
		}
	}
	return env;
}

/* Read the child's whole output (bounded). */
static char *read_all(int fd, size_t *ret_len)
{
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap + 1);
	ssize_t n;

	while ((n = read(fd, buf + len, cap - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
		if (len == cap) {
			if (cap >= TASK_PROLOG_OUTPUT_MAX)
				break;
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
	}
	buf[len] = '\0';
	*ret_len = len;
	return buf;
}

char **task_prolog_apply(const char *path, char **env, int out_fd)
{
	int pfd[2], status;
	size_t len;
	char *out, *line, *save = NULL;
	pid_t pid;

	if (!path || !*path || pipe2(pfd, O_CLOEXEC) < 0)
		return env;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return env;
	}
	if (pid == 0) {
		char *argv[] = {(char *)path, NULL};
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(pfd[1], 1);
		execve(path, argv, env);
		_exit(127);
	}
	close(pfd[1]);
	out = read_all(pfd[0], &len);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		env = apply_line(env, line, out_fd);
	free(out);
	return env;
}
