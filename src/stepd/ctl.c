/* ctl.c - rotastepd's link to rotad.
 *
 * The launching rotad holds the other end of fd 3.  rotad may restart while the
 * step runs: the stepd then keeps going and listens on its spool socket
 * (common/spool.h), where the next rotad re-attaches; only root or our own uid
 * may connect.  The completion goes to whichever rotad holds the link, or into
 * a .done file in the spool when none does, for the next rotad to forward.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/spool.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "stepd/msglink.h"
#include "stepd/stepd.h"
#include "common/common.h"

/* reads of rotad's link a drain makes at most (each up to a buffer) */
#define CTL_DRAIN_READS 64

void ctl_listen(struct stepd *st)
{
	struct rota_error err = {""};
	char *name =
	    spool_stepd_name(st->req->node_name, st->req->job_id, st->req->step_id);
	int fd;

	if (!name)
		fatal("out of memory");
	/* bind a name relative to the spool: its full path may not fit sun_path */
	if (chdir(st->spool) < 0) {
		log_err("JobId=%u StepId=%u chdir %s: %s", st->req->job_id,
		        st->req->step_id, st->spool, strerror(errno));
		free(name);
		return;
	}
	fd = net_listen_unix(name, 0600, &err);
	if (fd < 0) {
		log_err("JobId=%u StepId=%u no re-attach socket: %s", st->req->job_id,
		        st->req->step_id, err.text);
		free(name);
		return;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	st->listen_fd = fd;
	st->sock_path = xasprintf("%s/%s", st->spool, name);
	free(name);
}

void ctl_on_listen(struct stepd *st)
{
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	int fd = accept4(st->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 ||
	    (cred.uid != 0 && cred.uid != geteuid())) {
		log_err("JobId=%u StepId=%u refused a connection from uid %d",
		        st->req->job_id, st->req->step_id, (int)cred.uid);
		close(fd);
		return;
	}
	log_info("JobId=%u StepId=%u rotad re-attached", st->req->job_id,
	         st->req->step_id);
	msglink_destroy(st->ctl);
	st->ctl = msglink_create(fd, "rotad");
}

/* Slurm's notice of a cancelled job or step, where the user sees it: the batch
 * script's error file, or the step's stderr (srun). */
static void announce_cancel(struct stepd *st, uint32_t flags)
{
	char when[32] = "", what[48], *line;
	time_t now = time(NULL);
	struct tm tm;

	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	if (st->batch)
		snprintf(what, sizeof(what), "JOB %u", st->req->job_id);
	else
		snprintf(what, sizeof(what), "STEP %u.%u", st->req->job_id,
		         st->req->step_id);
	line = xasprintf("slurmstepd: error: *** %s ON %s CANCELLED AT %s%s ***\n", what,
	                 st->req->node_name, when,
	                 (flags & SIGNAL_F_TIME_LIMIT)     ? " DUE TO TIME LIMIT"
	                 : (flags & SIGNAL_F_TASK_FAILURE) ? " DUE TO TASK FAILURE"
	                 : (flags & SIGNAL_F_PREEMPTED)    ? " DUE TO PREEMPTION"
	                                                   : "");
	stepd_tell_user(st, line);
	free(line);
}

/* A signal to a step (scancel -s, srun passing one on) reaches its tasks'
 * own processes alone, not what they started, under ProctrackType=
 * proctrack/cgroup (the default), as Slurm's cgroup tracking signals only the
 * tasks (its test6.15); proctrack/pgid and linuxproc: their process groups.
 * The batch script's step, and SIGKILL, SIGSTOP and SIGCONT (suspend, gang
 * scheduling: cgroup tracking freezes the whole step), every process. */
static int leaders_only(const struct stepd *st)
{
	const char *p = st->conf->proctrack_type;

	return !st->batch && (!p || !strcmp(p, "proctrack/cgroup"));
}

/* SIGNAL_F_TERMINATE is Slurm's kill sequence whatever the signal number:
 * SIGCONT and SIGTERM now, SIGKILL after KillWait (a requested signal other
 * than SIGTERM/SIGKILL is delivered first).  SIGNAL_F_BATCH_ONLY (scancel -b,
 * --signal=B:) reaches the batch shell alone, not its children. */
void ctl_signal(struct stepd *st, uint32_t sig, uint32_t flags)
{
	if (!(flags & SIGNAL_F_TERMINATE)) {
		if (!sig)
			return;
		if (!st->started) { /* for the tasks, once they are */
			if (st->nearly < STEPD_EARLY_SIGNALS) {
				st->early_sig[st->nearly] = sig;
				st->early_flags[st->nearly++] = flags;
			} else {
				log_err("JobId=%u StepId=%u signal %u before the tasks "
				        "started: more than %d, dropped",
				        st->req->job_id, st->req->step_id, sig,
				        STEPD_EARLY_SIGNALS);
			}
			return;
		}
		log_info("JobId=%u StepId=%u signal %u%s", st->req->job_id,
		         st->req->step_id, sig,
		         (flags & SIGNAL_F_BATCH_ONLY) ? " to the batch shell" : "");
		if (((flags & SIGNAL_F_BATCH_ONLY) && st->batch) ||
		    (sig != SIGKILL && sig != SIGSTOP && sig != SIGCONT &&
		     leaders_only(st)))
			task_signal_leaders(st, (int)sig);
		else
			task_signal_all(st, (int)sig);
		return;
	}
	if (st->terminating)
		return;
	log_info("JobId=%u StepId=%u terminating (KillWait %u s)", st->req->job_id,
	         st->req->step_id, st->conf->kill_wait);
	st->terminating = 1;
	if (flags & (SIGNAL_F_CANCELLED | SIGNAL_F_TIME_LIMIT | SIGNAL_F_TASK_FAILURE |
	             SIGNAL_F_PREEMPTED))
		announce_cancel(st, flags);
	if (sig && sig != SIGTERM && sig != SIGKILL)
		task_signal_all(st, (int)sig);
	if (pdebug_wanted(st)) {              /* a task stopped for the debugger dies */
		task_signal_all(st, SIGTERM); /* before it runs (pdebug.c) */
		task_signal_all(st, SIGCONT);
	} else {
		task_signal_all(st, SIGCONT);
		task_signal_all(st, SIGTERM);
	}
	st->kill_at = time(NULL) + (time_t)st->conf->kill_wait;
}

static void on_ctl_msg(struct msglink *l, uint16_t type, void *body, void *arg)
{
	struct stepd *st = arg;
	const struct signal_req *sr = body;

	if (type == MSG_STEP_STAT_REQ) {
		usage_answer(st, body);
		return;
	}
	if (type == MSG_STEP_ATTACH_REQ) {
		io_attach(st, body);
		return;
	}
	if (type != MSG_SIGNAL_REQ) {
		log_debug("ignoring %s from rotad", msg_name(type));
		return;
	}
	if (sr->job_id != st->req->job_id ||
	    (sr->step_id != NO_VAL && sr->step_id != st->req->step_id))
		return;
	if (sr->flags & SIGNAL_F_NOTIFY) { /* scontrol notify, as Slurm's stepd says it */
		char *line =
		    xasprintf("slurmstepd: error: %s\n", sr->message ? sr->message : "");
		stepd_tell_user(st, line);
		free(line);
		return;
	}
	ctl_signal(st, sr->signal, sr->flags);
}

void ctl_on_link(struct stepd *st, short revents)
{
	if (msglink_handle(st->ctl, revents, on_ctl_msg, st) == 0)
		return;
	log_info("JobId=%u StepId=%u rotad went away, the step keeps running",
	         st->req->job_id, st->req->step_id);
	msglink_destroy(st->ctl);
	st->ctl = NULL;
}

void ctl_drain(struct stepd *st)
{
	/* a read takes at most a buffer's worth: again while more is there */
	for (int i = 0; i < CTL_DRAIN_READS && st->ctl; i++) {
		struct pollfd p = {.fd = msglink_fd(st->ctl), .events = POLLIN};
		if (poll(&p, 1, 0) <= 0 || !p.revents)
			return;
		ctl_on_link(st, p.revents);
	}
}

void ctl_signal_early(struct stepd *st)
{
	for (uint32_t i = 0; i < st->nearly; i++)
		ctl_signal(st, st->early_sig[i], st->early_flags[i]);
	st->nearly = 0;
}

/* Leave the completion in the spool for the next rotad (write, then rename). */
static int write_done_file(struct stepd *st, const struct step_complete *sc)
{
	char *tmp, *path, *buf = NULL;
	size_t len;
	int fd, rc = -1;

	if (!st->spool || frame_pack(MSG_STEP_COMPLETE, sc, &buf, &len) < 0)
		return -1;
	path = xasprintf("%s/%s_%u.%u.done", st->spool, sc->node_name, sc->job_id,
	                 sc->step_id);
	tmp = xasprintf("%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0 && net_write_all(fd, buf, len) == 0 && fsync(fd) == 0)
		rc = rename(tmp, path);
	if (fd >= 0)
		close(fd);
	if (rc < 0) {
		log_err("JobId=%u StepId=%u cannot write %s: %s", sc->job_id, sc->step_id,
		        path, strerror(errno));
		unlink(tmp);
	}
	free(buf);
	free(tmp);
	free(path);
	return rc;
}

void ctl_report(struct stepd *st, uint32_t status, uint32_t flags, const char *msg)
{
	struct step_complete sc = {
	    .job_id = st->req->job_id,
	    .step_id = st->req->step_id,
	    .node_name = st->req->node_name,
	    .status = status,
	    .flags = flags,
	    .msg = (char *)msg,
	    .start_time = st->req->start_time,
	    .max_rss = st->max_rss_kib,
	    .user_usec = st->user_usec,
	    .sys_usec = st->sys_usec,
	};
	int sent = 0;

	usage_gpu_report(st, &sc);
	usage_tasks_report(st, &sc);
	if (st->ctl && msglink_send(st->ctl, MSG_STEP_COMPLETE, &sc) == 0 &&
	    msglink_flush(st->ctl, 5000) == 0)
		sent = 1;
	if (!sent && write_done_file(st, &sc) == 0)
		log_info("JobId=%u StepId=%u no rotad: completion left in the spool",
		         sc.job_id, sc.step_id);
	free(sc.tasks);
	pids_file_remove(st);
	if (st->sock_path)
		unlink(st->sock_path);
	if (st->listen_fd >= 0)
		close(st->listen_fd);
	st->listen_fd = -1;
}
