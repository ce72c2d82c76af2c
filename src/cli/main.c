/* main.c - multi-call dispatch. */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "common/log.h"
#include "common/common.h"

const char *cli_prog = "rota";

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
    {"sbatch", cmd_sbatch},     {"srun", cmd_srun},         {"salloc", cmd_salloc},
    {"squeue", cmd_squeue},     {"sinfo", cmd_sinfo},       {"scancel", cmd_scancel},
    {"scontrol", cmd_scontrol}, {"sprio", cmd_sprio},       {"sdiag", cmd_sdiag},
    {"sacct", cmd_sacct},       {"sacctmgr", cmd_sacctmgr}, {"sshare", cmd_sshare},
    {"sreport", cmd_sreport},   {"sstat", cmd_sstat},       {"sbcast", cmd_sbcast},
    {"strigger", cmd_strigger}, {"sattach", cmd_sattach},   {"scrontab", cmd_scrontab},
};

static int dispatch(const char *name, int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(name, commands[i].name)) {
			cli_prog = commands[i].name;
			return commands[i].fn(argc, argv);
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	int rc;

	base = base ? base + 1 : argv[0];
	log_init(base, LOG_WARNING, NULL);
	rc = dispatch(base, argc, argv);
	if (rc >= 0)
		return rc;
	if (argc > 1 && (rc = dispatch(argv[1], argc - 1, argv + 1)) >= 0)
		return rc;
	cli_prog = "rota";
	return cmd_rota(argc, argv);
}
