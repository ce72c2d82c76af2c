/* rota_netns.h - `rota up --netns`: the tutorial's hosts (control, node01,
 * node02, ...) as network namespaces on this one machine.
 *
 * DESIGN: each host is a network namespace made by `ip netns add`
 * (rota-<id>-<host>) with one veth whose peer sits on a bridge of the root
 * namespace (rb-<id>), and an address in a private /24 (10.250.X.0/24, the
 * first X no address or route of this machine uses): control is .1, nodeK is
 * .10+K, the bridge .254.  A host's processes also get a UTS namespace (their
 * host name) and a mount namespace of their own in which /etc/hosts is
 * /etc/netns/<ns>/hosts (the file `ip netns exec` uses too: every host name of
 * the cluster) and /run/munge is DIR/hosts/<host>/munge, where that host's own
 * munged keeps its socket: one munged per host, all with DIR/munge.key.  Each
 * process entering a host builds the same view (rota_netns_enter), so nothing
 * but the network namespace has to outlive them.  What was made is written to
 * DIR/netns.conf before it is made, so that rota_netns_remove takes away
 * exactly that, even after a start that failed half way; the record stays
 * after that, for the next `up` to make the same hosts again.
 *
 * Root only.  Not thread-safe; for the rota CLI, which runs single-threaded.
 */
#ifndef ROTA_CLI_ROTA_NETNS_H
#define ROTA_CLI_ROTA_NETNS_H

#include <stdint.h>
#include <stdio.h>

#define ROTA_NETNS_MAX_NODES 64
#define ROTA_NETNS_CTLD_HOST "control"

struct rota_netns;

/* 0 if this process can make namespaces (root, `ip netns` works), else -1
 * with the reason in why. */
int rota_netns_check(char *why, size_t why_len);

/* Make the hosts control and node01..nodeN of the cluster in dir (absolute):
 * namespaces, bridge, veths, addresses, /etc/netns files, DIR/hosts and
 * DIR/munge.key (kept if there).  On failure, removes what it made and
 * returns -1 after saying why on stderr.  *ret: caller destroys. */
int rota_netns_create(const char *dir, uint32_t nodes, struct rota_netns **ret);

/* Read DIR/netns.conf: 1 and *ret (caller destroys) when dir holds a
 * namespaced cluster, 0 (and *ret NULL) when it does not, -1 when the file
 * is unreadable. */
int rota_netns_load(const char *dir, struct rota_netns **ret);

void rota_netns_destroy(struct rota_netns *ns); /* NULL is fine */

/* Do the namespaces recorded still exist (all of them)? */
int rota_netns_present(const struct rota_netns *ns);

/* Make again what ns records (after rota_netns_remove: `rota down`, then
 * `up`), with the same names and addresses, so that slurm.conf holds.  -1
 * after saying why when its subnet is taken meanwhile. */
int rota_netns_restore(struct rota_netns *ns);

/* Write the tutorial's slurm.conf for these hosts to path, with state, spool
 * and logs under the cluster directory.  0, or -1 after saying why. */
int rota_netns_conf_write(const struct rota_netns *ns, const char *path, uint32_t cpus,
                          uint64_t mem_mb);

struct rota_netns_size {
	uint32_t nodes;  /* node01..nodeN */
	uint32_t cpus;   /* CPUs= of each node */
	uint64_t mem_mb; /* RealMemory= of each node */
};

/* `rota up` of the namespaced cluster in dir: *nsp is its record or NULL.
 * Without one, make the hosts (*nsp set; caller destroys) and write
 * conf_path for them; with one, make them again if they are gone.  Then start
 * each host's munged.  1 when slurm.conf was written, 0 when it stays, -1
 * after saying why. */
int rota_netns_up(struct rota_netns **nsp, const char *dir, const char *conf_path,
                  const struct rota_netns_size *size);

/* `rota exec`: argv (borrowed) on host, with the cluster's SLURM_CONF and
 * bin_dir first on PATH.  Returns only on failure: 1, or 127 when argv[0]
 * cannot be run. */
int rota_netns_exec(const struct rota_netns *ns, const char *host, const char *bin_dir,
                    char **argv);

/* Start each host's munged (no-op for a host whose munged answers).  The
 * processes inherit this process's environment.  0, or -1 after saying why. */
int rota_netns_munge_start(const struct rota_netns *ns);

/* In a child about to exec: join host's network namespace, and give the
 * process its own UTS namespace (host name host) and mount namespace
 * (/etc/hosts and /run/munge of that host).  0, or -1 after saying why. */
int rota_netns_enter(const struct rota_netns *ns, const char *host);

/* Remove every namespace, veth, the bridge and the /etc/netns entries
 * (DIR/netns.conf stays).  Processes should be gone first.  Returns the number of
 * things that could not be removed (said on stderr). */
int rota_netns_remove(struct rota_netns *ns);

/* Lines for `rota env`/`rota up`: how to run a command on a host (shell
 * comments, so that eval ignores them). */
void rota_netns_print_help(const struct rota_netns *ns, FILE *f);

#endif
