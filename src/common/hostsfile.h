/* hostsfile.h - /etc/hosts lines that name the cluster's nodes.
 *
 * The local cluster's virtual nodes (NodeName=node01.. NodeAddr=127.0.0.1)
 * have names no resolver knows, yet the programs a job runs look them up:
 * MPICH's hydra resolves every name of SLURM_NODELIST.  rotastepd lays the
 * text made here over /etc/hosts in the step's own mount namespace
 * (stepd/names.c); this module only makes the text (no I/O, no logging). */
#ifndef ROTA_COMMON_HOSTSFILE_H
#define ROTA_COMMON_HOSTSFILE_H

struct conf;

enum hostsfile_flags {
	/* a node without an IP address (NodeAddr a name, or none) runs on
	 * this host: 127.0.0.1.  Without it such a node is left out: its name
	 * is the resolver's business */
	HOSTSFILE_F_LOCAL = 1 << 0,
};

/* Does addr name this host's loopback: 127.0.0.0/8, ::1 or "localhost"?
 * NULL is not. */
int hostsfile_is_loopback(const char *addr);

/* base (borrowed, the host's /etc/hosts; NULL: empty), newline-terminated,
 * then one line per node of conf (borrowed): "ADDR NAME [HOSTNAME]", the
 * NodeHostname only where it differs from the name and from the previous
 * node's.  Lines of base come first, so the host's own entries win.
 * *ret (caller frees) is set on success only.  Returns 0 or -ENOMEM. */
int hostsfile_render(const char *base, const struct conf *conf, unsigned flags,
                     char **ret);

#endif
