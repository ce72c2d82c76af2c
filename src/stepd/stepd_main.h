/* stepd_main.h - the step daemon's entry point, for the rotastepd binary and
 * for rotad's children (noded/stepd_mgr.c forks, and calls it without an exec:
 * no loader, no library relocations, no CPU feature probing per job).
 *
 * The caller has the MSG_LAUNCH_REQ socket on fd 3, /dev/null on fd 0 and no
 * other descriptor but 1 and 2, default signal handlers, and SLURM_CONF set.
 * argv: [name, "-L", logfile]? ["-v"]?.  Returns the process's exit status. */
#ifndef ROTA_STEPD_MAIN_H
#define ROTA_STEPD_MAIN_H

int stepd_main(int argc, char **argv);

#endif
