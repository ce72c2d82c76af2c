/* srun_io.c - the poll loop that runs while a step runs (see srun_io.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/jobctl.h"
#include "cli/jobopt.h"
#include "cli/srun_fence.h"
#include "cli/srun_io.h"
#include "cli/srun_mpir.h"
#include "common/conf.h"
#include "common/taskdist.h"
#include "common/linebuf.h"
#include "common/states.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define HELLO_TIMEOUT_MS 10000
#define HELLO_MAX_BODY   4096 /* before a connection proves itself */
#define STDIN_CHUNK      65536
#define STDIN_HIGH       (1u << 20) /* stop reading stdin above this backlog */
#define PENDING_MAX      256        /* connections not yet past their hello */

struct task {
	uint32_t node;   /* where it runs (io->nodes) */
	uint32_t status; /* wait status, valid when exited */
	int exited;
	int lost; /* its node went away without telling */
	struct linebuf lb[2];
};

struct node {
	uint32_t first, count; /* its ids: io->gtids[first..first+count) */
	int conn;              /* index in io->conns, -1 when none */
	int seen, closed;
	int stdin_eof_sent;
	int pids_seen; /* MSG_TASK_PIDS came */
};

struct conn {
	int fd;
	int node; /* -1 until MSG_IO_HELLO */
	long deadline;
	char *in;
	size_t in_len, in_cap;
	char *out;
	size_t out_len, out_off;
};

struct io {
	const struct srun_step *st;
	const struct srun_io_opts *o;
	struct task *tasks;
	uint32_t ntasks;
	uint32_t *gtids; /* each node's task ids, node after node (taskdist.h) */
	struct node *nodes;
	struct conn *conns;
	size_t nconns;
	size_t nodes_closed;
	int label_width;
	long stdin_task;  /* JOBOPT_IO_ALL: every task; JOBOPT_IO_NONE: nobody */
	int stdin_open;   /* still reading our stdin */
	int stdin_eof;    /* EOF reached (to be sent once the targets are there) */
	int out_dead[3];  /* our stdout/stderr went away */
	int aborting;     /* the step is being killed: signalled tasks are expected */
	int said_aborted; /* "Job step aborted" printed */
	int said_oom;     /* "Out Of Memory" printed (once, as Slurm) */
	int self_kill;    /* we ended the step (-K, -W): its killed tasks are errors */
	long abort_deadline;
	long wait_deadline; /* -W: when to end the step; 0: no task exited yet */
	int wait_fired;
	long last_intr, intr_sent;
	int force_exit;
	long attach_deadline;     /* sattach: nodes not seen by then are done */
	struct srun_fence *fence; /* --mpi=pmi2's fences (cli/srun_fence.h) */
	int mpir_done;            /* every node's pids are in (or never will be) */
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

const char *srun_io_host(char *host, size_t len)
{
	const char *h = getenv("ROTA_SRUN_HOST");
	const char *node = getenv("SLURMD_NODENAME");
	const struct conf_node *n;

	if (h && *h)
		return h;
	if (gethostname(host, len - 1) < 0)
		host[0] = '\0';
	host[len - 1] = '\0';
	n = conf_node_find(cli_conf(), node && *node ? node : host);
	if (n && n->addr && *n->addr)
		return n->addr;
	return host;
}

char *srun_io_ranges(const uint32_t *ids, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len;) {
		size_t j = i;
		int w;

		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		if (j == i)
			w = snprintf(buf + off, len - off, "%s%u", off ? "," : "",
			             ids[i]);
		else
			w = snprintf(buf + off, len - off, "%s%u-%u", off ? "," : "",
			             ids[i], ids[j]);
		if (w < 0)
			break;
		off += (size_t)w;
		i = j + 1;
	}
	return buf;
}

/* ---- our own stdout / stderr ---- */

static void out_write(struct io *io, int fd, const char *p, size_t n)
{
	/* stream fd (1, 2) goes to srun's own, or to its -o / -e file */
	int to = io->o->stream_fd[fd] > 0 ? io->o->stream_fd[fd] : fd;

	while (n > 0 && !io->out_dead[fd]) {
		ssize_t w = write(to, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = {.fd = to, .events = POLLOUT};
			poll(&pf, 1, 1000);
			continue;
		}
		if (w < 0) {
			io->out_dead[fd] = 1; /* EPIPE and the like: drop the rest */
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

struct emit_ctx {
	struct io *io;
	int fd;
	uint32_t task;
	int add_nl; /* end a labelled piece without its newline with one */
};

/* One line (or piece of one) of a task's output, labelled with --label. */
static void emit_line(const char *line, size_t len, void *arg)
{
	struct emit_ctx *c = arg;
	char small[1024], *buf = small;
	int pre;

	if (!c->io->o->label) {
		out_write(c->io, c->fd, line, len);
		return;
	}
	if (len + 32 > sizeof(small))
		buf = xmalloc(len + 32);
	pre = snprintf(buf, 32, "%*u: ", c->io->label_width, c->task);
	memcpy(buf + pre, line, len);
	if (c->add_nl && (!len || line[len - 1] != '\n'))
		buf[pre + len++] = '\n';
	out_write(c->io, c->fd, buf, (size_t)pre + len);
	if (buf != small)
		free(buf);
}

/* --unbuffered --label: each line of the chunk labelled, a piece without its
 * newline given one (as Slurm does), so every label starts a line. */
static void emit_chunk_labelled(struct emit_ctx *c, const char *p, size_t n)
{
	c->add_nl = 1;
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) + 1 : n;

		emit_line(p, len, c);
		p += len;
		n -= len;
	}
}

/* Line-buffered without labels: the whole lines of the chunk in one write,
 * the unfinished last one kept for later. */
static void emit_plain_lines(struct emit_ctx *c, struct linebuf *lb, const char *p,
                             size_t n)
{
	const char *nl = memrchr(p, '\n', n);

	if (nl) {
		size_t head = (size_t)(nl - p) + 1;

		linebuf_flush(lb, emit_line, c);
		out_write(c->io, c->fd, p, head);
		p += head;
		n -= head;
	}
	if (n)
		linebuf_feed(lb, p, n, emit_line, c);
}

static int wanted(long filter, uint32_t task)
{
	return filter == JOBOPT_IO_ALL || (filter >= 0 && (uint32_t)filter == task);
}

static void task_output(struct io *io, uint32_t task, uint32_t stream, const uint8_t *p,
                        size_t n)
{
	long filter = stream == 1 ? io->o->out_task : io->o->err_task;
	/* a labelled last line without its newline is given one, as Slurm does */
	struct emit_ctx c = {io, (int)stream, task, !n};
	struct linebuf *lb = &io->tasks[task].lb[stream - 1];

	if (!wanted(filter, task))
		return;
	if (!n)
		linebuf_flush(lb, emit_line, &c);
	else if (io->o->unbuffered && io->o->label)
		emit_chunk_labelled(&c, (const char *)p, n);
	else if (io->o->unbuffered)
		out_write(io, (int)stream, (const char *)p, n);
	else if (io->o->label)
		linebuf_feed(lb, (const char *)p, n, emit_line, &c);
	else
		emit_plain_lines(&c, lb, (const char *)p, n);
}

/* ---- connections ---- */

static void conn_queue(struct conn *c, uint16_t type, const void *body)
{
	char *buf = NULL;
	size_t len = 0;

	if (frame_pack(type, body, &buf, &len) < 0)
		fatal("out of memory");
	if (c->out_off && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	c->out = xrealloc(c->out, c->out_len + len);
	memcpy(c->out + c->out_len, buf, len);
	c->out_len += len;
	free(buf);
}

/* Does task t run on nd? */
static int task_on(const struct io *io, uint32_t t, const struct node *nd)
{
	return t < io->ntasks && &io->nodes[io->tasks[t].node] == nd;
}

static int node_takes_stdin(const struct io *io, const struct node *nd)
{
	if (io->stdin_task == JOBOPT_IO_ALL)
		return 1;
	return io->stdin_task >= 0 && io->stdin_task < (long)io->ntasks &&
	       &io->nodes[io->tasks[io->stdin_task].node] == nd;
}

/* n == 0: EOF, sent once per node. */
static void node_send_stdin(struct io *io, struct node *nd, const void *p, size_t n)
{
	struct io_data d = {.task = io->stdin_task == JOBOPT_IO_ALL
	                                ? IO_TASK_ALL
	                                : (uint32_t)io->stdin_task,
	                    .stream = 0};

	if (nd->conn < 0 || nd->stdin_eof_sent)
		return;
	d.data.data = (uint8_t *)p;
	d.data.len = (uint32_t)n;
	conn_queue(&io->conns[nd->conn], MSG_IO_DATA, &d);
	if (!n)
		nd->stdin_eof_sent = 1;
}

static void send_stdin(struct io *io, const void *p, size_t n)
{
	for (size_t i = 0; i < io->st->nnodes; i++)
		if (node_takes_stdin(io, &io->nodes[i]))
			node_send_stdin(io, &io->nodes[i], p, n);
}

static void print_exit(struct io *io, const struct node *nd, const uint32_t *ids,
                       size_t n, uint32_t status)
{
	const char *name = io->st->nodes[nd - io->nodes];
	char range[256];
	int sig;

	if (io->o->attach)
		return; /* srun says it */
	srun_io_ranges(ids, n, range, sizeof(range));
	if ((status & 0xff) == TASK_STATUS_OOM) {
		if (!io->said_oom)
			fprintf(stderr, "srun: error: %s: task%s %s: Out Of Memory\n",
			        name, n > 1 ? "s" : "", range);
		io->said_oom = 1;
		return;
	}
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status))
			fprintf(stderr,
			        "srun: error: %s: task%s %s: Exited with exit code %d\n",
			        name, n > 1 ? "s" : "", range, WEXITSTATUS(status));
		return;
	}
	sig = WTERMSIG(status);
	if (io->aborting && !io->self_kill && !io->o->verbose)
		return; /* the step was cancelled: expected */
	fprintf(stderr, "srun: %s%s: task%s %s: %s%s\n",
	        io->aborting && !io->self_kill ? "" : "error: ", name, n > 1 ? "s" : "",
	        range, strsignal(sig), WCOREDUMP(status) ? " (core dumped)" : "");
}

/* Signal the step: its part in each component's job. */
static void signal_step(const struct srun_step *st, uint32_t signal, uint32_t flags)
{
	if (!st->njob_ids)
		jobctl_signal_step(st->job_id, st->step_id, signal, flags);
	for (size_t k = 0; k < st->njob_ids; k++)
		jobctl_signal_step(st->job_ids[k], st->step_ids[k], signal, flags);
}

/* Is job_id.step_id one of the step's parts? */
static int step_part(const struct srun_step *st, uint32_t job_id, uint32_t step_id)
{
	for (size_t k = 0; k < st->njob_ids; k++)
		if (st->job_ids[k] == job_id && st->step_ids[k] == step_id)
			return 1;
	return job_id == st->job_id && step_id == st->step_id;
}

static void abort_step(struct io *io, uint32_t signal, uint32_t flags, long grace_ms)
{
	signal_step(io->st, signal, flags);
	if (!io->aborting || now_ms() + grace_ms < io->abort_deadline)
		io->abort_deadline = now_ms() + grace_ms;
	io->aborting = 1;
}

static long kill_grace(const struct io *io)
{
	return ((long)io->o->kill_wait + 2) * 1000L;
}

/* srun itself ends the step (-K, -W); the tasks it kills are reported as
 * errors, as Slurm does. */
static void terminate_step(struct io *io, uint32_t flags)
{
	fprintf(stderr, "srun: Terminating StepId=%u.%u\n", io->st->job_id,
	        io->st->step_id);
	io->self_kill = 1;
	abort_step(io, 0, flags, kill_grace(io));
}

static void on_task_exit(struct io *io, struct node *nd, const struct task_exit *te)
{
	uint32_t *ids = xcalloc(te->tasks.n + 1, sizeof(*ids));
	size_t n = 0;

	for (uint32_t i = 0; i < te->tasks.n; i++) {
		uint32_t t = te->tasks.v[i];
		if (!task_on(io, t, nd) || io->tasks[t].exited)
			continue;
		io->tasks[t].exited = 1;
		io->tasks[t].status = te->status;
		ids[n++] = t;
	}
	if (n)
		print_exit(io, nd, ids, n, te->status);
	free(ids);
	if (n && io->o->max_wait && !io->wait_deadline) {
		io->wait_deadline = now_ms() + (long)io->o->max_wait * 1000L;
		if (io->o->verbose)
			fprintf(stderr,
			        "srun: First task exited. Terminating job in %us\n",
			        io->o->max_wait);
	}
	if (n && te->status && io->o->kill_on_bad_exit && !io->aborting)
		terminate_step(io, CANCEL_F_TASK_FAILURE);
}

static int on_hello(struct io *io, struct conn *c, const struct io_hello *h)
{
	const struct srun_step *st = io->st;
	struct node *nd;

	if (!step_part(st, h->job_id, h->step_id) || h->node_index >= st->nnodes ||
	    h->key.len != st->key_len || !st->key_len ||
	    memcmp(h->key.data, st->key, st->key_len))
		return -1;
	nd = &io->nodes[h->node_index];
	if (nd->seen)
		return -1;
	nd->seen = 1;
	nd->conn = (int)(c - io->conns);
	c->node = (int)h->node_index;
	if (io->o->verbose)
		fprintf(stderr, "srun: Node %s, %u tasks started\n",
		        st->nodes[h->node_index], nd->count);
	if (io->stdin_eof && node_takes_stdin(io, nd))
		node_send_stdin(io, nd, "", 0);
	return 0;
}

/* ---- MPIR (cli/srun_mpir.h) ---- */

/* Once every node has sent its pids: the debugger's breakpoint, or the
 * table printed (--debugger-test); a node gone without them: none. */
static void mpir_check(struct io *io)
{
	const char *prog = io->o->attach ? "sattach" : "srun";
	int lost = 0;

	if (io->mpir_done)
		return;
	for (size_t i = 0; i < io->st->nnodes; i++) {
		if (!io->nodes[i].pids_seen && !io->nodes[i].closed)
			return;
		lost |= !io->nodes[i].pids_seen;
	}
	io->mpir_done = 1;
	if (!io->o->mpir_debugged && !io->o->mpir_dump && !io->o->attach)
		return;
	if (lost) {
		fprintf(stderr,
		        "%s: StepId=%u.%u aborted before step completely launched.\n",
		        prog, io->st->job_id, io->st->step_id);
		return;
	}
	srun_mpir_spawned(io->o->mpir_dump, prog);
	if (!io->o->mpir_debugged || io->o->mpir_dump || io->o->attach)
		return;
	for (size_t i = 0; i < io->st->nnodes; i++)
		if (io->nodes[i].conn >= 0)
			conn_queue(&io->conns[io->nodes[i].conn], MSG_DEBUG_WAKE,
			           &(struct empty_msg){0});
}

static void on_task_pids(struct io *io, struct node *nd, const struct task_pids *p)
{
	const char *host = io->st->nodes[nd - io->nodes];
	size_t nexes = 0;

	while (p->exes && p->exes[nexes])
		nexes++;
	for (uint32_t i = 0; i < p->tasks.n && i < p->pids.n; i++)
		if (task_on(io, p->tasks.v[i], nd))
			srun_mpir_task(p->tasks.v[i], host, (int)p->pids.v[i],
			               i < nexes ? p->exes[i] : NULL);
	nd->pids_seen = 1;
	mpir_check(io);
}

/* ---- PMI (stepd/pmi.h) ---- */

static void on_pmi_fence(struct io *io, struct node *nd, const struct pmi_fence *f)
{
	struct rota_error err = {""};
	struct pmi_fence done = {.seq = f->seq};
	uint8_t *all = NULL;
	size_t len = 0;
	int rc = srun_fence_add(io->fence, (size_t)(nd - io->nodes), f->seq, f->data.data,
	                        f->data.len, &all, &len, &err);

	if (rc < 0) {
		cli_error("%s", err.text);
		if (!io->aborting)
			terminate_step(io, 0);
		return;
	}
	if (!rc)
		return;
	done.data.data = all;
	done.data.len = (uint32_t)len;
	for (size_t i = 0; i < io->st->nnodes; i++)
		if (io->nodes[i].conn >= 0)
			conn_queue(&io->conns[io->nodes[i].conn], MSG_PMI_FENCE_DONE,
			           &done);
	free(all);
}

/* A task called PMI abort (MPI_Abort): the step ends, as Slurm kills it. */
static void on_pmi_abort(struct io *io, struct node *nd, const struct pmi_fence *a)
{
	if (io->o->verbose)
		fprintf(stderr, "srun: %s: a task called abort (exit code %u)%s%.*s\n",
		        io->st->nodes[nd - io->nodes], a->seq, a->data.len ? ": " : "",
		        (int)a->data.len, (const char *)a->data.data);
	if (io->aborting)
		return;
	io->self_kill = 1;
	abort_step(io, SIGKILL, 0, kill_grace(io));
}

/* One message from a connection; -1 drops the connection. */
static int on_message(struct io *io, struct conn *c, uint16_t type, void *body)
{
	struct node *nd = c->node >= 0 ? &io->nodes[c->node] : NULL;
	const struct io_data *d = body;

	if (!nd)
		return type == MSG_IO_HELLO ? on_hello(io, c, body) : -1;
	if (type == MSG_IO_DATA) {
		if (task_on(io, d->task, nd) && (d->stream == 1 || d->stream == 2))
			task_output(io, d->task, d->stream, d->data.data, d->data.len);
	} else if (type == MSG_TASK_EXIT) {
		on_task_exit(io, nd, body);
	} else if (type == MSG_PMI_FENCE) {
		on_pmi_fence(io, nd, body);
	} else if (type == MSG_PMI_ABORT) {
		on_pmi_abort(io, nd, body);
	} else if (type == MSG_TASK_PIDS) {
		on_task_pids(io, nd, body);
	} else {
		log_debug("ignoring %s from a stepd", msg_name(type));
	}
	return 0;
}

/* Parse whole frames out of c->in.  Returns -1 to drop the connection. */
static int conn_parse(struct io *io, struct conn *c)
{
	size_t off = 0;
	int rc = 0;

	while (c->in_len - off >= FRAME_HDR_LEN) {
		struct rota_error err = {""};
		uint16_t type;
		uint32_t blen;
		void *body = NULL;

		if (frame_parse_header((const uint8_t *)c->in + off, &type, &blen, &err) <
		        0 ||
		    (c->node < 0 && blen > HELLO_MAX_BODY)) {
			rc = -1;
			break;
		}
		if (c->in_len - off < FRAME_HDR_LEN + (size_t)blen)
			break;
		if (frame_decode_body(type, c->in + off + FRAME_HDR_LEN, blen, &body,
		                      &err) < 0) {
			log_debug("bad frame from a stepd: %s", err.text);
			rc = -1;
			break;
		}
		rc = on_message(io, c, type, body);
		msg_body_free(type, body);
		off += FRAME_HDR_LEN + blen;
		if (rc < 0)
			break;
	}
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	return rc;
}

static void conn_close(struct io *io, struct conn *c)
{
	struct node *nd = c->node >= 0 ? &io->nodes[c->node] : NULL;
	uint32_t *lost;
	size_t nlost = 0;
	char range[256];

	close(c->fd);
	c->fd = -1;
	free(c->in);
	free(c->out);
	c->in = c->out = NULL;
	c->in_len = c->in_cap = c->out_len = c->out_off = 0;
	if (!nd)
		return;
	lost = xcalloc(nd->count + 1, sizeof(*lost));
	nd->closed = 1;
	nd->conn = -1;
	io->nodes_closed++;
	for (uint32_t k = nd->first; k < nd->first + nd->count; k++) {
		uint32_t t = io->gtids[k];
		task_output(io, t, 1, NULL, 0);
		task_output(io, t, 2, NULL, 0);
		if (!io->tasks[t].exited) {
			io->tasks[t].exited = io->tasks[t].lost = 1;
			io->tasks[t].status = SIGKILL;
			lost[nlost++] = t;
		}
	}
	if (nlost && !io->aborting)
		fprintf(
		    stderr,
		    "srun: error: %s: task%s %s: the node's I/O connection closed before "
		    "the task's exit was reported\n",
		    io->st->nodes[c->node], nlost > 1 ? "s" : "",
		    srun_io_ranges(lost, nlost, range, sizeof(range)));
	free(lost);
	mpir_check(io);
}

static void conn_read(struct io *io, struct conn *c)
{
	ssize_t n;

	if (c->in_cap - c->in_len < 65536) {
		c->in_cap = c->in_len + 65536 * 2;
		c->in = xrealloc(c->in, c->in_cap);
	}
	n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		conn_parse(io, c);
		conn_close(io, c);
		return;
	}
	c->in_len += (size_t)n;
	if (conn_parse(io, c) < 0)
		conn_close(io, c);
}

static void conn_write(struct io *io, struct conn *c)
{
	ssize_t n =
	    send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0) {
		conn_close(io, c);
		return;
	}
	c->out_off += (size_t)n;
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
}

static void accept_conn(struct io *io)
{
	size_t pending = 0, slot;
	int fd = accept4(io->o->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	for (size_t i = 0; i < io->nconns; i++)
		pending += io->conns[i].fd >= 0 && io->conns[i].node < 0;
	if (pending >= PENDING_MAX) {
		close(fd);
		return;
	}
	for (slot = 0; slot < io->nconns && io->conns[slot].fd >= 0; slot++)
		;
	if (slot == io->nconns) {
		io->conns = xrealloc(io->conns, (io->nconns + 1) * sizeof(*io->conns));
		io->nconns++;
	}
	memset(&io->conns[slot], 0, sizeof(io->conns[slot]));
	io->conns[slot].fd = fd;
	io->conns[slot].node = -1;
	io->conns[slot].deadline = now_ms() + HELLO_TIMEOUT_MS;
}

/* ---- stdin ---- */

static void read_stdin(struct io *io)
{
	char buf[STDIN_CHUNK];
	ssize_t n = read(0, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		send_stdin(io, buf, (size_t)n);
		return;
	}
	io->stdin_open = 0; /* EOF, or an error (EIO in the background): EOF */
	if (io->o->attach)
		return; /* sattach's end of input is not the tasks' */
	io->stdin_eof = 1;
	send_stdin(io, "", 0);
}

/* Read our stdin once every node it goes to is connected (so that none misses
 * a byte) and none has a backlog; not once they have all gone. */
static int stdin_wanted(struct io *io)
{
	size_t open = 0;

	if (!io->stdin_open)
		return 0;
	for (size_t i = 0; i < io->st->nnodes; i++) {
		const struct node *nd = &io->nodes[i];
		const struct conn *c;

		if (!node_takes_stdin(io, nd) || nd->closed)
			continue;
		if (nd->conn < 0)
			return 0;
		c = &io->conns[nd->conn];
		if (c->out_len - c->out_off >= STDIN_HIGH)
			return 0;
		open++;
	}
	return open > 0;
}

/* ---- signals ---- */

static void print_status(struct io *io)
{
	static const char *const what[] = {"running", "exited", "exited abnormally",
	                                   "unknown"};
	uint32_t *ids = xcalloc(io->ntasks + 1, sizeof(*ids));
	char range[256];

	for (int w = 0; w < 4; w++) {
		size_t n = 0;

		for (uint32_t t = 0; t < io->ntasks; t++) {
			const struct task *tk = &io->tasks[t];
			int s = tk->lost ? 3 : !tk->exited ? 0 : tk->status ? 2 : 1;
			if (s == w)
				ids[n++] = t;
		}
		if (n)
			fprintf(stderr, "srun: StepId=%u.%u task%s %s: %s\n",
			        io->st->job_id, io->st->step_id, n > 1 ? "s" : "",
			        srun_io_ranges(ids, n, range, sizeof(range)), what[w]);
	}
	free(ids);
}

static void on_sigint(struct io *io)
{
	long now = now_ms();

	if (io->o->attach) { /* sattach leaves; the step goes on */
		io->force_exit = 1;
		return;
	}
	if (io->o->quit_on_interrupt) { /* Ctrl-C to the tasks, then the end */
		fprintf(stderr, "srun: sending Ctrl-C to StepId=%u.%u\n", io->st->job_id,
		        io->st->step_id);
		signal_step(io->st, SIGINT, 0);
		fprintf(stderr, "srun: forcing job termination\n");
		abort_step(io, 0, 0, 2000);
	} else if (io->intr_sent && now - io->intr_sent < 1000) {
		fprintf(stderr, "srun: forcing job termination\n");
		abort_step(io, 0, 0, 0);
		io->force_exit = 1;
	} else if (io->o->disable_status ||
	           (io->last_intr && now - io->last_intr < 1000)) {
		fprintf(stderr, "srun: sending Ctrl-C to StepId=%u.%u\n", io->st->job_id,
		        io->st->step_id);
		signal_step(io->st, SIGINT, 0);
		io->intr_sent = now;
		io->aborting = 1;
		io->abort_deadline = now + kill_grace(io) + 30000;
	} else {
		fprintf(stderr, "srun: interrupt (one more within 1 sec to abort)\n");
		print_status(io);
		io->last_intr = now;
	}
}

/* --pty: our terminal's new size to task 0's node. */
static void send_winsize(struct io *io)
{
	struct winsize ws;
	struct io_winsize w;

	if (!io->o->pty || ioctl(0, TIOCGWINSZ, &ws) < 0 || !ws.ws_row)
		return;
	w = (struct io_winsize){.rows = ws.ws_row, .cols = ws.ws_col};
	for (size_t i = 0; i < io->st->nnodes; i++) {
		const struct node *nd = &io->nodes[i];
		if (io->ntasks && io->tasks[0].node == i && nd->conn >= 0)
			conn_queue(&io->conns[nd->conn], MSG_IO_WINSIZE, &w);
	}
}

/* SIGTERM, SIGHUP, SIGQUIT: srun ends the step at once, SIGKILL to its
 * tasks (stopped ones too: a debugger's), in Slurm's words. */
static void force_termination(struct io *io, int sig)
{
	if (sig == SIGQUIT)
		fprintf(stderr, "srun: Quit\n");
	fprintf(stderr, "srun: forcing job termination\n");
	signal_step(io->st, SIGKILL, 0);
}

static void on_signal(struct io *io)
{
	int sig;

	while ((sig = jobctl_signal_read(io->o->sig_fd)) > 0) {
		if (sig == SIGINT || (io->o->attach && sig != SIGWINCH))
			on_sigint(io); /* sattach: any signal detaches */
		else if (sig == SIGWINCH)
			send_winsize(io);
		else if (sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT)
			force_termination(io, sig);
		else
			signal_step(io->st, (uint32_t)sig, 0);
	}
}

/* ---- the controller ---- */

/* The controller ended the step: wait KillWait + 2 s for its tasks. */
static void step_aborted(struct io *io)
{
	if (!io->said_aborted)
		fprintf(stderr,
		        "srun: Job step aborted: Waiting up to %u seconds for job "
		        "step to finish.\n",
		        io->o->kill_wait + 2);
	io->said_aborted = 1;
	if (!io->aborting || now_ms() + kill_grace(io) < io->abort_deadline)
		io->abort_deadline = now_ms() + kill_grace(io);
	io->aborting = 1;
}

static int on_ctl(struct io *io)
{
	struct rota_error err = {""};
	uint16_t type = 0;
	void *body = NULL;
	const char *msg = NULL;
	int rc = net_recv(io->o->ctl_fd, &type, &body, 5000, &err);

	if (rc < 0) {
		if (io->o->ctl_is_alloc)
			step_aborted(io);
		return -1; /* stop watching */
	}
	if (type == MSG_USER_MSG) { /* scontrol notify */
		cli_user_msg(body);
		msg_body_free(type, body);
		return 0;
	}
	/* ESLURM_ALREADY_DONE: the job or this step was cancelled or timed out;
	 * the stepds say which ("*** STEP ... CANCELLED AT ...") */
	if (type == MSG_RC && (rc = cli_rc(type, body, &msg)) == ESLURM_ALREADY_DONE) {
		step_aborted(io);
	} else if (rc) {
		cli_error("%s", msg);
		io->aborting = 1;
		io->abort_deadline = now_ms() + kill_grace(io);
	}
	msg_body_free(type, body);
	return 0;
}

/* ---- the loop ---- */

/* -W: once max_wait seconds have passed since the first task exited, end the
 * step if some task still runs.  Returns the ms until that check is due (or
 * LONG_MAX when there is none). */
static long check_max_wait(struct io *io)
{
	long left;

	if (!io->wait_deadline || io->wait_fired)
		return LONG_MAX;
	left = io->wait_deadline - now_ms();
	if (left > 0)
		return left;
	io->wait_fired = 1;
	if (io->aborting)
		return LONG_MAX;
	for (uint32_t t = 0; t < io->ntasks; t++) {
		if (io->tasks[t].exited)
			continue;
		fprintf(stderr, "srun: First task exited %us ago\n", io->o->max_wait);
		print_status(io);
		terminate_step(io, 0);
		break;
	}
	return LONG_MAX;
}

static int io_done(struct io *io)
{
	if (io->force_exit)
		return 1;
	if (io->o->attach && now_ms() >= io->attach_deadline) {
		for (size_t i = 0; i < io->st->nnodes; i++)
			if (!io->nodes[i].seen) { /* never came: nothing runs there */
				io->nodes[i].seen = io->nodes[i].closed = 1;
				io->nodes_closed++;
			}
		mpir_check(io);
	}
	if (io->nodes_closed == io->st->nnodes)
		return 1;
	return io->aborting && now_ms() >= io->abort_deadline;
}

/* Exit code (and wait status) from what the tasks did. */
static int exit_code(const struct io *io, uint32_t *ret_status)
{
	int best = -1;
	uint32_t status = 1 << 8;

	for (uint32_t t = 0; t < io->ntasks; t++) {
		const struct task *tk = &io->tasks[t];
		int code;

		if (!tk->exited)
			continue;
		code = WIFEXITED(tk->status) ? WEXITSTATUS(tk->status)
		                             : 128 + WTERMSIG(tk->status);
		if (code > best) {
			best = code;
			status = tk->status;
		}
	}
	*ret_status = status;
	if (best < 0 && io->o->attach)
		return 0; /* sattach left before any task ended */
	return best < 0 ? 1 : best;
}

static void io_init(struct io *io, const struct srun_step *st,
                    const struct srun_io_opts *o)
{
	uint32_t first = 0;

	memset(io, 0, sizeof(*io));
	io->st = st;
	io->o = o;
	io->nodes = xcalloc(st->nnodes + 1, sizeof(*io->nodes));
	for (size_t i = 0; i < st->nnodes; i++) {
		io->nodes[i].first = first;
		io->nodes[i].count = st->tasks[i];
		io->nodes[i].conn = -1;
		first += st->tasks[i];
	}
	io->ntasks = first;
	io->tasks = xcalloc(first + 1, sizeof(*io->tasks));
	io->gtids = xcalloc(first + 1, sizeof(*io->gtids));
	taskdist_gtids_map(st->task_dist, st->tasks, (uint32_t)st->nnodes, st->task_map,
	                   st->ntask_map, io->gtids);
	for (size_t i = 0; i < st->nnodes; i++)
		for (uint32_t k = io->nodes[i].first;
		     k < io->nodes[i].first + io->nodes[i].count; k++)
			if (io->gtids[k] < first)
				io->tasks[io->gtids[k]].node = (uint32_t)i;
	io->label_width = 1;
	for (uint32_t n = first ? first - 1 : 0; n >= 10; n /= 10)
		io->label_width++;
	io->stdin_task = o->in_task;
	if (io->stdin_task >= (long)io->ntasks)
		io->stdin_task = JOBOPT_IO_NONE; /* nobody */
	io->stdin_open = io->stdin_task != JOBOPT_IO_NONE;
	io->stdin_eof = o->in_task == JOBOPT_IO_NONE;
	if (io->stdin_eof)
		io->stdin_task = 0;
	io->fence = srun_fence_create(st->nnodes);
	srun_mpir_begin(first, st->job_id, st->step_id);
	io->attach_deadline = now_ms() + (o->attach_wait_ms ? o->attach_wait_ms : 10000);
}

static void io_release(struct io *io)
{
	io->mpir_done = 1; /* what was not in by now is not awaited */
	for (size_t i = 0; i < io->nconns; i++)
		if (io->conns[i].fd >= 0)
			conn_close(io, &io->conns[i]);
	for (uint32_t t = 0; t < io->ntasks; t++) {
		linebuf_release(&io->tasks[t].lb[0]);
		linebuf_release(&io->tasks[t].lb[1]);
	}
	free(io->conns);
	free(io->tasks);
	free(io->gtids);
	free(io->nodes);
	srun_fence_destroy(io->fence);
	srun_mpir_end();
}

/* Drop connections that did not say hello in time. */
static long expire_hellos(struct io *io)
{
	long now = now_ms(), next = now + 1000;

	for (size_t i = 0; i < io->nconns; i++) {
		struct conn *c = &io->conns[i];
		if (c->fd < 0 || c->node >= 0)
			continue;
		if (c->deadline <= now)
			conn_close(io, c);
		else if (c->deadline < next)
			next = c->deadline;
	}
	return next - now;
}

int srun_io_run(const struct srun_step *st, const struct srun_io_opts *o,
                uint32_t *ret_status)
{
	struct io io;
	struct pollfd *pf = NULL;
	int ctl_fd = o->ctl_fd, code;

	io_init(&io, st, o);
	while (!io_done(&io)) {
		size_t n = 0, cap = io.nconns + 4;
		long timeout = expire_hellos(&io), wait_left = check_max_wait(&io);
		int rc;

		pf = xrealloc(pf, cap * sizeof(*pf));
		pf[n++] = (struct pollfd){.fd = o->listen_fd, .events = POLLIN};
		pf[n++] = (struct pollfd){.fd = o->sig_fd, .events = POLLIN};
		pf[n++] = (struct pollfd){.fd = ctl_fd, .events = POLLIN};
		pf[n++] =
		    (struct pollfd){.fd = stdin_wanted(&io) ? 0 : -1, .events = POLLIN};
		for (size_t i = 0; i < io.nconns; i++) {
			struct conn *c = &io.conns[i];
			short ev = POLLIN | (c->out_len > c->out_off ? POLLOUT : 0);
			pf[n++] =
			    (struct pollfd){.fd = c->fd, .events = c->fd >= 0 ? ev : 0};
		}
		if (io.aborting && io.abort_deadline - now_ms() < timeout)
			timeout = io.abort_deadline - now_ms();
		if (wait_left < timeout)
			timeout = wait_left;
		rc = poll(pf, n, timeout < 0 ? 0 : (int)timeout);
		if (rc < 0 && errno != EINTR)
			fatal("poll: %s", strerror(errno));
		if (rc <= 0)
			continue;
		if (pf[1].revents)
			on_signal(&io);
		if (pf[2].revents && on_ctl(&io) < 0)
			ctl_fd = -1;
		if (pf[3].revents)
			read_stdin(&io);
		for (size_t i = 0; i < io.nconns && 4 + i < n; i++) {
			struct conn *c = &io.conns[i];
			short re = pf[4 + i].revents;

			if (c->fd < 0 || c->fd != pf[4 + i].fd)
				continue;
			if (re & POLLOUT)
				conn_write(&io, c);
			if (c->fd >= 0 && (re & (POLLIN | POLLHUP | POLLERR)))
				conn_read(&io, c);
		}
		if (pf[0].revents & POLLIN)
			accept_conn(&io);
	}
	free(pf);
	code = exit_code(&io, ret_status);
	io_release(&io);
	return code;
}
