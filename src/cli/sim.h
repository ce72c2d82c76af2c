/* sim.h - `rota sim`: replay an SWF workload trace through the scheduler. */
#ifndef ROTA_CLI_SIM_H
#define ROTA_CLI_SIM_H

/* argv[0] is "sim".  Prints the figures on stdout; returns the exit status
 * (0, 1 on a trace or output error, 2 on a usage error). */
int cmd_sim(int argc, char **argv);

/* --topology: path's topology.conf (SwitchName= or BlockName= lines) over
 * nodes n1..n<nnodes>; NULL after printing why.  sim_topo.c. */
#include <stddef.h>
struct sched_topo;
struct sched_topo *sim_topo_load(const char *path, size_t nnodes);

#endif
