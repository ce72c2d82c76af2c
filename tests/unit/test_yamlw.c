/* test_yamlw.c - JSON documents as YAML (src/proto/yamlw.c): nesting,
 * sequences of mappings, empty containers, and strings that a YAML reader
 * would otherwise take for numbers, booleans or null. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include "proto/yamlw.h"

static void check(const char *json, const char *yaml)
{
	json_t *doc = json_loads(json, JSON_DECODE_ANY, NULL);
	char *out;

	assert_non_null(doc);
	out = yaml_dumps(doc);
	assert_string_equal(out, yaml);
	free(out);
	json_decref(doc);
}

static void test_nesting(void **state)
{
	check("{\"meta\":{\"plugin\":{\"type\":\"openapi/v0.0.38\"}},\"errors\":[],"
	      "\"jobs\":[{\"job_id\":5,\"nice\":-1,\"ok\":true,\"tres\":{}},"
	      "{\"job_id\":6,\"list\":[1,[2,3]],\"none\":null,\"f\":0.5}]}",
	      "---\n"
	      "meta:\n"
	      "  plugin:\n"
	      "    type: \"openapi/v0.0.38\"\n"
	      "errors: []\n"
	      "jobs:\n"
	      "- job_id: 5\n"
	      "  nice: -1\n"
	      "  ok: true\n"
	      "  tres: {}\n"
	      "- job_id: 6\n"
	      "  list:\n"
	      "  - 1\n"
	      "  - \n"
	      "    - 2\n"
	      "    - 3\n"
	      "  none: null\n"
	      "  f: 0.5\n");
}

static void test_strings_stay_strings(void **state)
{
	check("{\"a\":\"yes\",\"b\":\"null\",\"c\":\"123\",\"d\":\"\",\"e\":\"x: y # z\","
	      "\"f\":\"two\\nlines\",\"g\":\"\\u00e9\",\"key: odd\":1,\"0\":2}",
	      "---\n"
	      "a: \"yes\"\n"
	      "b: \"null\"\n"
	      "c: \"123\"\n"
	      "d: \"\"\n"
	      "e: \"x: y # z\"\n"
	      "f: \"two\\nlines\"\n"
	      "g: \"\xc3\xa9\"\n"
	      "\"key: odd\": 1\n"
	      "\"0\": 2\n");
}

static void test_scalar_and_empty(void **state)
{
	check("[]", "---\n[]\n");
	check("\"x\"", "---\n\"x\"\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nesting),
	    cmocka_unit_test(test_strings_stay_strings),
	    cmocka_unit_test(test_scalar_and_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
