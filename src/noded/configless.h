/* configless.h - rotad --conf-server: slurm.conf from the controller
 * (proto/conf_files.h has the design).
 *
 * Before it has a slurm.conf, rotad authenticates with AuthInfo from
 * --authinfo (Slurm's option): auth/slurm when it names key=PATH or when
 * /etc/slurm/slurm.key exists (that key), else auth/munge.  The fetched
 * slurm.conf's AuthType then rules; a key it does not name stays the one
 * used to fetch it (there is none beside the cache).
 */
#ifndef ROTA_NODED_CONFIGLESS_H
#define ROTA_NODED_CONFIGLESS_H

#include <stdint.h>
#include "proto/messages.h"

struct conf;

#define CONFIGLESS_CACHE_DEFAULT "/var/spool/rotad/conf-cache"

struct configless {
	const char *servers;   /* --conf-server or $SLURM_CONF_SERVER; borrowed */
	const char *cache_dir; /* absolute; borrowed */
	const char *auth_info; /* --authinfo, NULL; borrowed */
	const char *node_name; /* who we answer the challenge as; borrowed */
	char *key_path;        /* the key used to fetch (auth/slurm), or NULL */
	/* of the files this rotad runs with: all zero when it started from its
	 * cache (what the controller serves now may differ) */
	uint8_t digest[32];
};

/* Ask the servers in order for the files and write them into the cache; when
 * none answers, start from the cache if it has a slurm.conf.  Exits (fatal)
 * when a server refuses (no enable_configless) or there is nothing to start
 * from.  Returns the cache's slurm.conf path (caller frees). */
char *configless_fetch(struct configless *cl);

/* conf was read from the cache: give it the key it was fetched with when it
 * names none. */
void configless_conf_fix(const struct configless *cl, struct conf *conf);

/* Files pushed after scontrol reconfigure: into the cache (logged).  1 when
 * they differ from the ones this rotad runs with (it must start again to
 * apply them: rotad re-executes itself, as slurmd does on a reconfigure), 0
 * when they do not, -1 when they could not be cached. */
int configless_refresh(struct configless *cl, const struct conf_files *files);

void configless_release(struct configless *cl);

#endif
