/* test_conf_files.c - configless: the --conf-server list, the files a
 * controller serves and a node's cache of them. */
#include <errno.h>
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
#include "common/error.h"
#include "proto/codec.h"
#include "proto/conf_files.h"

static void test_servers_parse(void **state)
{
	struct rota_error err = {{0}};
	struct conf_server *s = NULL;
	int n;

	n = conf_servers_parse("control", 6817, &s, &err);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].host, "control");
	assert_int_equal(s[0].port, 6817);
	conf_servers_free(s, (size_t)n);

	n = conf_servers_parse("control:7000, 10.0.0.2 ,[fe80::1]:7001,[::1]", 6817, &s,
	                       &err);
	assert_int_equal(n, 4);
	assert_string_equal(s[0].host, "control");
	assert_int_equal(s[0].port, 7000);
	assert_string_equal(s[1].host, "10.0.0.2");
	assert_int_equal(s[1].port, 6817);
	assert_string_equal(s[2].host, "fe80::1");
	assert_int_equal(s[2].port, 7001);
	assert_string_equal(s[3].host, "::1");
	assert_int_equal(s[3].port, 6817);
	conf_servers_free(s, (size_t)n);
}

static void test_servers_bad(void **state)
{
	static const char *const bad[] = {
	    "",
	    "control:",
	    "control:0",
	    "control:65536",
	    "control:7x",
	    ":6817",
	    "a,,b",
	    "fe80::1",
	    "[::1",
	    "[::1]7000",
	    "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q",
	};
	struct rota_error err = {{0}};
	struct conf_server *s = (void *)1;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.text[0] = '\0';
		if (conf_servers_parse(bad[i], 6817, &s, &err) != -EINVAL)
			fail_msg("'%s' was taken", bad[i]);
		assert_true(err.text[0] != '\0');
		assert_ptr_equal(s, (void *)1); /* untouched on failure */
	}
}

static void test_name_ok(void **state)
{
	assert_true(conf_file_name_ok("slurm.conf"));
	assert_true(conf_file_name_ok("nodes.d/a.conf"));
	assert_false(conf_file_name_ok(""));
	assert_false(conf_file_name_ok(NULL));
	assert_false(conf_file_name_ok("/etc/passwd"));
	assert_false(conf_file_name_ok("../slurm.conf"));
	assert_false(conf_file_name_ok("a/../../b"));
	assert_false(conf_file_name_ok("./a"));
	assert_false(conf_file_name_ok("a//b"));
	assert_false(conf_file_name_ok("a/"));
	assert_false(conf_file_name_ok("a\nb"));
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *dir, const char *name)
{
	static char buf[4096];
	char path[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "r")))
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The controller's side and the node's: what Include reads and what sits
 * beside slurm.conf goes over, and the cache reads back the same. */
static void test_collect_write(void **state)
{
	char src[] = "/tmp/rota-cfsrc-XXXXXX", dst[] = "/tmp/rota-cfdst-XXXXXX";
	char conf_path[4400], cache[4200], cmd[9000];
	struct rota_error err = {{0}};
	struct conf_files files = {0};
	struct conf *conf = NULL, *back = NULL;
	struct stat st;

	assert_non_null(mkdtemp(src));
	assert_non_null(mkdtemp(dst));
	snprintf(cache, sizeof(cache), "%s/cache", dst);
	assert_int_equal(mkdir(cache, 0755), 0);
	put(cache, "stale.conf", "old\n");
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/nodes.d", src);
	assert_int_equal(system(cmd), 0);
	put(src, "slurm.conf",
	    "ClusterName=c\nSlurmctldParameters=enable_configless\n"
	    "Include nodes.d/*.conf\nPartitionName=p Nodes=n[1-2]\n");
	put(src, "nodes.d/a.conf", "NodeName=n1 CPUs=2\n");
	put(src, "nodes.d/b.conf", "NodeName=n2 CPUs=4\n");
	put(src, "gres.conf", "# none\n");
	snprintf(conf_path, sizeof(conf_path), "%s/slurm.conf", src);
	if (conf_load(conf_path, &conf, &err) < 0)
		fail_msg("%s", err.text);
	assert_true(conf_configless(conf));
	assert_int_equal(conf_files_collect(conf, &files, &err), 0);
	assert_int_equal(files.files_count, 4);
	assert_string_equal(files.files[0].name, "slurm.conf");
	assert_string_equal(files.files[1].name, "nodes.d/a.conf");
	assert_string_equal(files.files[2].name, "nodes.d/b.conf");
	assert_string_equal(files.files[3].name, "gres.conf");

	assert_int_equal(conf_files_write(cache, &files, &err), 0);
	assert_string_equal(get(cache, "nodes.d/b.conf"), "NodeName=n2 CPUs=4\n");
	assert_string_equal(get(cache, "gres.conf"), "# none\n");
	assert_null(get(cache, "stale.conf"));
	snprintf(conf_path, sizeof(conf_path), "%s/slurm.conf", cache);
	assert_int_equal(stat(conf_path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	if (conf_load(conf_path, &back, &err) < 0)
		fail_msg("%s", err.text);
	assert_int_equal(back->node_count, 2);
	assert_int_equal(conf_node_find(back, "n2")->cpus, 4);

	/* a name that would leave the cache is refused, nothing written */
	free(files.files[1].name);
	files.files[1].name = strdup("../escape.conf");
	assert_int_equal(conf_files_write(cache, &files, &err), -EPROTO);
	assert_null(get(dst, "escape.conf"));

	codec_release(&conf_files_type, &files);
	conf_destroy(conf);
	conf_destroy(back);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", src, dst);
	assert_int_equal(system(cmd), 0);
}

static void test_configless_flag(void **state)
{
	struct rota_error err = {{0}};
	struct conf *c = NULL;

	assert_int_equal(conf_load_string("SlurmctldParameters=idle_on_node_suspend,"
	                                  "ENABLE_CONFIGLESS\n",
	                                  "t", &c, &err),
	                 0);
	assert_true(conf_configless(c));
	conf_destroy(c);
	assert_int_equal(
	    conf_load_string("SlurmctldParameters=enable_configless_x\n", "t", &c, &err),
	    0);
	assert_false(conf_configless(c));
	conf_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_servers_parse),   cmocka_unit_test(test_servers_bad),
	    cmocka_unit_test(test_name_ok),         cmocka_unit_test(test_collect_write),
	    cmocka_unit_test(test_configless_flag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
