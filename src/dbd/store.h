/* store.h - rotadbd's accounting store: job runs and their steps, made from
 * the controller's journal events, and the number of the last event stored.
 *
 * Events are stored in transactions: store_begin, store_event for each
 * event of a batch the controller sent, store_commit with the number of
 * the last one.  The number is written in the same transaction as the rows,
 * so a rotadbd killed at any point resumes after the last batch it
 * committed: nothing lost, nothing stored twice.  Applying an event is
 * idempotent for the events of a snapshot (numbered 0: the controller's
 * state when what rotadbd asked for was compacted away).
 *
 * Back ends (slurmdbd.conf StorageType): accounting_storage/sqlite, the
 * default (one file, WAL, synchronous=FULL; store_sqlite.c), and
 * accounting_storage/pgsql (a PostgreSQL database; store_pgsql.c, libpq
 * loaded at run time).  Both store the same rows and answer a query with the
 * same records in the same order: what is stored and asked is decided once,
 * in store.c; a driver only runs the statements (store_driver.h).
 */
#ifndef ROTA_DBD_STORE_H
#define ROTA_DBD_STORE_H

#include <stdint.h>
#include "common/error.h"

struct store;
union job_event;
struct acct_query;
struct acct_job;

/* Where to store, from slurmdbd.conf; every string borrowed, NULL: the
 * default. */
struct store_conf {
	const char *type; /* StorageType (NULL: accounting_storage/sqlite) */
	const char *host; /* pgsql: a host name, or a socket directory (/...) */
	unsigned port;    /* pgsql: 0: 5432 */
	const char *user, *pass;
	const char *loc;  /* sqlite: the file; pgsql: the database name */
	int extern_steps; /* slurm.conf PrologFlags=Contain: jobs have N.extern */
};

/* Open the store sc names (pgsql: wait for the server, create the database
 * and tables when missing).  The error says what to fix. */
int store_open(const struct store_conf *sc, struct store **ret, struct rota_error *err);
void store_close(struct store *s); /* NULL allowed */

/* The last event stored (0: none). */
uint64_t store_last_seq(const struct store *s);

int store_begin(struct store *s, struct rota_error *err);
/* Apply one event (skipped when its number is not above the last stored;
 * snapshot events, numbered 0, always). */
int store_event(struct store *s, const union job_event *ev, struct rota_error *err);
/* Commit, the last event stored now being seq (0: unchanged; below the last
 * one stored: unchanged too, unless reset, for a snapshot of a controller
 * whose history began again). */
int store_commit(struct store *s, uint64_t seq, int reset, struct rota_error *err);
void store_rollback(struct store *s);

/* The job runs q selects, each with its steps (unless ACCT_QUERY_F_NO_STEPS),
 * in job id order; cb owns nothing (the record is released after). */
typedef int (*store_job_f)(void *arg, struct acct_job *job);
int store_query(struct store *s, const struct acct_query *q, store_job_f cb, void *arg,
                struct rota_error *err);

/* The AdminLevel the controller's records give user (ADMIN_*; 0: none). */
int store_admin_level(struct store *s, const char *user);

/* sacctmgr modify job, asked by uid (admin: root, SlurmUser, an operator or
 * administrator): the latest run of each job req selects gets the values
 * req sets (ACCT_MOD_F_DRY_RUN: nothing changed), in a transaction of its
 * own (the feed's is committed before).  *ret_changed: a line for each,
 * "N submitted at T" (caller frees; NULL: none selected).  Returns 0,
 * -EPERM (a job of another user, or a comment only admins set: nothing
 * changed), or another error (err says why). */
struct acct_job_modify;
int store_job_modify(struct store *s, const struct acct_job_modify *req, uint32_t uid,
                     int admin, char ***ret_changed, struct rota_error *err);

#endif
