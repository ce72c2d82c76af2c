/* test_jsonw.c - JSON written into a buffer (src/proto/jsonw.c): escapes,
 * UTF-8 kept when valid and made '?' when not, keys and commas. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>
#include "proto/jsonw.h"

static char *text(struct jsonw *w)
{
	jsonw_raw(w, "", 1);
	return w->p;
}

static void test_object(void **state)
{
	struct jsonw w = {0};

	jsonw_obj_begin(&w);
	jsonw_str(&w, "a", "x\"y\\z\n\t\x01");
	jsonw_int(&w, "n", -5);
	jsonw_bool(&w, "t", 1);
	jsonw_str(&w, "none", NULL);
	jsonw_obj_end(&w);
	assert_string_equal(
	    text(&w), "{\"a\":\"x\\\"y\\\\z\\u000a\\u0009\\u0001\",\"n\":-5,\"t\":true,"
	              "\"none\":\"\"}");
	jsonw_free(&w);
}

static void test_nested(void **state)
{
	struct jsonw w = {0};

	jsonw_obj_begin(&w);
	jsonw_key(&w, "o");
	jsonw_obj_begin(&w);
	jsonw_int(&w, "n", 1);
	jsonw_obj_end(&w);
	jsonw_key(&w, "a");
	jsonw_arr_begin(&w);
	jsonw_elem_str(&w, "x");
	jsonw_elem(&w);
	jsonw_obj_begin(&w);
	jsonw_bool(&w, "b", 0);
	jsonw_obj_end(&w);
	jsonw_elem_str(&w, NULL);
	jsonw_arr_end(&w);
	jsonw_key(&w, "e");
	jsonw_arr_begin(&w);
	jsonw_arr_end(&w);
	jsonw_str(&w, "s", "t");
	jsonw_obj_end(&w);
	assert_string_equal(text(&w),
	                    "{\"o\":{\"n\":1},\"a\":[\"x\",{\"b\":false},\"\"],\"e\":[],"
	                    "\"s\":\"t\"}");
	jsonw_free(&w);
}

static void test_utf8(void **state)
{
	/* é (2 bytes), € (3), 😀 (4) kept; a lone continuation byte, an
	 * overlong encoding, a surrogate and a cut sequence made '?' */
	const char *in =
	    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82";
	struct jsonw w = {0};
	json_t *v;

	jsonw_quoted(&w, in, strlen(in));
	v = json_loadb(w.p, w.len, JSON_DECODE_ANY, NULL);
	assert_non_null(v); /* valid JSON, valid UTF-8 */
	assert_string_equal(json_string_value(v),
	                    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|?|??|???|??");
	json_decref(v);
	jsonw_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_object),
	    cmocka_unit_test(test_nested),
	    cmocka_unit_test(test_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
