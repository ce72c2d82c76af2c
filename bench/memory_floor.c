/* memory_floor - what this host charges a process for memory it has not
 * touched yet, without Rota: the floor under a controller's start-up with a
 * deep queue (doc/performance.md, "Restart: the floor under it").
 *
 *   memory_floor [-m MIB]
 *
 * For MIB (default 20: 50,000 pending jobs' records) of fresh anonymous
 * memory it prints, in ms:
 *   write        one memset of it as it comes from mmap (page faults);
 *   populate     MADV_POPULATE_WRITE of it, then the memset after that;
 *   rewrite      a second memset (the memory's own speed);
 *   walk         one read a page, warm;
 *   walk-after   the same right after a process unmaps 11 MiB elsewhere
 *                (an image loaded and let go): on a host whose page tables
 *                are shadowed by the hypervisor, every page's mapping is
 *                made again on its next touch;
 *   thread       the first touches made by a second thread, then the memset
 *                by the first (are the mappings shared between them?).
 * Each is the median of 5 runs. */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define RUNS 5

static size_t page;
static volatile long sink;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static char *fresh(size_t n)
{
	void *p =
	    mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static double walk(const char *p, size_t n)
{
	double t0 = now_ms();
	long s = 0;

	for (size_t i = 0; i < n; i += page)
		s += p[i];
	sink = s;
	return now_ms() - t0;
}

struct touch {
	char *p;
	size_t n;
};

static void *toucher(void *arg)
{
	struct touch *t = arg;

	for (size_t i = 0; i < t->n; i += page)
		t->p[i] = 0;
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp_double);
	return v[RUNS / 2];
}

int main(int argc, char **argv)
{
	double write[RUNS], pop[RUNS], pop_write[RUNS], rewrite[RUNS], warm[RUNS],
	    after[RUNS], thr[RUNS], thr_write[RUNS];
	size_t mib = 20, n, other = 11u << 20;
	int c;

	while ((c = getopt(argc, argv, "m:")) != -1) {
		if (c != 'm' || (mib = strtoul(optarg, NULL, 10)) == 0 || mib > 4096) {
			fprintf(stderr, "usage: memory_floor [-m MIB (1-4096)]\n");
			return 2;
		}
	}
	page = (size_t)sysconf(_SC_PAGESIZE);
	n = mib << 20;
	for (int r = 0; r < RUNS; r++) {
		char *p = fresh(n), *q;
		double t0 = now_ms();
		struct touch t;
		pthread_t th;

		memset(p, 1, n);
		write[r] = now_ms() - t0;
		t0 = now_ms();
		memset(p, 2, n);
		rewrite[r] = now_ms() - t0;
		walk(p, n);
		warm[r] = walk(p, n);
		q = fresh(other);
		memset(q, 1, other);
		munmap(q, other);
		after[r] = walk(p, n);
		munmap(p, n);

		p = fresh(n);
		t0 = now_ms();
		madvise(p, n, MADV_POPULATE_WRITE);
		pop[r] = now_ms() - t0;
		t0 = now_ms();
		memset(p, 1, n);
		pop_write[r] = now_ms() - t0;
		munmap(p, n);

		t = (struct touch){fresh(n), n};
		t0 = now_ms();
		pthread_create(&th, NULL, toucher, &t);
		pthread_join(th, NULL);
		thr[r] = now_ms() - t0;
		t0 = now_ms();
		memset(t.p, 1, n);
		thr_write[r] = now_ms() - t0;
		munmap(t.p, n);
	}
	printf("%zu MiB, medians of %d runs (ms):\n", mib, RUNS);
	printf("  write (faults)        %8.2f\n", median(write));
	printf("  populate              %8.2f\n", median(pop));
	printf("  write after populate  %8.2f\n", median(pop_write));
	printf("  rewrite               %8.2f\n", median(rewrite));
	printf("  walk, warm            %8.2f\n", median(warm));
	printf("  walk after an unmap   %8.2f\n", median(after));
	printf("  touch by a thread     %8.2f\n", median(thr));
	printf("  write after that      %8.2f\n", median(thr_write));
	return 0;
}
