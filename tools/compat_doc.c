/* compat_doc - print doc/compat.md's "Job options (generated)" section: the
 * options of sbatch, srun and salloc and what Rota does with each, from the
 * table the commands parse with (src/cli/jobopt_table.c).
 *
 *   compat_doc > section.md
 *
 * Run by `make compat-doc`; tests/integration/test_help.py checks that
 * doc/compat.md holds its output. */
#include <stdio.h>
#include "cli/jobopt_table.h"

int main(void)
{
	jobopt_help_markdown(stdout);
	return fflush(stdout) ? 1 : 0;
}
