/* jobopt_layout.h - the options that lay a job's tasks out on sockets, cores
 * and threads: -B S[:C[:T]], --sockets-per-node, --cores-per-socket,
 * --threads-per-core, --ntasks-per-core, --ntasks-per-socket and --hint.
 *
 * The counts go into the job's description (proto/messages.h), where the
 * controller reads them: nodes with fewer sockets, cores a socket or threads
 * a core than asked are not used, and a task's CPUs are counted in whole
 * cores where it may not share its cores (sched/select.h sched_task_cpus).
 *
 * --hint is kept as given and resolved last (jobopt_layout_finish), as
 * Slurm does: beside --ntasks-per-core, --threads-per-core, -B or a
 * --cpu-bind type given as directly (both on the command line or in the
 * script, or both in the environment) or more directly than the hint, the
 * hint is ignored (said with -v); a hint on the command line over such
 * options from the environment clears them and sets what it implies.
 */
#ifndef ROTA_CLI_JOBOPT_LAYOUT_H
#define ROTA_CLI_JOBOPT_LAYOUT_H

struct jobopt;

/* Apply option id if it is one of these (1), else 0.  A bad value ends the
 * command with Slurm's message; --hint=help prints the hints and exits. */
int jobopt_layout_apply(struct jobopt *o, int id, const char *arg);

/* --hint=help: print the hints and exit(0); anything else: return. */
void jobopt_layout_hint_help(const char *arg);

/* After every option: resolve --hint. */
void jobopt_layout_finish(struct jobopt *o);

#endif
