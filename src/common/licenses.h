/* licenses.h - license counts: slurm.conf's Licenses= (what the cluster has)
 * and a job's -L/--licenses (what it holds while it runs).
 *
 * A list is "name[:count],..." (Slurm also writes "name*count"); a name with
 * no count counts 1.  Names are case-sensitive, as in Slurm, and a list names
 * each at most once. */
#ifndef ROTA_COMMON_LICENSES_H
#define ROTA_COMMON_LICENSES_H

#include <stddef.h>
#include <stdint.h>

#define LIC_MAX       64 /* names in one list */
#define LIC_NAME_MAX  64 /* bytes of a name, NUL included */
#define LIC_COUNT_MAX 1000000000u

struct lic {
	char name[LIC_NAME_MAX];
	uint32_t count;
};

/* Parse spec into out[LIC_MAX]: the number of names, or -1 with err (may be
 * NULL) filled in.  A count of 0 is refused for a job (zero_ok: a cluster
 * may list a license it has none of). */
struct rota_error;
int lic_parse(const char *spec, struct lic *out, int zero_ok, struct rota_error *err);

/* The index of name in l[n], or -1. */
int lic_find(const struct lic *l, int n, const char *name);

/* "a:1,b:2" of l[n] (malloc'd; "" when n is 0). */
char *lic_format(const struct lic *l, int n);

#endif
