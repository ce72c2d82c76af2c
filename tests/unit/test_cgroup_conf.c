/* test_cgroup_conf.c - cgroup.conf (common/cgroup_conf.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/cgroup_conf.h"

static struct cgroup_conf load_ok(const char *text)
{
	struct rota_error err = {{0}};
	struct cgroup_conf c = {.constrain_devices = -1};

	if (cgroup_conf_load_string(text, "cgroup.conf", &c, &err) < 0)
		fail_msg("load failed: %s", err.text);
	return c;
}

static void load_err(const char *text, const char *want)
{
	struct rota_error err = {{0}};
	struct cgroup_conf c = {.constrain_devices = 7};

	assert_true(cgroup_conf_load_string(text, "cgroup.conf", &c, &err) < 0);
	assert_int_equal(c.constrain_devices, 7);
	if (!strstr(err.text, want))
		fail_msg("error '%s' lacks '%s'", err.text, want);
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(load_ok("").constrain_devices, 0);
	assert_int_equal(load_ok("# nothing\n\n").constrain_devices, 0);
}

static void test_constrain_devices(void **state)
{
	(void)state;
	assert_int_equal(load_ok("ConstrainDevices=yes\n").constrain_devices, 1);
	assert_int_equal(load_ok("constraindevices=YES # on").constrain_devices, 1);
	assert_int_equal(
	    load_ok("ConstrainDevices=yes\nConstrainDevices=no\n").constrain_devices, 0);
	/* several pairs a line, the standard keys accepted */
	assert_int_equal(load_ok("CgroupPlugin=cgroup/v2 ConstrainCores=yes\n"
	                         "ConstrainRAMSpace=yes AllowedRAMSpace=98\n"
	                         "ConstrainSwapSpace=no ConstrainDevices=yes\n")
	                     .constrain_devices,
	                 1);
}

static void test_unknown_key_warns(void **state)
{
	(void)state;
	assert_int_equal(load_ok("NoSuchKey=1\nConstrainDevices=yes\n").constrain_devices,
	                 1);
}

static void test_errors(void **state)
{
	char *big = malloc(CGROUP_CONF_LINE_MAX + 10);

	(void)state;
	load_err("ConstrainDevices=maybe\n", "cgroup.conf:1: ConstrainDevices=maybe");
	load_err("\nConstrainDevices\n", "cgroup.conf:2: expected Key=Value");
	load_err("ConstrainDevices=\n", "expected Key=Value");
	memset(big, 'x', CGROUP_CONF_LINE_MAX + 5);
	big[CGROUP_CONF_LINE_MAX + 5] = '\0';
	load_err(big, "longer than");
	free(big);
}

static void test_file(void **state)
{
	char dir[] = "/tmp/cgconfXXXXXX", path[64];
	struct rota_error err = {{0}};
	struct cgroup_conf c = {.constrain_devices = 5};
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cgroup.conf", dir);
	assert_int_equal(cgroup_conf_load(path, &c, &err), 0); /* missing: defaults */
	assert_int_equal(c.constrain_devices, 0);
	assert_non_null(f = fopen(path, "w"));
	fputs("ConstrainDevices=yes\n", f);
	fclose(f);
	assert_int_equal(cgroup_conf_load(path, &c, &err), 0);
	assert_int_equal(c.constrain_devices, 1);
	assert_non_null(f = fopen(path, "w"));
	fputs("ConstrainDevices=yes\0\n", f);
	fwrite("\0", 1, 1, f);
	fclose(f);
	assert_true(cgroup_conf_load(path, &c, &err) < 0);
	assert_non_null(strstr(err.text, "NUL"));
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_constrain_devices),
	    cmocka_unit_test(test_unknown_key_warns),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
