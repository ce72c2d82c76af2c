/* fuzz_fmtspec - squeue/sinfo -o and -O format strings; print each field. */
#include <stdio.h>
#include "common/fmtspec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_error err = {""};
	struct fmtspec *f = NULL;
	unsigned sel = fuzz_take_byte(&data, &size);
	char *s = fuzz_str(data, size);
	FILE *null = fopen("/dev/null", "w");
	int rc;

	if (!null)
		abort();
	rc = (sel & 1) ? fmtspec_parse_long(s, 20, &f, &err) : fmtspec_parse(s, &f, &err);
	if (rc == 0) {
		fputs(f->prefix, null);
		for (size_t i = 0; i < f->count; i++) {
			fmtspec_put(null, "value", f->items[i].width, f->items[i].flags);
			fputs(f->items[i].suffix, null);
		}
		fmtspec_destroy(f);
	}
	fclose(null);
	free(s);
	return 0;
}
