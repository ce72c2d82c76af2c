/* cgroup_conf.h - cgroup.conf, the node's containment settings.
 *
 * cgroup.conf sits beside slurm.conf, in Slurm's syntax: Key=Value pairs
 * (keys case-insensitive, several a line allowed, '#' starts a comment).
 * Only ConstrainDevices=yes|no takes effect (default no: the tasks may open
 * every device file).  The other keys Slurm documents (CgroupPlugin,
 * ConstrainCores, ConstrainRAMSpace, AllowedRAMSpace, ...) are accepted and
 * ignored: Rota always confines cores and memory as the job asked.  An
 * unknown key is warned about (log_warn, with file:line) and ignored; a bad
 * value of a key in use is an error.  A missing file is all defaults.
 *
 * Limits: CGROUP_CONF_LINE_MAX bytes a line, CGROUP_CONF_FILE_MAX bytes.
 */
#ifndef ROTA_CGROUP_CONF_H
#define ROTA_CGROUP_CONF_H

#include <stddef.h>
#include "common/error.h"

#define CGROUP_CONF_LINE_MAX 4096
#define CGROUP_CONF_FILE_MAX (64 * 1024)

struct cgroup_conf {
	int constrain_devices; /* ConstrainDevices=yes */
};

/* Parse path into *ret (defaults first).  Returns 0, or a negative error
 * with err "file:line: why" (*ret then unchanged). */
int cgroup_conf_load(const char *path, struct cgroup_conf *ret, struct rota_error *err);

/* The same from text; name stands for the file in messages. */
int cgroup_conf_load_string(const char *text, const char *name, struct cgroup_conf *ret,
                            struct rota_error *err);

/* The parser's tables, from which the man page is generated
 * (common/conf_doc.h): the keys it acts on, and those it accepts and ignores.
 * Borrowed, static; *ret_n is their number. */
const char *const *cgroup_conf_keys(size_t *ret_n);
const char *const *cgroup_conf_ignored_keys(size_t *ret_n);
#endif
