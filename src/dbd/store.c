/* store.c - the accounting store: what each journal event stores and what a
 * sacct query returns, for every back end (store_driver.h runs the SQL). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/strv.h"
#include "common/gres_req.h"
#include "common/arrayspec.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "ctld/job_event.h"
#include "common/hostlist.h"
#include "dbd/store.h"
#include "dbd/store_driver.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

#define QUERY_LIMIT 5000000 /* job runs one query may return */

/* The columns of a run, in the order of the statements below. */
#define JOB_COLS                                                                         \
	"job_id, submit, restarts, array_job_id, array_task_id, array_pending, name, "   \
	"uid, gid, \"user\", grp, account, partition, qos, state, reason, exit_code, "   \
	"derived_exit, cancel_by, eligible, start, end_time, time_limit, priority, "     \
	"nodes, nnodes, ncpus, req_cpus, req_nodes, req_mem, work_dir, comment, "        \
	"constraints, reservation, batch, batch_cpus, superseded"

enum stmt_id {
	S_GET_SEQ,
	S_SET_SEQ,
	S_CURRENT,
	S_SUBMIT,
	S_START,
	S_END,
	S_PRIO,
	S_RELEASE,
	S_UPDATE,
	S_LIMIT,
	S_HET,
	S_REQUEUE_OLD,
	S_REQUEUE_NEW,
	S_SPLIT_COPY,
	S_SPLIT_SELF,
	S_PENDING_GET,
	S_PENDING_SET,
	S_STEP_START,
	S_STEP_END,
	S_STEPS_END,
	S_STEPS_OF,
	S_USAGE,
	S_USAGE_OF,
	S_NODES_OF,
	S_EXCISE,
	S_ADMIN_SET,
	S_ADMIN_DEL,
	S_ADMIN_CLEAR,
	S_ADMIN_GET,
	S_MOD_DERIVED,
	S_MOD_COMMENT,
	S_MOD_ADMIN_CMT,
	S_MOD_SYSTEM_CMT,
	S_MCS,
	S_MCS_COPY,
	S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
    [S_GET_SEQ] = "SELECT v FROM meta WHERE k = 'last_seq'",
    [S_SET_SEQ] = "INSERT INTO meta(k, v) VALUES('last_seq', ?1) "
                  "ON CONFLICT(k) DO UPDATE SET v = ?1",
    [S_CURRENT] = "SELECT db_id FROM job WHERE job_id = ?1 ORDER BY db_id DESC LIMIT 1",
    [S_SUBMIT] =
        "INSERT INTO job(" JOB_COLS ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
        "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, "
        "?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37) "
        "ON CONFLICT(job_id, submit, restarts) DO UPDATE SET "
        "array_job_id = ?4, array_task_id = ?5, array_pending = ?6, name = ?7, "
        "account = ?12, partition = ?13, eligible = ?20, time_limit = ?23, "
        "priority = ?24, req_cpus = ?28, req_nodes = ?29, req_mem = ?30, "
        "work_dir = ?31, comment = ?32, constraints = ?33",
    /* a job of several partitions (-p a,b) runs in one: ?9, else NULL */
    [S_START] = "UPDATE job SET start = ?2, nodes = ?3, nnodes = ?4, ncpus = ?5, "
                "batch_cpus = ?6, state = ?7, gres_tres = ?8, "
                "partition = COALESCE(?9, partition) WHERE db_id = ?1",
    [S_END] = "UPDATE job SET end_time = ?2, state = ?3, reason = ?4, exit_code = ?5, "
              "derived_exit = ?6, cancel_by = ?7 WHERE db_id = ?1",
    [S_PRIO] = "UPDATE job SET priority = ?2 WHERE db_id = ?1",
    [S_NODES_OF] = "SELECT nodes FROM job WHERE db_id = ?1",
    /* a node left the running job (--no-kill, a shrink): what it holds now */
    [S_EXCISE] = "UPDATE job SET nodes = ?2, nnodes = nnodes - 1, "
                 "ncpus = CASE WHEN ncpus > ?3 THEN ncpus - ?3 ELSE ncpus END "
                 "WHERE db_id = ?1 AND nnodes > 1",
    /* a pending job held (priority 0) released: eligible from then on, as
     * the controller counts it */
    [S_RELEASE] = "UPDATE job SET eligible = CASE WHEN priority = 0 AND start = 0 "
                  "AND eligible < ?3 THEN ?3 ELSE eligible END, priority = ?2 "
                  "WHERE db_id = ?1",
    [S_UPDATE] = "UPDATE job SET name = ?2, partition = ?3, account = ?4, "
                 "comment = ?5, work_dir = ?6, constraints = ?7, req_cpus = ?8, "
                 "req_nodes = ?9, req_mem = ?10 WHERE db_id = ?1",
    [S_LIMIT] = "UPDATE job SET time_limit = ?2 WHERE db_id = ?1",
    [S_HET] = "UPDATE job SET het_job_id = ?2, het_offset = ?3 WHERE db_id = "
              "(SELECT db_id FROM job WHERE job_id = ?1 ORDER BY db_id DESC LIMIT 1)",
    [S_REQUEUE_OLD] = "UPDATE job SET superseded = 1, "
                      "end_time = CASE WHEN end_time = 0 THEN ?2 ELSE end_time END, "
                      "state = CASE WHEN ?3 <> 0 THEN ?3 ELSE state END "
                      "WHERE db_id = ?1",
    [S_REQUEUE_NEW] =
        "INSERT INTO job(" JOB_COLS ") SELECT job_id, submit, restarts + 1, "
        "array_job_id, array_task_id, array_pending, name, uid, gid, \"user\", grp, "
        "account, partition, qos, 0, 0, 0, 0, 0, ?2, 0, 0, time_limit, priority, "
        "NULL, 0, 0, req_cpus, req_nodes, req_mem, work_dir, comment, constraints, "
        "reservation, batch, 0, 0 FROM job WHERE db_id = ?1 "
        "ON CONFLICT(job_id, submit, restarts) DO NOTHING",
    [S_SPLIT_COPY] =
        "INSERT INTO job(" JOB_COLS ") SELECT ?2, submit, restarts, array_job_id, ?3, "
        "NULL, name, uid, gid, \"user\", grp, account, partition, qos, state, reason, "
        "exit_code, derived_exit, cancel_by, eligible, start, end_time, time_limit, "
        "priority, nodes, nnodes, ncpus, req_cpus, req_nodes, req_mem, work_dir, "
        "comment, constraints, reservation, batch, batch_cpus, 0 FROM job "
        "WHERE db_id = ?1 ON CONFLICT(job_id, submit, restarts) DO NOTHING",
    [S_SPLIT_SELF] = "UPDATE job SET array_task_id = ?2, array_pending = NULL "
                     "WHERE db_id = ?1",
    [S_PENDING_GET] = "SELECT array_pending FROM job WHERE db_id = ?1",
    [S_PENDING_SET] = "UPDATE job SET array_pending = ?2 WHERE db_id = ?1",
    [S_STEP_START] = "INSERT INTO step(db_id, step_id, name, nodes, nnodes, ntasks, "
                     "ncpus, start, end_time, state, exit_code) "
                     "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, 1, 0) "
                     "ON CONFLICT(db_id, step_id) DO NOTHING",
    [S_STEP_END] = "UPDATE step SET end_time = ?3, state = ?4, exit_code = ?5 "
                   "WHERE db_id = ?1 AND step_id = ?2",
    [S_STEPS_END] = "UPDATE step SET end_time = ?2, state = ?3 "
                    "WHERE db_id = ?1 AND end_time = 0",
    [S_STEPS_OF] = "SELECT step_id, name, nodes, nnodes, ntasks, ncpus, start, "
                   "end_time, state, exit_code, max_rss, max_vm, ave_rss, user_usec, "
                   "sys_usec FROM step WHERE db_id = ?1 ORDER BY step_id",
    /* tasks: each task's "gtid:rss:vm:cpu:read:write", by commas */
    [S_USAGE] = "INSERT INTO usage(db_id, step_id, node, max_rss, user_usec, sys_usec, "
                "gpus, max_gpu_mem, ave_gpu_mem, max_gpu_util, ave_gpu_util, tasks) "
                "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) "
                "ON CONFLICT(db_id, step_id, node) "
                "DO UPDATE SET max_rss = ?4, user_usec = ?5, sys_usec = ?6, gpus = ?7, "
                "max_gpu_mem = ?8, ave_gpu_mem = ?9, max_gpu_util = ?10, "
                "ave_gpu_util = ?11, tasks = ?12",
    [S_USAGE_OF] = "SELECT step_id, node, max_rss, user_usec, sys_usec, gpus, "
                   "max_gpu_mem, ave_gpu_mem, max_gpu_util, ave_gpu_util, tasks "
                   "FROM usage WHERE db_id = ?1 ORDER BY step_id, node",
    /* the users' AdminLevel, from the controller's EV_ASSOC: who may
     * change other users' job records (sacctmgr modify job) */
    [S_ADMIN_SET] = "INSERT INTO admin_user(name, level) VALUES(?1, ?2) "
                    "ON CONFLICT(name) DO UPDATE SET level = ?2",
    [S_ADMIN_DEL] = "DELETE FROM admin_user WHERE name = ?1",
    [S_ADMIN_CLEAR] = "DELETE FROM admin_user",
    [S_ADMIN_GET] = "SELECT level FROM admin_user WHERE name = ?1",
    [S_MOD_DERIVED] = "UPDATE job SET derived_exit = ?2 WHERE db_id = ?1",
    [S_MOD_COMMENT] = "UPDATE job SET comment = ?2 WHERE db_id = ?1",
    [S_MOD_ADMIN_CMT] = "UPDATE job SET admin_comment = ?2 WHERE db_id = ?1",
    [S_MOD_SYSTEM_CMT] = "UPDATE job SET system_comment = ?2 WHERE db_id = ?1",
    /* the MCS label of job ?1's latest run */
    [S_MCS] = "UPDATE job SET mcs_label = ?2 WHERE db_id = "
              "(SELECT db_id FROM job WHERE job_id = ?1 ORDER BY db_id DESC LIMIT 1)",
    /* ... given to job ?2's latest run from run ?1 (a requeue, a split) */
    [S_MCS_COPY] = "UPDATE job SET mcs_label = (SELECT mcs_label FROM job WHERE "
                   "db_id = ?1) WHERE db_id = (SELECT db_id FROM job WHERE "
                   "job_id = ?2 ORDER BY db_id DESC LIMIT 1)",
};

struct store {
	int extern_steps; /* store_conf's */
	const struct store_driver *drv;
	struct sql_db *db;
	uint64_t last_seq;
	int in_txn;
};

#define NVALS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Run statement id with the values given, no rows wanted. */
#define EXEC(s, id, err, ...)                                                            \
	exec_vals((s), (id), (const struct sql_val[]){__VA_ARGS__},                      \
	          NVALS(((const struct sql_val[]){__VA_ARGS__})), (err))

static int exec_vals(struct store *s, int id, const struct sql_val *v, int n,
                     struct rota_error *err)
{
	return s->drv->run(s->db, id, NULL, v, n, NULL, err) < 0 ? -EIO : 0;
}

/* The first column of the first row of statement id, an integer: 1 and
 * *ret set, 0: no row, < 0: failed. */
static int first_int(struct store *s, int id, struct sql_val v, int n, int64_t *ret,
                     struct rota_error *err)
{
	struct sql_cur *c;
	int rc;

	if (s->drv->run(s->db, id, NULL, &v, n, &c, err) < 0)
		return -EIO;
	rc = s->drv->next(c, err);
	if (rc > 0)
		*ret = s->drv->col_int(c, 0);
	s->drv->done(c);
	return rc < 0 ? -EIO : rc;
}

static const struct store_driver *driver_of(const char *type, struct rota_error *err)
{
	static const struct {
		const char *name;
		const struct store_driver *drv;
	} types[] = {
	    {"accounting_storage/sqlite", &store_sqlite_driver},
	    {"accounting_storage/pgsql", &store_pgsql_driver},
	    {"accounting_storage/postgresql", &store_pgsql_driver},
	};

	if (!type)
		return &store_sqlite_driver;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcasecmp(type, types[i].name))
			return types[i].drv;
	errprintf(err,
	          "StorageType=%s: this rotadbd stores in accounting_storage/sqlite "
	          "(the default) or accounting_storage/pgsql",
	          type);
	return NULL;
}

int store_open(const struct store_conf *sc, struct store **ret, struct rota_error *err)
{
	const struct store_driver *drv = driver_of(sc->type, err);
	struct store *s;
	int64_t seq = 0;

	if (!drv)
		return -EINVAL;
	s = xcalloc(1, sizeof(*s));
	s->drv = drv;
	s->extern_steps = sc->extern_steps;
	if (drv->open(sc, stmt_sql, S_COUNT, &s->db, err) < 0) {
		free(s);
		return -EIO;
	}
	if (first_int(s, S_GET_SEQ, sql_int(0), 0, &seq, err) < 0) {
		store_close(s);
		return -EIO;
	}
	s->last_seq = (uint64_t)seq;
	*ret = s;
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	s->drv->close(s->db);
	free(s);
}

uint64_t store_last_seq(const struct store *s)
{
	return s->last_seq;
}

int store_begin(struct store *s, struct rota_error *err)
{
	if (s->drv->begin(s->db, err) < 0)
		return -EIO;
	s->in_txn = 1;
	return 0;
}

int store_commit(struct store *s, uint64_t seq, int reset, struct rota_error *err)
{
	int set = seq > s->last_seq || (reset && seq);

	if (set && EXEC(s, S_SET_SEQ, err, sql_int((int64_t)seq)) < 0) {
		store_rollback(s);
		return -EIO;
	}
	if (s->drv->commit(s->db, err) < 0) {
		store_rollback(s);
		return -EIO;
	}
	s->in_txn = 0;
	if (set)
		s->last_seq = seq;
	return 0;
}

void store_rollback(struct store *s)
{
	if (s->in_txn)
		s->drv->rollback(s->db);
	s->in_txn = 0;
}

static uint32_t desc_req_cpus(const struct job_desc *d)
{
	uint32_t tasks = d->num_tasks && d->num_tasks != NO_VAL ? d->num_tasks : 1;
	uint32_t cpt =
	    d->cpus_per_task && d->cpus_per_task != NO_VAL ? d->cpus_per_task : 1;

	if (d->ntasks_per_node && d->ntasks_per_node != NO_VAL && d->min_nodes &&
	    d->min_nodes != NO_VAL && (!d->num_tasks || d->num_tasks == NO_VAL))
		tasks = d->ntasks_per_node * d->min_nodes;
	return tasks * cpt;
}

static uint64_t desc_req_mem(const struct job_desc *d)
{
	if (d->mem_per_cpu && d->mem_per_cpu != NO_VAL64)
		return d->mem_per_cpu | ACCT_MEM_PER_CPU;
	if (d->mem_per_node && d->mem_per_node != NO_VAL64)
		return d->mem_per_node;
	return 0;
}

static uint32_t desc_req_nodes(const struct job_desc *d)
{
	return d->min_nodes && d->min_nodes != NO_VAL ? d->min_nodes : 1;
}

static int on_submit(struct store *s, const struct ev_submit *ev, struct rota_error *err)
{
	const struct job_desc *d = ev->desc_count ? &ev->desc[0] : NULL;
	const struct job_desc_ext *x;
	uint32_t array_job_id = ev->array_job_id, array_task_id = ev->array_task_id;
	char *pending = NULL;
	int rc;

	if (!d)
		return 0;
	x = job_desc_X(d);
	if (ev->array_pending && ev->array_pending[0]) {
		pending = xstrdup(ev->array_pending);
	} else if (!array_job_id && d->array_inx) {
		/* a fresh array: the whole of it waits in this record */
		struct arrayspec a;
		if (arrayspec_parse(d->array_inx, ARRAYSPEC_LIMIT, &a, NULL) == 0) {
			pending = arrayspec_format(&a, 0);
			arrayspec_release(&a);
		}
		array_job_id = ev->job_id;
		array_task_id = NO_VAL;
	}
	rc =
	    EXEC(s, S_SUBMIT, err, sql_int(ev->job_id), sql_int(ev->time),
	         sql_int(ev->restart_cnt), sql_int(array_job_id), sql_int(array_task_id),
	         sql_text(pending), sql_text(d->name), sql_int(ev->uid), sql_int(ev->gid),
	         sql_text(ev->user), sql_text(ev->group), sql_text(d->account),
	         sql_text(d->partition), sql_text(d->qos && *d->qos ? d->qos : "normal"),
	         sql_int(JOB_PENDING), sql_int(0), sql_int(0), sql_int(0), sql_int(0),
	         sql_int(ev->eligible_time          ? ev->eligible_time
	                 : d->begin_time > ev->time ? d->begin_time
	                                            : ev->time),
	         sql_int(0), sql_int(0), sql_int(ev->time_limit),
	         sql_int(ev->hold ? 0 : ev->priority), sql_text(NULL), sql_int(0),
	         sql_int(0), sql_int(desc_req_cpus(d)), sql_int(desc_req_nodes(d)),
	         sql_int((int64_t)desc_req_mem(d)), sql_text(d->work_dir),
	         sql_text(x->comment), sql_text(d->features), sql_text(x->reservation),
	         /* a heterogeneous job's other components run no script */
	         sql_int((d->script || ev->script_text) &&
	                         !(x->het_job_id && HET_OFFSET(x->het_offset))
	                     ? 1
	                     : 0),
	         sql_int(0), sql_int(0));
	free(pending);
	if (rc == 0 && x->het_job_id)
		rc = EXEC(s, S_HET, err, sql_int(ev->job_id), sql_int(x->het_job_id),
		          sql_int(HET_OFFSET(x->het_offset)));
	if (rc == 0 && x->mcs_label)
		rc = EXEC(s, S_MCS, err, sql_int(ev->job_id), sql_text(x->mcs_label));
	return rc;
}

static int on_start(struct store *s, int64_t run_id, const struct ev_start *ev,
                    struct rota_error *err)
{
	uint64_t cpus = 0;
	char *gres = gres_alloc_tres(ev->gres, strv_len(ev->gres));
	int rc;

	for (uint32_t i = 0; i < ev->cpus_per_node.n; i++)
		cpus += ev->cpus_per_node.v[i];
	rc =
	    EXEC(s, S_START, err, sql_int(run_id), sql_int(ev->time), sql_text(ev->nodes),
	         sql_int(ev->cpus_per_node.n), sql_int((int64_t)cpus),
	         sql_int(ev->cpus_per_node.n ? ev->cpus_per_node.v[0] : 0),
	         sql_int(JOB_RUNNING), sql_text(gres), sql_text(ev->partition));
	free(gres);
	return rc;
}

static int on_end(struct store *s, int64_t run_id, const struct ev_end *ev,
                  struct rota_error *err)
{
	uint32_t st = ev->state & JOB_STATE_BASE;

	if (EXEC(s, S_END, err, sql_int(run_id), sql_int(ev->time), sql_int(st),
	         sql_int(ev->reason), sql_int(ev->exit_code), sql_int(ev->derived_exit),
	         sql_int(ev->cancel_by)) < 0)
		return -EIO;
	/* steps the job's end ended */
	return EXEC(s, S_STEPS_END, err, sql_int(run_id), sql_int(ev->time),
	            sql_int(st == JOB_COMPLETE ? JOB_COMPLETE : JOB_CANCELLED));
}

static int on_update(struct store *s, int64_t run_id, const struct ev_update *ev,
                     struct rota_error *err)
{
	if (ev->desc_count) {
		const struct job_desc *d = &ev->desc[0];
		if (EXEC(s, S_UPDATE, err, sql_int(run_id), sql_text(d->name),
		         sql_text(d->partition), sql_text(d->account),
		         sql_text(job_desc_X(d)->comment), sql_text(d->work_dir),
		         sql_text(d->features), sql_int(desc_req_cpus(d)),
		         sql_int(desc_req_nodes(d)),
		         sql_int((int64_t)desc_req_mem(d))) < 0)
			return -EIO;
	}
	if (ev->time_limit != NO_VAL &&
	    EXEC(s, S_LIMIT, err, sql_int(run_id), sql_int(ev->time_limit)) < 0)
		return -EIO;
	if (ev->priority != NO_VAL &&
	    EXEC(s, S_PRIO, err, sql_int(run_id), sql_int(ev->priority)) < 0)
		return -EIO;
	return 0;
}

static int on_requeue(struct store *s, int64_t run_id, const struct ev_requeue *ev,
                      struct rota_error *err)
{
	if (EXEC(s, S_REQUEUE_OLD, err, sql_int(run_id), sql_int(ev->time),
	         sql_int(ev->ended)) < 0)
		return -EIO;
	/* a crontab's entry is eligible again at its next start */
	if (EXEC(s, S_REQUEUE_NEW, err, sql_int(run_id),
	         sql_int(ev->begin_time > ev->time ? ev->begin_time : ev->time)) < 0)
		return -EIO;
	return EXEC(s, S_MCS_COPY, err, sql_int(run_id), sql_int(ev->job_id));
}

/* Task t leaves the remainder's pending set. */
static int pending_drop(struct store *s, int64_t run_id, uint32_t t,
                        struct rota_error *err)
{
	struct sql_val id = sql_int(run_id);
	struct sql_cur *c;
	struct arrayspec a;
	const char *text;
	char *left;
	int rc, parsed = -1;

	if (s->drv->run(s->db, S_PENDING_GET, NULL, &id, 1, &c, err) < 0)
		return -EIO;
	if (s->drv->next(c, NULL) > 0 && (text = s->drv->col_text(c, 0)))
		parsed = arrayspec_parse(text, ARRAYSPEC_LIMIT, &a, NULL);
	s->drv->done(c);
	if (parsed < 0)
		return 0;
	arrayspec_clear(&a, t);
	left = arrayspec_format(&a, 0);
	arrayspec_release(&a);
	rc =
	    EXEC(s, S_PENDING_SET, err, sql_int(run_id), sql_text(left[0] ? left : NULL));
	free(left);
	return rc;
}

static int on_split(struct store *s, int64_t run_id, const struct ev_array_split *ev,
                    struct rota_error *err)
{
	if (ev->new_job_id) {
		if (EXEC(s, S_SPLIT_COPY, err, sql_int(run_id), sql_int(ev->new_job_id),
		         sql_int(ev->array_task_id)) < 0 ||
		    EXEC(s, S_MCS_COPY, err, sql_int(run_id), sql_int(ev->new_job_id)) <
		        0)
			return -EIO;
		return pending_drop(s, run_id, ev->array_task_id, err);
	}
	return EXEC(s, S_SPLIT_SELF, err, sql_int(run_id), sql_int(ev->array_task_id));
}

static int on_step_start(struct store *s, int64_t run_id, const struct ev_step_start *ev,
                         struct rota_error *err)
{
	return EXEC(s, S_STEP_START, err, sql_int(run_id), sql_int(ev->step_id),
	            sql_text(ev->text), sql_text(ev->nodes), sql_int(ev->cpus_per_node.n),
	            sql_int(ev->num_tasks), sql_int(ev->num_cpus), sql_int(ev->time));
}

static int on_step_end(struct store *s, int64_t run_id, const struct ev_step_end *ev,
                       struct rota_error *err)
{
	uint32_t st = ev->state                     ? ev->state
	              : ev->exit_code == 0          ? JOB_COMPLETE
	              : (ev->exit_code & 0x7f) != 0 ? JOB_CANCELLED
	                                            : JOB_FAILED;

	return EXEC(s, S_STEP_END, err, sql_int(run_id), sql_int(ev->step_id),
	            sql_int(ev->time), sql_int(st), sql_int(ev->exit_code));
}

/* The job's node list without ev's node, its CPUs there given back. */
static int on_excise(struct store *s, int64_t run_id, const struct ev_excise *ev,
                     struct rota_error *err)
{
	struct sql_val id = sql_int(run_id);
	struct sql_cur *c;
	char **names = NULL, *left = NULL;
	size_t n = 0, k = 0;
	int rc;

	if (!ev->node || s->drv->run(s->db, S_NODES_OF, NULL, &id, 1, &c, err) < 0)
		return ev->node ? -EIO : 0;
	rc = s->drv->next(c, err);
	if (rc > 0 && s->drv->col_text(c, 0) &&
	    hostlist_expand(s->drv->col_text(c, 0), &names, &n, NULL) < 0)
		names = NULL;
	s->drv->done(c);
	if (rc < 0) {
		hostlist_free(names);
		return -EIO;
	}
	for (size_t i = 0; names && i < n; i++)
		if (strcmp(names[i], ev->node))
			names[k++] = names[i];
		else
			free(names[i]);
	if (names && k + 1 == n) /* it was there */
		left = hostlist_compress(names, k);
	if (names)
		names[k] = NULL; /* the rest moved down or freed */
	hostlist_free(names);
	if (!left)
		return 0;
	rc = EXEC(s, S_EXCISE, err, id, sql_text(left), sql_int(ev->cpus));
	free(left);
	return rc;
}

/* The tasks' figures as the usage row keeps them (NULL: none came). */
static char *tasks_text(const struct ev_usage *ev)
{
	char *t = NULL, *next;

	for (uint32_t i = 0; i < ev->tasks_count; i++) {
		const struct task_used *u = &ev->tasks[i];
		next = xasprintf(
		    "%s%s%u:%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64,
		    t ? t : "", t ? "," : "", u->gtid, u->max_rss_kib, u->max_vsize_kib,
		    u->cpu_usec, u->read_bytes, u->write_bytes);
		free(t);
		t = next;
	}
	return t;
}

static int on_usage(struct store *s, int64_t run_id, const struct ev_usage *ev,
                    struct rota_error *err)
{
	char *tasks = tasks_text(ev);
	int rc = EXEC(s, S_USAGE, err, sql_int(run_id), sql_int(ev->step_id),
	              sql_text(ev->node ? ev->node : ""), sql_int((int64_t)ev->max_rss),
	              sql_int((int64_t)ev->user_usec), sql_int((int64_t)ev->sys_usec),
	              sql_int(ev->gpus), sql_int((int64_t)ev->max_gpu_mem),
	              sql_int((int64_t)ev->ave_gpu_mem), sql_int(ev->max_gpu_util),
	              sql_int(ev->ave_gpu_util), sql_text(tasks));

	free(tasks);
	return rc;
}

/* The users' admin levels: a snapshot's record holds them all. */
static int on_assoc(struct store *s, const struct ev_assoc *ev, struct rota_error *err)
{
	if (ev->usage_time &&
	    s->drv->run(s->db, S_ADMIN_CLEAR, NULL, NULL, 0, NULL, err) < 0)
		return -EIO;
	for (size_t i = 0; ev->del_users && ev->del_users[i]; i++)
		if (EXEC(s, S_ADMIN_DEL, err, sql_text(ev->del_users[i])) < 0)
			return -EIO;
	for (size_t i = 0; i < ev->users_count; i++) {
		const struct assoc_user *u = &ev->users[i];
		if (!u->name)
			continue;
		if ((u->admin_level ? EXEC(s, S_ADMIN_SET, err, sql_text(u->name),
		                           sql_int(u->admin_level))
		                    : EXEC(s, S_ADMIN_DEL, err, sql_text(u->name))) < 0)
			return -EIO;
	}
	return 0;
}

int store_event(struct store *s, const union job_event *ev, struct rota_error *err)
{
	int64_t run_id = 0;

	if (ev->head.seq && ev->head.seq <= s->last_seq)
		return 0; /* stored before */
	switch (ev->head.type) {
	case EV_SUBMIT:
		return on_submit(s, &ev->submit, err);
	case EV_ASSOC:
		return on_assoc(s, &ev->assoc, err);
	case EV_START:
	case EV_END:
	case EV_HOLD:
	case EV_UPDATE:
	case EV_REQUEUE:
	case EV_ARRAY_SPLIT:
	case EV_STEP_START:
	case EV_STEP_END:
	case EV_USAGE:
	case EV_EXCISE:
		break;
	default:
		return 0; /* nodes, texts, marks: nothing to account */
	}
	/* the latest run of the job */
	if (first_int(s, S_CURRENT, sql_int(ev->job.job_id), 1, &run_id, err) < 0)
		return -EIO;
	if (!run_id)
		return 0; /* a job from before this store began */
	switch (ev->head.type) {
	case EV_START:
		return on_start(s, run_id, &ev->start, err);
	case EV_END:
		return on_end(s, run_id, &ev->end, err);
	case EV_HOLD:
		if (!ev->hold.hold)
			return EXEC(s, S_RELEASE, err, sql_int(run_id),
			            sql_int(ev->hold.priority), sql_int(ev->hold.time));
		return EXEC(s, S_PRIO, err, sql_int(run_id), sql_int(0));
	case EV_UPDATE:
		return on_update(s, run_id, &ev->update, err);
	case EV_REQUEUE:
		return on_requeue(s, run_id, &ev->requeue, err);
	case EV_ARRAY_SPLIT:
		return on_split(s, run_id, &ev->array_split, err);
	case EV_STEP_START:
		return on_step_start(s, run_id, &ev->step_start, err);
	case EV_USAGE:
		return on_usage(s, run_id, &ev->usage, err);
	case EV_EXCISE:
		return on_excise(s, run_id, &ev->excise, err);
	default:
		return on_step_end(s, run_id, &ev->step_end, err);
	}
}

/* ---- queries ---- */

/* A query's SQL, and its values: every value the user gave is a parameter. */
struct sqlbuf {
	char *sql;
	size_t len, cap;
	struct sql_val *v;
	int n, vcap;
};

static void sql_add(struct sqlbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sql_add(struct sqlbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->sql + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap * 2 + (size_t)n + 256;
		b->sql = xrealloc(b->sql, b->cap);
	}
	b->len += (size_t)n;
}

/* A value; its parameter's number. */
static int sql_param(struct sqlbuf *b, struct sql_val v)
{
	if (b->n == b->vcap) {
		b->vcap = b->vcap ? b->vcap * 2 : 16;
		b->v = xrealloc(b->v, (size_t)b->vcap * sizeof(*b->v));
	}
	b->v[b->n++] = v;
	return b->n;
}

static char *col_str(struct store *s, struct sql_cur *c, int i)
{
	const char *t = s->drv->col_text(c, i);

	return t ? xstrdup(t) : NULL;
}

static int read_steps(struct store *s, int64_t run_id, struct acct_job *j,
                      struct rota_error *err)
{
	const struct store_driver *drv = s->drv;
	struct sql_val id = sql_int(run_id);
	struct sql_cur *c;
	size_t n = 0, cap = 0;
	int rc;

	if (drv->run(s->db, S_STEPS_OF, NULL, &id, 1, &c, err) < 0)
		return -EIO;
	while ((rc = drv->next(c, err)) > 0) {
		struct acct_step *st;
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			j->steps = xrealloc(j->steps, cap * sizeof(*j->steps));
		}
		st = &j->steps[n++];
		memset(st, 0, sizeof(*st));
		st->step_id = (uint32_t)drv->col_int(c, 0);
		st->name = col_str(s, c, 1);
		st->nodes = col_str(s, c, 2);
		st->nnodes = (uint32_t)drv->col_int(c, 3);
		st->ntasks = (uint32_t)drv->col_int(c, 4);
		st->ncpus = (uint32_t)drv->col_int(c, 5);
		st->start = drv->col_int(c, 6);
		st->end = drv->col_int(c, 7);
		st->state = (uint32_t)drv->col_int(c, 8);
		st->exit_code = (uint32_t)drv->col_int(c, 9);
		st->max_rss = (uint64_t)drv->col_int(c, 10);
		st->max_vm = (uint64_t)drv->col_int(c, 11);
		st->ave_rss = (uint64_t)drv->col_int(c, 12);
		st->user_usec = (uint64_t)drv->col_int(c, 13);
		st->sys_usec = (uint64_t)drv->col_int(c, 14);
	}
	j->steps_count = n;
	drv->done(c);
	return rc < 0 ? -EIO : 0;
}

static void read_job(struct store *s, struct sql_cur *c, struct acct_job *j)
{
	int64_t (*col)(struct sql_cur *, int) = s->drv->col_int;
	int i = 1; /* 0 is db_id */

	memset(j, 0, sizeof(*j));
	j->job_id = (uint32_t)col(c, i++);
	j->submit = col(c, i++);
	j->restarts = (uint32_t)col(c, i++);
	j->array_job_id = (uint32_t)col(c, i++);
	j->array_task_id = (uint32_t)col(c, i++);
	j->array_pending = col_str(s, c, i++);
	j->name = col_str(s, c, i++);
	j->uid = (uint32_t)col(c, i++);
	j->gid = (uint32_t)col(c, i++);
	j->user = col_str(s, c, i++);
	j->group = col_str(s, c, i++);
	j->account = col_str(s, c, i++);
	j->partition = col_str(s, c, i++);
	j->qos = col_str(s, c, i++);
	j->state = (uint32_t)col(c, i++);
	j->reason = (uint32_t)col(c, i++);
	j->exit_code = (uint32_t)col(c, i++);
	j->derived_exit = (uint32_t)col(c, i++);
	j->cancel_by = (uint32_t)col(c, i++);
	j->eligible = col(c, i++);
	j->start = col(c, i++);
	j->end = col(c, i++);
	j->time_limit = (uint32_t)col(c, i++);
	j->priority = (uint32_t)col(c, i++);
	j->nodes = col_str(s, c, i++);
	j->nnodes = (uint32_t)col(c, i++);
	j->ncpus = (uint32_t)col(c, i++);
	j->req_cpus = (uint32_t)col(c, i++);
	j->req_nodes = (uint32_t)col(c, i++);
	j->req_mem = (uint64_t)col(c, i++);
	j->work_dir = col_str(s, c, i++);
	j->comment = col_str(s, c, i++);
	j->constraints = col_str(s, c, i++);
	j->reservation = col_str(s, c, i++);
	j->batch = (uint32_t)col(c, i++);
	i++; /* batch_cpus: the batch step's, add_implicit_steps */
	j->superseded = (uint32_t)col(c, i++);
	j->gres_tres = col_str(s, c, i++);
	j->het_job_id = (uint32_t)col(c, i++);
	j->het_offset = (uint32_t)col(c, i++);
	j->admin_comment = col_str(s, c, i++);
	j->system_comment = col_str(s, c, i++);
	j->mcs_label = col_str(s, c, i++);
}

/* N.batch and (PrologFlags=Contain) N.extern, which the journal does not
 * record as steps. */
static void add_implicit_steps(struct acct_job *j, uint32_t batch_cpus, int ext)
{
	uint32_t n = (j->batch ? 1 : 0) + (ext ? 1 : 0);
	char first[256] = "";
	uint32_t done = j->end ? (j->superseded ? JOB_CANCELLED : j->state) : JOB_RUNNING;

	if (!j->start || !n)
		return;
	if (j->nodes) {
		size_t k = strcspn(j->nodes, ",[");
		if (j->nodes[k] == '[') { /* node[01-04]: the first one */
			size_t d = strcspn(j->nodes + k + 1, ",-]");
			snprintf(first, sizeof(first), "%.*s%.*s", (int)k, j->nodes,
			         (int)d, j->nodes + k + 1);
		} else {
			snprintf(first, sizeof(first), "%.*s", (int)k, j->nodes);
		}
	}
	j->steps = xrealloc(j->steps, (j->steps_count + n) * sizeof(*j->steps));
	memmove(j->steps + n, j->steps, j->steps_count * sizeof(*j->steps));
	memset(j->steps, 0, n * sizeof(*j->steps));
	j->steps_count += n;
	for (uint32_t i = 0; i < n; i++) {
		struct acct_step *st = &j->steps[i];
		int batch = j->batch && i == 0;
		st->step_id = batch ? STEP_BATCH : STEP_EXTERN;
		st->name = xstrdup(batch ? "batch" : "extern");
		st->nodes = xstrdup(batch ? first : j->nodes);
		st->nnodes = batch ? 1 : j->nnodes;
		st->ntasks = batch ? 1 : j->nnodes;
		st->ncpus = batch ? batch_cpus : j->ncpus;
		st->start = j->start;
		st->end = j->end;
		if (!batch) {
			st->state = j->end ? JOB_COMPLETE : JOB_RUNNING;
		} else if (done == JOB_CANCELLED || done == JOB_TIMEOUT) {
			st->state = JOB_CANCELLED;
			st->exit_code = j->exit_code ? j->exit_code : 15; /* SIGTERM */
		} else {
			st->state = done;
			st->exit_code = j->exit_code;
		}
	}
}

static struct acct_step *step_of(struct acct_job *j, uint32_t step_id)
{
	for (size_t i = 0; i < j->steps_count; i++)
		if (j->steps[i].step_id == step_id)
			return &j->steps[i];
	return NULL;
}

/* One node's GPU figures (usage columns 5..9) into st: GPUs summed, the
 * highest max_, ave_ summed (add_usage divides by the nodes with GPUs). */
static void add_gpu_use(const struct store_driver *drv, struct sql_cur *c,
                        struct acct_step *st, uint64_t *gpu_nodes)
{
	uint32_t gpus = (uint32_t)drv->col_int(c, 5);
	uint64_t mem = (uint64_t)drv->col_int(c, 6);
	uint32_t util = (uint32_t)drv->col_int(c, 8);

	if (!gpus)
		return;
	st->gpus += gpus;
	st->max_gpu_mem = mem > st->max_gpu_mem ? mem : st->max_gpu_mem;
	st->max_gpu_util = util > st->max_gpu_util ? util : st->max_gpu_util;
	st->ave_gpu_mem += (uint64_t)drv->col_int(c, 7);
	st->ave_gpu_util += (uint32_t)drv->col_int(c, 9);
	(*gpu_nodes)++;
}

/* What the step's tasks used (tasks_text's), task by task, into st: each
 * peak and where (node, task), the lowest CPU time, the sums (the averages
 * are made of them once every node is in). */
struct task_sums {
	uint64_t rss, vm, max_rss;
	char *max_rss_node;
	uint32_t max_rss_task;
};

static void take_max(uint64_t v, uint64_t *max, char **node, uint32_t *task,
                     const char *here, uint32_t gtid, int first)
{
	if (!first && v <= *max)
		return;
	*max = v;
	*task = gtid;
	free(*node);
	*node = xstrdup(here);
}

static void add_tasks(struct acct_step *st, const char *text, const char *node,
                      struct task_sums *sum)
{
	unsigned long long v[6];
	int n;

	for (const char *p = text; p && *p; p += *p == ',') {
		if (sscanf(p, "%llu:%llu:%llu:%llu:%llu:%llu%n", &v[0], &v[1], &v[2],
		           &v[3], &v[4], &v[5], &n) != 6)
			return;
		p += n;
		int first = !st->tasks_known++;
		uint32_t gtid = (uint32_t)v[0];
		take_max(v[1], &sum->max_rss, &sum->max_rss_node, &sum->max_rss_task,
		         node, gtid, first);
		take_max(v[2], &st->max_vm, &st->max_vm_node, &st->max_vm_task, node,
		         gtid, first);
		if (first || v[3] < st->min_cpu) {
			st->min_cpu = v[3];
			st->min_cpu_task = gtid;
			free(st->min_cpu_node);
			st->min_cpu_node = xstrdup(node);
		}
		take_max(v[4], &st->max_read, &st->max_read_node, &st->max_read_task,
		         node, gtid, first);
		take_max(v[5], &st->max_write, &st->max_write_node, &st->max_write_task,
		         node, gtid, first);
		sum->rss += v[1];
		sum->vm += v[2];
		st->tot_read += v[4];
		st->tot_write += v[5];
	}
}

/* A step's figures once every node is in: where the tasks reported, theirs
 * (MaxRSS the highest task's, AveRSS and AveVMSize per task). */
static void tasks_done(struct acct_step *st, struct task_sums *sum)
{
	if (st->tasks_known) {
		st->max_rss = sum->max_rss;
		free(st->max_rss_node);
		st->max_rss_node = sum->max_rss_node;
		sum->max_rss_node = NULL;
		st->max_rss_task = sum->max_rss_task;
		st->ave_rss = sum->rss / st->tasks_known;
		st->ave_vm = sum->vm / st->tasks_known;
	}
	free(sum->max_rss_node);
	memset(sum, 0, sizeof(*sum));
}

/* Each step's usage from its nodes' reports: the highest peak (and where),
 * the peaks' average (AveRSS), the CPU times summed; the GPUs' (above). */
static int add_usage(struct store *s, int64_t run_id, struct acct_job *j,
                     struct rota_error *err)
{
	const struct store_driver *drv = s->drv;
	struct sql_val id = sql_int(run_id);
	struct acct_step *st = NULL;
	uint64_t rss_sum = 0, nodes = 0, gpu_nodes = 0;
	struct task_sums ts = {0};
	struct sql_cur *c;
	int more;

	if (drv->run(s->db, S_USAGE_OF, NULL, &id, 1, &c, err) < 0)
		return -EIO;
	for (more = drv->next(c, err);; more = drv->next(c, err)) {
		uint32_t step = more > 0 ? (uint32_t)drv->col_int(c, 0) : 0;
		uint64_t rss;

		if (st && (more <= 0 || step != st->step_id)) {
			st->ave_rss = nodes ? rss_sum / nodes : 0;
			tasks_done(st, &ts);
			st->ave_gpu_mem = gpu_nodes ? st->ave_gpu_mem / gpu_nodes : 0;
			st->ave_gpu_util =
			    gpu_nodes ? (uint32_t)(st->ave_gpu_util / gpu_nodes) : 0;
			st = NULL;
		}
		if (more <= 0)
			break;
		if (!st) {
			if (!(st = step_of(j, step)))
				continue;
			rss_sum = nodes = gpu_nodes = 0;
		}
		rss = (uint64_t)drv->col_int(c, 2);
		if (rss > st->max_rss || !st->max_rss_node) {
			st->max_rss = rss;
			free(st->max_rss_node);
			st->max_rss_node = col_str(s, c, 1);
		}
		rss_sum += rss;
		nodes++;
		st->user_usec += (uint64_t)drv->col_int(c, 3);
		st->sys_usec += (uint64_t)drv->col_int(c, 4);
		add_gpu_use(drv, c, st, &gpu_nodes);
		add_tasks(st, drv->col_text(c, 10), drv->col_text(c, 1), &ts);
	}
	drv->done(c);
	return more < 0 ? -EIO : 0;
}

static void add_in_u32(struct sqlbuf *b, const char *col, const uint32_t *v, uint32_t n)
{
	sql_add(b, " AND %s IN (", col);
	for (uint32_t i = 0; i < n; i++)
		sql_add(b, "%s?%d", i ? "," : "", sql_param(b, sql_int(v[i])));
	sql_add(b, ")");
}

static void add_in_strs(struct sqlbuf *b, const char *col, char **v)
{
	sql_add(b, " AND %s IN (", col);
	for (size_t i = 0; v[i]; i++)
		sql_add(b, "%s?%d", i ? "," : "", sql_param(b, sql_text(v[i])));
	sql_add(b, ")");
}

/* "N" or "N_T" into the WHERE clause. */
static int add_jobs(struct sqlbuf *b, char **jobs, struct rota_error *err)
{
	sql_add(b, " AND (");
	for (size_t i = 0; jobs[i]; i++) {
		char *end;
		unsigned long id = strtoul(jobs[i], &end, 10), t;
		int p;
		if (end == jobs[i] || id > UINT32_MAX)
			return errprintf(err, "Invalid job id: %s", jobs[i]);
		if (i)
			sql_add(b, " OR ");
		p = sql_param(b, sql_int((int64_t)id));
		if (*end == '_') {
			t = strtoul(end + 1, &end, 10);
			sql_add(b, "(array_job_id = ?%d AND array_task_id = ?%d)", p,
			        sql_param(b, sql_int((int64_t)t)));
		} else if (*end == '+') { /* N+K: component K of N */
			t = strtoul(end + 1, &end, 10);
			sql_add(b, "(het_job_id = ?%d AND het_offset = ?%d)", p,
			        sql_param(b, sql_int((int64_t)t)));
		} else { /* a heterogeneous job's leader: every component */
			sql_add(b,
			        "job_id = ?%d OR array_job_id = ?%d OR het_job_id = ?%d",
			        p, p, p);
		}
		if (*end)
			return errprintf(err, "Invalid job id: %s", jobs[i]);
	}
	sql_add(b, ")");
	return 0;
}

/* One state of sacct -s in the window [?s, ?e) (0: no bound), as Slurm
 * tells it: pending from eligible until it started (or ended unstarted, or
 * still), running from its start to its end (or still), any other state:
 * the run ended so in the window. */
static void add_state_window(struct sqlbuf *b, uint32_t state, int s, int e)
{
	if (state == JOB_PENDING)
		sql_add(b,
		        "(eligible <> 0 AND ((start <> 0 AND ?%d < start) OR "
		        "(start = 0 AND end_time <> 0 AND ?%d < end_time) OR "
		        "(start = 0 AND end_time = 0 AND state = %u)) AND "
		        "(?%d = 0 OR eligible < ?%d))",
		        s, s, state, e, e);
	else if (state == JOB_RUNNING || state == JOB_SUSPENDED)
		sql_add(b,
		        "(start <> 0 AND (?%d < end_time OR (end_time = 0 AND "
		        "state = %u)) AND (?%d = 0 OR start < ?%d))",
		        s, state, e, e);
	else
		sql_add(b,
		        "(state = %u AND end_time <> 0 AND end_time >= ?%d AND "
		        "(?%d = 0 OR end_time <= ?%d))",
		        state, s, e, e);
}

/* The window: with states, any of them in it; without, a run that existed
 * in it (one of the jobs named: submitted before its end; else eligible
 * before it) and had not ended before its start. */
static void add_window(struct sqlbuf *b, const struct acct_query *qr)
{
	int s, e;

	if (qr->states.n) {
		s = sql_param(b, sql_int(qr->start));
		e = sql_param(b, sql_int(qr->end));
		sql_add(b, " AND (");
		for (uint32_t i = 0; i < qr->states.n; i++) {
			sql_add(b, "%s", i ? " OR " : "");
			add_state_window(b, qr->states.v[i], s, e);
		}
		sql_add(b, ")");
		return;
	}
	if (qr->end && qr->jobs && qr->jobs[0])
		sql_add(b, " AND submit < ?%d", sql_param(b, sql_int(qr->end)));
	else if (qr->end)
		sql_add(b, " AND eligible <> 0 AND eligible < ?%d",
		        sql_param(b, sql_int(qr->end)));
	if (qr->start)
		sql_add(b, " AND (end_time = 0 OR end_time >= ?%d)",
		        sql_param(b, sql_int(qr->start)));
}

/* The SELECT of the job runs q selects, in the order sacct prints them. */
static int query_sql(struct sqlbuf *b, const struct acct_query *qr,
                     struct rota_error *err)
{
	sql_add(b, "SELECT db_id, " JOB_COLS ", gres_tres, het_job_id, het_offset, "
	           "admin_comment, system_comment, mcs_label FROM job "
	           "WHERE 1 = 1");
	if (!(qr->flags & ACCT_QUERY_F_DUPLICATES))
		sql_add(b, " AND superseded = 0");
	if (qr->jobs && qr->jobs[0] && add_jobs(b, qr->jobs, err) < 0)
		return -EINVAL;
	if (qr->uids.n)
		add_in_u32(b, "uid", qr->uids.v, qr->uids.n);
	if (qr->gids.n)
		add_in_u32(b, "gid", qr->gids.v, qr->gids.n);
	if (qr->accounts && qr->accounts[0])
		add_in_strs(b, "account", qr->accounts);
	if (qr->partitions && qr->partitions[0])
		add_in_strs(b, "partition", qr->partitions);
	if (qr->names && qr->names[0])
		add_in_strs(b, "name", qr->names);
	add_window(b, qr);
	sql_add(b,
	        " ORDER BY CASE WHEN array_job_id <> 0 THEN array_job_id ELSE job_id END,"
	        " array_task_id, restarts, db_id");
	return 0;
}

/* sacct -N: is name one of the nodes asked for (want, NULL-ended)? */
static int node_wanted(const char *name, void *arg)
{
	char **want = arg;

	for (size_t i = 0; want[i]; i++)
		if (!strcmp(want[i], name))
			return 1;
	return 0;
}

int store_query(struct store *s, const struct acct_query *qr, store_job_f cb, void *arg,
                struct rota_error *err)
{
	const struct store_driver *drv = s->drv;
	struct sqlbuf b = {0};
	struct sql_cur *c = NULL;
	char **want = NULL;
	size_t nwant = 0;
	int rc;
	size_t n = 0;

	if (query_sql(&b, qr, err) < 0) {
		rc = -EINVAL;
		goto out;
	}
	if (qr->nodes && *qr->nodes &&
	    hostlist_expand(qr->nodes, &want, &nwant, err) < 0) {
		rc = -EINVAL;
		goto out;
	}
	log_debug("query: %s (%d values)", b.sql, b.n);
	if (drv->run(s->db, -1, b.sql, b.v, b.n, &c, err) < 0) {
		rc = -EIO;
		goto out;
	}
	while ((rc = drv->next(c, err)) > 0) {
		struct acct_job j;
		int64_t run_id = drv->col_int(c, 0);
		if (++n > QUERY_LIMIT) {
			rc = errprintf(err, "more than %d job records: narrow the query",
			               QUERY_LIMIT);
			goto out;
		}
		read_job(s, c, &j);
		rc = 0;
		if (want && !hostlist_overlaps(j.nodes, node_wanted, want)) {
			codec_release(&acct_job_type, &j);
			continue;
		}
		if (!(qr->flags & ACCT_QUERY_F_NO_STEPS)) {
			rc = read_steps(s, run_id, &j, err);
			add_implicit_steps(&j, (uint32_t)drv->col_int(c, 36),
			                   s->extern_steps);
			if (rc == 0)
				rc = add_usage(s, run_id, &j, err);
		}
		if (rc == 0)
			rc = cb(arg, &j);
		codec_release(&acct_job_type, &j);
		if (rc < 0)
			goto out;
	}
out:
	drv->done(c);
	free(b.sql);
	free(b.v);
	hostlist_free(want);
	return rc < 0 ? rc : 0;
}

/* ---- sacctmgr modify job ---- */

int store_admin_level(struct store *s, const char *user)
{
	int64_t level = 0;

	if (!user || first_int(s, S_ADMIN_GET, sql_text(user), 1, &level, NULL) <= 0)
		return 0;
	return (int)level;
}

/* A run a modify selected: its row, whose it is, what sacctmgr says of it. */
struct mod_run {
	int64_t db_id;
	uint32_t uid;
	char *line; /* "N submitted at T" */
};

/* The latest run of each job req selects (at most QUERY_LIMIT). */
static int mod_select(struct store *s, const struct acct_job_modify *req,
                      struct mod_run **ret, size_t *ret_n, struct rota_error *err)
{
	struct acct_query q = {
	    .jobs = req->jobs,
	    .uids = req->uids,
	    .accounts = req->accounts,
	    .start = req->start,
	    .end = req->end,
	    .flags = ACCT_QUERY_F_NO_STEPS,
	};
	struct sqlbuf b = {0};
	struct sql_cur *c = NULL;
	struct mod_run *runs = NULL;
	size_t n = 0, cap = 0;
	int rc = -EINVAL;

	if (query_sql(&b, &q, err) < 0)
		goto out;
	rc = -EIO;
	if (s->drv->run(s->db, -1, b.sql, b.v, b.n, &c, err) < 0)
		goto out;
	while ((rc = s->drv->next(c, err)) > 0) {
		char when[64];
		if (n == QUERY_LIMIT) {
			rc = errprintf(err, "more than %d job records: narrow the query",
			               QUERY_LIMIT);
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			runs = xrealloc(runs, cap * sizeof(*runs));
		}
		/* db_id, then JOB_COLS: job_id, submit, ..., uid (8) */
		runs[n].db_id = s->drv->col_int(c, 0);
		runs[n].uid = (uint32_t)s->drv->col_int(c, 8);
		timefmt_iso((time_t)s->drv->col_int(c, 2), when, sizeof(when));
		runs[n].line =
		    xasprintf("%" PRId64 " submitted at %s", s->drv->col_int(c, 1), when);
		n++;
	}
out:
	s->drv->done(c);
	free(b.sql);
	free(b.v);
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			free(runs[i].line);
		free(runs);
		return rc;
	}
	*ret = runs;
	*ret_n = n;
	return 0;
}

static int mod_apply(struct store *s, const struct acct_job_modify *req, int64_t id,
                     struct rota_error *err)
{
	if ((req->set & ACCT_MOD_DERIVED) &&
	    EXEC(s, S_MOD_DERIVED, err, sql_int(id), sql_int(req->derived_exit)) < 0)
		return -EIO;
	if ((req->set & ACCT_MOD_COMMENT) &&
	    EXEC(s, S_MOD_COMMENT, err, sql_int(id), sql_text(req->comment)) < 0)
		return -EIO;
	if ((req->set & ACCT_MOD_ADMIN_CMT) &&
	    EXEC(s, S_MOD_ADMIN_CMT, err, sql_int(id), sql_text(req->admin_comment)) < 0)
		return -EIO;
	if ((req->set & ACCT_MOD_SYSTEM_CMT) &&
	    EXEC(s, S_MOD_SYSTEM_CMT, err, sql_int(id), sql_text(req->system_comment)) <
	        0)
		return -EIO;
	return 0;
}

int store_job_modify(struct store *s, const struct acct_job_modify *req, uint32_t uid,
                     int admin, char ***ret_changed, struct rota_error *err)
{
	struct mod_run *runs = NULL;
	size_t n = 0;
	char **changed = NULL;
	int rc;

	if (!admin && (req->set & (ACCT_MOD_ADMIN_CMT | ACCT_MOD_SYSTEM_CMT)))
		return -EPERM;
	if ((rc = mod_select(s, req, &runs, &n, err)) < 0)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (!admin && runs[i].uid != uid)
			rc = -EPERM;
	if (rc == 0 && n && !(req->flags & ACCT_MOD_F_DRY_RUN)) {
		rc = store_begin(s, err);
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = mod_apply(s, req, runs[i].db_id, err);
		if (rc == 0)
			rc = store_commit(s, 0, 0, err);
		else
			store_rollback(s);
	}
	for (size_t i = 0; i < n; i++) {
		if (rc == 0)
			changed = strv_append(changed, runs[i].line);
		free(runs[i].line);
	}
	free(runs);
	if (rc < 0) {
		strv_free(changed);
		return rc;
	}
	*ret_changed = changed;
	return 0;
}
