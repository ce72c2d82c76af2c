/* sim_main.c - rota-sim: `rota sim` in a program of its own, so that the
 * commands started once per call (sbatch, squeue, ...) do not load libm,
 * which only the simulator's predictor needs (each shared library costs
 * every start of every command its mappings and relocations).  `rota sim
 * ARGS` executes `rota-sim ARGS` from rota's own directory. */
#include "cli/cli.h"
#include "cli/sim.h"
#include "common/log.h"
#include "common/common.h"

const char *cli_prog = "rota";

int main(int argc, char **argv)
{
	log_init("rota", LOG_WARNING, NULL);
	return cmd_sim(argc, argv);
}
