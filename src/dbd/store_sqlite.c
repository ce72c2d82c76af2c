/* store_sqlite.c - the accounting store in one SQLite file. */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/arrayspec.h"
#include "common/states.h"
#include "ctld/job_event.h"
#include "dbd/store.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

#define BUSY_MS     10000
#define QUERY_LIMIT 5000000 /* job runs one query may return */

/* The columns of a run, in the order of the statements below. */
#define JOB_COLS                                                                         \
	"job_id, submit, restarts, array_job_id, array_task_id, array_pending, name, "   \
	"uid, gid, user, grp, account, partition, qos, state, reason, exit_code, "       \
	"derived_exit, cancel_by, eligible, start, end_time, time_limit, priority, "     \
	"nodes, nnodes, ncpus, req_cpus, req_nodes, req_mem, work_dir, comment, "        \
	"constraints, reservation, batch, batch_cpus, superseded"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v INTEGER);"
    "CREATE TABLE IF NOT EXISTS job("
    " db_id INTEGER PRIMARY KEY,"
    " job_id INTEGER NOT NULL, submit INTEGER NOT NULL, restarts INTEGER NOT NULL,"
    " array_job_id INTEGER, array_task_id INTEGER, array_pending TEXT, name TEXT,"
    " uid INTEGER, gid INTEGER, user TEXT, grp TEXT, account TEXT, partition TEXT,"
    " qos TEXT, state INTEGER, reason INTEGER, exit_code INTEGER,"
    " derived_exit INTEGER, cancel_by INTEGER, eligible INTEGER, start INTEGER,"
    " end_time INTEGER, time_limit INTEGER, priority INTEGER, nodes TEXT,"
    " nnodes INTEGER, ncpus INTEGER, req_cpus INTEGER, req_nodes INTEGER,"
    " req_mem INTEGER, work_dir TEXT, comment TEXT, constraints TEXT,"
    " reservation TEXT, batch INTEGER, batch_cpus INTEGER,"
    " superseded INTEGER NOT NULL DEFAULT 0);"
    "CREATE UNIQUE INDEX IF NOT EXISTS job_run ON job(job_id, submit, restarts);"
    "CREATE INDEX IF NOT EXISTS job_array ON job(array_job_id, array_task_id);"
    "CREATE INDEX IF NOT EXISTS job_uid ON job(uid, submit);"
    "CREATE INDEX IF NOT EXISTS job_end ON job(end_time);"
    "CREATE TABLE IF NOT EXISTS step("
    " db_id INTEGER NOT NULL, step_id INTEGER NOT NULL, name TEXT, nodes TEXT,"
    " nnodes INTEGER, ntasks INTEGER, ncpus INTEGER, start INTEGER,"
    " end_time INTEGER, state INTEGER, exit_code INTEGER, max_rss INTEGER,"
    " max_vm INTEGER, ave_rss INTEGER, user_usec INTEGER, sys_usec INTEGER,"
    " PRIMARY KEY(db_id, step_id));"
    /* what a step used, node by node as each reported it (a report sent
     * twice replaces itself) */
    "CREATE TABLE IF NOT EXISTS usage("
    " db_id INTEGER NOT NULL, step_id INTEGER NOT NULL, node TEXT NOT NULL,"
    " max_rss INTEGER, user_usec INTEGER, sys_usec INTEGER,"
    " PRIMARY KEY(db_id, step_id, node));";

enum stmt_id {
	S_BEGIN,
	S_COMMIT,
	S_ROLLBACK,
	S_SET_SEQ,
	S_CURRENT,
	S_SUBMIT,
	S_START,
	S_END,
	S_PRIO,
	S_UPDATE,
	S_LIMIT,
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
	S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
    [S_BEGIN] = "BEGIN IMMEDIATE",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
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
    [S_START] = "UPDATE job SET start = ?2, nodes = ?3, nnodes = ?4, ncpus = ?5, "
                "batch_cpus = ?6, state = ?7 WHERE db_id = ?1",
    [S_END] = "UPDATE job SET end_time = ?2, state = ?3, reason = ?4, exit_code = ?5, "
              "derived_exit = ?6, cancel_by = ?7 WHERE db_id = ?1",
    [S_PRIO] = "UPDATE job SET priority = ?2 WHERE db_id = ?1",
    [S_UPDATE] = "UPDATE job SET name = ?2, partition = ?3, account = ?4, "
                 "comment = ?5, work_dir = ?6, constraints = ?7, req_cpus = ?8, "
                 "req_nodes = ?9, req_mem = ?10 WHERE db_id = ?1",
    [S_LIMIT] = "UPDATE job SET time_limit = ?2 WHERE db_id = ?1",
    [S_REQUEUE_OLD] = "UPDATE job SET superseded = 1, "
                      "end_time = CASE WHEN end_time = 0 THEN ?2 ELSE end_time END "
                      "WHERE db_id = ?1",
    [S_REQUEUE_NEW] =
        "INSERT INTO job(" JOB_COLS ") SELECT job_id, submit, restarts + 1, "
        "array_job_id, array_task_id, array_pending, name, uid, gid, user, grp, "
        "account, partition, qos, 0, 0, 0, 0, 0, ?2, 0, 0, time_limit, priority, "
        "NULL, 0, 0, req_cpus, req_nodes, req_mem, work_dir, comment, constraints, "
        "reservation, batch, 0, 0 FROM job WHERE db_id = ?1 "
        "ON CONFLICT(job_id, submit, restarts) DO NOTHING",
    [S_SPLIT_COPY] =
        "INSERT INTO job(" JOB_COLS ") SELECT ?2, submit, restarts, array_job_id, ?3, "
        "NULL, name, uid, gid, user, grp, account, partition, qos, state, reason, "
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
    [S_USAGE] = "INSERT INTO usage(db_id, step_id, node, max_rss, user_usec, sys_usec) "
                "VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(db_id, step_id, node) "
                "DO UPDATE SET max_rss = ?4, user_usec = ?5, sys_usec = ?6",
    [S_USAGE_OF] = "SELECT step_id, node, max_rss, user_usec, sys_usec FROM usage "
                   "WHERE db_id = ?1 ORDER BY step_id, node",
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	uint64_t last_seq;
	int in_txn;
};

static int db_err(struct store *s, struct rota_error *err, const char *what)
{
	return errprintf(err, "accounting store: %s: %s", what, sqlite3_errmsg(s->db));
}

/* Reset, bind nothing: the statement ready for its arguments. */
static sqlite3_stmt *stmt(struct store *s, enum stmt_id id)
{
	sqlite3_reset(s->st[id]);
	sqlite3_clear_bindings(s->st[id]);
	return s->st[id];
}

static void bind_str(sqlite3_stmt *q, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(q, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, i);
}

static int run(struct store *s, sqlite3_stmt *q, struct rota_error *err)
{
	int rc = sqlite3_step(q);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_err(s, err, sqlite3_sql(q));
	return 0;
}

static int load_seq(struct store *s, struct rota_error *err)
{
	sqlite3_stmt *q;
	int rc = sqlite3_prepare_v2(s->db, "SELECT v FROM meta WHERE k = 'last_seq'", -1,
	                            &q, NULL);

	if (rc != SQLITE_OK)
		return db_err(s, err, "read the last event");
	if (sqlite3_step(q) == SQLITE_ROW)
		s->last_seq = (uint64_t)sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return 0;
}

int store_open(const char *path, struct store **ret, struct rota_error *err)
{
	struct store *s = xcalloc(1, sizeof(*s));
	char *msg = NULL;

	if (sqlite3_open_v2(path, &s->db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                        SQLITE_OPEN_NOMUTEX,
	                    NULL) != SQLITE_OK) {
		errprintf(err, "accounting store %s: %s", path,
		          s->db ? sqlite3_errmsg(s->db) : "out of memory");
		store_close(s);
		return -EIO;
	}
	sqlite3_busy_timeout(s->db, BUSY_MS);
	if (sqlite3_exec(s->db,
	                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
	                 "PRAGMA foreign_keys=OFF;",
	                 NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(s->db, schema, NULL, NULL, &msg) != SQLITE_OK) {
		errprintf(err, "accounting store %s: %s", path, msg ? msg : "?");
		sqlite3_free(msg);
		store_close(s);
		return -EIO;
	}
	for (int i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		                       &s->st[i], NULL) != SQLITE_OK) {
			db_err(s, err, stmt_sql[i]);
			store_close(s);
			return -EIO;
		}
	if (load_seq(s, err) < 0) {
		store_close(s);
		return -EIO;
	}
	*ret = s;
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s);
}

uint64_t store_last_seq(const struct store *s)
{
	return s->last_seq;
}

int store_begin(struct store *s, struct rota_error *err)
{
	if (run(s, stmt(s, S_BEGIN), err) < 0)
		return -EIO;
	s->in_txn = 1;
	return 0;
}

int store_commit(struct store *s, uint64_t seq, int reset, struct rota_error *err)
{
	sqlite3_stmt *q;

	if (seq > s->last_seq || (reset && seq)) {
		q = stmt(s, S_SET_SEQ);
		sqlite3_bind_int64(q, 1, (sqlite3_int64)seq);
		if (run(s, q, err) < 0) {
			store_rollback(s);
			return -EIO;
		}
	}
	if (run(s, stmt(s, S_COMMIT), err) < 0) {
		store_rollback(s);
		return -EIO;
	}
	s->in_txn = 0;
	if (seq > s->last_seq || (reset && seq))
		s->last_seq = seq;
	return 0;
}

void store_rollback(struct store *s)
{
	if (s->in_txn)
		sqlite3_step(stmt(s, S_ROLLBACK));
	s->in_txn = 0;
}

/* The latest run of job_id (0: none). */
static int64_t current_run(struct store *s, uint32_t job_id)
{
	sqlite3_stmt *q = stmt(s, S_CURRENT);

	sqlite3_bind_int64(q, 1, job_id);
	return sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
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
	sqlite3_stmt *q = stmt(s, S_SUBMIT);
	uint32_t array_job_id = ev->array_job_id, array_task_id = ev->array_task_id;
	char *pending = NULL;

	if (!d)
		return 0;
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
	sqlite3_bind_int64(q, 1, ev->job_id);
	sqlite3_bind_int64(q, 2, ev->time);
	sqlite3_bind_int64(q, 3, ev->restart_cnt);
	sqlite3_bind_int64(q, 4, array_job_id);
	sqlite3_bind_int64(q, 5, array_task_id);
	bind_str(q, 6, pending);
	bind_str(q, 7, d->name);
	sqlite3_bind_int64(q, 8, ev->uid);
	sqlite3_bind_int64(q, 9, ev->gid);
	bind_str(q, 10, ev->user);
	bind_str(q, 11, ev->group);
	bind_str(q, 12, d->account);
	bind_str(q, 13, d->partition);
	bind_str(q, 14, d->qos && *d->qos ? d->qos : "normal");
	sqlite3_bind_int64(q, 15, JOB_PENDING);
	sqlite3_bind_int64(q, 16, 0);
	sqlite3_bind_int64(q, 17, 0);
	sqlite3_bind_int64(q, 18, 0);
	sqlite3_bind_int64(q, 19, 0);
	sqlite3_bind_int64(q, 20,
	                   ev->eligible_time          ? ev->eligible_time
	                   : d->begin_time > ev->time ? d->begin_time
	                                              : ev->time);
	sqlite3_bind_int64(q, 21, 0);
	sqlite3_bind_int64(q, 22, 0);
	sqlite3_bind_int64(q, 23, ev->time_limit);
	sqlite3_bind_int64(q, 24, ev->hold ? 0 : ev->priority);
	bind_str(q, 25, NULL);
	sqlite3_bind_int64(q, 26, 0);
	sqlite3_bind_int64(q, 27, 0);
	sqlite3_bind_int64(q, 28, desc_req_cpus(d));
	sqlite3_bind_int64(q, 29, desc_req_nodes(d));
	sqlite3_bind_int64(q, 30, (sqlite3_int64)desc_req_mem(d));
	bind_str(q, 31, d->work_dir);
	bind_str(q, 32, d->comment);
	bind_str(q, 33, d->features);
	bind_str(q, 34, NULL);
	sqlite3_bind_int64(q, 35, d->script || ev->script_text ? 1 : 0);
	sqlite3_bind_int64(q, 36, 0);
	sqlite3_bind_int64(q, 37, 0);
	free(pending);
	return run(s, q, err);
}

static int on_start(struct store *s, int64_t run_id, const struct ev_start *ev,
                    struct rota_error *err)
{
	sqlite3_stmt *q = stmt(s, S_START);
	uint64_t cpus = 0;

	for (uint32_t i = 0; i < ev->cpus_per_node.n; i++)
		cpus += ev->cpus_per_node.v[i];
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, ev->time);
	bind_str(q, 3, ev->nodes);
	sqlite3_bind_int64(q, 4, ev->cpus_per_node.n);
	sqlite3_bind_int64(q, 5, (sqlite3_int64)cpus);
	sqlite3_bind_int64(q, 6, ev->cpus_per_node.n ? ev->cpus_per_node.v[0] : 0);
	sqlite3_bind_int64(q, 7, JOB_RUNNING);
	return run(s, q, err);
}

static int on_end(struct store *s, int64_t run_id, const struct ev_end *ev,
                  struct rota_error *err)
{
	sqlite3_stmt *q = stmt(s, S_END);

	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, ev->time);
	sqlite3_bind_int64(q, 3, ev->state & JOB_STATE_BASE);
	sqlite3_bind_int64(q, 4, ev->reason);
	sqlite3_bind_int64(q, 5, ev->exit_code);
	sqlite3_bind_int64(q, 6, ev->derived_exit);
	sqlite3_bind_int64(q, 7, ev->cancel_by);
	if (run(s, q, err) < 0)
		return -EIO;
	/* steps the job's end ended */
	q = stmt(s, S_STEPS_END);
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, ev->time);
	sqlite3_bind_int64(q, 3,
	                   (ev->state & JOB_STATE_BASE) == JOB_COMPLETE ? JOB_COMPLETE
	                                                                : JOB_CANCELLED);
	return run(s, q, err);
}

static int on_update(struct store *s, int64_t run_id, const struct ev_update *ev,
                     struct rota_error *err)
{
	sqlite3_stmt *q;

	if (ev->desc_count) {
		const struct job_desc *d = &ev->desc[0];
		q = stmt(s, S_UPDATE);
		sqlite3_bind_int64(q, 1, run_id);
		bind_str(q, 2, d->name);
		bind_str(q, 3, d->partition);
		bind_str(q, 4, d->account);
		bind_str(q, 5, d->comment);
		bind_str(q, 6, d->work_dir);
		bind_str(q, 7, d->features);
		sqlite3_bind_int64(q, 8, desc_req_cpus(d));
		sqlite3_bind_int64(q, 9, desc_req_nodes(d));
		sqlite3_bind_int64(q, 10, (sqlite3_int64)desc_req_mem(d));
		if (run(s, q, err) < 0)
			return -EIO;
	}
	if (ev->time_limit != NO_VAL) {
		q = stmt(s, S_LIMIT);
		sqlite3_bind_int64(q, 1, run_id);
		sqlite3_bind_int64(q, 2, ev->time_limit);
		if (run(s, q, err) < 0)
			return -EIO;
	}
	if (ev->priority != NO_VAL) {
		q = stmt(s, S_PRIO);
		sqlite3_bind_int64(q, 1, run_id);
		sqlite3_bind_int64(q, 2, ev->priority);
		if (run(s, q, err) < 0)
			return -EIO;
	}
	return 0;
}

static int on_requeue(struct store *s, int64_t run_id, const struct ev_requeue *ev,
                      struct rota_error *err)
{
	sqlite3_stmt *q = stmt(s, S_REQUEUE_OLD);

	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, ev->time);
	if (run(s, q, err) < 0)
		return -EIO;
	q = stmt(s, S_REQUEUE_NEW);
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, ev->time);
	return run(s, q, err);
}

/* Task t leaves the remainder's pending set. */
static int pending_drop(struct store *s, int64_t run_id, uint32_t t,
                        struct rota_error *err)
{
	sqlite3_stmt *q = stmt(s, S_PENDING_GET);
	struct arrayspec a;
	char *left;
	int rc;

	sqlite3_bind_int64(q, 1, run_id);
	if (sqlite3_step(q) != SQLITE_ROW || !sqlite3_column_text(q, 0))
		return 0;
	if (arrayspec_parse((const char *)sqlite3_column_text(q, 0), ARRAYSPEC_LIMIT, &a,
	                    NULL) < 0)
		return 0;
	arrayspec_clear(&a, t);
	left = arrayspec_format(&a, 0);
	arrayspec_release(&a);
	q = stmt(s, S_PENDING_SET);
	sqlite3_bind_int64(q, 1, run_id);
	bind_str(q, 2, left[0] ? left : NULL);
	rc = run(s, q, err);
	free(left);
	return rc;
}

static int on_split(struct store *s, int64_t run_id, const struct ev_array_split *ev,
                    struct rota_error *err)
{
	sqlite3_stmt *q;

	if (ev->new_job_id) {
		q = stmt(s, S_SPLIT_COPY);
		sqlite3_bind_int64(q, 1, run_id);
		sqlite3_bind_int64(q, 2, ev->new_job_id);
		sqlite3_bind_int64(q, 3, ev->array_task_id);
		if (run(s, q, err) < 0)
			return -EIO;
		return pending_drop(s, run_id, ev->array_task_id, err);
	}
	q = stmt(s, S_SPLIT_SELF);
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, ev->array_task_id);
	return run(s, q, err);
}

static int on_step_start(struct store *s, int64_t run_id, const struct ev_step_start *ev,
                         struct rota_error *err)
{
	sqlite3_stmt *q = stmt(s, S_STEP_START);

	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, ev->step_id);
	bind_str(q, 3, ev->text);
	bind_str(q, 4, ev->nodes);
	sqlite3_bind_int64(q, 5, ev->cpus_per_node.n);
	sqlite3_bind_int64(q, 6, ev->num_tasks);
	sqlite3_bind_int64(q, 7, ev->num_cpus);
	sqlite3_bind_int64(q, 8, ev->time);
	return run(s, q, err);
}

static int on_step_end(struct store *s, int64_t run_id, const struct ev_step_end *ev,
                       struct rota_error *err)
{
	sqlite3_stmt *q = stmt(s, S_STEP_END);
	uint32_t st = ev->exit_code == 0            ? JOB_COMPLETE
	              : (ev->exit_code & 0x7f) != 0 ? JOB_CANCELLED
	                                            : JOB_FAILED;

	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, ev->step_id);
	sqlite3_bind_int64(q, 3, ev->time);
	sqlite3_bind_int64(q, 4, st);
	sqlite3_bind_int64(q, 5, ev->exit_code);
	return run(s, q, err);
}

static int on_usage(struct store *s, int64_t run_id, const struct ev_usage *ev,
                    struct rota_error *err)
{
	sqlite3_stmt *q = stmt(s, S_USAGE);

	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, ev->step_id);
	bind_str(q, 3, ev->node ? ev->node : "");
	sqlite3_bind_int64(q, 4, (sqlite3_int64)ev->max_rss);
	sqlite3_bind_int64(q, 5, (sqlite3_int64)ev->user_usec);
	sqlite3_bind_int64(q, 6, (sqlite3_int64)ev->sys_usec);
	return run(s, q, err);
}

int store_event(struct store *s, const union job_event *ev, struct rota_error *err)
{
	int64_t run_id;

	if (ev->head.seq && ev->head.seq <= s->last_seq)
		return 0; /* stored before */
	switch (ev->head.type) {
	case EV_SUBMIT:
		return on_submit(s, &ev->submit, err);
	case EV_START:
	case EV_END:
	case EV_HOLD:
	case EV_UPDATE:
	case EV_REQUEUE:
	case EV_ARRAY_SPLIT:
	case EV_STEP_START:
	case EV_STEP_END:
	case EV_USAGE:
		break;
	default:
		return 0; /* nodes, texts, marks: nothing to account */
	}
	run_id = current_run(s, ev->job.job_id);
	if (!run_id)
		return 0; /* a job from before this store began */
	switch (ev->head.type) {
	case EV_START:
		return on_start(s, run_id, &ev->start, err);
	case EV_END:
		return on_end(s, run_id, &ev->end, err);
	case EV_HOLD: {
		sqlite3_stmt *q = stmt(s, S_PRIO);
		sqlite3_bind_int64(q, 1, run_id);
		sqlite3_bind_int64(q, 2, ev->hold.hold ? 0 : ev->hold.priority);
		return run(s, q, err);
	}
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
	default:
		return on_step_end(s, run_id, &ev->step_end, err);
	}
}

/* ---- queries ---- */

struct sqlbuf {
	char *sql;
	size_t len, cap;
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

static char *col_str(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);

	return t ? xstrdup((const char *)t) : NULL;
}

static void read_steps(struct store *s, int64_t run_id, struct acct_job *j)
{
	sqlite3_stmt *q = stmt(s, S_STEPS_OF);
	size_t n = 0, cap = 0;

	sqlite3_bind_int64(q, 1, run_id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct acct_step *st;
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			j->steps = xrealloc(j->steps, cap * sizeof(*j->steps));
		}
		st = &j->steps[n++];
		memset(st, 0, sizeof(*st));
		st->step_id = (uint32_t)sqlite3_column_int64(q, 0);
		st->name = col_str(q, 1);
		st->nodes = col_str(q, 2);
		st->nnodes = (uint32_t)sqlite3_column_int64(q, 3);
		st->ntasks = (uint32_t)sqlite3_column_int64(q, 4);
		st->ncpus = (uint32_t)sqlite3_column_int64(q, 5);
		st->start = sqlite3_column_int64(q, 6);
		st->end = sqlite3_column_int64(q, 7);
		st->state = (uint32_t)sqlite3_column_int64(q, 8);
		st->exit_code = (uint32_t)sqlite3_column_int64(q, 9);
		st->max_rss = (uint64_t)sqlite3_column_int64(q, 10);
		st->max_vm = (uint64_t)sqlite3_column_int64(q, 11);
		st->ave_rss = (uint64_t)sqlite3_column_int64(q, 12);
		st->user_usec = (uint64_t)sqlite3_column_int64(q, 13);
		st->sys_usec = (uint64_t)sqlite3_column_int64(q, 14);
	}
	j->steps_count = n;
}

static void read_job(sqlite3_stmt *q, struct acct_job *j)
{
	int i = 1; /* 0 is db_id */

	memset(j, 0, sizeof(*j));
	j->job_id = (uint32_t)sqlite3_column_int64(q, i++);
	j->submit = sqlite3_column_int64(q, i++);
	j->restarts = (uint32_t)sqlite3_column_int64(q, i++);
	j->array_job_id = (uint32_t)sqlite3_column_int64(q, i++);
	j->array_task_id = (uint32_t)sqlite3_column_int64(q, i++);
	j->array_pending = col_str(q, i++);
	j->name = col_str(q, i++);
	j->uid = (uint32_t)sqlite3_column_int64(q, i++);
	j->gid = (uint32_t)sqlite3_column_int64(q, i++);
	j->user = col_str(q, i++);
	j->group = col_str(q, i++);
	j->account = col_str(q, i++);
	j->partition = col_str(q, i++);
	j->qos = col_str(q, i++);
	j->state = (uint32_t)sqlite3_column_int64(q, i++);
	j->reason = (uint32_t)sqlite3_column_int64(q, i++);
	j->exit_code = (uint32_t)sqlite3_column_int64(q, i++);
	j->derived_exit = (uint32_t)sqlite3_column_int64(q, i++);
	j->cancel_by = (uint32_t)sqlite3_column_int64(q, i++);
	j->eligible = sqlite3_column_int64(q, i++);
	j->start = sqlite3_column_int64(q, i++);
	j->end = sqlite3_column_int64(q, i++);
	j->time_limit = (uint32_t)sqlite3_column_int64(q, i++);
	j->priority = (uint32_t)sqlite3_column_int64(q, i++);
	j->nodes = col_str(q, i++);
	j->nnodes = (uint32_t)sqlite3_column_int64(q, i++);
	j->ncpus = (uint32_t)sqlite3_column_int64(q, i++);
	j->req_cpus = (uint32_t)sqlite3_column_int64(q, i++);
	j->req_nodes = (uint32_t)sqlite3_column_int64(q, i++);
	j->req_mem = (uint64_t)sqlite3_column_int64(q, i++);
	j->work_dir = col_str(q, i++);
	j->comment = col_str(q, i++);
	j->constraints = col_str(q, i++);
	j->reservation = col_str(q, i++);
	j->batch = (uint32_t)sqlite3_column_int64(q, i++);
	i++; /* batch_cpus: the batch step's, below */
	j->superseded = (uint32_t)sqlite3_column_int64(q, i++);
}

/* N.batch and N.extern, which the journal does not record as steps. */
static void add_implicit_steps(sqlite3_stmt *q, struct acct_job *j)
{
	uint32_t batch_cpus = (uint32_t)sqlite3_column_int64(q, 36);
	uint32_t n = j->batch ? 2 : 1;
	char first[256] = "";
	uint32_t done = j->end ? (j->superseded ? JOB_CANCELLED : j->state) : JOB_RUNNING;

	if (!j->start)
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

/* Each step's usage from its nodes' reports: the highest peak (and where),
 * the peaks' average (AveRSS), the CPU times summed. */
static void add_usage(struct store *s, int64_t run_id, struct acct_job *j)
{
	sqlite3_stmt *q = stmt(s, S_USAGE_OF);
	struct acct_step *st = NULL;
	uint64_t rss_sum = 0, nodes = 0;

	sqlite3_bind_int64(q, 1, run_id);
	for (int more = sqlite3_step(q) == SQLITE_ROW;;
	     more = sqlite3_step(q) == SQLITE_ROW) {
		uint32_t id = more ? (uint32_t)sqlite3_column_int64(q, 0) : 0;
		uint64_t rss;

		if (st && (!more || id != st->step_id)) {
			st->ave_rss = nodes ? rss_sum / nodes : 0;
			st = NULL;
		}
		if (!more)
			break;
		if (!st) {
			if (!(st = step_of(j, id)))
				continue;
			rss_sum = nodes = 0;
		}
		rss = (uint64_t)sqlite3_column_int64(q, 2);
		if (rss > st->max_rss || !st->max_rss_node) {
			st->max_rss = rss;
			free(st->max_rss_node);
			st->max_rss_node = col_str(q, 1);
		}
		rss_sum += rss;
		nodes++;
		st->user_usec += (uint64_t)sqlite3_column_int64(q, 3);
		st->sys_usec += (uint64_t)sqlite3_column_int64(q, 4);
	}
}

static void add_in_u32(struct sqlbuf *b, const char *col, const uint32_t *v, uint32_t n)
{
	sql_add(b, " AND %s IN (", col);
	for (uint32_t i = 0; i < n; i++)
		sql_add(b, "%s%u", i ? "," : "", v[i]);
	sql_add(b, ")");
}

static int bind_strs(sqlite3_stmt *q, int at, char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		bind_str(q, at++, v[i]);
	return at;
}

static void add_in_strs(struct sqlbuf *b, const char *col, char **v, int *param)
{
	sql_add(b, " AND %s IN (", col);
	for (size_t i = 0; v[i]; i++)
		sql_add(b, "%s?%d", i ? "," : "", (*param)++);
	sql_add(b, ")");
}

/* "N" or "N_T" into the WHERE clause. */
static int add_jobs(struct sqlbuf *b, char **jobs, struct rota_error *err)
{
	sql_add(b, " AND (");
	for (size_t i = 0; jobs[i]; i++) {
		char *end;
		unsigned long id = strtoul(jobs[i], &end, 10), t;
		if (end == jobs[i] || id > UINT32_MAX)
			return errprintf(err, "Invalid job id: %s", jobs[i]);
		if (i)
			sql_add(b, " OR ");
		if (*end == '_') {
			t = strtoul(end + 1, &end, 10);
			sql_add(b, "(array_job_id = %lu AND array_task_id = %lu)", id, t);
		} else {
			sql_add(b, "job_id = %lu OR array_job_id = %lu", id, id);
		}
		if (*end)
			return errprintf(err, "Invalid job id: %s", jobs[i]);
	}
	sql_add(b, ")");
	return 0;
}

int store_query(struct store *s, const struct acct_query *qr, store_job_f cb, void *arg,
                struct rota_error *err)
{
	struct sqlbuf b = {0};
	sqlite3_stmt *q = NULL;
	int param = 1, rc = 0;
	size_t n = 0;

	sql_add(&b, "SELECT db_id, " JOB_COLS " FROM job WHERE 1");
	if (!(qr->flags & ACCT_QUERY_F_DUPLICATES))
		sql_add(&b, " AND superseded = 0");
	if (qr->jobs && qr->jobs[0] && add_jobs(&b, qr->jobs, err) < 0) {
		free(b.sql);
		return -EINVAL;
	}
	if (qr->uids.n)
		add_in_u32(&b, "uid", qr->uids.v, qr->uids.n);
	if (qr->states.n)
		add_in_u32(&b, "state", qr->states.v, qr->states.n);
	if (qr->accounts && qr->accounts[0])
		add_in_strs(&b, "account", qr->accounts, &param);
	if (qr->partitions && qr->partitions[0])
		add_in_strs(&b, "partition", qr->partitions, &param);
	if (qr->names && qr->names[0])
		add_in_strs(&b, "name", qr->names, &param);
	/* it existed in the window: submitted before its end, not ended
	 * before its start */
	if (qr->end)
		sql_add(&b, " AND submit <= %lld", (long long)qr->end);
	if (qr->start)
		sql_add(&b, " AND (end_time = 0 OR end_time >= %lld)",
		        (long long)qr->start);
	sql_add(&b, " ORDER BY CASE WHEN array_job_id THEN array_job_id ELSE job_id END,"
	            " array_task_id, restarts, db_id");
	if (sqlite3_prepare_v2(s->db, b.sql, -1, &q, NULL) != SQLITE_OK) {
		rc = db_err(s, err, "query");
		goto out;
	}
	param = 1;
	param = bind_strs(q, param, qr->accounts);
	param = bind_strs(q, param, qr->partitions);
	bind_strs(q, param, qr->names);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct acct_job j;
		int64_t run_id = sqlite3_column_int64(q, 0);
		if (++n > QUERY_LIMIT) {
			rc = errprintf(err, "more than %d job records: narrow the query",
			               QUERY_LIMIT);
			goto out;
		}
		read_job(q, &j);
		if (!(qr->flags & ACCT_QUERY_F_NO_STEPS)) {
			read_steps(s, run_id, &j);
			add_implicit_steps(q, &j);
			add_usage(s, run_id, &j);
		}
		rc = cb(arg, &j);
		codec_release(&acct_job_type, &j);
		if (rc < 0)
			goto out;
	}
	rc = rc == SQLITE_DONE ? 0 : db_err(s, err, "query");
out:
	sqlite3_finalize(q);
	free(b.sql);
	return rc;
}
