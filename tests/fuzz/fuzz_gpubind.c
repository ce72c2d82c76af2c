/* fuzz_gpubind - --gpu-bind arguments, and the GPUs each task gets. */
#include "common/gpubind.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t idx[] = {0, 2, 3, 7, 8, 9};
	struct rota_error err = {""};
	struct gpubind b = {0};
	char *s = fuzz_str(data, size);

	if (gpubind_parse(s, &b, &err) == 0) {
		for (int rel = 0; rel < 2; rel++) {
			struct gpubind_node n = {.ngpus = 6, .idx = idx, .relative = rel};
			for (uint32_t t = 0; t < 9; t++) {
				uint64_t got = gpubind_task(&b, &n, t, t & 1 ? 0x5 : 0);
				if (!got || got >> 6)
					abort(); /* one or more of the step's GPUs, no
					            other */
			}
		}
		gpubind_release(&b);
	}
	free(s);
	return 0;
}
