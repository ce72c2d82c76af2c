/* assoc_mgr_fmt.c - scontrol show assoc_mgr's text (assoc_mgr_fmt.h). */
#include <inttypes.h>
#include <stdio.h>
#include "proto/assoc_mgr_fmt.h"
#include "proto/messages.h"
#include "common/strv.h"

/* Between a record's lines: a new line indented, or a space with -o. */
#define SEP(o) ((o)->oneliner ? " " : "\n    ")

void assoc_mgr_tres(FILE *f, const char *label, char *const *names,
                    const struct tres_use *v, size_t n, int used)
{
	size_t have = strv_len(names);
	int first = 1;

	fprintf(f, "%s=", label);
	for (size_t i = 0; i < n && i < have; i++) {
		if (!used && v[i].limit == NO_VAL64)
			continue; /* a bare limit line shows only what is set */
		fprintf(f, "%s%s=", first ? "" : ",", names[i]);
		if (v[i].limit == NO_VAL64)
			fputc('N', f);
		else
			fprintf(f, "%" PRIu64, v[i].limit);
		if (used)
			fprintf(f, "(%" PRIu64 ")", v[i].used);
		first = 0;
	}
}

/* "Name=limit(used)", N for no limit. */
static void count(FILE *f, const char *name, uint32_t limit, uint32_t used)
{
	if (limit == NO_VAL || limit == INFINITE32)
		fprintf(f, "%s=N(%u)", name, used);
	else
		fprintf(f, "%s=%u(%u)", name, limit, used);
}

/* "Name=limit(used) " or, no limit, "Name= ". */
static void max_count(FILE *f, const char *name, uint32_t limit, uint32_t used)
{
	if (limit == NO_VAL || limit == INFINITE32)
		fprintf(f, "%s= ", name);
	else
		fprintf(f, "%s=%u(%u) ", name, limit, used);
}

/* "Name=limit", or "Name=" for none. */
static void bare(FILE *f, const char *name, uint32_t limit)
{
	if (limit == NO_VAL || limit == INFINITE32)
		fprintf(f, "%s=", name);
	else
		fprintf(f, "%s=%u", name, limit);
}

static double frac(uint64_t millionths)
{
	return (double)millionths / 1e6;
}

/* A section's heading, or what a kind asked for without records says. */
static int heading(FILE *f, const struct assoc_mgr_fmt *o, uint32_t n, unsigned kind,
                   const char *title, const char *none)
{
	const char *nl = o->oneliner ? "" : "\n";

	if (n) {
		fprintf(f, "%s%s%s\n", nl, title, nl);
		return 1;
	}
	if (!o->flags || (o->flags & kind))
		fprintf(f, "%sNo %s currently cached in Slurm.%s\n", nl, none, nl);
	return 0;
}

/* What an association and a QOS both print: " GrpWall=..." and the group
 * TRES lines, each line ended by sep. */
struct grp {
	uint32_t grp_wall;
	uint64_t used_wall;
	const struct tres_use *tres[3]; /* GrpTRES, GrpTRESMins, GrpTRESRunMins */
	uint32_t n[3];
};
#define GRP_OF(x)                                                                        \
	((struct grp){(x)->grp_wall,                                                     \
	              (x)->used_wall,                                                    \
	              {(x)->grp_tres, (x)->grp_tres_mins, (x)->grp_tres_run_mins},       \
	              {(x)->grp_tres_count, (x)->grp_tres_mins_count,                    \
	               (x)->grp_tres_run_mins_count}})

static void print_grp(FILE *f, const struct assoc_mgr_resp *r, const struct grp *g,
                      const char *sep)
{
	static const char *const label[3] = {"GrpTRES", "GrpTRESMins", "GrpTRESRunMins"};

	if (g->grp_wall == NO_VAL || g->grp_wall == INFINITE32)
		fprintf(f, " GrpWall=N(%.2f)%s", (double)g->used_wall / 60.0, sep);
	else
		fprintf(f, " GrpWall=%u(%.2f)%s", g->grp_wall,
		        (double)g->used_wall / 60.0, sep);
	for (int i = 0; i < 3; i++) {
		assoc_mgr_tres(f, label[i], r->tres, g->tres[i], g->n[i], 1);
		fputs(sep, f);
	}
}

/* The per-job TRES limits, MaxTRESPJ, MaxTRESPN and MaxTRESMinsPJ, each
 * line ended by sep. */
#define MAX_OF(x)                                                                        \
	(x)->max_tres, (x)->max_tres_count, (x)->max_tres_pn, (x)->max_tres_pn_count,    \
	    (x)->max_tres_mins, (x)->max_tres_mins_count
static void print_max(FILE *f, const struct assoc_mgr_resp *r, const struct tres_use *pj,
                      uint32_t npj, const struct tres_use *pn, uint32_t npn,
                      const struct tres_use *mins, uint32_t nmins, const char *sep)
{
	assoc_mgr_tres(f, "MaxTRESPJ", r->tres, pj, npj, 0);
	fputs(sep, f);
	assoc_mgr_tres(f, "MaxTRESPN", r->tres, pn, npn, 0);
	fputs(sep, f);
	assoc_mgr_tres(f, "MaxTRESMinsPJ", r->tres, mins, nmins, 0);
	fputs(sep, f);
}

static void print_user(FILE *f, const struct assoc_user *u, const struct assoc_mgr_fmt *o)
{
	uint32_t uid = o->uid_of ? o->uid_of(u->name, o->arg) : NO_VAL;

	fprintf(f, "UserName=%s(%u) DefAccount=%s DefWckey=(null) AdminLevel=%s\n",
	        u->name ? u->name : "", uid,
	        u->default_account ? u->default_account : "(null)",
	        u->admin_level == ADMIN_ADMINISTRATOR ? "Administrator"
	        : u->admin_level == ADMIN_OPERATOR    ? "Operator"
	                                              : "None");
}

static void print_assoc(FILE *f, const struct assoc_mgr_resp *r,
                        const struct assoc_mgr_assoc *a, const struct assoc_mgr_fmt *o)
{
	const char *sep = SEP(o);

	fprintf(f, "ClusterName=%s Account=%s ", r->cluster ? r->cluster : "",
	        a->account);
	if (a->user)
		fprintf(f, "UserName=%s(%u) ", a->user,
		        o->uid_of ? o->uid_of(a->user, o->arg) : NO_VAL);
	else
		fputs("UserName= ", f);
	fprintf(f, "Partition=%s Priority=%u ID=%u%s", a->partition ? a->partition : "",
	        a->priority, a->id, sep);
	fprintf(f, "SharesRaw/Norm/Level/Factor=%u/%.2f/%u/%.2f%s", a->shares_raw,
	        frac(a->shares_norm), a->level_shares == NO_VAL ? 1 : a->level_shares,
	        frac(a->fs_factor), sep);
	fprintf(f, "UsageRaw/Norm/Efctv=%.2f/%.2f/%.2f%s", (double)a->usage_raw / 100.0,
	        frac(a->usage_norm), frac(a->usage_efctv), sep);
	if (a->parent)
		fprintf(f, "ParentAccount=%s(%u) ", a->parent, a->parent_id);
	else
		fputs("ParentAccount= ", f);
	fprintf(f, "Lft=%u DefAssoc=%s%s", a->lft, a->is_def ? "Yes" : "No", sep);
	count(f, "GrpJobs", a->grp_jobs, a->used_jobs);
	fputc(' ', f);
	count(f, "GrpJobsAccrue", a->grp_jobs_accrue, a->accrue);
	fputs(sep, f);
	count(f, "GrpSubmitJobs", a->grp_submit, a->used_submit);
	print_grp(f, r, &GRP_OF(a), sep);
	max_count(f, "MaxJobs", a->max_jobs, a->used_jobs);
	max_count(f, "MaxJobsAccrue", a->max_jobs_accrue, a->accrue);
	max_count(f, "MaxSubmitJobs", a->max_submit, a->used_submit);
	bare(f, "MaxWallPJ", a->max_wall);
	fputs(sep, f);
	print_max(f, r, MAX_OF(a), sep);
	bare(f, "MinPrioThresh", a->min_prio_thresh);
	fputc('\n', f);
}

/* One account's or user's use of a QOS: "Account Limits" and "User Limits". */
static void print_used(FILE *f, const struct assoc_mgr_resp *r, const struct qos_used *u,
                       const char *what, uint32_t max_jobs, uint32_t max_accrue,
                       uint32_t max_submit, const struct assoc_mgr_fmt *o)
{
	const char *in = o->oneliner ? " " : "\n        ";
	char name[32], label[32];

	fputs(o->oneliner ? " " : "\n      ", f);
	if (u->account)
		fputs(u->account, f);
	else
		fprintf(f, "%u", u->uid);
	fputs(o->oneliner ? "={" : in, f);
	snprintf(name, sizeof(name), "MaxJobs%s", what);
	count(f, name, max_jobs, u->jobs);
	fputc(' ', f);
	snprintf(name, sizeof(name), "MaxJobsAccrue%s", what);
	count(f, name, max_accrue, u->accrue);
	fputc(' ', f);
	snprintf(name, sizeof(name), "MaxSubmitJobs%s", what);
	count(f, name, max_submit, u->submit);
	fputs(in, f);
	snprintf(label, sizeof(label), "MaxTRES%s", what);
	assoc_mgr_tres(f, label, r->tres, u->tres, u->tres_count, 1);
	if (o->oneliner)
		fputc('}', f);
}

static void print_qos(FILE *f, const struct assoc_mgr_resp *r,
                      const struct assoc_mgr_qos *q, const struct assoc_mgr_fmt *o)
{
	const char *sep = SEP(o);

	fprintf(f, "QOS=%s(%u)%s", q->name ? q->name : "", q->id, sep);
	fprintf(f, "UsageRaw=%f%s", (double)q->usage_raw / 1e6, sep);
	count(f, "GrpJobs", q->grp_jobs, q->used_jobs);
	fputc(' ', f);
	count(f, "GrpJobsAccrue", q->grp_jobs_accrue, q->accrue);
	fputc(' ', f);
	count(f, "GrpSubmitJobs", q->grp_submit, q->used_submit);
	print_grp(f, r, &GRP_OF(q), sep);
	bare(f, "MaxWallPJ", q->max_wall);
	fputs(sep, f);
	print_max(f, r, MAX_OF(q), sep);
	bare(f, "MinPrioThresh", q->min_prio_thresh);
	fputc(' ', f);
	fputs(sep, f);
	assoc_mgr_tres(f, "MinTRESPJ", r->tres, q->min_tres, q->min_tres_count, 0);
	fputs(sep, f);
	fprintf(f, "PreemptMode=%s%s", q->preempt_mode ? q->preempt_mode : "OFF", sep);
	if (q->priority == NO_VAL || q->priority == INFINITE32)
		fputs("Priority=NONE", f);
	else
		fprintf(f, "Priority=%u", q->priority);
	fputs(sep, f);
	fputs(o->oneliner ? "Account Limits=" : "Account Limits", f);
	for (uint32_t i = 0; i < q->accounts_count; i++)
		print_used(f, r, &q->accounts[i], "PA", q->max_jobs_pa,
		           q->max_jobs_accrue_pa, q->max_submit_pa, o);
	if (!q->accounts_count)
		fputs(o->oneliner ? "No Accounts" : "\n        No Accounts", f);
	fputs(sep, f);
	fputs(o->oneliner ? "User Limits=" : "User Limits", f);
	for (uint32_t i = 0; i < q->users_count; i++)
		print_used(f, r, &q->users[i], "PU", q->max_jobs_pu,
		           q->max_jobs_accrue_pu, q->max_submit_pu, o);
	if (!q->users_count)
		fputs(o->oneliner ? "No Users" : "\n        No Users", f);
	fputc('\n', f);
}

void assoc_mgr_print(FILE *f, const struct assoc_mgr_resp *r,
                     const struct assoc_mgr_fmt *o)
{
	fputs("Current Association Manager state\n", f);
	if (heading(f, o, r->users_count, ASSOC_MGR_F_USERS, "User Records", "users"))
		for (uint32_t i = 0; i < r->users_count; i++)
			print_user(f, &r->users[i], o);
	if (heading(f, o, r->assocs_count, ASSOC_MGR_F_ASSOC, "Association Records",
	            "associations"))
		for (uint32_t i = 0; i < r->assocs_count; i++)
			print_assoc(f, r, &r->assocs[i], o);
	if (heading(f, o, r->qos_count, ASSOC_MGR_F_QOS, "QOS Records", "QOS"))
		for (uint32_t i = 0; i < r->qos_count; i++)
			print_qos(f, r, &r->qos[i], o);
}
