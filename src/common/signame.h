/* signame.h - signals by name, as scancel -s, sbatch --signal and REST's
 * DELETE job/{id}?signal= take them. */
#ifndef ROTA_SIGNAME_H
#define ROTA_SIGNAME_H

/* "USR1", "SIGUSR1", "usr1" or "10" (1 to NSIG - 1).  Returns the number or
 * -1. */
int signal_parse(const char *s);

#endif
