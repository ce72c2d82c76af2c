/* pq_dl.c - libpq's functions, looked up once (pq_dl.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "dbd/pq_dl.h"

#define PQ_SONAME "libpq.so.5"

static struct pq_lib lib;
static char load_error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Each function: its name in the library, its slot in struct pq_lib. */
#define PQ_SYM(field, name)                                                              \
	{                                                                                \
		name, offsetof(struct pq_lib, field)                                     \
	}
static const struct {
	const char *name;
	size_t off;
} syms[] = {
    PQ_SYM(connectdbParams, "PQconnectdbParams"),
    PQ_SYM(pingParams, "PQpingParams"),
    PQ_SYM(status, "PQstatus"),
    PQ_SYM(errorMessage, "PQerrorMessage"),
    PQ_SYM(parameterStatus, "PQparameterStatus"),
    PQ_SYM(finish, "PQfinish"),
    PQ_SYM(reset, "PQreset"),
    PQ_SYM(setNoticeProcessor, "PQsetNoticeProcessor"),
    PQ_SYM(exec, "PQexec"),
    PQ_SYM(execParams, "PQexecParams"),
    PQ_SYM(prepare, "PQprepare"),
    PQ_SYM(execPrepared, "PQexecPrepared"),
    PQ_SYM(resultStatus, "PQresultStatus"),
    PQ_SYM(resultErrorMessage, "PQresultErrorMessage"),
    PQ_SYM(cmdStatus, "PQcmdStatus"),
    PQ_SYM(clear, "PQclear"),
    PQ_SYM(ntuples, "PQntuples"),
    PQ_SYM(getvalue, "PQgetvalue"),
    PQ_SYM(getisnull, "PQgetisnull"),
    PQ_SYM(escapeIdentifier, "PQescapeIdentifier"),
    PQ_SYM(freemem, "PQfreemem"),
};

static void load(void)
{
	void *h = dlopen(PQ_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		const char *why = dlerror();
		snprintf(load_error, sizeof(load_error), "%s", why ? why : "not found");
		return;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p = dlsym(h, syms[i].name);
		if (!p) {
			snprintf(load_error, sizeof(load_error), "no %s in it",
			         syms[i].name);
			return;
		}
		/* POSIX: a function pointer from dlsym() through a void * */
		memcpy((char *)&lib + syms[i].off, &p, sizeof(p));
	}
}

const struct pq_lib *pq_lib(struct rota_error *err)
{
	pthread_once(&once, load);
	if (load_error[0]) {
		errprintf(err,
		          "accounting_storage/pgsql needs %s (Debian package libpq5): "
		          "cannot load it: %s",
		          PQ_SONAME, load_error);
		return NULL;
	}
	return &lib;
}
