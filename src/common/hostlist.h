/* hostlist.h - Slurm hostlist expressions: "node[01-04,07]", "rack[0-1]_blade[2,3]",
 * "a,b,c[1-2]".  Expansion keeps order and zero padding; compression sorts
 * nothing, it merges consecutive names that share prefix, suffix and width.
 *
 * Limit: an expression never expands to more than HOSTLIST_MAX names (-E2BIG).
 */
#ifndef ROTA_HOSTLIST_H
#define ROTA_HOSTLIST_H

#include <stddef.h>
#include "common/error.h"

#define HOSTLIST_MAX 65536

/* Expand expr into a NULL-terminated array of names.
 * On success *ret_names (caller frees with hostlist_free) and *ret_count are set.
 * Returns 0, -EINVAL (malformed; err says why) or -E2BIG or -ENOMEM. */
int hostlist_expand(const char *expr, char ***ret_names, size_t *ret_count,
                    struct rota_error *err);

/* Compress names[0..n) into one expression, e.g. node01,node02,node03,node07 ->
 * "node[01-03,07]".  Caller frees the result.  Returns NULL only on ENOMEM.
 * Names keep their given order; runs are merged only when adjacent. */
char *hostlist_compress(char *const *names, size_t n);

/* Free an array from hostlist_expand (NULL allowed). */
void hostlist_free(char **names);

/* 1 if the hostlist expression hosts (NULL or "" allowed) names a host that
 * known(name, arg) says is one of the caller's. */
int hostlist_overlaps(const char *hosts, int (*known)(const char *name, void *arg),
                      void *arg);

#endif
