/* scontrol_pids.c - scontrol listpids and pidinfo: the processes of the job
 * steps running on this host, from the .pids files their step daemons keep in
 * the nodes' spool directories (common/spool_pids.h).
 *
 * This host's nodes are those of slurm.conf whose NodeHostname (or name) is
 * this host's name; a NodeName argument picks one.  A user sees the steps of
 * their own jobs, root and SlurmUser every step. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/scontrol.h"
#include "common/conf.h"
#include "common/spool.h"
#include "common/spool_pids.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "common/common.h"

#define PIDS_CGROUP_MAX 65536 /* processes of one step looked at */

struct step_pids {
	uint32_t job, step;
	const char *node;
	struct spool_pids p;
};

struct local_steps {
	struct step_pids *v;
	size_t n;
};

/* Is conf node nd on this host? */
static int node_here(const struct conf_node *nd, const char *host)
{
	const char *h = nd->hostname && *nd->hostname ? nd->hostname : nd->name;
	size_t short_len = strcspn(host, ".");

	return !strcmp(h, host) ||
	       (strlen(h) == short_len && !strncmp(h, host, short_len)) ||
	       !strcmp(nd->name, host);
}

static int may_see(uid_t step_uid)
{
	const struct conf *c = cli_conf();
	uid_t me = getuid();
	struct passwd *pw;

	if (!me || me == step_uid)
		return 1;
	pw = c && c->slurm_user ? getpwnam(c->slurm_user) : NULL;
	return pw && pw->pw_uid == me;
}

static void scan_node(struct local_steps *ls, const struct conf *c,
                      const struct conf_node *nd, const char *host)
{
	char *dir = spool_dir_expand(c->slurmd_spool_dir ? c->slurmd_spool_dir
	                                                 : "/var/spool/rotad",
	                             nd->name, host);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		uint32_t job, step;
		struct step_pids sp = {0};
		char *path;

		if (spool_stepd_parse(e->d_name, nd->name, &job, &step) != 3)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (spool_pids_read(path, &sp.p) == 0 && may_see(sp.p.uid)) {
			sp.job = job;
			sp.step = step;
			sp.node = nd->name;
			ls->v = xrealloc(ls->v, (ls->n + 1) * sizeof(*ls->v));
			ls->v[ls->n++] = sp;
		} else {
			spool_pids_free(&sp.p);
		}
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
}

static int step_cmp(const void *a, const void *b)
{
	const struct step_pids *x = a, *y = b;
	int c = strcmp(x->node, y->node);

	if (c)
		return c;
	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return x->step < y->step ? -1 : x->step > y->step;
}

/* The steps of this host's nodes (node: only that one), sorted.  Returns
 * how many nodes were looked at. */
static size_t local_steps_load(struct local_steps *ls, const char *node)
{
	const struct conf *c = cli_conf();
	char host[256] = "";
	size_t looked = 0;

	memset(ls, 0, sizeof(*ls));
	if (!c)
		return 0;
	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; i < c->node_count; i++) {
		const struct conf_node *nd = &c->nodes[i];

		if (node ? strcmp(nd->name, node) : !node_here(nd, host))
			continue;
		scan_node(ls, c, nd, host);
		looked++;
	}
	if (ls->n)
		qsort(ls->v, ls->n, sizeof(*ls->v), step_cmp);
	return looked;
}

static void local_steps_free(struct local_steps *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		spool_pids_free(&ls->v[i].p);
	free(ls->v);
}

static int pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

static const char *step_word(uint32_t step, char *buf, size_t len)
{
	if (step == STEP_BATCH)
		return "batch";
	if (step == STEP_EXTERN)
		return "extern";
	snprintf(buf, len, "%u", step);
	return buf;
}

/* Slurm's rows: the live tasks with their ids, then the step's other
 * processes (its cgroup's) with "-". */
static void print_step(const struct step_pids *sp)
{
	pid_t *procs = NULL;
	size_t nprocs = 0;
	char sw[16];
	const char *s = step_word(sp->step, sw, sizeof(sw));

	if (sp->p.cgroup) {
		procs = xcalloc(PIDS_CGROUP_MAX, sizeof(*procs));
		nprocs = spool_pids_cgroup_procs(sp->p.cgroup, procs, PIDS_CGROUP_MAX);
	}
	for (size_t i = 0; i < sp->p.ntasks; i++) {
		const struct spool_pid_task *t = &sp->p.tasks[i];
		int live = sp->p.cgroup ? 0 : pid_alive(t->pid);

		for (size_t k = 0; k < nprocs && !live; k++)
			live = procs[k] == t->pid;
		if (live)
			printf("%-8d %-8u %-8s %-7u %-8u\n", (int)t->pid, sp->job, s,
			       t->ltid, t->gtid);
	}
	for (size_t k = 0; k < nprocs; k++) {
		int task = 0;

		for (size_t i = 0; i < sp->p.ntasks && !task; i++)
			task = sp->p.tasks[i].pid == procs[k];
		if (!task)
			printf("%-8d %-8u %-8s %-7s %-8s\n", (int)procs[k], sp->job, s,
			       "-", "-");
	}
	free(procs);
}

/* "JOB", "JOB.STEP" (STEP a number, batch or extern) or "*".  0 or -1. */
static int parse_step_arg(const char *s, uint32_t *job, uint32_t *step)
{
	*job = 0;
	*step = NO_VAL;
	return strcmp(s, "*") ? fmt_parse_step_id(s, job, step) : 0;
}

/* scontrol listpids [JOB[.STEP]|*] [NODENAME] */
int scontrol_listpids(const struct scontrol_opts *o, int argc, char **argv)
{
	struct local_steps ls;
	uint32_t job = 0, step = NO_VAL;
	const char *node = argc > 1 ? argv[1] : NULL;
	char sw[16];
	size_t shown = 0;

	(void)o;
	if (argc > 2) {
		fprintf(stderr, "too many arguments for keyword:listpids\n");
		return 1;
	}
	if (argc && parse_step_arg(argv[0], &job, &step) < 0) {
		fprintf(stderr, "\"%s\" does not look like a jobid\n", argv[0]);
		return 1;
	}
	printf("%-8s %-8s %-8s %-7s %-8s\n", "PID", "JOBID", "STEPID", "LOCALID",
	       "GLOBALID");
	local_steps_load(&ls, node);
	for (size_t i = 0; i < ls.n; i++) {
		if ((job && ls.v[i].job != job) ||
		    (step != NO_VAL && ls.v[i].step != step))
			continue;
		print_step(&ls.v[i]);
		shown++;
	}
	local_steps_free(&ls);
	if (shown)
		return 0;
	fflush(stdout); /* the header before the error, as a terminal shows them */
	if (!job)
		fprintf(stderr, "No job steps exist on this node.\n");
	else if (step != NO_VAL)
		fprintf(stderr, "StepId=%u.%s does not exist on node %s.\n", job,
		        step_word(step, sw, sizeof(sw)), node ? node : "this node");
	else
		fprintf(stderr, "There are no steps for job %u on node %s.\n", job,
		        node ? node : "this node");
	return 1;
}

/* "/<node instance>/job_": the cgroup directories of the jobs of this host's
 * node nd (stepd/cgroup.c names them by node and spool directory), known
 * before any step has written its .pids file. */
static char *node_job_key(const struct conf *c, const struct conf_node *nd,
                          const char *host)
{
	char *dir = spool_dir_expand(c->slurmd_spool_dir ? c->slurmd_spool_dir
	                                                 : "/var/spool/rotad",
	                             nd->name, host);
	char *inst = spool_cgroup_name(nd->name, dir), *key;

	key = xasprintf("/%s/job_", inst);
	free(inst);
	free(dir);
	return key;
}

/* The job whose cgroup line holds key, or 0. */
static uint32_t job_in_line(const char *line, const char *key)
{
	const char *at = strstr(line, key);

	if (!at || !isdigit((unsigned char)at[strlen(key)]))
		return 0;
	return (uint32_t)strtoul(at + strlen(key), NULL, 10);
}

/* The job of pid by its cgroup: ".../rota/<instance of a node here>/job_N/". */
static uint32_t job_by_cgroup(pid_t pid, const struct local_steps *ls)
{
	const struct conf *c = cli_conf();
	char path[64], line[4096], host[256] = "";
	char **keys = NULL; /* each local node's, then each step's record */
	FILE *f;
	uint32_t job = 0;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; c && i < c->node_count; i++)
		if (node_here(&c->nodes[i], host)) {
			char *key = node_job_key(c, &c->nodes[i], host);
			keys = strv_append(keys, key);
			free(key);
		}
	for (size_t i = 0; i < ls->n; i++) { /* where a step's own record differs */
		const char *cg = ls->v[i].p.cgroup;
		const char *j = cg ? strstr(cg, "/job_") : NULL;
		const char *inst = j ? memrchr(cg, '/', (size_t)(j - cg)) : NULL;
		char *key;

		if (!inst)
			continue;
		key = xstrndup(inst, (size_t)(j - inst) + 5);
		keys = strv_append(keys, key);
		free(key);
	}
	while (!job && keys && fgets(line, sizeof(line), f))
		for (size_t i = 0; keys[i] && !job; i++)
			job = job_in_line(line, keys[i]);
	fclose(f);
	strv_free(keys);
	return job;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	const char *rp;
	FILE *f;
	size_t n;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) state ppid": comm may hold anything but ends at the last ')' */
	if (!(rp = strrchr(buf, ')')) || sscanf(rp + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

/* Without cgroups: the task that pid is or descends from. */
static uint32_t job_by_ancestry(pid_t pid, const struct local_steps *ls)
{
	for (int depth = 0; pid > 1 && depth < 1024; depth++, pid = parent_of(pid))
		for (size_t i = 0; i < ls->n; i++)
			for (size_t k = 0; k < ls->v[i].p.ntasks; k++)
				if (ls->v[i].p.tasks[k].pid == pid)
					return ls->v[i].job;
	return 0;
}

/* scontrol pidinfo PID: the job pid belongs to on this host, and when it ends. */
int scontrol_pidinfo(const struct scontrol_opts *o, int argc, char **argv)
{
	struct local_steps ls;
	struct job_info_req req = {0};
	struct job_info_resp *resp = NULL;
	void *body = NULL;
	char *msg = NULL, *end = NULL, when[64] = "";
	long pid = argc == 1 ? strtol(argv[0], &end, 10) : 0;
	uint32_t job;
	time_t t;
	struct tm tm;

	if (argc != 1 || !end || *end || pid <= 0 || pid > 0x7fffffffL) {
		fprintf(stderr, argc > 1 ? "too many arguments for keyword:pidinfo\n"
		                         : "invalid pid for keyword:pidinfo\n");
		return 1;
	}
	local_steps_load(&ls, NULL);
	job = job_by_cgroup((pid_t)pid, &ls);
	if (!job)
		job = job_by_ancestry((pid_t)pid, &ls);
	local_steps_free(&ls);
	if (!job) {
		if (!o->quiet)
			fprintf(stderr, "Failed to locate job for requested pid\n");
		return 1;
	}
	req.job_ids.v = &job;
	req.job_ids.n = 1;
	if (call_ctld(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, &body, &msg) ||
	    !(resp = body)->jobs_count) {
		if (!o->quiet)
			fprintf(stderr, "Failed to get job end time: %s\n",
			        msg ? msg : "Invalid job id specified");
		free(msg);
		if (body)
			msg_body_free(MSG_JOB_INFO_RESP, body);
		return 1;
	}
	t = (time_t)resp->jobs[0].end_time;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%a %b %d %T %Y", &tm);
	printf("Slurm JobId=%u ends at %s\n", job, when);
	printf("Job remaining time is %ld seconds\n",
	       t > time(NULL) ? (long)(t - time(NULL)) : 0L);
	msg_body_free(MSG_JOB_INFO_RESP, body);
	return 0;
}
