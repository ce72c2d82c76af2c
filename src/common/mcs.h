/* mcs.h - Multi-Category Security settings: slurm.conf's MCSPlugin and
 * MCSParameters read into what the controller acts on.
 *
 * MCSPlugin=mcs/none|mcs/account|mcs/group|mcs/user names what a job's
 * label may be: nothing, its account, one of its user's groups (from the
 * MCSParameters list), its user's name.
 * MCSParameters=[ondemand|enforced][,noselect|select|ondemandselect]
 * [,privatedata][:group|group...]: whether every job gets a label or only
 * those that ask (--mcs-label, --exclusive=mcs); whether a node running a
 * labelled job takes only jobs of its label never, always, or for jobs
 * that ask (--exclusive=mcs); whether PrivateData=jobs,nodes lets users see
 * what carries a label they may use.  Defaults: ondemand,ondemandselect. */
#ifndef ROTA_COMMON_MCS_H
#define ROTA_COMMON_MCS_H

#include <stddef.h>
#include <sys/types.h>

struct rota_error;

enum mcs_kind {
	MCS_NONE,
	MCS_ACCOUNT,
	MCS_GROUP,
	MCS_USER,
};

enum mcs_select {
	MCS_SELECT_ONDEMAND, /* ondemandselect: jobs with --exclusive=mcs */
	MCS_SELECT_ALWAYS,   /* select: every labelled job */
	MCS_SELECT_NEVER,    /* noselect */
};

#define MCS_GROUPS_MAX 128  /* groups in the mcs/group list */
#define MCS_LABEL_MAX  1024 /* bytes of a label (Slurm's limit) */

struct mcs_conf {
	enum mcs_kind kind;
	int enforced; /* every job gets a label */
	enum mcs_select select;
	int privatedata; /* PrivateData filters by label */
	/* mcs/group: the groups a label may name, in order of preference
	 * (the first one of the user's is its default label) */
	char *groups[MCS_GROUPS_MAX]; /* owned */
	gid_t gids[MCS_GROUPS_MAX];   /* theirs */
	size_t ngroups;
};

/* Read plugin and params (either may be NULL: the defaults) into *out.
 * An unknown plugin or word is refused (-1, err filled); out is then left
 * as mcs/none.  mcs/group with no group of its list known to the system
 * falls back to ondemand,ondemandselect without privatedata, as Slurm's.
 * Call mcs_conf_release afterwards either way. */
int mcs_conf_read(const char *plugin, const char *params, struct mcs_conf *out,
                  struct rota_error *err);
void mcs_conf_release(struct mcs_conf *c);

/* The plugin's name as slurm.conf spells it ("mcs/user"). */
const char *mcs_kind_name(enum mcs_kind kind);

/* Does a job of this label (NULL: none), that asked for --exclusive=mcs or
 * not, keep the nodes it runs on to its label? */
int mcs_job_selects(const struct mcs_conf *c, const char *label, int exclusive_mcs);

/* The index of group name in the list, or -1. */
int mcs_group_find(const struct mcs_conf *c, const char *name);

#endif
