/* step_stat.h - sstat: what a running job's steps use now.
 *
 * DESIGN: the controller knows each step's nodes and already holds an
 * authenticated link to every rotad, so sstat asks it (MSG_STEP_STAT_REQ) and
 * it fans the question out to the step's nodes; each rotad hands it to the
 * step's rotastepd, which samples its cgroup and /proc and answers
 * (MSG_NODE_STAT_RESP).  The loop never waits: a request is a small object
 * that collects the nodes' answers and replies to the asker when the last
 * one is in, or after STEP_STAT_TIMEOUT_MS with what came (a node that is
 * down or slow is left out, as Slurm's sstat leaves out a node that does not
 * answer).  Aggregation (max, min, average over tasks) is sstat's, as in
 * Slurm.  Only the job's owner and operators see its usage: others get the
 * steps with rc -ESLURM_USER_ID_MISSING, as slurmd refuses them.
 */
#ifndef ROTA_CTLD_STEP_STAT_H
#define ROTA_CTLD_STEP_STAT_H

struct ctld;
struct caller;
struct chan;
struct step_stat_req;
struct node_stat_resp;
struct step_stats;

#define STEP_STAT_TIMEOUT_MS 5000
/* Requests waiting for nodes at once; more are refused (EAGAIN). */
#define STEP_STAT_MAX_PENDING 1024

/* MSG_STEP_STAT_REQ from a client: answers MSG_STEP_STAT_RESP on ch, now or
 * once the nodes have answered; MSG_RC for an unknown job. */
void step_stat_request(struct ctld *ctld, struct caller *who,
                       const struct step_stat_req *req, struct chan *ch);

/* MSG_NODE_STAT_RESP from a node: one answer for a waiting request
 * (dropped when it came too late, twice, or from a node not asked). */
void step_stat_node_reply(struct ctld *ctld, struct caller *who,
                          const struct node_stat_resp *r);

/* Drop what is still waiting (the asker gets nothing).  NULL allowed. */
void step_stats_destroy(struct step_stats *s);

#endif
