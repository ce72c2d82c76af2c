/* io.c - a step's standard streams <-> srun.
 *
 * Task output is read from pipes and sent as MSG_IO_DATA {global task, stream,
 * bytes} as it comes (srun labels lines); an empty MSG_IO_DATA is that stream's
 * EOF, sent exactly once per task and stream (at once for streams that go to
 * files).  MSG_TASK_EXIT follows a task's EOFs, so srun has all of a task's
 * output before it hears how it ended.  stdin (stream 0 from srun) goes to the
 * task it names (IO_TASK_ALL: every task here), if that task has a stdin pipe
 * (task 0, srun -i N's task, or all with STEP_F_STDIN_ALL).  When srun is
 * slow, pipes are not polled (the tasks block on write); when a task is slow
 * to read stdin, the srun link is not read.  If srun goes away the step keeps
 * running and its output is discarded.  With srun -l and output files of the
 * task's own (-o out.%t), the lines go labelled into those files here
 * (stepd_task.out_file), as Slurm's step daemon writes them; srun gets only
 * the EOFs.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proto/messages.h"
#include "proto/net.h"
#include "stepd/msglink.h"
#include "stepd/pmi.h"
#include "stepd/stepd.h"
#include "common/common.h"

#define IO_OUT_HIGH  (4u << 20) /* stop reading task output above this backlog */
#define IO_IN_HIGH   (1u << 20) /* stop reading srun above this much pending stdin */
#define IO_READ_SIZE 65536

void io_connect(struct stepd *st)
{
	const struct launch_req *req = st->req;
	struct rota_error err = {""};
	struct io_hello hello = {
	    .job_id = req->job_id,
	    .step_id = req->step_id,
	    .node_index = req->node_index,
	    .node_name = req->node_name,
	    .key = req->io_key,
	};
	int fd;

	if (st->batch || !req->io_host || !req->io_port)
		return;
	fd = net_connect_tcp(req->io_host, (uint16_t)req->io_port, 10000, &err);
	if (fd < 0) {
		log_err("JobId=%u StepId=%u cannot reach srun, output is discarded: %s",
		        req->job_id, req->step_id, err.text);
		return;
	}
	st->io = msglink_create(fd, "srun");
	msglink_send(st->io, MSG_IO_HELLO, &hello);
}

#define ATTACH_PENDING_MAX (16u << 20) /* a sattach this far behind is dropped */

/* Marked here, destroyed by io_attach_reap: the poll set of this round
 * still names links by their place. */
static void attach_drop(struct stepd *st, uint32_t i, const char *why)
{
	if (st->attach_dead[i])
		return;
	log_info("JobId=%u StepId=%u sattach connection closed: %s", st->req->job_id,
	         st->req->step_id, why);
	st->attach_dead[i] = 1;
}

void io_attach_reap(struct stepd *st)
{
	for (uint32_t i = 0; i < st->nattach;) {
		if (!st->attach_dead[i]) {
			i++;
			continue;
		}
		msglink_destroy(st->attach[i]);
		st->nattach--;
		st->attach[i] = st->attach[st->nattach];
		st->attach_dead[i] = st->attach_dead[st->nattach];
		st->attach[st->nattach] = NULL;
		st->attach_dead[st->nattach] = 0;
	}
}

/* To srun and every sattach. */
static void send_all(struct stepd *st, uint16_t type, const void *body)
{
	if (st->io)
		msglink_send(st->io, type, body);
	for (uint32_t i = 0; i < st->nattach; i++)
		if (!st->attach_dead[i] &&
		    (msglink_send(st->attach[i], type, body) < 0 ||
		     msglink_pending(st->attach[i]) > ATTACH_PENDING_MAX))
			attach_drop(st, i, "it does not keep up");
}

static void send_data(struct stepd *st, uint32_t gtid, uint32_t stream, const void *p,
                      size_t n)
{
	struct io_data d = {.task = gtid, .stream = stream};

	d.data.data = (uint8_t *)p;
	d.data.len = (uint32_t)n;
	send_all(st, MSG_IO_DATA, &d);
}

static void pipe_finish(struct stepd *st, struct stepd_task *t, int stream);

/* MSG_TASK_PIDS to l (srun's link or a sattach's). */
static void send_pids(struct stepd *st, struct msglink *l)
{
	struct task_pids p;

	if (!st->started || !l)
		return;
	pdebug_pids(st, &p);
	msglink_send(l, MSG_TASK_PIDS, &p);
	pdebug_pids_release(&p);
}

void io_launched(struct stepd *st)
{
	send_pids(st, st->io);
	for (uint32_t i = 0; i < st->ntasks && (st->io || st->nattach); i++) {
		if (st->tasks[i].out_fd < 0)
			send_data(st, st->tasks[i].gtid, 1, "", 0);
		if (st->tasks[i].err_fd < 0)
			send_data(st, st->tasks[i].gtid, 2, "", 0);
	}
}

int io_want_output(const struct stepd *st)
{
	return !st->io || msglink_pending(st->io) < IO_OUT_HIGH;
}

/* Whether the tasks have more stdin queued than they should: srun's and
 * sattach's links are then not read. */
static int stdin_backlogged(const struct stepd *st)
{
	size_t pending = 0;

	for (uint32_t i = 0; i < st->ntasks; i++)
		pending += st->tasks[i].in_len;
	return pending > IO_IN_HIGH;
}

short io_link_events(struct stepd *st)
{
	if (!st->io)
		return 0;
	msglink_pause(st->io, stdin_backlogged(st));
	return msglink_events(st->io);
}

static void stdin_close(struct stepd_task *t)
{
	if (t->in_fd >= 0)
		close(t->in_fd);
	t->in_fd = -1;
	free(t->in_buf);
	t->in_buf = NULL;
	t->in_len = 0;
}

static void on_stdin_data(struct stepd *st, const struct io_data *d)
{
	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct stepd_task *t = &st->tasks[i];

		if ((d->task != IO_TASK_ALL && t->gtid != d->task) || t->in_fd < 0)
			continue;
		if (!d->data.len) {
			if (t->pty && !t->in_eof) { /* EOF on a terminal is ^D */
				t->in_buf = xrealloc(t->in_buf, t->in_len + 1);
				t->in_buf[t->in_len++] = 4;
			}
			t->in_eof = 1;
			if (!t->in_len)
				stdin_close(t);
			continue;
		}
		t->in_buf = xrealloc(t->in_buf, t->in_len + d->data.len);
		memcpy(t->in_buf + t->in_len, d->data.data, d->data.len);
		t->in_len += d->data.len;
	}
}

/* srun --pty's terminal was resized: so is task 0's (its foreground process
 * group gets SIGWINCH). */
static void on_winsize(struct stepd *st, const struct io_winsize *w)
{
	struct winsize ws = {.ws_row = (unsigned short)w->rows,
	                     .ws_col = (unsigned short)w->cols};

	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].pty && st->tasks[i].out_fd >= 0)
			ioctl(st->tasks[i].out_fd, TIOCSWINSZ, &ws);
}

static void on_io_msg(struct msglink *l, uint16_t type, void *body, void *arg)
{
	struct stepd *st = arg;
	const struct io_data *d = body;

	if (type == MSG_IO_DATA && d->stream == 0)
		on_stdin_data(st, d);
	else if (type == MSG_IO_WINSIZE)
		on_winsize(st, body);
	else if (type == MSG_PMI_FENCE_DONE)
		pmi_on_fence_done(st, body);
	else if (type == MSG_DEBUG_WAKE)
		pdebug_wake(st);
	else
		log_debug("ignoring %s from srun", msg_name(type));
}

void io_on_link(struct stepd *st, short revents)
{
	if (msglink_handle(st->io, revents, on_io_msg, st) == 0)
		return;
	log_info("JobId=%u StepId=%u srun closed the I/O connection", st->req->job_id,
	         st->req->step_id);
	msglink_destroy(st->io);
	st->io = NULL;
	for (uint32_t i = 0; i < st->ntasks; i++)
		stdin_close(&st->tasks[i]);
}

void io_on_stdin(struct stepd *st, struct stepd_task *t, short revents)
{
	ssize_t n;

	if (t->in_fd < 0)
		return;
	if (revents & (POLLERR | POLLHUP)) { /* the task closed its stdin */
		stdin_close(t);
		return;
	}
	n = write(t->in_fd, t->in_buf, t->in_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		stdin_close(t);
		return;
	}
	memmove(t->in_buf, t->in_buf + n, t->in_len - (size_t)n);
	t->in_len -= (size_t)n;
	if (!t->in_len && t->in_eof)
		stdin_close(t);
}

/* ---- srun -l's own output files (stepd_task.out_file) ---- */

struct label_ctx {
	int fd;
	char label[16];
	size_t len;
	int add_nl; /* the stream's end: a last line without '\n' gets one */
};

static void label_emit(const char *line, size_t len, void *arg)
{
	const struct label_ctx *c = arg;
	struct iovec v[3] = {{(void *)c->label, c->len}, {(void *)line, len}, {"\n", 1}};
	int nl = c->add_nl && (!len || line[len - 1] != '\n');

	/* a full disk loses lines, as it would the task's own writes */
	if (writev(c->fd, v, nl ? 3 : 2) < 0)
		log_debug("labelled output: %s", strerror(errno));
}

/* Task t's label as srun -l writes it: its id, as wide as the step's
 * highest. */
static void label_ctx_init(const struct stepd *st, const struct stepd_task *t, int fd,
                           struct label_ctx *c)
{
	int width = 1;

	for (uint32_t n = st->req->step_num_tasks ? st->req->step_num_tasks - 1 : 0;
	     n >= 10; n /= 10)
		width++;
	c->fd = fd;
	c->add_nl = 0;
	c->len = (size_t)snprintf(c->label, sizeof(c->label), "%*u: ", width, t->gtid);
}

/* The task's bytes: to its labelled file when it has one, else to srun. */
static void task_data(struct stepd *st, struct stepd_task *t, int stream, const char *p,
                      size_t n)
{
	int fd = stream == 1 ? t->out_file : t->err_file;
	struct label_ctx c;

	if (fd < 0) {
		send_data(st, t->gtid, (uint32_t)stream, p, n);
		return;
	}
	label_ctx_init(st, t, fd, &c);
	linebuf_feed(&t->lb[stream - 1], p, n, label_emit, &c);
}

static void pipe_eof(struct stepd *st, struct stepd_task *t, int stream)
{
	int *fd = stream == 1 ? &t->out_fd : &t->err_fd;
	int *file = stream == 1 ? &t->out_file : &t->err_file;

	close(*fd);
	*fd = -1;
	if (*file >= 0) { /* the last line, labelled, as it is */
		struct label_ctx c;
		label_ctx_init(st, t, *file, &c);
		c.add_nl = 1;
		linebuf_flush(&t->lb[stream - 1], label_emit, &c);
		linebuf_release(&t->lb[stream - 1]);
		close(*file);
		*file = -1;
	}
	send_data(st, t->gtid, (uint32_t)stream, "", 0);
}

void io_on_pipe(struct stepd *st, struct stepd_task *t, int stream)
{
	int fd = stream == 1 ? t->out_fd : t->err_fd;
	char buf[IO_READ_SIZE];
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 && t->pty && !t->exited) {
		/* no slave open for now (EIO): closing the master would hang the
		 * terminal up under the task; wait for its end */
		t->pty_idle = 1;
		return;
	}
	if (n <= 0) {
		pipe_eof(st, t, stream);
		return;
	}
	task_data(st, t, stream, buf, (size_t)n);
}

/* Take what is buffered in a pipe, then close it (a process that escaped the
 * task's group may still hold its write end). */
static void pipe_finish(struct stepd *st, struct stepd_task *t, int stream)
{
	int *fd = stream == 1 ? &t->out_fd : &t->err_fd;
	char buf[IO_READ_SIZE];
	ssize_t n;

	if (*fd < 0)
		return;
	while ((n = read(*fd, buf, sizeof(buf))) > 0)
		task_data(st, t, stream, buf, (size_t)n);
	pipe_eof(st, t, stream);
}

void io_report_exits(struct stepd *st)
{
	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct stepd_task *t = &st->tasks[i];
		struct task_exit te = {.status = (uint32_t)t->status,
		                       .node_name = st->req->node_name};

		if (t->exited && t->pty_idle && t->out_fd >= 0)
			pipe_finish(st, t, 1);
		if (!t->exited || t->reported || t->out_fd >= 0 || t->err_fd >= 0 ||
		    t->epilog)
			continue;
		t->reported = 1;
		if (task_oom_killed(st, t)) {
			t->status = (int)TASK_STATUS_OOM;
			te.status = TASK_STATUS_OOM;
		}
		te.tasks.v = &t->gtid;
		te.tasks.n = 1;
		send_all(st, MSG_TASK_EXIT, &te);
	}
}

int io_drained(const struct stepd *st)
{
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].out_fd >= 0 || st->tasks[i].err_fd >= 0)
			return 0;
	return 1;
}

/* ---- sattach ---- */

void io_attach(struct stepd *st, const struct step_attach *req)
{
	struct rota_error err = {""};
	struct io_hello hello = {
	    .job_id = st->req->job_id,
	    .step_id = st->req->step_id,
	    .node_index = st->req->node_index,
	    .node_name = st->req->node_name,
	    .key = req->io_key,
	};
	struct msglink *l;
	int fd;

	if (st->batch || req->job_id != st->req->job_id ||
	    req->step_id != st->req->step_id)
		return;
	if (st->nattach == STEPD_ATTACH_MAX) {
		log_err("JobId=%u StepId=%u sattach refused: %d are attached already",
		        st->req->job_id, st->req->step_id, STEPD_ATTACH_MAX);
		return;
	}
	fd = net_connect_tcp(req->io_host, (uint16_t)req->io_port, 3000, &err);
	if (fd < 0) {
		log_err("JobId=%u StepId=%u cannot reach sattach: %s", st->req->job_id,
		        st->req->step_id, err.text);
		return;
	}
	l = msglink_create(fd, "sattach");
	msglink_send(l, MSG_IO_HELLO, &hello);
	send_pids(st, l);
	for (uint32_t i = 0; i < st->ntasks; i++) { /* what is over already */
		struct stepd_task *t = &st->tasks[i];
		struct io_data d = {.task = t->gtid};
		struct task_exit te = {.status = (uint32_t)t->status,
		                       .node_name = st->req->node_name,
		                       .tasks = {&t->gtid, 1}};
		for (d.stream = 1; d.stream <= 2; d.stream++)
			if ((d.stream == 1 ? t->out_fd : t->err_fd) < 0)
				msglink_send(l, MSG_IO_DATA, &d);
		if (t->reported)
			msglink_send(l, MSG_TASK_EXIT, &te);
	}
	st->attach[st->nattach++] = l;
	log_info("JobId=%u StepId=%u sattach attached from %s", st->req->job_id,
	         st->req->step_id, req->io_host);
}

int io_attach_fd(const struct stepd *st, uint32_t i, short *events)
{
	if (i >= st->nattach)
		return -1;
	msglink_pause(st->attach[i], stdin_backlogged(st)); /* as srun's link */
	*events = msglink_events(st->attach[i]);
	return msglink_fd(st->attach[i]);
}

/* From sattach: stdin for the tasks, nothing else (fences are srun's). */
static void on_attach_msg(struct msglink *l, uint16_t type, void *body, void *arg)
{
	const struct io_data *d = body;

	if (type == MSG_IO_DATA && d->stream == 0)
		on_stdin_data(arg, d);
	else
		log_debug("ignoring %s from sattach", msg_name(type));
}

void io_on_attach(struct stepd *st, uint32_t i, short revents)
{
	if (i >= st->nattach || st->attach_dead[i])
		return;
	if (msglink_handle(st->attach[i], revents, on_attach_msg, st) < 0)
		attach_drop(st, i, "it went away");
}

/* Half-close the srun link and read what srun still sends (its stdin EOF, say)
 * until it closes too, at most 2 s: closing with unread input would reset the
 * connection and could destroy output srun has not read yet. */
static void io_linger(struct msglink *l)
{
	int fd = msglink_fd(l);
	char buf[4096];

	if (shutdown(fd, SHUT_WR) < 0)
		return;
	for (int i = 0; i < 100; i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;
		if (poll(&p, 1, 20) < 0 && errno != EINTR)
			return;
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return;
	}
}

void io_finish(struct stepd *st)
{
	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct stepd_task *t = &st->tasks[i];
		pipe_finish(st, t, 1);
		pipe_finish(st, t, 2);
		stdin_close(t);
	}
	io_report_exits(st);
	io_attach_reap(st);
	while (st->nattach) { /* a little time each: sattach is not srun */
		msglink_flush(st->attach[st->nattach - 1], 2000);
		msglink_destroy(st->attach[--st->nattach]);
	}
	if (st->io && msglink_flush(st->io, 10000) < 0)
		log_err("JobId=%u StepId=%u could not hand all output to srun",
		        st->req->job_id, st->req->step_id);
	if (st->io)
		io_linger(st->io);
	msglink_destroy(st->io);
	st->io = NULL;
}
