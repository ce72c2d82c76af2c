/* update.c - POST job/{id} (v0.0.38_job_properties: what to change; a
 * v0.0.44_job_desc_msg is first rewritten in that form, body44.c) and POST
 * node/{name} ({"state", "reason"}: admins; v0.0.44's state is ["STATE"]) as
 * the requests scontrol update sends, so that the controller applies the
 * same checks (a user may lower a time limit, not raise it; only admins
 * change priorities or nodes). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/states.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "restd/restd.h"
#include "common/common.h"

/* A job property and the scontrol update key it becomes. */
static const struct {
	const char *prop, *key;
} job_keys[] = {
    {"name", "JobName"},         {"time_limit", "TimeLimit"},
    {"partition", "Partition"},  {"nice", "Nice"},
    {"comment", "Comment"},      {"priority", "Priority"},
    {"nodes", "NumNodes"},       {"tasks", "NumTasks"},
    {"constraints", "Features"}, {"dependency", "Dependency"},
    {"account", "Account"},      {"qos", "QOS"},
};

/* A JSON scalar as scontrol would write it; NULL if it is not one. */
static char *scalar(json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	return NULL;
}

/* "job property KEY WHAT" in *why. */
static int bad(const char **why, const char *key, const char *what)
{
	static char text[160];

	snprintf(text, sizeof(text), "job property %.64s %s", key, what);
	*why = text;
	return ESLURM_INVALID_ARGUMENT;
}

int restd_job_update(const char *body, size_t len, uint32_t job_id, enum rest_api api,
                     struct job_update_req **ret, const char **why)
{
	json_t *root = json_loadb(body, len, 0, NULL), *v;
	struct job_update_req *q;
	const char *key;
	int rc = 0;

	if (!json_is_object(root)) {
		json_decref(root);
		*why = "the body is not a JSON object";
		return ESLURM_INVALID_ARGUMENT;
	}
	if (api == API_V44 && (rc = restd_body44(root, why))) {
		json_decref(root);
		return rc;
	}
	q = msg_body_new(MSG_JOB_UPDATE_REQ);
	q->job_id = job_id;
	q->op = JOB_OP_UPDATE;
	json_object_foreach(root, key, v)
	{
		size_t i;
		char *text, *line;

		if (!strcmp(key, "hold") && json_is_boolean(v) &&
		    json_object_size(root) == 1) {
			q->op = json_is_true(v) ? JOB_OP_HOLD : JOB_OP_RELEASE;
			break;
		}
		for (i = 0; i < sizeof(job_keys) / sizeof(job_keys[0]) &&
		            strcmp(job_keys[i].prop, key);
		     i++)
			;
		if (i == sizeof(job_keys) / sizeof(job_keys[0])) {
			rc = bad(why, key, "cannot be updated");
			break;
		}
		if (!(text = scalar(v)) || strchr(text, '=') || strlen(text) > 4096) {
			free(text);
			rc = bad(why, key, "has an invalid value");
			break;
		}
		line = xasprintf("%s=%s", job_keys[i].key, text);
		q->kv = strv_append(q->kv, line);
		free(line);
		free(text);
	}
	json_decref(root);
	if (!rc && q->op == JOB_OP_UPDATE && !q->kv)
		rc = bad(why, "(none)", "given: nothing to update");
	if (rc) {
		msg_body_free(MSG_JOB_UPDATE_REQ, q);
		return rc;
	}
	*ret = q;
	return 0;
}

int restd_node_update(const char *body, size_t len, const char *name, enum rest_api api,
                      struct node_update_req **ret, const char **why)
{
	json_t *root = json_loadb(body, len, 0, NULL), *state, *reason;
	struct node_update_req *q;

	if (!json_is_object(root)) {
		json_decref(root);
		*why = "the body is not a JSON object";
		return ESLURM_INVALID_ARGUMENT;
	}
	state = json_object_get(root, "state");
	if (api == API_V44 && json_is_array(state) && json_array_size(state) == 1)
		state = json_array_get(state, 0);
	reason = json_object_get(root, "reason");
	if (!json_is_string(state) || (reason && !json_is_string(reason)) ||
	    json_object_size(root) != 1u + (reason != NULL)) {
		json_decref(root);
		*why = "a node update is {\"state\": ..., \"reason\": ...}";
		return ESLURM_INVALID_ARGUMENT;
	}
	q = msg_body_new(MSG_NODE_UPDATE_REQ);
	q->nodes = xstrdup(name);
	q->state = xstrdup(json_string_value(state));
	q->reason = reason ? xstrdup(json_string_value(reason)) : NULL;
	json_decref(root);
	*ret = q;
	return 0;
}
