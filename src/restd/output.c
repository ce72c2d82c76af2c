/* output.c - GET /rota/v1/job/{id}/output[?tail=BYTES]: the end of a batch
 * job's standard output, for its owner (or root and SlurmUser).  The
 * controller says whose job it is and where its output goes (as that user
 * asked, so a job they may not see is not found); the file is read by a
 * child that has become the requesting user (initgroups, setgid, setuid),
 * so the file's own permissions hold as well.  The child's output comes
 * back through a pipe the loop reads; nothing here blocks. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/states.h"
#include "proto/messages.h"
#include "proto/slurm_json.h"
#include "restd/restd.h"
#include "common/common.h"

struct reader {
	struct restd *r;
	struct evhttp_request *req;
	struct rest_user u;
	size_t tail;
	char *path;
	pid_t pid;
	int fd;
	struct event *ev;
	struct evbuffer *got;
	struct reader *prev, *next;
};

static void reader_free(struct reader *rd)
{
	struct restd *r = rd->r;

	if (rd->prev)
		rd->prev->next = rd->next;
	else
		r->readers = rd->next;
	if (rd->next)
		rd->next->prev = rd->prev;
	if (rd->ev)
		event_free(rd->ev);
	if (rd->fd >= 0)
		close(rd->fd);
	if (rd->pid > 0) {
		kill(rd->pid, SIGKILL);
		waitpid(rd->pid, NULL, 0);
	}
	evbuffer_free(rd->got);
	free(rd->path);
	free(rd);
}

/* The child: become the user, print the file's last tail bytes; the exit
 * status is 0 or the errno that stopped it. */
static void __attribute__((noreturn)) read_as_user(const struct reader *rd, int out)
{
	struct stat st;
	char buf[65536];
	size_t left = rd->tail;
	int fd;

	if (rd->u.uid != 0 && (initgroups(rd->u.name, rd->u.gid) < 0 ||
	                       setresgid(rd->u.gid, rd->u.gid, rd->u.gid) < 0 ||
	                       setresuid(rd->u.uid, rd->u.uid, rd->u.uid) < 0))
		_exit(EPERM);
	fd = open(rd->path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		_exit(errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		_exit(EINVAL);
	if ((size_t)st.st_size > left &&
	    lseek(fd, st.st_size - (off_t)left, SEEK_SET) < 0)
		_exit(errno);
	while (left) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));
		if (n <= 0)
			break;
		if (write(out, buf, (size_t)n) != n)
			_exit(EPIPE);
		left -= (size_t)n;
	}
	_exit(0);
}

/* JSON strings are UTF-8: an output that is not keeps its ASCII. */
static json_t *text_of(const char *p, size_t n)
{
	json_t *s = json_stringn(p, n);
	char *copy;

	if (s)
		return s;
	copy = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		copy[i] = (unsigned char)p[i] < 0x80 ? p[i] : '?';
	s = json_stringn(copy, n);
	free(copy);
	return s;
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct reader *rd = arg;
	int n = evbuffer_read(rd->got, fd, 65536), status = 0;
	json_t *doc;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0 && evbuffer_get_length(rd->got) <= rd->tail)
		return;
	/* the end (or more than was asked for: the child misbehaved, and is
	 * killed by reader_free) */
	if (n > 0 || waitpid(rd->pid, &status, 0) < 0 || !WIFEXITED(status))
		status = EIO << 8;
	else
		rd->pid = 0;
	switch (WEXITSTATUS(status)) {
	case 0:
		doc = sj_response();
		json_object_set_new(doc, "path", json_string(rd->path));
		json_object_set_new(doc, "output",
		                    text_of((const char *)evbuffer_pullup(rd->got, -1),
		                            evbuffer_get_length(rd->got)));
		restd_reply_json(rd->req, 200, doc);
		break;
	case ENOENT:
		restd_reply_error(rd->req, 404,
		                  "the job's output file does not exist (yet)",
		                  ESLURM_INVALID_ARGUMENT);
		break;
	case EACCES:
	case EPERM:
		restd_reply_error(rd->req, 403,
		                  "the output file is not readable by this user",
		                  ESLURM_ACCESS_DENIED);
		break;
	default:
		restd_reply_error(rd->req, 500, "the output file cannot be read",
		                  SLURM_ERROR);
	}
	reader_free(rd);
}

static int is_admin(const struct restd *r, const struct rest_user *u)
{
	return u->uid == 0 ||
	       (r->conf->slurm_user && !strcmp(u->name, r->conf->slurm_user));
}

struct ask {
	struct restd *r;
	struct evhttp_request *req;
	struct rest_user u;
	uint32_t job_id;
	size_t tail;
};

static void start_reader(struct ask *a, const char *path)
{
	struct reader *rd = xcalloc(1, sizeof(*rd));
	int p[2];

	rd->r = a->r;
	rd->req = a->req;
	rd->u = a->u;
	rd->tail = a->tail;
	rd->path = xstrdup(path);
	rd->fd = -1;
	rd->got = evbuffer_new();
	rd->next = a->r->readers;
	if (a->r->readers)
		a->r->readers->prev = rd;
	a->r->readers = rd;
	if (!rd->got || pipe2(p, O_CLOEXEC) < 0 || (rd->pid = fork()) < 0) {
		restd_reply_error(a->req, 500, "cannot start a reader", SLURM_ERROR);
		reader_free(rd);
		return;
	}
	if (rd->pid == 0) {
		close(p[0]);
		read_as_user(rd, p[1]);
	}
	close(p[1]);
	rd->fd = p[0];
	evutil_make_socket_nonblocking(rd->fd);
	rd->ev = event_new(a->r->base, rd->fd, EV_READ | EV_PERSIST, on_readable, rd);
	event_add(rd->ev, NULL);
}

static void answered(void *arg, int rc, const char *msg, uint16_t type, void **body)
{
	struct ask *a = arg;
	const struct job_info_resp *resp = *body;
	const struct job_info *j = NULL;

	if (!rc && type == MSG_JOB_INFO_RESP)
		for (uint32_t i = 0; i < resp->jobs_count && !j; i++)
			if (resp->jobs[i].job_id == a->job_id)
				j = &resp->jobs[i];
	if (rc && rc != ESLURM_INVALID_JOB_ID)
		restd_reply_error(a->req, 500, msg && *msg ? msg : slurm_strerror(rc),
		                  rc);
	else if (!j)
		restd_reply_error(a->req, 404, "Invalid job id specified",
		                  ESLURM_INVALID_JOB_ID);
	else if (j->uid != a->u.uid && !is_admin(a->r, &a->u))
		restd_reply_error(a->req, 403, "only the job's owner may read its output",
		                  ESLURM_ACCESS_DENIED);
	else if (!j->batch_flag || !j->std_out || j->std_out[0] != '/')
		restd_reply_error(a->req, 404, "the job has no output file",
		                  ESLURM_INVALID_ARGUMENT);
	else
		start_reader(a, j->std_out);
	free(a);
}

void restd_output(struct restd *r, struct evhttp_request *req, const struct rest_user *u,
                  uint32_t job_id, size_t tail)
{
	struct ask *a = xcalloc(1, sizeof(*a));
	struct job_info_req *q = msg_body_new(MSG_JOB_INFO_REQ);

	a->r = r;
	a->req = req;
	a->u = *u;
	a->job_id = job_id;
	a->tail = tail;
	q->job_ids.v = xmalloc(sizeof(*q->job_ids.v));
	q->job_ids.v[0] = job_id;
	q->job_ids.n = 1;
	if (relay_call(r, u, MSG_JOB_INFO_REQ, q, answered, a) < 0) {
		restd_reply_error(req, 503, "the controller cannot be reached now",
		                  SLURM_ERROR);
		free(a);
	}
}

void restd_output_stop(struct restd *r)
{
	while (r->readers) {
		restd_reply_error(r->readers->req, 503, "rotarestd is stopping",
		                  SLURM_ERROR);
		reader_free(r->readers);
	}
}
