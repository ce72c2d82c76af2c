/* fuzz_constraint - -C/--constraint expressions: parse, then match each
 * alternative and each node count against a few feature lists. */
#include "common/constraint.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *feats[] = {"", "a", "a,b,c", "intel,gpu,ib", "x,y"};
	struct rota_error err = {""};
	struct constraint *c = NULL;
	const char *const *names;
	char *s = fuzz_str(data, size);
	size_t nalt, ncount;

	if (constraint_parse(s, &c, &err) == 0) {
		nalt = constraint_alternatives(c);
		ncount = constraint_counts(c);
		constraint_names(c, &names);
		if (ncount > CONSTRAINT_MAX_COUNTS ||
		    constraint_count_nodes(c) >
		        CONSTRAINT_MAX_COUNTS * CONSTRAINT_MAX_COUNT)
			abort();
		for (size_t k = 0; k < ncount; k++) {
			struct constraint_count cc = constraint_count(c, k);
			if (!cc.nodes || cc.nodes > CONSTRAINT_MAX_COUNT)
				abort();
		}
		for (size_t f = 0; f < sizeof(feats) / sizeof(feats[0]); f++) {
			for (size_t i = 0; i < nalt && i < 64; i++)
				constraint_match(c, i, feats[f]);
			constraint_match_any(c, feats[f]);
			for (size_t k = 0; k < ncount; k++)
				constraint_count_match(c, k, feats[f]);
		}
		constraint_destroy(c);
	}
	feature_list_has(s, "a");
	free(s);
	return 0;
}
