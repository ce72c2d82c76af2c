/* mpiparams.h - slurm.conf MpiParams: "ports=MIN-MAX", the range the
 * controller reserves ports from for steps (srun --resv-ports; with it set,
 * every step gets as many as its most tasks on a node, plus one), given to the
 * tasks as SLURM_STEP_RESV_PORTS. */
#ifndef ROTA_MPIPARAMS_H
#define ROTA_MPIPARAMS_H

#include <stdint.h>
#include "common/error.h"

#define MPI_PORTS_MAX 65535

/* The ports= range of an MpiParams value (NULL: none).  1 with *min..*max set,
 * 0 when it names none, -1 with err saying why when its ports= is not
 * MIN-MAX with 1 <= MIN <= MAX <= 65535.  Other items are left alone. */
int mpi_params_ports(const char *text, uint32_t *min, uint32_t *max,
                     struct rota_error *err);

#endif
