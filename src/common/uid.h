/* uid.h - user and group name lookups (NSS; may block, see STYLE.md). */
#ifndef ROTA_UID_H
#define ROTA_UID_H

#include <stddef.h>
#include <sys/types.h>

/* Write the user name of uid into buf, or the decimal number when uid has no
 * passwd entry.  Returns 0, or -ERANGE when buf is too small (buf then holds an
 * empty string), or -ENOMEM. */
int uid_to_name(uid_t uid, char *buf, size_t len);

/* Same for a group id. */
int gid_to_name(gid_t gid, char *buf, size_t len);

/* Look up a user name; an all-digit string is taken as a uid as it is.
 * Returns 0 and sets *ret_uid, -ENOENT when no such user, -EINVAL for an empty
 * or out-of-range value, or another negative errno from NSS. */
int name_to_uid(const char *name, uid_t *ret_uid);

/* Same for a group name. */
int name_to_gid(const char *name, gid_t *ret_gid);

#endif
