/* reboot.h - scontrol reboot and cancel_reboot, as Slurm 22.05's.
 *
 * DESIGN: a node asked to reboot is REBOOT_REQUESTED (sinfo "@", "boot"
 * while it runs nothing) until it is free: no job, nothing completing,
 * registered and answering, powered up.  With ASAP it is drained meanwhile,
 * so that no new job starts there (reason "Reboot ASAP").  The per-second
 * tick then sends its rotad MSG_REBOOT_REQ, which runs RebootProgram
 * (noded/reboot.h), and the node is DOWN+REBOOT_ISSUED ("boot^", reason
 * "... : reboot issued") until its rotad registers having started, or its
 * host booted, after the order went out: a connection of the daemon that was
 * told does not count.  It is then IDLE, its drain undone when a next state
 * was given (ASAP gives RESUME), or DOWN with nextstate=DOWN ("... : reboot
 * complete").  One not back within ResumeTimeout is DOWN ("... : reboot
 * timed out").  cancel_reboot takes back a reboot not yet sent, and ASAP's
 * drain with it.
 *
 * Every change is an EV_NODE_STATE whose `reboot` carries the REBOOT_* bits
 * and `reboot_time` when the order went out: a restarted controller still
 * reboots a node asked to, and keeps waiting for one told to (ResumeTimeout
 * counted from the journaled time, the order not sent again).  All on the
 * event loop. */
#ifndef ROTA_CTLD_REBOOT_H
#define ROTA_CTLD_REBOOT_H

#include <stdint.h>
#include <time.h>

struct caller;
struct chan;
struct ctld;
struct node;
struct node_register;
struct reboot_req;

/* struct node's reboot (and the journal's): never renumber */
enum node_reboot_bits {
	REBOOT_REQUESTED = 1u << 0,   /* to reboot once free */
	REBOOT_ISSUED = 1u << 1,      /* rotad told at reboot_time; DOWN till back */
	REBOOT_NEXT_RESUME = 1u << 2, /* nextstate=RESUME (or ASAP): undrained after */
	REBOOT_NEXT_DOWN = 1u << 3,   /* nextstate=DOWN: DOWN after */
	REBOOT_UNDRAIN = 1u << 4,     /* ASAP drained it: cancel_reboot undrains */
};

/* The NODE_REBOOT_* state flags (common/states.h) for n. */
uint32_t reboot_state_flags(const struct node *n);
/* "RESUME" or "DOWN": what n will be after its reboot; NULL: as before, or
 * no reboot to come.  Static. */
const char *reboot_next_state(const struct node *n);

/* scontrol reboot (admins: others get EACCES, "Permission denied", as from
 * Slurm); answers MSG_RC on ch.  req borrowed. */
void reboot_request(struct ctld *ctld, const struct caller *who,
                    const struct reboot_req *req, struct chan *ch);
/* scontrol cancel_reboot of n: 0, or -ESLURM_INVALID_NODE_STATE when no
 * reboot waits (none asked, or already sent: Slurm's answer to both). */
int reboot_cancel(struct ctld *ctld, struct node *n);
/* n's rotad registered (reg borrowed): a node told to reboot that did is
 * back in service. */
void reboot_node_registered(struct ctld *ctld, struct node *n,
                            const struct node_register *reg, time_t now);
/* Per-second duties: tell the nodes that are free now to reboot, set DOWN
 * those not back within ResumeTimeout. */
void reboot_tick(struct ctld *ctld, time_t now);

#endif
