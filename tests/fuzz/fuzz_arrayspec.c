/* fuzz_arrayspec - --array specifications: parse against a MaxArraySize,
 * format, walk and clear ids; the formatted form parses to the same set. */
#include <stdio.h>
#include "common/arrayspec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_error err = {""};
	struct arrayspec a = {0}, b = {0}, c = {0};
	unsigned sel = fuzz_take_byte(&data, &size);
	uint32_t limit = (sel & 1) ? ARRAYSPEC_LIMIT : 1001;
	char *s = fuzz_str(data, size), *f = NULL;
	int64_t id;
	unsigned walked = 0;

	if (arrayspec_parse(s, limit, &a, &err) < 0)
		goto out;
	f = arrayspec_format(&a, 1);
	if (arrayspec_parse(f, limit, &b, &err) < 0) {
		fprintf(stderr,
		        "'%.200s' parsed, its formatted form '%.200s' does not: %s\n", s,
		        f, err.text);
		abort();
	}
	if (b.count != a.count || b.throttle != a.throttle ||
	    arrayspec_first(&a) != arrayspec_first(&b) ||
	    arrayspec_last(&a) != arrayspec_last(&b) ||
	    arrayspec_step(&a) != arrayspec_step(&b))
		abort();
	arrayspec_copy(&c, &a);
	for (id = arrayspec_next(&a, -1); id >= 0 && walked < 1000;
	     id = arrayspec_next(&a, id), walked++)
		if (!arrayspec_test(&b, (uint32_t)id) ||
		    arrayspec_clear(&c, (uint32_t)id) != 1)
			abort();
	if (walked < 1000 && c.count != 0)
		abort();
out:
	free(f);
	arrayspec_release(&a);
	arrayspec_release(&b);
	arrayspec_release(&c);
	free(s);
	return 0;
}
