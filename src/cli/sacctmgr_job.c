/* sacctmgr_job.c - sacctmgr modify job: a finished (or running) job's
 * record in the accounting store (rotadbd, MSG_ACCT_JOB_MODIFY) gets a new
 * DerivedExitCode, Comment, AdminComment or SystemComment, as Slurm 22.05's
 * sacctmgr does it: the words, their abbreviations, the messages and the
 * questions are Slurm's.  rotadbd checks who may change what. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cli/acct_client.h"
#include "cli/acct_time.h"
#include "cli/cli.h"
#include "cli/sacctmgr.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "common/common.h"

#define JOB_IDS_MAX 10000 /* JobID= entries */

struct job_mod {
	struct acct_job_modify req;
	int cond_set;    /* JobID, Accounts, Users, WCKeys given */
	int rec_set;     /* something to set */
	int bad;         /* an error was said */
	int none;        /* a condition no record here meets (Cluster, WCKeys) */
	int cluster_ok;  /* Cluster= names this cluster */
	int cluster_set; /* Cluster= given */
};

/* key (keylen letters) is keyword or its first min letters or more. */
static int kw(const char *key, size_t keylen, const char *keyword, size_t min)
{
	return keylen >= min && keylen <= strlen(keyword) &&
	       !strncasecmp(key, keyword, keylen);
}

/* Slurm's sacctmgr takes a value's quotes off, turns quotes inside it into
 * '`' and, for these values, lower-cases it. */
static char *value_of(const char *v)
{
	char quote = (*v == '"' || *v == '\'') ? *v++ : '\0';
	char *out = xstrdup(v);
	size_t i;

	for (i = 0; out[i]; i++) {
		if (quote && out[i] == quote)
			break;
		if (out[i] == '"' || out[i] == '\'')
			out[i] = '`';
		else
			out[i] = (char)tolower((unsigned char)out[i]);
	}
	out[i] = '\0';
	return out;
}

/* N, N_T, N+K (N.S: the job of step S); a list, commas between. */
static int add_job_ids(struct job_mod *m, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;
	int n = 0;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *p = t;
		if (!isdigit((unsigned char)*p))
			goto bad;
		while (isdigit((unsigned char)*p))
			p++;
		if ((*p == '_' || *p == '+') && isdigit((unsigned char)p[1]))
			for (p++; isdigit((unsigned char)*p); p++)
				;
		if (*p == '.')
			*p = '\0'; /* a step: its job's record */
		else if (*p)
			goto bad;
		if (strv_len(m->req.jobs) >= JOB_IDS_MAX) {
			cli_error("too many job ids (at most %d)", JOB_IDS_MAX);
			goto bad;
		}
		m->req.jobs = strv_append(m->req.jobs, t);
		n++;
	}
	free(copy);
	if (n)
		return 0;
bad:
	free(copy);
	fprintf(stderr, "Invalid job id(s) %s specified\n", list);
	return -1;
}

static int add_users(struct job_mod *m, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;
	int rc = 0;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uid_t uid;
		if (name_to_uid(t, &uid) < 0) {
			cli_error("Invalid user id: %s", t);
			rc = -1;
			break;
		}
		m->req.uids.v =
		    xrealloc(m->req.uids.v, (m->req.uids.n + 1) * sizeof(*m->req.uids.v));
		m->req.uids.v[m->req.uids.n++] = (uint32_t)uid;
	}
	free(copy);
	return rc;
}

/* One word of the condition (before set, or after where). */
static void cond_word(struct job_mod *m, const char *w)
{
	const char *eq = strchr(w, '=');
	size_t klen = eq ? (size_t)(eq - w) : strlen(w);
	const char *v = eq ? eq + 1 : "";
	const char *me = cli_conf()->cluster_name;

	if (!eq) {
		/* Slurm takes a bare word as a key whose value is missing */
	} else if (kw(w, klen, "Accounts", 1) || kw(w, klen, "Accts", 1)) {
		char *copy = xstrdup(v), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t;
		     t = strtok_r(NULL, ",", &save))
			m->req.accounts = strv_append(m->req.accounts, t);
		free(copy);
		m->cond_set = 1;
		return;
	} else if (kw(w, klen, "Cluster", 1)) {
		m->cluster_set = 1;
		if (list_has(v, me, 0))
			m->cluster_ok = 1;
		return;
	} else if (kw(w, klen, "JobID", 1)) {
		if (add_job_ids(m, v) < 0)
			m->bad = 1;
		else
			m->cond_set = 1;
		return;
	} else if (kw(w, klen, "EndTime", 1) || kw(w, klen, "StartTime", 1)) {
		time_t t = acct_time_arg(
		    toupper((unsigned char)*w) == 'E' ? "end" : "start", v, time(NULL));
		if (toupper((unsigned char)*w) == 'E')
			m->req.end = t;
		else
			m->req.start = t;
		return;
	} else if (kw(w, klen, "WCkeys", 1)) {
		m->none = 1; /* no job record here has a WCKey */
		m->cond_set = 1;
		return;
	} else if (kw(w, klen, "Users", 1)) {
		if (add_users(m, v) < 0)
			m->bad = 1;
		else
			m->cond_set = 1;
		return;
	}
	m->bad = 1;
	fprintf(stderr,
	        " Unknown condition: %s\n"
	        " Use keyword 'set' to modify value\n",
	        w);
}

/* One word after set. */
static void set_word(struct job_mod *m, const char *w)
{
	const char *eq = strchr(w, '=');
	size_t klen = eq ? (size_t)(eq - w) : strlen(w);
	struct acct_job_modify *r = &m->req;

	if (!eq) {
		m->bad = 1;
		fprintf(stderr, " Bad format on %s: End your option with an '=' sign\n",
		        w);
	} else if (kw(w, klen, "DerivedExitCode", 12) || kw(w, klen, "DerivedEC", 9)) {
		char *v = value_of(eq + 1), *end;
		long n = strtol(v, &end, 10);
		if (n == 0 && *end) {
			cli_error("Invalid value for DerivedExitCode (%s)", v);
		} else {
			r->derived_exit = n < 0 ? INFINITE32 : (uint32_t)n;
			r->set |= ACCT_MOD_DERIVED;
			m->rec_set = 1;
		}
		free(v);
	} else if (kw(w, klen, "Comment", 7) || kw(w, klen, "DerivedExitString", 12) ||
	           kw(w, klen, "DerivedES", 9)) {
		free(r->comment);
		r->comment = value_of(eq + 1);
		r->set |= ACCT_MOD_COMMENT;
		m->rec_set = 1;
	} else if (kw(w, klen, "AdminComment", 12)) {
		free(r->admin_comment);
		r->admin_comment = value_of(eq + 1);
		r->set |= ACCT_MOD_ADMIN_CMT;
		m->rec_set = 1;
	} else if (kw(w, klen, "SystemComment", 13)) {
		free(r->system_comment);
		r->system_comment = value_of(eq + 1);
		r->set |= ACCT_MOD_SYSTEM_CMT;
		m->rec_set = 1;
	} else if (kw(w, klen, "NewWCKey", 1)) {
		m->bad = 1;
		cli_error("This cluster keeps no WCKeys (TrackWCKey): a job's WCKey "
		          "can't be changed");
	} else {
		printf(" Unknown option: %s\n"
		       " Use keyword 'where' to modify condition\n",
		       w);
	}
}

/* rotadbd's answer: its words, or the jobs changed (*changed set). */
static int ask(const struct job_mod *m, int *changed)
{
	struct assoc_update_resp *resp = NULL;
	int rc = 1;

	*changed = 0;
	if (acct_job_modify(&m->req, &resp))
		return 1;
	if (resp->rc) {
		cli_error("%s", resp->text ? resp->text : slurm_strerror(resp->rc));
		fprintf(stderr, " Error with request: %s\n", slurm_strerror(resp->rc));
	} else if (!resp->changed || !resp->changed[0]) {
		printf(" Nothing modified\n");
	} else {
		printf(" Modified jobs...\n");
		for (size_t i = 0; resp->changed[i]; i++)
			printf("  %s\n", resp->changed[i]);
		*changed = 1;
		rc = 0;
	}
	msg_body_free(MSG_ACCT_JOB_MODIFY_RESP, resp);
	return rc;
}

/* The change shown, made. */
static int commit(const struct job_mod *m)
{
	struct assoc_update_resp *resp = NULL;
	int rc;

	if (acct_job_modify(&m->req, &resp))
		return 1;
	if ((rc = resp->rc) != 0) {
		cli_error("%s", resp->text ? resp->text : slurm_strerror(resp->rc));
		fprintf(stderr, " Error with request: %s\n", slurm_strerror(resp->rc));
	}
	msg_body_free(MSG_ACCT_JOB_MODIFY_RESP, resp);
	return rc ? 1 : 0;
}

static int modify(const struct mgr_opts *o, struct job_mod *m)
{
	int changed;

	if (m->bad)
		return 1;
	if (!m->rec_set) {
		fprintf(stderr, " You didn't give me anything to set\n");
		return 1;
	}
	if (!m->cond_set && !o->immediate &&
	    !mgr_confirm("You didn't set any conditions with 'WHERE'.\n"
	                 "Are you sure you want to continue?")) {
		printf("Aborted\n");
		return 0;
	}
	if (m->none || (m->cluster_set && !m->cluster_ok)) {
		printf(" Nothing modified\n");
		return 1;
	}
	if (!o->immediate)
		m->req.flags |= ACCT_MOD_F_DRY_RUN;
	if (ask(m, &changed) || o->immediate)
		return changed ? 0 : 1;
	if (!mgr_confirm("Would you like to commit changes?")) {
		printf(" Changes Discarded\n");
		return 0;
	}
	m->req.flags &= ~ACCT_MOD_F_DRY_RUN;
	return commit(m);
}

int mgr_modify_job(const struct mgr_opts *o, int argc, char **argv)
{
	struct job_mod m = {.req = {.derived_exit = NO_VAL}};
	int in_set = 0, rc;

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		if (!strchr(w, '=') && kw(w, strlen(w), "where", 5)) {
			in_set = 0;
			continue;
		}
		if (!strchr(w, '=') && kw(w, strlen(w), "set", 3)) {
			in_set = 1;
			continue;
		}
		if (in_set)
			set_word(&m, w);
		else
			cond_word(&m, w);
	}
	rc = modify(o, &m);
	codec_release(&acct_job_modify_type, &m.req);
	return rc;
}
