/* sacctmgr_dump.c - `sacctmgr dump CLUSTER file=F` writes the cluster's
 * accounts, users and their associations in Slurm's flat-file format, and
 * `sacctmgr load file=F` adds what such a file names: one "Parent - 'a'" line
 * followed by the "Account - 'x':Key=Value..." and "User - 'u':..." lines
 * below it.  Loading asks the controller to add each record (records that
 * exist are left as they are). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/cli.h"
#include "cli/sacctmgr.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "common/common.h"

#define LOAD_LINE_MAX  65536
#define LOAD_LINES_MAX 200000

/* ---- dump ---- */

static const struct assoc_rec *acct_rec(const struct assoc_list_resp *all, const char *a)
{
	for (uint32_t i = 0; i < all->assocs_count; i++) {
		const struct assoc_rec *r = &all->assocs[i];
		if (!r->user && !r->partition && !strcasecmp(r->account, a))
			return r;
	}
	return NULL;
}

static void put_num(FILE *f, const char *key, uint32_t v)
{
	if (v != NO_VAL)
		fprintf(f, ":%s=%u", key, v);
}

static void put_str(FILE *f, const char *key, const char *v)
{
	if (v && *v)
		fprintf(f, ":%s='%s'", key, v);
}

/* An association's settings (Fairshare always, the limits that are set). */
static void put_limits(FILE *f, const struct assoc_rec *r)
{
	fprintf(f, ":Fairshare=%u", r->shares);
	put_num(f, "Priority", r->priority);
	put_num(f, "GrpJobs", r->grp_jobs);
	put_num(f, "GrpSubmitJobs", r->grp_submit);
	put_num(f, "GrpWall", r->grp_wall); /* minutes: no ':' in a value */
	put_str(f, "GrpTRES", r->grp_tres);
	put_str(f, "GrpTRESMins", r->grp_tres_mins);
	put_str(f, "GrpTRESRunMins", r->grp_tres_run_mins);
	put_num(f, "MaxJobs", r->max_jobs);
	put_num(f, "MaxSubmitJobs", r->max_submit);
	put_str(f, "MaxTRESPerJob", r->max_tres);
	put_str(f, "MaxTRESPerNode", r->max_tres_per_node);
	put_str(f, "MaxTRESMins", r->max_tres_mins);
	put_num(f, "MaxWallDurationPerJob", r->max_wall);
	if (r->qos && r->qos[0]) {
		fprintf(f, ":QOS='");
		for (size_t i = 0; r->qos[i]; i++)
			fprintf(f, "%s%s", i ? "," : "", r->qos[i]);
		fprintf(f, "'");
	}
	put_str(f, "DefaultQOS", r->def_qos);
}

static const char *admin_word(uint32_t level)
{
	return level == ADMIN_ADMINISTRATOR ? "Administrator"
	       : level == ADMIN_OPERATOR    ? "Operator"
	                                    : NULL;
}

/* Parent - 'a', then its users and sub-accounts; then each sub-account's. */
static void dump_children(FILE *f, const struct assoc_list_resp *all, const char *parent,
                          int depth)
{
	int any = 0;

	if (depth > 1000)
		return;
	for (uint32_t i = 0; i < all->assocs_count; i++) {
		const struct assoc_rec *r = &all->assocs[i];
		const struct assoc_user *u = NULL;
		if (!r->user || strcasecmp(r->account, parent))
			continue;
		if (!any++)
			fprintf(f, "Parent - '%s'\n", parent);
		for (uint32_t k = 0; k < all->users_count; k++)
			if (!strcasecmp(all->users[k].name, r->user))
				u = &all->users[k];
		fprintf(f, "User - '%s'", r->user);
		if (r->partition)
			put_str(f, "Partition", r->partition);
		if (u) {
			put_str(f, "DefaultAccount", u->default_account);
			put_str(f, "AdminLevel", admin_word(u->admin_level));
		}
		put_limits(f, r);
		fprintf(f, "\n");
	}
	for (uint32_t i = 0; i < all->assocs_count; i++) {
		const struct assoc_rec *r = &all->assocs[i];
		if (r->user || !r->parent || strcasecmp(r->parent, parent))
			continue;
		if (!any++)
			fprintf(f, "Parent - '%s'\n", parent);
		fprintf(f, "Account - '%s'", r->account);
		for (uint32_t k = 0; k < all->accounts_count; k++)
			if (!strcasecmp(all->accounts[k].name, r->account)) {
				put_str(f, "Description", all->accounts[k].description);
				put_str(f, "Organization", all->accounts[k].organization);
			}
		put_limits(f, r);
		fprintf(f, "\n");
	}
	for (uint32_t i = 0; i < all->assocs_count; i++) {
		const struct assoc_rec *r = &all->assocs[i];
		if (!r->user && r->parent && !strcasecmp(r->parent, parent))
			dump_children(f, all, r->account, depth + 1);
	}
}

int mgr_dump(const struct mgr_opts *o, const char *cluster, const char *path)
{
	struct assoc_list_resp *all;
	const struct assoc_rec *root;
	FILE *f;

	if (!path) {
		cli_error("No filename given: dump CLUSTER file=FILE");
		return 1;
	}
	if (!(all = mgr_fetch()))
		return 1;
	if (cluster && strcasecmp(cluster, all->cluster ? all->cluster : "")) {
		cli_error("Cluster %s does not exist (this one is %s)", cluster,
		          all->cluster);
		msg_body_free(MSG_ASSOC_LIST_RESP, all);
		return 1;
	}
	if (!(f = fopen(path, "w"))) {
		cli_error("Can't open file %s: %s", path, strerror(errno));
		msg_body_free(MSG_ASSOC_LIST_RESP, all);
		return 1;
	}
	fprintf(f,
	        "# The accounts of cluster %s, as `sacctmgr load file=...` reads "
	        "them:\n"
	        "# a Cluster line, then each Parent line followed by the "
	        "Account and User\n"
	        "# lines below that account.  Options after ':' may be left "
	        "out.\n",
	        all->cluster);
	fprintf(f, "Cluster - '%s'", all->cluster);
	if ((root = acct_rec(all, "root")))
		put_limits(f, root);
	fprintf(f, "\n");
	dump_children(f, all, "root", 0);
	if (fclose(f) != 0) {
		cli_error("Can't write file %s: %s", path, strerror(errno));
		msg_body_free(MSG_ASSOC_LIST_RESP, all);
		return 1;
	}
	if (!o->quiet)
		printf("sacctmgr: Done\n");
	msg_body_free(MSG_ASSOC_LIST_RESP, all);
	return 0;
}

/* ---- load ---- */

/* "Kind - 'name':k=v:k='v:w'..." into kind, name and the words (quotes
 * gone).  Returns 0, or -1 for a line that is none of that. */
static int line_parse(char *line, char **kind, char **name, char ***words)
{
	char *p = strstr(line, " - "), *q, *out;
	int quoted = 0;

	if (!p)
		return -1;
	*p = '\0';
	*kind = line;
	p += 3;
	if (*p != '\'' || !(q = strchr(p + 1, '\'')))
		return -1;
	*q = '\0';
	*name = p + 1;
	*words = NULL;
	p = q + 1;
	while (*p == ':') {
		p++;
		out = p;
		for (q = p; *q && (quoted || *q != ':'); q++) {
			if (*q == '\'') {
				quoted = !quoted;
				continue;
			}
			*out++ = *q;
		}
		if (quoted)
			return -1;
		if (out > p) {
			char c = *q;
			*out = '\0';
			*words = strv_append(*words, p);
			*q = c;
		}
		p = q;
	}
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return *p ? -1 : 0;
}

struct load {
	char *parent;
	size_t added;
	int failed;
};

/* Add one record; one that exists already is left ("Nothing new added"). */
static void load_add(struct load *l, enum assoc_kind kind, const char *name, char **words)
{
	struct assoc_update req = {.verb = ASSOC_ADD, .kind = kind};
	char *par =
	    xasprintf("%s=%s", kind == ASSOC_K_USER ? "Account" : "Parent", l->parent);
	char **set = strv_append(NULL, par);
	int rc;

	free(par);
	for (size_t i = 0; words && words[i]; i++)
		set = strv_append(set, words[i]);
	req.names = (char *[]){(char *)name, NULL};
	req.set = set;
	rc = mgr_send(&req, 1);
	if (rc < 0)
		l->failed = 1;
	else if (rc == 0)
		l->added++;
	strv_free(set);
}

static int load_line(struct load *l, char *line, size_t lineno, const char *cluster)
{
	char *kind, *name, **words = NULL;
	int rc = 0;

	line[strcspn(line, "\n")] = '\0';
	if (!line[strspn(line, " \t\r")] || line[strspn(line, " \t")] == '#')
		return 0;
	if (line_parse(line, &kind, &name, &words) < 0) {
		cli_error("Line %zu: not 'Kind - 'name':Key=Value...'", lineno);
		strv_free(words);
		return -1;
	}
	if (!strcasecmp(kind, "Cluster")) {
		if (strcasecmp(name, cluster)) {
			cli_error("Line %zu: the file is cluster %s's; this one is %s",
			          lineno, name, cluster);
			rc = -1;
		}
	} else if (!strcasecmp(kind, "Parent")) {
		free(l->parent);
		l->parent = xstrdup(name);
	} else if (!l->parent) {
		cli_error("Line %zu: %s before any Parent line", lineno, kind);
		rc = -1;
	} else if (!strcasecmp(kind, "Account")) {
		load_add(l, ASSOC_K_ACCOUNT, name, words);
	} else if (!strcasecmp(kind, "User")) {
		load_add(l, ASSOC_K_USER, name, words);
	} else {
		cli_error("Line %zu: unknown kind %s", lineno, kind);
		rc = -1;
	}
	strv_free(words);
	return rc;
}

int mgr_load(const struct mgr_opts *o, const char *path)
{
	struct assoc_list_resp *all;
	struct load l = {0};
	char *line = xmalloc(LOAD_LINE_MAX);
	size_t n = 0;
	FILE *f;

	if (!path) {
		cli_error("No filename given: load file=FILE");
		free(line);
		return 1;
	}
	if (!o->immediate) {
		cli_error("load makes many changes: give -i to make them");
		free(line);
		return 1;
	}
	if (!(f = fopen(path, "r"))) {
		cli_error("Can't open file %s: %s", path, strerror(errno));
		free(line);
		return 1;
	}
	if (!(all = mgr_fetch())) {
		fclose(f);
		free(line);
		return 1;
	}
	while (fgets(line, LOAD_LINE_MAX, f) && !l.failed) {
		if (++n > LOAD_LINES_MAX || (!strchr(line, '\n') && !feof(f))) {
			cli_error("Line %zu: too long, or too many lines", n);
			l.failed = 1;
			break;
		}
		if (load_line(&l, line, n, all->cluster ? all->cluster : "") < 0)
			l.failed = 1;
	}
	fclose(f);
	free(line);
	free(l.parent);
	msg_body_free(MSG_ASSOC_LIST_RESP, all);
	if (!o->quiet && !l.failed)
		printf("sacctmgr: %zu records added\n", l.added);
	return l.failed;
}
