/* test_slurmdb_json.c - the accounting side's documents (src/proto/
 * slurmdb_json.c): TRES texts as dbv0.0.38_tres_list, limits not set as
 * null, an association's and a user's lists. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include "proto/slurmdb_json.h"

static void same(json_t *got, const char *want)
{
	char *text = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *w = json_loads(want, 0, NULL);
	char *wtext = json_dumps(w, JSON_COMPACT | JSON_SORT_KEYS);

	assert_string_equal(text, wtext);
	free(text);
	free(wtext);
	json_decref(w);
	json_decref(got);
}

static void test_tres_list(void **state)
{
	same(sdb_tres_list("cpu=4,mem=2G,node=1,gres/gpu=2,gres/gpu:h100=1,billing=3"),
	     "[{\"type\":\"cpu\",\"name\":\"\",\"id\":1,\"count\":4},"
	     "{\"type\":\"mem\",\"name\":\"\",\"id\":2,\"count\":2048},"
	     "{\"type\":\"node\",\"name\":\"\",\"id\":4,\"count\":1},"
	     "{\"type\":\"gres\",\"name\":\"gpu\",\"id\":1001,\"count\":2},"
	     "{\"type\":\"gres\",\"name\":\"gpu:h100\",\"id\":1002,\"count\":1},"
	     "{\"type\":\"billing\",\"name\":\"\",\"id\":5,\"count\":3}]");
	same(sdb_tres_list("mem=1t,mem=512"),
	     "[{\"type\":\"mem\",\"name\":\"\",\"id\":2,\"count\":1048576},"
	     "{\"type\":\"mem\",\"name\":\"\",\"id\":2,\"count\":512}]");
	same(sdb_tres_list(NULL), "[]");
	same(sdb_tres_list("=4,bogus,,cpu"), "[]");
}

static void test_assoc_limits_unset_are_null(void **state)
{
	char *qos[] = {"normal", NULL};
	struct assoc_rec a = {.account = "physics",
	                      .user = "bob",
	                      .max_wall = 60,
	                      .grp_wall = NO_VAL,
	                      .priority = NO_VAL,
	                      .shares = 5,
	                      .grp_tres = "cpu=8",
	                      .qos = qos};
	struct assoc_list_resp l = {.cluster = "c1", .assocs = &a, .assocs_count = 1};
	json_t *j = sdb_assoc(&l, &a);

	assert_int_equal(
	    json_integer_value(json_object_get(
	        json_object_get(json_object_get(json_object_get(j, "max"), "jobs"),
	                        "per"),
	        "wall_clock")),
	    60);
	assert_true(json_is_null(json_object_get(
	    json_object_get(json_object_get(json_object_get(j, "max"), "per"), "account"),
	    "wall_clock")));
	assert_true(json_is_null(json_object_get(j, "priority")));
	assert_int_equal(json_integer_value(json_object_get(j, "shares_raw")), 5);
	assert_string_equal(json_string_value(json_object_get(j, "cluster")), "c1");
	assert_string_equal(json_string_value(json_object_get(j, "parent_account")), "");
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(j, "QOS"), 0)), "normal");
	json_decref(j);
}

static void test_user_lists_its_associations_and_coordination(void **state)
{
	char *coords[] = {"bob", NULL};
	struct assoc_account accts[] = {{.name = "physics", .coordinators = coords},
	                                {.name = "chem"}};
	struct assoc_rec assocs[] = {{.account = "physics", .user = "bob"},
	                             {.account = "chem", .user = "alice"},
	                             {.account = "chem"}};
	struct assoc_user u = {
	    .name = "bob", .default_account = "physics", .admin_level = ADMIN_OPERATOR};
	struct assoc_list_resp l = {.cluster = "c1",
	                            .accounts = accts,
	                            .accounts_count = 2,
	                            .assocs = assocs,
	                            .assocs_count = 3};

	same(sdb_user(&l, &u),
	     "{\"administrator_level\":\"Operator\",\"associations\":[{\"account\":"
	     "\"physics\",\"cluster\":\"c1\",\"partition\":\"\",\"user\":\"bob\"}],"
	     "\"coordinators\":[{\"name\":\"physics\",\"direct\":1}],\"default\":"
	     "{\"account\":\"physics\",\"wckey\":\"\"},\"flags\":[],\"name\":\"bob\"}");
	same(sdb_account(&l, &accts[1]),
	     "{\"associations\":[{\"account\":\"chem\",\"cluster\":\"c1\",\"partition\":"
	     "\"\",\"user\":\"alice\"},{\"account\":\"chem\",\"cluster\":\"c1\","
	     "\"partition\":\"\",\"user\":\"\"}],\"coordinators\":[],\"description\":"
	     "\"\",\"name\":\"chem\",\"organization\":\"\",\"flags\":[]}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tres_list),
	    cmocka_unit_test(test_assoc_limits_unset_are_null),
	    cmocka_unit_test(test_user_lists_its_associations_and_coordination),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
