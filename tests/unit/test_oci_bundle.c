/* test_oci_bundle.c - what Rota reads of an OCI bundle's config.json. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/oci_bundle.h"

static int parse(const char *json, struct oci_bundle *b, struct rota_error *err)
{
	return oci_bundle_parse(json, strlen(json), b, err);
}

static void test_parse(void **state)
{
	struct rota_error err = {""};
	struct oci_bundle b;

	assert_int_equal(parse("{\"root\":{\"path\":\"/srv/root\"},\"process\":{\"cwd\":"
	                       "\"/work\",\"env\":[\"A=1\",\"bad\",\"=x\",\"B=\"]}}",
	                       &b, &err),
	                 0);
	assert_string_equal(b.root, "/srv/root");
	assert_string_equal(b.cwd, "/work");
	assert_string_equal(b.env[0], "A=1");
	assert_string_equal(b.env[1], "B=");
	assert_null(b.env[2]);
	oci_bundle_release(&b);
	oci_bundle_release(NULL);

	assert_int_equal(parse("{}", &b, &err), 0); /* the defaults */
	assert_string_equal(b.root, "rootfs");
	assert_null(b.cwd);
	assert_null(b.env[0]);
	oci_bundle_release(&b);
}

static void test_bad(void **state)
{
	struct rota_error err = {""};
	struct oci_bundle b = {0};

	assert_int_equal(parse("[]", &b, &err), -1);
	assert_int_equal(parse("{\"process\":{\"cwd\":\"rel\"}}", &b, &err), -1);
	assert_non_null(strstr(err.text, "not absolute"));
	assert_null(b.root); /* untouched */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
