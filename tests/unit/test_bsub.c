/* test_bsub.c - #BSUB directives (LSF) as sbatch options. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/common.h"
#include "common/bsub.h"
#include "common/jobscript.h"
#include "common/strv.h"

/* The sbatch words for the #BSUB lines of script, joined by spaces; NULL
 * and err when refused. */
static char *xlate(const char *script, struct rota_error *err)
{
	char **bsub = NULL, **words = NULL, *s = xstrdup(""), *lines = bsub_lines(script);

	assert_int_equal(jobscript_directives(lines, "#BSUB", &bsub, err), 0);
	free(lines);
	if (bsub_translate(bsub, &words, err) < 0) {
		strv_free(bsub);
		free(s);
		return NULL;
	}
	for (size_t i = 0; words[i]; i++) {
		char *t = xasprintf("%s%s%s", s, i ? " " : "", words[i]);
		free(s);
		s = t;
	}
	strv_free(bsub);
	strv_free(words);
	return s;
}

static void expect(const char *script, const char *want)
{
	struct rota_error err = {{0}};
	char *got = xlate(script, &err);

	if (!got)
		fail_msg("refused: %s", err.text);
	assert_string_equal(got, want);
	free(got);
}

static void test_translate(void **state)
{
	(void)state;
	/* test17.62's script: values attached, quotes removed */
	expect("#!/bin/sh\n\n#BSUB -o/dev/null -e/tmp/err\n#BSUB -m\"node01 node02\"\n"
	       "#BSUB -Jname -M4096\n#BSUB -W1 -x -qdebug\nsleep 10\n",
	       "--output=/dev/null --error=/tmp/err --nodelist=node01,node02 "
	       "--job-name=name --mem-per-cpu=4096K --time=1 --exclusive "
	       "--partition=debug");
	expect("#!/bin/sh\n#BSUB -cwd /tmp -n 2,4 -M 2G\n",
	       "--chdir=/tmp --ntasks=4 --mem-per-cpu=2G");
	expect("#!/bin/sh\n#BSUB -n 3\n", "--ntasks=3");
	expect("#!/bin/sh\necho hi\n#BSUB -J late\n", "--job-name=late");
	expect("#!/bin/sh\n#PBS -N pbs\n", "");
}

static void test_refused(void **state)
{
	struct rota_error err = {{0}};

	(void)state;
	assert_null(xlate("#!/bin/sh\n#BSUB -z\n", &err));
	assert_string_equal(err.text, "Unrecognized command line parameter z");
	assert_null(xlate("#!/bin/sh\n#BSUB -n 2,\n", &err));
	assert_string_equal(err.text, "#BSUB -n format not correct given: '2,'");
	assert_null(xlate("#!/bin/sh\n#BSUB -o\n", &err));
	assert_null(xlate("#!/bin/sh\n#BSUB stray\n", &err));
	assert_string_equal(err.text, "Invalid argument: stray");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_translate),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
