/* stepd_main.h - the step daemon's entry point, for the rotastepd binary and
 * for rotad's children (noded/stepd_mgr.c forks, and calls it without an exec:
 * no loader, no library relocations, no CPU feature probing per job).
 *
 * The caller has the MSG_LAUNCH_REQ socket on fd 3, /dev/null on fd 0 and no
 * other descriptor but 1 and 2, default signal handlers, and SLURM_CONF set.
 * argv: [name, "-L", logfile]? ["-v"]?.  Returns the process's exit status. */
#ifndef ROTA_STEPD_MAIN_H
#define ROTA_STEPD_MAIN_H

#include <stdint.h>
#include <sys/types.h>

struct conf;

/* What a forked step daemon finds in rotad's memory instead of reading it again:
 * rotad's parsed slurm.conf (Slurm's slurmstepd, too, runs with its slurmd's
 * config), and the groups of a user as an earlier step daemon found them
 * (noded/gidcache.h), used only if the launch is for that user and gid.
 * Borrowed; fields NULL/0 when not known. */
struct stepd_given {
	const struct conf *conf;
	const char *conf_path; /* its absolute path */
	const char *user;
	gid_t gid;
	const gid_t *gids;
	uint32_t ngids;
};

/* given: NULL in the rotastepd binary. */
int stepd_main(int argc, char **argv, const struct stepd_given *given);

#endif
