/* bcast.h - sbcast: a file's blocks to every node of a running job.
 *
 * DESIGN: rotad listens to no one but the controller, and the controller
 * already holds an authenticated link to each, so sbcast sends each block
 * here (MSG_FILE_BCAST_REQ) and the controller fans it out to the job's
 * nodes (or the step's), as it does sstat's questions (step_stat.h).  It
 * checks who asks (the job's user or an operator), that the job runs, and
 * stamps the block with the job's user, whom each rotad writes it as.  The
 * loop never waits: a request collects the nodes' answers
 * (MSG_FILE_BCAST_RESP) and answers the CLI when the last is in, or after
 * the block's timeout naming the nodes that did not answer.
 */
#ifndef ROTA_CTLD_BCAST_H
#define ROTA_CTLD_BCAST_H

struct ctld;
struct caller;
struct chan;
struct file_bcast;
struct file_bcast_resp;
struct bcasts;

/* Blocks waiting for nodes at once, and the bytes they hold queued (a block
 * is queued for each node); more are refused (EAGAIN: sbcast tries again).
 * One block alone is always taken. */
#define BCAST_MAX_PENDING 64
#define BCAST_BYTES_MAX   (256ull << 20)
#define BCAST_TIMEOUT_MAX 3600 /* seconds a block may wait */

/* MSG_FILE_BCAST_REQ from a client: MSG_FILE_BCAST_RESP on ch, now (the
 * job cannot be written to) or once the nodes have answered. */
void bcast_request(struct ctld *ctld, struct caller *who, const struct file_bcast *req,
                   struct chan *ch);
/* MSG_FILE_BCAST_RESP from a node (late, repeated or unasked: dropped). */
void bcast_node_reply(struct ctld *ctld, struct caller *who,
                      const struct file_bcast_resp *r);
/* Drop what is still waiting.  NULL allowed. */
void bcasts_destroy(struct bcasts *b);

#endif
