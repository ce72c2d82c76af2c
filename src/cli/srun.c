/* srun.c - run a parallel command as a job step.
 *
 * Inside an allocation (SLURM_JOB_ID, or --jobid) srun asks the controller for a
 * step of that job.  Otherwise it first asks for an allocation of its own
 * (MSG_ALLOC_REQ) on a connection it keeps until the end: the job lives as long
 * as that connection, and srun hands it back with MSG_JOB_COMPLETE_REQ.
 * Before creating the step srun listens on a TCP port; each node's stepd
 * connects there for the tasks' I/O (srun_io.c).  See doc/flows.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/jobctl.h"
#include "cli/jobopt.h"
#include "cli/jobopt_table.h"
#include "cli/srun_io.h"
#include "cli/srun_pty.h"
#include "common/conf.h"
#include "common/taskdist.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/multiprog.h"
#include "common/common.h"

#define IO_KEY_LEN             32
#define STEP_CREATE_TIMEOUT_MS 60000

extern char **environ;

/* SIGWINCH is not forwarded: with --pty it sends the new window size */
static const int forwarded_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
                                        SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH};

struct srun {
	struct jobopt o;
	char **cmd; /* the command and its arguments; borrowed */
	uint32_t job_id;
	int alloc_mode; /* we hold our own allocation */
	struct jobctl_alloc alloc;
	int ctl_fd; /* the connection the step was created on */
	int sig_fd;
	int listen_fd;
	uint16_t io_port;
	uint8_t key[IO_KEY_LEN];
	struct step_create_resp *step;
	char **step_nodes;
	size_t step_nnodes;
	char *in_spec; /* std_in "N" for srun -i N; owned */
};

static void random_key(uint8_t *key, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = getrandom(key + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fatal("getrandom: %s", strerror(errno));
		got += (size_t)n;
	}
}

/* "2(x3),1" -> "2(x3),1(x1)": Slurm's -v line always gives the repeat count. */
static char *counts_with_reps(const uint32_t *v, size_t n)
{
	char *out = xstrdup(""), *tmp;

	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && v[j] == v[i])
			j++;
		tmp = xasprintf("%s%s%u(x%zu)", out, i ? "," : "", v[i], j - i);
		free(out);
		out = tmp;
		i = j;
	}
	return out;
}

static char *env_counts_with_reps(const char *s)
{
	char *out = xstrdup(""), *tmp;

	for (const char *p = s; p && *p;) {
		const char *c = strchr(p, ',');
		int len = c ? (int)(c - p) : (int)strlen(p);
		tmp = xasprintf("%s%s%.*s%s", out, *out ? "," : "", len, p,
		                memchr(p, '(', (size_t)len) ? "" : "(x1)");
		free(out);
		out = tmp;
		p = c ? c + 1 : p + len;
	}
	return out;
}

static void print_job_info(const struct srun *s)
{
	const char *nodes, *cpus;
	char *counts = NULL;
	size_t nn = 0;
	char **names = NULL;

	if (s->alloc_mode) {
		const struct alloc_resp *r = s->alloc.resp;
		nodes = r->nodes;
		counts = counts_with_reps(r->cpus_per_node.v, r->cpus_per_node.n);
	} else {
		nodes = getenv("SLURM_JOB_NODELIST");
		cpus = getenv("SLURM_JOB_CPUS_PER_NODE");
		if (!nodes || !cpus)
			return;
		counts = env_counts_with_reps(cpus);
	}
	if (nodes && hostlist_expand(nodes, &names, &nn, NULL) == 0)
		hostlist_free(names);
	fprintf(stderr, "srun: jobid %u: nodes(%zu):`%s', cpu counts: %s\n", s->job_id,
	        nn, nodes ? nodes : "", counts);
	free(counts);
}

static void step_failed(struct srun *s, const char *why)
{
	cli_error("Unable to create step for job %u: %s", s->job_id, why);
	if (s->alloc_mode)
		jobctl_complete(&s->alloc, 1 << 8);
	exit(1);
}

static void fill_step_req(struct srun *s, struct step_create_req *req, char *host)
{
	const struct job_desc *d = &s->o.desc;
	const struct job_desc_ext *x = job_desc_X(d);

	req->job_id = s->job_id;
	req->min_nodes = d->min_nodes;
	req->num_tasks = d->num_tasks;
	if (s->alloc_mode) {
		char **names = NULL;
		size_t n = 0;
		const struct alloc_resp *r = s->alloc.resp;

		if (hostlist_expand(r->nodes, &names, &n, NULL) == 0)
			req->min_nodes = (uint32_t)n; /* step 0 spans the allocation */
		hostlist_free(names);
		if (req->num_tasks == NO_VAL && r->num_tasks && r->num_tasks != NO_VAL)
			req->num_tasks = r->num_tasks;
	} else {
		req->nodelist = d->req_nodes;
	}
	req->ntasks_per_node = d->ntasks_per_node;
	req->cpus_per_task = d->cpus_per_task;
	req->name = d->name;
	req->argv = s->cmd;
	req->env = jobopt_export_env(&s->o, environ);
	req->env = jobopt_dist_env(&s->o, req->env); /* -m as given */
	if (s->o.mpi) /* the step's PMI server follows it (stepd/pmi.h) */
		req->env = strv_setenv(req->env, "SLURM_MPI_TYPE", s->o.mpi);
	if (s->o.step_flags & STEP_F_PTY)
		req->env = srun_pty_env(req->env);
	req->cwd = d->work_dir;
	req->io_host = (char *)srun_io_host(host, 256);
	req->io_port = s->io_port;
	req->io_key = (struct rota_bin){s->key, IO_KEY_LEN};
	req->flags = s->o.step_flags;
	req->task_dist = s->o.task_dist;
	req->task_hosts = s->o.task_hosts;
	req->cpu_bind = s->o.cpu_bind;
	req->mem_bind = s->o.mem_bind;
	req->gres = x->gres;
	req->gpus = x->gpus;
	req->gpus_per_node = x->gpus_per_node;
	req->gpus_per_task = x->gpus_per_task;
	req->gpu_bind = x->gpu_bind;
	{
		struct step_create_req *to = req;
		const struct job_desc_ext *from = x;
		CONTAINER_FIELDS(CONTAINER_COPY_F, _)
	}
	req->std_out = d->std_out;
	req->std_err = d->std_err;
	req->std_in = x->std_in;
	if (!x->std_in && s->o.in_task == JOBOPT_IO_ALL)
		req->flags |= STEP_F_STDIN_ALL;
	else if (!x->std_in && s->o.in_task > 0) /* NULL: task 0 */
		req->std_in = s->in_spec =
		    xasprintf("%ld", s->o.in_task); /* Slurm's way: "N" */
	req->relative = s->o.relative;
	/* what the command line asks; the allocation's SLURM_MEM_* only say what
	 * the job holds */
	if (s->alloc_mode)
		return; /* step 0 holds the whole allocation */
	if (s->o.mem_src == JOBOPT_SRC_ARGV && d->mem_per_node != NO_VAL64)
		req->mem_per_node = d->mem_per_node;
	if (s->o.mem_cpu_src == JOBOPT_SRC_ARGV && d->mem_per_cpu != NO_VAL64)
		req->mem_per_cpu = d->mem_per_cpu;
}

/* Send the step request on fd and wait for the answer; 0, or an ESLURM_*. */
static int step_request(struct srun *s, int fd, const struct step_create_req *req,
                        const char **ret_msg, void **ret_body, uint16_t *ret_type)
{
	struct rota_error err = {""};
	int rc = net_rpc(fd, MSG_STEP_CREATE_REQ, req, ret_type, ret_body,
	                 STEP_CREATE_TIMEOUT_MS, &err);

	if (rc < 0) {
		log_debug("%s", err.text);
		*ret_msg = jobctl_strerror(rc);
		return SLURM_ERROR;
	}
	if (*ret_type == MSG_STEP_CREATE_RESP)
		return 0;
	rc = cli_rc(*ret_type, *ret_body, ret_msg);
	if (!rc) {
		*ret_msg = "unexpected reply";
		rc = SLURM_ERROR;
	}
	return rc;
}

static void create_step(struct srun *s)
{
	struct step_create_req req = {0};
	char host[256] = "";
	int busy_said = 0;

	fill_step_req(s, &req, host);
	for (;;) {
		const char *msg = NULL;
		void *body = NULL;
		uint16_t type = 0;
		size_t next = 0;
		int fd = s->alloc_mode ? s->alloc.fd : jobctl_connect("");
		int rc = step_request(s, fd, &req, &msg, &body, &type);

		/* a controller that stands by did nothing: ask the one that serves */
		while (rc == ESLURM_IN_STANDBY_MODE && !s->alloc_mode) {
			int nfd = call_connect_next(&next);
			if (nfd < 0)
				break;
			msg_body_free(type, body);
			body = NULL;
			close(fd);
			fd = nfd;
			rc = step_request(s, fd, &req, &msg, &body, &type);
		}

		if (!rc) {
			s->step = body;
			s->ctl_fd = fd;
			if (busy_said)
				fprintf(stderr, "srun: Step created for StepId=%u.%u\n",
				        s->job_id, s->step->step_id);
			break;
		}
		if (!s->alloc_mode &&
		    (rc == ESLURM_INVALID_JOB_ID || rc == ESLURM_ALREADY_DONE)) {
			cli_error("Unable to confirm allocation for job %u: %s",
			          s->job_id, msg);
			fprintf(
			    stderr,
			    "srun: Check SLURM_JOB_ID environment variable. Expired or "
			    "invalid job %u\n",
			    s->job_id);
			exit(1);
		}
		if (rc != ESLURM_NODES_BUSY) {
			char *why = xstrdup(msg);
			msg_body_free(type, body);
			step_failed(s, why);
		}
		msg_body_free(type, body);
		if (!s->alloc_mode)
			close(fd);
		if (!busy_said++)
			fprintf(
			    stderr,
			    "srun: Job %u step creation temporarily disabled, retrying "
			    "(Requested nodes are busy)\n",
			    s->job_id);
		sleep(1);
		if (jobctl_signal_read(s->sig_fd)) {
			if (s->alloc_mode)
				jobctl_complete(&s->alloc, 1 << 8);
			exit(1);
		}
	}
	strv_free(req.env);
}

static void check_step(struct srun *s)
{
	const struct step_create_resp *r = s->step;
	uint32_t ntasks = 0;

	if (hostlist_expand(r->nodes, &s->step_nodes, &s->step_nnodes, NULL) < 0 ||
	    s->step_nnodes != r->tasks_per_node.n || !s->step_nnodes)
		step_failed(s, "the controller sent an invalid step layout");
	for (size_t i = 0; i < s->step_nnodes; i++)
		ntasks += r->tasks_per_node.v[i];
	if (s->o.in_task >= 0 && (uint32_t)s->o.in_task >= ntasks)
		cli_error("--input task %ld is beyond the step's %u tasks", s->o.in_task,
		          ntasks);
	if (s->o.verbose) {
		uint32_t first = 0, *gtids = xcalloc(ntasks + 1, sizeof(*gtids));
		taskdist_gtids_map(r->task_dist, r->tasks_per_node.v, r->tasks_per_node.n,
		                   r->task_map.v, r->task_map.n, gtids);
		for (size_t i = 0; i < s->step_nnodes; i++) {
			uint32_t n = r->tasks_per_node.v[i];
			char *list = xstrdup("");
			/* the node's ids (ascending) as ranges: "0-1", "0,2" */
			for (uint32_t k = 0; k < n;) {
				uint32_t e = k, a = gtids[first + k], *g = gtids + first;
				char *t;
				while (e + 1 < n && g[e + 1] == g[e] + 1)
					e++;
				t = e > k ? xasprintf("%s%s%u-%u", list, k ? "," : "", a,
				                      g[e])
				          : xasprintf("%s%s%u", list, k ? "," : "", a);
				free(list);
				list = t;
				k = e + 1;
			}
			fprintf(stderr,
			        "srun: launching StepId=%u.%u on host %s, %u tasks: %s\n",
			        s->job_id, r->step_id, s->step_nodes[i], n, list);
			free(list);
			first += n;
		}
		free(gtids);
	}
}

static int run_step(struct srun *s, uint32_t *ret_status)
{
	const struct step_create_resp *r = s->step;
	struct srun_step st = {
	    .job_id = s->job_id,
	    .step_id = r->step_id,
	    .nnodes = s->step_nnodes,
	    .nodes = s->step_nodes,
	    .tasks = r->tasks_per_node.v,
	    .task_dist = r->task_dist,
	    .task_map = r->task_map.v,
	    .ntask_map = r->task_map.n,
	    .key = s->key,
	    .key_len = IO_KEY_LEN,
	};
	struct srun_io_opts io = {
	    .listen_fd = s->listen_fd,
	    .ctl_fd = s->ctl_fd,
	    .ctl_is_alloc = s->alloc_mode,
	    .sig_fd = s->sig_fd,
	    .label = !!(s->o.step_flags & STEP_F_LABEL),
	    .kill_on_bad_exit = s->o.kill_bad_exit >= 0 ? s->o.kill_bad_exit
	                                                : !!cli_conf()->kill_on_bad_exit,
	    .unbuffered = !!(s->o.step_flags & STEP_F_UNBUFFERED),
	    .pty = !!(s->o.step_flags & STEP_F_PTY),
	    .max_wait = s->o.wait_secs == NO_VAL ? 0 : s->o.wait_secs,
	    .disable_status = s->o.disable_status,
	    .quit_on_interrupt = s->o.quit_on_interrupt,
	    .in_task = job_desc_X(&s->o.desc)->std_in ? JOBOPT_IO_NONE : s->o.in_task,
	    .out_task = s->o.out_task,
	    .err_task = s->o.err_task,
	    .verbose = s->o.verbose,
	    .kill_wait = cli_conf()->kill_wait,
	};

	int rc;

	if (s->o.step_flags & STEP_F_PTY)
		srun_pty_begin();
	rc = srun_io_run(&st, &io, ret_status);
	srun_pty_end();
	return rc;
}

/* --multi-prog FILE: the file is read here and its text travels as argv[0]. */
static char **multi_prog_load(const char *path)
{
	static char *argv[2];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		fprintf(stderr, "srun: error: Unable to open configuration file %s\n",
		        path);
		exit(1);
	}
	argv[0] = xmalloc(MULTIPROG_MAX_BYTES + 1);
	n = fread(argv[0], 1, MULTIPROG_MAX_BYTES + 1, f);
	fclose(f);
	if (n > MULTIPROG_MAX_BYTES) {
		fprintf(stderr, "srun: error: configuration file %s is too large\n",
		        path);
		exit(1);
	}
	argv[0][n] = '\0';
	return argv;
}

static void het_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
static void het_fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cli_error("%s", buf);
	exit(1);
}

/* srun --het-group=K inside a heterogeneous job: the environment describes
 * component 0; component K's values (SLURM_*_HET_GROUP_K, ctld/hetjob.h)
 * take their place, and component 0's counts go. */
static char **het_group_env(const char *group)
{
	/* component 0's: every name the controller gives per component
	 * (ctld/hetjob.c), and the counts srun reads */
	static const char *const counts[] = {
	    "SLURM_JOB_ID",          "SLURM_JOBID",
	    "SLURM_JOB_NAME",        "SLURM_JOB_PARTITION",
	    "SLURM_JOB_ACCOUNT",     "SLURM_JOB_QOS",
	    "SLURM_JOB_RESERVATION", "SLURM_MEM_PER_NODE",
	    "SLURM_MEM_PER_CPU",     "SLURM_JOB_NODELIST",
	    "SLURM_NODELIST",        "SLURM_JOB_NUM_NODES",
	    "SLURM_NNODES",          "SLURM_JOB_CPUS_PER_NODE",
	    "SLURM_TASKS_PER_NODE",  "SLURM_NTASKS",
	    "SLURM_NPROCS",          "SLURM_CPUS_PER_TASK",
	    "SLURM_NTASKS_PER_NODE"};
	char **env = strv_dup(environ), *end, *suffix;
	long k = strtol(group, &end, 10);
	size_t sl;

	if (end == group || *end == ',' || *end == '-')
		het_fail("--het-group=%s: a step in several components is not supported",
		         group);
	if (*end || k < 0 || k >= HET_MAX)
		het_fail("Invalid --het-group value: %s", group);
	suffix = xasprintf("_HET_GROUP_%ld", k);
	sl = strlen(suffix);
	if (!getenv("SLURM_HET_SIZE"))
		het_fail("--het-group: not inside a heterogeneous job");
	{
		char *key = xasprintf("SLURM_JOB_ID%s", suffix);
		int there = getenv(key) != NULL;
		free(key);
		if (!there)
			het_fail("--het-group=%ld: the job has no such component", k);
	}
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		strv_unsetenv(env, counts[i]);
	for (size_t i = 0; environ[i]; i++) {
		const char *e = environ[i], *eq = strchr(e, '=');
		if (!eq || (size_t)(eq - e) <= sl || strncmp(eq - sl, suffix, sl))
			continue;
		{
			char *name = xstrndup(e, (size_t)(eq - e) - sl);
			env = strv_setenv(env, name, eq + 1);
			if (!strcmp(name, "SLURM_JOB_ID"))
				env = strv_setenv(env, "SLURM_JOBID", eq + 1);
			if (!strcmp(name, "SLURM_JOB_NUM_NODES"))
				env = strv_setenv(env, "SLURM_NNODES", eq + 1);
			if (!strcmp(name, "SLURM_JOB_NODELIST"))
				env = strv_setenv(env, "SLURM_NODELIST", eq + 1);
			if (!strcmp(name, "SLURM_NTASKS"))
				env = strv_setenv(env, "SLURM_NPROCS", eq + 1);
			free(name);
		}
	}
	free(suffix);
	return env;
}

static void parse(struct srun *s, int argc, char **argv)
{
	struct jobopt_list cmdline;
	const char *group;
	int idx, has_group = 0, has_jobid = 0;

	jobopt_init(&s->o, JOBOPT_SRUN);
	jobopt_collect(JOBOPT_SRUN, argc, argv, &cmdline, &idx);
	group = jobopt_list_last(&cmdline, O_HET_GROUP, &has_group);
	/* in a heterogeneous allocation (not one of its steps), component 0
	 * unless told: salloc's gives no unsuffixed SLURM_JOB_NODELIST */
	jobopt_list_last(&cmdline, O_JOBID, &has_jobid);
	if (!has_group && !has_jobid && getenv("SLURM_HET_SIZE") &&
	    !getenv("SLURM_STEP_ID")) {
		has_group = 1;
		group = "0";
	}
	if (has_group) { /* the component's environment from here on */
		char **env = het_group_env(group ? group : "");
		environ = env; /* kept to the end: the tasks get it */
	}
	/* options first: some answer without a command (--cpu-bind=help) */
	jobopt_apply_env(&s->o, environ);
	jobopt_apply_list(&s->o, &cmdline, JOBOPT_SRC_ARGV);
	if (idx < argc && !strcmp(argv[idx], ":")) {
		cli_error("heterogeneous steps (components separated by :) are not "
		          "supported; use sbatch with components and srun --het-group");
		exit(1);
	}
	if (idx >= argc) {
		fprintf(stderr, "srun: fatal: No command given to execute.\n");
		exit(1);
	}
	s->cmd = argv + idx;
	jobopt_list_release(&cmdline);
	jobopt_finish(&s->o);
	/* the terminal is task 0's */
	if ((s->o.step_flags & STEP_F_PTY) && s->o.in_task == JOBOPT_IO_ALL)
		s->o.in_task = 0;
	/* named after the program, or the --multi-prog file (as Slurm), never
	 * after the file's text */
	if (!s->o.desc.name)
		s->o.desc.name = xstrdup(jobopt_basename(s->cmd[0]));
	if (s->o.step_flags & STEP_F_MULTI_PROG)
		s->cmd = multi_prog_load(s->cmd[0]);
}

int cmd_srun(int argc, char **argv)
{
	struct srun s = {.ctl_fd = -1, .alloc = {.fd = -1}};
	struct rota_error err = {""};
	sigset_t old;
	uint32_t status = 0;
	int code;

	parse(&s, argc, argv);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTTIN, SIG_IGN); /* reading stdin in the background gives EIO (= EOF) */
	s.sig_fd = jobctl_signalfd(
	    forwarded_signals, sizeof(forwarded_signals) / sizeof(forwarded_signals[0]),
	    &old);
	s.alloc_mode = s.o.jobid == NO_VAL;
	if (s.o.relative != NO_VAL && s.alloc_mode) {
		fprintf(stderr, "srun: fatal: --relative option invalid for job "
		                "allocation request\n");
		exit(1);
	}
	if (s.o.relative != NO_VAL && (s.o.desc.req_nodes || s.o.desc.exc_nodes)) {
		fprintf(stderr, "srun: fatal: -r/--relative may not be combined with "
		                "-w/--nodelist or -x/--exclude\n");
		exit(1);
	}
	if (s.alloc_mode) {
		s.o.desc.flags |= JOB_F_INTERACTIVE;
		jobctl_allocate(MSG_ALLOC_REQ, &s.o.desc, JOBCTL_SRUN, s.o.quiet,
		                s.o.immediate, s.sig_fd, &s.alloc);
		s.job_id = s.alloc.resp->job_id;
	} else {
		s.job_id = s.o.jobid;
	}
	if (s.o.verbose)
		print_job_info(&s);
	random_key(s.key, sizeof(s.key));
	s.listen_fd = net_listen_tcp(NULL, 0, &s.io_port, &err);
	if (s.listen_fd < 0)
		step_failed(&s, err.text);
	create_step(&s);
	check_step(&s);
	code = run_step(&s, &status);
	if (s.alloc_mode)
		jobctl_complete(&s.alloc, status);
	else if (s.ctl_fd >= 0)
		close(s.ctl_fd);
	close(s.listen_fd);
	hostlist_free(s.step_nodes);
	msg_body_free(MSG_STEP_CREATE_RESP, s.step);
	free(s.in_spec);
	jobctl_alloc_release(&s.alloc);
	jobopt_release(&s.o);
	return code;
}
