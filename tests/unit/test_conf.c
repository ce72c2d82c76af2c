/* test_conf.c - the slurm.conf parser. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/conf.h"
#include "common/mpiparams.h"
#include "common/timefmt.h"
#include "common/common.h"

static char log_path[] = "/tmp/rota-test-conf-log-XXXXXX";
static off_t log_seen;
static char tmpdir[] = "/tmp/rota-test-conf-XXXXXX";

/* Warnings logged since the last call (caller frees). */
static char *log_new(void)
{
	FILE *fp = fopen(log_path, "re");
	char *buf;
	size_t n;

	assert_non_null(fp);
	fseeko(fp, 0, SEEK_END);
	n = (size_t)(ftello(fp) - log_seen);
	buf = calloc(1, n + 1);
	fseeko(fp, log_seen, SEEK_SET);
	assert_int_equal(fread(buf, 1, n, fp), n);
	log_seen += (off_t)n;
	fclose(fp);
	return buf;
}

static void expect_no_warnings(void)
{
	char *w = log_new();

	if (*w)
		fail_msg("unexpected log output: %s", w);
	free(w);
}

static struct conf *load_ok(const char *text)
{
	struct rota_error err = {{0}};
	struct conf *c = NULL;

	if (conf_load_string(text, "test.conf", &c, &err))
		fail_msg("conf_load_string failed: %s", err.text);
	assert_non_null(c);
	return c;
}

/* Loading text fails and the error text contains want. */
static void load_fail(const char *text, const char *want)
{
	struct rota_error err = {{0}};
	struct conf *c = (struct conf *)0x1;

	if (conf_load_string(text, "test.conf", &c, &err) != -1)
		fail_msg("accepted: %s", text);
	assert_ptr_equal(c, (struct conf *)0x1);
	if (!strstr(err.text, want))
		fail_msg("error '%s' lacks '%s'", err.text, want);
}

static const char *kv_get(const struct conf *c, const char *key)
{
	for (size_t i = 0; i < c->kv_count; i++) {
		if (!strcmp(c->kv[i].key, key))
			return c->kv[i].value;
	}
	return NULL;
}

static void write_file(const char *rel, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	fp = fopen(path, "we");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static const char tutorial[] =
    "SlurmctldHost=control\n"
    "SlurmUser=slurm\n"
    "SlurmdUser=root\n"
    "AuthType=auth/munge\n"
    "StateSaveLocation=/var/spool/slurmctld\n"
    "SlurmdSpoolDir=/var/spool/slurmd\n"
    "SchedulerType=sched/backfill\n"
    "SelectType=select/cons_tres\n"
    "SelectTypeParameters=CR_Core_Memory\n"
    "ProctrackType=proctrack/cgroup\n"
    "TaskPlugin=task/cgroup\n"
    "ReturnToService=2\n"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000 State=UNKNOWN\n"
    "PartitionName=debug Nodes=node[01-02] Default=YES "
    "MaxTime=01:00:00 State=UP\n";

static void test_tutorial(void **state)
{
	struct conf *c = load_ok(tutorial);
	const struct conf_part *pt;

	expect_no_warnings();
	assert_string_equal(c->slurmctld_host, "control");
	assert_null(c->slurmctld_addr);
	assert_string_equal(c->slurm_user, "slurm");
	assert_string_equal(c->auth_type, "auth/munge");
	assert_string_equal(c->state_save_location, "/var/spool/slurmctld");
	assert_string_equal(c->slurmd_spool_dir, "/var/spool/slurmd");
	assert_string_equal(c->select_type_parameters, "CR_Core_Memory");
	assert_string_equal(c->proctrack_type, "proctrack/cgroup");
	assert_string_equal(c->task_plugin, "task/cgroup");
	assert_int_equal(c->return_to_service, 2);
	assert_int_equal(c->node_count, 2);
	assert_string_equal(c->nodes[0].name, "node01");
	assert_string_equal(c->nodes[1].name, "node02");
	assert_string_equal(c->nodes[1].hostname, "node02");
	assert_string_equal(c->nodes[1].addr, "node02");
	assert_int_equal(c->nodes[0].port, 6818);
	assert_int_equal(c->nodes[0].cpus, 16);
	assert_int_equal(c->nodes[0].sockets, 16); /* CPUs alone: one core per socket */
	assert_int_equal(c->nodes[0].cores_per_socket, 1);
	assert_int_equal(c->nodes[0].real_memory, 64000);
	assert_int_equal(c->nodes[0].state, CONF_NODE_UNKNOWN);
	assert_int_equal(c->part_count, 1);
	pt = conf_part_find(c, "debug");
	assert_non_null(pt);
	assert_ptr_equal(conf_part_default(c), pt);
	assert_true(pt->is_default);
	assert_int_equal(pt->max_time, 60);
	assert_int_equal(pt->default_time, TIME_INFINITE);
	assert_int_equal(pt->state, CONF_PART_UP);
	assert_int_equal(pt->node_count, 2);
	assert_string_equal(pt->node_names[1], "node02");
	assert_null(pt->node_names[2]);
	assert_string_equal(pt->nodes, "node[01-02]");
	/* kv keeps global keys, canonical spelling, not node/partition lines */
	assert_string_equal(kv_get(c, "SlurmdUser"), "root");
	assert_string_equal(kv_get(c, "ReturnToService"), "2");
	assert_int_equal(c->kv_count, 12);
	assert_ptr_equal(conf_node_find(c, "node02"), &c->nodes[1]);
	assert_null(conf_node_find(c, "node03"));
	assert_null(conf_part_find(c, "batch"));
	conf_destroy(c);
}

static void test_defaults(void **state)
{
	struct conf *c = load_ok("");

	assert_string_equal(c->path, "test.conf");
	assert_string_equal(c->cluster_name, "cluster");
	assert_string_equal(c->slurmctld_host, "localhost");
	assert_int_equal(c->slurmctld_port, 6817);
	assert_int_equal(c->slurmd_port, 6818);
	assert_string_equal(c->slurm_user, "root");
	assert_string_equal(c->auth_type, "auth/munge");
	assert_null(c->auth_info);
	assert_string_equal(c->state_save_location, "/var/spool/rotactld");
	assert_string_equal(c->scheduler_type, "sched/backfill");
	assert_string_equal(c->select_type, "select/cons_tres");
	assert_string_equal(c->priority_type, "priority/basic");
	assert_int_equal(c->min_job_age, 300);
	assert_int_equal(c->slurmd_timeout, 300);
	assert_int_equal(c->slurmctld_timeout, 120);
	assert_int_equal(c->kill_wait, 30);
	assert_int_equal(c->message_timeout, 10);
	assert_int_equal(c->max_job_count, 10000);
	assert_int_equal(c->max_array_size, 1001);
	assert_int_equal(c->first_job_id, 1);
	assert_int_equal(c->max_job_id, 0x03ff0000);
	assert_int_equal(c->sched_time_slice, 30);
	assert_int_equal(c->def_mem_per_cpu, 0);
	assert_null(c->prolog);
	assert_int_equal(c->node_count, 0);
	assert_int_equal(c->part_count, 0);
	assert_int_equal(c->kv_count, 0);
	assert_null(conf_part_default(c));
	conf_destroy(c);
	conf_destroy(NULL);
}

static void test_controller(void **state)
{
	struct conf *c = load_ok("SlurmctldHost=head(10.0.0.1)\nSlurmctldHost=backup\n");

	assert_string_equal(c->slurmctld_host, "head");
	assert_string_equal(c->slurmctld_addr, "10.0.0.1");
	conf_destroy(c);
	c = load_ok("ControlMachine=old\nControlAddr=10.1.1.1\n");
	assert_string_equal(c->slurmctld_host, "old");
	assert_string_equal(c->slurmctld_addr, "10.1.1.1");
	conf_destroy(c);
	c = load_ok("ControlMachine=old\nSlurmctldHost=new\n");
	assert_string_equal(c->slurmctld_host, "new");
	assert_null(c->slurmctld_addr);
	conf_destroy(c);
	load_fail("SlurmctldHost=head(10.0.0.1\n", "test.conf:1: SlurmctldHost=");
	load_fail("SlurmctldHost=head()\n", "NAME(ADDRESS)");
	load_fail("SlurmctldHost=(x)\n", "NAME(ADDRESS)");
	load_fail("SlurmctldHost=a(b)c\n", "NAME(ADDRESS)");
	load_fail("SlurmctldHost=a(b(c))\n", "NAME(ADDRESS)");
	expect_no_warnings();
}

static void test_syntax(void **state)
{
	struct conf *c = load_ok("# a comment\n"
	                         "\n"
	                         "   SlurmUser=bob   # trailing comment\n"
	                         "slurmctldport=7000\r\n"
	                         "Prolog=/etc/pro\\#log\n"
	                         "Epilog=\"/opt/my epilog\" TaskProlog=/tp\n"
	                         "ClusterName=\"a#b\"\n"
	                         "\tKillWait=5#x\n"
	                         "MinJobAge=1\n"
	                         "MinJobAge=2\n"
	                         "AuthInfo=\n"
	                         "StateSaveLocation=\n");

	expect_no_warnings();
	assert_string_equal(c->slurm_user, "bob");
	assert_int_equal(c->slurmctld_port, 7000);
	assert_string_equal(c->prolog, "/etc/pro#log");
	assert_string_equal(c->epilog, "/opt/my epilog");
	assert_string_equal(c->task_prolog, "/tp");
	assert_string_equal(c->cluster_name, "a#b");
	assert_int_equal(c->kill_wait, 5);
	assert_int_equal(c->min_job_age, 2); /* last one wins */
	assert_null(c->auth_info);
	/* an empty value restores the default */
	assert_string_equal(c->state_save_location, "/var/spool/rotactld");
	assert_string_equal(kv_get(c, "SlurmctldPort"), "7000"); /* canonical key */
	assert_string_equal(kv_get(c, "MinJobAge"), "2");
	assert_null(kv_get(c, "slurmctldport"));
	conf_destroy(c);

	/* blanks around '=', as Slurm reads them; "Key= Other=1": Key empty */
	c = load_ok("MailDomain = blah.com\n"
	            "SlurmUser =alice KillWait= 7\n"
	            "Prolog= \"/a b\" Epilog= TaskProlog=/tp\n");
	expect_no_warnings();
	assert_string_equal(c->mail_domain, "blah.com");
	assert_string_equal(c->slurm_user, "alice");
	assert_int_equal(c->kill_wait, 7);
	assert_string_equal(c->prolog, "/a b");
	assert_null(c->epilog);
	assert_string_equal(c->task_prolog, "/tp");
	conf_destroy(c);
}

static void test_errors(void **state)
{
	load_fail("SlurmUser=a\n\nSlurmdTimeout=abc\n",
	          "test.conf:3: SlurmdTimeout=abc: expected a number");
	load_fail("ReturnToService=3\n",
	          "test.conf:1: ReturnToService=3: expected a number "
	          "from 0 to 2");
	load_fail("SlurmctldPort=65536\n", "SlurmctldPort=65536");
	load_fail("SlurmctldPort=-1\n", "SlurmctldPort=-1");
	load_fail("MaxJobCount=99999999999999999999999\n", "MaxJobCount=");
	load_fail("SlurmdTimeout=\n", "SlurmdTimeout=: expected a number");
	load_fail("DefMemPerCPU=12X\n", "test.conf:1: DefMemPerCPU=12X: expected a size");
	load_fail("SlurmUser bob\n", "expected Key=Value, found 'SlurmUser'");
	load_fail("SlurmUser=1\n=foo\n", "test.conf:2: '=' without a key");
	load_fail("Prolog=\"/a b\n", "test.conf:1: unterminated '\"'");
	load_fail("Prolog=\"/a\"b\n", "text after closing");
	load_fail("Include\n", "Include needs a file name");
	load_fail("Include a b\n", "Include takes one file name");
	expect_no_warnings();
}

static void test_limits(void **state)
{
	size_t n = 70000;
	char *text = malloc(n + 16), *p;

	memcpy(text, "SlurmUser=", 10);
	memset(text + 10, 'x', n);
	memcpy(text + 10 + n, "\n", 2);
	load_fail(text, "test.conf:1: line longer than 65536 bytes");
	/* a long value under the limit is fine */
	text[60000] = '\n';
	text[60001] = '\0';
	struct conf *c = load_ok(text);
	assert_int_equal(strlen(c->slurm_user), 60000 - 10);
	conf_destroy(c);
	/* too many pairs on one line */
	free(text);
	text = p = malloc(200 * 8 + 16);
	for (int i = 0; i < 200; i++)
		p += snprintf(p, 9, "KillW=%d ", i % 10);
	load_fail(text, "more than 128 Key=Value pairs");
	free(text);
	expect_no_warnings();
}

static void test_unknown_keys(void **state)
{
	struct conf *c =
	    load_ok("SlurmUser=a\n"
	            "FooBar=1 SlurmdTimeout=7\n"
	            "NodeName=n1 Bogus=2 CPUs=2\n"
	            "PartitionName=p Nodes=n1 Wibble=3\n"
	            "NodeSet=ns Feature=gpu\n"
	            "DownNodes=n1 State=DOWN Reason=x\n"
	            "SchedulerParameters=bf_interval=30 GresTypes=gpu MpiDefault=pmix\n"
	            "NodeName=n2 CoreSpecCount=1 PartitionName=x\n"
	            "PartitionName=q AllowAccounts=a QOS=normal\n");
	char *w = log_new();

	/* every unknown key warns with file:line, known ones do not */
	assert_non_null(strstr(w, "test.conf:2: unknown key 'FooBar' ignored"));
	assert_non_null(strstr(w, "test.conf:3: unknown key 'Bogus' ignored"));
	assert_non_null(strstr(w, "test.conf:4: unknown key 'Wibble' ignored"));
	assert_non_null(strstr(w, "test.conf:8: unknown key 'PartitionName' ignored"));
	assert_null(strstr(w, "test.conf:5"));
	assert_null(strstr(w, "test.conf:6"));
	assert_null(strstr(w, "test.conf:7"));
	assert_null(strstr(w, "test.conf:9"));
	free(w);
	assert_int_equal(c->slurmd_timeout, 7);
	assert_string_equal(kv_get(c, "FooBar"), "1");
	assert_string_equal(kv_get(c, "SchedulerParameters"), "bf_interval=30");
	assert_string_equal(kv_get(c, "GresTypes"), "gpu");
	assert_string_equal(c->gres_types, "gpu");
	assert_int_equal(c->nodes[0].cpus, 2);
	assert_int_equal(c->node_count, 2);
	assert_int_equal(c->part_count, 2);
	conf_destroy(c);
}

/* A node's Gres= must parse; a name GresTypes lacks warns with file:line. */
static void test_node_gres(void **state)
{
	struct conf *c;
	char *w;

	(void)state;
	load_fail("NodeName=a Gres=gpu:0\n",
	          "test.conf:1: Gres=gpu:0: invalid gres item");
	load_fail("NodeName=a Gres=gpu:2(S:0\n",
	          "test.conf:1: Gres=gpu:2(S:0: unbalanced");
	c = load_ok("GresTypes=gpu,nic\n"
	            "NodeName=a Gres=gpu:h100:8(S:0-1),nic:2\n"
	            "NodeName=b Gres=mps:100\n");
	w = log_new();
	assert_non_null(
	    strstr(w, "test.conf:3: Gres=mps:100: gres/mps is not in GresTypes"));
	assert_null(strstr(w, "test.conf:2"));
	free(w);
	assert_string_equal(conf_node_find(c, "a")->gres, "gpu:h100:8(S:0-1),nic:2");
	conf_destroy(c);
}

static void test_nodes(void **state)
{
	struct conf *c =
	    load_ok("SlurmdPort=7000 GresTypes=gpu\n"
	            "NodeName=a Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 "
	            "RealMemory=64G TmpDisk=1T Weight=5 Feature=gpu,fast "
	            "Gres=gpu:2 State=DRAIN Reason=\"being fixed\"\n"
	            "NodeName=b Boards=2 SocketsPerBoard=2 CoresPerSocket=4\n"
	            "NodeName=c Boards=2 Sockets=3\n"
	            "NodeName=d CPUs=8 CoresPerSocket=4 Procs=6\n"
	            "NodeName=e,f NodeAddr=10.0.0.5 State=idle Features=x\n");
	const struct conf_node *n;

	expect_no_warnings();
	n = conf_node_find(c, "a");
	assert_int_equal(n->cpus, 32);
	assert_int_equal(n->sockets, 2);
	assert_int_equal(n->cores_per_socket, 8);
	assert_int_equal(n->threads_per_core, 2);
	assert_int_equal(n->real_memory, 65536);
	assert_int_equal(n->tmp_disk, 1048576);
	assert_int_equal(n->weight, 5);
	assert_string_equal(n->features, "gpu,fast");
	assert_string_equal(n->gres, "gpu:2");
	assert_int_equal(n->state, CONF_NODE_DRAIN);
	assert_string_equal(n->reason, "being fixed");
	assert_int_equal(n->port, 7000); /* SlurmdPort */
	n = conf_node_find(c, "b");
	assert_int_equal(n->sockets, 4);
	assert_int_equal(n->cpus, 16);
	assert_int_equal(n->real_memory, 1);
	assert_int_equal(n->weight, 1);
	assert_null(n->features);
	n = conf_node_find(c, "c"); /* with Boards, Sockets is per board */
	assert_int_equal(n->sockets, 6);
	assert_int_equal(n->cpus, 6);
	n = conf_node_find(c, "d");
	assert_int_equal(n->cpus, 6);
	assert_int_equal(n->sockets, 1);
	assert_int_equal(n->cores_per_socket, 4);
	n = conf_node_find(c, "f");
	assert_string_equal(n->hostname, "f");
	assert_string_equal(n->addr, "10.0.0.5");
	assert_int_equal(n->state, CONF_NODE_IDLE);
	assert_string_equal(n->features, "x");
	conf_destroy(c);
}

static void test_node_default(void **state)
{
	struct conf *c = load_ok("NodeName=DEFAULT CPUs=4 RealMemory=1000 Port=9000 "
	                         "Features=base\n"
	                         "NodeName=n[1-2]\n"
	                         "NodeName=DEFAULT RealMemory=2000\n"
	                         "NodeName=n3 Features=other\n");

	expect_no_warnings();
	assert_int_equal(c->node_count, 3);
	assert_int_equal(c->nodes[0].cpus, 4);
	assert_int_equal(c->nodes[1].real_memory, 1000);
	assert_int_equal(c->nodes[1].port, 9000);
	assert_string_equal(c->nodes[1].features, "base");
	assert_int_equal(c->nodes[2].real_memory, 2000);
	assert_int_equal(c->nodes[2].cpus, 4);
	assert_string_equal(c->nodes[2].features, "other");
	assert_null(conf_node_find(c, "DEFAULT"));
	conf_destroy(c);
	load_fail("NodeName=DEFAULT NodeAddr=x\n", "not allowed with NodeName=DEFAULT");
}

static void test_node_ports(void **state)
{
	struct conf *c = load_ok("NodeName=node[01-04] NodeHostname=localhost "
	                         "NodeAddr=127.0.0.1 Port=[7001-7004]\n"
	                         "NodeName=x[1-3] Port=8001-8003 NodeHostname=h[1-3]\n"
	                         "NodeName=y[1-2] Port=8100,8200\n"
	                         "NodeName=z[1-2] Port=9000\n");

	expect_no_warnings();
	assert_int_equal(c->node_count, 11);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(c->nodes[i].port, 7001 + i);
		assert_string_equal(c->nodes[i].hostname, "localhost");
		assert_string_equal(c->nodes[i].addr, "127.0.0.1");
	}
	assert_int_equal(conf_node_find(c, "x3")->port, 8003);
	assert_string_equal(conf_node_find(c, "x2")->hostname, "h2");
	assert_string_equal(conf_node_find(c, "x2")->addr, "h2");
	assert_int_equal(conf_node_find(c, "y2")->port, 8200);
	assert_int_equal(conf_node_find(c, "z1")->port, 9000);
	assert_int_equal(conf_node_find(c, "z2")->port, 9000);
	conf_destroy(c);
	load_fail("NodeName=n[1-4] Port=[7001-7003]\n",
	          "test.conf:1: Port=[7001-7003] gives 3 values for 4 nodes");
	load_fail("NodeName=n[1-2] NodeHostname=h[1-3]\n", "NodeHostname=h[1-3] gives 3 "
	                                                   "values for 2 nodes");
	load_fail("NodeName=n1 Port=70000\n",
	          "test.conf:1: Port=70000: expected a number "
	          "from 1 to 65535");
	load_fail("NodeName=n1 Port=0\n", "Port=0");
	load_fail("NodeName=n[1-2] Port=[7001-7002\n", "unbalanced '['");
	load_fail("NodeName=n[1-2] NodeAddr=a,,b\n", "NodeAddr=a,,b");
}

static void test_node_errors(void **state)
{
	load_fail("NodeName=n1\nNodeName=n[0-2]\n",
	          "test.conf:2: node n1 is already defined");
	load_fail("NodeName=n1,n1\n", "node n1 is already defined");
	load_fail("NodeName=n[1-2 CPUs=2\n", "test.conf:1: NodeName=n[1-2: unbalanced");
	load_fail("NodeName=n1 CPUs=abc\n", "test.conf:1: CPUs=abc: expected a number");
	load_fail("NodeName=n1 Procs=0\n", "CPUs=0");
	load_fail("NodeName=n1 RealMemory=lots\n", "RealMemory=lots");
	load_fail("NodeName=n1 State=SLEEPY\n", "State=SLEEPY: expected UNKNOWN");
	load_fail("NodeName=n1 Sockets=2 SocketsPerBoard=2\n", "mutually exclusive");
	load_fail("NodeName=n1 NodeName=n2\n", "NodeName given twice");
	load_fail("NodeName=n1 Sockets=300 CoresPerSocket=300\n", "more than 65535");
	load_fail("NodeName=\n", "NodeName=: empty host list");
	expect_no_warnings();
}

static void test_partitions(void **state)
{
	struct conf *c =
	    load_ok("PartitionName=DEFAULT MaxTime=30 State=DOWN\n"
	            "PartitionName=early Nodes=n[1-2] Shared=FORCE:4\n"
	            "NodeName=n[1-3]\n"
	            "PartitionName=all Nodes=ALL Default=YES DefaultTime=1-0 "
	            "MaxNodes=2 MinNodes=0 PriorityTier=5 PriorityJobFactor=3 "
	            "AllowGroups=wheel,staff State=UP\n"
	            "PartitionName=empty Default=YES MaxTime=UNLIMITED "
	            "MaxNodes=UNLIMITED AllowGroups=ALL OverSubscribe=EXCLUSIVE\n");
	const struct conf_part *p;

	expect_no_warnings();
	p = conf_part_find(c, "early"); /* names a node defined later */
	assert_int_equal(p->node_count, 2);
	assert_int_equal(p->max_time, 30);
	assert_int_equal(p->state, CONF_PART_DOWN);
	assert_string_equal(p->oversubscribe, "FORCE:4");
	assert_false(p->is_default);
	assert_int_equal(p->max_nodes, UINT32_MAX);
	assert_int_equal(p->min_nodes, 1);
	assert_int_equal(p->priority_tier, 1);
	assert_null(p->allow_groups);
	p = conf_part_find(c, "all");
	assert_int_equal(p->node_count, 3);
	assert_string_equal(p->node_names[2], "n3");
	assert_false(p->is_default); /* the last Default=YES wins */
	assert_int_equal(p->default_time, 1440);
	assert_int_equal(p->max_time, 30);
	assert_int_equal(p->max_nodes, 2);
	assert_int_equal(p->min_nodes, 0);
	assert_int_equal(p->priority_tier, 5);
	assert_int_equal(p->priority_job_factor, 3);
	assert_string_equal(p->allow_groups, "wheel,staff");
	assert_string_equal(p->oversubscribe, "NO");
	assert_int_equal(p->state, CONF_PART_UP);
	p = conf_part_find(c, "empty");
	assert_int_equal(p->node_count, 0);
	assert_non_null(p->node_names);
	assert_null(p->node_names[0]);
	assert_true(p->is_default);
	assert_ptr_equal(conf_part_default(c), p);
	assert_int_equal(p->max_time, TIME_INFINITE);
	assert_null(p->allow_groups);
	conf_destroy(c);
}

static void test_partition_errors(void **state)
{
	load_fail("NodeName=node[01-08]\n"
	          "PartitionName=debug Nodes=node[01-09]\n",
	          "test.conf:2: partition debug: node node09 is not defined");
	load_fail("PartitionName=a\nPartitionName=a\n", "test.conf:2: partition a is "
	                                                "already defined");
	load_fail("PartitionName=a MaxTime=forever\n", "test.conf:1: MaxTime=forever");
	load_fail("PartitionName=a MaxNodes=lots\n", "MaxNodes=lots");
	load_fail("PartitionName=a OverSubscribe=MAYBE\n", "OverSubscribe=MAYBE");
	load_fail("PartitionName=a Shared=FORCE:\n", "OverSubscribe=FORCE:");
	load_fail("PartitionName=a State=SIDEWAYS\n", "State=SIDEWAYS");
	load_fail("PartitionName=a Default=maybe\n", "Default=maybe: expected YES or NO");
	load_fail("PartitionName=a PriorityTier=70000\n", "PriorityTier=70000");
	load_fail("PartitionName=a Nodes=n[1-\n", "partition a: Nodes=n[1-");
	load_fail("PartitionName=\n", "PartitionName is empty");
	load_fail("PartitionName=a PartitionName=b\n", "PartitionName given twice");
	expect_no_warnings();
}

static void test_include(void **state)
{
	struct rota_error err = {{0}};
	struct conf *c = NULL;
	char path[512], sub[512];

	snprintf(sub, sizeof(sub), "%s/parts.d", tmpdir);
	assert_int_equal(mkdir(sub, 0700), 0);
	write_file("slurm.conf", "ClusterName=inc\n"
	                         "Include nodes.conf\n"
	                         "include parts.d/*.conf\n"
	                         "Include \"none.d/*.conf\"\n");
	write_file("nodes.conf", "NodeName=n[1-2] CPUs=2\nSlurmUser=nodesfile\n");
	write_file("parts.d/a.conf", "PartitionName=a Nodes=n1\n");
	write_file("parts.d/b.conf", "PartitionName=b Nodes=n[1-2] Default=YES\n"
	                             "BogusKey=1\n");
	snprintf(path, sizeof(path), "%s/slurm.conf", tmpdir);
	if (conf_load(path, &c, &err))
		fail_msg("conf_load: %s", err.text);
	char *w = log_new();
	assert_non_null(strstr(w, "parts.d/b.conf:2: unknown key 'BogusKey' ignored"));
	free(w);
	assert_string_equal(c->path, path);
	assert_string_equal(c->cluster_name, "inc");
	assert_string_equal(c->slurm_user, "nodesfile");
	assert_int_equal(c->node_count, 2);
	assert_int_equal(c->part_count, 2);
	assert_string_equal(c->parts[0].name, "a"); /* glob results in order */
	assert_string_equal(conf_part_default(c)->name, "b");
	conf_destroy(c);

	/* errors inside an included file name that file and line */
	write_file("bad.conf", "SlurmUser=x\nKillWait=soon\n");
	write_file("top.conf", "Include bad.conf\n");
	snprintf(path, sizeof(path), "%s/top.conf", tmpdir);
	assert_int_equal(conf_load(path, &c, &err), -1);
	assert_non_null(strstr(err.text, "bad.conf:2: KillWait=soon"));

	/* a missing file without wildcards is an error naming the include line */
	write_file("top.conf", "\nInclude missing.conf\n");
	assert_int_equal(conf_load(path, &c, &err), -1);
	assert_non_null(strstr(err.text, "top.conf:2: Include"));
	assert_non_null(strstr(err.text, "missing.conf"));

	/* a file that includes itself stops at the depth limit */
	write_file("top.conf", "Include top.conf\n");
	assert_int_equal(conf_load(path, &c, &err), -1);
	assert_non_null(strstr(err.text, "Include nested more than 8 deep"));

	/* an include by absolute path */
	snprintf(sub, sizeof(sub), "Include %s/nodes.conf\n", tmpdir);
	write_file("top.conf", sub);
	assert_int_equal(conf_load(path, &c, &err), 0);
	assert_int_equal(c->node_count, 2);
	conf_destroy(c);
	expect_no_warnings();
}

static void test_load_errors(void **state)
{
	struct rota_error err = {{0}};
	struct conf *c = NULL;
	char path[512];

	assert_int_equal(conf_load("/nonexistent/slurm.conf", &c, &err), -1);
	assert_non_null(strstr(err.text, "cannot read /nonexistent/slurm.conf"));
	assert_int_equal(conf_load(tmpdir, &c, &err), -1);
	assert_non_null(strstr(err.text, "Is a directory"));
	assert_int_equal(conf_load(NULL, &c, &err), -1);
	snprintf(path, sizeof(path), "%s/nul.conf", tmpdir);
	FILE *fp = fopen(path, "we");
	fwrite("A=1\0B=2\n", 1, 8, fp);
	fclose(fp);
	assert_int_equal(conf_load(path, &c, &err), -1);
	assert_non_null(strstr(err.text, "NUL byte"));
	/* a missing trailing newline is fine */
	c = load_ok("SlurmUser=last");
	assert_string_equal(c->slurm_user, "last");
	conf_destroy(c);
}

static const char *dump_get(const struct conf_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(kv[i].key, key))
			return kv[i].value;
	}
	return NULL;
}

static void test_dump_kv(void **state)
{
	struct conf *c = load_ok("SlurmctldHost=head(10.0.0.1)\nSlurmdUser=root\n"
	                         "WhatIsThis=42\nDefMemPerCPU=2G\nKillWait=7\n");
	struct conf_kv *kv = NULL;
	size_t n = 0;

	free(log_new());
	assert_int_equal(conf_dump_kv(c, &kv, &n), 0);
	assert_string_equal(dump_get(kv, n, "SchedulerTimeSlice"), "30 sec");
	assert_string_equal(dump_get(kv, n, "KillWait"), "7 sec");
	assert_string_equal(dump_get(kv, n, "SlurmctldHost"), "head(10.0.0.1)");
	assert_string_equal(dump_get(kv, n, "DefMemPerCPU"), "2048");
	assert_string_equal(dump_get(kv, n, "DefMemPerNode"), "UNLIMITED");
	assert_string_equal(dump_get(kv, n, "Prolog"), "(null)");
	assert_string_equal(dump_get(kv, n, "ClusterName"), "cluster");
	assert_string_equal(dump_get(kv, n, "SlurmdUser"), "root");
	assert_string_equal(dump_get(kv, n, "WhatIsThis"), "42");
	/* each key once */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(kv[i].key, kv[j].key);
	conf_kv_free(kv, n);
	conf_kv_free(NULL, 0);
	conf_destroy(c);
}

static void test_reload_check(void **state)
{
	struct conf *a = load_ok("SlurmctldPort=7000\nKillWait=5\n");
	struct conf *b = load_ok("SlurmctldPort=7000\nKillWait=9\nPrologs=x\n");
	struct conf *d = load_ok("SlurmctldPort=7001\n");
	struct conf *e = load_ok("SlurmctldPort=7000\nSlurmctldHost=other\n");
	struct rota_error err = {{0}};

	free(log_new());
	assert_int_equal(conf_reload_check(a, b, &err), 0);
	assert_int_equal(conf_reload_check(a, d, &err), -1);
	assert_non_null(strstr(err.text, "SlurmctldPort"));
	assert_int_equal(conf_reload_check(a, e, &err), -1);
	assert_non_null(strstr(err.text, "SlurmctldHost"));
	conf_destroy(a);
	conf_destroy(b);
	conf_destroy(d);
	conf_destroy(e);
}

static void test_default_path(void **state)
{
	unsetenv("SLURM_CONF");
	unsetenv("ROTA_CONF");
	assert_string_equal(conf_default_path(), "/etc/slurm/slurm.conf");
	setenv("ROTA_CONF", "/r.conf", 1);
	assert_string_equal(conf_default_path(), "/r.conf");
	setenv("SLURM_CONF", "/s.conf", 1);
	assert_string_equal(conf_default_path(), "/s.conf");
	setenv("SLURM_CONF", "", 1);
	assert_string_equal(conf_default_path(), "/r.conf");
	unsetenv("SLURM_CONF");
	unsetenv("ROTA_CONF");
}

static void test_many_nodes(void **state)
{
	struct conf *c = load_ok("NodeName=n[00001-20000] CPUs=4\n"
	                         "NodeName=m[1-20000]\n"
	                         "PartitionName=p Nodes=n[00001-20000],m[1-20000]\n");

	assert_int_equal(c->node_count, 40000);
	assert_int_equal(c->parts[0].node_count, 40000);
	assert_string_equal(c->nodes[39999].name, "m20000");
	conf_destroy(c);
	load_fail("NodeName=a[0-40000]\nNodeName=b[0-40000]\n",
	          "test.conf:2: more than 65536 "
	          "nodes");
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* The node daemons' ping interval and the silence after which the controller
 * marks a node not responding, both from the one slurm.conf. */
/* Power saving: SuspendTime is off by default and with NONE, -1 or
 * INFINITE; the other keys' defaults are Slurm's; State=CLOUD. */
static void test_power_save(void **state)
{
	(void)state;
	static const char *const off[] = {"", "SuspendTime=NONE\n", "SuspendTime=-1\n",
	                                  "SuspendTime=INFINITE\n"};
	struct conf *c;

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		char *text = xasprintf("SlurmctldHost=c\n%sNodeName=n1 CPUs=1\n", off[i]);
		c = load_ok(text);
		assert_int_equal(c->suspend_time, UINT32_MAX);
		assert_int_equal(c->suspend_timeout, 30);
		assert_int_equal(c->resume_timeout, 60);
		assert_int_equal(c->suspend_rate, 60);
		assert_int_equal(c->resume_rate, 300);
		assert_null(c->suspend_program);
		conf_destroy(c);
		free(text);
	}
	c = load_ok("SlurmctldHost=c\nSuspendTime=600\nSuspendProgram=/bin/s\n"
	            "ResumeProgram=/bin/r\nResumeRate=0\nSuspendExcNodes=n1\n"
	            "SuspendExcParts=p\nNodeName=n1 CPUs=1\n"
	            "NodeName=n[2-3] CPUs=1 State=CLOUD\n");
	assert_int_equal(c->suspend_time, 600);
	assert_int_equal(c->resume_rate, 0);
	assert_string_equal(c->suspend_program, "/bin/s");
	assert_string_equal(c->resume_program, "/bin/r");
	assert_string_equal(c->suspend_exc_nodes, "n1");
	assert_string_equal(c->suspend_exc_parts, "p");
	assert_int_equal(conf_node_find(c, "n1")->state, CONF_NODE_UNKNOWN);
	assert_int_equal(conf_node_find(c, "n3")->state, CONF_NODE_CLOUD);
	conf_destroy(c);
	load_fail("SlurmctldHost=c\nSuspendTime=soon\nNodeName=n1\n", "SuspendTime");
}

static void test_node_ping(void **state)
{
	(void)state;
	static const struct {
		const char *keys;
		uint32_t ping, silence;
	} cases[] = {
	    {"", 10, 21},                                    /* 120 s, 300 s */
	    {"SlurmctldTimeout=6\n", 2, 5},                  /* a short one */
	    {"SlurmdTimeout=9\n", 3, 7},                     /* the shorter */
	    {"SlurmdTimeout=3\n", 1, 3},                     /* capped by it */
	    {"SlurmctldTimeout=1\nSlurmdTimeout=2\n", 1, 2}, /* at least 1 s */
	    {"SlurmdTimeout=0\n", 10, 21},                   /* 0: never DOWN */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text =
		    xasprintf("SlurmctldHost=c\n%sNodeName=n1 CPUs=1\n", cases[i].keys);
		struct conf *c = load_ok(text);

		assert_int_equal(conf_node_ping_s(c), cases[i].ping);
		assert_int_equal(conf_node_silence_s(c), cases[i].silence);
		conf_destroy(c);
		free(text);
	}
}

static int setup(void **state)
{
	int fd = mkstemp(log_path);

	if (fd < 0 || !mkdtemp(tmpdir))
		return -1;
	close(fd);
	return log_init("test_conf", LOG_WARNING, log_path);
}

static int teardown(void **state)
{
	unlink(log_path);
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* PrologFlags=Contain (or X11) gives each job its extern step. */
static void test_prolog_flags(void **state)
{
	static const struct {
		const char *line;
		int contain;
	} cases[] = {
	    {"", 0},
	    {"PrologFlags=Alloc\n", 0},
	    {"PrologFlags=Contain\n", 1},
	    {"PrologFlags=Alloc,contain,NoHold\n", 1},
	    {"PrologFlags=X11\n", 1},
	    {"PrologFlags=Containment\n", 0},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = NULL;
		struct conf *c;
		if (asprintf(&text, "SlurmctldHost=h\n%sNodeName=n1\n", cases[i].line) <
		    0)
			fail();
		c = load_ok(text);
		assert_int_equal(conf_prolog_contain(c), cases[i].contain);
		conf_destroy(c);
		free(text);
	}
}

/* MpiParams=ports=MIN-MAX: the range, and what is refused. */
static void test_mpi_params(void **state)
{
	struct rota_error err = {""};
	uint32_t min = 0, max = 0;
	struct conf *c;

	(void)state;
	c = load_ok("SlurmctldHost=h\nMpiParams=ports=12000-12999\nNodeName=n1\n");
	assert_int_equal(mpi_params_ports(c->mpi_params, &min, &max, &err), 1);
	assert_int_equal(min, 12000);
	assert_int_equal(max, 12999);
	conf_destroy(c);
	assert_int_equal(mpi_params_ports(NULL, &min, &max, &err), 0);
	load_fail("SlurmctldHost=h\nMpiParams=ports=13000-12000\nNodeName=n1\n",
	          "ports must be MIN-MAX");
	load_fail("SlurmctldHost=h\nMpiParams=ports=0-10\nNodeName=n1\n",
	          "ports must be MIN-MAX");
	load_fail("SlurmctldHost=h\nMpiParams=ports=1-70000\nNodeName=n1\n",
	          "ports must be MIN-MAX");
	c = load_ok("SlurmctldHost=h\nMpiParams=other=1,ports=5-6\nNodeName=n1\n");
	assert_int_equal(mpi_params_ports(c->mpi_params, &min, &max, &err), 1);
	assert_int_equal(min, 5);
	assert_int_equal(max, 6);
	conf_destroy(c);
}

/* What `scontrol write config` may write back as Key=Value. */
static void test_global_value_ok(void **state)
{
	(void)state;
	assert_int_equal(conf_global_value_ok("KillWait", "5"), 1);
	assert_int_equal(conf_global_value_ok("killwait", "5"), 1);
	assert_int_equal(conf_global_value_ok("KillWait", "30"), 2); /* the default */
	assert_int_equal(conf_global_value_ok("KillWait", "x"), 0);
	assert_int_equal(conf_global_value_ok("MaxDBDMsgs", "0"), 2);
	assert_int_equal(conf_global_value_ok("DefMemPerCPU", "UNLIMITED"), 0);
	assert_int_equal(conf_global_value_ok("SlurmctldHost", "vm(127.0.0.1)"), 1);
	assert_int_equal(conf_global_value_ok("SLURM_VERSION", "22.05.8"), 0);
	assert_int_equal(conf_global_value_ok("NodeName", "n1"), 0);
	assert_int_equal(conf_global_value_ok(NULL, "1"), 0);
	assert_int_equal(conf_global_value_ok("KillWait", NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_global_value_ok),
	    cmocka_unit_test(test_tutorial),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_controller),
	    cmocka_unit_test(test_syntax),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_unknown_keys),
	    cmocka_unit_test(test_nodes),
	    cmocka_unit_test(test_node_gres),
	    cmocka_unit_test(test_node_default),
	    cmocka_unit_test(test_node_ports),
	    cmocka_unit_test(test_node_errors),
	    cmocka_unit_test(test_partitions),
	    cmocka_unit_test(test_partition_errors),
	    cmocka_unit_test(test_include),
	    cmocka_unit_test(test_load_errors),
	    cmocka_unit_test(test_dump_kv),
	    cmocka_unit_test(test_reload_check),
	    cmocka_unit_test(test_default_path),
	    cmocka_unit_test(test_many_nodes),
	    cmocka_unit_test(test_node_ping),
	    cmocka_unit_test(test_power_save),
	    cmocka_unit_test(test_prolog_flags),
	    cmocka_unit_test(test_mpi_params),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
