/* arrayspec.h - job array index specifications ("0-99%10", "1-7:2", "1,3,5-7").
 *
 * A spec is a comma-separated list of ids or ranges "a-b[:step]", optionally
 * followed by "%N" (at most N tasks running at once).  It is held as a bitmap
 * of task ids, so a 1,000,000-task array costs 125 KB.  Pure: no daemon state.
 */
#ifndef ROTA_ARRAYSPEC_H
#define ROTA_ARRAYSPEC_H

#include <stdint.h>
#include "common/error.h"

/* The largest MaxArraySize slurm.conf accepts: task ids stay below it. */
#define ARRAYSPEC_LIMIT 4000001u

struct arrayspec {
	uint8_t *bits;     /* owned; bit i set: task i is in the set */
	uint32_t nbits;    /* ids are < nbits */
	uint32_t count;    /* number of set bits */
	uint32_t throttle; /* %N; 0 = none */
};

/* Parse spec; every id must be < limit (MaxArraySize).  On success fills *ret
 * (release with arrayspec_release) and returns 0; on failure returns -EINVAL
 * and leaves *ret untouched. */
int arrayspec_parse(const char *spec, uint32_t limit, struct arrayspec *ret,
                    struct rota_error *err);

/* Free the bitmap (NULL and released specs allowed). */
void arrayspec_release(struct arrayspec *a);

/* Deep copy (aborts on ENOMEM). */
void arrayspec_copy(struct arrayspec *dst, const struct arrayspec *src);

int arrayspec_test(const struct arrayspec *a, uint32_t id);
/* Add id (< ARRAYSPEC_LIMIT), growing the bitmap as needed (aborts on
 * ENOMEM).  Returns 1 if it was not set, 0 if it was, -EINVAL past the limit. */
int arrayspec_set(struct arrayspec *a, uint32_t id);
/* Remove id; returns 1 if it was set. */
int arrayspec_clear(struct arrayspec *a, uint32_t id);

/* Smallest / largest id, or -1 when empty. */
int64_t arrayspec_first(const struct arrayspec *a);
int64_t arrayspec_last(const struct arrayspec *a);
/* Next id after `after` (pass -1 for the first), or -1. */
int64_t arrayspec_next(const struct arrayspec *a, int64_t after);

/* The common distance between consecutive ids (1 when irregular or < 2 ids):
 * SLURM_ARRAY_TASK_STEP. */
uint32_t arrayspec_step(const struct arrayspec *a);

/* Compressed form, "5-99%10", "1-7:2", "1,4,9" ("" when empty); with_throttle
 * appends "%N" when a throttle is set.  Caller frees. */
char *arrayspec_format(const struct arrayspec *a, int with_throttle);

#endif
