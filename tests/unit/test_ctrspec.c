/* test_ctrspec.c - the container options' checks and --container-mounts. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/ctrspec.h"

static void test_mounts(void **state)
{
	struct rota_error err = {""};
	struct ctr_mounts m;

	assert_int_equal(ctrspec_mounts_parse(NULL, &m, &err), 0);
	assert_int_equal(m.n, 0);
	assert_int_equal(
	    ctrspec_mounts_parse("/a:/b,/c,/d:/e:ro,/f:/g:ro+rw,/h::ro", &m, &err), 0);
	assert_int_equal(m.n, 5);
	assert_string_equal(m.v[0].src, "/a");
	assert_string_equal(m.v[0].dst, "/b");
	assert_int_equal(m.v[0].flags, 0);
	assert_string_equal(m.v[1].src, "/c"); /* no DST: the same path */
	assert_string_equal(m.v[1].dst, "/c");
	assert_int_equal(m.v[2].flags, CTR_MOUNT_RO);
	assert_int_equal(m.v[3].flags, 0); /* the later word wins */
	assert_string_equal(m.v[4].dst, "/h");
	assert_int_equal(m.v[4].flags, CTR_MOUNT_RO);
	ctrspec_mounts_release(&m);
	ctrspec_mounts_release(NULL);
}

static void test_mounts_bad(void **state)
{
	static const char *const bad[] = {"a:/b",         "/a:b",   "/a:/b:bogus",
	                                  "/a:/x/../etc", "/a:/..", "/a\n:/b"};
	struct rota_error err = {""};
	struct ctr_mounts m = {0};
	char many[1024] = "";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.text[0] = '\0';
		assert_int_equal(ctrspec_mounts_parse(bad[i], &m, &err), -1);
		assert_non_null(strstr(err.text, "--container-mounts: "));
		assert_int_equal(m.n, 0); /* untouched on failure */
	}
	for (int i = 0; i <= CTRSPEC_MOUNTS_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s/m%d",
		         i ? "," : "", i);
	assert_int_equal(ctrspec_mounts_parse(many, &m, &err), -1);
	assert_non_null(strstr(err.text, "more than 64 mounts"));
	/* "/a/..b" is a name, not a parent */
	assert_int_equal(ctrspec_mounts_parse("/a:/x/..b", &m, &err), 0);
	ctrspec_mounts_release(&m);
}

static void test_checks(void **state)
{
	struct rota_error err = {""};
	char *long_image = malloc(CTRSPEC_IMAGE_MAX + 2);

	memset(long_image, 'x', CTRSPEC_IMAGE_MAX + 1);
	long_image[CTRSPEC_IMAGE_MAX + 1] = '\0';
	assert_int_equal(ctrspec_check_image(NULL, &err), 0);
	assert_int_equal(ctrspec_check_image("nvcr.io#nvidia/pytorch:24.01-py3", &err),
	                 0);
	assert_int_equal(ctrspec_check_image("", &err), -1);
	assert_int_equal(ctrspec_check_image(long_image, &err), -1);
	assert_non_null(strstr(err.text, "longer than 1024"));
	long_image[CTRSPEC_IMAGE_MAX] = '\0';
	assert_int_equal(ctrspec_check_image(long_image, &err), 0);
	free(long_image);

	assert_int_equal(ctrspec_check_workdir("/work", &err), 0);
	assert_int_equal(ctrspec_check_workdir("work", &err), -1);

	assert_int_equal(ctrspec_check_name("train-1.run_2", &err), 0);
	assert_int_equal(ctrspec_check_name("a/b", &err), -1);
	assert_int_equal(ctrspec_check_name(".hidden", &err), -1);
	assert_int_equal(ctrspec_check_name("", &err), -1);

	assert_int_equal(ctrspec_check_env("PATH,LD_LIBRARY_PATH,_X1", &err), 0);
	assert_int_equal(ctrspec_check_env("A,,B", &err), -1);
	assert_int_equal(ctrspec_check_env("A-B", &err), -1);
	assert_int_equal(ctrspec_check_env("9A", &err), -1);
	assert_true(ctrspec_env_has("PATH,HOME", "HOME", 4));
	assert_false(ctrspec_env_has("PATH,HOMEDIR", "HOME", 4));
	assert_false(ctrspec_env_has(NULL, "HOME", 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mounts),
	    cmocka_unit_test(test_mounts_bad),
	    cmocka_unit_test(test_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
