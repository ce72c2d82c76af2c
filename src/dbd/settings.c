/* settings.c - rotadbd's settings for sacctmgr show config (settings.h).
 *
 * The keys are slurmdbd's, in its order; values are what rotadbd does:
 *   AllowNoDefAcct  No: a user added without DefaultAccount gets its first
 *                   account as default, and a default account cannot be
 *                   removed (the controller's rule, ctld/assoc_update.c)
 *   Archive*, Purge*After  No, NONE: records are kept, never archived
 *   DbdAddr         rotadbd's unix socket (it listens on no TCP port, so
 *                   there is no DbdPort)
 *   PrivateData     none: rotadbd shows each record to every client
 *   TrackWCKey      No: Rota keeps no WCKeys
 *   Storage*        slurmdbd.conf's, with the store's defaults. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include "common/conf.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "dbd/settings.h"
#include "proto/messages.h"
#include "common/common.h"

#define SETTINGS_MAX 48

static const char *const archived[] = {
    "ArchiveEvents",  "ArchiveJobs", "ArchiveResvs", "ArchiveSteps",
    "ArchiveSuspend", "ArchiveTXN",  "ArchiveUsage", NULL,
};

static const char *const purged[] = {
    "PurgeEventAfter",   "PurgeJobAfter", "PurgeResvAfter",  "PurgeStepAfter",
    "PurgeSuspendAfter", "PurgeTXNAfter", "PurgeUsageAfter", NULL,
};

/* Appends key = value (value copied; NULL: "(null)", as Slurm prints it). */
static void add(struct config_resp *r, const char *key, const char *value)
{
	struct kv *kv;

	assert(r->items_count < SETTINGS_MAX);
	kv = &r->items[r->items_count++];
	kv->key = xstrdup(key);
	kv->value = xstrdup(value ? value : "(null)");
}

static void add_taken(struct config_resp *r, const char *key, char *value)
{
	add(r, key, value);
	free(value);
}

static void add_all(struct config_resp *r, const char *const *keys, const char *value)
{
	for (size_t i = 0; keys[i]; i++)
		add(r, keys[i], value);
}

static int is_pgsql(const struct dbd_conf *dc)
{
	return dc->storage_type &&
	       !strcasecmp(dc->storage_type, "accounting_storage/pgsql");
}

/* StorageHost, StorageLoc, StoragePort, StorageType, StorageUser. */
static void add_storage(struct config_resp *r, const struct dbd_settings_src *src)
{
	const struct dbd_conf *dc = src->dc;
	int pg = is_pgsql(dc);

	add(r, "StorageHost",
	    dc->storage_host ? dc->storage_host
	    : pg             ? "localhost"
	                     : NULL);
	add(r, "StorageLoc", src->storage_loc ? src->storage_loc : "slurm_acct_db");
	add(r, "StoragePort", dc->storage_port ? dc->storage_port : pg ? "5432" : "0");
	add(r, "StorageType",
	    dc->storage_type ? dc->storage_type : "accounting_storage/sqlite");
	add(r, "StorageUser", dc->storage_user);
}

static char *slurm_user(const struct conf *conf)
{
	const char *name = conf->slurm_user ? conf->slurm_user : "root";
	uid_t uid;

	if (name_to_uid(name, &uid) < 0)
		return xstrdup(name);
	return xasprintf("%s(%u)", name, (unsigned)uid);
}

struct config_resp *dbd_settings_create(const struct dbd_settings_src *src)
{
	struct config_resp *r = msg_body_new(MSG_DBD_CONFIG_RESP);
	const struct conf *conf = src->conf;
	char boot[64];

	r->items = xcalloc(SETTINGS_MAX, sizeof(*r->items));
	add(r, "AllowNoDefAcct", "No");
	add_all(r, archived, "No");
	add(r, "AuthType", conf->auth_type);
	add(r, "BOOT_TIME", timefmt_iso(src->boot, boot, sizeof(boot)));
	add(r, "DbdAddr", src->sock_path);
	add(r, "DbdHost", "localhost");
	add(r, "DebugLevel", src->log_level >= LOG_DEBUG ? "debug" : "info");
	add(r, "LogFile", src->log_file);
	add_taken(r, "MessageTimeout", xasprintf("%u secs", conf->message_timeout));
	add(r, "PrivateData", "none");
	add_all(r, purged, "NONE");
	add(r, "SLURMDBD_CONF", src->dbd_conf_path);
	add(r, "SLURMDBD_VERSION", ROTA_SLURM_VERSION);
	add_taken(r, "SlurmUser", slurm_user(conf));
	add_storage(r, src);
	add(r, "TrackWCKey", "No");
	return r;
}
