/* reboot.h - rotad's part of scontrol reboot: run RebootProgram when the
 * controller says (MSG_REBOOT_REQ, ctld/reboot.h).
 *
 * As slurmd does, the program line runs through /bin/sh, as rotad's own user
 * (root on a real node), with rotad's environment, no arguments, and
 * SLURMD_NODENAME set (several rotad may share a host); standard input is
 * /dev/null.  Its output goes to rotad's log a line at a time, and a status
 * other than 0 is logged.  rotad does not wait: a child in a session of its
 * own, holding none of rotad's descriptors, watches the program (which may
 * well stop rotad) and ends with it; rotad's SIGCHLD reaping takes that
 * child.  Nothing is answered: the controller sees the node back when a rotad
 * started after the order (or on a host booted after it) registers. */
#ifndef ROTA_NODED_REBOOT_H
#define ROTA_NODED_REBOOT_H

struct node_reboot_opts {
	const char *program;   /* RebootProgram; NULL or "": not configured */
	const char *node_name; /* this node's */
	const char *log_file;  /* rotad's log (absolute), NULL: standard error */
	int verbose;           /* rotad -v: the watcher logs debug lines too */
};

/* All borrowed.  Returns 0 once the watcher is started, -ENOENT without a
 * RebootProgram, -EACCES when its program cannot be run, or -errno of the
 * fork; each failure is logged as slurmd words it. */
int node_reboot_run(const struct node_reboot_opts *o);

#endif
