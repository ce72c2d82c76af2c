#include <errno.h>
/* mcs.c - MCSPlugin and MCSParameters (see mcs.h). */
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "common/error.h"
#include "common/mcs.h"
#include "common/common.h"

static const char *const kind_names[] = {
    [MCS_NONE] = "mcs/none",
    [MCS_ACCOUNT] = "mcs/account",
    [MCS_GROUP] = "mcs/group",
    [MCS_USER] = "mcs/user",
};

const char *mcs_kind_name(enum mcs_kind kind)
{
	return (size_t)kind < sizeof(kind_names) / sizeof(kind_names[0])
	           ? kind_names[kind]
	           : "mcs/none";
}

static void defaults(struct mcs_conf *c)
{
	c->enforced = 0;
	c->select = MCS_SELECT_ONDEMAND;
	c->privatedata = 0;
}

/* The words before the ':' (case as Slurm: any). */
static void words_read(struct mcs_conf *c, const char *s, size_t len)
{
	while (len) {
		size_t n = 0;
		while (n < len && s[n] != ',')
			n++;
		if (n == 8 && !strncasecmp(s, "enforced", n))
			c->enforced = 1;
		else if (n == 8 && !strncasecmp(s, "ondemand", n))
			c->enforced = 0;
		else if (n == 8 && !strncasecmp(s, "noselect", n))
			c->select = MCS_SELECT_NEVER;
		else if (n == 6 && !strncasecmp(s, "select", n))
			c->select = MCS_SELECT_ALWAYS;
		else if (n == 14 && !strncasecmp(s, "ondemandselect", n))
			c->select = MCS_SELECT_ONDEMAND;
		else if (n == 11 && !strncasecmp(s, "privatedata", n))
			c->privatedata = 1;
		/* other words: ignored, as Slurm does */
		s += n;
		len -= n;
		if (len) {
			s++;
			len--;
		}
	}
}

/* "a|b|c": the groups the system knows (Slurm skips the others). */
static void groups_read(struct mcs_conf *c, const char *s)
{
	while (*s && c->ngroups < MCS_GROUPS_MAX) {
		size_t n = strcspn(s, "|");
		char *name = xstrndup(s, n), *buf = NULL;
		struct group gr, *got = NULL;
		int rc = ERANGE;

		/* a group of many members needs a larger buffer */
		for (size_t len = 4096; *name && rc == ERANGE && len <= (16u << 20);
		     len *= 2) {
			buf = xrealloc(buf, len);
			rc = getgrnam_r(name, &gr, buf, len, &got);
		}
		if (*name && !rc && got) {
			c->gids[c->ngroups] = got->gr_gid;
			c->groups[c->ngroups++] = name;
		} else
			free(name);
		free(buf);
		s += n;
		s += *s == '|';
	}
}

int mcs_conf_read(const char *plugin, const char *params, struct mcs_conf *out,
                  struct rota_error *err)
{
	const char *colon;

	memset(out, 0, sizeof(*out));
	defaults(out);
	if (plugin && *plugin && strcasecmp(plugin, "mcs/none")) {
		size_t k;
		for (k = 1; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
			if (!strcasecmp(plugin, kind_names[k]))
				break;
		if (k == sizeof(kind_names) / sizeof(kind_names[0]))
			return errprintf(err,
			                 "MCSPlugin=%.64s: not mcs/none, mcs/account, "
			                 "mcs/group or mcs/user",
			                 plugin);
		out->kind = (enum mcs_kind)k;
	}
	if (!params)
		return 0;
	colon = strchr(params, ':');
	words_read(out, params, colon ? (size_t)(colon - params) : strlen(params));
	if (out->kind == MCS_GROUP) {
		if (colon)
			groups_read(out, colon + 1);
		if (!out->ngroups) { /* no group to label with: the defaults, but
			              * what is private stays so */
			int private = out->privatedata;
			defaults(out);
			out->privatedata = private;
		}
	}
	return 0;
}

void mcs_conf_release(struct mcs_conf *c)
{
	for (size_t i = 0; i < c->ngroups; i++)
		free(c->groups[i]);
	c->ngroups = 0;
}

int mcs_job_selects(const struct mcs_conf *c, const char *label, int exclusive_mcs)
{
	if (c->kind == MCS_NONE || !label)
		return 0;
	return c->select == MCS_SELECT_ALWAYS ||
	       (c->select == MCS_SELECT_ONDEMAND && exclusive_mcs);
}

int mcs_group_find(const struct mcs_conf *c, const char *name)
{
	for (size_t i = 0; i < c->ngroups; i++)
		if (!strcmp(c->groups[i], name))
			return (int)i;
	return -1;
}
