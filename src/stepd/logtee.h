/* logtee.h - srun --slurmd-debug: the step daemon's own messages on the
 * step's stderr, as slurmstepd's (task 0's stream, "slurmstepd: ..." lines).
 *
 * The level srun sends is Slurm's (0 quiet ... 4 verbose, 5+ debug); the
 * daemon shows what is as severe as error plus that many levels (Slurm's
 * rule: --slurmd-debug=error shows verbose).  Lines logged before srun's I/O
 * connection is up wait for it (a bounded number).  A child the daemon forks
 * sends nothing. */
#ifndef ROTA_STEPD_LOGTEE_H
#define ROTA_STEPD_LOGTEE_H

#include <stdint.h>

struct stepd;

/* Start when st's launch asks for it (slurmd_debug > 0); else nothing. */
void logtee_start(struct stepd *st);
/* srun's I/O connection is up (or will never be): send what waited. */
void logtee_flush(struct stepd *st);
/* The daemon ends: no more lines (NULL-safe). */
void logtee_release(struct stepd *st);

#endif
