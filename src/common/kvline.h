/* kvline.h - the small files beside slurm.conf (gres.conf, topology.conf):
 * reading one whole, finding it, and splitting a line into Key=Value pairs.
 */
#ifndef ROTA_KVLINE_H
#define ROTA_KVLINE_H

#include <stddef.h>
#include "common/error.h"

/* Split line s (changed in place: '#' ends it) into pairs: kv[2k] the key,
 * kv[2k + 1] its value, at most max_pairs.  *ret_n counts strings (twice
 * the pairs).  0, or -EINVAL with err "where: why". */
int kvline_split(char *s, char **kv, size_t max_pairs, size_t *ret_n, const char *where,
                 struct rota_error *err);

/* Read path whole (at most max bytes, no NUL) into *ret (caller frees).  0;
 * -ENOENT when it does not exist (err untouched); another negative error
 * with err. */
int kvline_read_file(const char *path, size_t max, char **ret, struct rota_error *err);

/* "DIR/name" for slurm.conf at "DIR/slurm.conf" (just name without a
 * directory).  Caller frees; NULL on ENOMEM. */
char *kvline_sibling(const char *slurm_conf_path, const char *name);

#endif
