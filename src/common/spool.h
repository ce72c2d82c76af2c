/* spool.h - names inside a node's SlurmdSpoolDir, shared by rotad and rotastepd.
 *
 * Each running rotastepd listens on <spool>/<node>_<job>.<step> (mode 0600), so
 * a restarted rotad finds and re-attaches to it; a stepd that ends while no rotad
 * holds its link leaves <spool>/<node>_<job>.<step>.done (the step_complete
 * message, framed) for the next rotad to forward.  Batch scripts live in
 * <spool>/job<%05u job>/slurm_script as in Slurm.  While its tasks run, a
 * stepd keeps <spool>/<node>_<job>.<step>.pids (mode 0644) for `scontrol
 * listpids` and `pidinfo` (stepd/pids_file.c writes it: its format is there).  The node's
 * cgroups live under <mount>/rota/<node>_<hash of the spool dir> (stepd/cgroup.h), so
 * that two clusters of virtual nodes on one host never share one.  Pure functions. */
#ifndef ROTA_SPOOL_H
#define ROTA_SPOOL_H

#include <stdint.h>

/* rotastepd's exit status when it failed before it could start the tasks and
 * could not report it; rotad then reports STEP_DONE_LAUNCH_FAILED. */
#define SPOOL_STEPD_EXIT_SETUP 2

/* SlurmdSpoolDir (or SlurmdLogFile) with %n -> node name and %h -> host name.  Caller
 * frees; NULL on ENOMEM. */
char *spool_dir_expand(const char *pattern, const char *node_name, const char *host);

/* mkdir -p path; directories it creates get mode 0755.  Returns 0 or -errno. */
int spool_mkdir(const char *path);

/* "<node>_<job>.<step>" (no directory).  Caller frees; NULL on ENOMEM. */
char *spool_stepd_name(const char *node_name, uint32_t job_id, uint32_t step_id);

#define SPOOL_PIDS_SUFFIX ".pids"

/* Parse a directory entry name made by spool_stepd_name for node_name, with an
 * optional ".done" or ".pids" suffix.  Returns 1 (socket), 2 (done file),
 * 3 (pids file) or 0 (not ours); the ids are set only when non-zero is
 * returned. */
int spool_stepd_parse(const char *entry, const char *node_name, uint32_t *ret_job,
                      uint32_t *ret_step);

/* "<node>_<8 hex digits>": the directory of the node's cgroups, from its
 * name (made safe for a path) and its spool directory.  Caller frees. */
char *spool_cgroup_name(const char *node_name, const char *spool);

#endif
