/* oci_bundle.c - read an OCI bundle's config.json (oci_bundle.h). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "common/oci_bundle.h"

int oci_bundle_parse(const char *json, size_t len, struct oci_bundle *ret,
                     struct rota_error *err)
{
	json_t *cfg = json_loadb(json, len, 0, NULL), *process, *env, *v;
	struct oci_bundle b = {0};
	const char *root, *cwd;
	size_t i, n = 0;

	if (!json_is_object(cfg)) {
		json_decref(cfg);
		return errprintf(err, "config.json: not a JSON object");
	}
	root = json_string_value(json_object_get(json_object_get(cfg, "root"), "path"));
	process = json_object_get(cfg, "process");
	cwd = json_string_value(json_object_get(process, "cwd"));
	env = json_object_get(process, "env");
	if (json_array_size(env) > OCI_BUNDLE_ENV_MAX) {
		json_decref(cfg);
		return errprintf(err, "config.json: more than %d process.env entries",
		                 OCI_BUNDLE_ENV_MAX);
	}
	if (cwd && cwd[0] != '/') {
		errprintf(err, "config.json: process.cwd `%s' is not absolute", cwd);
		json_decref(cfg); /* cwd is its */
		return -1;
	}
	b.root = strdup(root && *root ? root : "rootfs");
	b.cwd = cwd ? strdup(cwd) : NULL;
	b.env = calloc(json_array_size(env) + 1, sizeof(char *));
	if (!b.root || (cwd && !b.cwd) || !b.env)
		goto nomem;
	json_array_foreach(env, i, v)
	{
		const char *kv = json_string_value(v);
		if (!kv || !strchr(kv, '=') || kv[0] == '=')
			continue;
		if (!(b.env[n++] = strdup(kv)))
			goto nomem;
	}
	json_decref(cfg);
	*ret = b;
	return 0;
nomem:
	json_decref(cfg);
	oci_bundle_release(&b);
	return errprintf(err, "out of memory");
}

void oci_bundle_release(struct oci_bundle *b)
{
	if (!b)
		return;
	for (size_t i = 0; b->env && b->env[i]; i++)
		free(b->env[i]);
	free(b->env);
	free(b->root);
	free(b->cwd);
	*b = (struct oci_bundle){0};
}
