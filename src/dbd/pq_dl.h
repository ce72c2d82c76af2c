/* pq_dl.h - libpq, loaded the first time a PostgreSQL store is opened.
 *
 * WHY: every Rota process links libc alone (Makefile); libpq, with the TLS
 * and Kerberos libraries it pulls in, is needed only by a rotadbd whose
 * slurmdbd.conf says StorageType=accounting_storage/pgsql.  The prototypes
 * are libpq-fe.h's, so each pointer is type-checked against the real one.
 */
#ifndef ROTA_DBD_PQ_DL_H
#define ROTA_DBD_PQ_DL_H

#include <libpq-fe.h>
#include "common/error.h"

struct pq_lib {
	PGconn *(*connectdbParams)(const char *const *keywords, const char *const *values,
	                           int expand_dbname);
	PGPing (*pingParams)(const char *const *keywords, const char *const *values,
	                     int expand_dbname);
	ConnStatusType (*status)(const PGconn *conn);
	char *(*errorMessage)(const PGconn *conn);
	const char *(*parameterStatus)(const PGconn *conn, const char *paramName);
	void (*finish)(PGconn *conn);
	void (*reset)(PGconn *conn);
	PQnoticeProcessor (*setNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc,
	                                        void *arg);
	PGresult *(*exec)(PGconn *conn, const char *query);
	PGresult *(*execParams)(PGconn *conn, const char *command, int nParams,
	                        const Oid *paramTypes, const char *const *paramValues,
	                        const int *paramLengths, const int *paramFormats,
	                        int resultFormat);
	PGresult *(*prepare)(PGconn *conn, const char *stmtName, const char *query,
	                     int nParams, const Oid *paramTypes);
	PGresult *(*execPrepared)(PGconn *conn, const char *stmtName, int nParams,
	                          const char *const *paramValues, const int *paramLengths,
	                          const int *paramFormats, int resultFormat);
	ExecStatusType (*resultStatus)(const PGresult *res);
	char *(*resultErrorMessage)(const PGresult *res);
	char *(*cmdStatus)(PGresult *res);
	void (*clear)(PGresult *res);
	int (*ntuples)(const PGresult *res);
	char *(*getvalue)(const PGresult *res, int tup_num, int field_num);
	int (*getisnull)(const PGresult *res, int tup_num, int field_num);
	char *(*escapeIdentifier)(PGconn *conn, const char *str, size_t len);
	void (*freemem)(void *ptr);
};

/* The library's functions, loaded once per process; NULL with err set when
 * libpq.so.5 cannot be loaded. */
const struct pq_lib *pq_lib(struct rota_error *err);

#endif
