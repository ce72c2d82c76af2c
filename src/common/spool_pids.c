/* spool_pids.c - the step's .pids file (spool_pids.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/spool_pids.h"
#include "common/common.h"

#define LINE_MAX_BYTES 4096

int spool_pids_write(const char *path, const struct spool_pids *p)
{
	char *tmp = xasprintf("%s.new", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	FILE *f;
	int rc = 0;

	/* the step's user reads it (scontrol listpids), other users do not */
	if (fd >= 0 && geteuid() == 0 && p->uid != 0 &&
	    fchown(fd, p->uid, (gid_t)-1) < 0) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return rc;
	}
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		free(tmp);
		return rc;
	}
	fprintf(f, "uid %u\n", (unsigned)p->uid);
	if (p->cgroup && !strchr(p->cgroup, '\n'))
		fprintf(f, "cgroup %s\n", p->cgroup);
	for (size_t i = 0; i < p->ntasks; i++)
		fprintf(f, "task %d %u %u\n", (int)p->tasks[i].pid, p->tasks[i].ltid,
		        p->tasks[i].gtid);
	if (fflush(f) != 0 || ferror(f))
		rc = -(errno ? errno : EIO);
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

static int read_line(struct spool_pids *p, char *line)
{
	unsigned long a, b, c;
	char extra;

	line[strcspn(line, "\n")] = '\0';
	if (!strncmp(line, "cgroup ", 7) && line[7] == '/' && !p->cgroup) {
		p->cgroup = xstrdup(line + 7);
		return 0;
	}
	if (sscanf(line, "uid %lu %c", &a, &extra) == 1 && a < (uid_t)-1) {
		p->uid = (uid_t)a;
		return 0;
	}
	if (sscanf(line, "task %lu %lu %lu %c", &a, &b, &c, &extra) == 3 && a > 0 &&
	    a <= 0x7fffffffUL && b <= UINT32_MAX && c <= UINT32_MAX &&
	    p->ntasks < SPOOL_PIDS_MAX_TASKS) {
		if (!p->tasks)
			p->tasks = xcalloc(SPOOL_PIDS_MAX_TASKS, sizeof(*p->tasks));
		p->tasks[p->ntasks++] =
		    (struct spool_pid_task){(pid_t)a, (uint32_t)b, (uint32_t)c};
		return 0;
	}
	return -EINVAL;
}

int spool_pids_read(const char *path, struct spool_pids *ret)
{
	FILE *f = fopen(path, "re");
	char line[LINE_MAX_BYTES];
	int rc = 0, seen_uid = 0;

	memset(ret, 0, sizeof(*ret));
	if (!f)
		return -errno;
	while (!rc && fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n') && !feof(f))
			rc = -EINVAL; /* longer than any line we write */
		else if (!(rc = read_line(ret, line)) && !strncmp(line, "uid ", 4))
			seen_uid = 1;
	}
	fclose(f);
	if (!rc && !seen_uid)
		rc = -EINVAL;
	if (rc)
		spool_pids_free(ret);
	return rc;
}

void spool_pids_free(struct spool_pids *p)
{
	if (!p)
		return;
	free(p->cgroup);
	free(p->tasks);
	memset(p, 0, sizeof(*p));
}

size_t spool_pids_cgroup_procs(const char *dir, pid_t *pids, size_t max)
{
	char *path = xasprintf("%s/cgroup.procs", dir);
	FILE *f = fopen(path, "re");
	size_t n = 0;
	int pid;

	free(path);
	if (!f)
		return 0;
	while (n < max && fscanf(f, "%d", &pid) == 1)
		if (pid > 0)
			pids[n++] = pid;
	fclose(f);
	return n;
}
