/* emulate.h - many node identities served from one rotad, no processes.
 *
 * `rotad -f slurm.conf --emulate LIST` registers every node of LIST (a hostlist
 * of nodes in slurm.conf) with the controller over its own connection, exactly
 * as that many rotads would (ctld_link.h: the same registration, pings,
 * completions, fencing), so that one controller can be driven by a site's
 * number of nodes from one machine (bench/emulate.sh).
 *
 * A launch "runs" as a timer: the seconds of the first `sleep N` in the batch
 * script (or of a step whose command is `sleep N`; s, m, h and d suffixes as
 * sleep(1) takes them), else at once, and ends with status 0.  A signal whose
 * default action ends a process ends the steps it is for, with that signal
 * as their status; a terminate request ends all of the job's steps here and
 * reports the job gone, as rotad does once its cgroups are empty.  The first
 * launch of a job on a node reports the Prolog done when slurm.conf has one.
 *
 * Not emulated: processes, cgroups, the job's output files, and the I/O of
 * interactive steps (an srun step whose tasks are emulated waits for I/O
 * connections that never come).  Launch credentials are not checked: the
 * controller connection they come over is authenticated, and their cost is
 * the nodes', not the controller's.
 */
#ifndef ROTA_NODED_EMULATE_H
#define ROTA_NODED_EMULATE_H

#include "common/error.h"

struct event_base;
struct conf;
struct auth;
struct emulator;

/* Start registering every node of nodes (a hostlist, each in conf; at most
 * HOSTLIST_MAX).  base, conf and auth are borrowed and must outlive the
 * emulator.  Returns 0 and sets *ret, or -1 with err filled. */
int emulator_create(struct event_base *base, const struct conf *conf, struct auth *auth,
                    const char *nodes, struct emulator **ret, struct rota_error *err);
/* Every node not connected tries now (ctld_link_retry_now). */
void emulator_retry_now(struct emulator *e);
/* Closes every connection; running emulated steps are dropped.  NULL allowed. */
void emulator_destroy(struct emulator *e);

#endif
