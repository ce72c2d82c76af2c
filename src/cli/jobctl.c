/* jobctl.c - sbatch/srun/salloc <-> rotactld (see jobctl.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/jobctl.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define JOBCTL_RPC_TIMEOUT_MS      60000
#define JOBCTL_COMPLETE_TIMEOUT_MS 10000
#define JOBCTL_SIGNAL_TIMEOUT_MS   5000
#define PENDING_QUIET_MS           1000 /* a grant within this is "immediate" */

const char *jobctl_strerror(int rc)
{
	if (rc == -ETIMEDOUT)
		return "Socket timed out on send/recv operation";
	if (rc == -ECONNRESET || rc == -EPIPE)
		return "Zero Bytes were transmitted or received";
	if (rc == -EPROTO)
		return "Protocol message error";
	return slurm_strerror(SLURM_COMMUNICATIONS_CONNECTION_ERROR);
}

int jobctl_connect(const char *prefix)
{
	int fd = cli_try_connect();

	if (fd < 0) {
		cli_error("%s%s", prefix,
		          slurm_strerror(SLURM_COMMUNICATIONS_CONNECTION_ERROR));
		exit(cli_exit_error());
	}
	return fd;
}

void jobctl_rpc(const char *prefix, uint16_t type, const void *body, uint16_t *ret_type,
                void **ret_body)
{
	struct rota_error err = {""};
	int fd = jobctl_connect(prefix);
	int rc = net_rpc(fd, type, body, ret_type, ret_body, JOBCTL_RPC_TIMEOUT_MS, &err);

	close(fd);
	if (rc < 0) {
		log_debug("%s", err.text);
		cli_error("%s%s", prefix, jobctl_strerror(rc));
		exit(cli_exit_error());
	}
	call_if_standby(type, body, ret_type, ret_body, JOBCTL_RPC_TIMEOUT_MS);
}

int jobctl_signalfd(const int *sigs, size_t n, sigset_t *ret_old)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	for (size_t i = 0; i < n; i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, ret_old);
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		fatal("signalfd: %s", strerror(errno));
	return fd;
}

int jobctl_signal_read(int sig_fd)
{
	struct signalfd_siginfo si;

	if (sig_fd < 0 || read(sig_fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return 0;
	return (int)si.ssi_signo;
}

/* ---- allocation ---- */

static void alloc_failed(enum jobctl_style style, const char *why)
{
	cli_error("%s%s",
	          style == JOBCTL_SALLOC ? "Job submit/allocate failed: "
	                                 : "Unable to allocate resources: ",
	          why);
	exit(cli_exit_error());
}

/* --immediate ran out: the request is given up (the controller cancels a
 * pending allocation whose client has gone), in Slurm's words. */
static void not_immediate(void)
{
	cli_error("Unable to allocate resources: %s", slurm_strerror(ESLURM_NODES_BUSY));
	exit(cli_exit_immediate());
}

static void revoked(uint32_t job_id)
{
	if (job_id)
		fprintf(stderr, "%s: Job allocation %u has been revoked.\n", cli_prog,
		        job_id);
	exit(cli_exit_error());
}

/* Wait until fd is readable (0) or timeout_ms passed (-ETIMEDOUT; -1: no
 * limit); a signal on sig_fd revokes the request. */
static int wait_readable(int fd, int sig_fd, uint32_t job_id, int timeout_ms)
{
	struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
	                      {.fd = sig_fd, .events = POLLIN}};

	for (;;) {
		int n = poll(p, sig_fd >= 0 ? 2 : 1, timeout_ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fatal("poll: %s", strerror(errno));
		if (n == 0)
			return -ETIMEDOUT;
		if (sig_fd >= 0 && (p[1].revents & POLLIN) && jobctl_signal_read(sig_fd))
			revoked(job_id);
		if (p[0].revents)
			return 0;
	}
}

static void say_pending(enum jobctl_style style, uint32_t job_id)
{
	if (style == JOBCTL_SALLOC)
		fprintf(stderr, "salloc: Pending job allocation %u\n", job_id);
	fprintf(stderr, "%s: job %u queued and waiting for resources\n", cli_prog,
	        job_id);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds until deadline (now_ms's clock; 0: none): -1 none. */
static int ms_left(int64_t deadline)
{
	int64_t now = now_ms();

	if (!deadline)
		return -1;
	return now >= deadline ? 0 : (int)(deadline - now);
}

void jobctl_allocate(uint16_t req_type, const void *req, enum jobctl_style style,
                     int quiet, uint32_t immediate, int sig_fd, struct jobctl_alloc *ret)
{
	const char *prefix = style == JOBCTL_SALLOC ? "Job submit/allocate failed: "
	                                            : "Unable to allocate resources: ";
	struct rota_error err = {""};
	uint32_t job_id = 0;
	size_t next = 0; /* the controller to ask when this one stands by */
	int fd = jobctl_connect(prefix), rc, said = quiet;
	int64_t deadline = immediate ? now_ms() + (int64_t)immediate * 1000 : 0;
	if ((rc = net_send(fd, req_type, req, &err)) < 0)
		alloc_failed(style, jobctl_strerror(rc));
	for (;;) {
		uint16_t type = 0;
		void *body = NULL;
		const char *msg = NULL;
		int left = ms_left(deadline),
		    wait_ms = job_id && !said ? PENDING_QUIET_MS : -1;

		if (left == 0)
			not_immediate();
		if (left > 0 && (wait_ms < 0 || left < wait_ms))
			wait_ms = left;
		/* The controller reports every request as pending before its first
		 * scheduling pass; like Slurm, say so only when the wait is real. */
		if (wait_readable(fd, sig_fd, job_id, wait_ms) < 0) {
			if (ms_left(deadline) == 0)
				not_immediate();
			say_pending(style, job_id);
			said = 1;
			continue;
		}
		if ((rc = net_recv(fd, &type, &body, JOBCTL_RPC_TIMEOUT_MS, &err)) < 0) {
			log_debug("%s", err.text);
			alloc_failed(style, jobctl_strerror(rc));
		}
		if (type == MSG_RC && !job_id &&
		    cli_rc(type, body, NULL) == ESLURM_IN_STANDBY_MODE) {
			/* it did nothing: ask the one that serves */
			int nfd = call_connect_next(&next);
			msg_body_free(type, body);
			if (nfd < 0)
				alloc_failed(style,
				             slurm_strerror(ESLURM_IN_STANDBY_MODE));
			close(fd);
			fd = nfd;
			if ((rc = net_send(fd, req_type, req, &err)) < 0)
				alloc_failed(style, jobctl_strerror(rc));
			continue;
		}
		if (type == MSG_RC) {
			rc = cli_rc(type, body, &msg);
			alloc_failed(style, rc ? msg : "unexpected reply");
		} else if (type == MSG_ALLOC_PENDING) {
			const struct submit_resp *p = body;
			job_id = p->job_id;
			/* why it cannot start now, when the controller says
			 * (a down partition, a hold...): at once, as Slurm */
			if (p->msg && *p->msg && !quiet)
				fprintf(stderr, "%s: %s\n", cli_prog, p->msg);
		} else if (type == MSG_ALLOC_RESP) {
			ret->fd = fd;
			ret->resp = body;
			/* Slurm never grants components at submission (a later
			 * pass does): its lines say they waited, as scripts and
			 * its test suite read them */
			if (req_type == MSG_ALLOC_HET_REQ && !said) {
				say_pending(style, ret->resp->job_id);
				job_id = ret->resp->job_id;
				said = 1;
			}
			if (job_id && said && !quiet)
				fprintf(stderr,
				        "%s: job %u has been allocated resources\n",
				        cli_prog, ret->resp->job_id);
			if (style == JOBCTL_SALLOC && !quiet)
				fprintf(stderr, "salloc: Granted job allocation %u\n",
				        ret->resp->job_id);
			return;
		} else if (type == MSG_USER_MSG) { /* scontrol notify, while pending */
			cli_user_msg(body);
		} else {
			log_debug("ignoring %s while waiting for an allocation",
			          msg_name(type));
		}
		msg_body_free(type, body);
	}
}

int jobctl_complete(struct jobctl_alloc *a, uint32_t status)
{
	struct job_complete_req req = {.job_id = a->resp->job_id, .status = status};
	struct rota_error err = {""};
	uint16_t type = 0;
	void *body = NULL;
	int rc;

	if (a->fd < 0)
		return -1;
	rc = net_rpc(a->fd, MSG_JOB_COMPLETE_REQ, &req, &type, &body,
	             JOBCTL_COMPLETE_TIMEOUT_MS, &err);
	close(a->fd);
	a->fd = -1;
	if (rc < 0) {
		log_debug("JobId=%u complete: %s", req.job_id, err.text);
		return -1;
	}
	rc = cli_rc(type, body, NULL);
	msg_body_free(type, body);
	return rc;
}

void jobctl_alloc_release(struct jobctl_alloc *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	msg_body_free(MSG_ALLOC_RESP, a->resp);
	a->resp = NULL;
}

int jobctl_signal_step(uint32_t job_id, uint32_t step_id, uint32_t signal, uint32_t flags)
{
	struct cancel_req req = {
	    .job_id = job_id, .step_id = step_id, .signal = signal, .flags = flags};
	struct rota_error err = {""};
	uint16_t type = 0;
	void *body = NULL;
	int fd = cli_try_connect(), rc;

	if (fd < 0)
		return -1;
	rc = net_rpc(fd, MSG_CANCEL_REQ, &req, &type, &body, JOBCTL_SIGNAL_TIMEOUT_MS,
	             &err);
	close(fd);
	if (rc < 0)
		return -1;
	rc = cli_rc(type, body, NULL);
	msg_body_free(type, body);
	return rc;
}

#define WILL_RUN_FAILED "allocation failure: "

static int name_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The controller's estimate for d; exits on a refusal.  msg_body_free(). */
static struct will_run_resp *will_run_ask(const struct job_desc *d)
{
	uint16_t type = 0;
	void *body = NULL;
	const char *msg = NULL;

	jobctl_rpc(WILL_RUN_FAILED, MSG_WILL_RUN_REQ, d, &type, &body);
	if (type == MSG_RC) {
		int rc = cli_rc(type, body, &msg);
		cli_error(WILL_RUN_FAILED "%s", rc ? msg : "unexpected reply");
		exit(cli_exit_error());
	}
	if (type != MSG_WILL_RUN_RESP) {
		cli_error(WILL_RUN_FAILED "unexpected reply %s", msg_name(type));
		exit(cli_exit_error());
	}
	return body;
}

void jobctl_will_run(const struct job_desc *const *descs, size_t n)
{
	struct will_run_resp *r;
	char when[64], **all = NULL, **names, *hosts;
	size_t count;
	uint32_t first = 0, cpus = 0;
	int64_t start = 0;

	if (n == 1) {
		r = will_run_ask(descs[0]);
		fprintf(stderr,
		        "%s: Job %u to start at %s using %u processors on nodes %s in "
		        "partition %s\n",
		        cli_prog, r->job_id,
		        timefmt_iso((time_t)r->start_time, when, sizeof(when)),
		        r->proc_cnt, r->node_list, r->part_name);
		msg_body_free(MSG_WILL_RUN_RESP, r);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		r = will_run_ask(descs[k]);
		if (!k)
			first = r->job_id;
		if (r->start_time > start)
			start = r->start_time;
		cpus += r->proc_cnt;
		if (hostlist_expand(r->node_list, &names, &count, NULL) == 0) {
			for (size_t i = 0; i < count; i++)
				if (!strv_has(all, names[i], 0))
					all = strv_append(all, names[i]);
			hostlist_free(names);
		}
		msg_body_free(MSG_WILL_RUN_RESP, r);
	}
	/* in order, as a host set prints them */
	if (all)
		qsort(all, strv_len(all), sizeof(*all), name_cmp);
	hosts = hostlist_compress(all, strv_len(all));
	fprintf(stderr, "%s: Job %u to start at %s using %u processors on %s\n", cli_prog,
	        first, timefmt_iso((time_t)start, when, sizeof(when)), cpus, hosts);
	free(hosts);
	strv_free(all);
}
