/* fuzz.h - helpers shared by the libFuzzer harnesses in tests/fuzz/.
 *
 * Each harness is one fuzz_TARGET.c defining LLVMFuzzerTestOneInput; `make fuzz`
 * builds it with clang -fsanitize=fuzzer,address,undefined into build-fuzz/ and
 * runs it over tests/fuzz/corpus/TARGET/ (see tests/fuzz/run.sh).  A harness
 * must free everything it gets (leak detection is on) and must not write
 * outside its own temporary directory.
 */
#ifndef ROTA_FUZZ_H
#define ROTA_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A NUL-terminated copy of data (caller frees).  Parsers take C strings: an
 * embedded NUL simply ends the text, as it does when the CLI reads argv. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Take the first byte of the input as a selector (0 when empty). */
static inline unsigned fuzz_take_byte(const uint8_t **data, size_t *size)
{
	unsigned b;
	if (!*size)
		return 0;
	b = **data;
	(*data)++;
	(*size)--;
	return b;
}

#endif
