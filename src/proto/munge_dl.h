/* munge_dl.h - libmunge, loaded the first time a MUNGE credential is made or
 * checked.
 *
 * WHY: a command is started once per submission (sbatch in a loop, a workflow
 * engine's hundreds of squeue calls) and each shared library it links costs
 * every start its mappings and relocations; libmunge is needed only where
 * AuthType=auth/munge and a credential crosses TCP.  The other libraries are
 * linked in (Makefile).
 */
#ifndef ROTA_MUNGE_DL_H
#define ROTA_MUNGE_DL_H

#include <munge.h>
#include "common/error.h"

struct munge_lib {
	munge_ctx_t (*ctx_create)(void);
	void (*ctx_destroy)(munge_ctx_t ctx);
	munge_err_t (*ctx_set)(munge_ctx_t ctx, int opt, ...);
	const char *(*ctx_strerror)(munge_ctx_t ctx);
	munge_err_t (*encode)(char **cred, munge_ctx_t ctx, const void *buf, int len);
	munge_err_t (*decode)(const char *cred, munge_ctx_t ctx, void **buf, int *len,
	                      uid_t *uid, gid_t *gid);
};

/* The library's functions, loaded once per process; NULL with err set when
 * libmunge.so.2 cannot be loaded. */
const struct munge_lib *munge_lib(struct rota_error *err);

#endif
