/* test_rlimits.c - limits propagated from the submit host (common/rlimits.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/error.h"
#include "common/rlimits.h"
#include "common/strv.h"

/* bit of a kind, in the order of the header's list */
#define AS     (1u << 0)
#define CORE   (1u << 1)
#define NOFILE (1u << 6)
#define STACK  (1u << 9)

static void test_parse(void **state)
{
	struct rota_error err = {""};
	unsigned set = 0;

	assert_int_equal(rlimits_parse(NULL, &set, &err), 0);
	assert_int_equal(set, RLIMITS_ALL);
	assert_int_equal(rlimits_parse("core,NOFILE", &set, &err), 0);
	assert_int_equal(set, CORE | NOFILE);
	assert_int_equal(rlimits_parse("NONE", &set, &err), 0);
	assert_int_equal(set, 0);
	assert_int_equal(rlimits_parse("ALL", &set, &err), 0);
	assert_int_equal(set, RLIMITS_ALL);
	set = 7;
	assert_int_equal(rlimits_parse("CORE,BOGUS", &set, &err), -1);
	assert_non_null(strstr(err.text, "BOGUS"));
	assert_int_equal(set, 7); /* unchanged */
}

static void test_conf(void **state)
{
	struct rota_error err = {""};
	struct conf *c = NULL;

	assert_int_equal(
	    conf_load_string("PropagateResourceLimitsExcept=CORE,AS\n", "t", &c, &err),
	    0);
	assert_int_equal(rlimits_conf(c), RLIMITS_ALL & ~(CORE | AS));
	conf_destroy(c);
	c = NULL;
	assert_int_equal(
	    conf_load_string("PropagateResourceLimits=STACK\n", "t", &c, &err), 0);
	assert_int_equal(rlimits_conf(c), STACK);
	conf_destroy(c);
	c = NULL;
	assert_int_not_equal(
	    conf_load_string("PropagateResourceLimits=STAK\n", "t", &c, &err), 0);
	assert_non_null(strstr(err.text, "PropagateResourceLimits=STAK"));
	assert_int_not_equal(conf_load_string("PropagateResourceLimits=CORE\n"
	                                      "PropagateResourceLimitsExcept=AS\n",
	                                      "t", &c, &err),
	                     0);
	assert_non_null(strstr(err.text, "mutually exclusive"));
	assert_int_equal(
	    conf_load_string("PropagateResourceLimitsExcept=\n", "t", &c, &err), 0);
	assert_int_equal(rlimits_conf(c),
	                 RLIMITS_ALL); /* an empty list leaves none out */
	conf_destroy(c);
}

static void test_env_round_trip(void **state)
{
	struct rlimits_want w;
	char **env = strv_setenv(NULL, "HOME", "/");

	env = rlimits_to_env(env, CORE | NOFILE, 1);
	assert_non_null(strv_getenv(env, "SLURM_RLIMIT_CORE"));
	assert_int_equal(strv_getenv(env, "SLURM_RLIMIT_NOFILE")[0], 'U');
	assert_null(strv_getenv(env, "SLURM_RLIMIT_STACK"));
	env = strv_setenv(env, "SLURM_RLIMIT_STACK", "8388608");
	env = strv_setenv(env, "SLURM_RLIMIT_AS", "lots");
	rlimits_from_env(env, &w);
	assert_int_equal(w.kinds, CORE | NOFILE | STACK); /* AS did not parse */
	assert_int_equal(w.user, CORE | NOFILE);
	assert_int_equal(w.value[9], 8388608);
	strv_free(env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_conf),
	    cmocka_unit_test(test_env_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
