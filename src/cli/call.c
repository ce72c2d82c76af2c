/* call.c - a controller round trip that returns errors (see call.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "common/conf.h"
#include "common/states.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define CALL_TIMEOUT_MS 60000

static int fail(int rc, const char *text, char **ret_msg)
{
	*ret_msg = xstrdup(text);
	return rc;
}

/* The next frame of a multi-frame answer; NULL unless it has type want. */
static void *next_frame(int fd, uint16_t want, struct rota_error *err)
{
	void *next = NULL;
	uint16_t type = 0;

	if (net_recv(fd, &type, &next, CALL_TIMEOUT_MS, err) < 0)
		return NULL;
	if (type != want) {
		msg_body_free(type, next);
		return NULL;
	}
	return next;
}

/* A job list in several frames: append the rest to first. */
static int collect_more(int fd, struct job_info_resp *first, struct rota_error *err)
{
	while (first->more) {
		struct job_info_resp *next = next_frame(fd, MSG_JOB_INFO_RESP, err);
		if (!next)
			return -1;
		first->jobs =
		    xrealloc(first->jobs, (first->jobs_count + next->jobs_count) *
		                              sizeof(struct job_info));
		memcpy(first->jobs + first->jobs_count, next->jobs,
		       next->jobs_count * sizeof(struct job_info));
		first->jobs_count += next->jobs_count;
		first->more = next->more;
		free(next->jobs); /* the elements now belong to first */
		next->jobs = NULL;
		next->jobs_count = 0;
		msg_body_free(MSG_JOB_INFO_RESP, next);
	}
	return 0;
}

static void (*text_sink)(const struct job_list_resp *r, void *arg);
static void *text_sink_arg;

void call_text_sink(void (*fn)(const struct job_list_resp *r, void *arg), void *arg)
{
	text_sink = fn;
	text_sink_arg = arg;
}

/*
 * A listing's text in several frames: with a sink set, each frame (first's
 * too) goes to it as it comes and first keeps no text; otherwise the rest is
 * appended to first.
 */
static int collect_text(int fd, struct job_list_resp *first, struct rota_error *err)
{
	if (text_sink) {
		text_sink(first, text_sink_arg);
		free(first->text.data);
		first->text.data = NULL;
		first->text.len = 0;
	}
	while (first->more) {
		struct job_list_resp *next = next_frame(fd, MSG_JOB_LIST_RESP, err);
		if (!next)
			return -1;
		if (text_sink) {
			text_sink(next, text_sink_arg);
		} else if (next->text.len > UINT32_MAX - first->text.len) {
			msg_body_free(MSG_JOB_LIST_RESP, next);
			return -1;
		} else if (next->text.len) {
			first->text.data = xrealloc(
			    first->text.data, (size_t)first->text.len + next->text.len);
			memcpy(first->text.data + first->text.len, next->text.data,
			       next->text.len);
			first->text.len += next->text.len;
		}
		first->more = next->more;
		msg_body_free(MSG_JOB_LIST_RESP, next);
	}
	return 0;
}

/* Send the request on fd and read the answer (closes fd). */
static int call_on(int fd, uint16_t type, const void *body, uint16_t *rtype, void **rbody,
                   int timeout_ms, struct rota_error *err)
{
	int rc = net_rpc(fd, type, body, rtype, rbody, timeout_ms, err);

	if (rc == 0 &&
	    ((*rtype == MSG_JOB_INFO_RESP && collect_more(fd, *rbody, err) < 0) ||
	     (*rtype == MSG_JOB_LIST_RESP && collect_text(fd, *rbody, err) < 0))) {
		msg_body_free(*rtype, *rbody);
		*rbody = NULL;
		rc = -ECONNRESET;
	}
	close(fd);
	return rc;
}

static int in_standby(uint16_t rtype, const void *rbody)
{
	return rtype == MSG_RC &&
	       ((const struct rc_msg *)rbody)->rc == ESLURM_IN_STANDBY_MODE;
}

int call_connect_next(size_t *next)
{
	struct conf *conf = cli_conf();
	struct auth *auth = NULL;
	int fd = -1;

	auth_create(conf, 0, &auth, NULL);
	while (fd < 0 && *next < conf_ctld_count(conf)) {
		struct rota_error err = {""};
		fd = client_connect_to(conf, auth, NULL, (*next)++, &err);
	}
	auth_destroy(auth);
	return fd;
}

void call_if_standby(uint16_t type, const void *body, uint16_t *rtype, void **rbody,
                     int timeout_ms)
{
	size_t next = 0;
	int fd;

	while (in_standby(*rtype, *rbody) && (fd = call_connect_next(&next)) >= 0) {
		struct rota_error err = {""};
		uint16_t t2 = 0;
		void *b2 = NULL;
		if (call_on(fd, type, body, &t2, &b2, timeout_ms, &err) < 0)
			continue;
		msg_body_free(*rtype, *rbody);
		*rtype = t2;
		*rbody = b2;
	}
}

int call_ctld(uint16_t type, const void *body, uint16_t want, void **ret_body,
              char **ret_msg)
{
	struct conf *conf = cli_conf();
	struct rota_error err = {""};
	struct auth *auth = NULL;
	uint16_t rtype = 0;
	void *rbody = NULL;
	int fd, rc;

	*ret_body = NULL;
	*ret_msg = NULL;
	auth_create(conf, 0, &auth, NULL);
	fd = client_connect(conf, auth, NULL, 0, &err);
	if (fd < 0) {
		auth_destroy(auth);
		log_debug("connect: %s", err.text);
		cli_connect_why(fd, &err);
		return fail(SLURM_COMMUNICATIONS_CONNECTION_ERROR,
		            slurm_strerror(SLURM_COMMUNICATIONS_CONNECTION_ERROR),
		            ret_msg);
	}
	auth_destroy(auth);
	rc = call_on(fd, type, body, &rtype, &rbody, CALL_TIMEOUT_MS, &err);
	if (rc == 0)
		call_if_standby(type, body, &rtype, &rbody, CALL_TIMEOUT_MS);
	if (rc == -ETIMEDOUT)
		return fail(SLURM_COMMUNICATIONS_CONNECTION_ERROR,
		            "Socket timed out on send/recv operation", ret_msg);
	if (rc < 0) {
		log_debug("rpc: %s", err.text);
		return fail(SLURM_COMMUNICATIONS_CONNECTION_ERROR,
		            slurm_strerror(SLURM_COMMUNICATIONS_CONNECTION_ERROR),
		            ret_msg);
	}
	if (rtype == MSG_RC) {
		const struct rc_msg *m = rbody;

		rc = m->rc;
		if (rc)
			*ret_msg =
			    xstrdup(m->msg && *m->msg ? m->msg : slurm_strerror(rc));
		else if (want != MSG_RC)
			rc = fail(SLURM_ERROR, "Unexpected message received", ret_msg);
		msg_body_free(rtype, rbody);
		return rc;
	}
	if (rtype != want) {
		msg_body_free(rtype, rbody);
		return fail(SLURM_ERROR, "Unexpected message received", ret_msg);
	}
	*ret_body = rbody;
	return 0;
}

/* N+K: the id of component K of heterogeneous job N, or 0. */
uint32_t call_het_component(uint32_t leader, uint32_t k)
{
	struct job_info_req req = {.job_ids = {&leader, 1}};
	struct job_info_resp *resp;
	uint32_t id = 0;
	char *msg = NULL;
	void *body = NULL;

	if (call_ctld(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, &body, &msg)) {
		free(msg);
		return 0;
	}
	resp = body;
	for (uint32_t i = 0; i < resp->jobs_count; i++)
		if (resp->jobs[i].het_job_id == leader &&
		    HET_OFFSET(resp->jobs[i].het_offset) == k)
			id = resp->jobs[i].job_id;
	msg_body_free(MSG_JOB_INFO_RESP, body);
	return id;
}
