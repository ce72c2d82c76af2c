/* store_driver.h - what the accounting store (store.c) asks of a database.
 *
 * DESIGN: store.c holds everything that decides what is stored and what a
 * query returns: the statements (one text for every back end, numbered
 * parameters written ?1, ?2 ...), the rows an event makes, the WHERE clause a
 * sacct query makes, the records built from the rows.  A driver only runs
 * statements: it creates its schema (the same tables, columns and indexes in
 * its own types), prepares the statements, binds values and hands back rows.
 * So SQLite and PostgreSQL store the same rows and answer the same query with
 * the same records in the same order; the statements avoid what the two
 * spell differently ("user" quoted, no integer as a boolean).
 *
 * One thread: a driver's handle and cursors are used by rotadbd's loop only.
 */
#ifndef ROTA_DBD_STORE_DRIVER_H
#define ROTA_DBD_STORE_DRIVER_H

#include <stdint.h>
#include "common/error.h"

struct store_conf;

enum sql_type { SQL_NULL, SQL_INT, SQL_TEXT };

/* A parameter; s is borrowed (for the duration of the call). */
struct sql_val {
	enum sql_type type;
	int64_t i;
	const char *s;
};

static inline struct sql_val sql_int(int64_t i)
{
	return (struct sql_val){.type = SQL_INT, .i = i};
}

static inline struct sql_val sql_text(const char *s)
{
	return (struct sql_val){.type = s ? SQL_TEXT : SQL_NULL, .s = s};
}

struct sql_db;  /* a connection, with its prepared statements */
struct sql_cur; /* the rows of a statement being run */

struct store_driver {
	const char *type; /* StorageType: "accounting_storage/sqlite" */
	/* Connect, create the schema if missing, prepare stmts[0..n-1] (kept by
	 * the caller for the handle's life).  The error says what to fix. */
	int (*open)(const struct store_conf *sc, const char *const *stmts, int n,
	            struct sql_db **ret, struct rota_error *err);
	void (*close)(struct sql_db *db); /* NULL allowed */
	int (*begin)(struct sql_db *db, struct rota_error *err);
	int (*commit)(struct sql_db *db, struct rota_error *err);
	void (*rollback)(struct sql_db *db);
	/* Run prepared statement id, or (id < 0) sql, with n values.  ret NULL:
	 * rows not wanted.  Else *ret (caller ends it with done) yields the rows;
	 * a statement run with id < 0 may return any number of them (the driver
	 * streams), one with an id a few.  One cursor per statement at a time;
	 * an ad-hoc cursor and prepared ones may be open together. */
	int (*run)(struct sql_db *db, int id, const char *sql, const struct sql_val *v,
	           int n, struct sql_cur **ret, struct rota_error *err);
	/* 1: a row, 0: no more, < 0: failed (err says why). */
	int (*next)(struct sql_cur *c, struct rota_error *err);
	int64_t (*col_int)(struct sql_cur *c, int i); /* NULL: 0 */
	/* NULL for NULL; valid until the next call of next or done. */
	const char *(*col_text)(struct sql_cur *c, int i);
	void (*done)(struct sql_cur *c); /* NULL allowed */
};

extern const struct store_driver store_sqlite_driver;
extern const struct store_driver store_pgsql_driver;

#endif
