/* grouplist.h - a user's supplementary groups, looked up once and handed on.
 *
 * initgroups() asks NSS (reads /etc/group, or LDAP/SSSD) each time it is called:
 * a step daemon called it in every task's child, about 1.5 ms of CPU a job on a
 * host slow at page faults.  The step daemon now looks the list up once
 * (grouplist_lookup), each task sets it with setgroups(), and rotad keeps the
 * lists its step daemons found (noded/gidcache.h) to hand to the next ones: the
 * role of Slurm's LaunchParameters=send_gids, without NSS on rotad's loop. */
#ifndef ROTA_GROUPLIST_H
#define ROTA_GROUPLIST_H

#include <stdint.h>
#include <sys/types.h>

/* The most groups a list may hold: the kernel's NGROUPS_MAX. */
#define GROUPLIST_MAX 65536

/* The groups of user with primary group gid (gid first).  Returns the count and
 * sets *ret_gids (caller frees), or -1 with errno (ENOENT: the lookup found no
 * such user or failed). */
int grouplist_lookup(const char *user, gid_t gid, gid_t **ret_gids);

#endif
