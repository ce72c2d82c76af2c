/* conf_file.h - reading the small configuration files that sit beside
 * slurm.conf (gres.conf, cgroup.conf): where they are, and their text.
 * Pure but for reading the file; no logging.
 */
#ifndef ROTA_CONF_FILE_H
#define ROTA_CONF_FILE_H

#include <stddef.h>
#include "common/error.h"

/* "DIR/name" for slurm.conf at "DIR/slurm.conf" (name alone when the path
 * has no '/').  Caller frees; NULL on ENOMEM. */
char *conf_file_beside(const char *slurm_conf_path, const char *name);

/* Read path whole (at most max bytes, no NUL byte) into *ret (caller frees,
 * NUL-terminated).  A missing file is read as "".  Returns 0, or -EIO,
 * -EFBIG, -EINVAL, -ENOMEM or -errno (open) with err "path: why"; *ret is
 * set only on success. */
int conf_file_read(const char *path, size_t max, char **ret, struct rota_error *err);

/* Called for each Key=Value of a line, with where ("file:line") for errors;
 * a negative return stops the line. */
typedef int (*conf_kv_f)(void *arg, const char *key, const char *value, const char *where,
                         struct rota_error *err);

/* Split line (changed in place: '#' ends it) into blank-separated
 * Key=Value tokens and call apply for each.  Returns how many, or apply's
 * error, or -EINVAL with err for a token that is not Key=Value. */
int conf_line_split(char *line, conf_kv_f apply, void *arg, const char *where,
                    struct rota_error *err);

#endif
