/* sacctmgr_list.c - sacctmgr list|show: the controller's records
 * (MSG_ASSOC_LIST_REQ), filtered and printed as Slurm's columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/pfields.h"
#include "cli/sacctmgr.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "proto/codec.h"
#include "common/common.h"

#define COLS_MAX 100

/* One row: the records it shows (NULL where it has none). */
struct view {
	const struct assoc_list_resp *all;
	const struct assoc_account *a;
	const struct assoc_user *u;
	const struct assoc_rec *r;
	const struct assoc_qos *q;
	const struct assoc_res *s; /* a resource's row */
	int with_cluster;          /* ... for the cluster it is given to */
};

enum fid {
	F_ACCOUNT,
	F_DESCR,
	F_ORG,
	F_CLUSTER,
	F_PARENT,
	F_USER,
	F_PARTITION,
	F_SHARE,
	F_PRIORITY,
	F_GRPJOBS,
	F_GRPTRES,
	F_GRPSUBMIT,
	F_GRPWALL,
	F_GRPTRESMINS,
	F_GRPTRESRUNMINS,
	F_MAXJOBS,
	F_MAXTRES,
	F_MAXTRESPERNODE,
	F_MAXSUBMIT,
	F_MAXWALL,
	F_MAXTRESMINS,
	F_QOS,
	F_DEFQOS,
	F_DEFACCT,
	F_ADMIN,
	F_NAME,
	F_DESCRIPTION,
	F_GRACETIME,
	F_PREEMPT,
	F_PREEMPTEXEMPT,
	F_PREEMPTMODE,
	F_FLAGS,
	F_USAGETHRES,
	F_USAGEFACTOR,
	F_MAXTRESPU,
	F_MAXJOBSPU,
	F_MAXSUBMITPU,
	F_MAXTRESPA,
	F_MAXJOBSPA,
	F_MAXSUBMITPA,
	F_MINTRES,
	F_CONTROLHOST,
	F_CONTROLPORT,
	F_RPC,
	F_COORDS,
	F_SERVER,
	F_SERVERTYPE,
	F_TYPE,
	F_COUNT,
	F_ALLOCATED,
	F_ALLOWED,
	F_COUNTALLOWED,
};

struct field {
	const char *name; /* as format= takes it */
	const char *title;
	int width;
	enum fid id;
};

static const struct field fields[] = {
    {"Account", "Account", 10, F_ACCOUNT},
    {"Descr", "Descr", 20, F_DESCR},
    {"Org", "Org", 20, F_ORG},
    {"Organization", "Org", 20, F_ORG},
    {"Cluster", "Cluster", 10, F_CLUSTER},
    {"ParentName", "Par Name", 10, F_PARENT},
    {"User", "User", 10, F_USER},
    {"Partition", "Partition", 10, F_PARTITION},
    {"Share", "Share", 9, F_SHARE},
    {"Fairshare", "Share", 9, F_SHARE},
    {"Priority", "Priority", 10, F_PRIORITY},
    {"GrpJobs", "GrpJobs", 7, F_GRPJOBS},
    {"GrpTRES", "GrpTRES", 13, F_GRPTRES},
    {"GrpSubmit", "GrpSubmit", 9, F_GRPSUBMIT},
    {"GrpSubmitJobs", "GrpSubmit", 9, F_GRPSUBMIT},
    {"GrpWall", "GrpWall", 11, F_GRPWALL},
    {"GrpTRESMins", "GrpTRESMins", 13, F_GRPTRESMINS},
    {"GrpTRESRunMins", "GrpTRESRunMins", 13, F_GRPTRESRUNMINS},
    {"MaxJobs", "MaxJobs", 7, F_MAXJOBS},
    {"MaxTRES", "MaxTRES", 13, F_MAXTRES},
    {"MaxTRESPerNode", "MaxTRESPerNode", 14, F_MAXTRESPERNODE},
    {"MaxSubmit", "MaxSubmit", 9, F_MAXSUBMIT},
    {"MaxSubmitJobs", "MaxSubmit", 9, F_MAXSUBMIT},
    {"MaxWall", "MaxWall", 11, F_MAXWALL},
    {"MaxTRESMins", "MaxTRESMins", 13, F_MAXTRESMINS},
    {"QOS", "QOS", 20, F_QOS},
    {"DefaultQOS", "Def QOS", 9, F_DEFQOS},
    {"DefQOS", "Def QOS", 9, F_DEFQOS},
    {"DefaultAccount", "Def Acct", 10, F_DEFACCT},
    {"DefAcct", "Def Acct", 10, F_DEFACCT},
    {"AdminLevel", "Admin", 9, F_ADMIN},
    {"Admin", "Admin", 9, F_ADMIN},
    {"Coordinators", "Coord Accounts", 20, F_COORDS},
    {"Name", "Name", 10, F_NAME},
    {"Description", "Descr", 11, F_DESCRIPTION},
    {"GraceTime", "GraceTime", 10, F_GRACETIME},
    {"Preempt", "Preempt", 10, F_PREEMPT},
    {"PreemptExemptTime", "PreemptExemptTime", 19, F_PREEMPTEXEMPT},
    {"PreemptMode", "PreemptMode", 11, F_PREEMPTMODE},
    {"Flags", "Flags", 10, F_FLAGS},
    {"UsageThres", "UsageThres", 11, F_USAGETHRES},
    {"UsageFactor", "UsageFactor", 11, F_USAGEFACTOR},
    {"MaxTRESPU", "MaxTRESPU", 13, F_MAXTRESPU},
    {"MaxTRESPerUser", "MaxTRESPU", 13, F_MAXTRESPU},
    {"MaxJobsPU", "MaxJobsPU", 9, F_MAXJOBSPU},
    {"MaxJobsPerUser", "MaxJobsPU", 9, F_MAXJOBSPU},
    {"MaxSubmitPU", "MaxSubmitPU", 11, F_MAXSUBMITPU},
    {"MaxSubmitJobsPerUser", "MaxSubmitPU", 11, F_MAXSUBMITPU},
    {"MaxTRESPA", "MaxTRESPA", 13, F_MAXTRESPA},
    {"MaxJobsPA", "MaxJobsPA", 9, F_MAXJOBSPA},
    {"MaxSubmitPA", "MaxSubmitPA", 11, F_MAXSUBMITPA},
    {"MinTRES", "MinTRES", 13, F_MINTRES},
    {"ControlHost", "ControlHost", 15, F_CONTROLHOST},
    {"ControlPort", "ControlPort", 12, F_CONTROLPORT},
    {"RPC", "RPC", 5, F_RPC},
    {"Server", "Server", 10, F_SERVER},
    {"ServerType", "ServerType", 10, F_SERVERTYPE},
    {"Type", "Type", 8, F_TYPE},
    {"Count", "Count", 6, F_COUNT},
    {"Allocated", "% Allocated", 11, F_ALLOCATED},
    {"Allowed", "% Allowed", 10, F_ALLOWED},
    {"CountAllowed", "# Allowed", 10, F_COUNTALLOWED},
};

#define ASSOC_LIMITS                                                                     \
	"Share,Priority,GrpJobs,GrpTRES,GrpSubmit,GrpWall,GrpTRESMins,MaxJobs,MaxTRES,"  \
	"MaxTRESPerNode,MaxSubmit,MaxWall,MaxTRESMins,QOS,DefaultQOS"
static const char *const default_formats[][2] = {
    /* plain, with associations (-s) */
    [ASSOC_K_ACCOUNT] = {"Account,Descr,Org",
                         "Account,Descr,Org,Cluster,ParentName,User," ASSOC_LIMITS},
    [ASSOC_K_USER] =
        {"User,DefaultAccount,Admin",
         "User,DefaultAccount,Admin,Cluster,Account,Partition," ASSOC_LIMITS},
    [ASSOC_K_QOS] = {"Name,Priority,GraceTime,Preempt,PreemptExemptTime,PreemptMode,"
                     "Flags,UsageThres,UsageFactor,GrpTRES,GrpTRESMins,GrpTRESRunMins,"
                     "GrpJobs,GrpSubmit,GrpWall,MaxTRES,MaxTRESPerNode,MaxTRESMins,"
                     "MaxWall,MaxTRESPU,MaxJobsPU,MaxSubmitPU,MaxTRESPA,MaxJobsPA,"
                     "MaxSubmitPA,MinTRES",
                     NULL},
    [ASSOC_K_ASSOC] = {"Cluster,Account,User,Partition," ASSOC_LIMITS ",GrpTRESRunMins",
                       NULL},
    [ASSOC_K_RES] = {"Name,Server,Type,Count,Allocated,ServerType",
                     "Name,Server,Type,Count,Allocated,ServerType,Cluster,Allowed"},
};
#define CLUSTER_FORMAT                                                                   \
	"Cluster,ControlHost,ControlPort,RPC,Share,GrpJobs,GrpTRES,GrpSubmit,MaxJobs,"   \
	"MaxTRES,MaxSubmit,MaxWall,QOS,DefaultQOS"

static const struct field *field_find(const char *name)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcasecmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

static const char *num(uint32_t v, char *buf, size_t len)
{
	if (v == NO_VAL)
		return "";
	snprintf(buf, len, "%u", v);
	return buf;
}

static const char *wall(uint32_t min, char *buf, size_t len)
{
	return min == NO_VAL ? "" : timefmt_duration((long)min * 60, buf, len);
}

static const char *str(const char *s)
{
	return s ? s : "";
}

static const char *joined(char *const *v, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; v && v[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "", v[i]);
	return buf;
}

static const struct assoc_rec *parent_of(const struct view *v, const struct assoc_rec *r)
{
	const char *name = r->user ? r->account : r->parent;

	for (size_t i = 0; name && i < v->all->assocs_count; i++) {
		const struct assoc_rec *p = &v->all->assocs[i];
		if (!p->user && !p->partition && !strcasecmp(p->account, name))
			return p;
	}
	return NULL;
}

/* An association's QOS: its own, else the nearest above it (as Slurm shows
 * what a new association inherited). */
static char *const *qos_of(const struct view *v)
{
	const struct assoc_rec *r = v->r;

	for (int depth = 0; r && depth < 1000; depth++, r = parent_of(v, r))
		if (r->qos && r->qos[0])
			return r->qos;
	return NULL;
}

/* An association's Priority: its own, else the nearest above it (NO_VAL:
 * none), as Slurm's user association inherits its account's. */
static uint32_t priority_of(const struct view *v)
{
	const struct assoc_rec *r = v->r;

	for (int depth = 0; r && depth < 1000; depth++, r = parent_of(v, r))
		if (r->priority != NO_VAL)
			return r->priority;
	return NO_VAL;
}

/* The accounts a user coordinates. */
static const char *coord_accounts(const struct view *v, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < v->all->accounts_count && at < len; i++)
		if (strv_has(v->all->accounts[i].coordinators, v->u->name, 1))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "",
			                       v->all->accounts[i].name);
	return buf;
}

static const char *admin_name(uint32_t level)
{
	return level == ADMIN_ADMINISTRATOR ? "Administrator"
	       : level == ADMIN_OPERATOR    ? "Operator"
	                                    : "None";
}

/* A resource's row: what Slurm's sacctmgr shows of it (with_cluster: for
 * the cluster it is given to; else Cluster empty, its allowed 0). */
static const char *res_value(const struct view *v, enum fid id, char *buf, size_t len)
{
	const struct assoc_res *s = v->s;
	uint32_t allowed = v->with_cluster ? s->percent_allowed : 0;

	switch (id) {
	case F_NAME:
		return str(s->name);
	case F_SERVER:
		return str(s->server);
	case F_SERVERTYPE:
		return str(s->server_type);
	case F_TYPE:
		return "License";
	case F_DESCR:
	case F_DESCRIPTION:
		return str(s->description);
	case F_COUNT:
		return num(s->count, buf, len);
	case F_ALLOCATED:
		snprintf(buf, len, "%u", s->cluster ? s->percent_allowed : 0);
		return buf;
	case F_CLUSTER:
		return v->with_cluster ? str(s->cluster) : "";
	case F_ALLOWED:
		snprintf(buf, len, "%u", allowed);
		return buf;
	case F_COUNTALLOWED:
		snprintf(buf, len, "%u", (uint32_t)((uint64_t)s->count * allowed / 100));
		return buf;
	default:
		return "";
	}
}

static const char *value(const struct view *v, enum fid id, char *buf, size_t len)
{
	const struct assoc_rec *r = v->r;
	const struct assoc_qos *q = v->q;

	if (v->s)
		return res_value(v, id, buf, len);
	switch (id) {
	case F_ACCOUNT:
		return r ? str(r->account) : v->a ? str(v->a->name) : "";
	case F_DESCR:
		return q ? str(q->description) : v->a ? str(v->a->description) : "";
	case F_ORG:
		return v->a ? str(v->a->organization) : "";
	case F_CLUSTER:
		return r || (!v->a && !v->u && !q) ? str(v->all->cluster) : "";
	case F_PARENT:
		return r && !r->user ? str(r->parent) : "";
	case F_USER:
		return r ? str(r->user) : v->u ? str(v->u->name) : "";
	case F_PARTITION:
		return r ? str(r->partition) : "";
	case F_SHARE:
		return r ? num(r->shares, buf, len) : v->a || v->u ? "" : "1";
	case F_PRIORITY:
		return r   ? num(priority_of(v), buf, len)
		       : q ? num(q->priority, buf, len)
		           : "";
	case F_GRPJOBS:
		return r   ? num(r->grp_jobs, buf, len)
		       : q ? num(q->grp_jobs, buf, len)
		           : "";
	case F_GRPTRES:
		return r ? str(r->grp_tres) : q ? str(q->grp_tres) : "";
	case F_GRPSUBMIT:
		return r   ? num(r->grp_submit, buf, len)
		       : q ? num(q->grp_submit, buf, len)
		           : "";
	case F_GRPWALL:
		return r   ? wall(r->grp_wall, buf, len)
		       : q ? wall(q->grp_wall, buf, len)
		           : "";
	case F_GRPTRESMINS:
		return r ? str(r->grp_tres_mins) : q ? str(q->grp_tres_mins) : "";
	case F_GRPTRESRUNMINS:
		return r ? str(r->grp_tres_run_mins) : q ? str(q->grp_tres_run_mins) : "";
	case F_MAXJOBS:
		return r ? num(r->max_jobs, buf, len) : "";
	case F_MAXTRES:
		return r ? str(r->max_tres) : q ? str(q->max_tres) : "";
	case F_MAXTRESPERNODE:
		return r ? str(r->max_tres_per_node) : q ? str(q->max_tres_per_node) : "";
	case F_MAXSUBMIT:
		return r ? num(r->max_submit, buf, len) : "";
	case F_MAXWALL:
		return r   ? wall(r->max_wall, buf, len)
		       : q ? wall(q->max_wall, buf, len)
		           : "";
	case F_MAXTRESMINS:
		return r ? str(r->max_tres_mins) : q ? str(q->max_tres_mins) : "";
	case F_QOS:
		return r ? joined(qos_of(v), buf, len) : "";
	case F_DEFQOS:
		return r ? str(r->def_qos) : "";
	case F_DEFACCT:
		return v->u ? str(v->u->default_account) : "";
	case F_ADMIN:
		return v->u ? admin_name(v->u->admin_level) : "";
	case F_COORDS:
		return v->u   ? coord_accounts(v, buf, len)
		       : v->a ? joined(v->a->coordinators, buf, len)
		              : "";
	case F_NAME:
		return q ? str(q->name) : "";
	case F_DESCRIPTION:
		return q ? str(q->description) : v->a ? str(v->a->description) : "";
	case F_GRACETIME:
		return q ? timefmt_duration((long)q->grace_time, buf, len) : "";
	case F_PREEMPT:
		return q ? joined(q->preempt, buf, len) : "";
	case F_PREEMPTEXEMPT:
		return q && q->preempt_exempt_time != NO_VAL
		           ? timefmt_duration((long)q->preempt_exempt_time, buf, len)
		           : "";
	case F_PREEMPTMODE:
		return q ? str(q->preempt_mode) : "";
	case F_FLAGS:
		return q ? str(q->flags) : "";
	case F_USAGETHRES:
		return q ? str(q->usage_thres) : "";
	case F_USAGEFACTOR:
		return q ? str(q->usage_factor) : "";
	case F_MAXTRESPU:
		return q ? str(q->max_tres_pu) : "";
	case F_MAXJOBSPU:
		return q ? num(q->max_jobs_pu, buf, len) : "";
	case F_MAXSUBMITPU:
		return q ? num(q->max_submit_pu, buf, len) : "";
	case F_MAXTRESPA:
		return q ? str(q->max_tres_pa) : "";
	case F_MAXJOBSPA:
		return q ? num(q->max_jobs_pa, buf, len) : "";
	case F_MAXSUBMITPA:
		return q ? num(q->max_submit_pa, buf, len) : "";
	case F_MINTRES:
		return q ? str(q->min_tres) : "";
	case F_CONTROLHOST:
		return "";
	case F_CONTROLPORT:
		return "0";
	case F_RPC:
		return "9728"; /* 22.05's protocol version */
	default:
		return "";
	}
	return "";
}

/* ---- the columns ---- */

struct layout {
	enum fid ids[COLS_MAX];
	struct pf_col cols[COLS_MAX];
	size_t n;
};

static int layout_parse(struct layout *l, const char *format)
{
	char **w = fmt_split(format, ",");
	int rc = 0;

	for (size_t i = 0; w[i] && !rc; i++) {
		int width = -1, left = 0;
		const struct field *f;
		if (pf_parse_width(w[i], &width, &left) < 0) {
			cli_error("Invalid field width: %s", w[i]);
			rc = 1;
		} else if (!(f = field_find(w[i]))) {
			cli_error("Unknown field '%s'", w[i]);
			rc = 1;
		} else if (l->n == COLS_MAX) {
			cli_error("more than %d fields", COLS_MAX);
			rc = 1;
		} else {
			l->ids[l->n] = f->id;
			l->cols[l->n++] = (struct pf_col){
			    f->title, width >= 0 ? width : f->width, left};
		}
	}
	fmt_strv_free(w);
	return rc;
}

/* ---- what is listed ---- */

struct listing {
	const struct mgr_opts *o;
	struct layout l;
	struct fmtbuf b;
	char **names;
	char **where;
};

static int in_list(const char *s, const char *csv)
{
	char **l = strv_split(csv, ",");
	int in = strv_has(l, s ? s : "", 1);

	strv_free(l);
	return in;
}

/* The where words that apply to this row: Names=, Account=, User=,
 * Partition= (Cluster= and others are not filters here). */
static int wanted(const struct listing *ls, const struct view *v, const char *name)
{
	const char *acct = v->r ? v->r->account : v->a ? v->a->name : NULL;
	const char *user = v->r ? v->r->user : v->u ? v->u->name : NULL;

	if (ls->names && !strv_has(ls->names, name, 1))
		return 0;
	for (size_t i = 0; ls->where && ls->where[i]; i++) {
		const char *w = ls->where[i], *eq = strchr(w, '=');
		size_t kl = (size_t)(eq - w);
		if (!strncasecmp(w, "name", kl) || !strncasecmp(w, "names", kl)) {
			if (!in_list(name, eq + 1))
				return 0;
		} else if (!strncasecmp(w, "accounts", kl) && kl >= 3) {
			if (!in_list(acct, eq + 1))
				return 0;
		} else if (!strncasecmp(w, "users", kl) && kl >= 2) {
			if (!in_list(user, eq + 1))
				return 0;
		} else if (!strncasecmp(w, "partition", kl) && kl >= 4) {
			if (!in_list(v->r ? v->r->partition : NULL, eq + 1))
				return 0;
		} else if (v->s && kl >= 2 && !strncasecmp(w, "server", kl)) {
			if (!in_list(v->s->server, eq + 1))
				return 0;
		} else if (v->s && !strncasecmp(w, "clusters", kl)) {
			if (!in_list(v->s->cluster, eq + 1))
				return 0;
		}
	}
	return 1;
}

static void row(struct listing *ls, const struct view *v)
{
	char buf[1024];

	for (size_t i = 0; i < ls->l.n; i++)
		pf_cell(&ls->b, value(v, ls->l.ids[i], buf, sizeof(buf)), &ls->l.cols[i],
		        ls->o->mode, i + 1 == ls->l.n);
	pf_end_line(&ls->b);
}

static const struct assoc_account *account_of(const struct assoc_list_resp *all,
                                              const char *name)
{
	for (size_t i = 0; name && i < all->accounts_count; i++)
		if (!strcasecmp(all->accounts[i].name, name))
			return &all->accounts[i];
	return NULL;
}

static const struct assoc_user *user_of(const struct assoc_list_resp *all,
                                        const char *name)
{
	for (size_t i = 0; name && i < all->users_count; i++)
		if (!strcasecmp(all->users[i].name, name))
			return &all->users[i];
	return NULL;
}

static void list_rows(struct listing *ls, const struct assoc_list_resp *all,
                      enum assoc_kind kind, int clusters)
{
	struct view v = {.all = all};

	if (clusters) {
		if (wanted(ls, &v, all->cluster))
			row(ls, &v);
		return;
	}
	switch (kind) {
	case ASSOC_K_RES:
		for (size_t i = 0; i < all->res_count; i++) {
			v.s = &all->res[i];
			v.with_cluster = ls->o->with_clusters && v.s->cluster;
			if (wanted(ls, &v, v.s->name))
				row(ls, &v);
		}
		return;
	case ASSOC_K_QOS:
		for (size_t i = 0; i < all->qos_count; i++) {
			v.q = &all->qos[i];
			if (wanted(ls, &v, v.q->name))
				row(ls, &v);
		}
		return;
	case ASSOC_K_ACCOUNT:
		for (size_t i = 0; i < all->accounts_count; i++) {
			const struct assoc_account *a = &all->accounts[i];
			v = (struct view){.all = all, .a = a};
			if (!ls->o->with_assoc) {
				if (wanted(ls, &v, a->name))
					row(ls, &v);
				continue;
			}
			for (size_t k = 0; k < all->assocs_count; k++) {
				v.r = &all->assocs[k];
				if (!strcasecmp(v.r->account, a->name) &&
				    wanted(ls, &v, a->name))
					row(ls, &v);
			}
		}
		return;
	case ASSOC_K_USER:
		for (size_t i = 0; i < all->users_count; i++) {
			const struct assoc_user *u = &all->users[i];
			v = (struct view){.all = all, .u = u};
			if (!ls->o->with_assoc) {
				if (wanted(ls, &v, u->name))
					row(ls, &v);
				continue;
			}
			for (size_t k = 0; k < all->assocs_count; k++) {
				v.r = &all->assocs[k];
				if (v.r->user && !strcasecmp(v.r->user, u->name) &&
				    wanted(ls, &v, u->name))
					row(ls, &v);
			}
		}
		return;
	default:
		for (size_t k = 0; k < all->assocs_count; k++) {
			v.r = &all->assocs[k];
			v.a = account_of(all, v.r->account);
			v.u = user_of(all, v.r->user);
			if (wanted(ls, &v, v.r->user ? v.r->user : v.r->account))
				row(ls, &v);
		}
	}
}

struct assoc_list_resp *mgr_fetch(void)
{
	uint16_t type;
	void *body;
	const char *msg = NULL;
	int rc;

	cli_rpc(MSG_ASSOC_LIST_REQ, &(struct empty_msg){0}, &type, &body);
	if ((rc = cli_rc(type, body, &msg)) != 0 || type != MSG_ASSOC_LIST_RESP) {
		cli_error("%s", msg && *msg ? msg : slurm_strerror(rc));
		msg_body_free(type, body);
		return NULL;
	}
	return body;
}

int mgr_list(const struct mgr_opts *o, enum assoc_kind kind, int clusters, char **names,
             char **where, const char *format)
{
	struct listing ls = {.o = o, .names = names, .where = where};
	const char *fmt = format     ? format
	                  : clusters ? CLUSTER_FORMAT
	                  : (kind == ASSOC_K_RES ? o->with_clusters : o->with_assoc) &&
	                          default_formats[kind][1]
	                      ? default_formats[kind][1]
	                      : default_formats[kind][0];
	struct assoc_list_resp *body;
	char *with = NULL;
	int rc;

	if (!format && o->with_coord &&
	    (kind == ASSOC_K_ACCOUNT || kind == ASSOC_K_USER) && !clusters)
		fmt = with = xasprintf("%s,Coordinators", fmt);
	rc = layout_parse(&ls.l, fmt);
	free(with);
	if (rc || !(body = mgr_fetch()))
		return 1;
	if (!o->noheader)
		pf_header(&ls.b, ls.l.cols, ls.l.n, o->mode);
	list_rows(&ls, body, kind, clusters);
	if (ls.b.len)
		fwrite(ls.b.data, 1, ls.b.len, stdout);
	fmtbuf_release(&ls.b);
	msg_body_free(MSG_ASSOC_LIST_RESP, body);
	return 0;
}
