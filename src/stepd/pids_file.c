/* pids_file.c - the step's .pids file in the spool (common/spool_pids.h), for
 * `scontrol listpids` and `scontrol pidinfo` on this node. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/spool.h"
#include "common/spool_pids.h"
#include "stepd/cgroup.h"
#include "stepd/stepd.h"
#include "common/common.h"

static char *pids_path(const struct stepd *st)
{
	char *name =
	    spool_stepd_name(st->req->node_name, st->req->job_id, st->req->step_id);
	char *path;

	if (!name)
		fatal("out of memory");
	path = xasprintf("%s/%s%s", st->spool, name, SPOOL_PIDS_SUFFIX);
	free(name);
	return path;
}

void pids_file_write(const struct stepd *st)
{
	struct spool_pids p = {.uid = st->uid, .cgroup = (char *)cgroup_step_dir(st->cg)};
	char *path;
	int rc;

	if (!st->spool)
		return;
	p.tasks = xcalloc(st->ntasks ? st->ntasks : 1, sizeof(*p.tasks));
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].pid > 0)
			p.tasks[p.ntasks++] = (struct spool_pid_task){
			    st->tasks[i].pid, st->tasks[i].ltid, st->tasks[i].gtid};
	path = pids_path(st);
	if ((rc = spool_pids_write(path, &p)) < 0)
		log_err("JobId=%u StepId=%u cannot write %s: %s", st->req->job_id,
		        st->req->step_id, path, strerror(-rc));
	free(path);
	free(p.tasks);
}

void pids_file_remove(const struct stepd *st)
{
	char *path;

	if (!st->spool)
		return;
	path = pids_path(st);
	if (unlink(path) < 0 && errno != ENOENT)
		log_err("JobId=%u StepId=%u cannot remove %s: %s", st->req->job_id,
		        st->req->step_id, path, strerror(errno));
	free(path);
}
