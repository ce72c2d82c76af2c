/* eff.c - rota eff JOBID: how well a job used what it held, from the records
 * rotadbd keeps (the figures users look for in seff): the CPU time of all its
 * steps against its cores times its wall-clock time, the highest memory peak
 * of a step on one node against the memory it had there, and its wall-clock
 * time against its time limit.  The usage is measured (the steps' cgroups),
 * so a running job's figures are those of its finished steps. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/acct_client.h"
#include "cli/cli.h"
#include "cli/eff.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

struct eff {
	const char *cluster;
	time_t now;
	int found;
};

/* KiB as seff prints sizes: "117.23 MB", "1.00 GB". */
static const char *size_text(double kib, char *buf, size_t len)
{
	static const char *const units[] = {"KB", "MB", "GB", "TB", "PB"};
	size_t u = 0;

	while (kib >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		kib /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f %s", kib, units[u]);
	return buf;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static void print_eff(const struct eff *e, const struct acct_job *j)
{
	uint32_t state = j->state & JOB_STATE_BASE;
	uint32_t nodes = j->nnodes ? j->nnodes : 1;
	time_t end = j->end ? j->end : e->now;
	long wall = j->start && end > j->start ? (long)(end - j->start) : 0;
	uint64_t cpu_usec = 0, peak_kib = 0, mem_mb = j->req_mem & ~ACCT_MEM_PER_CPU;
	char b1[64], b2[64];

	for (size_t i = 0; i < j->steps_count; i++) {
		cpu_usec += j->steps[i].user_usec + j->steps[i].sys_usec;
		if (j->steps[i].max_rss > peak_kib)
			peak_kib = j->steps[i].max_rss;
	}
	if (j->req_mem & ACCT_MEM_PER_CPU)
		mem_mb *= (j->ncpus + nodes - 1) / nodes;
	if (j->array_task_id != NO_VAL && j->array_job_id)
		printf("Job ID: %u\nArray Job ID: %u_%u\n", j->job_id, j->array_job_id,
		       j->array_task_id);
	else
		printf("Job ID: %u\n", j->job_id);
	printf("Cluster: %s\n", e->cluster);
	printf("User/Group: %s/%s\n", j->user ? j->user : "?", j->group ? j->group : "?");
	if (state == JOB_PENDING || state == JOB_RUNNING)
		printf("State: %s\n", job_state_name(state));
	else
		printf("State: %s (exit code %u)\n", job_state_name(state),
		       (j->exit_code >> 8) & 0xff);
	if (!j->start) {
		printf("Efficiency not available for jobs that have not started.\n");
		return;
	}
	printf("Nodes: %u\n", nodes);
	printf("Cores per node: %u\n", (j->ncpus + nodes - 1) / nodes);
	printf("CPU Utilized: %s\n",
	       timefmt_duration((long)(cpu_usec / 1000000), b1, sizeof(b1)));
	printf("CPU Efficiency: %.2f%% of %s core-walltime\n",
	       pct((double)cpu_usec / 1e6, (double)wall * j->ncpus),
	       timefmt_duration(wall * (long)j->ncpus, b2, sizeof(b2)));
	printf("Job Wall-clock time: %s\n", timefmt_duration(wall, b1, sizeof(b1)));
	if (j->time_limit && j->time_limit != NO_VAL && j->time_limit != TIME_INFINITE)
		printf("Time Limit Efficiency: %.2f%% of %s\n",
		       pct((double)wall, (double)j->time_limit * 60),
		       timefmt_duration((long)j->time_limit * 60, b2, sizeof(b2)));
	printf("Memory Utilized: %s\n", size_text((double)peak_kib, b1, sizeof(b1)));
	if (mem_mb)
		printf("Memory Efficiency: %.2f%% of %s\n",
		       pct((double)peak_kib, (double)mem_mb * 1024),
		       size_text((double)mem_mb * 1024, b2, sizeof(b2)));
	else
		printf("Memory Efficiency: no memory was requested\n");
	if (state == JOB_RUNNING)
		printf("WARNING: Efficiency statistics may be misleading for RUNNING "
		       "jobs.\n");
}

static void on_job(void *arg, const struct acct_job *j)
{
	struct eff *e = arg;

	if (j->superseded)
		return; /* an earlier run of a requeued job */
	if (e->found++)
		printf("\n");
	print_eff(e, j);
}

int cmd_eff(int argc, char **argv)
{
	struct acct_query q = {0};
	struct eff e = {.now = time(NULL)};
	struct acct_fetch_cb cb = {NULL, on_job, &e};
	const char *id = argc == 2 ? argv[1] : NULL;
	char *end = NULL;
	int rc;

	if (!id || !strcmp(id, "-h") || !strcmp(id, "--help")) {
		fprintf(id ? stdout : stderr, "Usage: rota eff JOBID  (N, or N_T for an "
		                              "array task)\n");
		return id ? 0 : 2;
	}
	if (strtoul(id, &end, 10) == 0 || (*end && (*end != '_' || !end[1])) ||
	    strlen(id) > 32 || strspn(id, "0123456789_") != strlen(id)) {
		fprintf(stderr, "rota: error: Invalid job id: %s\n", id);
		return 2;
	}
	e.cluster = cli_conf()->cluster_name ? cli_conf()->cluster_name : "cluster";
	q.jobs = strv_append(NULL, id);
	rc = acct_fetch(&q, &cb);
	codec_release(&acct_query_type, &q);
	if (rc)
		return 1;
	if (!e.found) {
		fprintf(stderr, "Job not found.\n");
		return 1;
	}
	return 0;
}
