/* test_jobscript.c - #SBATCH directives, --wrap, --export, and the
 * line cutting behind srun --label. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "common/jobscript.h"
#include "common/linebuf.h"
#include "common/common.h"

static void vfree(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static size_t vlen(char **v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

/* Directives of text must be exactly the given words (NULL-terminated). */
static void expect_words(const char *text, ...)
{
	struct rota_error err = {""};
	char **w = NULL;
	va_list ap;
	size_t i = 0;
	const char *want;

	assert_int_equal(jobscript_directives(text, "#SBATCH", &w, &err), 0);
	assert_non_null(w);
	va_start(ap, text);
	while ((want = va_arg(ap, const char *))) {
		assert_non_null(w[i]);
		assert_string_equal(w[i], want);
		i++;
	}
	va_end(ap);
	assert_null(w[i]);
	vfree(w);
}

static void test_interpreter(void **state)
{
	assert_true(jobscript_has_interpreter("#!/bin/sh\necho\n"));
	assert_true(jobscript_has_interpreter("#!"));
	assert_false(jobscript_has_interpreter("echo hi\n"));
	assert_false(jobscript_has_interpreter(" #!/bin/sh\n"));
	assert_false(jobscript_has_interpreter(""));
	assert_false(jobscript_has_interpreter(NULL));
	assert_true(jobscript_has_crlf("#!/bin/sh\r\necho\r\n"));
	assert_false(jobscript_has_crlf("#!/bin/sh\necho\r"));
}

static void test_wrap(void **state)
{
	char *s = jobscript_wrap("hostname; echo \"a b\"");

	assert_string_equal(s,
	                    "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n"
	                    "hostname; echo \"a b\"\n");
	free(s);
}

static void test_directives_basic(void **state)
{
	expect_words("#!/bin/bash\n#SBATCH -J job1\n#SBATCH --time=10 -N 2\necho hi\n",
	             "-J", "job1", "--time=10", "-N", "2", NULL);
	/* blank lines and comments do not end the directives, commands do */
	expect_words(
	    "#!/bin/sh\n\n# a comment\n   # indented comment\n\t\n#SBATCH -p debug\n"
	    "echo hi\n#SBATCH -t 5\n",
	    "-p", "debug", NULL);
	/* indented directives are comments; other prefixes are ignored */
	expect_words("#!/bin/sh\n  #SBATCH -J x\n#PBS -N y\n#SBATCH -A acct\n", "-A",
	             "acct", NULL);
	/* no trailing newline; tabs; the prefix may touch its first word */
	expect_words("#!/bin/sh\n#SBATCH\t-p tabbed\n#SBATCH-J xx\n#SBATCH", "-p",
	             "tabbed", "-J", "xx", NULL);
	/* no interpreter line: directives are still read */
	expect_words("#SBATCH -n 4\nsrun a.out\n", "-n", "4", NULL);
	expect_words("", NULL);
	expect_words("#!/bin/sh\necho\n", NULL);
	/* CRLF scripts keep working (sbatch refuses them separately) */
	expect_words("#!/bin/sh\r\n#SBATCH -J a\r\n", "-J", "a", NULL);
}

static void test_directives_quotes(void **state)
{
	expect_words("#!/bin/sh\n#SBATCH -J \"a b\" -p x # trailing comment\n", "-J",
	             "a b", "-p", "x", NULL);
	expect_words("#!/bin/sh\n#SBATCH --comment=\"x y\"z\n", "--comment=x yz", NULL);
	expect_words("#!/bin/sh\n#SBATCH --comment='it\"s' --account=\"it's\"\n",
	             "--comment=it\"s", "--account=it's", NULL);
	expect_words("#!/bin/sh\n#SBATCH -J a#b -o x\n", "-J", "a", NULL);
	expect_words("#!/bin/sh\n#SBATCH -J \"a #b\" -o x\n", "-J", "a #b", "-o", "x",
	             NULL);
	expect_words("#!/bin/sh\n#SBATCH --comment=a\\\"b\n", "--comment=a\"b", NULL);
	expect_words("#!/bin/sh\n#SBATCH --comment=\"a\\\\b\\\"c\"\n",
	             "--comment=a\\b\"c", NULL);
	expect_words("#!/bin/sh\n#SBATCH --wckey=x\\y --qos=$HOME\n", "--wckey=xy",
	             "--qos=$HOME", NULL);
	expect_words("#!/bin/sh\n#SBATCH -J \"\"\n", "-J", "", NULL);
}

static void test_directives_errors(void **state)
{
	struct rota_error err = {""};
	char **w = (char **)0x1;
	char *big;
	size_t n = 0;

	assert_int_equal(
	    jobscript_directives("#!/bin/sh\n#SBATCH -J x\n#SBATCH -J \"open\n",
	                         "#SBATCH", &w, &err),
	    -EINVAL);
	assert_ptr_equal(w, (char **)0x1); /* untouched on failure */
	assert_string_equal(err.text, "line 3: Unmatched `\"` in [ -J \"open]");

	/* too many words */
	big = malloc(20 * (JOBSCRIPT_WORDS_MAX + 10));
	n += (size_t)snprintf(big, 20, "#!/bin/sh\n");
	for (int i = 0; i < JOBSCRIPT_WORDS_MAX + 1; i++)
		n += (size_t)snprintf(big + n, 20, "#SBATCH -v\n");
	assert_int_equal(jobscript_directives(big, "#SBATCH", &w, &err), -E2BIG);
	assert_non_null(strstr(err.text, "more than"));
	free(big);
}

/* The value of NAME in an environment vector, or NULL. */
static const char *get(char **env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, n) && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

static char *caller_env[] = {
    "HOME=/home/u", "PATH=/bin", "SLURM_CONF=/etc/s.conf", "EDITOR=vi", "SLURM_JOB_ID=5",
    "WEIRD",        NULL};

static void test_export(void **state)
{
	struct rota_error err = {""};
	char **e = NULL;

	assert_int_equal(jobscript_export_env(NULL, caller_env, &e, &err), 0);
	assert_int_equal(vlen(e), 5); /* "WEIRD" has no '=' */
	assert_string_equal(get(e, "HOME"), "/home/u");
	vfree(e);

	assert_int_equal(jobscript_export_env("ALL", caller_env, &e, &err), 0);
	assert_int_equal(vlen(e), 5);
	vfree(e);

	assert_int_equal(jobscript_export_env("none", caller_env, &e, &err), 0);
	assert_int_equal(vlen(e), 2);
	assert_string_equal(get(e, "SLURM_CONF"), "/etc/s.conf");
	assert_null(get(e, "HOME"));
	vfree(e);

	/* names and values without ALL: SLURM_* + those */
	assert_int_equal(
	    jobscript_export_env("EDITOR,ARG1=test,MISSING", caller_env, &e, &err), 0);
	assert_int_equal(vlen(e), 4);
	assert_string_equal(get(e, "EDITOR"), "vi");
	assert_string_equal(get(e, "ARG1"), "test");
	assert_string_equal(get(e, "SLURM_JOB_ID"), "5");
	assert_null(get(e, "PATH"));
	vfree(e);

	/* items apply in order: a value after ALL replaces the caller's */
	assert_int_equal(
	    jobscript_export_env("ALL,EDITOR=emacs,NEW=1,X=a=b", caller_env, &e, &err),
	    0);
	assert_string_equal(get(e, "EDITOR"), "emacs");
	assert_string_equal(get(e, "NEW"), "1");
	assert_string_equal(get(e, "X"), "a=b");
	assert_string_equal(get(e, "PATH"), "/bin");
	assert_int_equal(vlen(e), 7);
	vfree(e);
	/* ... and ALL after a value brings the caller's back */
	assert_int_equal(jobscript_export_env("EDITOR=emacs,all", caller_env, &e, &err),
	                 0);
	assert_string_equal(get(e, "EDITOR"), "vi");
	assert_int_equal(vlen(e), 5);
	vfree(e);

	/* quoted values may hold commas */
	assert_int_equal(
	    jobscript_export_env("A=\"x,y\",B='1,2',C=\"", caller_env, &e, &err), 0);
	assert_string_equal(get(e, "A"), "x,y");
	assert_string_equal(get(e, "B"), "1,2");
	assert_string_equal(get(e, "C"), "\"");
	vfree(e);

	/* explicit values replace the SLURM_* ones without ALL */
	assert_int_equal(
	    jobscript_export_env("SLURM_JOB_ID=7,,EMPTY=", caller_env, &e, &err), 0);
	assert_string_equal(get(e, "SLURM_JOB_ID"), "7");
	assert_string_equal(get(e, "EMPTY"), "");
	vfree(e);

	/* names a shell could not declare pass through, as in Slurm */
	assert_int_equal(
	    jobscript_export_env("TEST_ENV_17.14=123,1X=y,A-B=z", caller_env, &e, &err),
	    0);
	assert_string_equal(get(e, "TEST_ENV_17.14"), "123");
	assert_string_equal(get(e, "1X"), "y");
	assert_string_equal(get(e, "A-B"), "z");
	vfree(e);

	e = (char **)0x1;
	assert_int_equal(jobscript_export_env("ALL,=x", caller_env, &e, &err), -EINVAL);
	assert_ptr_equal(e, (char **)0x1);
	assert_non_null(strstr(err.text, "=x"));
}

static void test_export_limit(void **state)
{
	struct rota_error err = {""};
	size_t n = JOBSCRIPT_ENV_MAX + 1;
	char **env = calloc(n + 1, sizeof(*env));
	char **e = NULL;

	for (size_t i = 0; i < n; i++) {
		env[i] = malloc(32);
		snprintf(env[i], 32, "V%zu=1", i);
	}
	assert_int_equal(jobscript_export_env(NULL, env, &e, &err), -E2BIG);
	assert_null(e);
	free(env[n - 1]);
	env[n - 1] = NULL;
	assert_int_equal(jobscript_export_env(NULL, env, &e, &err), 0);
	assert_int_equal(vlen(e), JOBSCRIPT_ENV_MAX);
	vfree(e);
	vfree(env);
}

/* ---- linebuf ---- */

struct sink {
	char out[4096];
	size_t len;
	int calls;
};

static void emit(const char *line, size_t len, void *arg)
{
	struct sink *s = arg;

	s->len += (size_t)snprintf(s->out + s->len, sizeof(s->out) - s->len, "[%.*s]",
	                           (int)len, line);
	s->calls++;
}

static void test_linebuf(void **state)
{
	struct linebuf lb;
	struct sink s = {{0}};

	linebuf_init(&lb);
	assert_int_equal(linebuf_feed(&lb, "a\nbc", 4, emit, &s), 0);
	assert_string_equal(s.out, "[a\n]");
	assert_int_equal(linebuf_feed(&lb, "d", 1, emit, &s), 0);
	assert_int_equal(linebuf_feed(&lb, "\ne\n\nf", 5, emit, &s), 0);
	assert_string_equal(s.out, "[a\n][bcd\n][e\n][\n]");
	linebuf_flush(&lb, emit, &s);
	assert_string_equal(s.out, "[a\n][bcd\n][e\n][\n][f]");
	linebuf_flush(&lb, emit, &s); /* nothing left */
	assert_int_equal(s.calls, 5);
	linebuf_release(&lb);
	linebuf_release(&lb); /* twice is fine */
}

static void count_emit(const char *line, size_t len, void *arg)
{
	size_t *total = arg;
	assert_non_null(line);
	assert_true(len <= LINEBUF_MAX); /* fed in small chunks: cut at the limit */
	*total += len;
}

static void test_linebuf_long(void **state)
{
	struct linebuf lb;
	size_t total = 0, n = 3 * LINEBUF_MAX;
	char *big = malloc(n);

	memset(big, 'x', n);
	linebuf_init(&lb);
	for (size_t off = 0; off < n; off += 1000)
		linebuf_feed(&lb, big + off, off + 1000 > n ? n - off : 1000, count_emit,
		             &total);
	assert_true(lb.len <= LINEBUF_MAX);
	assert_true(lb.cap <= 2 * LINEBUF_MAX);
	linebuf_flush(&lb, count_emit, &total);
	assert_int_equal(total, n);
	linebuf_release(&lb);
	free(big);
}

static void test_prepend(void **state)
{
	char *s;

	(void)state;
	s = jobscript_prepend("#!/bin/sh\necho a\n", "echo bbf\nexit 0");
	assert_string_equal(s, "#!/bin/sh\necho bbf\nexit 0\necho a\n");
	free(s);
	s = jobscript_prepend("echo a\n", "echo b\n"); /* no #!: before all */
	assert_string_equal(s, "echo b\necho a\n");
	free(s);
	s = jobscript_prepend("#!/bin/sh", "echo b");
	assert_string_equal(s, "#!/bin/sh\necho b\n");
	free(s);
	s = jobscript_prepend("#!/bin/sh\n", "");
	assert_string_equal(s, "#!/bin/sh\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prepend),
	    cmocka_unit_test(test_interpreter),
	    cmocka_unit_test(test_wrap),
	    cmocka_unit_test(test_directives_basic),
	    cmocka_unit_test(test_directives_quotes),
	    cmocka_unit_test(test_directives_errors),
	    cmocka_unit_test(test_export),
	    cmocka_unit_test(test_export_limit),
	    cmocka_unit_test(test_linebuf),
	    cmocka_unit_test(test_linebuf_long),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
