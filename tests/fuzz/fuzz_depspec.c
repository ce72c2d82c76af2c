/* fuzz_depspec - --dependency specifications: parse, then format; the
 * formatted form (without status) must parse to the same items when it is
 * within the length limit (formatting spells out what "1:2:3" abbreviates). */
#include <stdio.h>
#include "common/depspec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_error err = {""};
	struct depspec *d = NULL, *d2 = NULL;
	char *s = fuzz_str(data, size), *f = NULL;

	if (depspec_parse(s, &d, &err) < 0)
		goto out;
	if (!(f = depspec_format(d, NULL)) || strlen(f) > DEPSPEC_MAX_LEN)
		goto out;
	if (depspec_parse(f, &d2, &err) < 0) {
		fprintf(stderr,
		        "'%.200s' parsed, its formatted form '%.200s' does not: %s\n", s,
		        f, err.text);
		abort();
	}
	if (d2->n != d->n || d2->any != d->any ||
	    memcmp(d2->items, d->items, d->n * sizeof(*d->items)))
		abort();
out:
	free(f);
	depspec_destroy(d);
	depspec_destroy(d2);
	free(s);
	return 0;
}
