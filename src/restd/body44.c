/* body44.c - a v0.0.44 job_desc_msg (POST job/submit's "job", POST
 * job/{id}'s body) in the v0.0.38 form that submit.c and update.c map, so
 * both versions share one mapping: a no_val struct becomes its number (an
 * unset one is dropped, as if not given; an infinite time_limit becomes
 * "UNLIMITED"), and the environment's ["K=V", ...] becomes {"K": "V"}.
 * Anything else is left for the mapping to take or refuse by name. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include "common/states.h"
#include "restd/restd.h"
#include "common/common.h"

#define ENV_MAX 4096 /* variables, as submit.c */

static int bad(const char **why, const char *key, const char *what)
{
	static char text[160];

	snprintf(text, sizeof(text), "job property %.64s: %s", key, what);
	*why = text;
	return ESLURM_INVALID_ARGUMENT;
}

/* {"set", "infinite", "number"} (any of them, nothing else). */
static int is_no_val(json_t *v)
{
	const char *k;
	json_t *m;

	if (!json_is_object(v) || !json_object_size(v))
		return 0;
	json_object_foreach(v, k, m)
	{
		if (strcmp(k, "set") && strcmp(k, "infinite") && strcmp(k, "number"))
			return 0;
	}
	return 1;
}

/* obj[key], a no_val struct, replaced by what it stands for. */
static int no_val(json_t *obj, const char *key, json_t *v, const char **why)
{
	json_t *set = json_object_get(v, "set"), *inf = json_object_get(v, "infinite");
	json_t *num = json_object_get(v, "number");

	if ((set && !json_is_boolean(set)) || (inf && !json_is_boolean(inf)))
		return bad(why, key, "set and infinite are true or false");
	if (json_is_true(inf)) {
		if (strcmp(key, "time_limit"))
			return bad(why, key, "cannot be infinite");
		json_object_set_new(obj, key, json_string("UNLIMITED"));
	} else if (json_is_false(set) || (!set && !num)) {
		json_object_del(obj, key);
	} else if (json_is_integer(num) && json_integer_value(num) >= 0) {
		json_object_set_new(obj, key, json_integer(json_integer_value(num)));
	} else {
		return bad(why, key, "number is not a count");
	}
	return 0;
}

/* ["K=V", ...] as {"K": "V"}: the last of a name wins, as in a shell. */
static int environment(json_t *obj, json_t *v, const char **why)
{
	json_t *env = json_object();
	json_t *item;
	size_t i;

	if (json_array_size(v) > ENV_MAX) {
		json_decref(env);
		return bad(why, "environment", "too many variables");
	}
	json_array_foreach(v, i, item)
	{
		const char *s = json_string_value(item), *eq = s ? strchr(s, '=') : NULL;
		char name[256];

		if (!eq || eq == s || (size_t)(eq - s) >= sizeof(name)) {
			json_decref(env);
			return bad(why, "environment", "each item is \"NAME=value\"");
		}
		memcpy(name, s, (size_t)(eq - s));
		name[eq - s] = '\0';
		json_object_set_new(env, name, json_string(eq + 1));
	}
	json_object_set_new(obj, "environment", env);
	return 0;
}

int restd_body44(json_t *obj, const char **why)
{
	const char *key;
	json_t *v;
	void *tmp;
	int rc = 0;

	json_object_foreach_safe(obj, tmp, key, v)
	{
		if (is_no_val(v))
			rc = no_val(obj, key, v, why);
		else if (!strcmp(key, "environment") && json_is_array(v))
			rc = environment(obj, v, why);
		if (rc)
			return rc;
	}
	return 0;
}

int restd_body44_submission(json_t *root, const char **why)
{
	json_t *job = json_object_get(root, "job");
	json_t *script = json_object_get(job, "script");

	if (!json_is_object(job))
		return 0; /* refused by the mapping, for what it lacks */
	if (json_is_string(script) && !json_object_get(root, "script"))
		json_object_set(root, "script", script);
	if (script)
		json_object_del(job, "script");
	return restd_body44(job, why);
}
