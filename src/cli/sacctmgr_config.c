/* sacctmgr_config.c - sacctmgr show config: the accounting settings of this
 * client's slurm.conf, then rotadbd's own (asked of it, dbd/settings.h),
 * in Slurm's layout ("Key = value", a blank line, "SlurmDBD
 * configuration:").  Without accounting, or with rotadbd out of reach (an
 * error said), the first part alone, as Slurm's sacctmgr without its
 * database connection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cli/acct_client.h"
#include "cli/cli.h"
#include "cli/sacctmgr.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "common/common.h"

static void line(const char *key, const char *value)
{
	printf("%-22s = %s\n", key, value ? value : "(null)");
}

/* A key Rota accepts without using (conf_keys.c IGNORE), as written; NULL
 * when slurm.conf does not name it. */
static const char *written(const struct conf *conf, const char *key)
{
	for (size_t i = conf->kv_count; i-- > 0;)
		if (conf->kv[i].key && !strcasecmp(conf->kv[i].key, key))
			return conf->kv[i].value;
	return NULL;
}

static void print_client(const struct conf *conf)
{
	const char *user = conf->slurm_user ? conf->slurm_user : "root";
	const char *tcp = written(conf, "TCPTimeout");
	char buf[256];
	uid_t uid;

	printf("Configuration data as of %s\n",
	       timefmt_iso(time(NULL), buf, sizeof(buf)));
	line("AccountingStorageBackupHost", written(conf, "AccountingStorageBackupHost"));
	line("AccountingStorageHost", conf->accounting_storage_host);
	line("AccountingStorageParameters", written(conf, "AccountingStorageParameters"));
	snprintf(buf, sizeof(buf), "%u", conf->accounting_storage_port);
	line("AccountingStoragePort", buf);
	line("AccountingStorageType", conf->accounting_storage_type);
	line("AccountingStorageUser", written(conf, "AccountingStorageUser"));
	line("AuthType", conf->auth_type);
	snprintf(buf, sizeof(buf), "%u sec", conf->message_timeout);
	line("MessageTimeout", buf);
	line("PluginDir", written(conf, "PluginDir"));
	line("PrivateData", conf->private_data ? conf->private_data : "none");
	if (name_to_uid(user, &uid) == 0)
		snprintf(buf, sizeof(buf), "%s(%u)", user, (unsigned)uid);
	else
		snprintf(buf, sizeof(buf), "%s", user);
	line("SlurmUserId", buf);
	line("SLURM_CONF", conf->path);
	line("SLURM_VERSION", ROTA_SLURM_VERSION);
	snprintf(buf, sizeof(buf), "%s sec", tcp ? tcp : "2");
	line("TCPTimeout", buf);
	line("TrackWCKey", "No"); /* Rota keeps no WCKeys */
}

int mgr_show_config(void)
{
	const struct conf *conf = cli_conf();
	struct config_resp *r = NULL;

	print_client(conf);
	fflush(stdout);
	if (!conf_accounting(conf) || acct_dbd_config(&r))
		return 0;
	printf("\nSlurmDBD configuration:\n");
	for (uint32_t i = 0; i < r->items_count; i++)
		line(r->items[i].key, r->items[i].value);
	msg_body_free(MSG_DBD_CONFIG_RESP, r);
	return 0;
}
