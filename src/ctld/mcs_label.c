/* mcs_label.c - jobs' and nodes' MCS labels (see mcs_label.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/states.h"
#include "common/uid.h"
#include "ctld/assoc.h"
#include "ctld/caller.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/mcs_label.h"
#include "ctld/node_mgr.h"
#include "proto/messages.h"
#include "common/common.h"

struct ctld_mcs {
	const struct conf *of; /* the configuration it was read from */
	struct mcs_conf mc;
};

const struct mcs_conf *mcs_ctld_conf(struct ctld *ctld)
{
	struct ctld_mcs *m = ctld->mcs;
	struct rota_error err = {{0}};

	if (m && m->of == ctld->conf)
		return &m->mc;
	if (!m)
		m = ctld->mcs = xcalloc(1, sizeof(*m));
	mcs_conf_release(&m->mc);
	/* conf_load refused an unknown plugin already */
	if (mcs_conf_read(ctld->conf->mcs_plugin, ctld->conf->mcs_params, &m->mc, &err) <
	    0)
		log_err("%s", err.text);
	if (m->mc.kind == MCS_GROUP && !m->mc.ngroups)
		log_info("mcs: no group of MCSParameters is known: ondemand, "
		         "ondemandselect set");
	m->of = ctld->conf;
	return &m->mc;
}

void mcs_ctld_release(struct ctld *ctld)
{
	struct ctld_mcs *m = ctld->mcs;

	if (!m)
		return;
	mcs_conf_release(&m->mc);
	free(m);
	ctld->mcs = NULL;
}

/* The label mcs/group gives: the first group of the list who is in. */
static const char *group_default(const struct mcs_conf *mc, struct caller *who)
{
	for (size_t i = 0; i < mc->ngroups; i++)
		if (caller_in_group(who, mc->gids[i]))
			return mc->groups[i];
	return NULL;
}

static bool group_usable(const struct mcs_conf *mc, struct caller *who, const char *label)
{
	int i = mcs_group_find(mc, label);

	return i >= 0 && caller_in_group(who, mc->gids[i]);
}

int mcs_submit_label(struct ctld *ctld, struct caller *who, const char *user,
                     struct job_desc *d)
{
	const struct mcs_conf *mc = mcs_ctld_conf(ctld);
	const char *asked = job_desc_X(d)->mcs_label;
	const char *label = NULL;
	int wanted = mc->enforced || (d->flags & JOB_F_EXCLUSIVE_MCS);

	if (asked && !*asked) { /* --mcs-label= : none asked */
		free(job_desc_x_mut(d)->mcs_label);
		d->ext->mcs_label = NULL;
		asked = NULL;
	}
	if (asked && strlen(asked) >= MCS_LABEL_MAX)
		return -ESLURM_INVALID_MCS_LABEL;
	if (mc->kind == MCS_NONE) { /* no label without a plugin (Slurm's) */
		if (asked) {
			free(job_desc_x_mut(d)->mcs_label);
			d->ext->mcs_label = NULL;
		}
		return 0;
	}
	switch (mc->kind) {
	case MCS_USER:
		label = user;
		break;
	case MCS_ACCOUNT:
		label = d->account && *d->account ? d->account : NULL;
		break;
	case MCS_GROUP:
		label = asked ? (group_usable(mc, who, asked) ? asked : NULL)
		              : group_default(mc, who);
		break;
	default:
		break;
	}
	if (asked && (!label || strcmp(asked, label))) {
		log_info("job of %s refused: invalid mcs-label %s", user, asked);
		return -ESLURM_INVALID_MCS_LABEL;
	}
	if (!asked && !wanted)
		label = NULL;
	else if (!asked && !label && mc->kind == MCS_GROUP) {
		log_info("job of %s refused: no valid mcs_label found", user);
		return -ESLURM_INVALID_MCS_LABEL;
	}
	if (label != asked) {
		char *own = label ? xstrdup(label) : NULL;
		free(job_desc_x_mut(d)->mcs_label);
		d->ext->mcs_label = own;
	}
	return 0;
}

int mcs_job_keeps_nodes(struct ctld *ctld, const struct job *job)
{
	return mcs_job_selects(mcs_ctld_conf(ctld), job_x(job)->mcs_label,
	                       !!(job->desc.flags & JOB_F_EXCLUSIVE_MCS));
}

bool mcs_node_fits(const struct node *n, const struct job *job, int keeps)
{
	if (!keeps) /* a labelled node is its label's jobs' alone */
		return !n->mcs_label;
	if (n->mcs_label)
		return !strcmp(n->mcs_label, job_x(job)->mcs_label);
	return !n->run_jobs; /* others' jobs run there */
}

void mcs_node_take(struct node *n, const char *label)
{
	if (!n->mcs_jobs++ && label) {
		free(n->mcs_label);
		n->mcs_label = xstrdup(label);
	}
}

void mcs_node_give(struct node *n)
{
	if (n->mcs_jobs && !--n->mcs_jobs) {
		free(n->mcs_label);
		n->mcs_label = NULL;
	}
}

bool mcs_label_usable(struct ctld *ctld, struct caller *who, const char *label)
{
	const struct mcs_conf *mc = mcs_ctld_conf(ctld);
	const char *user;

	if (!label || caller_is_operator(who))
		return true;
	switch (mc->kind) {
	case MCS_USER:
		return (user = caller_user(who)) && !strcmp(user, label);
	case MCS_GROUP:
		return group_usable(mc, who, label);
	case MCS_ACCOUNT:
		return (user = caller_user(who)) &&
		       assoc_exists(ctld->assoc, user, label, NULL);
	default:
		return true;
	}
}

/* Does PrivateData (words, any case) name word, or all? */
static bool private_names(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *s = list; s && *s;) {
		size_t n = strcspn(s, ",");
		if ((n == wl && !strncasecmp(s, word, n)) ||
		    (n == 3 && !strncasecmp(s, "all", 3)))
			return true;
		s += n;
		s += *s == ',';
	}
	return false;
}

static bool label_private(struct ctld *ctld, struct caller *who, const char *what)
{
	return who && !caller_is_operator(who) && mcs_ctld_conf(ctld)->privatedata &&
	       mcs_ctld_conf(ctld)->kind != MCS_NONE &&
	       private_names(ctld->conf->private_data, what);
}

bool mcs_job_hidden(struct ctld *ctld, struct caller *who, const struct job *job)
{
	return label_private(ctld, who, "jobs") && job->owner->uid != who->uid &&
	       !mcs_label_usable(ctld, who, job_x(job)->mcs_label);
}

bool mcs_node_hidden(struct ctld *ctld, struct caller *who, const struct node *n)
{
	return label_private(ctld, who, "nodes") &&
	       !mcs_label_usable(ctld, who, n->mcs_label);
}
