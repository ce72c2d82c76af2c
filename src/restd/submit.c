/* submit.c - POST job/submit: Slurm's v0.0.38_job_submission ({"script",
 * "job": v0.0.38_job_properties}) as the job_desc sbatch would send; a
 * v0.0.44_job_submit_req is first rewritten in that form (body44.c).  A field
 * this build does not act on is refused by name, never silently dropped;
 * "environment" is required, as in Slurm. */
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "proto/messages.h"
#include "restd/restd.h"
#include "common/common.h"

#define ENV_MAX  4096 /* variables */
#define ARGV_MAX 4096

/* Fields Slurm's clients send with their neutral value, which change nothing
 * here when false or empty. */
static const char *const neutral[] = {"get_user_environment",
                                      "minimum_nodes",
                                      "kill_on_invalid_dependency",
                                      "wait_all_nodes",
                                      "spread_job",
                                      "no_kill",
                                      NULL};

static int is_neutral(const char *key, json_t *v)
{
	for (const char *const *n = neutral; *n; n++)
		if (!strcmp(key, *n))
			return json_is_false(v) || json_is_null(v);
	return 0;
}

static char *dup_str(json_t *v)
{
	return xstrdup(json_string_value(v));
}

/* "nodes": 2, "2", "2-4", [2, 4]. */
static int nodes_of(json_t *v, struct job_desc *d)
{
	json_int_t lo, hi;
	char *end;

	if (json_is_integer(v)) {
		lo = hi = json_integer_value(v);
	} else if (json_is_array(v) && json_array_size(v) >= 1 &&
	           json_array_size(v) <= 2 && json_is_integer(json_array_get(v, 0))) {
		lo = json_integer_value(json_array_get(v, 0));
		hi = json_array_size(v) == 2 && json_is_integer(json_array_get(v, 1))
		         ? json_integer_value(json_array_get(v, 1))
		         : lo;
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		lo = strtoll(s, &end, 10);
		hi = *end == '-' ? strtoll(end + 1, &end, 10) : lo;
		if (end == s || *end)
			return -1;
	} else {
		return -1;
	}
	if (lo < 1 || hi < lo || hi >= NO_VAL)
		return -1;
	d->min_nodes = (uint32_t)lo;
	d->max_nodes = (uint32_t)hi;
	return 0;
}

static int u32_of(json_t *v, uint32_t *out, uint32_t min)
{
	json_int_t n;

	if (json_is_string(v)) { /* "4": some clients quote numbers */
		char *end;
		n = strtoll(json_string_value(v), &end, 10);
		if (end == json_string_value(v) || *end)
			return -1;
	} else if (json_is_integer(v)) {
		n = json_integer_value(v);
	} else {
		return -1;
	}
	if (n < min || n >= NO_VAL)
		return -1;
	*out = (uint32_t)n;
	return 0;
}

/* The offset in job_desc_ext of a count of the job's layout (sockets,
 * cores, threads, tasks a core or socket), or SIZE_MAX. */
static size_t layout_field(const char *key)
{
	static const struct {
		const char *key;
		size_t off;
	} f[] = {
	    {"sockets_per_node", offsetof(struct job_desc_ext, sockets_per_node)},
	    {"cores_per_socket", offsetof(struct job_desc_ext, cores_per_socket)},
	    {"threads_per_core", offsetof(struct job_desc_ext, threads_per_core)},
	    {"tasks_per_core", offsetof(struct job_desc_ext, ntasks_per_core)},
	    {"tasks_per_socket", offsetof(struct job_desc_ext, ntasks_per_socket)},
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(key, f[i].key))
			return f[i].off;
	return SIZE_MAX;
}

/* One job property into d; 0, or -1 with *why naming it. */
static int property(const char *key, json_t *v, struct job_desc *d, const char **why)
{
	static char text[160];
	uint32_t n;
	size_t off;

#define STR_AT(k, at)                                                                    \
	if (!strcmp(key, k)) {                                                           \
		if (!json_is_string(v))                                                  \
			goto bad;                                                        \
		free(at);                                                                \
		at = dup_str(v);                                                         \
		return 0;                                                                \
	}
#define STR_FIELD(k, f)   STR_AT(k, d->f)
#define STR_FIELD_X(k, f) STR_AT(k, job_desc_x_mut(d)->f)
	STR_FIELD("name", name)
	STR_FIELD("partition", partition)
	STR_FIELD("account", account)
	STR_FIELD_X("comment", comment)
	STR_FIELD("constraints", features)
	STR_FIELD("dependency", dependency)
	STR_FIELD("qos", qos)
	STR_FIELD("standard_output", std_out)
	STR_FIELD("standard_error", std_err)
	STR_FIELD_X("standard_input", std_in)
	STR_FIELD("current_working_directory", work_dir)
	STR_FIELD("array", array_inx)
	STR_FIELD_X("gres", gres)
	STR_FIELD_X("gpus", gpus)
	STR_FIELD_X("gpus_per_node", gpus_per_node)
	STR_FIELD_X("gpus_per_task", gpus_per_task)
	STR_FIELD_X("container", container)
#undef STR_FIELD_X
#undef STR_FIELD
#undef STR_AT
	if (!strcmp(key, "tasks")) {
		if (u32_of(v, &d->num_tasks, 1) < 0)
			goto bad;
	} else if (!strcmp(key, "tasks_per_node")) {
		if (u32_of(v, &d->ntasks_per_node, 1) < 0)
			goto bad;
	} else if (!strcmp(key, "cpus_per_task")) {
		if (u32_of(v, &d->cpus_per_task, 1) < 0)
			goto bad;
	} else if ((off = layout_field(key)) != SIZE_MAX) {
		if (u32_of(v, (uint32_t *)((char *)job_desc_x_mut(d) + off), 1) < 0)
			goto bad;
	} else if (!strcmp(key, "minimum_cpus_per_node")) {
		if (u32_of(v, &d->pn_min_cpus, 1) < 0)
			goto bad;
	} else if (!strcmp(key, "time_limit")) { /* minutes, or "UNLIMITED", "1:00:00" */
		if (json_is_string(v)
		        ? timefmt_parse_limit(json_string_value(v), &n) < 0 || !n
		        : u32_of(v, &n, 1) < 0)
			goto bad;
		d->time_limit = n;
	} else if (!strcmp(key, "memory_per_node") || !strcmp(key, "memory_per_cpu")) {
		if (u32_of(v, &n, 0) < 0)
			goto bad;
		if (!strcmp(key, "memory_per_node"))
			d->mem_per_node = n;
		else
			d->mem_per_cpu = n;
	} else if (!strcmp(key, "nodes")) {
		if (nodes_of(v, d) < 0)
			goto bad;
	} else if (!strcmp(key, "nice")) {
		if (!json_is_integer(v) || json_integer_value(v) < -10000 ||
		    json_integer_value(v) > 10000)
			goto bad;
		d->nice = (uint32_t)(int32_t)json_integer_value(v);
	} else if (!strcmp(key, "hold")) {
		if (!json_is_boolean(v))
			goto bad;
		d->hold = json_is_true(v);
	} else if (!strcmp(key, "begin_time")) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			goto bad;
		d->begin_time = json_integer_value(v);
	} else if (!strcmp(key, "argv")) {
		if (!json_is_array(v) || json_array_size(v) > ARGV_MAX)
			goto bad;
		for (size_t i = 0; i < json_array_size(v); i++) {
			if (!json_is_string(json_array_get(v, i)))
				goto bad;
			d->argv =
			    strv_append(d->argv, json_string_value(json_array_get(v, i)));
		}
	} else if (!strcmp(key, "environment")) {
		const char *k;
		json_t *val;

		if (!json_is_object(v) || json_object_size(v) > ENV_MAX)
			goto bad;
		json_object_foreach(v, k, val)
		{
			if (!json_is_string(val) || !*k || strchr(k, '='))
				goto bad;
			d->env = strv_setenv(d->env, k, json_string_value(val));
		}
	} else if (!is_neutral(key, v)) {
		snprintf(text, sizeof(text), "job property %.64s is not supported", key);
		*why = text;
		return -1;
	}
	return 0;
bad:
	snprintf(text, sizeof(text), "job property %.64s: invalid value", key);
	*why = text;
	return -1;
}

int restd_submit_desc(const char *body, size_t len, const struct rest_user *u,
                      enum rest_api api, struct job_desc **ret, const char **why)
{
	json_t *root = json_loadb(body, len, 0, NULL), *job, *v;
	struct job_desc *d;
	const char *key;
	struct passwd *pw;
	int rc;

	if (!root || !json_is_object(root)) {
		json_decref(root);
		*why = "the body is not a JSON object";
		return ESLURM_INVALID_ARGUMENT;
	}
	if (api == API_V44 && (rc = restd_body44_submission(root, why))) {
		json_decref(root);
		return rc;
	}
	job = json_object_get(root, "job");
	v = json_object_get(root, "script");
	if (json_object_get(root, "jobs")) {
		json_decref(root);
		*why = "heterogeneous jobs (\"jobs\") are not supported";
		return ESLURM_NOT_SUPPORTED;
	}
	if (!json_is_string(v) || !json_is_object(job)) {
		json_decref(root);
		*why = "a submission needs \"script\" and \"job\"";
		return ESLURM_JOB_SCRIPT_MISSING;
	}
	if (strncmp(json_string_value(v), "#!", 2)) {
		json_decref(root);
		*why =
		    "This does not look like a batch script.  The first line must start "
		    "with #! followed by the path to an interpreter.";
		return ESLURM_INVALID_ARGUMENT;
	}
	if (!json_is_object(json_object_get(job, "environment"))) {
		json_decref(root);
		*why = "the job has no \"environment\"";
		return ESLURM_ENVIRONMENT_MISSING;
	}
	d = msg_body_new(MSG_SUBMIT_REQ);
	job_desc_init(d);
	d->script = dup_str(v);
	json_object_foreach(job, key, v)
	{
		if (property(key, v, d, why) < 0) {
			msg_body_free(MSG_SUBMIT_REQ, d);
			json_decref(root);
			return ESLURM_INVALID_ARGUMENT;
		}
	}
	json_decref(root);
	if (!d->work_dir) /* Slurm's default: the user's home */
		d->work_dir = xstrdup((pw = getpwuid(u->uid)) ? pw->pw_dir : "/tmp");
	if (!strv_getenv(d->env, "SLURM_SUBMIT_DIR"))
		d->env = strv_setenv(d->env, "SLURM_SUBMIT_DIR", d->work_dir);
	*ret = d;
	return 0;
}
