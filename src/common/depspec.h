/* depspec.h - job dependency specifications (sbatch -d/--dependency).
 *
 * A spec is a list of elements joined by ',' (all must hold) or '?' (any may
 * hold), never both.  An element is "TYPE:ID[+MIN][:ID[+MIN]...]" with TYPE one
 * of after, afterany, afterok, afternotok, aftercorr; or "singleton"; or a bare
 * "ID[:ID...]" (Slurm's old form, meaning afterany).  An ID is a job id, or an
 * array task "123_4", or a whole array "123_*".  MIN is minutes.  Each ID makes
 * one item.  afterburstbuffer is refused: there are no burst buffers.  Pure: no
 * daemon state.
 */
#ifndef ROTA_DEPSPEC_H
#define ROTA_DEPSPEC_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

#define DEPSPEC_MAX_LEN   8192 /* characters in a spec */
#define DEPSPEC_MAX_ITEMS 1024 /* ids in a spec */
#define DEPSPEC_MAX_MIN   (365u * 24 * 60)
#define DEPSPEC_ALL_TASKS 0xfffffffeu /* task_id: the whole job / array */

enum depspec_type {
	DEPSPEC_AFTER,
	DEPSPEC_AFTERANY,
	DEPSPEC_AFTEROK,
	DEPSPEC_AFTERNOTOK,
	DEPSPEC_AFTERCORR,
	DEPSPEC_SINGLETON,
};

struct depspec_item {
	enum depspec_type type;
	uint32_t job_id;  /* 0 for singleton */
	uint32_t task_id; /* DEPSPEC_ALL_TASKS unless "ID_T" */
	uint32_t minutes; /* +MIN; 0 none */
};

struct depspec {
	int any; /* 1: items joined by '?' */
	size_t n;
	struct depspec_item *items; /* owned */
};

/* Parse spec.  On success *ret gets a new spec (caller frees with
 * depspec_destroy) and 0 is returned; on failure returns -EINVAL (err says why)
 * or -ENOMEM, and *ret is untouched. */
int depspec_parse(const char *spec, struct depspec **ret, struct rota_error *err);

/* NULL allowed. */
void depspec_destroy(struct depspec *d);

/* "afterok" ... "singleton". */
const char *depspec_type_name(enum depspec_type type);

/* Slurm's display form, "afterok:12(unfulfilled),after:13+5(unfulfilled)":
 * status[i] (may be NULL, or status may be NULL) is appended in parentheses to
 * item i.  Caller frees; NULL on ENOMEM. */
char *depspec_format(const struct depspec *d, const char *const *status);

#endif
