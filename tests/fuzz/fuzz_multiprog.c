/* fuzz_multiprog - srun --multi-prog files: check for a few task counts and
 * build the argv of some tasks. */
#include "common/multiprog.h"
#include "proto/codec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t tasks[] = {0, 1, 3, 7, 100, 0xfffffffeu};
	struct rota_error err = {""};
	char *s = fuzz_str(data, size), **argv;

	multiprog_check(s, 4, &err);
	multiprog_check(s, 1000, &err);
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		if (multiprog_argv(s, tasks[i], &argv, &err) == 0)
			strv_free(argv);
	free(s);
	return 0;
}
