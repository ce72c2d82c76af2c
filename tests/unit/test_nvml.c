/* test_nvml.c - GPUs found through NVML (common/nvml_dl.h), against the fake
 * libnvidia-ml of fake_nvml.c built beside this test. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/nvml_dl.h"

static void use_fake(void)
{
	char exe[PATH_MAX], lib[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(lib, sizeof(lib), "%s/libfake_nvml.so", dirname(exe));
	setenv("ROTA_NVML_LIB", lib, 1);
	unsetenv("FAKE_NVML_FAIL");
}

static void test_type_name(void **state)
{
	char type[GRES_NAME_MAX];

	(void)state;
	/* Slurm's: a configured type that is part of the lower-cased name */
	nvml_type_name("NVIDIA H100 80GB HBM3", "gpu:h100:8", type);
	assert_string_equal(type, "h100");
	nvml_type_name("NVIDIA H100 80GB HBM3", "gpu:H100:8,nic:1", type);
	assert_string_equal(type, "H100");
	nvml_type_name("NVIDIA H100 80GB HBM3", "gpu:a100:8,gpu:80gb_hbm3:1", type);
	assert_string_equal(type, "80gb_hbm3");
	/* none matches: no type */
	nvml_type_name("NVIDIA H100 80GB HBM3", "gpu:a100:8", type);
	assert_string_equal(type, "");
	nvml_type_name("NVIDIA H100 80GB HBM3", NULL, type);
	assert_string_equal(type, "");
}

static void test_detect(void **state)
{
	struct gres_inv *inv = gres_inv_create();
	struct rota_error err = {{0}};
	char buf[128];

	(void)state;
	use_fake();
	assert_int_equal(nvml_detect(inv, "gpu:h100:4", &err), 4);
	assert_int_equal(gres_inv_format(inv, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "gpu:h100:4");
	assert_int_equal(inv->ndev, 4);
	assert_string_equal(inv->dev[0].file, "/dev/nvidia0");
	assert_string_equal(inv->dev[3].file, "/dev/nvidia5"); /* the minor number */
	gres_cores_format(inv->dev[1].cores, buf, sizeof(buf));
	assert_string_equal(buf, "0-7");
	gres_cores_format(inv->dev[2].cores, buf, sizeof(buf));
	assert_string_equal(buf, "8-15");
	assert_string_equal(inv->dev[0].links, "-1,2,2,2");
	assert_string_equal(inv->dev[2].links, "2,2,-1,2");
	gres_inv_destroy(inv);
}

static void test_failures(void **state)
{
	struct gres_inv *inv = gres_inv_create();
	struct rota_error err = {{0}};

	(void)state;
	use_fake();
	setenv("FAKE_NVML_FAIL", "1", 1);
	assert_int_equal(nvml_detect(inv, NULL, &err), -EIO);
	assert_non_null(strstr(err.text, "NVML: initialisation failed"));
	setenv("ROTA_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	assert_int_equal(nvml_detect(inv, NULL, &err), -ENOENT);
	assert_non_null(strstr(err.text, "cannot load NVML"));
	assert_int_equal(inv->ndev, 0);
	gres_inv_destroy(inv);
}

static void test_watch(void **state)
{
	/* GPU 2 by its minor number, the fourth by its (minor 5), one with a
	 * minor number NVML does not have by its index */
	const struct nvml_gpu_ref refs[] = {
	    {.index = 0, .minor = 2}, {.index = 1, .minor = 5}, {.index = 1, .minor = 9}};
	const pid_t pids[] = {100, 200};
	struct rota_error err = {{0}};
	struct nvml_watch *w = NULL;
	struct nvml_use use;

	(void)state;
	use_fake();
	/* the step's processes only; a foreign one (300) and GPU 0 are not its */
	setenv("FAKE_NVML_USE",
	       "util2=30 util3=50,util1=5 util0=99 proc2=100:1000 proc2=300:7 "
	       "proc3=200:20000 proc3=100:na proc1=200:300000 proc0=100:5",
	       1);
	assert_int_equal(nvml_watch_create(refs, 3, &w, &err), 0);
	/* no process samples (none ran since): 0 %; the GPUs' rates count
	 * only where NVML has no process samples at all */
	assert_int_equal(nvml_watch_sample(w, pids, 2, &use), 0);
	assert_int_equal(use.mem_bytes, 1000 + 20000 + 300000);
	assert_int_equal(use.util, 0);
	setenv("FAKE_NVML_USE",
	       "util2=30 putil2=100:20 putil2=300:70 putil3=200:45 putil0=100:99 "
	       "putil1=100:3 proc2=100:1000",
	       1);
	assert_int_equal(nvml_watch_sample(w, pids, 2, &use), 0);
	assert_int_equal(use.mem_bytes, 1000);
	assert_int_equal(use.util, 20 + 45 + 3);
	setenv("FAKE_NVML_USE", "noputil util2=30 util3=50,util1=5 util0=99", 1);
	assert_int_equal(nvml_watch_sample(w, pids, 2, &use), 0);
	assert_int_equal(use.util, 30 + 50 + 5);
	/* more processes than the first guess holds */
	char many[4096] = "util2=1";
	for (int i = 0; i < 100; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), " proc2=%d:1",
		         i < 99 ? 1000 + i : 100);
	setenv("FAKE_NVML_USE", many, 1);
	assert_int_equal(nvml_watch_sample(w, pids, 2, &use), 0);
	assert_int_equal(use.mem_bytes, 1);
	assert_int_equal(use.util, 0);
	/* no process list: the GPUs' memory in use in all */
	setenv("FAKE_NVML_USE", "noprocs noputil mem2=4096 mem3=1024 mem0=77 util3=100",
	       1);
	assert_int_equal(nvml_watch_sample(w, pids, 2, &use), 0);
	assert_int_equal(use.mem_bytes, 4096 + 1024);
	assert_int_equal(use.util, 100);
	nvml_watch_destroy(w);
	nvml_watch_destroy(NULL);
	unsetenv("FAKE_NVML_USE");

	/* no library, failing NVML, a GPU past the count */
	setenv("FAKE_NVML_FAIL", "1", 1);
	assert_int_equal(nvml_watch_create(refs, 1, &w, &err), -EIO);
	unsetenv("FAKE_NVML_FAIL");
	assert_int_equal(
	    nvml_watch_create(&(struct nvml_gpu_ref){.index = 4, .minor = -1}, 1, &w,
	                      &err),
	    -EIO);
	assert_non_null(strstr(err.text, "no GPU 4"));
	setenv("ROTA_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	assert_int_equal(nvml_watch_create(refs, 1, &w, &err), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_type_name),
	    cmocka_unit_test(test_detect),
	    cmocka_unit_test(test_failures),
	    cmocka_unit_test(test_watch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
