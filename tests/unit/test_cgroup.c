/* test_cgroup.c - rotastepd's containment helpers that need no root: reading
 * mountinfo, choosing hierarchies (hybrid v1+v2, pure v2, v1 only), mapping
 * abstract cores to real CPUs, cpuset lists, keyed cgroup files.  The module
 * is compiled in here (its helpers are static; stepd objects are not in
 * librota.a). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "stepd/cgroup.c"
#include "stepd/devcg.c" /* cgroup.c calls it */

static void add_lines(struct cg_mounts *m, const char *const *lines)
{
	for (size_t i = 0; lines[i]; i++) {
		char *copy = xstrdup(lines[i]);
		mounts_add_line(m, copy);
		free(copy);
	}
}

/* This test machine's layout: v1 controllers beside a v2 mount. */
static const char *const hybrid[] = {
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n",
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n",
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n",
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup "
    "rw,memory\n",
    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n",
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n",
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup "
    "rw,name=systemd\n",
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
    NULL,
};

static void test_mountinfo(void **state)
{
	struct cg_mounts m = {NULL};
	const char *const odd[] = {
	    "50 23 0:40 / /mnt/my\\040cg rw - cgroup cgroup rw,cpuacct,cpu\n",
	    "garbage\n",
	    "1 2 3 4 5\n",
	    "60 23 0:41 / /x rw master:1 shared:2\n", /* no separator */
	    NULL,
	};

	add_lines(&m, hybrid);
	assert_string_equal(m.v2, "/sys/fs/cgroup/unified");
	assert_string_equal(m.v1[V1_MEMORY], "/sys/fs/cgroup/memory");
	assert_string_equal(m.v1[V1_CPUSET], "/sys/fs/cgroup/cpuset");
	assert_string_equal(m.v1[V1_FREEZER], "/sys/fs/cgroup/freezer");
	assert_string_equal(m.v1[V1_PIDS], "/sys/fs/cgroup/pids");
	mounts_release(&m);

	memset(&m, 0, sizeof(m));
	add_lines(&m, odd);
	assert_null(m.v2);
	assert_null(m.v1[V1_MEMORY]);
	mounts_release(&m);
}

static char *tmp_v2(const char *controllers)
{
	char *dir = xstrdup("/tmp/test_cgroup.XXXXXX"), *path;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/cgroup.controllers", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", controllers);
	fclose(f);
	free(path);
	return dir;
}

static void rm_v2(char *dir)
{
	char *path = xasprintf("%s/cgroup.controllers", dir);

	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

static void release_plan(struct cgroup *cg)
{
	for (int i = 0; i < cg->n; i++)
		hier_release(&cg->h[i]);
}

static void test_plan_hybrid(void **state)
{
	struct cg_mounts m = {NULL};
	struct cgroup cg = {.n = 0};
	char *v2 = tmp_v2("hugetlb");

	add_lines(&m, hybrid);
	free(m.v2);
	m.v2 = xstrdup(v2);
	hier_plan(&cg, &m, 1, 0);
	assert_int_equal(cg.n, 3);
	assert_string_equal(cg.h[0].mount, v2);
	assert_int_equal(cg.h[0].roles, CG_TRACK);
	assert_true(cg.h[0].v2);
	assert_string_equal(cg.h[1].mount, "/sys/fs/cgroup/memory");
	assert_int_equal(cg.h[1].roles, CG_MEM);
	assert_string_equal(cg.h[2].mount, "/sys/fs/cgroup/cpuset");
	assert_int_equal(cg.h[2].roles, CG_CPUSET);
	release_plan(&cg);

	/* no cores to bind: no cpuset */
	memset(&cg, 0, sizeof(cg));
	hier_plan(&cg, &m, 0, 0);
	assert_int_equal(cg.n, 2);
	release_plan(&cg);

	/* no v2 mount: the freezer tracks */
	free(m.v2);
	m.v2 = NULL;
	memset(&cg, 0, sizeof(cg));
	hier_plan(&cg, &m, 1, 0);
	assert_int_equal(cg.n, 3);
	assert_string_equal(cg.h[2].mount, "/sys/fs/cgroup/freezer");
	assert_int_equal(cg.h[2].roles, CG_TRACK);
	assert_true(cg.h[2].freezer);
	release_plan(&cg);
	mounts_release(&m);
	rm_v2(v2);
}

static void test_plan_pure_v2(void **state)
{
	struct cg_mounts m = {NULL};
	struct cgroup cg = {.n = 0};
	char *v2 = tmp_v2("cpuset cpu io memory hugetlb pids rdma misc");

	m.v2 = xstrdup(v2);
	hier_plan(&cg, &m, 1, 0);
	assert_int_equal(cg.n, 1);
	assert_int_equal(cg.h[0].roles, CG_MEM | CG_CPUSET | CG_TRACK);
	release_plan(&cg);
	mounts_release(&m);
	rm_v2(v2);
}

/* ConstrainDevices: the v1 devices controller where there is one, else v2. */
static void test_plan_devices(void **state)
{
	static const char *const devices[] = {
	    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup "
	    "rw,devices\n",
	    NULL,
	};
	struct cg_mounts m = {NULL};
	struct cgroup cg = {.n = 0};
	char *v2 = tmp_v2("hugetlb");

	add_lines(&m, hybrid);
	add_lines(&m, devices);
	free(m.v2);
	m.v2 = xstrdup(v2);
	hier_plan(&cg, &m, 1, 1);
	assert_int_equal(cg.n, 4);
	assert_string_equal(cg.h[3].mount, "/sys/fs/cgroup/devices");
	assert_int_equal(cg.h[3].roles, CG_DEV);
	assert_false(cg.h[3].v2);
	release_plan(&cg);

	/* no v1 devices controller: the v2 hierarchy (a BPF program) */
	free(m.v1[V1_DEVICES]);
	m.v1[V1_DEVICES] = NULL;
	memset(&cg, 0, sizeof(cg));
	hier_plan(&cg, &m, 1, 1);
	assert_int_equal(cg.n, 3);
	assert_int_equal(cg.h[0].roles, CG_TRACK | CG_DEV);
	release_plan(&cg);
	mounts_release(&m);
	rm_v2(v2);
}

static void set_of(cpu_set_t *set, const int *cpus, int n)
{
	CPU_ZERO(set);
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], set);
}

static void expect_map(const uint32_t *cores, uint32_t n, const int *avail, int navail,
                       const char *want)
{
	cpu_set_t a, got;
	char buf[256];

	set_of(&a, avail, navail);
	CPU_ZERO(&got);
	cpus_map(cores, n, &a, &got);
	cpus_format(&got, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_cpus_map(void **state)
{
	const int two[] = {0, 1}, odd[] = {2, 5, 7}, eight[] = {0, 1, 2, 3, 4, 5, 6, 7};
	const uint32_t c01[] = {0, 1}, c23[] = {2, 3}, c02[] = {0, 2}, c4[] = {4};
	const uint32_t c0_5[] = {0, 1, 2, 3, 4, 5}, c5[] = {5}, c24[] = {2, 4};

	expect_map(c01, 2, two, 2, "0-1");
	expect_map(c23, 2, two, 2, "0-1");
	expect_map(c4, 1, two, 2, "0");
	/* ids that collide still get as many CPUs as they can */
	expect_map(c02, 2, two, 2, "0-1");
	expect_map(c0_5, 6, two, 2, "0-1");
	/* only CPUs we may use, in their order */
	expect_map(c01, 2, odd, 3, "2,5");
	expect_map(c5, 1, odd, 3, "7");
	expect_map(c24, 2, eight, 8, "2,4");
	expect_map(c0_5, 6, eight, 8, "0-5");
	expect_map(c0_5, 0, eight, 8, "");
}

static void test_keyed(void **state)
{
	uint64_t v = 0;

	assert_int_equal(
	    keyed_value("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", "oom_kill", &v),
	    0);
	assert_int_equal(v, 3);
	assert_int_equal(keyed_value("low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\n"
	                             "oom_group_kill 0",
	                             "oom_kill", &v),
	                 0);
	assert_int_equal(v, 1);
	assert_int_equal(keyed_value("oom_kill_disable 0\nunder_oom 0", "oom_kill", &v),
	                 -1);
	assert_true(has_word("rw,cpu,cpuacct", "cpu", ','));
	assert_false(has_word("rw,cpuacct", "cpu", ','));
	assert_false(has_word("", "memory", ' '));
}

static void test_node_dir(void **state)
{
	char *a = spool_cgroup_name("node01", "/tmp/a/spool/node01");
	char *b = spool_cgroup_name("node01", "/tmp/b/spool/node01");
	char *c = spool_cgroup_name("../x", "");

	assert_int_equal(strlen(a), strlen("node01_") + 8);
	assert_memory_equal(a, "node01_", 7);
	assert_string_not_equal(a, b);
	assert_null(strchr(c, '/'));
	assert_null(strchr(c, '.'));
	free(a);
	free(b);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mountinfo),    cmocka_unit_test(test_plan_hybrid),
	    cmocka_unit_test(test_plan_pure_v2), cmocka_unit_test(test_plan_devices),
	    cmocka_unit_test(test_cpus_map),     cmocka_unit_test(test_keyed),
	    cmocka_unit_test(test_node_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
