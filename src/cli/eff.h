/* eff.h - `rota eff JOBID`: a job's efficiency from its accounting records. */
#ifndef ROTA_CLI_EFF_H
#define ROTA_CLI_EFF_H

/* argv[0] is "eff".  Returns the exit status (0; 1 no such job or no
 * accounting; 2 a usage error). */
int cmd_eff(int argc, char **argv);

#endif
