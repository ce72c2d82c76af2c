/* part_update.h - partitions made, changed and deleted while the controller
 * runs (scontrol create|update|delete partition), as Slurm 22.05 does them.
 *
 * DESIGN: the partition table starts as slurm.conf has it (node_mgr.h) and
 * changes only by EV_PART (job_event.h): a partition whole, by name, as the
 * "Key=Value" of a PartitionName= line (common/conf.h conf_part_format), or
 * its deletion, or every partition back to slurm.conf's.  A request is read
 * whole (common/part_spec.h's keys, slurm.conf's parser for the values) onto a
 * copy of the partition and checked (its nodes, QOS, billing weights) before
 * anything changes: a bad value changes nothing.  part_apply() then swaps the
 * new settings in, live and in replay, and looks up nothing but node names.
 *
 * Restart: the journal (or its snapshot, which holds every partition changed
 * since slurm.conf was read, and the names of slurm.conf's partitions that
 * were deleted) gives them back over slurm.conf's, as `slurmctld -R` does.
 * scontrol reconfigure reads slurm.conf again and, as Slurm, drops what was
 * changed at run time (a PART_EV_RESET is journaled), unless ReconfigFlags
 * has KeepPartInfo (all kept) or KeepPartState (only each one's State kept).
 *
 * Everything here runs on the controller's event loop.
 */
#ifndef ROTA_CTLD_PART_UPDATE_H
#define ROTA_CTLD_PART_UPDATE_H

#include <stddef.h>

struct ctld;
struct caller;
struct chan;
struct ev_part;
struct node_mgr;
struct part_update_req;

/* MSG_PART_UPDATE_REQ (admins: ops.c refuses others as Slurm does, with
 * ESLURM_USER_ID_MISSING).  Answered with MSG_PART_UPDATE_RESP, or an
 * MSG_RC with Slurm's error. */
void part_update_request(struct ctld *ctld, struct caller *who,
                         const struct part_update_req *r, struct chan *ch);

/* EV_PART: 0; -ENOENT deleting one that does not exist; -EINVAL for a record
 * that does not read (nothing changed then). */
int part_apply(struct ctld *ctld, const struct ev_part *ev);

/* The i-th record of what differs from slurm.conf (each partition changed or
 * made at run time, then each of slurm.conf's that was deleted) as its
 * EV_PART, members owned by ev (job_event_release): 1, or 0 past the last. */
int part_snapshot(struct ctld *ctld, size_t i, struct ev_part *ev);

/* scontrol reconfigure, before nm (the node manager made from the new
 * slurm.conf) takes old's place: with ReconfigFlags=KeepPartInfo the
 * partitions changed at run time are carried into nm (the journal's records
 * of them stay in force); otherwise what must be journaled once nm is in
 * place is noted (a PART_EV_RESET when old had changes; with KeepPartState
 * each partition's State where old's differs).  Returns that note (NULL:
 * nothing), for part_reconfigure_end, or part_carry_free if the reconfigure
 * fails after all. */
struct part_carry;
struct part_carry *part_reconfigure_begin(struct ctld *ctld, struct node_mgr *old,
                                          struct node_mgr *nm);
/* nm in place: journal what the note says, and free it (NULL allowed). */
void part_reconfigure_end(struct ctld *ctld, struct part_carry *c);
void part_carry_free(struct part_carry *c); /* NULL allowed */

#endif
