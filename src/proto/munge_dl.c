#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include "proto/munge_dl.h"

#define MUNGE_SONAME "libmunge.so.2"

static struct munge_lib lib;
static char load_error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p && !load_error[0])
		snprintf(load_error, sizeof(load_error), "no %s in it", name);
	return p;
}

static void load(void)
{
	void *h = dlopen(MUNGE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		const char *why = dlerror();
		snprintf(load_error, sizeof(load_error), "%s", why ? why : "not found");
		return;
	}
	/* POSIX: a function pointer from dlsym() through a void * */
	*(void **)&lib.ctx_create = sym(h, "munge_ctx_create");
	*(void **)&lib.ctx_destroy = sym(h, "munge_ctx_destroy");
	*(void **)&lib.ctx_set = sym(h, "munge_ctx_set");
	*(void **)&lib.ctx_strerror = sym(h, "munge_ctx_strerror");
	*(void **)&lib.encode = sym(h, "munge_encode");
	*(void **)&lib.decode = sym(h, "munge_decode");
}

const struct munge_lib *munge_lib(struct rota_error *err)
{
	pthread_once(&once, load);
	if (load_error[0]) {
		errprintf(err, "auth/munge: cannot load %s: %s", MUNGE_SONAME,
		          load_error);
		return NULL;
	}
	return &lib;
}
