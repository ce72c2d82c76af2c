/* test_assoc_mgr_fmt - scontrol show assoc_mgr's text (src/proto/assoc_mgr_fmt.c):
 * TRES lines with and without what is used, an association and a QOS as
 * blocks and as one line (-o), and what a kind asked for without records
 * says. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proto/assoc_mgr_fmt.h"
#include "proto/messages.h"

static char *names[] = {"cpu", "mem", "node", "gres/gpu", NULL};

/* What f wrote (caller frees). */
typedef void (*print_f)(FILE *f, void *arg);
static char *text(print_f fn, void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

static struct tres_use limits[4] = {{.limit = 3, .used = 1},
                                    {.limit = NO_VAL64, .used = 500},
                                    {.limit = NO_VAL64},
                                    {.limit = 2}};

static void tres_used(FILE *f, void *arg)
{
	assoc_mgr_tres(f, "GrpTRES", names, arg, 4, 1);
}

static void tres_bare(FILE *f, void *arg)
{
	assoc_mgr_tres(f, "MaxTRESPJ", names, arg, 4, 0);
}

static void test_tres_lines(void **state)
{
	struct tres_use none[4] = {
	    {NO_VAL64, 0}, {NO_VAL64, 0}, {NO_VAL64, 0}, {NO_VAL64, 0}};
	char *s;

	(void)state;
	s = text(tres_used, limits);
	assert_string_equal(s, "GrpTRES=cpu=3(1),mem=N(500),node=N(0),gres/gpu=2(0)");
	free(s);
	s = text(tres_bare, limits);
	assert_string_equal(s, "MaxTRESPJ=cpu=3,gres/gpu=2");
	free(s);
	s = text(tres_bare, none);
	assert_string_equal(s, "MaxTRESPJ=");
	free(s);
}

static uint32_t uid_of(const char *user, void *arg)
{
	(void)arg;
	return strcmp(user, "bob") ? NO_VAL : 1001;
}

struct case_ {
	struct assoc_mgr_resp *r;
	struct assoc_mgr_fmt o;
};

static void print_case(FILE *f, void *arg)
{
	struct case_ *c = arg;
	assoc_mgr_print(f, c->r, &c->o);
}

static struct tres_use grp[4] = {{3, 1}, {NO_VAL64, 500}, {NO_VAL64, 1}, {NO_VAL64, 0}};
static struct tres_use nolim[4] = {
    {NO_VAL64, 0}, {NO_VAL64, 0}, {NO_VAL64, 0}, {NO_VAL64, 0}};
static struct tres_use maxpj[4] = {{6, 0}, {NO_VAL64, 0}, {NO_VAL64, 0}, {NO_VAL64, 0}};

static void assoc_init(struct assoc_mgr_assoc *a)
{
	memset(a, 0, sizeof(*a));
	a->id = 4;
	a->account = "lab";
	a->user = "bob";
	a->priority = 9;
	a->lft = 5;
	a->is_def = 1;
	a->shares_raw = 1;
	a->shares_norm = 500000;
	a->level_shares = 2;
	a->fs_factor = 750000;
	a->usage_raw = 1234;
	a->usage_norm = 250000;
	a->usage_efctv = 1000000;
	a->grp_jobs = NO_VAL;
	a->used_jobs = 1;
	a->grp_jobs_accrue = NO_VAL;
	a->accrue = 1;
	a->grp_submit = NO_VAL;
	a->used_submit = 3;
	a->grp_wall = 60;
	a->used_wall = 90;
	a->grp_tres = grp;
	a->grp_tres_count = 4;
	a->grp_tres_mins = nolim;
	a->grp_tres_mins_count = 4;
	a->grp_tres_run_mins = nolim;
	a->grp_tres_run_mins_count = 4;
	a->max_jobs = 2;
	a->max_jobs_accrue = NO_VAL;
	a->max_submit = NO_VAL;
	a->max_wall = 10;
	a->max_tres = maxpj;
	a->max_tres_count = 4;
	a->max_tres_pn = nolim;
	a->max_tres_pn_count = 4;
	a->max_tres_mins = nolim;
	a->max_tres_mins_count = 4;
	a->min_prio_thresh = NO_VAL;
}

static void test_association_block_and_line(void **state)
{
	struct assoc_mgr_assoc a;
	struct assoc_mgr_resp r = {
	    .cluster = "c", .tres = names, .assocs = &a, .assocs_count = 1};
	struct case_ c = {&r, {.flags = ASSOC_MGR_F_ASSOC, .uid_of = uid_of}};
	const char *runmins = "cpu=N(0),mem=N(0),node=N(0),gres/gpu=N(0)";
	char want[4096], *s;

	(void)state;
	assoc_init(&a);
	s = text(print_case, &c);
	snprintf(
	    want, sizeof(want),
	    "Current Association Manager state\n"
	    "\nAssociation Records\n\n"
	    "ClusterName=c Account=lab UserName=bob(1001) Partition= Priority=9 ID=4\n"
	    "    SharesRaw/Norm/Level/Factor=1/0.50/2/0.75\n"
	    "    UsageRaw/Norm/Efctv=12.34/0.25/1.00\n"
	    "    ParentAccount= Lft=5 DefAssoc=Yes\n"
	    "    GrpJobs=N(1) GrpJobsAccrue=N(1)\n"
	    "    GrpSubmitJobs=N(3) GrpWall=60(1.50)\n"
	    "    GrpTRES=cpu=3(1),mem=N(500),node=N(1),gres/gpu=N(0)\n"
	    "    GrpTRESMins=%s\n"
	    "    GrpTRESRunMins=%s\n"
	    "    MaxJobs=2(1) MaxJobsAccrue= MaxSubmitJobs= MaxWallPJ=10\n"
	    "    MaxTRESPJ=cpu=6\n"
	    "    MaxTRESPN=\n"
	    "    MaxTRESMinsPJ=\n"
	    "    MinPrioThresh=\n",
	    runmins, runmins);
	assert_string_equal(s, want);
	free(s);
	/* -o: the record on one line, the headings without blank lines; an
	 * account's: no user, its parent, level NO_VAL shown as 1 */
	a.user = NULL;
	a.parent = "root";
	a.parent_id = 1;
	a.is_def = 0;
	a.level_shares = NO_VAL;
	a.grp_wall = NO_VAL;
	a.max_jobs = NO_VAL;
	c.o.oneliner = 1;
	s = text(print_case, &c);
	snprintf(want, sizeof(want),
	         "Current Association Manager state\n"
	         "Association Records\n"
	         "ClusterName=c Account=lab UserName= Partition= Priority=9 ID=4 "
	         "SharesRaw/Norm/Level/Factor=1/0.50/1/0.75 "
	         "UsageRaw/Norm/Efctv=12.34/0.25/1.00 "
	         "ParentAccount=root(1) Lft=5 DefAssoc=No "
	         "GrpJobs=N(1) GrpJobsAccrue=N(1) "
	         "GrpSubmitJobs=N(3) GrpWall=N(1.50) "
	         "GrpTRES=cpu=3(1),mem=N(500),node=N(1),gres/gpu=N(0) "
	         "GrpTRESMins=%s GrpTRESRunMins=%s "
	         "MaxJobs= MaxJobsAccrue= MaxSubmitJobs= MaxWallPJ=10 "
	         "MaxTRESPJ=cpu=6 MaxTRESPN= MaxTRESMinsPJ= MinPrioThresh=\n",
	         runmins, runmins);
	assert_string_equal(s, want);
	free(s);
}

static void test_qos_and_empty_kinds(void **state)
{
	struct tres_use used[4] = {
	    {NO_VAL64, 1}, {NO_VAL64, 100}, {NO_VAL64, 1}, {NO_VAL64, 0}};
	struct qos_used acct = {
	    .account = "lab", .jobs = 1, .submit = 2, .tres = used, .tres_count = 4};
	struct qos_used user = {
	    .uid = 1001, .jobs = 1, .submit = 2, .tres = used, .tres_count = 4};
	struct assoc_mgr_qos q = {.id = 2,
	                          .name = "hi",
	                          .usage_raw = 1500000,
	                          .grp_jobs = 4,
	                          .used_jobs = 1,
	                          .grp_jobs_accrue = NO_VAL,
	                          .grp_submit = NO_VAL,
	                          .used_submit = 2,
	                          .grp_wall = NO_VAL,
	                          .grp_tres = used,
	                          .grp_tres_count = 4,
	                          .grp_tres_mins = nolim,
	                          .grp_tres_mins_count = 4,
	                          .grp_tres_run_mins = nolim,
	                          .grp_tres_run_mins_count = 4,
	                          .max_wall = NO_VAL,
	                          .max_tres = maxpj,
	                          .max_tres_count = 4,
	                          .min_prio_thresh = NO_VAL,
	                          .preempt_mode = "REQUEUE",
	                          .priority = NO_VAL,
	                          .max_jobs_pa = NO_VAL,
	                          .max_jobs_accrue_pa = NO_VAL,
	                          .max_submit_pa = 5,
	                          .accounts = &acct,
	                          .accounts_count = 1,
	                          .max_jobs_pu = 3,
	                          .max_jobs_accrue_pu = NO_VAL,
	                          .max_submit_pu = NO_VAL,
	                          .users = &user,
	                          .users_count = 1};
	struct assoc_mgr_resp r = {
	    .cluster = "c", .tres = names, .qos = &q, .qos_count = 1};
	struct case_ c = {&r, {.flags = ASSOC_MGR_F_USERS | ASSOC_MGR_F_QOS}};
	const char *u = "cpu=N(1),mem=N(100),node=N(1),gres/gpu=N(0)";
	const char *z = "cpu=N(0),mem=N(0),node=N(0),gres/gpu=N(0)";
	char want[4096], *s;

	(void)state;
	s = text(print_case, &c);
	snprintf(
	    want, sizeof(want),
	    "Current Association Manager state\n"
	    "\nNo users currently cached in Slurm.\n\n"
	    "\nQOS Records\n\n"
	    "QOS=hi(2)\n"
	    "    UsageRaw=1.500000\n"
	    "    GrpJobs=4(1) GrpJobsAccrue=N(0) GrpSubmitJobs=N(2) GrpWall=N(0.00)\n"
	    "    GrpTRES=%s\n"
	    "    GrpTRESMins=%s\n"
	    "    GrpTRESRunMins=%s\n"
	    "    MaxWallPJ=\n"
	    "    MaxTRESPJ=cpu=6\n"
	    "    MaxTRESPN=\n"
	    "    MaxTRESMinsPJ=\n"
	    "    MinPrioThresh= \n"
	    "    MinTRESPJ=\n"
	    "    PreemptMode=REQUEUE\n"
	    "    Priority=NONE\n"
	    "    Account Limits\n"
	    "      lab\n"
	    "        MaxJobsPA=N(1) MaxJobsAccruePA=N(0) MaxSubmitJobsPA=5(2)\n"
	    "        MaxTRESPA=%s\n"
	    "    User Limits\n"
	    "      1001\n"
	    "        MaxJobsPU=3(1) MaxJobsAccruePU=N(0) MaxSubmitJobsPU=N(2)\n"
	    "        MaxTRESPU=%s\n",
	    u, z, z, u, u);
	assert_string_equal(s, want);
	free(s);
	/* -o; no limits of accounts or users; associations not asked for: no word */
	q.accounts_count = q.users_count = 0;
	q.priority = 0;
	c.o.oneliner = 1;
	s = text(print_case, &c);
	snprintf(want, sizeof(want),
	         "Current Association Manager state\n"
	         "No users currently cached in Slurm.\n"
	         "QOS Records\n"
	         "QOS=hi(2) UsageRaw=1.500000 GrpJobs=4(1) GrpJobsAccrue=N(0) "
	         "GrpSubmitJobs=N(2) GrpWall=N(0.00) GrpTRES=%s GrpTRESMins=%s "
	         "GrpTRESRunMins=%s MaxWallPJ= MaxTRESPJ=cpu=6 MaxTRESPN= MaxTRESMinsPJ= "
	         "MinPrioThresh=  MinTRESPJ= PreemptMode=REQUEUE Priority=0 "
	         "Account Limits=No Accounts User Limits=No Users\n",
	         u, z, z);
	assert_string_equal(s, want);
	free(s);
	/* with accounts and users, -o puts each in braces */
	q.accounts_count = q.users_count = 1;
	s = text(print_case, &c);
	assert_non_null(
	    strstr(s, " Account Limits= lab={MaxJobsPA=N(1) MaxJobsAccruePA=N(0) "
	              "MaxSubmitJobsPA=5(2) MaxTRESPA="));
	assert_non_null(strstr(s, ",gres/gpu=N(0)} User Limits= 1001={MaxJobsPU=3(1) "));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tres_lines),
	    cmocka_unit_test(test_association_block_and_line),
	    cmocka_unit_test(test_qos_and_empty_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
