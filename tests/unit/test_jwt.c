/* test_jwt.c - HS256 JSON Web Tokens (src/common/jwt.c) against jwt.io's
 * published example and our own, plus the small parsers REST uses: comma
 * lists (common/strv.h) and signal names (common/signame.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/jwt.h"
#include "common/signame.h"
#include "common/strv.h"

#define KEY "your-256-bit-secret"

/* jwt.io's HS256 example: the signature checks with its key and not with
 * another; it has no "exp", which we require. */
static void test_published_example(void **state)
{
	const char *tok =
	    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
	    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2Mj"
	    "M5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
	struct rota_error err = {""};
	char *user = NULL;

	assert_int_equal(
	    jwt_verify((const uint8_t *)KEY, strlen(KEY), tok, 0, &user, &err), -1);
	assert_string_equal(err.text, "token has no expiration (exp)");
	assert_int_equal(jwt_verify((const uint8_t *)"other", 5, tok, 0, &user, &err),
	                 -1);
	assert_string_equal(err.text, "token signature invalid");
	assert_null(user);
}

static void test_round_trip_and_expiry(void **state)
{
	struct rota_error err = {""};
	char *tok = jwt_sign((const uint8_t *)KEY, strlen(KEY), "alice", 1000, 2000);
	char *user = NULL;

	assert_int_equal(
	    jwt_verify((const uint8_t *)KEY, strlen(KEY), tok, 1999, &user, &err), 0);
	assert_string_equal(user, "alice");
	free(user);
	assert_int_equal(
	    jwt_verify((const uint8_t *)KEY, strlen(KEY), tok, 2000, &user, &err), -1);
	assert_string_equal(err.text, "token expired");
	/* a claim changed under the same signature */
	tok[strchr(tok, '.') - tok + 3] ^= 1;
	assert_int_equal(
	    jwt_verify((const uint8_t *)KEY, strlen(KEY), tok, 1500, &user, &err), -1);
	free(tok);
}

static void test_refused_shapes(void **state)
{
	struct rota_error err = {""};
	char *user = NULL,
	     *tok = jwt_sign((const uint8_t *)KEY, strlen(KEY), "bob", 0, 10);
	char *claims = strchr(tok, '.') + 1, none[512];

	/* {"alg":"none","typ":"JWT"} with our claims and no signature */
	snprintf(none, sizeof(none), "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.%.*s.",
	         (int)(strchr(claims, '.') - claims), claims);
	assert_int_equal(
	    jwt_verify((const uint8_t *)KEY, strlen(KEY), none, 1, &user, &err), -1);
	assert_string_equal(err.text, "token header: not an HS256 JWT");
	assert_int_equal(
	    jwt_verify((const uint8_t *)KEY, strlen(KEY), "a.b", 1, &user, &err), -1);
	assert_int_equal(
	    jwt_verify((const uint8_t *)KEY, strlen(KEY), "a.b.c.d", 1, &user, &err), -1);
	assert_int_equal(
	    jwt_verify((const uint8_t *)KEY, strlen(KEY), "!!.??.**", 1, &user, &err),
	    -1);
	assert_null(user);
	free(tok);
}

static void test_lists(void **state)
{
	char *v;

	assert_true(list_has("a,enable_configless,b", "ENABLE_CONFIGLESS", 1));
	assert_false(list_has("a,enable_configless,b", "ENABLE_CONFIGLESS", 0));
	assert_false(list_has("debugx,y", "debug", 0)); /* a prefix is not an item */
	assert_false(list_has(NULL, "x", 0));
	assert_false(list_has("", "", 0));
	v = list_value("socket=/run/m,key=/etc/k,key=/other", "key", 0);
	assert_string_equal(v, "/etc/k");
	free(v);
	assert_null(list_value("keys=/x,key", "key", 0));
	v = list_value("JWT_KEY=/k", "jwt_key", 1);
	assert_string_equal(v, "/k");
	free(v);
}

static void test_signal_names(void **state)
{
	assert_int_equal(signal_parse("USR1"), SIGUSR1);
	assert_int_equal(signal_parse("sigterm"), SIGTERM);
	assert_int_equal(signal_parse("SIGKILL"), SIGKILL);
	assert_int_equal(signal_parse("IOT"), SIGABRT);
	assert_int_equal(signal_parse("9"), 9);
	assert_int_equal(signal_parse("0"), -1);
	assert_int_equal(signal_parse("65"), -1);
	assert_int_equal(signal_parse("9x"), -1);
	assert_int_equal(signal_parse("NOSUCH"), -1);
	assert_int_equal(signal_parse(""), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_published_example),
	    cmocka_unit_test(test_round_trip_and_expiry),
	    cmocka_unit_test(test_refused_shapes),
	    cmocka_unit_test(test_lists),
	    cmocka_unit_test(test_signal_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
