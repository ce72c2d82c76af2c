/* cgroup_conf.c - cgroup.conf (see cgroup_conf.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/cgroup_conf.h"
#include "common/conf_file.h"
#include "common/log.h"

#define WHERE_LEN 320

/* Keys of Slurm's cgroup.conf that Rota accepts without using them. */
static const char *const ignored_keys[] = {
    "AllowedDevicesFile",
    "AllowedKmemSpace",
    "AllowedRAMSpace",
    "AllowedSwapSpace",
    "CgroupAutomount",
    "CgroupMountpoint",
    "CgroupPlugin",
    "CgroupReleaseAgentDir",
    "ConstrainCores",
    "ConstrainKmemSpace",
    "ConstrainRAMSpace",
    "ConstrainSwapSpace",
    "EnableControllers",
    "IgnoreSystemd",
    "IgnoreSystemdOnFailure",
    "MaxKmemPercent",
    "MaxRAMPercent",
    "MaxSwapPercent",
    "MemoryLimitEnforcement",
    "MemorySwappiness",
    "MinKmemSpace",
    "MinRAMSpace",
    "SignalChildrenProcesses",
    "SystemdTimeout",
    "TaskAffinity",
};

static int bool_parse(const char *v, int *ret)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
		return *ret = 1, 0;
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
		return *ret = 0, 0;
	return -EINVAL;
}

/* The keys Rota acts on; key_apply reads used_keys[0]. */
static const char *const used_keys[] = {"ConstrainDevices"};

const char *const *cgroup_conf_keys(size_t *ret_n)
{
	*ret_n = sizeof(used_keys) / sizeof(*used_keys);
	return used_keys;
}

const char *const *cgroup_conf_ignored_keys(size_t *ret_n)
{
	*ret_n = sizeof(ignored_keys) / sizeof(*ignored_keys);
	return ignored_keys;
}

static int key_apply(void *arg, const char *key, const char *v, const char *where,
                     struct rota_error *err)
{
	struct cgroup_conf *c = arg;

	if (!strcasecmp(key, used_keys[0])) {
		if (bool_parse(v, &c->constrain_devices) < 0)
			return errprintf(err,
			                 "%s: ConstrainDevices=%.64s: expected yes or no",
			                 where, v),
			       -EINVAL;
		return 0;
	}
	for (size_t i = 0; i < sizeof(ignored_keys) / sizeof(*ignored_keys); i++)
		if (!strcasecmp(key, ignored_keys[i]))
			return 0;
	log_warn("%s: unknown key '%.64s' ignored", where, key);
	return 0;
}

int cgroup_conf_load_string(const char *text, const char *name, struct cgroup_conf *ret,
                            struct rota_error *err)
{
	struct cgroup_conf c = {0};
	char line[CGROUP_CONF_LINE_MAX + 1], where[WHERE_LEN];
	size_t lineno = 0;

	for (const char *s = text; *s;) {
		size_t n = strcspn(s, "\n");
		int rc;

		snprintf(where, sizeof(where), "%.300s:%zu", name, ++lineno);
		if (n > CGROUP_CONF_LINE_MAX)
			return errprintf(err, "%s: line longer than %d bytes", where,
			                 CGROUP_CONF_LINE_MAX),
			       -E2BIG;
		memcpy(line, s, n);
		line[n] = '\0';
		if ((rc = conf_line_split(line, key_apply, &c, where, err)) < 0)
			return rc;
		s += n + (s[n] == '\n');
	}
	*ret = c;
	return 0;
}

int cgroup_conf_load(const char *path, struct cgroup_conf *ret, struct rota_error *err)
{
	char *text;
	int rc = conf_file_read(path, CGROUP_CONF_FILE_MAX, &text, err);

	if (rc < 0)
		return rc;
	rc = cgroup_conf_load_string(text, path, ret, err);
	free(text);
	return rc;
}
