/* ctld_link.h - rotad's one persistent connection to rotactld.
 *
 * Connects over TCP (answering the controller's challenge as the node and
 * checking the controller's proof, proto/client.h), sends MSG_NODE_REGISTER,
 * waits for MSG_RC 0, then pings every 10 s.  Launch and signal requests are
 * passed on only after that MSG_RC 0 (each launch's credential is checked by
 * the owner, see proto/cred.h).  When the
 * connection drops or cannot be made it retries after 50 ms, then doubling up
 * to every 250 ms (every 10 s after the controller refused the registration).  Step
 * completions handed to it while it is not registered are queued and sent right after the
 * next successful registration; those sent in the 10 s before a drop are sent again (the
 * controller may have died before reading them; it ignores duplicates, and stale ones by
 * their start_time).  The connect itself is blocking (bounded by the connect and
 * challenge timeouts); everything else runs in the event loop.
 */
#ifndef ROTA_NODED_CTLD_LINK_H
#define ROTA_NODED_CTLD_LINK_H

#include "proto/messages.h"

struct event_base;
struct conf;
struct auth;
struct ctld_link;
struct file_bcast;
struct step_attach;

/* What the link asks of its owner (all called in the loop thread). */
struct ctld_link_ops {
	/* A MSG_LAUNCH_REQ from the controller; req is borrowed. */
	void (*launch)(void *arg, const struct launch_req *req);
	/* A MSG_SIGNAL_REQ from the controller; req is borrowed. */
	void (*signal)(void *arg, const struct signal_req *req);
	/* Fill the live job/step id pairs for a registration (caller of the
	 * callback frees jobs->v and steps->v). */
	void (*live_steps)(void *arg, struct rota_u32v *jobs, struct rota_u32v *steps);
	/* scontrol shutdown: the controller asks us to exit (optional). */
	void (*shutdown)(void *arg);
	/* sstat: a MSG_STEP_STAT_REQ for a step here (optional); req is
	 * borrowed, the answer goes out with ctld_link_reply. */
	void (*stat)(void *arg, const struct step_stat_req *req);
	/* The configuration files again, after scontrol reconfigure
	 * (optional: only a configless rotad keeps them); files borrowed. */
	void (*conf_files)(void *arg, const struct conf_files *files);
	/* scontrol reconfigure, with no configless: read slurm.conf again
	 * (optional). */
	void (*reconfig)(void *arg);
	/* sbcast: a MSG_FILE_BCAST_REQ block to write here (optional); req is
	 * borrowed, the answer goes out with ctld_link_reply. */
	void (*bcast)(void *arg, const struct file_bcast *req);
	/* sattach: a MSG_STEP_ATTACH_REQ for a step here (optional); borrowed. */
	void (*attach)(void *arg, const struct step_attach *req);
	/* Fill a ping's free_memory and cpu_load (optional: this machine's). */
	void (*ping_fill)(void *arg, struct node_ping *p);
	/* scontrol reboot: run RebootProgram (optional); req borrowed. */
	void (*reboot)(void *arg, const struct reboot_req *req);
};

/* conf, auth and ops are borrowed and must outlive the link.  reg: the
 * registration to send (copied; job_ids/step_ids are filled on each send).
 * term_file (copied): where the newest controller term obeyed is kept across
 * restarts (relative to the cwd); NULL keeps it in memory only.
 * Starts connecting at once. */
struct ctld_link *ctld_link_create(struct event_base *base, const struct conf *conf,
                                   struct auth *auth, const struct node_register *reg,
                                   const char *term_file, const struct ctld_link_ops *ops,
                                   void *arg);
/* Not connected: try now, not after the backoff (SIGHUP: `rota up` has just
 * started the controller again).  NULL allowed. */
void ctld_link_retry_now(struct ctld_link *l);
/* Closes the connection and drops queued completions.  NULL allowed. */
void ctld_link_destroy(struct ctld_link *l);

/* Send (or queue, while not registered) a step completion; sc is copied. */
void ctld_link_send_complete(struct ctld_link *l, const struct step_complete *sc);
/* Same for any message with a step_complete body (MSG_STEP_COMPLETE,
 * MSG_PROLOG_COMPLETE); queued ones go out in order. */
void ctld_link_send(struct ctld_link *l, uint16_t type, const struct step_complete *sc);

/* Send an answer the controller waits for now (sstat's), or nothing while
 * not registered: it is worth nothing later.  Returns 0 or -EPIPE. */
int ctld_link_reply(struct ctld_link *l, uint16_t type, const void *body);

#endif
