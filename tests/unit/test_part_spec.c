/* test_part_spec.c - scontrol's partition specifications read as Slurm's
 * scontrol reads them (common/part_spec.h), a partition's settings written
 * and read back (common/conf.h conf_part_format, conf_part_set), and
 * TRESBillingWeights checked (common/billing.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/billing.h"
#include "common/conf.h"
#include "common/part_spec.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "common/common.h"

/* The settings as one line ("Key=Value Key=Value"), malloc'd. */
static char *joined(char *const *kv)
{
	char *s = xstrdup("");

	for (size_t i = 0; kv[i]; i++) {
		char *t = xasprintf("%s%s%s", s, i ? " " : "", kv[i]);
		free(s);
		s = t;
	}
	return s;
}

static void expect_kv(const char *line, const char *want)
{
	struct rota_error err = {""};
	struct part_spec s;
	char **argv = strv_split(line, " ");
	char *got;

	if (part_spec_parse((int)strv_len(argv), argv, &s, &err) < 0)
		fail_msg("%s: %s", line, err.text);
	got = joined(s.kv);
	if (strcmp(got, want))
		fail_msg("%s:\n  got  %s\n  want %s", line, got, want);
	free(got);
	part_spec_release(&s);
	strv_free(argv);
}

static void expect_err(const char *line, int rc, const char *text)
{
	struct rota_error err = {""};
	struct part_spec s;
	char **argv = strv_split(line, " ");

	assert_int_equal(part_spec_parse((int)strv_len(argv), argv, &s, &err), rc);
	if (strcmp(err.text, text))
		fail_msg("%s:\n  got  %s\n  want %s", line, err.text, text);
	part_spec_release(&s);
	strv_free(argv);
}

/* Each tag by its shortest abbreviation, as Slurm's scontrol takes it. */
static void test_abbreviations(void **state)
{
	struct rota_error err = {""};
	struct part_spec s;
	char *argv[] = {"par=p1", "allowaccount=a,b", "MaxT=30", NULL};

	assert_int_equal(part_spec_parse(3, argv, &s, &err), 0);
	assert_string_equal(s.name, "p1");
	assert_int_equal(s.given, 3);
	part_spec_release(&s);

	expect_kv("H=y L=n E=yes D=NO", "Hidden=YES LLN=NO ExclusiveUser=YES "
	                                "DisableRootJobs=NO");
	expect_kv("Default=y RootOnly=y ReqResv=n",
	          "Default=YES RootOnly=YES ReqResv=NO");
	expect_kv("St=d State=dr State=I State=u",
	          "State=DOWN State=DRAIN State=INACTIVE State=UP");
	expect_kv("N=node[01-02] Nodes=", "Nodes=node[01-02] Nodes=");
	expect_kv("Pri=7", "PriorityTier=7 PriorityJobFactor=7");
	expect_kv("PriorityTier=3 PriorityJobFactor=4",
	          "PriorityTier=3 PriorityJobFactor=4");
	expect_kv("MaxNodes=UNLIMITED MaxNodes=2-4 MinNodes=2", "MaxNodes=UNLIMITED "
	                                                        "MaxNodes=2 MinNodes=2");
	expect_kv("MaxCPUsPerNode=INFINITE MaxCPUsPerNode=8",
	          "MaxCPUsPerNode=UNLIMITED MaxCPUsPerNode=8");
	expect_kv("MaxTime=90 DefaultTime=1-0 MaxTime=INFINITE",
	          "MaxTime=1:30:00 DefaultTime=1-00:00:00 MaxTime=UNLIMITED");
	expect_kv("Shared=y OverSubscribe=FORCE:2 OverS=e OverS=no",
	          "OverSubscribe=YES:4 OverSubscribe=FORCE:2 OverSubscribe=EXCLUSIVE "
	          "OverSubscribe=NO");
	expect_kv("AllowAccounts=ALL AllowAccounts= AllowQos=q1 DenyQos=none",
	          "AllowAccounts=ALL AllowAccounts=ALL AllowQos=q1 DenyQos=none");
	expect_kv("AllowGroups=g AllocNodes=", "AllowGroups=g AllocNodes=ALL");
	expect_kv("Alt=NONE Alternate=p2", "Alternate= Alternate=p2");
	expect_kv("DefMemPerCPU=100 MaxMemPerNode=200",
	          "DefMemPerCPU=100 DefMemPerNode=0 MaxMemPerNode=200 MaxMemPerCPU=0");
	expect_kv("QoS=high TresBillingWeights=CPU=1",
	          "QOS=high TRESBillingWeights=CPU=1");
	expect_kv("PreemptMode=requeue Pre=suspend,gang GraceTime=30",
	          "PreemptMode=REQUEUE PreemptMode=SUSPEND,GANG GraceTime=30");
}

/* Slurm's words for what it refuses. */
static void test_errors(void **state)
{
	expect_err("PartitionName=p State=x", -EINVAL,
	           "Invalid input: State=x\nAcceptable State values are UP, DOWN, "
	           "DRAIN and INACTIVE");
	expect_err(
	    "PartitionName=p Hidden=maybe", -EINVAL,
	    "Invalid input: Hidden=maybe\nAcceptable Hidden values are YES and NO");
	expect_err("PartitionName=p OverSubscribe=YES:x", -EINVAL,
	           "Invalid input: OverSubscribe=YES:x\nAcceptable OverSubscribe values "
	           "are NO, EXCLUSIVE, YES:#, and FORCE:#");
	expect_err("PartitionName=p MaxTime=soon", -EINVAL, "Invalid input MaxTime=soon");
	expect_err("PartitionName=p GraceTime=-1", -EINVAL,
	           "Invalid GraceTime value: -1");
	expect_err("PartitionName=p PriorityTier=70000", -EINVAL,
	           "Invalid PriorityTier value: 70000");
	expect_err("PartitionName=p Pre=sometimes", -EINVAL,
	           "Invalid input: Pre=sometimes");
	expect_err("PartitionName=p Flavour=sweet", -ENOTSUP,
	           "Update of this parameter is not supported: Flavour=sweet\n\n"
	           "Request aborted");
	/* too short to be the key: "Ma" is no abbreviation of MaxTime */
	expect_err("PartitionName=p Ma=5", -ENOTSUP,
	           "Update of this parameter is not supported: Ma=5\n\nRequest aborted");
	/* Slurm's keys Rota does not keep */
	expect_err("PartitionName=p CpuBind=cores", -ENOTSUP,
	           "Update of this parameter is not supported: CpuBind=cores\n\n"
	           "Request aborted");
	expect_err("PartitionName=p nonsense", -EINVAL,
	           "Invalid input: nonsense  Request aborted");
	expect_err("PartitionName=p MaxNodes=lots", -EINVAL,
	           "Invalid input MaxNodes=lots");
	assert_true(part_spec_is_name_tag("partition", 9));
	assert_true(part_spec_is_name_tag("PartitionName", 13));
	assert_true(part_spec_is_name_tag("par", 3));
	assert_false(part_spec_is_name_tag("pa", 2));
	assert_false(part_spec_is_name_tag("PartitionNames", 14));
}

/* A partition written by conf_part_format reads back the same, and every
 * value part_spec gives is one slurm.conf's parser takes. */
static void test_format_round_trip(void **state)
{
	struct rota_error err = {""};
	struct conf_part a, b;
	char **kv, **again;
	struct part_spec s;
	char *argv[] = {"PartitionName=p",
	                "Nodes=node[01-04]",
	                "State=DRAIN",
	                "MaxTime=1-02:03:00",
	                "DefaultTime=30",
	                "MaxNodes=3",
	                "MinNodes=2",
	                "Pri=9",
	                "OverSubscribe=FORCE:3",
	                "AllowGroups=wheel,users",
	                "AllowAccounts=a,b",
	                "DenyQos=slow",
	                "Alternate=other",
	                "Hidden=YES",
	                "RootOnly=YES",
	                "ReqResv=YES",
	                "LLN=YES",
	                "ExclusiveUser=YES",
	                "DisableRootJobs=YES",
	                "MaxCPUsPerNode=16",
	                "DefMemPerCPU=512",
	                "MaxMemPerNode=4096",
	                "GraceTime=60",
	                "PreemptMode=REQUEUE",
	                "TRESBillingWeights=CPU=1.0,Mem=0.25G",
	                "Default=YES",
	                "QOS=high"};

	assert_int_equal(part_spec_parse(sizeof(argv) / sizeof(argv[0]), argv, &s, &err),
	                 0);
	assert_int_equal(conf_part_init(&a, "p"), 0);
	for (size_t i = 0; s.kv[i]; i++) {
		char *k = xstrdup(s.kv[i]), *eq = strchr(k, '=');
		*eq = '\0';
		if (conf_part_set(&a, k, eq + 1, &err) < 0)
			fail_msg("%s: %s", s.kv[i], err.text);
		free(k);
	}
	part_spec_release(&s);
	assert_int_equal(a.state, CONF_PART_DRAIN);
	assert_int_equal(a.max_time, 26 * 60 + 3);
	assert_int_equal(a.default_time, 30);
	assert_int_equal(a.priority_tier, 9);
	assert_int_equal(a.priority_job_factor, 9);
	assert_string_equal(a.allow_accounts, "a,b");
	assert_null(a.deny_accounts);
	assert_string_equal(a.deny_qos, "slow");
	assert_true(a.hidden && a.root_only && a.req_resv && a.lln && a.exclusive_user &&
	            a.disable_root_jobs && a.is_default);
	assert_int_equal(a.max_cpus_per_node, 16);
	assert_int_equal(a.def_mem_per_cpu, 512);
	assert_int_equal(a.def_mem_per_node, 0);
	assert_int_equal(a.max_mem_per_node, 4096);
	assert_null(a.node_names); /* the caller expands Nodes= again */

	kv = conf_part_format(&a);
	assert_int_equal(conf_part_init(&b, "p"), 0);
	for (size_t i = 0; kv[i]; i++) {
		char *k = xstrdup(kv[i]), *eq = strchr(k, '=');
		*eq = '\0';
		if (conf_part_set(&b, k, eq + 1, &err) < 0)
			fail_msg("%s: %s", kv[i], err.text);
		free(k);
	}
	again = conf_part_format(&b);
	{
		char *x = joined(kv), *y = joined(again);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	strv_free(kv);
	strv_free(again);

	/* a copy is the same, and its own */
	conf_part_release(&b);
	assert_int_equal(conf_part_copy(&b, &a), 0);
	assert_string_equal(b.allow_accounts, a.allow_accounts);
	assert_ptr_not_equal(b.allow_accounts, a.allow_accounts);
	assert_string_equal(b.name, "p");

	/* a value the parser refuses leaves the field as it was */
	assert_int_equal(conf_part_set(&b, "MaxNodes", "many", &err), -EINVAL);
	assert_int_equal(b.max_nodes, 3);
	assert_int_equal(conf_part_set(&b, "PartitionName", "q", &err), -ENOENT);
	assert_int_equal(conf_part_set(&b, "CpuBind", "cores", &err), -ENOENT);
	assert_int_equal(conf_part_set(&b, "Shared", "NO", &err), 0); /* an alias */
	assert_string_equal(b.oversubscribe, "NO");
	conf_part_release(&a);
	conf_part_release(&b);
}

/* A new partition has Slurm's defaults; slurm.conf's new keys are read. */
static void test_defaults_and_conf(void **state)
{
	struct rota_error err = {""};
	struct conf_part p;
	struct conf *c = NULL;
	const struct conf_part *cp;

	assert_int_equal(conf_part_init(&p, "x"), 0);
	assert_int_equal(p.state, CONF_PART_UP);
	assert_int_equal(p.max_time, TIME_INFINITE);
	assert_int_equal(p.max_nodes, UINT32_MAX);
	assert_int_equal(p.min_nodes, 1);
	assert_int_equal(p.max_cpus_per_node, UINT32_MAX);
	assert_null(p.nodes);
	assert_null(p.allow_accounts);
	assert_int_equal(p.node_count, 0);
	conf_part_release(&p);

	assert_int_equal(conf_load_string("NodeName=n[1-2]\n"
	                                  "PartitionName=a Nodes=ALL AllowAccounts=x,y "
	                                  "DenyQos=slow Hidden=YES Alternate=b "
	                                  "MaxCPUsPerNode=4\n"
	                                  "PartitionName=b Nodes=n1 AllowQos=ALL\n"
	                                  "ReconfigFlags=KeepPartState\n",
	                                  "t.conf", &c, &err),
	                 0);
	cp = conf_part_find(c, "a");
	assert_string_equal(cp->allow_accounts, "x,y");
	assert_string_equal(cp->deny_qos, "slow");
	assert_true(cp->hidden);
	assert_string_equal(cp->alternate, "b");
	assert_int_equal(cp->max_cpus_per_node, 4);
	assert_null(conf_part_find(c, "b")->allow_qos); /* ALL */
	assert_string_equal(c->reconfig_flags, "KeepPartState");
	conf_destroy(c);
}

static void test_billing_weights(void **state)
{
	assert_true(billing_weights_valid("CPU=1.0,Mem=0.25G,Node=2"));
	assert_true(billing_weights_valid("cpu=2,GRES/gpu=4,License/matlab=1"));
	assert_false(billing_weights_valid(""));
	assert_false(billing_weights_valid("CPU"));
	assert_false(billing_weights_valid("CPU=x"));
	/* negative and unit-suffixed weights are Slurm's (its test3.5) */
	assert_true(billing_weights_valid("cPu=1,mem=-0.5G,node=.3,energy=-10"));
	assert_false(billing_weights_valid("CPU=nan"));
	assert_false(billing_weights_valid("Bogus=1"));
	assert_false(billing_weights_valid("GRES/=1"));
	assert_false(billing_weights_valid("Mem=1Q"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_abbreviations),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_format_round_trip),
	    cmocka_unit_test(test_defaults_and_conf),
	    cmocka_unit_test(test_billing_weights),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
