/* fuzz_hostlist - hostlist_expand() on any text; what expands must compress to
 * an expression that expands to the same names, in the same order (unless that
 * expression is over the 1 MiB a host list may have: names that share no
 * bracket, like a[1-9]b[1-9], compress to a list of their own). */
#include <stdio.h>
#include "common/hostlist.h"
#include "common/log.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_error err = {""};
	char *expr = fuzz_str(data, size), *again;
	char **names = NULL, **names2 = NULL;
	size_t n = 0, n2 = 0;

	if (hostlist_expand(expr, &names, &n, &err) < 0)
		goto out;
	if (n > HOSTLIST_MAX)
		abort();
	again = hostlist_compress(names, n);
	if (!again || strlen(again) > (1u << 20)) {
		free(again);
		goto out;
	}
	if (hostlist_expand(again, &names2, &n2, &err) < 0) {
		fprintf(stderr,
		        "'%.200s' expanded, its compressed form '%.200s' does not: %s\n",
		        expr, again, err.text);
		abort();
	}
	if (n2 != n)
		abort();
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], names2[i]))
			abort();
	free(again);
out:
	hostlist_free(names);
	hostlist_free(names2);
	free(expr);
	return 0;
}
