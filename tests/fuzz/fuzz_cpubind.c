/* fuzz_cpubind - srun --cpu-bind arguments (map_cpu:, mask_cpu:, ldom lists). */
#include "common/cpubind.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_error err = {""};
	struct cpubind b = {0};
	char *s = fuzz_str(data, size);

	if (cpubind_parse(s, &b, &err) == 0) {
		cpubind_word(&b);
		for (uint32_t i = 0; i < b.n; i++)
			for (uint32_t k = 1; k < b.cnt[i]; k++)
				if (b.ids[i][k - 1] >= b.ids[i][k] ||
				    b.ids[i][k] >= CPUBIND_MAX_CPU)
					abort(); /* the header promises ascending ids */
		cpubind_release(&b);
	}
	free(s);
	return 0;
}
