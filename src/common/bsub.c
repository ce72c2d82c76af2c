/* bsub.c - #BSUB directives as sbatch options (see bsub.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/bsub.h"
#include "common/pbs.h"
#include "common/strv.h"
#include "common/common.h"

/* bsub's options Slurm knows: all but -x take a value */
static const char BSUB_WITH_VALUE[] = "ceJmMnoqW";

static char **add(char **words, const char *opt, const char *value)
{
	char *w = value ? xasprintf("--%s=%s", opt, value) : xasprintf("--%s", opt);

	words = strv_append(words, w);
	free(w);
	return words;
}

/* One option opt with value v (NULL for -x) onto *words. */
static int option(char ***words, char opt, const char *v, struct rota_error *err)
{
	const char *comma;
	char *s;

	switch (opt) {
	case 'c':
		*words = add(*words, "chdir", v);
		break;
	case 'e':
		*words = add(*words, "error", v);
		break;
	case 'J':
		*words = add(*words, "job-name", v);
		break;
	case 'o':
		*words = add(*words, "output", v);
		break;
	case 'q':
		*words = add(*words, "partition", v);
		break;
	case 'W':
		*words = add(*words, "time", v);
		break;
	case 'x':
		*words = add(*words, "exclusive", NULL);
		break;
	case 'm': /* a list of hosts, blank-separated */
		s = xstrdup(v);
		for (char *p = s; *p; p++)
			if (*p == ' ')
				*p = ',';
		*words = add(*words, "nodelist", s);
		free(s);
		break;
	case 'M': /* LSF counts in KB */
		s = *v && isdigit((unsigned char)v[strlen(v) - 1]) ? xasprintf("%sK", v)
		                                                   : xstrdup(v);
		*words = add(*words, "mem-per-cpu", s);
		free(s);
		break;
	case 'n': /* min,max: the max */
		if ((comma = strchr(v, ','))) {
			if (!comma[1])
				return errprintf(
				           err, "#BSUB -n format not correct given: '%s'",
				           v),
				       -EINVAL;
			v = comma + 1;
		}
		*words = add(*words, "ntasks", v);
		break;
	}
	return 0;
}

int bsub_translate(char *const *words, char ***ret, struct rota_error *err)
{
	char **out = xcalloc(1, sizeof(char *));
	int rc = 0;

	for (size_t i = 0; words && words[i] && !rc; i++) {
		const char *w = words[i], *v;
		char opt;

		if (w[0] != '-' || !w[1]) {
			errprintf(err, "Invalid argument: %s", w);
			rc = -EINVAL;
			break;
		}
		/* -cwd: Slurm's getopt takes no long name with one '-' */
		opt = !strcmp(w, "-cwd") ? 'c' : w[1];
		if (opt == 'x' && !w[2]) {
			rc = option(&out, opt, NULL, err);
			continue;
		}
		if (!strchr(BSUB_WITH_VALUE, opt)) {
			errprintf(err, "Unrecognized command line parameter %c", opt);
			rc = -EINVAL;
			break;
		}
		v = w[2] && strcmp(w, "-cwd") ? w + 2 : words[i + 1];
		if (!v) {
			errprintf(err, "#BSUB option %s needs a value", w);
			rc = -EINVAL;
			break;
		}
		if (v == words[i + 1])
			i++;
		rc = option(&out, opt, v, err);
	}
	if (rc) {
		strv_free(out);
		return rc;
	}
	*ret = out;
	return 0;
}

char *bsub_lines(const char *script)
{
	return pbs_magic_lines(script, "#BSUB");
}
