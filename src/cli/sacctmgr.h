/* sacctmgr.h - inside sacctmgr: the command (sacctmgr.c) and its listings
 * (sacctmgr_list.c). */
#ifndef ROTA_CLI_SACCTMGR_H
#define ROTA_CLI_SACCTMGR_H

#include "cli/pfields.h"
#include "proto/messages.h"

struct mgr_opts {
	int immediate;     /* -i */
	int noheader;      /* -n */
	enum pf_mode mode; /* -p / -P */
	int quiet;         /* -Q */
	int with_assoc;    /* -s, WithAssoc */
	int with_coord;    /* WithCoord: the coordinators too */
	int with_clusters; /* list resource WithClusters: a row per cluster */
};

/* Ask the controller for an add/modify/delete: 0 (made), 1 (nothing to
 * change: "Nothing new added"; said unless quiet_nothing), -1 (an error,
 * said). */
int mgr_send(const struct assoc_update *req, int quiet_nothing);

/* Every record (NULL after an error, said); the caller frees it with
 * msg_body_free(MSG_ASSOC_LIST_RESP, ...). */
struct assoc_list_resp *mgr_fetch(void);

/* question, "(You have 30 seconds to decide)", "(N/y): ": 1 for y. */
int mgr_confirm(const char *question);

/* modify job [where] COND... set VALUE... (sacctmgr_job.c, rotadbd's
 * records); words: those after the entity.  Returns the exit status. */
int mgr_modify_job(const struct mgr_opts *o, int argc, char **argv);

/* dump CLUSTER file=PATH; load file=PATH (sacctmgr_dump.c). */
int mgr_dump(const struct mgr_opts *o, const char *cluster, const char *path);
int mgr_load(const struct mgr_opts *o, const char *path);

/* list|show KIND: names (the words without '='), where (Key=Value), format
 * (NULL: the kind's default).  Returns the exit status. */
int mgr_list(const struct mgr_opts *o, enum assoc_kind kind, int clusters, char **names,
             char **where, const char *format);

/* show config (sacctmgr_config.c): slurm.conf's accounting settings, then
 * rotadbd's.  Returns the exit status. */
int mgr_show_config(void);

/* show stats [ave_time|total_time] and clear stats (sacctmgr_stats.c,
 * rotadbd's request counts); words: those after the verb (clear) or the
 * entity (show).  Return the exit status. */
int mgr_show_stats(int argc, char **argv);
int mgr_clear(int argc, char **argv);

#endif
