/* test_jobfmt.c - compressed counts, block task layout, filename patterns and
 * spool names (what rotastepd puts in the job environment and on disk). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/jobfmt.h"
#include "common/spool.h"
#include "common/spool_pids.h"
#include "common/common.h"

#define NOVAL 0xfffffffeu
#define BATCH 0xfffffffbu

static void expect_counts(const uint32_t *v, size_t n, const char *want)
{
	char *got = jobfmt_counts(v, n);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_counts(void **state)
{
	uint32_t a[] = {2, 2, 2, 1};
	uint32_t b[] = {16, 8};
	uint32_t c[] = {2, 2};
	uint32_t d[] = {1, 2, 2, 1, 1};

	expect_counts(a, 4, "2(x3),1");
	expect_counts(b, 2, "16,8");
	expect_counts(c, 2, "2(x2)");
	expect_counts(c, 1, "2");
	expect_counts(d, 5, "1,2(x2),1(x2)");
	expect_counts(NULL, 0, "");
}

static void expect_spread(uint32_t ntasks, const uint32_t *cap, size_t n,
                          const char *want)
{
	uint32_t out[16];
	char *got;

	assert_int_equal(jobfmt_spread_tasks(ntasks, cap, n, out), 0);
	got = jobfmt_counts(out, n);
	assert_string_equal(got, want);
	free(got);
}

static void test_spread(void **state)
{
	uint32_t four[] = {4, 4}, two[] = {2, 2, 2}, het[] = {1, 4}, one[] = {1, 1};
	uint32_t out[2];

	expect_spread(3, four, 2, "2,1");
	expect_spread(5, four, 2, "3,2");
	expect_spread(8, four, 2, "4(x2)");
	expect_spread(2, four, 2, "1(x2)");
	expect_spread(7, two, 3, "3,2(x2)"); /* oversubscribed: spread evenly */
	expect_spread(4, het, 2, "1,3");
	expect_spread(2, one, 2, "1(x2)");
	expect_spread(1, four, 2, "1,0");
	assert_int_equal(jobfmt_spread_tasks(1, four, 0, out), -EINVAL);
}

static void expect_name(const char *pat, const struct jobfmt_ids *ids, const char *want)
{
	char *got = NULL;

	if (jobfmt_filename(pat, ids, &got))
		fail_msg("jobfmt_filename('%s') failed", pat);
	if (strcmp(got, want))
		fail_msg("'%s' -> '%s', wanted '%s'", pat, got, want);
	free(got);
}

static void test_filename(void **state)
{
	struct jobfmt_ids batch = {.job_id = 42,
	                           .step_id = BATCH,
	                           .array_task_id = NOVAL,
	                           .job_name = "wrap",
	                           .user = "alice",
	                           .node_name = "node01"};
	struct jobfmt_ids step = {.job_id = 7,
	                          .step_id = 3,
	                          .array_job_id = 5,
	                          .array_task_id = 2,
	                          .node_index = 1,
	                          .task_id = 12,
	                          .job_name = "x",
	                          .user = "bob",
	                          .node_name = "node02"};

	expect_name("slurm-%j.out", &batch, "slurm-42.out");
	expect_name("%x_%u_%N.log", &batch, "wrap_alice_node01.log");
	expect_name("%5j", &batch, "00042");
	expect_name("%A_%a", &batch, "42_4294967294");
	expect_name("%J.%s", &batch, "42.batch");
	expect_name("100%%", &batch, "100%");
	expect_name("%n-%t", &batch, "0-0");
	expect_name("a%qb%", &batch, "a%qb%");
	expect_name("%12j", &batch, "0000000042"); /* width capped at 10 */
	expect_name("%3N", &batch, "node01");      /* width ignored for text */
	expect_name("lit\\%j", &batch, "lit%j");
	expect_name("%A_%a.%J-%s.%n.%3t", &step, "5_2.7.3-3.1.012");
	expect_name("", &step, "");
}

static void test_filename_limit(void **state)
{
	struct jobfmt_ids ids = {.job_name = NULL};
	char *pat = malloc(JOBFMT_NAME_MAX + 2), *got = NULL;

	memset(pat, 'a', JOBFMT_NAME_MAX + 1);
	pat[JOBFMT_NAME_MAX + 1] = '\0';
	assert_int_equal(jobfmt_filename(pat, &ids, &got), -ENAMETOOLONG);
	assert_null(got);
	free(pat);
}

static void test_spool(void **state)
{
	uint32_t job = 0, step = 0;
	char *s = spool_dir_expand("/var/spool/%n/x%h", "node01", "box");

	assert_string_equal(s, "/var/spool/node01/xbox");
	free(s);
	s = spool_stepd_name("node01", 12, BATCH);
	assert_string_equal(s, "node01_12.4294967291");
	assert_int_equal(spool_stepd_parse(s, "node01", &job, &step), 1);
	assert_int_equal(job, 12);
	assert_int_equal(step, BATCH);
	free(s);
	assert_int_equal(spool_stepd_parse("node01_3.0.done", "node01", &job, &step), 2);
	assert_int_equal(job, 3);
	assert_int_equal(step, 0);
	assert_int_equal(spool_stepd_parse("node01_4.batch.pids", "node01", &job, &step),
	                 0);
	assert_int_equal(spool_stepd_parse("node01_4.1.pids", "node01", &job, &step), 3);
	assert_int_equal(job, 4);
	assert_int_equal(step, 1);
	assert_int_equal(spool_stepd_parse("node01_4.1.pids.new", "node01", &job, &step),
	                 0);
	assert_int_equal(spool_stepd_parse("node01_3.0", "node0", &job, &step), 0);
	assert_int_equal(spool_stepd_parse("node01_3.0.x", "node01", &job, &step), 0);
	assert_int_equal(spool_stepd_parse("node01_3", "node01", &job, &step), 0);
	assert_int_equal(spool_stepd_parse("node01_99999999999.0", "node01", &job, &step),
	                 0);
}

/* The .pids file (spool_pids.h): written, read back; bad text refused. */
static void test_spool_pids(void **state)
{
	char dir[] = "/tmp/rota-pids-XXXXXX", *path, *bad;
	struct spool_pid_task tasks[] = {{100, 0, 4}, {101, 1, 5}};
	struct spool_pids p = {.uid = 1234,
	                       .cgroup = "/sys/fs/cgroup/rota/n_1/job_2/step_0",
	                       .tasks = tasks,
	                       .ntasks = 2},
	                  r;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/node01_2.0.pids", dir);
	assert_int_equal(spool_pids_write(path, &p), 0);
	assert_int_equal(spool_pids_read(path, &r), 0);
	assert_int_equal(r.uid, 1234);
	assert_string_equal(r.cgroup, p.cgroup);
	assert_int_equal(r.ntasks, 2);
	assert_int_equal(r.tasks[1].pid, 101);
	assert_int_equal(r.tasks[1].ltid, 1);
	assert_int_equal(r.tasks[1].gtid, 5);
	spool_pids_free(&r);
	/* no cgroup: no line; a missing uid or a stray line: not such a file */
	p.cgroup = NULL;
	assert_int_equal(spool_pids_write(path, &p), 0);
	assert_int_equal(spool_pids_read(path, &r), 0);
	assert_null(r.cgroup);
	spool_pids_free(&r);
	bad = xasprintf("%s/bad", dir);
	assert_non_null(f = fopen(bad, "w"));
	fputs("task 1 0 0\n", f);
	fclose(f);
	assert_int_equal(spool_pids_read(bad, &r), -EINVAL);
	assert_non_null(f = fopen(bad, "w"));
	fputs("uid 0\ntask -1 0 0\n", f);
	fclose(f);
	assert_int_equal(spool_pids_read(bad, &r), -EINVAL);
	assert_int_equal(spool_pids_read("/no/such/file", &r), -ENOENT);
	unlink(bad);
	unlink(path);
	rmdir(dir);
	free(bad);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counts),   cmocka_unit_test(test_spread),
	    cmocka_unit_test(test_filename), cmocka_unit_test(test_filename_limit),
	    cmocka_unit_test(test_spool),    cmocka_unit_test(test_spool_pids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
