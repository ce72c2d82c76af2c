/* rotapmix - one step's PMIx server on one node (srun --mpi=pmix).
 *
 * DESIGN: OpenPMIx's server library runs threads of its own, and the step
 * daemon forks user code, so the server lives in this separate process: the
 * step daemon forks and execs it as the job's user before the tasks, with a
 * socket pair on fd 3 (stepd/pmi.h).  It reads MSG_PMIX_SETUP (the step's
 * layout and the rendezvous directory), starts the server, registers the
 * step's namespace "slurm.pmix.JOB.STEP" (sizes, node and process maps, each
 * rank's local rank and node) and this node's ranks, and answers one
 * MSG_PMIX_ENV per local rank with the variables PMIx_server_setup_fork gives
 * it (PMIX_NAMESPACE, PMIX_RANK, PMIX_SERVER_URI*...).  Then it serves the
 * tasks: a fence the library hands up (fence_nb, once every local rank has
 * entered it) goes to the step daemon as MSG_PMI_FENCE with this node's blob,
 * and the step daemon's MSG_PMI_FENCE_DONE (every node's blobs, concatenated
 * by srun) completes it; an abort goes up as MSG_PMI_ABORT.  The library's
 * threads only queue and wake the main thread (a pipe); the main thread alone
 * talks to the step daemon.  It ends when the step daemon closes fd 3.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>
#include <pmix_server.h>
#include "proto/messages.h"
#include "proto/net.h"
#include "common/log.h"
#include "common/strv.h"
#include "common/taskdist.h"
#include "common/common.h"

#define LINK_FD        3
#define SETUP_TIMEOUT  30000
#define PMIX_RANKS_MAX 65536 /* ranks on one node we register */

struct fence {
	pmix_modex_cbfunc_t cb;
	void *cbdata;
	char *data; /* this node's blob, copied */
	size_t len;
	struct fence *next;
};

struct aborted {
	int status;
	char *msg;
	struct aborted *next;
};

/* Filled by the library's threads, emptied by the main thread. */
static struct {
	pthread_mutex_t mu;
	struct fence *queued, *queued_tail; /* not yet sent up */
	struct aborted *aborts;
	int wake[2];
} up = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = {-1, -1}};

/* Sent up, waiting for their answers, in order (main thread only). */
static struct fence *sent, *sent_tail;
static uint32_t fence_seq;

static void wake_main(void)
{
	char c = 1;
	while (write(up.wake[1], &c, 1) < 0 && errno == EINTR)
		;
}

#ifdef __SANITIZE_ADDRESS__
/* Under LeakSanitizer: what OpenPMIx keeps to the end is its own, not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpmix.so\n";
}
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
#endif

/* ---- upcalls (the library's threads) ---- */

static pmix_status_t on_connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
                                  void *cbdata)
{
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
                                  void *cbdata)
{
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_abort(const pmix_proc_t *proc, void *obj, int status,
                              const char msg[], pmix_proc_t procs[], size_t nprocs,
                              pmix_op_cbfunc_t cb, void *cbdata)
{
	struct aborted *a = calloc(1, sizeof(*a));

	if (!a)
		return PMIX_ERR_NOMEM;
	a->status = status;
	a->msg = strdup(msg ? msg : "");
	pthread_mutex_lock(&up.mu);
	a->next = up.aborts;
	up.aborts = a;
	pthread_mutex_unlock(&up.mu);
	wake_main();
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t info[], size_t ninfo, char *data,
                              size_t ndata, pmix_modex_cbfunc_t cb, void *cbdata)
{
	struct fence *f = calloc(1, sizeof(*f));

	if (!f || (ndata && !(f->data = malloc(ndata)))) {
		free(f);
		return PMIX_ERR_NOMEM;
	}
	if (ndata)
		memcpy(f->data, data, ndata);
	f->len = ndata;
	f->cb = cb;
	f->cbdata = cbdata;
	pthread_mutex_lock(&up.mu);
	if (up.queued_tail)
		up.queued_tail->next = f;
	else
		up.queued = f;
	up.queued_tail = f;
	pthread_mutex_unlock(&up.mu);
	wake_main();
	return PMIX_SUCCESS;
}

static pmix_status_t on_dmodex(const pmix_proc_t *proc, const pmix_info_t info[],
                               size_t ninfo, pmix_modex_cbfunc_t cb, void *cbdata)
{
	return PMIX_ERR_NOT_SUPPORTED; /* every fence collects all data */
}

static pmix_server_module_t module = {
    .client_connected = on_connected,
    .client_finalized = on_finalized,
    .abort = on_abort,
    .fence_nb = on_fence,
    .direct_modex = on_dmodex,
};

/* ---- waiting for the library ---- */

struct op {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	pmix_status_t status;
};

static void op_done(pmix_status_t status, void *cbdata)
{
	struct op *op = cbdata;

	pthread_mutex_lock(&op->mu);
	op->status = status;
	op->done = 1;
	pthread_cond_signal(&op->cv);
	pthread_mutex_unlock(&op->mu);
}

/* rc: what the call returned; waits for op_done when the call is under way. */
static pmix_status_t op_wait(struct op *op, pmix_status_t rc)
{
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return PMIX_SUCCESS;
	if (rc != PMIX_SUCCESS)
		return rc;
	pthread_mutex_lock(&op->mu);
	while (!op->done)
		pthread_cond_wait(&op->cv, &op->mu);
	pthread_mutex_unlock(&op->mu);
	return op->status;
}

#define OP_INIT                                                                          \
	{                                                                                \
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, PMIX_SUCCESS     \
	}

/* ---- the namespace ---- */

static void add_u32(void *list, const char *key, uint32_t v)
{
	PMIx_Info_list_add(list, key, &v, PMIX_UINT32);
}

static void add_u16(void *list, const char *key, uint16_t v)
{
	PMIx_Info_list_add(list, key, &v, PMIX_UINT16);
}

static void add_rank(void *list, const char *key, pmix_rank_t v)
{
	PMIx_Info_list_add(list, key, &v, PMIX_PROC_RANK);
}

/* The layout: each node's ranks (gtids, node after node; off[n] where node
 * n's begin), and each rank's node and index on it. */
struct layout {
	uint32_t size, *gtids, *off, *node, *local;
};

static void layout_make(const struct pmix_setup *s, struct layout *l)
{
	uint32_t n = s->tasks.n, k = 0;
	uint64_t sum = 0;

	/* counts that do not add up in 32 bits (or past the step daemon's
	 * limit) are none: nothing is registered */
	for (uint32_t i = 0; i < n && sum <= (1u << 22); i++)
		sum += s->tasks.v[i];
	l->size = sum <= (1u << 22) ? (uint32_t)sum : 0;
	if (!l->size)
		n = 0;
	l->gtids = xcalloc(l->size + 1, sizeof(uint32_t));
	l->off = xcalloc(s->tasks.n + 1, sizeof(uint32_t));
	l->node = xcalloc(l->size + 1, sizeof(uint32_t));
	l->local = xcalloc(l->size + 1, sizeof(uint32_t));
	taskdist_gtids_map(s->task_dist, s->tasks.v, n, s->task_map.v, s->task_map.n,
	                   l->gtids);
	for (uint32_t i = 0; i < n; i++) {
		l->off[i] = k;
		for (uint32_t j = 0; j < s->tasks.v[i]; j++, k++)
			if (l->gtids[k] < l->size) {
				l->node[l->gtids[k]] = i;
				l->local[l->gtids[k]] = j;
			}
	}
	l->off[n] = k;
}

static void layout_release(struct layout *l)
{
	free(l->gtids);
	free(l->off);
	free(l->node);
	free(l->local);
}

/* "0,2;1,3" (ranks by node; a node without ranks keeps its place), or node
 * n's alone. */
static char *join_ranks(const struct pmix_setup *s, const struct layout *l, int only)
{
	size_t cap = 64, len = 0;
	char *out = xmalloc(cap);

	out[0] = '\0';
	for (uint32_t n = 0; n < s->tasks.n; n++) {
		if (only >= 0 && n != (uint32_t)only)
			continue;
		if (n && only < 0) {
			while (len + 2 > cap)
				out = xrealloc(out, cap *= 2);
			out[len++] = ';';
			out[len] = '\0';
		}
		for (uint32_t k = 0; k < s->tasks.v[n]; k++) {
			char num[16];
			int w = snprintf(num, sizeof(num), "%s%u", k ? "," : "",
			                 l->gtids[l->off[n] + k]);
			while (len + (size_t)w + 2 > cap)
				out = xrealloc(out, cap *= 2);
			memcpy(out + len, num, (size_t)w + 1);
			len += (size_t)w;
		}
	}
	return out;
}

static char *join_nodes(const struct pmix_setup *s)
{
	char *out = xstrdup(""), *t;

	for (size_t i = 0; s->nodes && s->nodes[i]; i++) {
		t = xasprintf("%s%s%s", out, i ? "," : "", s->nodes[i]);
		free(out);
		out = t;
	}
	return out;
}

static int register_nspace(const struct pmix_setup *s, struct rota_error *err)
{
	uint32_t nnodes = s->tasks.n, me = s->node_index, size;
	struct layout l;
	char *ranks, *nodes = join_nodes(s);
	char *node_map = NULL, *proc_map = NULL, *peers = NULL;
	char jobid[32];
	void *list = PMIx_Info_list_start();
	pmix_data_array_t darray = {0};
	struct op op = OP_INIT;
	pmix_status_t rc;
	int ret = 0;

	layout_make(s, &l);
	size = l.size;
	if (!size) {
		layout_release(&l);
		free(nodes);
		PMIx_Info_list_release(list);
		return errprintf(err, "mpi/pmix: the step's layout is too large");
	}
	ranks = join_ranks(s, &l, -1);
	snprintf(jobid, sizeof(jobid), "%u.%u", s->job_id, s->step_id);
	if (PMIx_generate_regex(nodes, &node_map) != PMIX_SUCCESS ||
	    PMIx_generate_ppn(ranks, &proc_map) != PMIX_SUCCESS) {
		ret = errprintf(err, "mpi/pmix: cannot describe the step's layout");
		goto out;
	}
	peers = join_ranks(s, &l, (int)me); /* this node's: "3,4,5" */
	PMIx_Info_list_add(list, PMIX_JOBID, jobid, PMIX_STRING);
	PMIx_Info_list_add(list, PMIX_NODE_MAP, node_map, PMIX_REGEX);
	PMIx_Info_list_add(list, PMIX_PROC_MAP, proc_map, PMIX_REGEX);
	add_u32(list, PMIX_UNIV_SIZE, size);
	add_u32(list, PMIX_JOB_SIZE, size);
	add_u32(list, PMIX_MAX_PROCS, size);
	add_u32(list, PMIX_JOB_NUM_APPS, 1);
	add_u32(list, PMIX_APP_SIZE, size);
	add_rank(list, PMIX_APPLDR, 0);
	add_u32(list, PMIX_NUM_NODES, nnodes);
	add_u32(list, PMIX_NODEID, me);
	PMIx_Info_list_add(list, PMIX_HOSTNAME, s->nodes[me], PMIX_STRING);
	add_u32(list, PMIX_LOCAL_SIZE, s->tasks.v[me]);
	add_u32(list, PMIX_NODE_SIZE, s->tasks.v[me]);
	add_rank(list, PMIX_LOCALLDR, s->tasks.v[me] ? l.gtids[l.off[me]] : 0);
	PMIx_Info_list_add(list, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
	PMIx_Info_list_add(list, PMIX_TMPDIR, s->tmpdir, PMIX_STRING);
	PMIx_Info_list_add(list, PMIX_NSDIR, s->tmpdir, PMIX_STRING);
	for (uint32_t r = 0; r < size; r++) {
		uint32_t n = l.node[r];
		void *proc = PMIx_Info_list_start();
		pmix_data_array_t pd = {0};

		add_rank(proc, PMIX_RANK, r);
		add_rank(proc, PMIX_GLOBAL_RANK, r);
		add_rank(proc, PMIX_APP_RANK, r);
		add_u32(proc, PMIX_APPNUM, 0);
		add_u16(proc, PMIX_LOCAL_RANK, (uint16_t)l.local[r]);
		add_u16(proc, PMIX_NODE_RANK, (uint16_t)l.local[r]);
		add_u32(proc, PMIX_NODEID, n);
		PMIx_Info_list_add(proc, PMIX_HOSTNAME, s->nodes[n], PMIX_STRING);
		PMIx_Info_list_convert(proc, &pd);
		PMIx_Info_list_add(list, PMIX_PROC_DATA, &pd, PMIX_DATA_ARRAY);
		PMIx_Data_array_destruct(&pd);
		PMIx_Info_list_release(proc);
	}
	PMIx_Info_list_convert(list, &darray);
	rc = op_wait(&op, PMIx_server_register_nspace(s->nspace, (int)s->tasks.v[me],
	                                              darray.array, darray.size, op_done,
	                                              &op));
	if (rc != PMIX_SUCCESS)
		ret = errprintf(err, "mpi/pmix: cannot register the step: %s",
		                PMIx_Error_string(rc));
	PMIx_Data_array_destruct(&darray);
	free(peers);
out:
	PMIx_Info_list_release(list);
	free(node_map);
	free(proc_map);
	free(ranks);
	free(nodes);
	layout_release(&l);
	return ret;
}

/* Register this node's ranks and hand their variables to the step daemon. */
static int register_clients(const struct pmix_setup *s, struct rota_error *err)
{
	uint32_t me = s->node_index;
	struct layout l;
	int ret = 0;

	layout_make(s, &l);
	if (!l.size)
		ret = errprintf(err, "mpi/pmix: the step's layout is too large");
	for (uint32_t k = 0; k < s->tasks.v[me] && !ret; k++) {
		uint32_t r = l.gtids[l.off[me] + k];
		struct op op = OP_INIT;
		pmix_proc_t proc;
		struct pmix_env e = {.rank = r};
		char **env = NULL;
		pmix_status_t rc;

		PMIX_LOAD_PROCID(&proc, s->nspace, r);
		rc = op_wait(&op, PMIx_server_register_client(&proc, s->uid, s->gid, NULL,
		                                              op_done, &op));
		if (rc == PMIX_SUCCESS)
			rc = PMIx_server_setup_fork(&proc, &env);
		if (rc != PMIX_SUCCESS) {
			ret = errprintf(err, "mpi/pmix: cannot register rank %u: %s", r,
			                PMIx_Error_string(rc));
			break;
		}
		e.env = env;
		if (net_send(LINK_FD, MSG_PMIX_ENV, &e, err) < 0)
			ret = -1;
		strv_free(env);
	}
	layout_release(&l);
	return ret;
}

/* ---- the main loop ---- */

static void release_copy(void *cbdata)
{
	free(cbdata);
}

static int send_up(struct rota_error *err)
{
	struct fence *f;
	struct aborted *a;

	pthread_mutex_lock(&up.mu);
	f = up.queued;
	up.queued = up.queued_tail = NULL;
	a = up.aborts;
	up.aborts = NULL;
	pthread_mutex_unlock(&up.mu);
	while (a) {
		struct aborted *next = a->next;
		struct pmi_fence m = {.seq = (uint32_t)a->status};
		m.data.data = (uint8_t *)a->msg;
		m.data.len = a->msg ? (uint32_t)strlen(a->msg) : 0;
		net_send(LINK_FD, MSG_PMI_ABORT, &m, err);
		free(a->msg);
		free(a);
		a = next;
	}
	while (f) {
		struct fence *next = f->next;
		struct pmi_fence m = {.seq = fence_seq++};
		m.data.data = (uint8_t *)f->data;
		m.data.len = (uint32_t)f->len;
		if (net_send(LINK_FD, MSG_PMI_FENCE, &m, err) < 0)
			return -1;
		free(f->data);
		f->data = NULL;
		f->next = NULL;
		if (sent_tail)
			sent_tail->next = f;
		else
			sent = f;
		sent_tail = f;
		f = next;
	}
	return 0;
}

static void fence_done(const struct pmi_fence *m)
{
	struct fence *f = sent;
	char *copy;

	if (!f) {
		log_err("mpi/pmix: a fence answer nobody waits for");
		return;
	}
	sent = f->next;
	if (!sent)
		sent_tail = NULL;
	copy = malloc(m->data.len ? m->data.len : 1);
	if (!copy) {
		f->cb(PMIX_ERR_NOMEM, NULL, 0, f->cbdata, NULL, NULL);
	} else {
		if (m->data.len)
			memcpy(copy, m->data.data, m->data.len);
		f->cb(PMIX_SUCCESS, copy, m->data.len, f->cbdata, release_copy, copy);
	}
	free(f);
}

static void serve(void)
{
	struct rota_error err = {""};

	for (;;) {
		struct pollfd pfd[2] = {{.fd = LINK_FD, .events = POLLIN},
		                        {.fd = up.wake[0], .events = POLLIN}};
		uint16_t type;
		void *body = NULL;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (pfd[1].revents) {
			char buf[64];
			while (read(up.wake[0], buf, sizeof(buf)) > 0)
				;
			if (send_up(&err) < 0)
				return;
		}
		if (!pfd[0].revents)
			continue;
		if (net_recv(LINK_FD, &type, &body, 10000, &err) < 0)
			return; /* the step daemon is gone: the step is over */
		if (type == MSG_PMI_FENCE_DONE)
			fence_done(body);
		msg_body_free(type, body);
	}
}

static int start(const struct pmix_setup *s, struct rota_error *err)
{
	void *list = PMIx_Info_list_start();
	pmix_data_array_t darray = {0};
	pmix_status_t rc;
	int ret = 0;

	PMIx_Info_list_add(list, PMIX_SERVER_TMPDIR, s->tmpdir, PMIX_STRING);
	PMIx_Info_list_add(list, PMIX_SYSTEM_TMPDIR, s->tmpdir, PMIX_STRING);
	PMIx_Info_list_convert(list, &darray);
	rc = PMIx_server_init(&module, darray.array, darray.size);
	if (rc != PMIX_SUCCESS)
		ret = errprintf(err, "mpi/pmix: cannot start the PMIx server: %s",
		                PMIx_Error_string(rc));
	PMIx_Data_array_destruct(&darray);
	PMIx_Info_list_release(list);
	return ret;
}

int main(int argc, char **argv)
{
	struct rota_error err = {""};
	struct pmix_setup *s = NULL;
	uint16_t type = 0;
	int started = 0, rc = 1;

	log_init("rotapmix", getenv("ROTAPMIX_VERBOSE") ? LOG_DEBUG : LOG_INFO, NULL);
	if (pipe2(up.wake, O_CLOEXEC | O_NONBLOCK) < 0)
		return 1;
	if (net_recv(LINK_FD, &type, (void **)&s, SETUP_TIMEOUT, &err) < 0 ||
	    type != MSG_PMIX_SETUP) {
		log_err("no setup from the step daemon: %s", err.text);
		goto out;
	}
	if (!s->nodes || s->tasks.n != strv_len(s->nodes) ||
	    s->node_index >= s->tasks.n || s->tasks.v[s->node_index] > PMIX_RANKS_MAX ||
	    !s->nspace || !s->tmpdir) {
		errprintf(&err, "mpi/pmix: a malformed setup");
	} else if (start(s, &err) == 0) {
		started = 1;
		if (register_nspace(s, &err) == 0 && register_clients(s, &err) == 0) {
			serve();
			rc = 0;
		}
	}
	if (rc) {
		struct rc_msg m = {.rc = -1, .msg = err.text};
		log_err("%s", err.text);
		net_send(LINK_FD, MSG_RC, &m, NULL);
	}
out:
	if (started)
		PMIx_server_finalize();
	if (s)
		msg_body_free(MSG_PMIX_SETUP, s);
	return rc;
}
