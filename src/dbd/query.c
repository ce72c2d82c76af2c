/* query.c - rotadbd answers sacct (and sreport, report.h; its own
 * statistics, stats.h; its settings, settings.h) on a unix socket (the
 * caller's uid from the socket).  An answer to sacct goes in frames of
 * ACCT_CHUNK runs; sreport's sums in one frame.  Each request answered is
 * counted (stats.h). */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/timefmt.h"
#include "common/strv.h"
#include "common/uid.h"
#include "common/states.h"
#include "dbd/dbd.h"
#include "dbd/report.h"
#include "dbd/stats.h"
#include "dbd/store.h"
#include "proto/codec.h"
#include "proto/conn.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define ACCT_CHUNK    500        /* runs per MSG_ACCT_JOBS */
#define QUERY_MAX_MSG (1u << 20) /* a query's size */

struct answer {
	struct conn *c;
	struct acct_jobs out;
	size_t cap;
};

static void flush_chunk(struct answer *a, uint32_t more)
{
	a->out.more = more;
	conn_send(a->c, MSG_ACCT_JOBS, &a->out);
	codec_release(&acct_jobs_type, &a->out);
	memset(&a->out, 0, sizeof(a->out));
	a->cap = 0;
}

static int add_job(void *arg, struct acct_job *j)
{
	struct answer *a = arg;

	if (a->out.jobs_count == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->out.jobs = xrealloc(a->out.jobs, a->cap * sizeof(*a->out.jobs));
	}
	/* taken: the store releases what is left of j (nothing) */
	a->out.jobs[a->out.jobs_count++] = *j;
	memset(j, 0, sizeof(*j));
	if (a->out.jobs_count >= ACCT_CHUNK)
		flush_chunk(a, 1);
	return 0;
}

static void answer_report(struct dbd *d, struct conn *c,
                          const struct acct_report_req *req)
{
	struct rota_error err = {""};
	struct acct_report_resp r = {0};

	if (dbd_report(d, req, time(NULL), &r, &err) < 0)
		conn_send_rc(c, -EINVAL, err.text);
	else
		conn_send(c, MSG_ACCT_REPORT_RESP, &r);
	codec_release(&acct_report_resp_type, &r);
}

static void answer_diag(struct dbd *d, struct conn *c)
{
	struct dbd_diag r = {0};

	dbd_stats_fill(d->stats, &r);
	conn_send(c, MSG_DBD_DIAG_RESP, &r);
	codec_release(&dbd_diag_type, &r);
}

/* root, SlurmUser, or a user of AdminLevel level or above: an operator
 * may change others' job records, an administrator (slurmdbd's super user)
 * also clear the statistics. */
static int caller_is(struct dbd *d, uint32_t uid, enum assoc_admin level)
{
	char name[256];
	uid_t su;

	if (uid == 0)
		return 1;
	if (d->conf->slurm_user && name_to_uid(d->conf->slurm_user, &su) == 0 &&
	    su == uid)
		return 1;
	if (uid_to_name(uid, name, sizeof(name)) < 0)
		return 0;
	return store_admin_level(d->store, name) >= (int)level;
}

static void answer_clear_stats(struct dbd *d, struct conn *c)
{
	uint32_t uid = conn_uid(c);

	if (!caller_is(d, uid, ADMIN_ADMINISTRATOR)) {
		conn_send_rc(c, -ESLURM_ACCESS_DENIED,
		             "Your user doesn't have privilege to perform this action");
		return;
	}
	log_info("sacctmgr clear stats: uid %u", uid);
	dbd_stats_clear(d->stats, time(NULL));
	conn_send_rc(c, 0, NULL);
}

/* sacctmgr modify job: Slurm's words for what went wrong. */
#define MODIFY_IDS_MAX     10000 /* JobID=, Users=, Accounts= entries */
#define MODIFY_COMMENT_MAX 4096  /* bytes of a Comment= and the like */

/* Every size a client gives is bounded, as sacctmgr bounds them. */
static int modify_sizes_ok(const struct acct_job_modify *req)
{
	const char *texts[] = {req->comment, req->admin_comment, req->system_comment};

	if (strv_len(req->jobs) > MODIFY_IDS_MAX || req->uids.n > MODIFY_IDS_MAX ||
	    strv_len(req->accounts) > MODIFY_IDS_MAX)
		return 0;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (texts[i] && strlen(texts[i]) > MODIFY_COMMENT_MAX)
			return 0;
	return 1;
}

static void answer_modify(struct dbd *d, struct conn *c,
                          const struct acct_job_modify *req)
{
	struct rota_error err = {""};
	struct assoc_update_resp r = {0};
	uint32_t uid = conn_uid(c);
	int rc = modify_sizes_ok(req) ? dbd_feed_flush(d) : -EINVAL;

	if (rc == -EINVAL)
		errprintf(&err, "too many conditions or too long a comment");
	else if (rc == 0)
		rc =
		    store_job_modify(d->store, req, uid,
		                     caller_is(d, uid, ADMIN_OPERATOR), &r.changed, &err);
	if (rc == -EPERM) {
		r.rc = ESLURM_ACCESS_DENIED;
		r.text =
		    xstrdup("Your user doesn't have privilege to perform this action");
	} else if (rc == -EAGAIN) {
		r.rc = SLURM_ERROR;
		r.text = xstrdup("rotadbd is storing the controller's state: try again");
	} else if (rc < 0) {
		r.rc = SLURM_ERROR;
		r.text = xstrdup(err.text[0] ? err.text
		                             : "Something was wrong with your query");
	} else if (!r.changed) {
		r.text =
		    xstrdup("Request didn't affect anything or your user doesn't have "
		            "privilege to perform this action");
	}
	if (rc == 0 && r.changed && !(req->flags & ACCT_MOD_F_DRY_RUN))
		log_info("sacctmgr modify job: uid %u changed %zu job record(s)", uid,
		         strv_len(r.changed));
	conn_send(c, MSG_ACCT_JOB_MODIFY_RESP, &r);
	codec_release(&assoc_update_resp_type, &r);
}

static void answer(struct dbd *d, struct conn *c, uint16_t type, void *body)
{
	struct rota_error err = {""};
	struct answer a = {.c = c};

	if (type == MSG_ACCT_REPORT_REQ) {
		answer_report(d, c, body);
		return;
	}
	if (type == MSG_DBD_DIAG_REQ) {
		answer_diag(d, c);
		return;
	}
	if (type == MSG_ACCT_JOB_MODIFY) {
		answer_modify(d, c, body);
		return;
	}
	if (type == MSG_DBD_STATS_CLEAR) {
		answer_clear_stats(d, c);
		return;
	}
	if (type == MSG_DBD_CONFIG_REQ) {
		conn_send(c, MSG_DBD_CONFIG_RESP, d->settings);
		return;
	}
	if (type != MSG_ACCT_QUERY) {
		conn_send_rc(c, -ESLURM_NOT_SUPPORTED,
		             "rotadbd answers sacct, sreport, sacctmgr modify job, show "
		             "config, show stats and clear stats only");
		return;
	}
	if (store_query(d->store, body, add_job, &a, &err) < 0) {
		codec_release(&acct_jobs_type, &a.out);
		conn_send_rc(c, -EINVAL, err.text);
		return;
	}
	flush_chunk(&a, 0);
}

static void client_msg(struct conn *c, uint16_t type, void **body, void *arg)
{
	struct dbd *d = arg;
	double t0 = time_mono();

	answer(d, c, type, *body);
	dbd_stats_count(d->stats, type, conn_uid(c),
	                (uint64_t)((time_mono() - t0) * 1e6));
}

/* The clients' connections, so that a stop closes those still open. */
struct client {
	struct conn *c;
	struct client *prev, *next;
};

static void client_closed(struct conn *c, void *arg)
{
	struct dbd *d = arg;
	struct client *cl = conn_data(c);

	dbd_stats_count(d->stats, DBD_STATS_FINI, conn_uid(c), 0);
	if (cl->prev)
		cl->prev->next = cl->next;
	else
		d->clients = cl->next;
	if (cl->next)
		cl->next->prev = cl->prev;
	free(cl);
}

static void accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct dbd *d = arg;
	struct client *cl;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	cl = xcalloc(1, sizeof(*cl));
	cl->c = conn_create(d->base, fd, "sacct", client_msg, client_closed, d);
	conn_set_max_body(cl->c, QUERY_MAX_MSG);
	conn_set_data(cl->c, cl);
	cl->next = d->clients;
	if (d->clients)
		d->clients->prev = cl;
	d->clients = cl;
}

int dbd_query_listen(struct dbd *d)
{
	struct rota_error err = {""};

	d->listen_fd = net_listen_unix(d->sock_path, 0666, &err);
	if (d->listen_fd < 0) {
		log_err("%s", err.text);
		return -1;
	}
	d->listen_ev =
	    event_new(d->base, d->listen_fd, EV_READ | EV_PERSIST, accept_cb, d);
	event_add(d->listen_ev, NULL);
	return 0;
}

void dbd_query_stop(struct dbd *d)
{
	while (d->clients) {
		struct client *cl = d->clients;

		d->clients = cl->next;
		conn_close(cl->c); /* no on_close: freed here */
		free(cl);
	}
	if (d->listen_ev)
		event_free(d->listen_ev);
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	unlink(d->sock_path);
}
