/* store_sqlite.c - the accounting store's SQLite driver: one file, WAL,
 * synchronous=FULL (store_driver.h). */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include "dbd/store.h"
#include "dbd/store_driver.h"
#include "common/common.h"

#define BUSY_MS 10000

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
    " PRIMARY KEY(db_id, step_id, node));"
    /* the users' AdminLevel (the controller's records; store.c) */
    "CREATE TABLE IF NOT EXISTS admin_user(name TEXT PRIMARY KEY, level INTEGER);";

enum { T_BEGIN, T_COMMIT, T_ROLLBACK, T_COUNT };
static const char *const txn_sql[T_COUNT] = {"BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"};

struct sql_db {
	sqlite3 *db;
	sqlite3_stmt *txn[T_COUNT];
	sqlite3_stmt **st;
	int n;
};

struct sql_cur {
	struct sql_db *db;
	sqlite3_stmt *q;
	int own; /* an ad-hoc statement, finalized when done */
};

static int db_err(struct sql_db *d, struct rota_error *err, const char *what)
{
	return errprintf(err, "accounting store: %s: %s", what, sqlite3_errmsg(d->db));
}

static void lite_close(struct sql_db *d)
{
	if (!d)
		return;
	for (int i = 0; i < T_COUNT; i++)
		sqlite3_finalize(d->txn[i]);
	for (int i = 0; i < d->n; i++)
		sqlite3_finalize(d->st[i]);
	free(d->st);
	sqlite3_close(d->db);
	free(d);
}

static int prepare(struct sql_db *d, const char *sql, sqlite3_stmt **q,
                   struct rota_error *err)
{
	if (sqlite3_prepare_v3(d->db, sql, -1, SQLITE_PREPARE_PERSISTENT, q, NULL) !=
	    SQLITE_OK)
		return db_err(d, err, sql);
	return 0;
}

/* Has table a column of that name? */
/* Columns added after the first stores were made. */
static const struct {
	const char *table, *column, *type;
} added[] = {
    {"job", "gres_tres", "TEXT"},         {"job", "het_job_id", "INTEGER"},
    {"job", "het_offset", "INTEGER"},     {"usage", "gpus", "INTEGER"},
    {"usage", "max_gpu_mem", "INTEGER"},  {"usage", "ave_gpu_mem", "INTEGER"},
    {"usage", "max_gpu_util", "INTEGER"}, {"usage", "ave_gpu_util", "INTEGER"},
    {"job", "admin_comment", "TEXT"},     {"job", "system_comment", "TEXT"},
    {"job", "mcs_label", "TEXT"},         {"usage", "tasks", "TEXT"},
};

static int has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *q = NULL;
	char *sql = sqlite3_mprintf("PRAGMA table_info(%Q)", table);
	int found = 0;

	if (sql && sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK)
		while (!found && sqlite3_step(q) == SQLITE_ROW)
			found = !strcmp((const char *)sqlite3_column_text(q, 1), column);
	sqlite3_finalize(q);
	sqlite3_free(sql);
	return found;
}

static int lite_open(const struct store_conf *sc, const char *const *stmts, int n,
                     struct sql_db **ret, struct rota_error *err)
{
	struct sql_db *d = xcalloc(1, sizeof(*d));
	char *msg = NULL;

	if (sqlite3_open_v2(sc->loc, &d->db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                        SQLITE_OPEN_NOMUTEX,
	                    NULL) != SQLITE_OK) {
		errprintf(err, "accounting store %s: %s", sc->loc,
		          d->db ? sqlite3_errmsg(d->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(d->db, BUSY_MS);
	if (sqlite3_exec(d->db,
	                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
	                 "PRAGMA foreign_keys=OFF;",
	                 NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(d->db, schema, NULL, NULL, &msg) != SQLITE_OK) {
		errprintf(err, "accounting store %s: %s", sc->loc, msg ? msg : "?");
		sqlite3_free(msg);
		goto fail;
	}
	/* columns added later: a store made before gets them (SQLite has no
	 * ADD COLUMN IF NOT EXISTS: "duplicate column" is what it says then) */
	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++) {
		char *sql;
		int rc;

		if (has_column(d->db, added[i].table, added[i].column))
			continue;
		sql = sqlite3_mprintf("ALTER TABLE %s ADD COLUMN %s %s", added[i].table,
		                      added[i].column, added[i].type);
		rc = sql ? sqlite3_exec(d->db, sql, NULL, NULL, &msg) : SQLITE_NOMEM;
		sqlite3_free(sql);
		if (rc != SQLITE_OK) {
			errprintf(err, "accounting store %s: %s", sc->loc,
			          msg ? msg : "?");
			sqlite3_free(msg);
			goto fail;
		}
	}
	/* sacct -j N: a heterogeneous job's components by their leader */
	if (sqlite3_exec(d->db,
	                 "CREATE INDEX IF NOT EXISTS job_het ON job(het_job_id, "
	                 "het_offset);",
	                 NULL, NULL, &msg) != SQLITE_OK) {
		errprintf(err, "accounting store %s: %s", sc->loc, msg ? msg : "?");
		sqlite3_free(msg);
		goto fail;
	}
	for (int i = 0; i < T_COUNT; i++)
		if (prepare(d, txn_sql[i], &d->txn[i], err) < 0)
			goto fail;
	d->st = xcalloc((size_t)n, sizeof(*d->st));
	d->n = n;
	for (int i = 0; i < n; i++)
		if (prepare(d, stmts[i], &d->st[i], err) < 0)
			goto fail;
	*ret = d;
	return 0;
fail:
	lite_close(d);
	return -EIO;
}

static int step_txn(struct sql_db *d, int t, struct rota_error *err)
{
	int rc;

	sqlite3_reset(d->txn[t]);
	rc = sqlite3_step(d->txn[t]);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_err(d, err, txn_sql[t]);
	return 0;
}

static int lite_begin(struct sql_db *d, struct rota_error *err)
{
	return step_txn(d, T_BEGIN, err);
}

static int lite_commit(struct sql_db *d, struct rota_error *err)
{
	return step_txn(d, T_COMMIT, err);
}

static void lite_rollback(struct sql_db *d)
{
	step_txn(d, T_ROLLBACK, NULL);
}

static int lite_run(struct sql_db *d, int id, const char *sql, const struct sql_val *v,
                    int n, struct sql_cur **ret, struct rota_error *err)
{
	sqlite3_stmt *q;
	int rc;

	if (id >= 0) {
		q = d->st[id];
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
	} else if (sqlite3_prepare_v2(d->db, sql, -1, &q, NULL) != SQLITE_OK) {
		return db_err(d, err, "query");
	}
	for (int i = 0; i < n; i++) {
		if (v[i].type == SQL_INT)
			rc = sqlite3_bind_int64(q, i + 1, v[i].i);
		else if (v[i].type == SQL_TEXT)
			rc = sqlite3_bind_text(q, i + 1, v[i].s, -1, SQLITE_TRANSIENT);
		else
			rc = sqlite3_bind_null(q, i + 1);
		if (rc != SQLITE_OK) {
			db_err(d, err, sqlite3_sql(q));
			goto fail;
		}
	}
	if (ret) {
		struct sql_cur *c = xcalloc(1, sizeof(*c));
		c->db = d;
		c->q = q;
		c->own = id < 0;
		*ret = c;
		return 0;
	}
	rc = sqlite3_step(q);
	if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
		if (id < 0)
			sqlite3_finalize(q);
		return 0;
	}
	db_err(d, err, sqlite3_sql(q));
fail:
	if (id < 0)
		sqlite3_finalize(q);
	return -EIO;
}

static int lite_next(struct sql_cur *c, struct rota_error *err)
{
	int rc = sqlite3_step(c->q);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_err(c->db, err, "query");
}

static int64_t lite_col_int(struct sql_cur *c, int i)
{
	return sqlite3_column_int64(c->q, i);
}

static const char *lite_col_text(struct sql_cur *c, int i)
{
	return (const char *)sqlite3_column_text(c->q, i);
}

static void lite_done(struct sql_cur *c)
{
	if (!c)
		return;
	if (c->own)
		sqlite3_finalize(c->q);
	else
		sqlite3_reset(c->q);
	free(c);
}

const struct store_driver store_sqlite_driver = {
    .type = "accounting_storage/sqlite",
    .open = lite_open,
    .close = lite_close,
    .begin = lite_begin,
    .commit = lite_commit,
    .rollback = lite_rollback,
    .run = lite_run,
    .next = lite_next,
    .col_int = lite_col_int,
    .col_text = lite_col_text,
    .done = lite_done,
};
