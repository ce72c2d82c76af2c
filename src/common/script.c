#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/script.h"
#include "common/strv.h"
#include "common/common.h"

pid_t script_spawn(const char *path, char *const *env, int out_fd)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		char *argv[] = {(char *)path, NULL};
		dup2(null, 0);
		dup2(out_fd >= 0 ? out_fd : null, 1);
		dup2(out_fd >= 0 ? out_fd : null, 2);
		setpgid(0, 0);
		execve(path, argv, env);
		_exit(127);
	}
	return pid;
}

int script_wait(pid_t pid, int timeout_s)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int status = 0;

	if (pfd >= 0) {
		struct pollfd p = {.fd = pfd, .events = POLLIN};
		int rc;
		do
			rc = poll(&p, 1, timeout_s * 1000);
		while (rc < 0 && errno == EINTR);
		close(pfd);
		if (rc == 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -ETIMEDOUT;
		}
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return status;
}

char **script_env(const char *context, unsigned job_id, unsigned uid, unsigned gid,
                  const char *user, const char *nodes, const char *partition,
                  const char *node_name, const char *cluster, const char *conf_path)
{
	char **env = NULL;
	char num[32];

	env = strv_setenv(env, "PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
	env = strv_setenv(env, "SLURM_SCRIPT_CONTEXT", context);
	snprintf(num, sizeof(num), "%u", job_id);
	env = strv_setenv(env, "SLURM_JOB_ID", num);
	env = strv_setenv(env, "SLURM_JOBID", num);
	snprintf(num, sizeof(num), "%u", uid);
	env = strv_setenv(env, "SLURM_JOB_UID", num);
	snprintf(num, sizeof(num), "%u", gid);
	env = strv_setenv(env, "SLURM_JOB_GID", num);
	if (user)
		env = strv_setenv(env, "SLURM_JOB_USER", user);
	if (nodes)
		env = strv_setenv(env, "SLURM_JOB_NODELIST", nodes);
	if (partition)
		env = strv_setenv(env, "SLURM_JOB_PARTITION", partition);
	if (node_name)
		env = strv_setenv(env, "SLURMD_NODENAME", node_name);
	if (cluster)
		env = strv_setenv(env, "SLURM_CLUSTER_NAME", cluster);
	if (conf_path)
		env = strv_setenv(env, "SLURM_CONF", conf_path);
	return env;
}
