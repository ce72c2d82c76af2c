/* settings.h - rotadbd's effective settings, as slurmdbd lists its own for
 * `sacctmgr show config` (MSG_DBD_CONFIG_REQ): what slurmdbd.conf said,
 * with rotadbd's defaults filled in, and the settings whose value Rota's
 * behaviour fixes (AllowNoDefAcct, TrackWCKey, no archiving or purging).
 * Built once at start (rotadbd is not reconfigured); never StoragePass. */
#ifndef ROTA_DBD_SETTINGS_H
#define ROTA_DBD_SETTINGS_H

#include <time.h>

struct conf;
struct config_resp;

/* slurmdbd.conf as read (main.c); each NULL when not given. */
struct dbd_conf {
	char *storage_type;
	char *storage_loc;
	char *storage_host;
	char *storage_port;
	char *storage_user;
	char *storage_pass;
	char *log_file;
};

/* All borrowed. */
struct dbd_settings_src {
	const struct conf *conf;   /* slurm.conf */
	const struct dbd_conf *dc; /* slurmdbd.conf */
	const char *dbd_conf_path; /* SLURMDBD_CONF */
	const char *storage_loc;   /* in effect (NULL: the database's default) */
	const char *log_file;      /* in effect (NULL: standard error) */
	const char *sock_path;     /* where clients reach rotadbd */
	int log_level;             /* LOG_INFO, LOG_DEBUG (-v) */
	time_t boot;               /* when rotadbd started */
};

/* The list, in slurmdbd's order (caller frees with
 * msg_body_free(MSG_DBD_CONFIG_RESP, ...)). */
struct config_resp *dbd_settings_create(const struct dbd_settings_src *src);

#endif
