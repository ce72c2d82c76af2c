/* test_devcg.c - ConstrainDevices' device cgroup (stepd/devcg.h): which
 * GRES devices are denied, the BPF program, and (as root, where the kernel
 * lets us) that the kernel denies exactly those. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "stepd/devcg.c"

/* /dev/null is 1:3, /dev/zero 1:5, /dev/full 1:7 on Linux. */
static struct gres_dev_info devs[] = {
    {.name = "gpu", .file = "/dev/null"},
    {.name = "gpu", .file = "/dev/zero"},
    {.name = "nic", .file = "/dev/full"},
    {.name = "gpu", .file = "/etc/hostname"}, /* not a device: skipped */
};

static int has_rule(const struct devcg_list *l, uint32_t maj, uint32_t min)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].type == DEVCG_CHAR && l->v[i].major == maj &&
		    l->v[i].minor == min)
			return 1;
	return 0;
}

static void test_deny_build(void **state)
{
	struct devcg_list l;
	const char *skipped = NULL;

	(void)state;
	/* gpu 1 (/dev/zero) allocated: gpu 0, the nic and nothing else denied */
	assert_int_equal(devcg_deny_build(devs, 4, "gpu:1(IDX:1)", &l, &skipped), 2);
	assert_true(has_rule(&l, 1, 3));
	assert_true(has_rule(&l, 1, 7));
	assert_false(has_rule(&l, 1, 5));
	assert_string_equal(skipped, "/etc/hostname");
	/* no GRES: all of them */
	assert_int_equal(devcg_deny_build(devs, 4, NULL, &l, NULL), 3);
	assert_int_equal(devcg_deny_build(devs, 4, "", &l, NULL), 3);
	/* everything: none */
	assert_int_equal(
	    devcg_deny_build(devs, 3, "gpu:2(IDX:0-1),nic:1(IDX:0)", &l, NULL), 0);
	assert_int_equal(devcg_deny_build(devs, 4, "gpu:x(", &l, NULL), -EINVAL);
}

static void test_assemble(void **state)
{
	struct devcg_list l = {.n = 2, .v = {{DEVCG_CHAR, 195, 1}, {DEVCG_BLOCK, 8, 0}}};
	struct bpf_insn p[32];

	(void)state;
	assert_int_equal(devcg_bpf_assemble(&l, p, 32), 4 + 2 * 5 + 2);
	assert_int_equal(p[4].imm, BPF_DEVCG_DEV_CHAR);
	assert_int_equal(p[5].imm, 195);
	assert_int_equal(p[6].imm, 1);
	assert_int_equal(p[9].imm, BPF_DEVCG_DEV_BLOCK);
	assert_int_equal(p[15].code, BPF_JMP | BPF_EXIT);
	assert_int_equal(devcg_bpf_assemble(&l, p, 15), -E2BIG);
}

static int can_bpf(void)
{
	struct devcg_list l = {.n = 1, .v = {{DEVCG_CHAR, 1, 5}}};
	int fd;

	if (geteuid() != 0)
		return 0;
	if ((fd = devcg_bpf_load(&l, NULL, 0)) < 0)
		return 0;
	close(fd);
	return 1;
}

/* The verifier takes the program, the largest one too. */
static void test_load(void **state)
{
	static struct devcg_list l;
	char log[4096];
	int fd;

	(void)state;
	if (!can_bpf())
		skip();
	l.n = DEVCG_RULES_MAX;
	for (size_t i = 0; i < l.n; i++)
		l.v[i] = (struct devcg_rule){DEVCG_CHAR, 195, (uint32_t)i};
	fd = devcg_bpf_load(&l, log, sizeof(log));
	if (fd < 0)
		fail_msg("load: %s: %s", strerror(-fd), log);
	close(fd);
}

/* In a child that joined dir: errno of opening each path (0: opened). */
static void opens_in(const char *dir, const char *paths[], int n, int *ret)
{
	int pipefd[2], status;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char procs[512];
		int rc[8] = {0};
		FILE *f;

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
		if (!(f = fopen(procs, "w")) || fprintf(f, "%d\n", (int)getpid()) < 0 ||
		    fclose(f) != 0)
			_exit(2);
		for (int i = 0; i < n; i++) {
			int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
			rc[i] = fd < 0 ? errno : 0;
			if (fd >= 0)
				close(fd);
		}
		if (write(pipefd[1], rc, sizeof(rc)) != sizeof(rc))
			_exit(3);
		_exit(0);
	}
	close(pipefd[1]);
	{
		int rc[8];
		assert_int_equal(read(pipefd[0], rc, sizeof(rc)), sizeof(rc));
		memcpy(ret, rc, (size_t)n * sizeof(int));
	}
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
}

/* A fresh cgroup under mount, or NULL (skip). */
static char *cg_make(const char *mount)
{
	static char dir[256];

	if (geteuid() != 0 || access(mount, W_OK) != 0)
		return NULL;
	snprintf(dir, sizeof(dir), "%s/test_devcg_%d", mount, (int)getpid());
	if (mkdir(dir, 0755) < 0)
		return NULL;
	return dir;
}

static void test_bpf_enforced(void **state)
{
	struct devcg_list l = {.n = 1, .v = {{DEVCG_CHAR, 1, 5}}}; /* /dev/zero */
	const char *paths[] = {"/dev/zero", "/dev/null"}, *what = "";
	const char *mount = access("/sys/fs/cgroup/unified/cgroup.procs", F_OK) == 0
	                        ? "/sys/fs/cgroup/unified"
	                        : "/sys/fs/cgroup";
	char *dir;
	int rc[2];

	(void)state;
	if (!can_bpf() || !(dir = cg_make(mount)))
		skip();
	if (devcg_bpf_attach(dir, &l, &what) < 0) {
		rmdir(dir);
		fail_msg("attach: %s", what);
	}
	opens_in(dir, paths, 2, rc);
	rmdir(dir);
	assert_int_equal(rc[0], EPERM);
	assert_int_equal(rc[1], 0);
}

static void test_v1_enforced(void **state)
{
	struct devcg_list l = {.n = 1, .v = {{DEVCG_CHAR, 1, 5}}};
	const char *paths[] = {"/dev/zero", "/dev/null"};
	char *dir = cg_make("/sys/fs/cgroup/devices");
	int rc[2];

	(void)state;
	if (!dir || access("/sys/fs/cgroup/devices/devices.deny", F_OK) != 0) {
		if (dir)
			rmdir(dir);
		skip();
	}
	assert_int_equal(devcg_v1_deny(dir, &l), 0);
	opens_in(dir, paths, 2, rc);
	rmdir(dir);
	assert_int_equal(rc[0], EPERM);
	assert_int_equal(rc[1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_deny_build),  cmocka_unit_test(test_assemble),
	    cmocka_unit_test(test_load),        cmocka_unit_test(test_bpf_enforced),
	    cmocka_unit_test(test_v1_enforced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
