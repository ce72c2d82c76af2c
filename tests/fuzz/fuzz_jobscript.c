/* fuzz_jobscript - what sbatch reads from a batch script: the #SBATCH
 * directives (quotes, comments, limits), the interpreter and CRLF checks, and
 * --export specifications applied to a small environment.
 * The first input byte picks which: even = script text, odd = --export spec. */
#include "common/jobscript.h"
#include "proto/codec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const env[] = {"HOME=/root",    "PATH=/bin:/usr/bin",
	                            "SLURM_CONF=/x", "FOO=bar",
	                            "EMPTY=",        NULL};
	struct rota_error err = {""};
	unsigned sel = fuzz_take_byte(&data, &size);
	char *s = fuzz_str(data, size), **words = NULL, **out = NULL, *wrap;

	if (sel & 1) {
		if (jobscript_export_env(s, env, &out, &err) == 0)
			strv_free(out);
	} else {
		jobscript_has_interpreter(s);
		jobscript_has_crlf(s);
		if (jobscript_directives(s, (sel & 2) ? "#PBS" : "#SBATCH", &words,
		                         &err) == 0)
			strv_free(words);
		if (size < 4096) {
			wrap = jobscript_wrap(s);
			free(wrap);
		}
	}
	free(s);
	return 0;
}
