/* srun_bcast.c - srun --bcast: the command sent to the nodes before the step
 * (see srun_bcast.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/bcast_send.h"
#include "cli/cli.h"
#include "cli/srun_bcast.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "common/common.h"

/* An executable regular file? */
static int runnable(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* cmd as Slurm's srun finds it: with a '/', as given (relative to cwd);
 * else the first of PATH's directories that has it, then cwd.  Caller
 * frees; NULL when nowhere. */
static char *find_command(const char *cmd, const char *cwd)
{
	const char *path = getenv("PATH");
	char *found = NULL;

	if (strchr(cmd, '/')) {
		found = cmd[0] == '/' ? xstrdup(cmd) : xasprintf("%s/%s", cwd, cmd);
		if (runnable(found))
			return found;
		free(found);
		return NULL;
	}
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		if (n) {
			found = xasprintf("%.*s/%s", (int)n, p, cmd);
			if (runnable(found))
				return found;
			free(found);
		}
		p += n + (p[n] == ':');
	}
	found = xasprintf("%s/%s", cwd, cmd);
	if (runnable(found))
		return found;
	free(found);
	return NULL;
}

/* Where the copy goes (see srun_bcast.h).  Caller frees. */
static char *dest_path(const struct jobopt *o, uint32_t job_id, const char *cwd)
{
	const char *d = o->bcast_dest;
	char *name, *path;

	if (d && d[strlen(d) - 1] != '/')
		return bcast_send_path(d, cwd);
	name = xasprintf("%sslurm_bcast_%u_%ld", d ? d : "", job_id, (long)getpid());
	path = bcast_send_path(name, cwd);
	free(name);
	return path;
}

int srun_bcast(const struct jobopt *o, uint32_t job_id, char **argv, char **ret_libdir)
{
	const char *cwd = o->desc.work_dir ? o->desc.work_dir : ".";
	struct bcast_send send = {
	    .job_id = job_id,
	    .step_id = NO_VAL, /* the job's nodes: the step is not made yet */
	    .force = 1,
	    .preserve = 1,
	    .exclude = o->bcast_exclude,
	};
	int send_libs = o->send_libs >= 0
	                    ? o->send_libs
	                    : list_has(cli_conf()->bcast_parameters, "send_libs", 1);
	int compress = o->compress, nlibs = 0, rc = -1;
	char *src = NULL, *dst = NULL;

	*ret_libdir = NULL;
	if (!argv[0]) {
		cli_error("No command name to broadcast");
		return -1;
	}
	if (!(src = find_command(argv[0], cwd))) {
		fprintf(stderr, "%s: fatal: Can not execute %s\n", cli_prog, argv[0]);
		return -1;
	}
	if (compress < 0) { /* BcastParameters Compression=lz4|none */
		char *c = list_value(cli_conf()->bcast_parameters, "Compression", 1);
		compress = c && strcasecmp(c, "none");
		free(c);
	}
	if (compress)
		bcast_send_uncompressed();
	dst = dest_path(o, job_id, cwd);
	if (strlen(dst) + 64 > FILE_BCAST_PATH_MAX) {
		cli_error("Target filename is too long.");
		goto out;
	}
	if (bcast_send_file(&send, src, dst, 0, 1) ||
	    (send_libs && bcast_send_libs(&send, src, dst, &nlibs))) {
		fprintf(stderr,
		        "%s: fatal: Failed to broadcast '%s'. Step launch aborted.\n",
		        cli_prog, src);
		goto out;
	}
	if (nlibs)
		*ret_libdir = xasprintf("%s_libs", dst);
	free(argv[0]);
	argv[0] = dst;
	dst = NULL;
	rc = 0;
out:
	free(src);
	free(dst);
	return rc;
}

char **srun_bcast_env(char **env, const char *libdir)
{
	const char *old = strv_getenv(env, "LD_LIBRARY_PATH");

	if (!libdir)
		return env;
	if (!old || !*old)
		return strv_setenv(env, "LD_LIBRARY_PATH", libdir);
	return strv_setenv_take(env, "LD_LIBRARY_PATH", xasprintf("%s:%s", libdir, old));
}
