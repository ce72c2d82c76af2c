/* test_oci_image.c - naming images, picking a manifest from index.json, and
 * laying layers with whiteouts over a root file system (common/fstree.h). */
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
#include "common/fstree.h"
#include "common/oci_image.h"

#define D1 "sha256:1111111111111111111111111111111111111111111111111111111111111111"
#define D2 "sha256:2222222222222222222222222222222222222222222222222222222222222222"

#if defined(__x86_64__)
#define ARCH "amd64"
#elif defined(__aarch64__)
#define ARCH "arm64"
#else
#define ARCH "ppc64le"
#endif
#define OTHER D1
#define MINE  D2

static void test_kind(void **state)
{
	assert_int_equal(oci_image_kind("/images/x.sqsh", 0), OCI_KIND_TARBALL);
	assert_int_equal(oci_image_kind("./rootfs.tar.gz", 0), OCI_KIND_TARBALL);
	assert_int_equal(oci_image_kind("rootfs.tgz", 0), OCI_KIND_TARBALL);
	assert_int_equal(oci_image_kind("/images/layout", 1), OCI_KIND_LAYOUT);
	assert_int_equal(oci_image_kind("ubuntu:22.04", 0), OCI_KIND_REFERENCE);
	assert_int_equal(oci_image_kind("nvcr.io#nvidia/pytorch", 0), OCI_KIND_REFERENCE);
}

static void test_reference(void **state)
{
	struct rota_error err = {""};
	char *dir, *tag;

	assert_int_equal(oci_image_reference("nvcr.io#nvidia/pytorch:24.01-py3", "/m",
	                                     &dir, &tag, &err),
	                 0);
	assert_string_equal(dir, "/m/nvcr.io/nvidia/pytorch");
	assert_string_equal(tag, "24.01-py3");
	free(dir);
	free(tag);
	assert_int_equal(oci_image_reference("me@ubuntu", "/m", &dir, &tag, &err), 0);
	assert_string_equal(dir, "/m/ubuntu");
	assert_string_equal(tag, "latest");
	free(dir);
	free(tag);
	assert_int_equal(
	    oci_image_reference("localhost:5000#x/y", "/m", &dir, &tag, &err), 0);
	assert_string_equal(dir, "/m/localhost:5000/x/y");
	free(dir);
	free(tag);
	assert_int_equal(oci_image_reference("../../etc", "/m", &dir, &tag, &err), -1);
	assert_int_equal(oci_image_reference("a/../../b", "/m", &dir, &tag, &err), -1);
	assert_int_equal(oci_image_reference("a:b/c", "/m", &dir, &tag, &err), -1);
	assert_int_equal(oci_image_reference("ubuntu", NULL, &dir, &tag, &err), -1);
	assert_non_null(strstr(err.text, "no image mirror"));
}

static void test_index_pick(void **state)
{
	const char *two = "{\"manifests\":["
	                  "{\"digest\":\"" D1 "\",\"annotations\":"
	                  "{\"org.opencontainers.image.ref.name\":\"1.0\"}},"
	                  "{\"digest\":\"" D2 "\",\"annotations\":"
	                  "{\"org.opencontainers.image.ref.name\":\"latest\"}}]}";
	const char *one = "{\"manifests\":[{\"digest\":\"" D1 "\"}]}";
	const char *plat = "{\"manifests\":["
	                   "{\"digest\":\"" OTHER "\",\"platform\":{\"architecture\":"
	                   "\"s390x\"}},"
	                   "{\"digest\":\"" MINE "\",\"platform\":{\"architecture\":"
	                   "\"" ARCH "\"}}]}";
	const char *bad = "{\"manifests\":[{\"digest\":\"sha256:../../etc/passwd\"}]}";
	struct rota_error err = {""};
	char *d;

	assert_int_equal(oci_index_pick(two, strlen(two), "1.0", &d, &err), 0);
	assert_string_equal(d, D1);
	free(d);
	assert_int_equal(oci_index_pick(two, strlen(two), NULL, &d, &err), 0);
	assert_string_equal(d, D2); /* no tag: latest */
	free(d);
	assert_int_equal(oci_index_pick(two, strlen(two), "latest", &d, &err), 0);
	assert_string_equal(d, D2);
	free(d);
	assert_int_equal(oci_index_pick(one, strlen(one), "latest", &d, &err), 0);
	assert_string_equal(d, D1);
	free(d);
	assert_int_equal(oci_index_pick(one, strlen(one), "2.0", &d, &err), -1);
	assert_non_null(strstr(err.text, "no manifest tagged `2.0'"));
	assert_int_equal(oci_index_pick(bad, strlen(bad), NULL, &d, &err), -1);
	assert_int_equal(oci_index_pick(plat, strlen(plat), "latest", &d, &err), 0);
	assert_string_equal(d, MINE); /* untagged: this machine's platform */
	free(d);
	assert_int_equal(oci_index_pick("{", 1, NULL, &d, &err), -1);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static int exists(const char *dir, const char *name)
{
	char path[512];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &sb) == 0;
}

/* dir/etc and dir/opt */
static void make_dirs(const char *dir)
{
	char path[128];

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/etc", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/opt", dir);
	mkdir(path, 0755);
}

static void test_apply_layer(void **state)
{
	char top[] = "/tmp/rota-fstree-XXXXXX", root[64], layer[64], path[128];

	assert_non_null(mkdtemp(top));
	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(layer, sizeof(layer), "%s/layer", top);
	make_dirs(root);
	make_dirs(layer);
	put(root, "etc/keep", "lower");
	put(root, "etc/gone", "lower");
	put(root, "etc/replaced", "lower");
	put(root, "opt/old", "lower");
	put(layer, "etc/.wh.gone", "");
	put(layer, "etc/replaced", "upper");
	put(layer, "etc/new", "upper");
	put(layer, "opt/.wh..wh..opq", "");
	put(layer, "opt/fresh", "upper");

	assert_int_equal(fstree_apply_layer(layer, root), 0);
	assert_true(exists(root, "etc/keep"));
	assert_false(exists(root, "etc/gone"));
	assert_false(exists(root, "etc/.wh.gone"));
	assert_true(exists(root, "etc/new"));
	assert_false(exists(root, "opt/old")); /* opaque: the lower content hidden */
	assert_true(exists(root, "opt/fresh"));
	assert_false(exists(root, "opt/.wh..wh..opq"));
	snprintf(path, sizeof(path), "%s/etc/replaced", root);
	FILE *f = fopen(path, "r");
	char buf[16] = "";
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "upper");

	assert_int_equal(fstree_remove(top), 0);
	assert_false(exists(top, ""));
	assert_int_equal(fstree_remove(top), 0); /* gone already: fine */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kind),
	    cmocka_unit_test(test_reference),
	    cmocka_unit_test(test_index_pick),
	    cmocka_unit_test(test_apply_layer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
