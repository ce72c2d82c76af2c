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
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/jobctl.h"
#include "cli/jobopt.h"
#include "cli/jobopt_table.h"
#include "cli/srun_bcast.h"
#include "cli/srun_comp.h"
#include "cli/srun_io.h"
#include "cli/srun_mpir.h"
#include "cli/srun_script.h"
#include "cli/srun_pty.h"
#include "common/conf.h"
#include "common/jobfmt.h"
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
/* a component's own, in a step over several; the rest are srun's (I/O) */
#define STEP_LAYOUT_FLAGS                                                                \
	(STEP_F_OVERLAP | STEP_F_EXACT | STEP_F_MULTI_PROG | STEP_F_OVERCOMMIT |         \
	 STEP_F_CPU_BIND | STEP_F_CPU_BIND_NONE)

extern char **environ;

/* SIGWINCH is not forwarded: with --pty it sends the new window size */
static const int forwarded_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
                                        SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH};

struct srun {
	struct srun_line line;
	struct jobopt *o;   /* component 0's: the step's I/O and signals */
	uint32_t *job_ids;  /* [line.n] each component's job */
	uint32_t *step_ids; /* [line.n] and its step there */
	uint32_t job_id;    /* the job (a heterogeneous job's leader) */
	int alloc_mode;     /* we hold our own allocation */
	struct jobctl_alloc alloc;
	int ctl_fd; /* the connection the step was created on */
	int sig_fd;
	int listen_fd;
	uint16_t io_port;
	uint8_t key[IO_KEY_LEN];
	/* the step: its reply (MSG_STEP_CREATE_RESP or _HET_), and its layout
	 * (over every component: nodes after nodes, an arbitrary map) */
	uint16_t step_type;
	void *step_body;
	uint32_t step_id;
	char **step_nodes;
	size_t step_nnodes;
	const uint32_t *step_tasks;
	uint32_t step_dist;
	const uint32_t *step_map;
	size_t step_nmap;
	char *in_spec;    /* std_in "N" for srun -i N; owned */
	char **libdirs;   /* [line.n] --bcast --send-libs' directory, or NULL */
	int stream_fd[3]; /* srun -o / -e files it writes (srun_files) */
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
	exit(cli_exit_error());
}

/* Does pattern name one file for all the tasks (no %t, %n or %N)?  Slurm's
 * srun writes such a file itself, --label and all; a file per task or node
 * is the step's to write. */
static int one_file(const char *pattern)
{
	if (!pattern)
		return 0;
	if (strchr(pattern, '\\')) /* taken literally (common/jobfmt.h) */
		return 1;
	for (const char *p = pattern; (p = strchr(p, '%'));) {
		p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == 't' || *p == 'n' || *p == 'N')
			return 0;
		if (*p)
			p++;
	}
	return 1;
}

/* Open the one file of srun -o / -e (one_file): the tasks' output comes
 * to srun, which writes it there (stream_fd); srun's own words do not. */
static void srun_files(struct srun *s)
{
	const struct job_desc *d = &s->o->desc;
	const char *aj = getenv("SLURM_ARRAY_JOB_ID"),
	           *at = getenv("SLURM_ARRAY_TASK_ID");
	const char *name = getenv("SLURM_JOB_NAME");
	struct passwd *pw = getpwuid(getuid());
	struct jobfmt_ids ids = {
	    .job_id = s->job_id,
	    .step_id = s->step_id,
	    .array_job_id = aj ? (uint32_t)strtoul(aj, NULL, 10) : 0,
	    .array_task_id = at ? (uint32_t)strtoul(at, NULL, 10) : NO_VAL,
	    .job_name = name && !s->alloc_mode ? name : d->name,
	    .user = pw ? pw->pw_name : "",
	};
	/* truncated unless --open-mode=append (or over several components:
	 * Slurm's heterogeneous steps append); written at the end always */
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_APPEND |
	            ((d->flags & JOB_F_OPEN_APPEND) || s->line.het ? 0 : O_TRUNC);
	const char *pat[2] = {one_file(d->std_out) ? d->std_out : NULL,
	                      one_file(d->std_err) ? d->std_err : NULL};
	char *path[2] = {NULL, NULL};

	for (int k = 0; k < 2; k++) {
		char *file = NULL;
		int fd = -1;
		if (!pat[k])
			continue;
		if (jobfmt_filename(pat[k], &ids, &file) == 0)
			path[k] = file[0] == '/'
			              ? xstrdup(file)
			              : xasprintf("%s/%s",
			                          d->work_dir ? d->work_dir : ".", file);
		free(file);
		/* -o F -e F: one file, one offset */
		if (k && path[0] && path[1] && !strcmp(path[0], path[1])) {
			s->stream_fd[2] = s->stream_fd[1];
			continue;
		}
		if (path[k])
			fd = open(path[k], flags, 0666);
		if (fd >= 0 && fd < 3) { /* 0-2 may be closed: not ours to write */
			int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
			close(fd);
			fd = high;
		}
		if (fd < 0) { /* the tasks run already: they go, as Slurm's srun */
			cli_error("Could not open %s file %s: %s",
			          k ? "stderr" : "stdout", path[k] ? path[k] : pat[k],
			          path[k] ? strerror(errno) : "File name too long");
			for (size_t c = 0; c < s->line.n; c++)
				jobctl_signal_step(s->job_ids[c], s->step_ids[c], SIGKILL,
				                   0);
			free(path[0]);
			free(path[1]);
			if (s->alloc_mode)
				jobctl_complete(&s->alloc, 1 << 8);
			exit(cli_exit_error());
		}
		s->stream_fd[k + 1] = fd;
		if (!k && !d->std_err) /* -o alone: stderr goes there too */
			s->stream_fd[2] = fd;
	}
	free(path[0]);
	free(path[1]);
}

/* Is pattern (a part's -o, stream 1, or -e, 2) the file srun writes? */
static int srun_writes(const struct srun *s, const char *pattern, int stream)
{
	const struct job_desc *d = &s->o->desc;
	const char *mine = stream == 1 ? d->std_out : d->std_err;

	return one_file(pattern) && mine && !strcmp(pattern, mine);
}

/* What srun's own allocation gave component k: its nodes, and its tasks
 * (NO_VAL: not said). */
static void alloc_counts(const struct srun *s, size_t k, uint32_t *nodes, uint32_t *tasks)
{
	const struct alloc_resp *r = s->alloc.resp;
	const struct srun_comp *c = &s->line.comp[k];

	*nodes = 0;
	*tasks = NO_VAL;
	if (s->line.het) { /* the component's SLURM_*_HET_GROUP_n */
		char *key = xasprintf("SLURM_JOB_NUM_NODES_HET_GROUP_%u", c->group);
		const char *v = strv_getenv(c->env, key);
		*nodes = v ? (uint32_t)strtoul(v, NULL, 10) : 0;
		free(key);
		if (c->o.desc.num_tasks != NO_VAL ||
		    c->o.desc.ntasks_per_node != NO_VAL) {
			key = xasprintf("SLURM_NTASKS_HET_GROUP_%u", c->group);
			v = strv_getenv(c->env, key);
			*tasks = v ? (uint32_t)strtoul(v, NULL, 10) : NO_VAL;
			free(key);
		}
	} else {
		char **names = NULL;
		size_t n = 0;
		if (hostlist_expand(r->nodes, &names, &n, NULL) == 0)
			*nodes = (uint32_t)n;
		hostlist_free(names);
		if (r->num_tasks && r->num_tasks != NO_VAL)
			*tasks = r->num_tasks;
		/* -c without -n or --ntasks-per-node: as many tasks as the
		 * allocated CPUs hold, one a node at least (Slurm's srun) */
		if (c->o.desc.num_tasks == NO_VAL &&
		    c->o.desc.ntasks_per_node == NO_VAL &&
		    c->o.desc.cpus_per_task != NO_VAL && c->o.desc.cpus_per_task &&
		    r->cpus_per_node.n == *nodes) {
			uint32_t fit = 0;
			for (uint32_t i = 0; i < r->cpus_per_node.n; i++)
				fit += r->cpus_per_node.v[i] / c->o.desc.cpus_per_task;
			*tasks = fit < *nodes ? *nodes : fit;
		}
	}
}

/* Component k's step request. */
static void fill_step_req(struct srun *s, size_t k, struct step_create_req *req,
                          char *host)
{
	const struct srun_comp *c = &s->line.comp[k];
	const struct jobopt *o = &c->o;
	const struct job_desc *d = &o->desc;
	const struct job_desc_ext *x = job_desc_X(d);

	req->job_id = s->job_ids[k];
	req->min_nodes = d->min_nodes;
	req->num_tasks = d->num_tasks;
	if (s->alloc_mode) {
		uint32_t nodes, tasks;
		alloc_counts(s, k, &nodes, &tasks);
		if (nodes)
			req->min_nodes = nodes; /* step 0 spans the allocation */
		if (req->num_tasks == NO_VAL)
			req->num_tasks = tasks;
	} else {
		req->nodelist = d->req_nodes;
	}
	req->ntasks_per_node = d->ntasks_per_node;
	req->cpus_per_task = d->cpus_per_task;
	req->name = d->name;
	req->argv = c->cmd;
	req->env = jobopt_export_env(o, c->env);
	req->env = jobopt_dist_env(o, req->env); /* -m as given */
	req->env = srun_bcast_env(req->env, s->libdirs[k]);
	if (s->o->mpi) /* the step's PMI server follows it (stepd/pmi.h) */
		req->env = strv_setenv(req->env, "SLURM_MPI_TYPE", s->o->mpi);
	if (s->o->step_flags & STEP_F_PTY)
		req->env = srun_pty_env(req->env);
	req->cwd = d->work_dir;
	req->io_host = (char *)srun_io_host(host, 256);
	req->io_port = s->io_port;
	req->io_key = (struct rota_bin){s->key, IO_KEY_LEN};
	/* srun's I/O (component 0's) with the component's layout */
	req->flags =
	    (s->o->step_flags & ~STEP_LAYOUT_FLAGS) | (o->step_flags & STEP_LAYOUT_FLAGS);
	if (o->nodes_src == JOBOPT_SRC_ENV && !s->alloc_mode)
		req->flags |= STEP_F_NODES_ENV;
	if (MPIR_being_debugged) /* the tasks wait for the debugger */
		req->flags |= STEP_F_PARALLEL_DEBUG;
	req->task_dist = o->task_dist;
	req->task_hosts = o->task_hosts;
	req->cpu_bind = o->cpu_bind;
	req->mem_bind = o->mem_bind;
	req->task_prolog = o->task_prolog;
	req->slurmd_debug = o->slurmd_debug;
	if (o->resv_ports != NO_VAL) {
		req->flags |= STEP_F_RESV_PORTS;
		req->resv_ports = o->resv_ports;
	}
	req->task_epilog = o->task_epilog;
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
	/* one file for all the tasks is srun's to write (srun_files): the
	 * first part's; another part's own file is its step's */
	req->std_out = srun_writes(s, d->std_out, 1) ? NULL : d->std_out;
	req->std_err = srun_writes(s, d->std_err, 2) ? NULL : d->std_err;
	req->std_in = x->std_in;
	if (!x->std_in && s->o->in_task == JOBOPT_IO_ALL)
		req->flags |= STEP_F_STDIN_ALL;
	else if (!x->std_in && s->o->in_task > 0) { /* NULL: task 0 */
		if (!s->in_spec)                    /* Slurm's way: "N" */
			s->in_spec = xasprintf("%ld", s->o->in_task);
		req->std_in = s->in_spec;
	}
	req->relative = o->relative;
	if (!s->alloc_mode) /* an allocation's own -x went with its request */
		req->exc_nodes = d->exc_nodes;
	/* -t inside an allocation: the step's own limit (the job's still rules) */
	if (!s->alloc_mode && d->time_limit != NO_VAL)
		req->time_limit = d->time_limit;
	/* what the command line asks; the allocation's SLURM_MEM_* only say what
	 * the job holds */
	if (s->alloc_mode)
		return; /* step 0 holds the whole allocation */
	if (o->mem_src == JOBOPT_SRC_ARGV && d->mem_per_node != NO_VAL64)
		req->mem_per_node = d->mem_per_node;
	if (o->mem_cpu_src == JOBOPT_SRC_ARGV && d->mem_per_cpu != NO_VAL64)
		req->mem_per_cpu = d->mem_per_cpu;
}

/* Send the step request on fd and wait for the answer; 0, or an ESLURM_*. */
static int step_request(int fd, uint16_t req_type, const void *req, uint16_t resp_type,
                        const char **ret_msg, void **ret_body, uint16_t *ret_type)
{
	struct rota_error err = {""};
	int rc =
	    net_rpc(fd, req_type, req, ret_type, ret_body, STEP_CREATE_TIMEOUT_MS, &err);

	if (rc < 0) {
		log_debug("%s", err.text);
		*ret_msg = jobctl_strerror(rc);
		return SLURM_ERROR;
	}
	if (*ret_type == resp_type)
		return 0;
	rc = cli_rc(*ret_type, *ret_body, ret_msg);
	if (!rc) {
		*ret_msg = "unexpected reply";
		rc = SLURM_ERROR;
	}
	return rc;
}

/* The request: one step, or one over several components. */
struct step_ask {
	uint16_t type, resp_type;
	void *body;
	struct step_create_req one;
	struct step_het_create_req het;
};

static void step_ask_fill(struct srun *s, struct step_ask *a, char *host)
{
	if (!s->line.het) {
		fill_step_req(s, 0, &a->one, host);
		a->type = MSG_STEP_CREATE_REQ;
		a->resp_type = MSG_STEP_CREATE_RESP;
		a->body = &a->one;
		return;
	}
	a->het.steps_count = (uint32_t)s->line.n;
	a->het.steps = xcalloc(s->line.n, sizeof(*a->het.steps));
	for (size_t k = 0; k < s->line.n; k++)
		fill_step_req(s, k, &a->het.steps[k], host);
	a->type = MSG_STEP_HET_CREATE_REQ;
	a->resp_type = MSG_STEP_HET_CREATE_RESP;
	a->body = &a->het;
}

static void step_ask_release(struct step_ask *a)
{
	strv_free(a->one.env);
	for (uint32_t k = 0; k < a->het.steps_count; k++)
		strv_free(a->het.steps[k].env);
	free(a->het.steps);
}

/* Each part's step id from the reply (a part the reply lacks: 0, which
 * step_layout refuses); the step's is the first part's. */
static void step_ids_of(struct srun *s, uint16_t type, const void *body)
{
	const struct step_het_create_resp *het = body;

	for (size_t k = 0; k < s->line.n; k++)
		s->step_ids[k] = type == MSG_STEP_CREATE_RESP
		                     ? ((const struct step_create_resp *)body)->step_id
		                 : k < het->steps_count ? het->steps[k].step_id
		                                        : 0;
	s->step_id = s->step_ids[0];
}

/* -r N inside an allocation: N and the nodes asked (-N, else the
 * allocation's SLURM_JOB_NUM_NODES, as Slurm's srun counts them) must fit in
 * the job's nodes. */
static void relative_check(const struct srun *s)
{
	const struct jobopt *o = &s->line.comp[0].o;
	const char *v = getenv("SLURM_JOB_NUM_NODES");
	uint32_t all = v ? (uint32_t)strtoul(v, NULL, 10) : 0;
	uint32_t want = o->desc.min_nodes == NO_VAL ? all : o->desc.min_nodes;

	if (o->relative == NO_VAL || !all || o->relative + (uint64_t)want <= all)
		return;
	cli_error("--relative and %s option incompatible with count of allocated nodes "
	          "(%u+%u>%u)",
	          o->nodes_src == JOBOPT_SRC_ARGV ? "--nodes" : "SLURM_JOB_NUM_NODES",
	          o->relative, want, all);
	exit(cli_exit_error());
}

/* SLURM_NNODES asked for more nodes than the job has now (--no-kill lost
 * one): the step had the job's, as Slurm's srun says. */
static void env_nodes_check(const struct srun *s, uint16_t type, const void *body)
{
	const struct step_create_resp *r = body;
	uint32_t want = s->line.comp[0].o.desc.min_nodes;

	/* -w (or -m arbitrary's list), -x or -r choose the step's nodes: fewer
	 * is asked */
	if (type == MSG_STEP_CREATE_RESP &&
	    s->line.comp[0].o.nodes_src == JOBOPT_SRC_ENV && !s->alloc_mode &&
	    want != NO_VAL && r->tasks_per_node.n < want &&
	    !(s->line.comp[0].o.desc.req_nodes && *s->line.comp[0].o.desc.req_nodes) &&
	    !s->line.comp[0].o.desc.exc_nodes && s->line.comp[0].o.relative == NO_VAL)
		cli_error("SLURM_JOB_NUM_NODES environment variable conflicts with "
		          "allocated node count (%u != %u).",
		          want, r->tasks_per_node.n);
}

static void create_step(struct srun *s)
{
	struct step_ask ask = {0};
	char host[256] = "";
	int busy_said = 0;
	time_t began = time(NULL);

	step_ask_fill(s, &ask, host);
	for (;;) {
		const char *msg = NULL;
		void *body = NULL;
		uint16_t type = 0;
		size_t next = 0;
		int fd = s->alloc_mode ? s->alloc.fd : jobctl_connect("");
		int rc = step_request(fd, ask.type, ask.body, ask.resp_type, &msg, &body,
		                      &type);

		/* a controller that stands by did nothing: ask the one that serves */
		while (rc == ESLURM_IN_STANDBY_MODE && !s->alloc_mode) {
			int nfd = call_connect_next(&next);
			if (nfd < 0)
				break;
			msg_body_free(type, body);
			body = NULL;
			close(fd);
			fd = nfd;
			rc = step_request(fd, ask.type, ask.body, ask.resp_type, &msg,
			                  &body, &type);
		}

		if (!rc) {
			s->step_type = type;
			s->step_body = body;
			s->ctl_fd = fd;
			step_ids_of(s, type, body);
			env_nodes_check(s, type, body);
			if (busy_said)
				fprintf(stderr, "srun: Step created for StepId=%u.%u\n",
				        s->job_id, s->step_id);
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
			exit(cli_exit_error());
		}
		if (rc != ESLURM_NODES_BUSY && rc != ESLURM_PORTS_BUSY) {
			char *why = xstrdup(msg);
			msg_body_free(type, body);
			step_failed(s, why);
		}
		msg_body_free(type, body);
		if (!s->alloc_mode)
			close(fd);
		/* --immediate[=N] in an allocation: no waiting past N seconds for
		 * the step's resources, as Slurm's srun */
		if (!s->alloc_mode && s->o->immediate &&
		    time(NULL) - began >= (time_t)s->o->immediate) {
			cli_error("Unable to create step for job %u: %s", s->job_id,
			          slurm_strerror(rc));
			exit(cli_exit_error());
		}
		if (!busy_said && !(s->o->immediate && !s->alloc_mode)) {
			fprintf(
			    stderr,
			    "srun: Job %u step creation temporarily disabled, retrying "
			    "(%s)\n",
			    s->job_id, slurm_strerror(rc));
			busy_said = 1;
		}
		sleep(1);
		if (jobctl_signal_read(s->sig_fd)) {
			if (s->alloc_mode)
				jobctl_complete(&s->alloc, 1 << 8);
			exit(cli_exit_error());
		}
	}
	step_ask_release(&ask);
}

/* The step's layout from the reply: one step's nodes, or every
 * component's one after another. */
static void step_layout(struct srun *s)
{
	uint32_t ntasks = 0;
	int bad;

	if (s->step_type == MSG_STEP_CREATE_RESP) {
		const struct step_create_resp *r = s->step_body;
		bad = hostlist_expand(r->nodes, &s->step_nodes, &s->step_nnodes, NULL) <
		          0 ||
		      s->step_nnodes != r->tasks_per_node.n;
		s->step_tasks = r->tasks_per_node.v;
		s->step_dist = r->task_dist;
		s->step_map = r->task_map.v;
		s->step_nmap = r->task_map.n;
	} else {
		const struct step_het_create_resp *r = s->step_body;
		s->step_nodes = strv_dup(r->nodes);
		s->step_nnodes = strv_len(r->nodes);
		bad = s->step_nnodes != r->tasks.n || r->steps_count != s->line.n;
		s->step_tasks = r->tasks.v;
		s->step_dist = TASKDIST_ARBITRARY;
		s->step_map = r->task_map.v;
		s->step_nmap = r->task_map.n;
	}
	for (size_t i = 0; !bad && i < s->step_nnodes; i++)
		ntasks += s->step_tasks[i];
	if (bad || !s->step_nnodes ||
	    (s->step_dist == TASKDIST_ARBITRARY && s->line.het && s->step_nmap != ntasks))
		step_failed(s, "the controller sent an invalid step layout");
}

static void check_step(struct srun *s)
{
	uint32_t ntasks = 0;

	step_layout(s);
	for (size_t i = 0; i < s->step_nnodes; i++)
		ntasks += s->step_tasks[i];
	if (s->o->in_task >= 0 && (uint32_t)s->o->in_task >= ntasks)
		cli_error("--input task %ld is beyond the step's %u tasks", s->o->in_task,
		          ntasks);
	if (s->o->verbose) {
		uint32_t first = 0, *gtids = xcalloc(ntasks + 1, sizeof(*gtids));
		taskdist_gtids_map(s->step_dist, s->step_tasks, (uint32_t)s->step_nnodes,
		                   s->step_map, s->step_nmap, gtids);
		for (size_t i = 0; i < s->step_nnodes; i++) {
			uint32_t n = s->step_tasks[i];
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
			        s->job_id, s->step_id, s->step_nodes[i], n, list);
			free(list);
			first += n;
		}
		free(gtids);
	}
}

/* --bcast: each component's command copied to its job's nodes before the
 * step starts it (srun_bcast.h); a failure aborts the step. */
static void bcast_commands(struct srun *s)
{
	for (size_t k = 0; k < s->line.n; k++) {
		struct srun_comp *c = &s->line.comp[k];
		if (!c->o.bcast)
			continue;
		if (c->o.step_flags & STEP_F_MULTI_PROG) {
			cli_error("--bcast is ignored with --multi-prog");
			continue;
		}
		if (srun_bcast(&c->o, s->job_ids[k], c->cmd, &s->libdirs[k]) < 0) {
			if (s->alloc_mode)
				jobctl_complete(&s->alloc, 1 << 8);
			exit(cli_exit_error());
		}
	}
}

/* srun --prolog (or SrunProlog) before the step: a failure aborts it. */
static void srun_prolog(struct srun *s)
{
	const char *path = s->o->prolog ? s->o->prolog : cli_conf()->srun_prolog;
	int rc = srun_script_run(path, s->line.comp[s->line.n - 1].cmd, "prolog_srun",
	                         s->job_id);

	if (!rc)
		return;
	cli_error("srun prolog failed rc = %d. Aborting step.", rc);
	if (s->alloc_mode)
		jobctl_complete(&s->alloc, 1 << 8);
	exit(cli_exit_error());
}

/* srun --epilog (or SrunEpilog) once the step has ended. */
static void srun_epilog(struct srun *s)
{
	const char *path = s->o->epilog ? s->o->epilog : cli_conf()->srun_epilog;
	int rc = srun_script_run(path, s->line.comp[s->line.n - 1].cmd, "epilog_srun",
	                         s->job_id);

	if (rc)
		cli_error("srun epilog failed status=%d", rc);
}

static int run_step(struct srun *s, uint32_t *ret_status)
{
	struct srun_step st = {
	    .job_id = s->job_id,
	    .job_ids = s->job_ids,
	    .step_ids = s->step_ids,
	    .njob_ids = s->line.n,
	    .step_id = s->step_id,
	    .nnodes = s->step_nnodes,
	    .nodes = s->step_nodes,
	    .tasks = s->step_tasks,
	    .task_dist = s->step_dist,
	    .task_map = s->step_map,
	    .ntask_map = s->step_nmap,
	    .key = s->key,
	    .key_len = IO_KEY_LEN,
	};
	struct srun_io_opts io = {
	    .listen_fd = s->listen_fd,
	    .ctl_fd = s->ctl_fd,
	    .ctl_is_alloc = s->alloc_mode,
	    .sig_fd = s->sig_fd,
	    .label = !!(s->o->step_flags & STEP_F_LABEL),
	    .kill_on_bad_exit = s->o->kill_bad_exit >= 0 ? s->o->kill_bad_exit
	                                                 : !!cli_conf()->kill_on_bad_exit,
	    .unbuffered = !!(s->o->step_flags & STEP_F_UNBUFFERED),
	    .pty = !!(s->o->step_flags & STEP_F_PTY),
	    .max_wait = s->o->wait_secs == NO_VAL ? 0 : s->o->wait_secs,
	    .disable_status = s->o->disable_status,
	    .quit_on_interrupt = s->o->quit_on_interrupt,
	    .in_task = job_desc_X(&s->o->desc)->std_in ? JOBOPT_IO_NONE : s->o->in_task,
	    .out_task = s->o->out_task,
	    .err_task = s->o->err_task,
	    .verbose = s->o->verbose,
	    .stream_fd = {0, s->stream_fd[1], s->stream_fd[2]},
	    .kill_wait = cli_conf()->kill_wait,
	    .mpir_debugged = !!MPIR_being_debugged,
	    .mpir_dump = s->o->debugger_test,
	};

	int rc;

	if (s->o->step_flags & STEP_F_PTY)
		srun_pty_begin();
	rc = srun_io_run(&st, &io, ret_status);
	srun_pty_end();
	return rc;
}

/* Our own allocation: one job, or (components) a heterogeneous one, whose
 * components' ids and environment come with the grant. */
static void allocate(struct srun *s)
{
	struct submit_het het = {.jobs_count = (uint32_t)s->line.n};

	for (size_t k = 0; k < s->line.n; k++)
		s->line.comp[k].o.desc.flags |= JOB_F_INTERACTIVE;
	if (!s->line.het) {
		jobctl_allocate(MSG_ALLOC_REQ, &s->o->desc, JOBCTL_SRUN, s->o->quiet,
		                s->o->immediate, s->sig_fd, &s->alloc);
		s->job_id = s->job_ids[0] = s->alloc.resp->job_id;
		return;
	}
	het.jobs = xcalloc(s->line.n, sizeof(*het.jobs));
	for (size_t k = 0; k < s->line.n; k++)
		het.jobs[k] = s->line.comp[k].o.desc; /* shallow: the options keep them */
	jobctl_allocate(MSG_ALLOC_HET_REQ, &het, JOBCTL_SRUN, s->o->quiet,
	                s->o->immediate, s->sig_fd, &s->alloc);
	free(het.jobs);
	s->job_id = s->alloc.resp->job_id;
	srun_line_granted(&s->line, s->job_id, s->alloc.resp->het_env);
	for (size_t k = 0; k < s->line.n; k++)
		s->job_ids[k] = srun_comp_job_id(&s->line.comp[k]);
}

/* In an allocation: the job (a heterogeneous job's leader) and each
 * component's. */
static void job_ids_given(struct srun *s)
{
	s->job_id = s->o->jobid;
	for (size_t k = 0; k < s->line.n; k++) {
		s->job_ids[k] = s->line.het ? srun_comp_job_id(&s->line.comp[k])
		                            : s->line.comp[k].o.jobid;
		if (s->job_ids[k] == NO_VAL)
			s->job_ids[k] = s->line.comp[k].o.jobid;
	}
	if (s->line.het)
		s->job_id = s->line.leader != NO_VAL ? s->line.leader : s->job_ids[0];
}

/* --test-only (Slurm: in an allocation too): when and where each
 * component's job would start, as an allocation of its own; nothing runs. */
static int test_only(struct srun_line *line)
{
	int any = 0;

	for (size_t k = 0; k < line->n; k++)
		any |= line->comp[k].o.test_only;
	if (!any)
		return 0;
	for (size_t k = 0; k < line->n; k++) {
		const struct job_desc *d = &line->comp[k].o.desc;
		line->comp[k].o.desc.flags |= JOB_F_INTERACTIVE;
		jobctl_will_run(&d, 1);
	}
	return 1;
}

int cmd_srun(int argc, char **argv)
{
	struct srun s = {.ctl_fd = -1, .alloc = {.fd = -1}};
	struct rota_error err = {""};
	sigset_t old;
	uint32_t status = 0;
	int code;

	srun_line_parse(argc, argv, &s.line);
	if (test_only(&s.line)) {
		srun_line_release(&s.line);
		return 0;
	}
	s.o = &s.line.comp[0].o;
	s.job_ids = xcalloc(s.line.n, sizeof(uint32_t));
	s.step_ids = xcalloc(s.line.n, sizeof(uint32_t));
	s.libdirs = xcalloc(s.line.n, sizeof(char *));
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTTIN, SIG_IGN); /* reading stdin in the background gives EIO (= EOF) */
	s.sig_fd = jobctl_signalfd(
	    forwarded_signals, sizeof(forwarded_signals) / sizeof(forwarded_signals[0]),
	    &old);
	if (s.o->debugger_test) /* as a debugger would */
		MPIR_being_debugged = 1;
	s.alloc_mode = s.o->jobid == NO_VAL;
	if (s.o->relative != NO_VAL && s.alloc_mode) {
		fprintf(stderr, "srun: fatal: --relative option invalid for job "
		                "allocation request\n");
		exit(cli_exit_error());
	}
	if (s.o->relative != NO_VAL && (s.o->desc.req_nodes || s.o->desc.exc_nodes)) {
		fprintf(stderr, "srun: fatal: -r/--relative may not be combined with "
		                "-w/--nodelist or -x/--exclude\n");
		exit(cli_exit_error());
	}
	if (s.alloc_mode)
		allocate(&s);
	else
		job_ids_given(&s);
	if (!s.alloc_mode)
		relative_check(&s);
	if (s.o->verbose)
		print_job_info(&s);
	random_key(s.key, sizeof(s.key));
	s.listen_fd = net_listen_tcp(NULL, 0, &s.io_port, &err);
	if (s.listen_fd < 0)
		step_failed(&s, err.text);
	srun_prolog(&s);
	bcast_commands(&s);
	create_step(&s);
	check_step(&s);
	srun_files(&s);
	code = run_step(&s, &status);
	srun_epilog(&s);
	if (s.alloc_mode)
		jobctl_complete(&s.alloc, status);
	else if (s.ctl_fd >= 0)
		close(s.ctl_fd);
	close(s.listen_fd);
	if (s.stream_fd[2] > 0 && s.stream_fd[2] != s.stream_fd[1])
		close(s.stream_fd[2]);
	if (s.stream_fd[1] > 0)
		close(s.stream_fd[1]);
	hostlist_free(s.step_nodes);
	msg_body_free(s.step_type, s.step_body);
	free(s.in_spec);
	free(s.job_ids);
	free(s.step_ids);
	for (size_t k = 0; k < s.line.n; k++)
		free(s.libdirs[k]);
	free(s.libdirs);
	jobctl_alloc_release(&s.alloc);
	srun_line_release(&s.line);
	return code;
}
