/* sreport_reports.c - the four reports, printed from rotadbd's sums
 * (sreport.h).  Columns, widths and banners as Slurm 22.05's sreport. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/sreport.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "common/common.h"

#define SR_DEPTH_MAX 64 /* accounts above accounts */

/* ---- cluster Utilization ---- */

enum {
	CU_ALLOC,
	CU_CLUSTER,
	CU_DOWN,
	CU_IDLE,
	CU_OVER,
	CU_PDOWN,
	CU_PLAN,
	CU_REP,
	CU_COUNT,
	CU_TRES,
	CU_ENERGY
};

/* PlannedDown before Planned: the default's "planned" is PLND Down and its
 * "res" (Reserved) is Planned, as Slurm prints them */
static const struct sr_field util_fields[] = {
    {"Allocated", 2, "Allocated", 12, CU_ALLOC, 1},
    {"Cluster", 2, "Cluster", 9, CU_CLUSTER, 0},
    {"Down", 1, "Down", 10, CU_DOWN, 1},
    {"Idle", 1, "Idle", 12, CU_IDLE, 1},
    {"Overcommitted", 1, "Over Comm", 9, CU_OVER, 1},
    {"PlannedDown", 2, "PLND Down", 10, CU_PDOWN, 1},
    {"PLNDDown", 2, "PLND Down", 10, CU_PDOWN, 1},
    {"Planned", 2, "Planned", 9, CU_PLAN, 1},
    {"Reserved", 3, "Planned", 9, CU_PLAN, 1},
    {"Reported", 3, "Reported", 12, CU_REP, 1},
    {"TresCount", 5, "TRES Count", 10, CU_COUNT, 0},
    {"CpuCount", 2, "TRES Count", 10, CU_COUNT, 0},
    {"Count", 2, "TRES Count", 10, CU_COUNT, 0},
    {"TresName", 5, "TRES Name", 14, CU_TRES, 0},
    {"Energy", 1, "Energy", 10, CU_ENERGY, 1},
};

int sr_cluster_utilization(struct sreport *s)
{
	const struct acct_report_resp *r = s->r;
	struct sr_col *cols;
	size_t n = sr_columns(s, "Cl,al,d,planned,i,res,rep", util_fields,
	                      sizeof(util_fields) / sizeof(util_fields[0]), &cols);
	uint64_t capacity = sr_reported(s), v[CU_ENERGY + 1] = {0}, used;
	char buf[128], count[32];

	/* allocated beyond the capacity (shared CPUs) is overcommitted */
	v[CU_OVER] = r->alloc_secs > capacity ? r->alloc_secs - capacity : 0;
	v[CU_ALLOC] = r->alloc_secs - v[CU_OVER];
	v[CU_DOWN] = r->down_secs;
	v[CU_PDOWN] = r->pdown_secs;
	v[CU_PLAN] = r->planned_secs;
	used = v[CU_ALLOC] + v[CU_DOWN] + v[CU_PDOWN] + v[CU_PLAN];
	v[CU_IDLE] = capacity > used ? capacity - used : 0;
	v[CU_PLAN] = used - v[CU_ALLOC] - v[CU_DOWN] - v[CU_PDOWN];
	v[CU_REP] = v[CU_ALLOC] + v[CU_DOWN] + v[CU_PDOWN] + v[CU_IDLE] + v[CU_PLAN];
	v[CU_ENERGY] = v[CU_ALLOC]; /* its width only: no energy is counted */
	for (size_t i = 0; i < n; i++)
		if (cols[i].f->usage && !cols[i].given_width)
			cols[i].pc.width = sr_usage_width(s, v[cols[i].f->id]);
	sr_banner(s, "Cluster Utilization", 0, NULL);
	sr_header(s, cols, n);
	snprintf(count, sizeof(count), "%u", r->cpus);
	for (size_t i = 0; i < n; i++) {
		int id = cols[i].f->id;
		const char *text = buf;
		if (id == CU_CLUSTER)
			text = r->cluster ? r->cluster : "";
		else if (id == CU_COUNT)
			text = count;
		else if (id == CU_TRES)
			text = "cpu";
		else if (id == CU_ENERGY)
			sr_time_str(s, 0, 0, buf, sizeof(buf));
		else if (id == CU_REP)
			sr_time_str(s, v[CU_REP], capacity, buf, sizeof(buf));
		else
			sr_time_str(s, v[id], v[CU_REP], buf, sizeof(buf));
		sr_cell(s, text, &cols[i], i + 1 == n);
	}
	pf_end_line(&s->b);
	free(cols);
	return 0;
}

/* ---- the account tree ---- */

struct acct_node {
	const char *name;
	const char *parent; /* NULL: root */
	uint64_t total;     /* its jobs' and its sub-accounts' */
};

struct user_line {
	const char *account;
	const char *user;
	uint64_t secs;
};

struct tree {
	struct acct_node *a;
	size_t na;
	struct user_line *u;
	size_t nu;
};

static struct acct_node *node_find(struct tree *t, const char *name)
{
	for (size_t i = 0; i < t->na; i++)
		if (!strcmp(t->a[i].name, name))
			return &t->a[i];
	return NULL;
}

static struct acct_node *node_get(struct tree *t, const struct sreport *s,
                                  const char *name)
{
	struct acct_node *n = node_find(t, name);

	if (n)
		return n;
	t->a = xrealloc(t->a, (t->na + 1) * sizeof(*t->a));
	t->a[t->na] = (struct acct_node){name, sr_parent(s, name), 0};
	return &t->a[t->na++];
}

static struct user_line *user_get(struct tree *t, const char *account, const char *user)
{
	for (size_t i = 0; i < t->nu; i++)
		if (!strcmp(t->u[i].account, account) && !strcmp(t->u[i].user, user))
			return &t->u[i];
	t->u = xrealloc(t->u, (t->nu + 1) * sizeof(*t->u));
	t->u[t->nu] = (struct user_line){account, user, 0};
	return &t->u[t->nu++];
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct acct_node *)x)->name,
	              ((const struct acct_node *)y)->name);
}

static int by_account_user(const void *x, const void *y)
{
	const struct user_line *a = x, *b = y;
	int d = strcmp(a->account, b->account);

	return d ? d : strcmp(a->user, b->user);
}

/* Every account (the controller's and those jobs ran in) with its total,
 * every user association with its usage. */
static void tree_build(struct tree *t, const struct sreport *s)
{
	const struct acct_report_resp *r = s->r;

	node_get(t, s, "root");
	for (uint32_t i = 0; s->tree && i < s->tree->assocs_count; i++) {
		const struct assoc_rec *a = &s->tree->assocs[i];
		if (!a->account)
			continue;
		node_get(t, s, a->account);
		if (a->user)
			user_get(t, a->account, a->user);
	}
	for (uint32_t i = 0; i < r->rows_count; i++) {
		const char *acct = r->rows[i].account ? r->rows[i].account : "";
		node_get(t, s, acct);
		user_get(t, acct, r->rows[i].user ? r->rows[i].user : "")->secs +=
		    r->rows[i].cpu_secs;
	}
	/* each account's usage counts in every account above it */
	for (size_t i = 0; i < t->nu; i++) {
		const char *name = t->u[i].account;
		for (int depth = 0; name && depth < SR_DEPTH_MAX; depth++) {
			struct acct_node *n = node_find(t, name);
			if (!n)
				break;
			n->total += t->u[i].secs;
			name = n->parent;
		}
	}
	qsort(t->a, t->na, sizeof(*t->a), by_name);
	if (t->nu) /* t->u is NULL without any */
		qsort(t->u, t->nu, sizeof(*t->u), by_account_user);
}

static void tree_release(struct tree *t)
{
	free(t->a);
	free(t->u);
}

/* ---- cluster AccountUtilizationByUser ---- */

enum { AU_ACCOUNT, AU_CLUSTER, AU_LOGIN, AU_PROPER, AU_USED, AU_ENERGY, AU_TRES };

static const struct sr_field au_fields[] = {
    {"Accounts", 2, "Account", 15, AU_ACCOUNT, 0},
    {"Cluster", 2, "Cluster", 9, AU_CLUSTER, 0},
    {"Login", 1, "Login", 9, AU_LOGIN, 0},
    {"Proper", 2, "Proper Name", 15, AU_PROPER, 0},
    {"Used", 1, "Used", 10, AU_USED, 1},
    {"Energy", 1, "Energy", 10, AU_ENERGY, 1},
    {"TresName", 5, "TRES Name", 14, AU_TRES, 0},
};

struct au_print {
	struct sreport *s;
	struct sr_col *cols;
	size_t n;
	struct tree *t;
	uint64_t total;
};

static void au_line(struct au_print *p, const char *account, const char *user,
                    uint64_t secs)
{
	char buf[128], proper[256];

	if (p->s->users && (!user || !strv_has(p->s->users, user, 0)))
		return;
	for (size_t i = 0; i < p->n; i++) {
		const char *text = "";
		switch (p->cols[i].f->id) {
		case AU_ACCOUNT:
			text = account;
			break;
		case AU_CLUSTER:
			text = p->s->r->cluster ? p->s->r->cluster : "";
			break;
		case AU_LOGIN:
			text = user ? user : "";
			break;
		case AU_PROPER:
			text = sr_proper_name(user, proper, sizeof(proper));
			break;
		case AU_USED:
			text = sr_time_str(p->s, secs, p->total, buf, sizeof(buf));
			break;
		case AU_ENERGY:
			text = sr_time_str(p->s, 0, 0, buf, sizeof(buf));
			break;
		case AU_TRES:
			text = "cpu";
			break;
		}
		sr_cell(p->s, text, &p->cols[i], i + 1 == p->n);
	}
	pf_end_line(&p->s->b);
}

/* An account's line, its users' lines, then its sub-accounts', by name. */
static void au_account(struct au_print *p, const struct acct_node *a, int shown,
                       int depth)
{
	shown = shown || !p->s->accounts || strv_has(p->s->accounts, a->name, 0);
	if (shown)
		au_line(p, a->name, NULL, a->total);
	for (size_t i = 0; shown && i < p->t->nu; i++)
		if (!strcmp(p->t->u[i].account, a->name))
			au_line(p, a->name, p->t->u[i].user, p->t->u[i].secs);
	for (size_t i = 0; depth < SR_DEPTH_MAX && i < p->t->na; i++)
		if (p->t->a[i].parent && !strcmp(p->t->a[i].parent, a->name) &&
		    &p->t->a[i] != a)
			au_account(p, &p->t->a[i], shown, depth + 1);
}

int sr_account_by_user(struct sreport *s)
{
	struct tree t = {0};
	/* percentages are of the cluster's whole time (Reported), as Slurm's */
	struct au_print p = {.s = s, .t = &t, .total = sr_reported(s)};
	const struct acct_node *root;

	p.n = sr_columns(s, "Cluster,Ac,Login,Proper,Used,Energy", au_fields,
	                 sizeof(au_fields) / sizeof(au_fields[0]), &p.cols);
	tree_build(&t, s);
	root = node_find(&t, "root");
	for (size_t i = 0; i < p.n; i++)
		if (p.cols[i].f->id == AU_USED && !p.cols[i].given_width)
			p.cols[i].pc.width = sr_usage_width(s, root->total);
		else if (p.cols[i].f->id == AU_ENERGY && !p.cols[i].given_width)
			p.cols[i].pc.width = sr_usage_width(s, 0);
	sr_banner(s, "Cluster/Account/User Utilization", 1, NULL);
	sr_header(s, p.cols, p.n);
	au_account(&p, root, 0, 0);
	tree_release(&t);
	free(p.cols);
	return 0;
}

/* ---- user TopUsage ---- */

enum { UT_ACCOUNT, UT_CLUSTER, UT_ENERGY, UT_LOGIN, UT_PROPER, UT_TRES, UT_USED };

static const struct sr_field ut_fields[] = {
    {"Accounts", 1, "Account", 15, UT_ACCOUNT, 0},
    {"Cluster", 1, "Cluster", 9, UT_CLUSTER, 0},
    {"Energy", 1, "Energy", 10, UT_ENERGY, 1},
    {"Login", 1, "Login", 9, UT_LOGIN, 0},
    {"Proper", 1, "Proper Name", 15, UT_PROPER, 0},
    {"TresName", 5, "TRES Name", 14, UT_TRES, 0},
    {"Used", 1, "Used", 10, UT_USED, 1},
};

struct top_line {
	const char *user;
	char **accounts;
	uint64_t secs;
};

static int by_usage(const void *x, const void *y)
{
	const struct top_line *a = x, *b = y;

	if (a->secs != b->secs)
		return a->secs > b->secs ? -1 : 1;
	return strcmp(a->user, b->user);
}

static int by_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* A line per user and account, or per user with Group (its accounts
 * joined), most used first. */
static size_t top_lines(const struct sreport *s, struct top_line **ret)
{
	const struct acct_report_resp *r = s->r;
	struct top_line *l = xcalloc(r->rows_count + 1, sizeof(*l));
	size_t n = 0;

	for (uint32_t i = 0; i < r->rows_count; i++) {
		const char *user = r->rows[i].user ? r->rows[i].user : "";
		const char *acct = r->rows[i].account ? r->rows[i].account : "";
		size_t k = 0;
		if ((s->users && !strv_has(s->users, user, 0)) ||
		    (s->accounts && !strv_has(s->accounts, acct, 0)))
			continue;
		while (k < n && (strcmp(l[k].user, user) ||
		                 (!s->group && strcmp(l[k].accounts[0], acct))))
			k++;
		if (k == n)
			l[n++].user = user;
		if (!strv_has(l[k].accounts, acct, 0))
			l[k].accounts = strv_append(l[k].accounts, acct);
		l[k].secs += r->rows[i].cpu_secs;
	}
	for (size_t k = 0; k < n; k++)
		qsort(l[k].accounts, strv_len(l[k].accounts), sizeof(char *), by_str);
	qsort(l, n, sizeof(*l), by_usage);
	*ret = l;
	return n;
}

int sr_user_top(struct sreport *s)
{
	struct top_line *l;
	struct sr_col *cols;
	size_t n = sr_columns(s, "Cl,L,P,A,U,Energy", ut_fields,
	                      sizeof(ut_fields) / sizeof(ut_fields[0]), &cols);
	size_t nl = top_lines(s, &l);
	char title[64], buf[128], proper[256];

	for (size_t i = 0; i < n; i++)
		if (cols[i].f->usage && !cols[i].given_width)
			cols[i].pc.width = sr_usage_width(
			    s, cols[i].f->id == UT_USED && nl ? l[0].secs : 0);
	snprintf(title, sizeof(title), "Top %u Users", s->top_count);
	sr_banner(s, title, 1, NULL);
	sr_header(s, cols, n);
	for (size_t k = 0; k < nl && k < s->top_count; k++) {
		char *accts = NULL;
		for (size_t a = 0; l[k].accounts[a]; a++) {
			char *more = xasprintf("%s%s%s", accts ? accts : "",
			                       accts ? ", " : "", l[k].accounts[a]);
			free(accts);
			accts = more;
		}
		for (size_t i = 0; i < n; i++) {
			const char *text = "";
			switch (cols[i].f->id) {
			case UT_ACCOUNT:
				text = accts;
				break;
			case UT_CLUSTER:
				text = s->r->cluster ? s->r->cluster : "";
				break;
			case UT_ENERGY:
				text = sr_time_str(s, 0, 0, buf, sizeof(buf));
				break;
			case UT_LOGIN:
				text = l[k].user;
				break;
			case UT_PROPER:
				text = sr_proper_name(l[k].user, proper, sizeof(proper));
				break;
			case UT_TRES:
				text = "cpu";
				break;
			case UT_USED:
				text = sr_time_str(s, l[k].secs, s->r->alloc_secs, buf,
				                   sizeof(buf));
				break;
			}
			sr_cell(s, text, &cols[i], i + 1 == n);
		}
		pf_end_line(&s->b);
		free(accts);
	}
	for (size_t k = 0; k < nl; k++)
		strv_free(l[k].accounts);
	free(l);
	free(cols);
	return 0;
}

/* ---- job SizesByAccount ---- */

enum { JS_ACCOUNT, JS_CLUSTER };

static const struct sr_field js_fields[] = {
    {"Account", 1, "Account", 9, JS_ACCOUNT, 0},
    {"Acct", 4, "Account", 9, JS_ACCOUNT, 0},
    {"Cluster", 2, "Cluster", 9, JS_CLUSTER, 0},
};

struct size_row {
	const char *account;
	uint64_t secs, *bin_secs;
	uint32_t jobs, *bin_jobs;
};

/* The account just under root that account is in (itself when it is one). */
static const char *top_account(const struct sreport *s, const char *account)
{
	const char *parent;

	for (int depth = 0; depth < SR_DEPTH_MAX; depth++) {
		parent = sr_parent(s, account);
		if (!parent || !strcmp(parent, "root"))
			return account;
		account = parent;
	}
	return account;
}

static struct size_row *size_row_get(struct size_row **rows, size_t *n,
                                     const char *account, uint32_t nbins)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*rows)[i].account, account))
			return &(*rows)[i];
	*rows = xrealloc(*rows, (*n + 1) * sizeof(**rows));
	(*rows)[*n] = (struct size_row){account, 0, xcalloc(nbins + 1, sizeof(uint64_t)),
	                                0, xcalloc(nbins + 1, sizeof(uint32_t))};
	return &(*rows)[(*n)++];
}

static int by_row_account(const void *x, const void *y)
{
	return strcmp(((const struct size_row *)x)->account,
	              ((const struct size_row *)y)->account);
}

static size_t size_rows(const struct sreport *s, struct size_row **ret)
{
	const struct acct_report_resp *r = s->r;
	struct size_row *rows = NULL;
	size_t n = 0;

	/* every account under root has its line, used or not */
	for (uint32_t i = 0; !s->flat_view && s->tree && i < s->tree->assocs_count; i++) {
		const struct assoc_rec *a = &s->tree->assocs[i];
		if (!a->user && a->account && a->parent && !strcmp(a->parent, "root") &&
		    (!s->accounts || strv_has(s->accounts, a->account, 0)))
			size_row_get(&rows, &n, a->account, s->nbins);
	}
	for (uint32_t i = 0; i < r->rows_count; i++) {
		const char *acct = r->rows[i].account ? r->rows[i].account : "";
		uint32_t bin = r->rows[i].bin <= s->nbins ? r->rows[i].bin : s->nbins;
		struct size_row *row;
		if (s->accounts && !strv_has(s->accounts, acct, 0))
			continue;
		row = size_row_get(&rows, &n, s->flat_view ? acct : top_account(s, acct),
		                   s->nbins);
		row->secs += r->rows[i].cpu_secs;
		row->jobs += r->rows[i].jobs;
		row->bin_secs[bin] += r->rows[i].cpu_secs;
		row->bin_jobs[bin] += r->rows[i].jobs;
	}
	if (n) /* rows is NULL without any */
		qsort(rows, n, sizeof(*rows), by_row_account);
	*ret = rows;
	return n;
}

int sr_job_sizes(struct sreport *s)
{
	struct sr_col *cols;
	size_t n = sr_columns(s, "Cl,a", js_fields,
	                      sizeof(js_fields) / sizeof(js_fields[0]), &cols);
	size_t nrows, ntitles = n + s->nbins + 2;
	struct size_row *rows;
	struct pf_col *pcs = xcalloc(ntitles, sizeof(*pcs));
	char **titles = xcalloc(s->nbins + 2, sizeof(char *)), buf[128];
	int width = s->tfmt >= SR_SECS_PER ? 20 : 13;
	uint64_t cluster_secs = 0;
	uint32_t cluster_jobs = 0;
	enum sr_time tfmt = s->tfmt;

	for (uint32_t b = 0; b <= s->nbins; b++) {
		titles[b] = b < s->nbins ? xasprintf("%u-%u CPUs", b ? s->bins[b - 1] : 0,
		                                     s->bins[b] - 1)
		                         : xasprintf(">= %u CPUs", s->bins[s->nbins - 1]);
		pcs[n + b] = (struct pf_col){titles[b], width, 0};
	}
	for (size_t i = 0; i < n; i++)
		pcs[i] = cols[i].pc;
	pcs[ntitles - 1] = (struct pf_col){"% of cluster", 12, 0};
	nrows = size_rows(s, &rows);
	for (size_t k = 0; k < nrows; k++) {
		cluster_secs += rows[k].secs;
		cluster_jobs += rows[k].jobs;
	}
	snprintf(buf, sizeof(buf), "Time reported in %s", s->tfmt_name);
	sr_banner(s, "Job Sizes", 1,
	          s->job_count ? "Units are in number of jobs ran" : buf);
	if (!s->noheader)
		pf_header(&s->b, pcs, ntitles, s->mode);
	for (size_t k = 0; k < nrows; k++) {
		for (size_t i = 0; i < n; i++)
			sr_cell(s,
			        cols[i].f->id == JS_ACCOUNT
			            ? rows[k].account
			            : (s->r->cluster ? s->r->cluster : ""),
			        &cols[i], 0);
		for (uint32_t b = 0; b <= s->nbins; b++) {
			if (s->job_count)
				snprintf(buf, sizeof(buf), "%u", rows[k].bin_jobs[b]);
			else
				sr_time_str(s, rows[k].bin_secs[b], rows[k].secs, buf,
				            sizeof(buf));
			pf_cell(&s->b, buf, &pcs[n + b], s->mode, 0);
		}
		/* the account's share of the cluster, always a percentage */
		s->tfmt = SR_PERCENT;
		if (s->job_count)
			sr_time_str(s, rows[k].jobs, cluster_jobs, buf, sizeof(buf));
		else
			sr_time_str(s, rows[k].secs, cluster_secs, buf, sizeof(buf));
		s->tfmt = tfmt;
		pf_cell(&s->b, buf, &pcs[ntitles - 1], s->mode, 1);
		pf_end_line(&s->b);
	}
	for (size_t k = 0; k < nrows; k++) {
		free(rows[k].bin_secs);
		free(rows[k].bin_jobs);
	}
	free(rows);
	for (uint32_t b = 0; b <= s->nbins; b++)
		free(titles[b]);
	free(titles);
	free(pcs);
	free(cols);
	return 0;
}
