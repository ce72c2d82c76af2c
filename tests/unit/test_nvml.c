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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_type_name),
	    cmocka_unit_test(test_detect),
	    cmocka_unit_test(test_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
