/* test_pbs.c - #PBS directives as sbatch options. */
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
#include "common/jobscript.h"
#include "common/pbs.h"
#include "common/strv.h"

/* The sbatch words for the #PBS lines of script, joined by spaces. */
static char *xlate(const char *script)
{
	struct rota_error err = {{0}};
	char **pbs = NULL, **words = NULL, *s = xstrdup(""), *lines = pbs_lines(script);

	assert_int_equal(jobscript_directives(lines, "#PBS", &pbs, &err), 0);
	free(lines);
	if (pbs_translate(pbs, &words, &err) < 0)
		fail_msg("refused: %s", err.text);
	for (size_t i = 0; words[i]; i++) {
		char *t = xasprintf("%s%s%s", s, i ? " " : "", words[i]);
		free(s);
		s = t;
	}
	strv_free(pbs);
	strv_free(words);
	return s;
}

static void expect(const char *script, const char *want)
{
	char *got = xlate(script);
	assert_string_equal(got, want);
	free(got);
}

static void test_translate(void **state)
{
	(void)state;
	expect("#!/bin/sh\n#PBS -N name -q batch\n#PBS -A acct\n",
	       "--job-name=name --partition=batch --account=acct");
	expect("#!/bin/sh\n#PBS -l nodes=2:ppn=4,walltime=01:30:00\n#PBS -l mem=4gb\n",
	       "--time=01:30:00 --mem=4g --nodes=2 --ntasks=8");
	expect("#!/bin/sh\n#PBS -l nodes=1:ppn=2+2:ppn=1:gpus=1\n",
	       "--nodes=3 --ntasks=4 --gpus-per-node=1");
	expect("#!/bin/sh\n#PBS -l nodes=3+ppn=2,mem=1024mb\n",
	       "--mem=1024m --nodes=3 --ntasks=6");
	expect("#!/bin/sh\n#PBS -l nodes=node01+node02\n",
	       "--nodes=2 --nodelist=node01,node02");
	expect("#!/bin/sh\n#PBS -l select=2:ncpus=8:mpiprocs=4\n",
	       "--nodes=2 --ntasks-per-node=4 --mincpus=8 --cpus-per-task=2");
	expect("#!/bin/sh\n#PBS -m abe -M me@x\n#PBS -m n\n",
	       "--mail-type=BEGIN,END,FAIL --mail-user=me@x --mail-type=NONE");
	expect("#!/bin/sh\n#PBS -t 1-10\n#PBS -J 1-4\n#PBS -h\n",
	       "--array=1-10 --array=1-4 --hold");
	expect("#!/bin/sh\n#PBS -o out.txt -e err.txt -j oe -V -r n\n",
	       "--output=out.txt --error=err.txt");
	expect("#!/bin/sh\n#PBS -v A=1,B\n#PBS -W depend=afterok:12 -W umask=022\n#PBS "
	       "-v C\n",
	       "--dependency=afterok:12 --export=A=1,B,C");
	/* read past the first command (100 lines), the last nodes= counts */
	expect(
	    "#!/bin/sh\necho hi\n#PBS -N late\n#PBS -l nodes=4\n#PBS -l nodes=2:ppn=2\n",
	    "--job-name=late --nodes=2 --ntasks=4");
	expect("#!/bin/sh\n#PBS -l mem=512b,file=1GB\n", "--mem=512 --tmp=1G");
	expect("#!/bin/sh\n#PBS -l naccelerators=2,file=10gb\n",
	       "--tmp=10g --gres=gpu:2");
	expect("#!/bin/sh\n#PBS -lwalltime=10:00\n", "--time=10:00");
	expect("#!/bin/sh\necho no directives\n", "");
}

static void test_refused(void **state)
{
	struct rota_error err = {{0}};
	char **words = NULL;

	(void)state;
	assert_int_equal(pbs_translate((char *[]){"-Y", NULL}, &words, &err), -EINVAL);
	assert_string_equal(err.text, "Unrecognized #PBS option -Y");
	assert_int_equal(pbs_translate((char *[]){"-N", NULL}, &words, &err), -EINVAL);
	assert_int_equal(pbs_translate((char *[]){"name", NULL}, &words, &err), -EINVAL);
	assert_int_equal(
	    pbs_translate((char *[]){"-l", "nodes=x1:ppn=0", NULL}, &words, &err),
	    -EINVAL);
	assert_int_equal(
	    pbs_translate((char *[]){"-l", "select=two", NULL}, &words, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_translate),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
