#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/spool.h"
#include "common/fstree.h"
#include "stepd/container.h"
#include "common/states.h"
#include "proto/conn.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "stepd/script_job.h"
#include "noded/gidcache.h"
#include "noded/here_file.h"
#include "noded/spawner.h"
#include "noded/stepd_mgr.h"
#include "stepd/stepd_main.h"
#include "stepd/cgroup.h"
#include "common/script.h"
#include "common/common.h"

#define DONE_FILE_MAX (1u << 20)
#define REAP_RETRY_S  1 /* a job's cgroup that would not empty: try again */

struct stepd_rec {
	struct stepd_mgr *m;
	uint32_t job_id, step_id;
	pid_t pid;          /* 0: adopted from an earlier rotad (not our child);
	                       -1: asked of the spawner, not yet started */
	int spawned;        /* the spawner's child: its end comes from there */
	int64_t start_time; /* the launch's start_time, 0 if adopted */
	struct conn *conn;  /* NULL once closed */
	int exited;         /* our child has been reaped */
	int wstatus;        /* its wait status */
	int reported;       /* it sent MSG_STEP_COMPLETE */
	struct stepd_rec *next;
};

/* A job the controller asked us to terminate: report when none of it is left
 * (after the Epilog, when one is configured). */
struct term_job {
	uint32_t job_id;
	pid_t epilog_pid; /* running Epilog, 0 if none */
	struct term_job *next;
};

/* A job that has run here: the first launch runs the Prolog, the end the Epilog. */
struct job_here {
	uint32_t job_id;
	int64_t start_time;     /* the run's launch_req.start_time */
	struct script_job *job; /* for the Epilog */
	struct job_here *next;
};

struct stepd_mgr {
	struct event_base *base;
	struct stepd_mgr_opts o;
	struct event *sigchld_ev;
	struct event *reap_ev; /* REAP_RETRY_S timer: term_check again */
	struct stepd_rec *head;
	struct term_job *terminating;
	struct job_here *here;
	struct gid_cache *gids;  /* users' groups as step daemons found them */
	struct spawner *spawner; /* forks the step daemons (noded/spawner.h) */
};

static struct job_here *here_find(struct stepd_mgr *m, uint32_t job_id)
{
	struct job_here *h;
	for (h = m->here; h && h->job_id != job_id; h = h->next)
		;
	return h;
}

static void here_add(struct stepd_mgr *m, const struct launch_req *req)
{
	struct job_here *h = xcalloc(1, sizeof(*h));

	h->job_id = req->job_id;
	h->start_time = req->start_time;
	h->job = script_job_of(req);
	h->next = m->here;
	m->here = h;
}

/* A job's file from an earlier rotad (here_file.h). */
static void here_found(void *arg, const struct launch_req *req)
{
	struct stepd_mgr *m = arg;

	if (!here_find(m, req->job_id))
		here_add(m, req);
}

static int here_has_steps(void *arg, uint32_t job_id)
{
	struct stepd_mgr *m = arg;

	for (struct stepd_rec *r = m->head; r; r = r->next)
		if (r->job_id == job_id)
			return 1;
	return 0;
}

/* Returns the forgotten run's start_time (0: none known). */
static int64_t here_forget(struct stepd_mgr *m, uint32_t job_id)
{
	for (struct job_here **pp = &m->here; *pp; pp = &(*pp)->next) {
		struct job_here *h = *pp;
		int64_t start = h->start_time;
		if (h->job_id != job_id)
			continue;
		*pp = h->next;
		script_job_free(h->job);
		free(h);
		here_file_remove(job_id);
		return start;
	}
	return 0;
}

/* Start the Epilog for a job that ran here; returns its pid or 0. */
static pid_t epilog_start(struct stepd_mgr *m, uint32_t job_id)
{
	struct job_here *h = here_find(m, job_id);
	char **env;
	pid_t pid;

	if (!h || !m->o.epilog || geteuid() != 0)
		return 0;
	env = script_env("epilog_slurmd", h->job, m->o.node_name, m->o.cluster,
	                 m->o.conf_path);
	pid = script_spawn(m->o.epilog, env, -1);
	strv_free(env);
	if (pid < 0) {
		log_err("JobId=%u epilog %s: %s", job_id, m->o.epilog, strerror(-pid));
		return 0;
	}
	return pid;
}

static void report(struct stepd_mgr *m, uint32_t job, uint32_t step, int64_t start,
                   uint32_t status, uint32_t flags, const char *msg);

/* The job's named containers (stepd/container.h) go with it: removed by a
 * child, off the event loop (on_sigchld reaps it). */
static void containers_remove(struct stepd_mgr *m, uint32_t job_id)
{
	char *dir = container_job_dir(m->o.spool, job_id);
	struct stat sb;

	if (lstat(dir, &sb) == 0 && fork() == 0)
		_exit(fstree_remove(dir) < 0);
	free(dir);
}

/* If job is being terminated and has no stepd left here, kill whatever is
 * left in its cgroups (processes that left their step, a step whose stepd
 * died) and say so once.  Until the cgroups are empty, the job is not
 * reported gone: the controller keeps its resources meanwhile. */
static void term_check(struct stepd_mgr *m, uint32_t job_id)
{
	for (struct stepd_rec *r = m->head; r; r = r->next)
		if (r->job_id == job_id)
			return;
	for (struct term_job **pp = &m->terminating; *pp; pp = &(*pp)->next) {
		struct term_job *t = *pp;
		struct timeval tv = {.tv_sec = REAP_RETRY_S};
		if (t->job_id != job_id || t->epilog_pid)
			continue;
		if (cgroup_reap(m->o.node_name, m->o.spool, job_id, NO_VAL)) {
			evtimer_add(m->reap_ev, &tv);
			return;
		}
		containers_remove(m, job_id);
		if ((t->epilog_pid = epilog_start(m, job_id)) > 0)
			return; /* reported when the epilog ends */
		*pp = t->next;
		free(t);
		report(m, job_id, NO_VAL, here_forget(m, job_id), 0, STEP_DONE_JOB_GONE,
		       NULL);
		return;
	}
}

/* Jobs whose cgroups would not empty: try them again. */
static void on_reap_retry(evutil_socket_t fd, short what, void *arg)
{
	struct stepd_mgr *m = arg;
	uint32_t ids[64];
	size_t n = 0;

	for (struct term_job *t = m->terminating; t && n < 64; t = t->next)
		if (!t->epilog_pid)
			ids[n++] = t->job_id;
	for (size_t i = 0; i < n; i++)
		term_check(m, ids[i]);
}

/* An epilog ended: the job is gone from this node (drained if it failed). */
static int epilog_reaped(struct stepd_mgr *m, pid_t pid, int status)
{
	for (struct term_job **pp = &m->terminating; *pp; pp = &(*pp)->next) {
		struct term_job *t = *pp;
		uint32_t job_id = t->job_id;
		if (t->epilog_pid != pid)
			continue;
		*pp = t->next;
		free(t);
		if (status)
			log_err("JobId=%u epilog failed, status %d", job_id, status);
		report(m, job_id, NO_VAL, here_forget(m, job_id), (uint32_t)status,
		       STEP_DONE_JOB_GONE | (status ? STEP_DONE_EPILOG_FAILED : 0),
		       status ? "Epilog error" : NULL);
		return 1;
	}
	return 0;
}

static void rec_unlink(struct stepd_mgr *m, struct stepd_rec *r)
{
	uint32_t job_id = r->job_id;

	for (struct stepd_rec **pp = &m->head; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	free(r);
	term_check(m, job_id);
}

static void report(struct stepd_mgr *m, uint32_t job, uint32_t step, int64_t start,
                   uint32_t status, uint32_t flags, const char *msg)
{
	struct step_complete sc = {.start_time = start,
	                           .job_id = job,
	                           .step_id = step,
	                           .node_name = (char *)m->o.node_name,
	                           .status = status,
	                           .flags = flags,
	                           .msg = (char *)msg};
	m->o.done(m->o.arg, &sc);
}

/* Forward a completion a stepd left in the spool; returns 1 if there was one. */
static int collect_done_file(struct stepd_mgr *m, const char *name)
{
	struct rota_error err = {""};
	struct step_complete *sc = NULL;
	uint16_t type = 0;
	int fd = open(name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (net_recv(fd, &type, (void **)&sc, 1000, &err) < 0 ||
	    type != MSG_STEP_COMPLETE)
		log_err("unreadable completion file %s/%s: %s", m->o.spool, name,
		        err.text);
	else
		m->o.done(m->o.arg, sc);
	close(fd);
	if (sc)
		msg_body_free(type, sc);
	unlink(name);
	return 1;
}

/* Both ends are known (conn closed, child reaped or adopted): report what the
 * stepd could not, and forget it. */
static void rec_maybe_finish(struct stepd_rec *r)
{
	struct stepd_mgr *m = r->m;
	char *done;

	if (r->conn || (r->pid && !r->exited))
		return;
	if (!r->reported) {
		char *name = spool_stepd_name(m->o.node_name, r->job_id, r->step_id);
		if (!name)
			fatal("out of memory");
		done = xasprintf("%s.done", name);
		free(name);
		if (!collect_done_file(m, done)) {
			int setup = r->exited && WIFEXITED(r->wstatus) &&
			            WEXITSTATUS(r->wstatus) == SPOOL_STEPD_EXIT_SETUP;
			log_err("JobId=%u StepId=%u rotastepd ended without a report",
			        r->job_id, r->step_id);
			/* nothing of the step may outlive its stepd */
			cgroup_reap(m->o.node_name, m->o.spool, r->job_id, r->step_id);
			report(m, r->job_id, r->step_id, r->start_time, 1 << 8,
			       setup ? STEP_DONE_LAUNCH_FAILED : STEP_DONE_STEPD_LOST,
			       "rotastepd ended without a report");
		}
		free(done);
	}
	rec_unlink(m, r);
}

static void rec_on_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct stepd_rec *r = arg;
	struct step_complete *sc = *body;

	if (type == MSG_PROLOG_COMPLETE) {
		r->m->o.prolog_done(r->m->o.arg, sc);
		return;
	}
	if (type == MSG_NODE_STAT_RESP) {
		if (r->m->o.stat_done)
			r->m->o.stat_done(r->m->o.arg, *body);
		return;
	}
	if (type == MSG_STEPD_GROUPS) {
		struct stepd_groups *g = *body;
		gid_cache_put(r->m->gids, g->user, g->gid, g->gids.v, g->gids.n,
		              time(NULL));
		return;
	}
	if (type != MSG_STEP_COMPLETE) {
		log_debug("ignoring %s from rotastepd", msg_name(type));
		return;
	}
	if (r->reported)
		return;
	r->reported = 1;
	log_info("JobId=%u StepId=%u ended, status %u%s", sc->job_id, sc->step_id,
	         sc->status,
	         sc->flags & STEP_DONE_LAUNCH_FAILED ? " (launch failed)" : "");
	r->m->o.done(r->m->o.arg, sc);
}

static void rec_on_close(struct conn *c, void *arg)
{
	struct stepd_rec *r = arg;

	r->conn = NULL;
	rec_maybe_finish(r);
}

static struct stepd_rec *rec_add(struct stepd_mgr *m, uint32_t job, uint32_t step,
                                 pid_t pid, int fd)
{
	struct stepd_rec *r = xcalloc(1, sizeof(*r));
	char name[64];

	snprintf(name, sizeof(name), "rotastepd %u.%u", job, step);
	r->m = m;
	r->job_id = job;
	r->step_id = step;
	r->pid = pid;
	r->conn = conn_create(m->base, fd, name, rec_on_msg, rec_on_close, r);
	r->next = m->head;
	m->head = r;
	return r;
}

static struct stepd_rec *rec_find(struct stepd_mgr *m, uint32_t job, uint32_t step)
{
	for (struct stepd_rec *r = m->head; r; r = r->next)
		if (r->job_id == job && r->step_id == step)
			return r;
	return NULL;
}

int stepd_mgr_has(struct stepd_mgr *m, uint32_t job_id, uint32_t step_id)
{
	return rec_find(m, job_id, step_id) != NULL;
}

/* What an exec would have done for the child: signals that rotad (libevent)
 * handles go back to their default action (one left to a handler would write
 * to a descriptor number the step daemon may have reused); ignored ones stay
 * ignored but SIGPIPE. */
static void child_signals_reset(void)
{
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sigaction(sig, NULL, &sa) < 0)
			continue;
		if ((sa.sa_flags & SA_SIGINFO) ||
		    (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN))
			signal(sig, SIG_DFL);
	}
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* ps shows the child as the step daemon of job.step: its argv area (rotad's,
 * copied by the fork) is written over. */
static void child_title(const struct stepd_mgr *m, uint32_t job, uint32_t step)
{
	char step_name[16];

	if (!m->o.title || m->o.title_len < 2)
		return;
	if (step == STEP_BATCH)
		snprintf(step_name, sizeof(step_name), "batch");
	else
		snprintf(step_name, sizeof(step_name), "%u", step);
	memset(m->o.title, 0, m->o.title_len);
	snprintf(m->o.title, m->o.title_len - 1, "rotastepd: [%u.%s]", job, step_name);
	prctl(PR_SET_NAME, "rotastepd", 0, 0, 0);
}

/* The child: fd 3 = our socketpair end, 0 = /dev/null, nothing else of ours
 * open, then the step daemon (stepd/stepd_main.h).  Never returns. */
static void stepd_child(const struct stepd_mgr *m, int fd, const struct spawn_req *sr)
{
	struct stepd_given given = {
	    .conf = m->o.conf,
	    .conf_path = m->o.conf_path,
	    .user = sr->user,
	    .gid = sr->gid,
	    .gids = sr->ngids ? sr->gids : NULL,
	    .ngids = sr->ngids,
	};
	char *argv[6];
	int argc = 0, null;

	child_signals_reset();
	log_forget_file(); /* rotad's log: the step daemon opens its own */
	__fpurge(stdout);  /* rotad's, not ours to write */
	if (fd == 3)
		fcntl(3, F_SETFD, 0);
	else if (dup2(fd, 3) < 0)
		_exit(SPOOL_STEPD_EXIT_SETUP);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || (null != 0 && dup2(null, 0) < 0))
		_exit(SPOOL_STEPD_EXIT_SETUP);
	/* rotad's connections, log, signal pipe: none is the step's */
	if (close_range(4, ~0U, 0) < 0)
		_exit(SPOOL_STEPD_EXIT_SETUP);
	setenv("SLURM_CONF", m->o.conf_path, 1);
	child_title(m, sr->job_id, sr->step_id);
	argv[argc++] = "rotastepd";
	if (m->o.log_file) {
		argv[argc++] = "-L";
		argv[argc++] = (char *)m->o.log_file;
	}
	if (m->o.verbose)
		argv[argc++] = "-v";
	argv[argc] = NULL;
	fflush(NULL);
	_exit(stepd_main(argc, argv, &given));
}

static void spawn_child(void *arg, int fd, const struct spawn_req *sr)
{
	stepd_child(arg, fd, sr);
}

/* What the child needs to know before it reads the launch: whose job it is,
 * and the user's groups as an earlier step daemon found them. */
static void spawn_req_fill(struct stepd_mgr *m, const struct launch_req *req,
                           struct spawn_req *sr)
{
	const gid_t *gids;
	int n;

	sr->job_id = req->job_id;
	sr->step_id = req->step_id;
	sr->gid = req->gid;
	sr->ngids = 0;
	sr->user[0] = '\0';
	if (!req->user || strlen(req->user) >= sizeof(sr->user))
		return;
	memcpy(sr->user, req->user, strlen(req->user) + 1);
	n = gid_cache_get(m->gids, req->user, req->gid, time(NULL), &gids);
	if (n > 0 && n <= SPAWN_MAX_GIDS) {
		memcpy(sr->gids, gids, (size_t)n * sizeof(gid_t));
		sr->ngids = (uint32_t)n;
	}
}

/* The step daemon of req on the socket end fd: from the spawner when there is
 * one (1), else a fork of rotad (its pid, or -errno). */
static pid_t stepd_start(struct stepd_mgr *m, const struct launch_req *req, int fd)
{
	struct spawn_req *sr = xcalloc(1, sizeof(*sr));
	pid_t pid;

	spawn_req_fill(m, req, sr);
	if (spawner_spawn(m->spawner, sr, fd) == 0) {
		free(sr);
		return 1;
	}
	pid = fork();
	if (pid == 0)
		stepd_child(m, fd, sr);
	free(sr);
	return pid < 0 ? -errno : pid;
}

void stepd_mgr_launch(struct stepd_mgr *m, const struct launch_req *req)
{
	struct launch_req out;
	struct stepd_rec *r;
	struct job_here *h;
	int sv[2];
	pid_t pid;

	if (rec_find(m, req->job_id, req->step_id)) {
		log_err("JobId=%u StepId=%u already running here, launch ignored",
		        req->job_id, req->step_id);
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		log_err("JobId=%u StepId=%u launch failed: socketpair: %s", req->job_id,
		        req->step_id, strerror(errno));
		report(m, req->job_id, req->step_id, req->start_time, 1 << 8,
		       STEP_DONE_LAUNCH_FAILED, "rotad cannot create a socket");
		return;
	}
	pid = stepd_start(m, req, sv[1]);
	close(sv[1]);
	if (pid < 0) {
		log_err("JobId=%u StepId=%u launch failed: fork: %s", req->job_id,
		        req->step_id, strerror(-pid));
		close(sv[0]);
		report(m, req->job_id, req->step_id, req->start_time, 1 << 8,
		       STEP_DONE_LAUNCH_FAILED, "rotad cannot fork");
		return;
	}
	r = rec_add(m, req->job_id, req->step_id, pid == 1 ? -1 : pid, sv[0]);
	r->spawned = pid == 1;
	r->start_time = req->start_time;
	out = *req;
	out.node_flags &= ~(uint32_t)(LAUNCH_NF_PROLOG | LAUNCH_NF_CONSTRAIN_DEVICES);
	/* the node's GRES devices: for the device cgroup, and to bind the
	 * step's into a container */
	out.node_gres_devs = (struct gres_dev_info *)m->o.gres_devs;
	out.node_gres_devs_count = m->o.ngres_devs;
	if (m->o.constrain_devices)
		out.node_flags |= LAUNCH_NF_CONSTRAIN_DEVICES;
	/* one from another run of the job (a file a rotad that did not see
	 * that run end left): this one is new here */
	if ((h = here_find(m, req->job_id)) && req->start_time &&
	    h->start_time != req->start_time)
		here_forget(m, req->job_id);
	if (!here_find(m, req->job_id)) {
		int rc;
		here_add(m, req);
		if ((rc = here_file_write(req)) < 0)
			log_err(
			    "JobId=%u: cannot keep it in the spool (%s): a rotad started "
			    "again while it runs would not run its Epilog",
			    req->job_id, strerror(-rc));
		out.node_flags |= LAUNCH_NF_PROLOG;
	}
	conn_send(r->conn, MSG_LAUNCH_REQ, &out);
	if (!r->spawned)
		log_info("JobId=%u StepId=%u rotastepd started, pid %d", req->job_id,
		         req->step_id, (int)pid);
}

/* The spawner's news of a step daemon: started, failed to, or ended. */
static void on_spawn_event(void *arg, uint32_t job, uint32_t step, pid_t pid, int wstatus)
{
	struct stepd_mgr *m = arg;
	struct stepd_rec *r, *next;

	if (wstatus == SPAWNER_GONE) {
		/* their ends will not be told: count them as ended */
		for (r = m->head; r; r = next) {
			next = r->next;
			if (r->spawned && !r->exited) {
				r->exited = 1;
				r->wstatus = 0;
				rec_maybe_finish(r);
			}
		}
		return;
	}
	for (r = m->head; r; r = r->next)
		if (r->spawned && r->job_id == job && r->step_id == step &&
		    (wstatus == -1 ? r->pid == -1 : r->pid == pid))
			break;
	if (!r)
		return;
	if (wstatus != -1) {
		r->exited = 1;
		r->wstatus = wstatus;
		rec_maybe_finish(r);
	} else if (pid > 0) {
		r->pid = pid;
		log_info("JobId=%u StepId=%u rotastepd started, pid %d", job, step,
		         (int)pid);
	} else {
		log_err("JobId=%u StepId=%u launch failed: fork: %s", job, step,
		        strerror(-pid));
		r->exited = 1;
		r->wstatus = 0;
		if (!r->reported) {
			r->reported = 1;
			report(m, job, step, r->start_time, 1 << 8,
			       STEP_DONE_LAUNCH_FAILED, "rotad cannot fork");
		}
		if (r->conn) {
			conn_close(r->conn);
			r->conn = NULL;
		}
		rec_maybe_finish(r);
	}
}

void stepd_mgr_signal(struct stepd_mgr *m, const struct signal_req *req)
{
	int n = 0;

	if ((req->flags & SIGNAL_F_TERMINATE) && req->step_id == NO_VAL) {
		struct term_job *t;
		for (t = m->terminating; t && t->job_id != req->job_id; t = t->next)
			;
		if (!t) {
			t = xcalloc(1, sizeof(*t));
			t->job_id = req->job_id;
			t->next = m->terminating;
			m->terminating = t;
		}
	}

	for (struct stepd_rec *r = m->head; r; r = r->next) {
		if (r->job_id != req->job_id || !r->conn || r->reported)
			continue;
		if (req->step_id != NO_VAL && req->step_id != r->step_id)
			continue;
		if ((req->flags & SIGNAL_F_BATCH_ONLY) && r->step_id != STEP_BATCH)
			continue;
		if ((req->flags & SIGNAL_F_NO_BATCH) && r->step_id == STEP_BATCH)
			continue;
		conn_send(r->conn, MSG_SIGNAL_REQ, req);
		n++;
	}
	if (req->flags & SIGNAL_F_TERMINATE)
		log_info("JobId=%u terminate sent to %d stepd(s)", req->job_id, n);
	else
		log_info("JobId=%u signal %u sent to %d stepd(s)", req->job_id,
		         req->signal, n);
	term_check(m, req->job_id);
}

void stepd_mgr_stat(struct stepd_mgr *m, const struct step_stat_req *req)
{
	struct stepd_rec *r = rec_find(m, req->job_id, req->step_id);
	struct node_stat_resp none = {.req_id = req->req_id,
	                              .tag = req->tag,
	                              .rc = -ESLURM_INVALID_JOB_ID,
	                              .job_id = req->job_id,
	                              .step_id = req->step_id};

	if (r && r->conn && !r->reported &&
	    conn_send(r->conn, MSG_STEP_STAT_REQ, req) == 0)
		return;
	if (m->o.stat_done)
		m->o.stat_done(m->o.arg, &none);
}

void stepd_mgr_attach(struct stepd_mgr *m, const struct step_attach *req)
{
	struct stepd_rec *r = rec_find(m, req->job_id, req->step_id);

	if (r && r->conn && !r->reported)
		conn_send(r->conn, MSG_STEP_ATTACH_REQ, req);
}

void stepd_mgr_live(struct stepd_mgr *m, struct rota_u32v *jobs, struct rota_u32v *steps)
{
	uint32_t *cg_jobs = NULL;
	size_t n = 0, ncg = cgroup_node_jobs(m->o.node_name, m->o.spool, &cg_jobs);

	for (struct stepd_rec *r = m->head; r; r = r->next)
		n += !r->reported;
	n += ncg;
	jobs->v = xcalloc(n ? n : 1, sizeof(uint32_t));
	steps->v = xcalloc(n ? n : 1, sizeof(uint32_t));
	jobs->n = steps->n = 0;
	for (struct stepd_rec *r = m->head; r; r = r->next) {
		if (r->reported)
			continue;
		jobs->v[jobs->n++] = r->job_id;
		steps->v[steps->n++] = r->step_id;
	}
	/* processes of a job may be left without a stepd (it died with an
	 * earlier rotad): its cgroups tell, as step NO_VAL */
	for (size_t i = 0; i < ncg; i++) {
		jobs->v[jobs->n++] = cg_jobs[i];
		steps->v[steps->n++] = NO_VAL;
	}
	free(cg_jobs);
}

static void on_sigchld(evutil_socket_t sig, short what, void *arg)
{
	struct stepd_mgr *m = arg;
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (epilog_reaped(m, pid, status))
			continue;
		for (struct stepd_rec *r = m->head; r; r = r->next) {
			if (r->pid != pid)
				continue;
			r->exited = 1;
			r->wstatus = status;
			rec_maybe_finish(r);
			break;
		}
	}
}

/* Connect to a stepd an earlier rotad started; a dead socket is removed. */
static void adopt(struct stepd_mgr *m, const char *name, uint32_t job, uint32_t step)
{
	struct rota_error err = {""};
	int fd;

	if (rec_find(m, job, step))
		return;
	fd = net_connect_unix(name, &err);
	if (fd < 0) {
		log_debug("stale stepd socket %s: %s", name, err.text);
		unlink(name);
		return;
	}
	rec_add(m, job, step, 0, fd);
	log_info("JobId=%u StepId=%u re-attached to a running rotastepd", job, step);
}

int stepd_mgr_ending(const struct stepd_mgr *m)
{
	return m && m->terminating;
}

void stepd_mgr_scan(struct stepd_mgr *m)
{
	DIR *d = opendir(".");
	struct dirent *e;

	if (!d) {
		log_err("cannot read spool %s: %s", m->o.spool, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		uint32_t job, step;
		int kind = spool_stepd_parse(e->d_name, m->o.node_name, &job, &step);
		if (kind == 1)
			adopt(m, e->d_name, job, step);
		else if (kind == 2 && !rec_find(m, job, step))
			collect_done_file(m, e->d_name);
	}
	closedir(d);
	here_file_each(here_found, here_has_steps, m);
}

struct stepd_mgr *stepd_mgr_create(struct event_base *base,
                                   const struct stepd_mgr_opts *o)
{
	struct stepd_mgr *m = xcalloc(1, sizeof(*m));

	m->base = base;
	m->o = *o;
	m->gids = gid_cache_create();
	if (!o->no_spawner) {
		struct spawner_opts so = {
		    .child = spawn_child,
		    .event = on_spawn_event,
		    .arg = m,
		    .title = o->title,
		    .title_len = o->title_len,
		};
		/* while rotad is small: the spawner's pages are a copy of these */
		if (!(m->spawner = spawner_create(base, &so)))
			log_err("cannot fork the step daemon spawner: %s; rotad forks "
			        "them itself",
			        strerror(errno));
	}
	m->sigchld_ev = evsignal_new(base, SIGCHLD, on_sigchld, m);
	if (!m->sigchld_ev || evsignal_add(m->sigchld_ev, NULL) < 0)
		fatal("cannot watch SIGCHLD");
	if (!(m->reap_ev = evtimer_new(base, on_reap_retry, m)))
		fatal("cannot create a timer");
	return m;
}

void stepd_mgr_destroy(struct stepd_mgr *m)
{
	if (!m)
		return;
	while (m->head) {
		struct stepd_rec *r = m->head;
		m->head = r->next;
		if (r->conn)
			conn_close(r->conn);
		free(r);
	}
	while (m->terminating) {
		struct term_job *t = m->terminating;
		m->terminating = t->next;
		free(t);
	}
	while (m->here) { /* their files stay: a rotad started again reads them */
		struct job_here *h = m->here;
		m->here = h->next;
		script_job_free(h->job);
		free(h);
	}
	cgroup_node_release(m->o.node_name, m->o.spool);
	gid_cache_destroy(m->gids);
	spawner_destroy(m->spawner);
	event_free(m->sigchld_ev);
	event_free(m->reap_ev);
	free(m);
}
