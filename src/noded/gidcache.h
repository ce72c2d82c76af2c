/* gidcache.h - users' supplementary groups as rotad's step daemons found them
 * (common/grouplist.h), kept a while and handed to the next step daemons of the
 * same user, so that they need no NSS lookup.  rotad never looks groups up
 * itself: a lookup may block (LDAP, SSSD) and rotad's loop must not.
 *
 * A list is used for GID_CACHE_TTL_S after it was found: a user added to or
 * removed from a group gets the change in jobs that start after that (Slurm's
 * send_gids caches in the same way). */
#ifndef ROTA_GIDCACHE_H
#define ROTA_GIDCACHE_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define GID_CACHE_TTL_S   60
#define GID_CACHE_ENTRIES 256 /* users at once; the oldest goes first */

struct gid_cache;

struct gid_cache *gid_cache_create(void);
void gid_cache_destroy(struct gid_cache *c); /* NULL allowed */

/* Remember the groups of (user, gid) found at time now; gids borrowed (copied).
 * A list longer than GROUPLIST_MAX, or an empty user, is not kept. */
void gid_cache_put(struct gid_cache *c, const char *user, gid_t gid, const gid_t *gids,
                   uint32_t n, time_t now);

/* The groups of (user, gid) if found less than GID_CACHE_TTL_S before now:
 * returns the count and sets *ret_gids (owned by the cache, valid until the next
 * put), or -1. */
int gid_cache_get(struct gid_cache *c, const char *user, gid_t gid, time_t now,
                  const gid_t **ret_gids);

#endif
