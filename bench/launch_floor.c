/* launch_floor - what the kernel charges for a contained task on this host,
 * without Rota: the floor under Rota's per-job CPU (doc/performance.md).
 *
 *   launch_floor [-n TASKS] [-j WORKERS] [-u UID] MODE
 *
 * MODE, each adding to the one before:
 *   spawn       fork, then exec /bin/sh -c true (a job's shell), wait;
 *   cgroup      + the cgroups Rota makes for a job and its step, in every
 *               hierarchy it uses here (v1 memory and cpuset, the v2 mount
 *               to kill through; a pure v2 host: the one), the child joining
 *               the step's before its exec, all removed after it;
 *   supervised  + a supervisor process per task that forks it and waits
 *               (the step daemon's part), and the child switching to UID.
 * WORKERS (default 2) run side by side.  Prints tasks/s and the CPU per task:
 * user + system of this process and everything it started, and the machine's
 * busy time (kernel threads too: a cgroup's removal finishes in a kworker).
 *
 *   launch_floor -m migrate
 * The latency of one cgroup migration (a child writing itself to
 * cgroup.procs) after 100 ms of quiet, and back to back: the first waits for
 * an RCU grace period of the kernel's cgroup_threadgroup_rwsem.  Needs root. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum mode { SPAWN, CGROUP, SUPERVISED, MIGRATE };

#define MAX_HIER 3

struct hier {
	char mount[256];
	int cpuset; /* v1 cpuset: cpus and mems must be set before joining */
};

static struct hier hiers[MAX_HIER];
static int nhier;
static uid_t run_uid;

/* buf = a + b (both NUL-terminated), cut to size. */
static void cat2(char *buf, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la >= size)
		la = size - 1;
	if (la + lb >= size)
		lb = size - 1 - la;
	memcpy(buf, a, la);
	memcpy(buf + la, b, lb);
	buf[la + lb] = '\0';
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Busy CPU of the whole machine (every process and kernel thread), ms. */
static double busy_ms(void)
{
	unsigned long long u, ni, sy, id, io, irq, sirq;
	FILE *f = fopen("/proc/stat", "re");
	int ok = f && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &u, &ni, &sy,
	                     &id, &io, &irq, &sirq) == 7;

	if (f)
		fclose(f);
	return ok ? (double)(u + ni + sy + irq + sirq) * 1e3 / sysconf(_SC_CLK_TCK) : 0;
}

static double cpu_ms(void)
{
	struct rusage a, b;

	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return (a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec +
	        b.ru_stime.tv_sec) *
	           1e3 +
	       (a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec +
	        b.ru_stime.tv_usec) /
	           1e3;
}

/* The hierarchies Rota would use: v1 memory and cpuset, else the v2 mount;
 * the v2 mount too for killing. */
static void find_hierarchies(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024], mnt[256], type[64], opts[512];
	char v2[256] = "", mem[256] = "", cpuset[256] = "";

	while (f && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 ||
		    sscanf(dash + 3, "%63s %*s %511s", type, opts) != 2)
			continue;
		if (!strcmp(type, "cgroup2") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", mnt);
		else if (!strcmp(type, "cgroup") && strstr(opts, "memory") && !mem[0])
			snprintf(mem, sizeof(mem), "%s", mnt);
		else if (!strcmp(type, "cgroup") && strstr(opts, "cpuset") && !cpuset[0])
			snprintf(cpuset, sizeof(cpuset), "%s", mnt);
	}
	if (f)
		fclose(f);
	if (mem[0])
		cat2(hiers[nhier++].mount, sizeof(hiers[0].mount), mem, "");
	if (cpuset[0]) {
		cat2(hiers[nhier].mount, sizeof(hiers[0].mount), cpuset, "");
		hiers[nhier++].cpuset = 1;
	}
	if (v2[0])
		cat2(hiers[nhier++].mount, sizeof(hiers[0].mount), v2, "");
}

static void put(const char *dir, const char *file, const char *v)
{
	char path[1200];
	int fd;

	cat2(path, sizeof(path), dir, "/");
	cat2(path + strlen(path), sizeof(path) - strlen(path), file, "");
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return;
	if (write(fd, v, strlen(v)) < 0) {
		/* measured as Rota would pay it: errors left to the caller */
	}
	close(fd);
}

static void get(const char *dir, const char *file, char *buf, size_t size)
{
	char path[1200];
	int fd;
	ssize_t n;

	buf[0] = '\0';
	cat2(path, sizeof(path), dir, "/");
	cat2(path + strlen(path), sizeof(path) - strlen(path), file, "");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* Make dir (under parent) as Rota makes a job's or a step's. */
static void level(const struct hier *h, const char *parent, const char *dir)
{
	char v[256];

	mkdir(dir, 0755);
	if (h->cpuset) {
		put(dir, "cpuset.sched_load_balance", "0");
		get(parent, "cpuset.cpus", v, sizeof(v));
		put(dir, "cpuset.cpus", v);
		get(parent, "cpuset.mems", v, sizeof(v));
		put(dir, "cpuset.mems", v);
	}
}

static void join(const char *step_dir)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	put(step_dir, "cgroup.procs", pid);
}

static void one_task(enum mode mode, int worker, int i)
{
	char name[64];
	char job[MAX_HIER][1024], step[MAX_HIER][1100], top[MAX_HIER][800];
	pid_t pid;

	for (int k = 0; mode >= CGROUP && k < nhier; k++) {
		snprintf(name, sizeof(name), "/rota-floor-%d", (int)getppid());
		cat2(top[k], sizeof(top[k]), hiers[k].mount, name);
		snprintf(name, sizeof(name), "/job_%d_%d", worker, i);
		cat2(job[k], sizeof(job[k]), top[k], name);
		cat2(step[k], sizeof(step[k]), job[k], "/step_batch");
		level(&hiers[k], top[k], job[k]);
		level(&hiers[k], job[k], step[k]);
	}
	if (mode == SUPERVISED && (pid = fork()) != 0) {
		/* this worker waits for the supervisor, as rotad for its stepd */
		while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	} else {
		pid = fork();
		if (pid == 0) {
			for (int k = 0; mode >= CGROUP && k < nhier; k++)
				join(step[k]);
			if (mode == SUPERVISED && run_uid &&
			    (setgid(run_uid) < 0 || setuid(run_uid) < 0))
				_exit(126);
			execl("/bin/sh", "sh", "-c", "true", (char *)NULL);
			_exit(127);
		}
		while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (mode == SUPERVISED)
			_exit(0);
	}
	for (int k = 0; mode >= CGROUP && k < nhier; k++) {
		rmdir(step[k]);
		rmdir(job[k]);
	}
}

static void make_tops(int make)
{
	for (int k = 0; k < nhier; k++) {
		char top[800], name[64];
		snprintf(name, sizeof(name), "/rota-floor-%d", (int)getpid());
		cat2(top, sizeof(top), hiers[k].mount, name);
		if (!make) {
			rmdir(top);
			continue;
		}
		level(&hiers[k], hiers[k].mount, top);
	}
}

static int migrate(void)
{
	char dir[800], name[64];
	double quiet[5], busy[5];

	if (!nhier) {
		fprintf(stderr, "launch_floor: no cgroup hierarchy\n");
		return 1;
	}
	snprintf(name, sizeof(name), "/rota-floor-%d", (int)getpid());
	cat2(dir, sizeof(dir), hiers[0].mount, name);
	level(&hiers[0], hiers[0].mount, dir);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 5; i++) {
			int p[2];
			double t = 0;
			pid_t pid;

			if (pass == 0)
				usleep(100000);
			if (pipe(p) < 0)
				return 1;
			if ((pid = fork()) == 0) {
				double t0 = now_ms();
				join(dir);
				t = now_ms() - t0;
				if (write(p[1], &t, sizeof(t)) < 0)
					_exit(1);
				_exit(0);
			}
			if (read(p[0], &t, sizeof(t)) != sizeof(t))
				t = -1;
			close(p[0]);
			close(p[1]);
			waitpid(pid, NULL, 0);
			(pass ? busy : quiet)[i] = t;
		}
	rmdir(dir);
	printf("cgroup migration in %s\nafter 100 ms quiet:", hiers[0].mount);
	for (int i = 0; i < 5; i++)
		printf(" %.3f", quiet[i]);
	printf(" ms\nback to back:      ");
	for (int i = 0; i < 5; i++)
		printf(" %.3f", busy[i]);
	printf(" ms\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const char *names[] = {"spawn", "cgroup", "supervised", "migrate"};
	int n = 1000, workers = 2, opt;
	enum mode mode = SPAWN;
	double t0, c0, b0, wall, cpu, busy;

	while ((opt = getopt(argc, argv, "n:j:u:m:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'j')
			workers = atoi(optarg);
		else if (opt == 'u')
			run_uid = (uid_t)atoi(optarg);
		else if (opt == 'm' && !strcmp(optarg, "migrate"))
			mode = MIGRATE;
	}
	if (optind < argc)
		for (int m = SPAWN; m <= SUPERVISED; m++)
			if (!strcmp(argv[optind], names[m]))
				mode = (enum mode)m;
	if (n < 1 || n > 1000000 || workers < 1 || workers > 64) {
		fprintf(stderr, "usage: launch_floor [-n 1..1000000] [-j 1..64] "
		                "[-u UID] spawn|cgroup|supervised | -m migrate\n");
		return 2;
	}
	if (mode >= CGROUP && geteuid() != 0) {
		fprintf(stderr, "launch_floor: %s needs root\n", names[mode]);
		return 2;
	}
	if (mode >= CGROUP)
		find_hierarchies();
	if (mode == MIGRATE)
		return migrate();
	if (mode >= CGROUP)
		make_tops(1);
	t0 = now_ms();
	c0 = cpu_ms();
	b0 = busy_ms();
	for (int w = 0; w < workers; w++)
		if (fork() == 0) {
			for (int i = w; i < n; i += workers)
				one_task(mode, w, i);
			_exit(0);
		}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	wall = now_ms() - t0;
	cpu = cpu_ms() - c0;
	busy = busy_ms() - b0;
	if (mode >= CGROUP)
		make_tops(0);
	printf("%s: %d tasks, %d workers, %d cgroup hierarchies: %.0f tasks/s, "
	       "%.2f ms CPU per task (%.2f ms busy on the machine)\n",
	       names[mode], n, workers, mode >= CGROUP ? nhier : 0, n / (wall / 1e3),
	       cpu / n, busy / n);
	return 0;
}
