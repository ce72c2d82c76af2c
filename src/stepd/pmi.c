/* pmi.c - the step's PMI-1/PMI-2 server (see pmi.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ftw.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "proto/messages.h"
#include "stepd/msglink.h"
#include "stepd/pmi.h"
#include "stepd/pmi_kvs.h"
#include "stepd/stepd.h"
#include "common/conf.h"
#include "common/taskdist.h"
#include "common/hostlist.h"
#include "proto/net.h"
#include "common/strv.h"
#include "common/common.h"

#define PMI_LINE_MAX  (PMI_KVS_VAL_MAX + PMI_KVS_KEY_MAX + 512) /* PMI-1 */
#define PMI2_HDR_LEN  6
#define PMI2_BODY_MAX (4 * PMI_KVS_VAL_MAX + 1024)
#define PMI_OUT_MAX   (1u << 20) /* a client that does not read is dropped */
#define PMI_ARGS_MAX  64

enum wire { WIRE_NEW, WIRE_PMI1, WIRE_PMI2 };

struct client {
	char **env;   /* the task's PMI variables, "NAME=value" */
	int fd;       /* our end, -1 once closed */
	int child_fd; /* the task's end until its fork */
	enum wire wire;
	int in_fence;
	int spawn_lines; /* PMI-1 mcmd=spawn: skipping to endcmd */
	char *wait_key;  /* PMI-2 info-getnodeattr wait=TRUE, not yet there */
	char *in;
	size_t in_len;
	char *out;
	size_t out_len, out_off;
};

struct pmi {
	struct client *c; /* one per local task */
	uint32_t n;
	uint32_t size, nnodes;
	char jobid[32];          /* "job.step": PMI_JOBID, the KVS name */
	char *mapping;           /* PMI_process_mapping */
	struct pmi_kvs *kvs;     /* every node's puts, as of the last fence */
	struct pmi_kvs *pending; /* this node's puts since */
	struct pmi_kvs *node_attr;
	uint32_t seq;     /* the fence under way */
	uint32_t fencing; /* local tasks in it */
	int sent;         /* our part is with srun */
	/* --mpi=pmix: the PMIx server process (src/pmix/rotapmix.c) */
	int pmix;
	int as_root; /* the step daemon switches users: cleanup as the user */
	uid_t uid;
	gid_t gid;
	pid_t helper;
	struct msglink *link;
	char *tmpdir;
};

/* One parsed request: key=value pairs (pointing into the request). */
struct args {
	const char *key[PMI_ARGS_MAX], *val[PMI_ARGS_MAX];
	int n;
};

static const char *arg(const struct args *a, const char *key)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->key[i], key))
			return a->val[i];
	return NULL;
}

static const char *arg_or(const struct args *a, const char *key, const char *dflt)
{
	const char *v = arg(a, key);
	return v ? v : dflt;
}

/* ---- setup ---- */

const char *pmi_type(const struct stepd *st)
{
	const char *t = NULL;

	for (size_t i = 0; st->req->env && st->req->env[i]; i++)
		if (!strncmp(st->req->env[i], "SLURM_MPI_TYPE=", 15))
			t = st->req->env[i] + 15;
	if (!t || !*t)
		t = st->conf->mpi_default;
	return t && strcasecmp(t, "none") ? t : NULL;
}

/* MPICH's "(vector,(first node,nodes,ranks each),...)": the ranks in order,
 * each run of ranks on one node a (node,1,run) that neighbours with the same
 * run on the next nodes join.  MPICH repeats the list until every rank is
 * placed, so the shortest beginning of it that does so is enough (cyclic:
 * "(vector,(0,N,1))").  NULL (no such attribute: MPICH then finds its
 * node-local peers by host name) when it would not fit MPICH's 1024-byte
 * values. */
#define MAPPING_MAX 1000

struct map_entry {
	uint32_t node, nodes, run;
};

/* Does repeating e[0..n) place every rank on node_of[]? */
static int entries_tile(const struct map_entry *e, size_t n, const uint32_t *node_of,
                        uint32_t total)
{
	uint32_t r = 0;

	while (r < total)
		for (size_t k = 0; k < n && r < total; k++)
			for (uint32_t nd = 0; nd < e[k].nodes && r < total; nd++)
				for (uint32_t c = 0; c < e[k].run && r < total; c++, r++)
					if (node_of[r] != e[k].node + nd)
						return 0;
	return 1;
}

static char *make_mapping(const struct launch_req *req)
{
	const struct rota_u32v *v = &req->step_tasks_per_node;
	uint64_t sum = 0;
	uint32_t total, *gtids, *node_of, k = 0;
	struct map_entry *e;
	size_t ne = 0, use;
	char *s, *t;

	for (uint32_t i = 0; i < v->n; i++)
		sum += v->v[i];
	if (!sum || sum > STEPD_MAX_STEP_TASKS)
		return NULL;
	total = (uint32_t)sum;
	gtids = xcalloc(total + 1, sizeof(*gtids));
	node_of = xcalloc(total + 1, sizeof(*node_of));
	e = xcalloc(total + 1, sizeof(*e));
	taskdist_gtids_map(req->task_dist, v->v, v->n, req->task_map.v, req->task_map.n,
	                   gtids);
	for (uint32_t i = 0; i < v->n; i++)
		for (uint32_t j = 0; j < v->v[i]; j++, k++)
			if (gtids[k] < total)
				node_of[gtids[k]] = i;
	for (uint32_t r = 0; r < total;) {
		uint32_t node = node_of[r], run = 1, nodes = 1, next;
		while (r + run < total && node_of[r + run] == node)
			run++;
		next = r + run;
		/* the next nodes, each with a run as long */
		for (;;) {
			uint32_t m = 0;
			while (next + m < total && node_of[next + m] == node + nodes &&
			       m < run)
				m++;
			if (m != run ||
			    (next + m < total && node_of[next + m] == node + nodes))
				break;
			nodes++;
			next += run;
		}
		e[ne++] = (struct map_entry){node, nodes, run};
		r = next;
	}
	/* the shortest beginning that repeats into the whole (a few tried) */
	for (use = 1; use < ne && use <= 64; use++)
		if (entries_tile(e, use, node_of, total))
			break;
	if (use > 64)
		use = ne;
	s = xstrdup("(vector");
	for (size_t x = 0; x < use && strlen(s) <= MAPPING_MAX; x++) {
		t = xasprintf("%s,(%u,%u,%u)", s, e[x].node, e[x].nodes, e[x].run);
		free(s);
		s = t;
	}
	t = xasprintf("%s)", s);
	free(s);
	free(gtids);
	free(node_of);
	free(e);
	if (strlen(t) > MAPPING_MAX) {
		free(t);
		return NULL;
	}
	return t;
}

static struct pmi *pmi_create(struct stepd *st)
{
	struct pmi *p = xcalloc(1, sizeof(*p));

	p->n = st->ntasks;
	p->size = st->req->step_num_tasks;
	p->nnodes = st->req->step_tasks_per_node.n ? st->req->step_tasks_per_node.n : 1;
	/* over several components one name for all: the leader's */
	snprintf(p->jobid, sizeof(p->jobid), "%u.%u", stepd_seen_job(st->req),
	         stepd_seen_step(st->req));
	p->mapping = make_mapping(st->req);
	p->kvs = pmi_kvs_create();
	p->pending = pmi_kvs_create();
	p->node_attr = pmi_kvs_create();
	p->c = xcalloc(p->n, sizeof(*p->c));
	for (uint32_t i = 0; i < p->n; i++)
		p->c[i].fd = p->c[i].child_fd = -1;
	p->helper = -1;
	return p;
}

static int pmi2_setup(struct stepd *st, struct pmi *p, struct rota_error *err)
{
	for (uint32_t i = 0; i < p->n; i++) {
		struct client *c = &p->c[i];
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			return errprintf(err, "mpi/pmi2: socketpair: %s",
			                 strerror(errno));
		fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
		c->fd = sv[0];
		c->child_fd = sv[1];
		c->env = strv_setenvf(c->env, "PMI_FD", "%d", sv[1]);
		c->env = strv_setenvf(c->env, "PMI_RANK", "%u", st->tasks[i].gtid);
		c->env = strv_setenvf(c->env, "PMI_SIZE", "%u", p->size);
		c->env = strv_setenv(c->env, "PMI_JOBID", p->jobid);
	}
	return 0;
}

/* ---- PMIx: the rotapmix process ---- */

#define PMIX_SETUP_TIMEOUT_MS 30000

/* rotapmix beside this program (a build tree, or sbin with rotad), else in
 * ../libexec/rota (an installation). */
static char *pmix_program(void)
{
	char self[4096], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	if (!(slash = strrchr(self, '/')))
		return NULL;
	*slash = '\0';
	path = xasprintf("%s/rotapmix", self);
	if (access(path, X_OK) == 0)
		return path;
	free(path);
	path = xasprintf("%s/../libexec/rota/rotapmix", self);
	if (access(path, X_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/* The child: the job's user, the link on fd 3, then rotapmix. */
static void pmix_child(const struct stepd *st, const char *prog, int fd)
{
	char *argv[] = {"rotapmix", NULL};
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (st->as_root && ((st->gids ? setgroups((size_t)st->ngids, st->gids)
	                              : initgroups(st->user, st->gid)) < 0 ||
	                    setgid(st->gid) < 0 || setuid(st->uid) < 0))
		_exit(127);
	if (null >= 0) { /* not rotad's streams: the user's process */
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (fd == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(fd, 3) < 0)
		_exit(127);
	close_range(4, ~0U, CLOSE_RANGE_CLOEXEC);
	execv(prog, argv);
	_exit(127);
}

static int pmix_tmpdir(struct stepd *st, struct pmi *p, struct rota_error *err)
{
	p->tmpdir =
	    xasprintf("%s/pmix.%u.%u", st->spool, st->req->job_id, st->req->step_id);
	if (mkdir(p->tmpdir, 0700) < 0 && errno != EEXIST)
		return errprintf(err, "mpi/pmix: mkdir %s: %s", p->tmpdir,
		                 strerror(errno));
	if (st->as_root && chown(p->tmpdir, st->uid, st->gid) < 0)
		return errprintf(err, "mpi/pmix: chown %s: %s", p->tmpdir,
		                 strerror(errno));
	return 0;
}

/* Receive one MSG_PMIX_ENV per local task. */
static int pmix_envs(struct stepd *st, struct pmi *p, int fd, struct rota_error *err)
{
	for (uint32_t got = 0; got < p->n;) {
		uint16_t type = 0;
		void *body = NULL;
		struct pmix_env *e;

		if (net_recv(fd, &type, &body, PMIX_SETUP_TIMEOUT_MS, err) < 0)
			return errprintf(err,
			                 "mpi/pmix: the PMIx server did not start: %s",
			                 err->text);
		if (type == MSG_RC) {
			const struct rc_msg *m = body;
			errprintf(err, "%s",
			          m->msg ? m->msg : "mpi/pmix: the server failed");
			msg_body_free(type, body);
			return -1;
		}
		e = body;
		for (uint32_t i = 0; type == MSG_PMIX_ENV && i < p->n; i++)
			if (st->tasks[i].gtid == e->rank && !p->c[i].env) {
				p->c[i].env = e->env;
				e->env = NULL;
				got++;
				break;
			}
		msg_body_free(type, body);
	}
	return 0;
}

static int pmix_setup(struct stepd *st, struct pmi *p, struct rota_error *err)
{
	struct pmix_setup m = {
	    .job_id = stepd_seen_job(st->req),
	    .step_id = stepd_seen_step(st->req),
	    .node_index = st->req->node_index,
	    .tasks = st->req->step_tasks_per_node,
	    .uid = st->uid,
	    .gid = st->gid,
	    .task_dist = st->req->task_dist,
	    .task_map = st->req->task_map,
	};
	char *prog = pmix_program(), nspace[64];
	int sv[2] = {-1, -1}, rc = -1;
	size_t count = 0;

	if (!prog)
		return errprintf(err, "mpi/pmix: rotapmix is not installed");
	if (pmix_tmpdir(st, p, err) < 0)
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		errprintf(err, "mpi/pmix: socketpair: %s", strerror(errno));
		goto out;
	}
	p->helper = fork();
	if (p->helper < 0) {
		errprintf(err, "mpi/pmix: fork: %s", strerror(errno));
		goto out;
	}
	if (p->helper == 0)
		pmix_child(st, prog, sv[1]);
	close(sv[1]);
	sv[1] = -1;
	snprintf(nspace, sizeof(nspace), "slurm.pmix.%u.%u", stepd_seen_job(st->req),
	         stepd_seen_step(st->req));
	m.nspace = nspace;
	m.tmpdir = p->tmpdir;
	if (hostlist_expand(st->req->step_nodes ? st->req->step_nodes : "", &m.nodes,
	                    &count, NULL) < 0 ||
	    count != m.tasks.n) {
		errprintf(err, "mpi/pmix: the step's nodes do not match its layout");
	} else if (net_send(sv[0], MSG_PMIX_SETUP, &m, err) == 0 &&
	           pmix_envs(st, p, sv[0], err) == 0) {
		p->link = msglink_create(sv[0], "rotapmix");
		sv[0] = -1;
		rc = 0;
	}
	hostlist_free(m.nodes);
out:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	free(prog);
	return rc;
}

int pmi_setup(struct stepd *st, struct rota_error *err)
{
	const char *type = pmi_type(st);
	int pmix;

	if (st->batch || !type)
		return 0;
	pmix = !strcasecmp(type, "pmix") || !strncasecmp(type, "pmix_", 5);
	if (!pmix && strcasecmp(type, "pmi2"))
		return 0; /* srun refuses the others */
	st->pmi = pmi_create(st);
	st->pmi->pmix = pmix;
	st->pmi->as_root = st->as_root;
	st->pmi->uid = st->uid;
	st->pmi->gid = st->gid;
	if ((pmix ? pmix_setup(st, st->pmi, err) : pmi2_setup(st, st->pmi, err)) < 0)
		return -1;
	if (!strv_getenv(st->env, "SLURM_MPI_TYPE"))
		st->env = strv_setenv(st->env, "SLURM_MPI_TYPE", pmix ? "pmix" : "pmi2");
	return 0;
}

char *const *pmi_task_env(const struct stepd *st, const struct stepd_task *t)
{
	const struct pmi *p = st->pmi;

	return p && t->ltid < p->n ? p->c[t->ltid].env : NULL;
}

void pmi_child_keep(const struct stepd *st, const struct stepd_task *t)
{
	const struct pmi *p = st->pmi;

	if (p && t->ltid < p->n && p->c[t->ltid].child_fd >= 0)
		fcntl(p->c[t->ltid].child_fd, F_SETFD, 0);
}

void pmi_task_forked(struct stepd *st, const struct stepd_task *t)
{
	struct pmi *p = st->pmi;

	if (p && t->ltid < p->n && p->c[t->ltid].child_fd >= 0) {
		close(p->c[t->ltid].child_fd);
		p->c[t->ltid].child_fd = -1;
	}
}

/* ---- output ---- */

static void client_close(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->in);
	free(c->out);
	free(c->wait_key);
	c->in = c->out = c->wait_key = NULL;
	c->in_len = c->out_len = c->out_off = 0;
}

static void send_raw(struct client *c, const char *s, size_t n)
{
	if (c->fd < 0)
		return;
	if (c->out_len - c->out_off + n > PMI_OUT_MAX) {
		log_err("mpi/pmi2: a task does not read its PMI replies, dropped");
		client_close(c);
		return;
	}
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = 0;
	} else if (c->out_off) { /* what is sent goes: the buffer stays bounded */
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	c->out = xrealloc(c->out, c->out_len + n);
	memcpy(c->out + c->out_len, s, n);
	c->out_len += n;
}

/* A PMI-1 reply: one line. */
static void reply1(struct client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void reply1(struct client *c, const char *fmt, ...)
{
	char line[PMI_LINE_MAX + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	send_raw(c, line, (size_t)n);
}

/* A PMI-2 reply: "cmd=NAME;" then key, value pairs (NULL-terminated), each
 * value with its ';' doubled, behind the 6-byte length. */
static void reply2(struct client *c, const char *cmd, ...)
{
	char body[PMI2_BODY_MAX + 64], hdr[PMI2_HDR_LEN + 1];
	size_t n = 0;
	const char *k, *v;
	va_list ap;

	n = (size_t)snprintf(body, sizeof(body), "cmd=%s;", cmd);
	va_start(ap, cmd);
	while ((k = va_arg(ap, const char *))) {
		v = va_arg(ap, const char *);
		if (n + strlen(k) + 2 * strlen(v) + 3 > PMI2_BODY_MAX)
			break;
		n += (size_t)snprintf(body + n, sizeof(body) - n, "%s=", k);
		for (; *v; v++) {
			if (*v == ';')
				body[n++] = ';';
			body[n++] = *v;
		}
		body[n++] = ';';
	}
	va_end(ap);
	snprintf(hdr, sizeof(hdr), "%-6zu", n);
	send_raw(c, hdr, PMI2_HDR_LEN);
	send_raw(c, body, n);
}

/* ---- the fence ---- */

static void fence_answer(struct stepd *st, int rc)
{
	struct pmi *p = st->pmi;

	for (uint32_t i = 0; i < p->n; i++) {
		struct client *c = &p->c[i];
		if (!c->in_fence)
			continue;
		c->in_fence = 0;
		if (c->wire == WIRE_PMI2)
			reply2(c, "kvs-fence-response", "rc", rc ? "-1" : "0", NULL);
		else
			reply1(c, "cmd=barrier_out rc=%d\n", rc ? -1 : 0);
	}
	p->fencing = 0;
	p->sent = 0;
	p->seq++;
}

static void fence_done(struct stepd *st, const uint8_t *data, size_t len)
{
	struct pmi *p = st->pmi;
	int rc = 0;

	if (pmi_kvs_decode(p->kvs, data, len) < 0) {
		log_err("JobId=%u StepId=%u mpi/pmi2: the fence's data is malformed "
		        "or too large",
		        st->req->job_id, st->req->step_id);
		rc = -1;
	}
	pmi_kvs_clear(p->pending);
	fence_answer(st, rc);
}

/* Every task here has entered the fence: this node's puts to srun. */
static void fence_go(struct stepd *st)
{
	struct pmi *p = st->pmi;
	struct pmi_fence f = {.seq = p->seq};
	uint8_t *data;
	size_t len;

	pmi_kvs_encode(p->pending, &data, &len);
	if (p->nnodes == 1) {
		fence_done(st, data, len);
		free(data);
		return;
	}
	f.data.data = data;
	f.data.len = (uint32_t)len;
	if (!st->io || msglink_send(st->io, MSG_PMI_FENCE, &f) < 0) {
		log_err(
		    "JobId=%u StepId=%u mpi/pmi2: no connection to srun for the fence",
		    st->req->job_id, st->req->step_id);
		stepd_tell_user(st, "slurmstepd: error: mpi/pmi2: srun is gone, the "
		                    "fence cannot complete\n");
		fence_answer(st, -1);
	} else {
		p->sent = 1;
	}
	free(data);
}

static void fence_enter(struct stepd *st, struct client *c)
{
	struct pmi *p = st->pmi;

	if (c->in_fence)
		return;
	c->in_fence = 1;
	if (++p->fencing == p->n)
		fence_go(st);
}

void pmi_on_fence_done(struct stepd *st, const struct pmi_fence *f)
{
	struct pmi *p = st->pmi;

	if (p && p->pmix) { /* rotapmix's */
		if (p->link)
			msglink_send(p->link, MSG_PMI_FENCE_DONE, f);
		return;
	}
	if (!p || !p->sent || f->seq != p->seq) {
		log_debug("mpi/pmi2: ignoring an unexpected fence answer");
		return;
	}
	fence_done(st, f->data.data, f->data.len);
}

/* A task asked to abort: srun ends the step everywhere, this node at once. */
static void abort_step(struct stepd *st, uint32_t code, const char *msg, size_t len)
{
	struct pmi_fence a = {.seq = code};

	log_info("JobId=%u StepId=%u mpi/pmi: a task called abort: %.*s", st->req->job_id,
	         st->req->step_id, (int)len, msg ? msg : "");
	a.data.data = (uint8_t *)msg;
	a.data.len = msg ? (uint32_t)len : 0;
	if (st->io)
		msglink_send(st->io, MSG_PMI_ABORT, &a);
	ctl_signal(st, SIGKILL, 0);
}

static void do_abort(struct stepd *st, const char *code, const char *msg)
{
	abort_step(st, code ? (uint32_t)strtoul(code, NULL, 10) : 1, msg,
	           msg ? strnlen(msg, PMI_LINE_MAX) : 0);
}

static const char *get_key(const struct pmi *p, const char *key)
{
	const char *v = pmi_kvs_get(p->kvs, key);

	if (!v)
		v = pmi_kvs_get(p->pending, key);
	if (!v && !strcmp(key, "PMI_process_mapping"))
		v = p->mapping;
	return v;
}

/* ---- PMI-1 ---- */

/* Split "k=v k=v" in place. */
static void parse1(char *line, struct args *a)
{
	char *save = NULL;

	a->n = 0;
	for (char *w = strtok_r(line, " \t", &save); w && a->n < PMI_ARGS_MAX;
	     w = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(w, '=');
		if (!eq)
			continue;
		*eq = '\0';
		a->key[a->n] = w;
		a->val[a->n++] = eq + 1;
	}
}

static void on_line1(struct stepd *st, struct client *c, char *line)
{
	struct pmi *p = st->pmi;
	struct args a;
	const char *cmd, *v;

	if (c->spawn_lines) { /* the rest of a refused spawn */
		if (!strncmp(line, "endcmd", 6)) {
			c->spawn_lines = 0;
			reply1(c, "cmd=spawn_result rc=-1 errmsg=spawn_not_supported\n");
		}
		return;
	}
	if (!strncmp(line, "mcmd=", 5)) {
		c->spawn_lines = 1;
		return;
	}
	parse1(line, &a);
	cmd = arg_or(&a, "cmd", "");
	if (!strcmp(cmd, "init")) {
		if (!strcmp(arg_or(&a, "pmi_version", "1"), "2")) {
			reply1(
			    c,
			    "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
			c->wire = WIRE_PMI2;
		} else {
			reply1(
			    c,
			    "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
		}
	} else if (!strcmp(cmd, "get_maxes")) {
		reply1(c, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d\n",
		       (int)sizeof(p->jobid), PMI_KVS_KEY_MAX, PMI_KVS_VAL_MAX);
	} else if (!strcmp(cmd, "get_appnum")) {
		reply1(c, "cmd=appnum rc=0 appnum=0\n");
	} else if (!strcmp(cmd, "get_universe_size")) {
		reply1(c, "cmd=universe_size rc=0 size=%u\n", p->size);
	} else if (!strcmp(cmd, "get_my_kvsname")) {
		reply1(c, "cmd=my_kvsname rc=0 kvsname=%s\n", p->jobid);
	} else if (!strcmp(cmd, "put")) {
		int rc = pmi_kvs_put(p->pending, arg_or(&a, "key", ""),
		                     arg_or(&a, "value", ""));
		reply1(c, "cmd=put_result rc=%d%s\n", rc,
		       rc ? " msg=key_or_value_too_long_or_kvs_full" : "");
	} else if (!strcmp(cmd, "get")) {
		if ((v = get_key(p, arg_or(&a, "key", ""))))
			reply1(c, "cmd=get_result rc=0 value=%s\n", v);
		else
			reply1(c, "cmd=get_result rc=-1 msg=key_%.64s_not_found\n",
			       arg_or(&a, "key", ""));
	} else if (!strcmp(cmd, "barrier_in")) {
		fence_enter(st, c);
	} else if (!strcmp(cmd, "finalize")) {
		reply1(c, "cmd=finalize_ack rc=0\n");
	} else if (!strcmp(cmd, "abort")) {
		do_abort(st, arg(&a, "exitcode"), arg(&a, "msg"));
	} else if (!strcmp(cmd, "publish_name")) {
		reply1(c, "cmd=publish_result rc=-1 msg=not_supported\n");
	} else if (!strcmp(cmd, "unpublish_name")) {
		reply1(c, "cmd=unpublish_result rc=-1 msg=not_supported\n");
	} else if (!strcmp(cmd, "lookup_name")) {
		reply1(c, "cmd=lookup_result rc=-1 info=fail\n");
	} else {
		log_debug("mpi/pmi2: unknown PMI-1 request '%s'", cmd);
		reply1(c, "cmd=%.64s rc=-1 msg=unknown_request\n", cmd);
	}
}

/* ---- PMI-2 ---- */

/* Split "cmd=x;k=v;" in place (";;" is a ';' of the value). */
static int parse2(char *body, size_t n, struct args *a)
{
	size_t i = 0, o;

	a->n = 0;
	while (i < n && a->n < PMI_ARGS_MAX) {
		char *k = body + i, *v;
		while (i < n && body[i] != '=')
			i++;
		if (i >= n)
			return -1;
		body[i++] = '\0';
		v = body + i;
		o = i;
		while (i < n) {
			if (body[i] == ';' && i + 1 < n && body[i + 1] == ';') {
				body[o++] = ';';
				i += 2;
			} else if (body[i] == ';') {
				break;
			} else {
				body[o++] = body[i++];
			}
		}
		if (i >= n)
			return -1;
		i++; /* the ';' */
		body[o] = '\0';
		a->key[a->n] = k;
		a->val[a->n++] = v;
	}
	return 0;
}

static void answer_node_waits(struct pmi *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		struct client *c = &p->c[i];
		const char *v;
		if (!c->wait_key || !(v = pmi_kvs_get(p->node_attr, c->wait_key)))
			continue;
		reply2(c, "info-getnodeattr-response", "rc", "0", "found", "TRUE",
		       "value", v, NULL);
		free(c->wait_key);
		c->wait_key = NULL;
	}
}

static void on_cmd2(struct stepd *st, struct client *c, const struct args *a)
{
	struct pmi *p = st->pmi;
	const char *cmd = arg_or(a, "cmd", ""), *v;
	char num[3][16];

	if (!strcmp(cmd, "fullinit")) {
		uint32_t gtid = st->tasks[c - p->c].gtid;
		snprintf(num[0], sizeof(num[0]), "%u", gtid);
		snprintf(num[1], sizeof(num[1]), "%u", p->size);
		reply2(c, "fullinit-response", "rc", "0", "pmi-version", "2",
		       "pmi-subversion", "0", "rank", num[0], "size", num[1], "appnum",
		       "0", "debugged", "FALSE", "pmiverbose", "FALSE", NULL);
	} else if (!strcmp(cmd, "job-getid")) {
		reply2(c, "job-getid-response", "rc", "0", "jobid", p->jobid, NULL);
	} else if (!strcmp(cmd, "kvs-put")) {
		int rc =
		    pmi_kvs_put(p->pending, arg_or(a, "key", ""), arg_or(a, "value", ""));
		if (rc)
			reply2(c, "kvs-put-response", "rc", "-1", "errmsg",
			       "key or value too long, or the KVS is full", NULL);
		else
			reply2(c, "kvs-put-response", "rc", "0", NULL);
	} else if (!strcmp(cmd, "kvs-fence")) {
		fence_enter(st, c);
	} else if (!strcmp(cmd, "kvs-get")) {
		if ((v = get_key(p, arg_or(a, "key", ""))))
			reply2(c, "kvs-get-response", "rc", "0", "found", "TRUE", "value",
			       v, NULL);
		else
			reply2(c, "kvs-get-response", "rc", "0", "found", "FALSE", NULL);
	} else if (!strcmp(cmd, "info-putnodeattr")) {
		int rc = pmi_kvs_put(p->node_attr, arg_or(a, "key", ""),
		                     arg_or(a, "value", ""));
		reply2(c, "info-putnodeattr-response", "rc", rc ? "-1" : "0", NULL);
		answer_node_waits(p);
	} else if (!strcmp(cmd, "info-getnodeattr")) {
		const char *key = arg_or(a, "key", "");
		if ((v = pmi_kvs_get(p->node_attr, key))) {
			reply2(c, "info-getnodeattr-response", "rc", "0", "found", "TRUE",
			       "value", v, NULL);
		} else if (!strcmp(arg_or(a, "wait", "FALSE"), "TRUE") && !c->wait_key) {
			c->wait_key = xstrdup(key);
		} else {
			reply2(c, "info-getnodeattr-response", "rc", "0", "found",
			       "FALSE", NULL);
		}
	} else if (!strcmp(cmd, "info-getjobattr")) {
		const char *key = arg_or(a, "key", "");
		snprintf(num[2], sizeof(num[2]), "%u", p->size);
		v = !strcmp(key, "PMI_process_mapping") ? p->mapping
		    : !strcmp(key, "universeSize")      ? num[2]
		                                        : NULL;
		if (v)
			reply2(c, "info-getjobattr-response", "rc", "0", "found", "TRUE",
			       "value", v, NULL);
		else
			reply2(c, "info-getjobattr-response", "rc", "0", "found", "FALSE",
			       NULL);
	} else if (!strcmp(cmd, "finalize")) {
		reply2(c, "finalize-response", "rc", "0", NULL);
	} else if (!strcmp(cmd, "abort")) {
		do_abort(st, NULL, arg(a, "msg"));
	} else {
		char resp[64];
		log_debug("mpi/pmi2: refused PMI-2 request '%s'", cmd);
		snprintf(resp, sizeof(resp), "%.40s-response", *cmd ? cmd : "unknown");
		reply2(c, resp, "rc", "-1", "errmsg", "not supported", NULL);
	}
}

/* ---- input ---- */

/* Handle the whole requests in c->in.  Returns -1 on a protocol error. */
static int client_parse(struct stepd *st, struct client *c)
{
	size_t off = 0;
	int rc = 0;

	while (c->fd >= 0 && off < c->in_len) {
		char *p = c->in + off;
		size_t left = c->in_len - off;

		if (c->wire == WIRE_NEW && (p[0] == ' ' || (p[0] >= '0' && p[0] <= '9')))
			c->wire = WIRE_PMI2; /* a PMI-2 client that skipped init */
		if (c->wire == WIRE_PMI2 && strncmp(p, "cmd=", 4)) {
			char hdr[PMI2_HDR_LEN + 1], *end;
			unsigned long len;
			struct args a;
			if (left < PMI2_HDR_LEN)
				break;
			memcpy(hdr, p, PMI2_HDR_LEN);
			hdr[PMI2_HDR_LEN] = '\0';
			len = strtoul(hdr, &end, 10);
			if (end == hdr || len > PMI2_BODY_MAX) {
				rc = -1;
				break;
			}
			if (left < PMI2_HDR_LEN + len)
				break;
			if (parse2(p + PMI2_HDR_LEN, len, &a) < 0) {
				rc = -1;
				break;
			}
			on_cmd2(st, c, &a);
			off += PMI2_HDR_LEN + len;
		} else {
			char *nl = memchr(p, '\n', left);
			if (!nl) {
				if (left > PMI_LINE_MAX)
					rc = -1;
				break;
			}
			*nl = '\0';
			if (c->wire == WIRE_NEW)
				c->wire = WIRE_PMI1;
			on_line1(st, c, p);
			off += (size_t)(nl - p) + 1;
		}
	}
	if (c->fd >= 0) {
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
	}
	return rc;
}

int pmi_poll_fd(const struct stepd *st, uint32_t i, short *events)
{
	const struct pmi *p = st->pmi;

	if (!p || i >= p->n || p->c[i].fd < 0)
		return -1;
	*events = POLLIN;
	if (p->c[i].out_len > p->c[i].out_off)
		*events |= POLLOUT;
	return p->c[i].fd;
}

static void client_write(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
		                 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				client_close(c);
			return;
		}
		c->out_off += (size_t)n;
	}
}

void pmi_on_client(struct stepd *st, uint32_t i, short revents)
{
	struct pmi *p = st->pmi;
	struct client *c;
	char buf[8192];
	ssize_t n;

	if (!p || i >= p->n || p->c[i].fd < 0)
		return;
	c = &p->c[i];
	if (revents & POLLOUT)
		client_write(c);
	if (c->fd < 0 || !(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = recv(c->fd, buf, sizeof(buf), 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) { /* the task closed PMI_FD (finalized, or exited) */
		client_close(c);
		return;
	}
	c->in = xrealloc(c->in, c->in_len + (size_t)n + 1);
	memcpy(c->in + c->in_len, buf, (size_t)n);
	c->in_len += (size_t)n;
	c->in[c->in_len] = '\0';
	if (client_parse(st, c) < 0) {
		log_err("JobId=%u StepId=%u mpi/pmi2: task %u spoke no PMI protocol, "
		        "its PMI connection is closed",
		        st->req->job_id, st->req->step_id, st->tasks[i].gtid);
		client_close(c);
		return;
	}
	if (c->fd >= 0)
		client_write(c);
}

/* ---- PMIx: rotapmix's link ---- */

int pmi_link_fd(const struct stepd *st, short *events)
{
	const struct pmi *p = st->pmi;

	if (!p || !p->link)
		return -1;
	*events = msglink_events(p->link);
	return msglink_fd(p->link);
}

static void on_helper_msg(struct msglink *l, uint16_t type, void *body, void *arg)
{
	struct stepd *st = arg;
	struct pmi *p = st->pmi;
	const struct pmi_fence *f = body;

	if (type == MSG_PMI_FENCE) {
		if (p->nnodes == 1) { /* this node is the whole step */
			msglink_send(p->link, MSG_PMI_FENCE_DONE, f);
		} else if (!st->io || msglink_send(st->io, MSG_PMI_FENCE, f) < 0) {
			log_err("JobId=%u StepId=%u mpi/pmix: no connection to srun for "
			        "the fence",
			        st->req->job_id, st->req->step_id);
			stepd_tell_user(st, "slurmstepd: error: mpi/pmix: srun is gone, "
			                    "the fence cannot complete\n");
			ctl_signal(st, SIGKILL, 0);
		}
	} else if (type == MSG_PMI_ABORT) {
		abort_step(st, f->seq, (const char *)f->data.data, f->data.len);
	} else {
		log_debug("ignoring %s from rotapmix", msg_name(type));
	}
}

void pmi_on_link(struct stepd *st, short revents)
{
	struct pmi *p = st->pmi;

	if (!p || !p->link || msglink_handle(p->link, revents, on_helper_msg, st) == 0)
		return;
	log_err("JobId=%u StepId=%u mpi/pmix: the PMIx server ended", st->req->job_id,
	        st->req->step_id);
	msglink_destroy(p->link);
	p->link = NULL;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* Remove the server's directory as the job's user: the user can change
 * what is in it while it is walked (a symlink for a directory), and root
 * must not follow. */
static void remove_as_user(const struct pmi *p)
{
	pid_t pid;

	if (!p->as_root) {
		nftw(p->tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
		return;
	}
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(p->gid) < 0 || setuid(p->uid) < 0)
			_exit(1);
		nftw(p->tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
		_exit(0);
	}
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* The server ends when its link closes; its directory goes with it. */
static void pmix_stop(struct pmi *p)
{
	msglink_destroy(p->link);
	p->link = NULL;
	for (int i = 0; p->helper > 0 && i < 100; i++) { /* up to 2 s */
		pid_t r = waitpid(p->helper, NULL, WNOHANG);
		if (r == p->helper || (r < 0 && errno == ECHILD))
			p->helper = -1;
		else
			usleep(20000);
	}
	if (p->helper > 0) {
		kill(p->helper, SIGKILL);
		waitpid(p->helper, NULL, 0);
	}
	if (p->tmpdir)
		remove_as_user(p);
	free(p->tmpdir);
}

void pmi_release(struct stepd *st)
{
	struct pmi *p = st->pmi;

	if (!p)
		return;
	pmix_stop(p);
	for (uint32_t i = 0; i < p->n; i++) {
		client_close(&p->c[i]);
		if (p->c[i].child_fd >= 0)
			close(p->c[i].child_fd);
		strv_free(p->c[i].env);
	}
	free(p->c);
	free(p->mapping);
	pmi_kvs_destroy(p->kvs);
	pmi_kvs_destroy(p->pending);
	pmi_kvs_destroy(p->node_attr);
	free(p);
	st->pmi = NULL;
}
