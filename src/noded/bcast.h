/* bcast.h - sbcast's blocks written on this node (ctld/bcast.h sends them).
 *
 * Each block is written by a child of rotad that has become the job's user
 * (its groups, gid, uid) before it opens the file, so that sbcast writes
 * nothing the user could not: the first block creates the file (0700, or
 * after removing an existing one with --force; without it an existing file
 * is EEXIST), each block is written at its offset, the last sets the
 * source's mode (and times with --preserve).  rotad does not wait: the child
 * reports its errno on a pipe the loop watches, and the answer
 * (MSG_FILE_BCAST_RESP) goes to the controller then.
 */
#ifndef ROTA_NODED_BCAST_H
#define ROTA_NODED_BCAST_H

struct event_base;
struct ctld_link;
struct file_bcast;

/* Start writing req (borrowed); the answer goes out on link. */
void node_bcast_write(struct event_base *base, struct ctld_link *link,
                      const struct file_bcast *req);

#endif
