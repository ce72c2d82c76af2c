#include <errno.h>
#include <stddef.h>
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
#include "common/xmalloc.h"
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

/* Its strings, to copy and free. */
static const size_t str_fields[] = {
    offsetof(struct script_job, user),          offsetof(struct script_job, nodes),
    offsetof(struct script_job, partition),     offsetof(struct script_job, account),
    offsetof(struct script_job, comment),       offsetof(struct script_job, constraints),
    offsetof(struct script_job, reservation),   offsetof(struct script_job, work_dir),
    offsetof(struct script_job, cpus_per_node), offsetof(struct script_job, std_out),
    offsetof(struct script_job, std_err),       offsetof(struct script_job, std_in),
    offsetof(struct script_job, gpus),
};

static char **str_field(struct script_job *j, size_t k)
{
	return (char **)((char *)j + str_fields[k]);
}

struct script_job *script_job_dup(const struct script_job *j)
{
	struct script_job *c = xcalloc(1, sizeof(*c));

	*c = *j;
	for (size_t k = 0; k < sizeof(str_fields) / sizeof(*str_fields); k++) {
		char **f = str_field(c, k);
		*f = *f ? xstrdup(*f) : NULL;
	}
	return c;
}

void script_job_free(struct script_job *j)
{
	if (!j)
		return;
	for (size_t k = 0; k < sizeof(str_fields) / sizeof(*str_fields); k++)
		free(*str_field(j, k));
	free(j);
}

static char **put_u32(char **env, const char *name, uint32_t v)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", v);
	return strv_setenv(env, name, num);
}

static char **put_str(char **env, const char *name, const char *v)
{
	return v ? strv_setenv(env, name, v) : env;
}

char **script_env(const char *context, const struct script_job *j, const char *node_name,
                  const char *cluster, const char *conf_path)
{
	char **env = NULL;

	env = strv_setenv(env, "PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
	env = strv_setenv(env, "SLURM_SCRIPT_CONTEXT", context);
	env = put_u32(env, "SLURM_JOB_ID", j->job_id);
	env = put_u32(env, "SLURM_JOBID", j->job_id);
	env = put_u32(env, "SLURM_JOB_UID", j->uid);
	env = put_u32(env, "SLURM_UID", j->uid);
	env = put_u32(env, "SLURM_JOB_GID", j->gid);
	env = put_str(env, "SLURM_JOB_USER", j->user);
	env = put_str(env, "SLURM_JOB_NODELIST", j->nodes);
	env = put_str(env, "SLURM_NODELIST", j->nodes);
	env = put_str(env, "SLURM_JOB_PARTITION", j->partition);
	env = put_str(env, "SLURM_JOB_ACCOUNT", j->account);
	env = put_str(env, "SLURM_JOB_COMMENT", j->comment);
	env = put_str(env, "SLURM_JOB_CONSTRAINTS", j->constraints);
	env = put_str(env, "SLURM_JOB_RESERVATION", j->reservation);
	env = put_str(env, "SLURM_JOB_WORK_DIR", j->work_dir);
	env = put_str(env, "SLURM_JOB_CPUS_PER_NODE", j->cpus_per_node);
	env = put_str(env, "SLURM_JOB_STDOUT", j->std_out);
	env = put_str(env, "SLURM_JOB_STDERR", j->std_err);
	env = put_str(env, "SLURM_JOB_STDIN", j->std_in);
	if (j->ntasks && j->ntasks < 0xfffffffeu) /* not NO_VAL: given */
		env = put_u32(env, "SLURM_JOB_NTASKS", j->ntasks);
	if (j->nnodes)
		env = put_u32(env, "SLURM_JOB_NUM_NODES", j->nnodes);
	env = put_u32(env, "SLURM_JOB_RESTART_COUNT", j->restart_cnt);
	if (j->gpus) { /* the job's GPUs here, as Slurm's GRES environment */
		env = strv_setenv(env, "SLURM_JOB_GPUS", j->gpus);
		env = strv_setenv(env, "CUDA_VISIBLE_DEVICES", j->gpus);
		env = strv_setenv(env, "GPU_DEVICE_ORDINAL", j->gpus);
		env = strv_setenv(env, "ROCR_VISIBLE_DEVICES", j->gpus);
	}
	env = put_str(env, "SLURMD_NODENAME", node_name);
	env = put_str(env, "SLURM_CLUSTER_NAME", cluster);
	env = put_str(env, "SLURM_CONF", conf_path);
	return env;
}
