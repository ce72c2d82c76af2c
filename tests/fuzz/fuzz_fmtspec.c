/* fuzz_fmtspec - squeue/sinfo -o and -O format strings; print each field. */
#include <stdio.h>
#include <string.h>
#include "common/fmtrow.h"
#include "common/fmtspec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_error err = {""};
	struct fmtspec *f = NULL;
	unsigned sel = fuzz_take_byte(&data, &size);
	char *s = fuzz_str(data, size);
	struct fmtbuf b = {0};
	int rc;

	rc = (sel & 1) ? fmtspec_parse_long(s, 20, &f, &err) : fmtspec_parse(s, &f, &err);
	if (rc == 0) {
		fmtbuf_put(&b, f->prefix, strlen(f->prefix));
		for (size_t i = 0; i < f->count; i++) {
			fmt_cell_append(&b, "value", f->items[i].width,
			                f->items[i].flags);
			fmtbuf_put(&b, f->items[i].suffix, strlen(f->items[i].suffix));
		}
		fmtspec_destroy(f);
	}
	fmtbuf_release(&b);
	free(s);
	return 0;
}
