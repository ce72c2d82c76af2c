/* fuzz_timefmt - Slurm's time and size formats: time limits (-t, MaxTime=),
 * memory sizes (--mem, RealMemory=) and --begin times.  What parses must
 * format, and the formatted limit or size must parse back to the same value. */
#include <stdio.h>
#include "common/time_parse.h"
#include "common/timefmt.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), buf[64];
	uint32_t min, min2;
	uint64_t mb, mb2;
	time_t t;

	if (timefmt_parse_limit(s, &min) == 0) {
		timefmt_limit(min, buf, sizeof(buf));
		if (timefmt_parse_limit(buf, &min2) < 0 || min2 != min) {
			fprintf(stderr,
			        "limit '%.200s' -> %u -> '%.200s' does not read back\n",
			        s, min, buf);
			abort();
		}
		timefmt_elapsed((long)min * 60, buf, sizeof(buf));
	}
	if (timefmt_parse_mem(s, &mb) == 0) {
		timefmt_mem_unit(mb, buf, sizeof(buf));
		if (timefmt_parse_mem(buf, &mb2) < 0 || mb2 != mb) {
			fprintf(stderr,
			        "size '%.200s' -> %llu -> '%.200s' does not read back\n",
			        s, (unsigned long long)mb, buf);
			abort();
		}
	}
	/* a fixed "now" keeps runs reproducible */
	if (time_parse(s, 1764590400, 0, &t, NULL) == 0)
		timefmt_iso(t, buf, sizeof(buf));
	free(s);
	return 0;
}
