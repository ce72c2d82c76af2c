/* noded.h - rotad's context: one per process, owned by main.c.
 *
 * DESIGN: rotad is one libevent loop with no threads.  Its two modules are
 * created in this order and destroyed in reverse:
 *   stepd_mgr  - the rotastepd processes of this node (fork+exec, signals,
 *                completions, re-attaching after a restart);
 *   ctld_link  - the one connection to rotactld (register, ping, launch and
 *                signal requests in, completions out).
 * Each launch's job credential is checked (and remembered, against replays)
 * in main.c before the manager forks anything for it (proto/cred.h).
 * main.c wires them together: launch/signal requests from the link go to the
 * manager, completions from the manager go to the link.
 */
#ifndef ROTA_NODED_H
#define ROTA_NODED_H

#include <time.h>

struct gres_dev_info;

struct event_base;
struct event;
struct conf;
struct auth;
struct ctld_link;
struct stepd_mgr;
struct cred_cache;
struct emulator;

#include "noded/configless.h"

struct noded {
	struct event_base *base;
	struct conf *conf;
	struct auth *auth;
	char *conf_path; /* absolute */
	/* --conf-server: configless (configless.h); servers NULL: a local
	 * slurm.conf */
	struct configless cl;
	char *cache_dir;
	char *log_file; /* absolute, NULL = stderr */
	char *node_name;
	char *emulate;    /* --emulate: the nodes served, no stepds (noded/emulate.h) */
	char *spool;      /* this node's SlurmdSpoolDir; also our cwd */
	char *title;      /* our argv area, for the step daemons' titles */
	size_t title_len; /* (stepd_mgr.h) */
	int verbose;
	time_t start_time;
	char **argv;             /* a copy of main's, to execute again (reexec) */
	int reexec;              /* the configuration changed: start again with it */
	struct event *again_ev;  /* ... once no Epilog runs (main.c) */
	uint8_t conf_digest[32]; /* of the local files read at the start */

	struct stepd_mgr *stepds;
	struct gres_dev_info *gres_devs; /* the node's GRES devices (gres_found.h) */
	uint32_t ngres_devs;
	struct cred_cache *creds; /* launch credentials accepted, until they expire */
	int cred_state_failed;    /* writing them to the spool failed (logged once) */
	struct ctld_link *link;
	struct emulator *emu;
	struct event *sigterm_ev, *sigint_ev, *sighup_ev, *sigusr2_ev;
};

#endif
