/* srun_script.c - srun's own prolog and epilog (see srun_script.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/srun_script.h"
#include "proto/messages.h"
#include "common/common.h"

int srun_script_run(const char *path, char *const *cmd, const char *context,
                    uint32_t job_id)
{
	size_t n = 0;
	char **argv;
	pid_t pid;
	int status;

	if (!path || !*path || !strcasecmp(path, "none"))
		return 0;
	if (access(path, R_OK | X_OK) < 0) {
		fprintf(stderr, "srun: Access denied for %s: %s\n", path,
		        strerror(errno));
		return 0;
	}
	while (cmd && cmd[n])
		n++;
	argv = xcalloc(n + 2, sizeof(*argv));
	argv[0] = (char *)path;
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = cmd[i];
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setenv("SLURM_SCRIPT_CONTEXT", context, 1);
		if (job_id != NO_VAL) {
			char id[16];
			snprintf(id, sizeof(id), "%u", job_id);
			setenv("SLURM_JOB_ID", id, 1);
		}
		execv(path, argv);
		fprintf(stderr,
		        "srun: error: Failed to execute srun prolog/epilog script: %s\n",
		        strerror(errno));
		_exit(127);
	}
	free(argv);
	if (pid < 0) {
		cli_error("run_srun_script: fork: %s", strerror(errno));
		return 1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
