/* gang.h - PreemptMode=GANG: time slicing of the jobs that share cores.
 *
 * A partition with OverSubscribe=FORCE:N (or YES:N for jobs that ask) lets
 * up to N jobs hold the same cores.  Without GANG they all run at once;
 * with it (PreemptMode=GANG, or SUSPEND,GANG) only one job at a time runs
 * on each core: the others stay suspended (SIGSTOP, shown SUSPENDED, their
 * cores still held, the time not counted against their limit), and every
 * SchedulerTimeSlice seconds the jobs that waited longest run in place of
 * those that ran, as Slurm's gang scheduler rotates its rows.
 *
 * DESIGN: once a second (gang_tick) the jobs that share cores are ordered
 * (at a slice's end: the suspended first, longest waiting first, then the
 * running; in between: the running first, so that a job that just started
 * waits for the slice unless its cores are free) and taken greedily while
 * their cores on each node are free of those taken; the rest is suspended.
 * A job started less than two seconds ago (its tasks may not be there to
 * take SIGSTOP) or still configuring runs beside the others until then.
 * A heterogeneous job's components are left out, as by Slurm's gang
 * scheduler: never stopped, and not in the others' turns.
 * Without GANG (a reconfiguration took it out) what it stopped resumes.
 * A suspension is EV_SUSPEND with gang set (ctld/suspend.h): journaled,
 * replayed, its CPUs kept.  Jobs suspended by an operator or by preemption
 * are left alone.  Nothing is done when nothing changed (res_gen) and no
 * slice ended. */
#ifndef ROTA_CTLD_GANG_H
#define ROTA_CTLD_GANG_H

#include <time.h>

struct ctld;
struct conf;

/* Is time slicing on (GANG in PreemptMode)? */
int gang_enabled(const struct conf *conf);

/* Each second: suspend and resume the jobs sharing cores as above. */
void gang_tick(struct ctld *ctld, time_t now);

#endif
