/* test_sstat_fields.c - sstat's aggregation of the nodes' answers and each
 * field's text (src/cli/sstat_fields.c, compiled in). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "cli/sstat_fields.c"

static const char *val(const struct sstat_row *row, const char *name)
{
	static char buf[512];
	const struct sstat_field *f = sstat_field_find(name);

	assert_non_null(f);
	return sstat_value(f->id, row, buf, sizeof(buf));
}

/* Two nodes: node01 runs tasks 0-1 (200 MiB peak, 100 MiB now, 6 s of CPU),
 * node02 task 2 (150 MiB peak and now, 1 s of CPU). */
static void two_nodes(struct step_stat *ss, struct node_stat ns[2])
{
	memset(ns, 0, 2 * sizeof(*ns));
	ns[0] = (struct node_stat){.node_name = "node01",
	                           .ntasks = 2,
	                           .gtid_base = 0,
	                           .rss_kib = 100 << 10,
	                           .max_rss_kib = 200 << 10,
	                           .vsize_kib = 300 << 10,
	                           .max_vsize_kib = 400 << 10,
	                           .user_usec = 5000000,
	                           .sys_usec = 1000000,
	                           .read_bytes = 4096,
	                           .write_bytes = 1};
	ns[1] = (struct node_stat){.node_name = "node02",
	                           .ntasks = 1,
	                           .gtid_base = 2,
	                           .rss_kib = 150 << 10,
	                           .max_rss_kib = 150 << 10,
	                           .vsize_kib = 160 << 10,
	                           .max_vsize_kib = 170 << 10,
	                           .user_usec = 1000000};
	*ss = (struct step_stat){.job_id = 7,
	                         .step_id = 0,
	                         .nodes = "node[01-02]",
	                         .node_stats = ns,
	                         .node_stats_count = 2};
}

static void test_aggregate(void **state)
{
	struct step_stat ss;
	struct node_stat ns[2];
	struct sstat_row row;

	two_nodes(&ss, ns);
	sstat_row_init(&row, &ss, 0, 2, ACCTG_CONVERT_EXACT);
	assert_string_equal(val(&row, "JobID"), "7.0");
	assert_string_equal(val(&row, "NTasks"), "3");
	/* per task: node01's 200M peak is 100M for each of its two tasks */
	assert_string_equal(val(&row, "MaxRSS"), "150M");
	assert_string_equal(val(&row, "MaxRSSNode"), "node02");
	assert_string_equal(val(&row, "MaxRSSTask"), "2");
	/* now: (100M + 150M) / 3 tasks, in bytes where not exact */
	assert_string_equal(val(&row, "AveRSS"), "87381333");
	assert_string_equal(val(&row, "MaxVMSize"), "200M");
	assert_string_equal(val(&row, "MaxVMSizeNode"), "node01");
	assert_string_equal(val(&row, "MaxVMSizeTask"), "0");
	/* 3 s a task on node01, 1 s on node02 */
	assert_string_equal(val(&row, "MinCPU"), "00:00:01");
	assert_string_equal(val(&row, "MinCPUNode"), "node02");
	assert_string_equal(val(&row, "MinCPUTask"), "2");
	assert_string_equal(val(&row, "AveCPU"), "00:00:02");
	assert_string_equal(val(&row, "MaxDiskRead"), "2K");
	assert_string_equal(val(&row, "MaxDiskReadNode"), "node01");
	assert_string_equal(val(&row, "MaxDiskWrite"), "0");
	assert_string_equal(val(&row, "Nodelist"), "node[01-02]");
	assert_string_equal(val(&row, "ReqCPUFreqGov"), "Unknown");
	assert_string_equal(val(&row, "MaxPages"), "0");
	assert_string_equal(
	    val(&row, "TRESUsageInMax"),
	    "cpu=00:00:03,energy=0,fs/disk=2K,mem=150M,pages=0,vmem=200M");
	assert_string_equal(val(&row, "TRESUsageInMaxNode"),
	                    "cpu=node01,energy=node01,fs/disk=node01,mem=node02,"
	                    "pages=node01,vmem=node01");
	assert_string_equal(val(&row, "TRESUsageInMinTask"),
	                    "cpu=2,fs/disk=2,mem=0,pages=0,vmem=2");
	assert_string_equal(
	    val(&row, "TRESUsageInTot"),
	    "cpu=00:00:07,energy=0,fs/disk=4K,mem=250M,pages=0,vmem=460M");
	assert_string_equal(val(&row, "TRESUsageOutMaxTask"), "fs/disk=0");
	/* one node alone (sstat -i) */
	sstat_row_init(&row, &ss, 1, 2, ACCTG_CONVERT_NO);
	assert_string_equal(val(&row, "Nodelist"), "node02");
	assert_string_equal(val(&row, "NTasks"), "1");
	assert_string_equal(val(&row, "MaxRSS"), "157286400");
}

/* node01's step daemon told its two tasks apart: task 1 holds more memory
 * and used a quarter of what /proc saw, so a quarter of the cgroup's CPU. */
static void test_tasks_apart(void **state)
{
	struct step_stat ss;
	struct node_stat ns[2];
	struct task_stat ts[2] = {
	    {.gtid = 0,
	     .max_rss_kib = 50 << 10,
	     .max_vsize_kib = 60 << 10,
	     .cpu_usec = 3},
	    {.gtid = 1,
	     .max_rss_kib = 180 << 10,
	     .max_vsize_kib = 190 << 10,
	     .cpu_usec = 1},
	};
	struct sstat_row row;

	two_nodes(&ss, ns);
	ns[0].tasks = ts;
	ns[0].tasks_count = 2;
	sstat_row_init(&row, &ss, 0, 2, ACCTG_CONVERT_EXACT);
	assert_string_equal(val(&row, "MaxRSS"), "180M");
	assert_string_equal(val(&row, "MaxRSSNode"), "node01");
	assert_string_equal(val(&row, "MaxRSSTask"), "1");
	/* 6 s on node01: 4.5 s for task 0, 1.5 s for task 1, 1 s on node02 */
	assert_string_equal(val(&row, "MinCPU"), "00:00:01");
	assert_string_equal(val(&row, "MinCPUTask"), "2");
	assert_string_equal(val(&row, "TRESUsageInMax"),
	                    "cpu=00:00:04,energy=0,fs/disk=0,mem=180M,pages=0,vmem=190M");
	assert_string_equal(val(&row, "TRESUsageInMaxTask"),
	                    "cpu=0,fs/disk=0,mem=1,pages=0,vmem=1");
	/* a list that does not match the node's tasks is not used */
	ns[0].tasks_count = 1;
	sstat_row_init(&row, &ss, 0, 2, ACCTG_CONVERT_EXACT);
	assert_string_equal(val(&row, "MaxRSS"), "150M");
}

/* node01 holds two GPUs (2G and 180 % at the highest, 1G and 150 % now, 3G
 * and 120 % on average over the samples), node02 none: NVML's node figures
 * are shared by the node's tasks; Ave is over the samples. */
static void test_gpus(void **state)
{
	struct step_stat ss;
	struct node_stat ns[2];
	struct sstat_row row;

	two_nodes(&ss, ns);
	ns[0].gpus = 2;
	ns[0].max_gpu_mem = 2ull << 30;
	ns[0].gpu_mem = 1ull << 30;
	ns[0].ave_gpu_mem = 3ull << 30;
	ns[0].max_gpu_util = 180;
	ns[0].gpu_util = 150;
	ns[0].ave_gpu_util = 120;
	sstat_row_init(&row, &ss, 0, 2, ACCTG_CONVERT_EXACT);
	assert_string_equal(val(&row, "TRESUsageInMax"),
	                    "cpu=00:00:03,energy=0,fs/disk=2K,gres/gpumem=1G,"
	                    "gres/gpuutil=90,mem=150M,pages=0,vmem=200M");
	assert_string_equal(val(&row, "TRESUsageInTot"),
	                    "cpu=00:00:07,energy=0,fs/disk=4K,gres/gpumem=1G,"
	                    "gres/gpuutil=150,mem=250M,pages=0,vmem=460M");
	assert_non_null(
	    strstr(val(&row, "TRESUsageInAve"), ",gres/gpumem=1G,gres/gpuutil=40,mem="));
	assert_non_null(
	    strstr(val(&row, "TRESUsageInMin"), ",gres/gpumem=0,gres/gpuutil=0,mem="));
	assert_string_equal(val(&row, "TRESUsageInMaxNode"),
	                    "cpu=node01,energy=node01,fs/disk=node01,gres/gpumem=node01,"
	                    "gres/gpuutil=node01,mem=node02,pages=node01,vmem=node01");
	assert_string_equal(val(&row, "TRESUsageInMaxTask"),
	                    "cpu=0,fs/disk=0,gres/gpumem=0,gres/gpuutil=0,mem=2,"
	                    "pages=0,vmem=0");
	/* node02 alone: no GPUs, no GPU figures */
	sstat_row_init(&row, &ss, 1, 2, ACCTG_CONVERT_EXACT);
	assert_null(strstr(val(&row, "TRESUsageInMax"), "gres/"));
}

static void test_names_and_ids(void **state)
{
	struct step_stat ss = {.job_id = 9, .step_id = STEP_BATCH};
	struct sstat_row row;

	/* -o words are prefixes, matched in Slurm's order */
	assert_string_equal(sstat_field_find("ave")->name, "AveCPU");
	assert_string_equal(sstat_field_find("maxrss")->name, "MaxRSS");
	assert_string_equal(sstat_field_find("MAXRSSN")->name, "MaxRSSNode");
	assert_null(sstat_field_find("bogus"));
	/* no node answered: names and tasks are empty, figures zero */
	sstat_row_init(&row, &ss, 0, 0, ACCTG_CONVERT_EXACT);
	assert_string_equal(val(&row, "JobID"), "9.batch");
	assert_string_equal(val(&row, "MaxRSSNode"), "");
	assert_string_equal(val(&row, "MaxRSSTask"), "");
	assert_string_equal(val(&row, "MaxRSS"), "0");
	assert_string_equal(val(&row, "AveCPU"), "00:00:00");
	ss.step_id = STEP_EXTERN;
	assert_string_equal(val(&row, "JobID"), "9.extern");
	assert_string_equal(cpu_secs(90061, (char[32]){0}, 32), "1-01:01:01");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_aggregate),
	    cmocka_unit_test(test_tasks_apart),
	    cmocka_unit_test(test_gpus),
	    cmocka_unit_test(test_names_and_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
