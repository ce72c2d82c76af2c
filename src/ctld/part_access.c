/* part_access.c - what a partition lets in (part_access.h). */
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/strv.h"
#include "ctld/caller.h"
#include "ctld/ctld.h"
#include "ctld/node_mgr.h"
#include "ctld/job_mgr.h"
#include "ctld/part_access.h"
#include "proto/messages.h"
#include "common/common.h"

/* Alternates followed before a loop is assumed. */
#define ALTERNATE_HOPS_MAX 64

static int takes_submissions(const struct part *p)
{
	return p->cfg->state == CONF_PART_UP || p->cfg->state == CONF_PART_DOWN;
}

int part_access_state(struct ctld *ctld, struct part **pp)
{
	struct part *p = *pp;

	for (int hop = 0; hop < ALTERNATE_HOPS_MAX; hop++) {
		if (takes_submissions(p)) {
			*pp = p;
			return 0;
		}
		if (!p->cfg->alternate)
			break;
		if (!(p = node_mgr_part_find(ctld->nodes, p->cfg->alternate))) {
			log_info("submit rejected: partition %s's alternate %s does not "
			         "exist",
			         (*pp)->cfg->name, (*pp)->cfg->alternate);
			return -ESLURM_INVALID_PARTITION_NAME;
		}
		if (p == *pp)
			break;
	}
	return -ESLURM_PARTITION_NOT_AVAIL;
}

/* May the job of name use p by list allow (NULL: all), else by deny? */
static int list_lets_in(const char *allow, const char *deny, const char *name)
{
	if (allow)
		return name && list_has(allow, name, 0);
	return !name || !deny || !list_has(deny, name, 0);
}

uint32_t part_access_wait(const struct part *p, const char *account, const char *qos)
{
	const struct conf_part *cp = p->cfg;

	if (!list_lets_in(cp->allow_accounts, cp->deny_accounts, account))
		return WAIT_ACCOUNT;
	if (!list_lets_in(cp->allow_qos, cp->deny_qos, qos ? qos : "normal"))
		return WAIT_QOS;
	return 0;
}

/* Is owner root or SlurmUser, or in one of the groups of AllowGroups? */
static int group_lets_in(struct ctld *ctld, const struct conf_part *cp,
                         struct caller *owner)
{
	char **groups;
	int in = 0;

	if (!cp->allow_groups || ctld_is_admin(ctld, owner->uid))
		return 1;
	groups = strv_split(cp->allow_groups, ",");
	for (size_t i = 0; groups[i] && !in; i++) {
		struct group gr, *got = NULL;
		char buf[16384];

		if (!getgrnam_r(groups[i], &gr, buf, sizeof(buf), &got) && got)
			in = caller_in_group(owner, got->gr_gid);
	}
	strv_free(groups);
	return in;
}

int part_access_submit_all(struct ctld *ctld, const struct part *p,
                           const struct caller *submitter, struct caller *owner,
                           const struct job_desc *d)
{
	struct part *parts[JOB_PARTS_MAX];
	size_t n = d->partition && strchr(d->partition, ',')
	               ? job_parts_of(ctld->nodes, d->partition, parts, JOB_PARTS_MAX)
	               : 0;
	int rc = p ? part_access_submit(ctld, p, submitter, owner, d) : 0;

	/* a list: every partition in it must let the job in (it may start in
	 * any of them) */
	for (size_t i = 0; i < n && !rc; i++)
		if (parts[i] != p)
			rc = part_access_submit(ctld, parts[i], submitter, owner, d);
	return rc;
}

/* AllocNodes: may a job be submitted from host (its name as the command
 * gave it; its short form counts too)?  No list, or ALL: from anywhere. */
static int alloc_node_ok(const struct conf_part *cp, const char *host)
{
	char **names = NULL;
	size_t n = 0, len;
	int ok = 0;

	if (!cp->alloc_nodes || !*cp->alloc_nodes || !strcasecmp(cp->alloc_nodes, "ALL"))
		return 1;
	if (!host || !*host || hostlist_expand(cp->alloc_nodes, &names, &n, NULL) < 0)
		return 0;
	len = strcspn(host, ".");
	for (size_t i = 0; i < n && !ok; i++)
		ok = !strcmp(names[i], host) ||
		     (strlen(names[i]) == len && !strncmp(names[i], host, len));
	hostlist_free(names);
	return ok;
}

int part_access_submit(struct ctld *ctld, const struct part *p,
                       const struct caller *submitter, struct caller *owner,
                       const struct job_desc *d)
{
	const struct conf_part *cp = p->cfg;
	const char *e = ctld->conf->enforce_part_limits;
	const char *resv = d->ext ? d->ext->reservation : NULL;
	uint32_t why;

	if (cp->req_resv && (!resv || !*resv))
		return -ESLURM_ACCESS_DENIED;
	if (cp->root_only && !caller_is_admin(submitter))
		return -ESLURM_ACCESS_DENIED;
	if (cp->disable_root_jobs && owner->uid == 0)
		return -ESLURM_USER_ID_MISSING;
	if (!group_lets_in(ctld, cp, owner))
		return -ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP;
	if (!alloc_node_ok(cp, d->submit_host))
		return -ESLURM_ACCESS_DENIED;
	if (!e || !strcasecmp(e, "NO")) /* the job waits instead */
		return 0;
	why = part_access_wait(p, d->account, d->qos);
	if (why) {
		log_info("submit rejected: partition %s does not allow %s %s", cp->name,
		         why == WAIT_ACCOUNT ? "account" : "QOS",
		         why == WAIT_ACCOUNT ? (d->account ? d->account : "(none)")
		                             : (d->qos ? d->qos : "normal"));
		return why == WAIT_ACCOUNT ? -ESLURM_INVALID_ACCOUNT
		                           : -ESLURM_INVALID_QOS;
	}
	return 0;
}
