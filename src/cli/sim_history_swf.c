/* sim_history_swf.c - a history (sim_history.h) written as SWF: names are
 * numbered in order of first appearance and the numbers explained in the
 * header, since SWF holds numbers only. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli/sim_history.h"
#include "sched/swf.h"
#include "common/common.h"

/* Distinct names, numbered from 1 in order of first appearance. */
struct namemap {
	const char **names; /* borrowed */
	size_t n;
};

static int64_t namemap_num(struct namemap *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->names[i], name))
			return (int64_t)i + 1;
	m->names = xrealloc(m->names, (m->n + 1) * sizeof(*m->names));
	m->names[m->n++] = name;
	return (int64_t)m->n;
}

static void namemap_print(const struct namemap *m, const char *what, FILE *f)
{
	for (size_t i = 0; i < m->n; i++)
		fprintf(f, "; %s %zu: %s\n", what, i + 1, m->names[i]);
}

static const char *part_name(const struct sim_hjob *j)
{
	return j->partition ? j->partition : "(default)";
}

/* Queue order: submit time, then the order key (sim_history.h). */
static int queue_cmp(const void *a, const void *b)
{
	const struct sim_hjob *x = *(const struct sim_hjob *const *)a;
	const struct sim_hjob *y = *(const struct sim_hjob *const *)b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* "; JobIds:" lines: the Slurm job id of SWF job 1, 2, ... */
#define IDS_PER_LINE 16
static void print_job_ids(const struct sim_hjob *const *q, size_t n, FILE *f)
{
	for (size_t i = 0; i < n; i++) {
		if (i % IDS_PER_LINE == 0)
			fprintf(f, "%s; JobIds:", i ? "\n" : "");
		fprintf(f, " %u", q[i]->id);
	}
	if (n)
		fprintf(f, "\n");
}

int sim_history_write_swf(const struct sim_history *h, int64_t max_procs, FILE *f)
{
	struct namemap users = {0}, accounts = {0}, parts = {0};
	struct swf_job *sj = xcalloc(h->n ? h->n : 1, sizeof(*sj));
	const struct sim_hjob **q = xcalloc(h->n ? h->n : 1, sizeof(*q));
	char line[SWF_MAX_LINE];
	int64_t t0 = 0;

	for (size_t i = 0; i < h->n; i++)
		q[i] = &h->jobs[i];
	qsort(q, h->n, sizeof(*q), queue_cmp);
	t0 = h->n ? q[0]->submit : 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct sim_hjob *j = q[i];

		sj[i] = (struct swf_job){
		    .id = (int64_t)i + 1,
		    .submit = j->submit - t0,
		    .wait = j->start - j->submit,
		    .run = j->end - j->start,
		    .alloc_procs = j->cpus,
		    .avg_cpu = -1,
		    .used_mem = -1,
		    .req_procs = j->cpus,
		    .req_time = j->limit > 0 ? j->limit : -1,
		    .req_mem = -1,
		    .status = 1,
		    .user = namemap_num(&users, j->user),
		    .group = namemap_num(&accounts, j->account),
		    .exe = -1,
		    .queue = -1,
		    .partition = namemap_num(&parts, part_name(j)),
		    .prev_job = -1,
		    .think = -1,
		};
	}
	fprintf(f, "; Version: 2.2\n; Computer: rota (this cluster's history)\n");
	fprintf(f, "; UnixStartTime: %" PRId64 "\n", t0);
	fprintf(f, "; MaxJobs: %zu\n; MaxRecords: %zu\n", h->n, h->n);
	if (max_procs > 0)
		fprintf(f, "; MaxProcs: %" PRId64 "\n", max_procs);
	fprintf(f, "; Note: field 13 (group) numbers accounts; field 9 is the time "
	           "limit\n");
	fprintf(f, "; Note: jobs are numbered in queue order (submit time, job id, "
	           "an array's tasks in task order); JobIds: their Slurm ids\n");
	print_job_ids(q, h->n, f);
	namemap_print(&users, "User", f);
	namemap_print(&accounts, "Group (account)", f);
	namemap_print(&parts, "Partition", f);
	for (size_t i = 0; i < h->n; i++) {
		swf_format_line(&sj[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	free(sj);
	free(q);
	free(users.names);
	free(accounts.names);
	free(parts.names);
	return ferror(f) ? -EIO : 0;
}
