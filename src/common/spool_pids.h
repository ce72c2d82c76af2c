/* spool_pids.h - a running step's processes, as its rotastepd leaves them in
 * <spool>/<node>_<job>.<step>.pids (common/spool.h) for `scontrol listpids`
 * and `scontrol pidinfo` on the node.
 *
 * Text, one record a line, written whole under a temporary name and renamed
 * into place:
 *   uid <uid of the step's user>
 *   cgroup <the step's cgroup directory>     (absent without cgroups)
 *   task <pid> <local task id> <global task id>
 * The task lines are the processes the stepd started; every other process of
 * the step is in the cgroup's cgroup.procs.  Reading is bounded: at most
 * SPOOL_PIDS_MAX_TASKS tasks, lines of at most 4096 bytes. */
#ifndef ROTA_SPOOL_PIDS_H
#define ROTA_SPOOL_PIDS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SPOOL_PIDS_MAX_TASKS 4096

struct spool_pid_task {
	pid_t pid;
	uint32_t ltid, gtid;
};

struct spool_pids {
	uid_t uid;
	char *cgroup; /* NULL: none */
	struct spool_pid_task *tasks;
	size_t ntasks;
};

/* Write p to path (via path.new, mode 0600, owned by p->uid where written by
 * root: its user and root read it, no one else).  Returns 0 or -errno. */
int spool_pids_write(const char *path, const struct spool_pids *p);

/* Read path into *ret (free with spool_pids_free).  Returns 0, -errno, or
 * -EINVAL for text that is not such a file. */
int spool_pids_read(const char *path, struct spool_pids *ret);
void spool_pids_free(struct spool_pids *p);

/* Up to max pids from dir/cgroup.procs into pids; returns how many (0 when it
 * cannot be read). */
size_t spool_pids_cgroup_procs(const char *dir, pid_t *pids, size_t max);

#endif
